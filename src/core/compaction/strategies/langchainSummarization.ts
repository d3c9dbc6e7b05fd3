// `langchain-summarization`: LangChain v1's SummarizationMiddleware. Before a model call it fires
// when any trigger holds (a share of the model's window, a token count, a message count), keeps
// the last 20 messages, never cuts between an AI message's tool calls and their tool messages,
// and replaces the older messages with one message holding a summary. The summariser only sees
// the last 4,000 tokens of what it replaces (`trim_tokens_to_summarize`).

import type { ChatMessage } from '../../llm/provider';
import type { Step, Run } from '../../model';
import { charEstimateCounter, type TokenCounter } from '../../tokens';
import { replaceRange, summaryStep } from '../assemble';
import {
  commandLines, constraintLines, decisionLines, doneTodoLines, finishedEarlierLines, earlierSummaryText, EXTRACTIVE_NOTE, extractFacts, failedEditLines,
  lastAgentLine, laterRequests, openTodoLines, pendingCallLines, readLinesUnderRoot, renderSections, taskLine, testLines, tidy, userRefLines, type Facts,
} from '../extract';
import { roomFillLines, errorLinesKeepingLast, must, outcomeLines } from '../facts';
import { changeLinesWithin, charsBudget, countFor, fillRoom, editGists, rangeSteps, SUMMARY_SIZE_OPTIONS, summaryMaxChars } from './summaryBudget';
import { promptTokensOf } from '../text';
import type { ForcedTrigger, OptionSpec, PolicyChoice, StepRange, Strategy, StrategyContext, StrategyOptions, StrategyOutput } from '../types';
import { sessionSnippets } from './agentsSdk';
import { fromDefaults } from '../describeDefaults';

/** Written for this project, in the role of LangChain's opening of the summary message. */
export const SUMMARY_OPENING = 'Summary of the conversation so far:';

// Written for this project, after LangChain's context-extraction prompt.
const PROMPT = `The conversation below is about to be replaced by what you write now, because it no longer fits. Extract from it the context that matters most for the goal: what was asked, what was done and found, what failed, and what is still open, so that nothing already done gets repeated.
Reply with the extracted context only.

Messages to summarize:
`;

function messagesOf(trajectory: Run): Step[] {
  return trajectory.steps.filter((s) => s.kind !== 'system');
}

function tokensOf(steps: readonly Step[], counter: TokenCounter): number {
  return steps.reduce((n, s) => n + promptTokensOf(s, counter), 0);
}

/** Which triggers hold, in words; empty when none does. */
function firedTriggers(trajectory: Run, o: StrategyOptions, counter: TokenCounter): string[] {
  const msgs = messagesOf(trajectory);
  const tokens = tokensOf(trajectory.steps, counter);
  const fired: string[] = [];
  const fraction = Number(o.trigger_fraction);
  if (fraction > 0 && tokens >= Math.max(1, Math.floor(Number(o.context_window) * fraction))) fired.push(`${tokens} tokens ≥ ${fraction} of the ${o.context_window}-token window`);
  if (Number(o.trigger_tokens) > 0 && tokens >= Number(o.trigger_tokens)) fired.push(`${tokens} tokens ≥ ${o.trigger_tokens}`);
  if (Number(o.trigger_messages) > 0 && msgs.length >= Number(o.trigger_messages)) fired.push(`${msgs.length} messages ≥ ${o.trigger_messages}`);
  return fired;
}

/** The cut before the last `keep` messages, moved earlier until no tool call is parted from its result. */
function safeCutoff(msgs: readonly Step[], keep: number): number {
  let cut = msgs.length - keep;
  const position = new Map(msgs.map((s, i) => [s.index, i]));
  const splits = (c: number) => msgs.some((s, i) => s.kind === 'tool_result' && s.answers !== undefined && (i >= c) !== ((position.get(s.answers) ?? i) >= c));
  while (cut > 0 && splits(cut)) cut--;
  return cut;
}

function policy(trajectory: Run, o: StrategyOptions, counter: TokenCounter = charEstimateCounter, forced?: ForcedTrigger): PolicyChoice {
  const fired = forced ? [`over the ${forced.tokenBudget}-token budget`] : firedTriggers(trajectory, o, counter);
  if (fired.length === 0) return { range: null, reason: 'no trigger holds (fraction, tokens or messages).' };
  const msgs = messagesOf(trajectory);
  let cut = safeCutoff(msgs, Number(o.keep_messages));
  // Forced with fewer messages than it keeps: the budget still has to be met, so only the newest
  // message (with the call it answers) stays.
  if (cut <= 0 && forced) cut = safeCutoff(msgs, 1);
  if (cut <= 0) return { range: null, reason: `${fired.join('; ')}, but all ${msgs.length} messages are among the last ${o.keep_messages} kept.` };
  return { range: [msgs[0].index, msgs[cut - 1].index], reason: `${fired.join('; ')}: keep the last ${msgs.length - cut} messages, summarize the ${cut} before them.` };
}

/** What the summariser gets: the newest messages of the range within `maxTokens` (0: all), the first one cut from its start. */
function trimForSummary(steps: readonly Step[], maxTokens: number, counter: TokenCounter): { text: string; unseen: Step[] } {
  const full = sessionSnippets(steps, Number.MAX_SAFE_INTEGER);
  if (maxTokens <= 0 || counter.count(full) <= maxTokens) return { text: full, unseen: [] };
  const kept: string[] = [];
  let used = 0;
  let firstSeen = steps.length;
  for (let i = steps.length - 1; i >= 0; i--) {
    const line = sessionSnippets([steps[i]], Number.MAX_SAFE_INTEGER);
    const t = counter.count(line);
    if (used + t > maxTokens) {
      // LangChain allows a partial message: the end of this one, as much as fits.
      const room = Math.max(0, (maxTokens - used) * 4);
      if (room > 40) { kept.unshift(`[…] ${line.slice(line.length - room)}`); firstSeen = i; }
      break;
    }
    kept.unshift(line);
    used += t;
    firstSeen = i;
  }
  return { text: kept.join('\n'), unseen: steps.slice(0, firstSeen) };
}

