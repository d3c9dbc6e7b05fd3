import type { FormatAdapter } from './adapter';
// One import and one list entry per format; nothing else needs to know a format exists.
import { openAiChatAdapter } from './openaiChat';
import { sweAgentAdapter } from './sweAgent';
import { miniSweAgentAdapter } from './miniSweAgent';
import { katalystAdapter } from './katalyst';
import { openHandsV0Adapter } from './openhandsV0';
import { openHandsEvalAdapter } from './openhandsEval';
import { openHandsV1Adapter } from './openhandsV1';
import { claudeCodeAdapter } from './claudeCode';
import { codexAdapter } from './codex';
import { inspectAdapter } from './inspect';
import { openAiResponsesAdapter } from './openaiResponses';
import { anthropicAdapter } from './anthropic';
import { atifAdapter } from './atif';
import { geminiCliAdapter } from './geminiCli';
import { copilotCliAdapter } from './copilotCli';
import { opencodeAdapter } from './opencode';
import { clineAdapter } from './cline';
import { aiderAdapter } from './aider';
import { otelAdapter } from './otel';
import { piAdapter } from './pi';
import { anthropicManagedAgentsAdapter } from './anthropicManagedAgents';
import { qwenCodeAdapter } from './qwenCode';
import { openAiAgentsTraceAdapter } from './openaiAgentsTrace';
import { opencodeEventsAdapter } from './opencodeEvents';
import { codexExecAdapter } from './codexExec';
import { kimiCodeAdapter } from './kimiCode';
import { gooseAdapter } from './goose';
import { cursorAgentAdapter } from './cursorAgent';
import { specStoryAdapter } from './specStory';
import { cursorIdeAdapter } from './cursorIde';
import { manyRunsAdapter } from './runs';

export const FORMAT_ADAPTERS: readonly FormatAdapter[] = [
  openAiChatAdapter,
  sweAgentAdapter,
  miniSweAgentAdapter,
  katalystAdapter,
  openHandsV0Adapter,
  openHandsEvalAdapter,
  openHandsV1Adapter,
  claudeCodeAdapter,
  codexAdapter,
  inspectAdapter,
  openAiResponsesAdapter,
  anthropicAdapter,
  atifAdapter,
  geminiCliAdapter,
  copilotCliAdapter,
  opencodeAdapter,
  clineAdapter,
  aiderAdapter,
  otelAdapter,
  piAdapter,
  anthropicManagedAgentsAdapter,
  qwenCodeAdapter,
  openAiAgentsTraceAdapter,
  opencodeEventsAdapter,
  codexExecAdapter,
  kimiCodeAdapter,
  gooseAdapter,
  cursorAgentAdapter,
  specStoryAdapter,
  cursorIdeAdapter,
  manyRunsAdapter(() => FORMAT_ADAPTERS),
];
