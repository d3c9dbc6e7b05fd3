// The fact layer's public surface: facts read from a run, and their rendering under each strategy's headings.
export * from './facts';
export * from './render';
export { bounded, cleanText, counted, firstLine, leastPassing, paragraph, tidy } from './hygiene';
export { classifyCall } from './calls';
export { digestItems, EXCERPT_PRIORITY, excerptItems, FILL_PRIORITY, fitItems, joinItems, type DigestItem } from './digest';
export { exitCodeOf, firstOutputLine, sameTest } from './outcomes';
export { isTypedCommand, requestText, taskOf } from './requests';
export { stepFailed } from './verdict';