function extractiveContext(facts: Facts, budget: number, counts = budget, fill = false): string {
  return renderSections([
    { heading: 'Task:', inline: taskLine(facts) ?? '(no user request in the log)', lines: [...must(laterRequests(facts).map((r) => `then: ${r}`)), ...constraintLines(facts).map((c) => `constraint: ${c}`), ...userRefLines(facts).map((r) => `given: ${r}`)] },
    { heading: 'Done:', lines: [...must(changeLinesWithin(facts, budget)), ...must(doneTodoLines(facts)), ...finishedEarlierLines(facts), ...testLines(facts), ...commandLines(facts, countFor(15, counts)), ...editGists(facts, budget, fill)], empty: '(nothing done in these messages)' },
    { heading: 'Failed:', lines: [...failedEditLines(facts), ...errorLinesKeepingLast(facts)], empty: '(nothing failed in these messages)' },
    { heading: 'Found:', lines: [...decisionLines(facts, countFor(4, counts), countFor(3, counts)), ...outcomeLines(facts), ...(fill ? roomFillLines(facts) : []), ...readLinesUnderRoot(facts, (f) => `read ${f}`)], empty: '(nothing stated)' },
    { heading: 'Open:', lines: [...must(openTodoLines(facts)), ...pendingCallLines(facts), ...earlierSummaryText(facts).map((p) => `earlier summary ${p}`)], empty: '(not stated)' },
    { heading: 'Last message:', inline: lastAgentLine(facts, 300) ?? '(none)', lines: [] },
  ], { header: [EXTRACTIVE_NOTE], budget });
}

async function run(trajectory: Run, range: StepRange, ctx: StrategyContext): Promise<StrategyOutput> {
  const summarized = trajectory.steps.slice(range[0], range[1] + 1).filter((s) => s.kind !== 'system');
  const trimmed = trimForSummary(summarized, Number(ctx.options.trim_tokens_to_summarize), ctx.counter);
  const messages: ChatMessage[] = [{ role: 'user', content: PROMPT + trimmed.text }];
  const warnings: string[] = [];
  if (trimmed.unseen.length) {
    warnings.push(`The summariser sees only the last ${ctx.options.trim_tokens_to_summarize} tokens of what it replaces: steps ${trimmed.unseen[0].index}–${trimmed.unseen[trimmed.unseen.length - 1].index} do not reach a model${ctx.llm ? '' : ' (the extractive summary below still reads them)'}.`);
  }
  let body: string;
  let mode: StrategyOutput['mode'] = 'extractive';
  if (ctx.llm) {
    body = (await ctx.llm.complete({ messages })).text.trim();
    mode = 'llm';
  } else {
    const facts = extractFacts(trajectory, summarized.map((s) => s.index));
    const room = summaryMaxChars(ctx.options, rangeSteps(trajectory, range)) - SUMMARY_OPENING.length - 2;
    body = fillRoom((counts, fill) => extractiveContext(facts, room, counts, fill), room, rangeSteps(trajectory, range), true);
  }
  const summary = tidy(`${SUMMARY_OPENING}\n\n${body}`);
  const { steps, fates } = replaceRange(trajectory, range, [summaryStep(summary, summarized, 'user', 'langchain summarization')], { survives: (s) => s.kind === 'system' });
  return { mode, steps, fates, summary, prompt: messages, warnings };
}

const langchainSummarizationOptions: OptionSpec[] = [
  { name: 'trigger_tokens', type: 'integer', default: 4000, min: 0, max: 10_000_000, help: "Summarize once the messages reach this many tokens; 0 turns this trigger off (LangChain has no default; 4,000 is its documentation's example)." },
  { name: 'trigger_fraction', type: 'number', default: 0, min: 0, max: 1, help: 'Summarize once the messages reach this share of context_window; 0 turns this trigger off.' },
  { name: 'trigger_messages', type: 'integer', default: 0, min: 0, max: 1_000_000, help: 'Summarize once there are this many messages; 0 turns this trigger off.' },
  { name: 'context_window', type: 'integer', default: 128_000, min: 1_000, max: 10_000_000, help: "The model's input window, for trigger_fraction (LangChain reads it from the model's profile)." },
  { name: 'keep_messages', type: 'integer', default: 20, min: 0, max: 1_000_000, help: 'Recent messages kept as they are (keep, default 20 messages).' },
  { name: 'trim_tokens_to_summarize', type: 'integer', default: 4000, min: 0, max: 10_000_000, help: 'The summariser sees at most the last this-many tokens of what it replaces (default 4,000); 0 sends everything.' },
  ...SUMMARY_SIZE_OPTIONS,
];

export const langchainSummarizationStrategy: Strategy = {
  id: 'langchain-summarization',
  label: 'LangChain SummarizationMiddleware',
  kind: 'llm',
  description: fromDefaults('When a trigger holds (share of the window, tokens, messages), keeps the last {keep_messages} messages without parting a tool call from its result, and replaces the older ones with one summary message; the summariser sees only their last {trim_tokens_to_summarize} tokens.', langchainSummarizationOptions),
  options: langchainSummarizationOptions,
  policy,
  summaryBudget: charsBudget,
  // One request: the summariser's.
  requestsPerFiring: () => 1,
  run,
};
