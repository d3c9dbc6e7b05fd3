// The token-accounting API in one import, for the extension and the CLI.
export type { TokenCounter } from './counter';
export { charEstimateCounter } from './counter';
export { stepTotal, REPLY_PRIMING, type StepTokens } from './chatFormat';
export { tokenizerFor, tokenizerLabel } from './models';
export { TokenService, type TokenCounts } from './tokenService';
export { summarizeTokens, modelCalls } from './summary';
export { runWindow, tokenReport, type TokenReport } from './report';
export { tiktokenCounter } from './tiktokenCounter';
export { memoizedCounter } from './tiktokenCounter';
export { countingBackend, type CountingBackend } from './countJobs';
export { describeTokenReport, windowText } from './describe';
export { isAgentStep, messageStarts, overheadOf, piecesOf, stepTokensOf } from './chatFormat';
export { imageLine, imageRulesOf, modelRunImages } from './imageTokens';
