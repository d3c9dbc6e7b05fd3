// `codex-compact`: Codex CLI's local (inline) compaction. Once the context reaches the auto-compact
// limit (90% of the window on current releases), the model writes a hand-off summary; the new
// history is the initial context (instructions, AGENTS.md, environment), the most recent real
// user messages, newest first, within 20,000 tokens (the first that does not fit is cut to what
// is left), back in order, and one user message holding the summary behind a hand-off prefix.

import type { ChatMessage } from '../../llm/provider';
import type { Step, Run } from '../../model';
import { charEstimateCounter, type TokenCounter } from '../../tokens';
import { keep, summaryStep, withText } from '../assemble';
import {
  commandLines, constraintLines, decisionLines, doneTodoLines, finishedEarlierLines, earlierSummaryText, EXTRACTIVE_NOTE, extractFacts,
  failedEditLines, laterRequests, openTodoLines, pendingCallLines, readLinesUnderRoot, renderSections, taskLine, testLines, tidy, userRefLines, type Facts,
} from '../extract';
import { roomFillLines, errorLinesKeepingLast, must, outcomeLines } from '../facts';
import { changeLinesWithin, charsBudget, countFor, fillRoom, editGists, SUMMARY_SIZE_OPTIONS, summaryMaxChars } from './summaryBudget';
import { requestText } from '../facts';
import { promptTokensOf } from '../text';
import type { ForcedTrigger, OptionSpec, OutputStep, PolicyChoice, StepFate, StepRange, Strategy, StrategyContext, StrategyOptions, StrategyOutput } from '../types';
import { sessionSnippets } from './agentsSdk';
import { fromDefaults } from '../describeDefaults';

/**
 * Written for this project, in the role of Codex's summary prefix: it tells the model that picks
 * the task up what the message below is.
 */
export const HANDOFF_PREFIX = 'The task was started by another model, which left the hand-off summary below. Treat it as the record of what is already done, continue from its next steps without repeating that work, and keep in mind that the tools it used are still in the state it left them. The summary:';

// Written for this project, after the points Codex's compaction prompt asks for.
const COMPACT_PROMPT = `Context checkpoint: write a hand-off summary for the model that will take this task over from here.
Cover:
- the goal, as the user set it
- progress so far and the decisions made
- context that still matters: constraints, preferences, facts found
- what is left to do, as clear next steps
- data, examples and references needed to go on
Keep it short and structured; it is all the next model will have besides the latest user messages.`;

/** Codex counts tokens for this budget as bytes / 4. */
function approxTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4);
}

/** The initial context: system steps and the session prefix (AGENTS.md, environment) Codex rebuilds. */
function isInitialContext(step: Step): boolean {
  return step.kind === 'system' || step.sessionPrefix === true || (step.kind === 'user' && requestText(step) === undefined && !/^(?:Another model|The task was started by another model)/.test(step.text));
}

function tokensOf(steps: readonly Step[], counter: TokenCounter): number {
  return steps.reduce((n, s) => n + promptTokensOf(s, counter), 0);
}

function autoCompactLimit(o: StrategyOptions): number {
  const explicit = Number(o.auto_compact_token_limit);
  return explicit > 0 ? explicit : Math.floor(Number(o.context_window) * Number(o.auto_compact_ratio));
}

function policy(trajectory: Run, o: StrategyOptions, counter: TokenCounter = charEstimateCounter, forced?: ForcedTrigger): PolicyChoice {
  const total = tokensOf(trajectory.steps, counter);
  const limit = forced ? forced.tokenBudget : autoCompactLimit(o);
  if (total < limit && !forced) return { range: null, reason: `${total} tokens, under the auto-compact limit of ${limit}.` };
  const first = trajectory.steps.find((s) => !isInitialContext(s));
  if (!first) return { range: null, reason: 'over the limit, but there is nothing after the initial context.' };
  return { range: [first.index, trajectory.steps.length - 1], reason: `${total} tokens ≥ ${forced ? 'the budget' : 'the auto-compact limit'} ${limit}: the history after the initial context becomes recent user messages and a hand-off summary.` };
}

/** Real user messages, newest first, within `budget` tokens; the first that does not fit is cut to what is left. */
function recentUserMessages(steps: readonly Step[], budget: number): { step: Step; text: string; cut: boolean }[] {
  const picked: { step: Step; text: string; cut: boolean }[] = [];
  let left = budget;
  for (const s of [...steps].reverse()) {
    if (left <= 0) break;
    if (s.kind !== 'user' || requestText(s) === undefined) continue;
    const tokens = approxTokens(s.text);
    if (tokens <= left) {
      picked.push({ step: s, text: s.text, cut: false });
      left -= tokens;
    } else {
      const keepChars = Math.max(0, left * 4);
      const head = s.text.slice(0, keepChars);
      const atWord = head.lastIndexOf(' ') > keepChars * 0.5 ? head.slice(0, head.lastIndexOf(' ')) : head;
      picked.push({ step: s, text: `${atWord}\n[… ${tokens - left} tokens truncated …]`, cut: true });
      break;
    }
  }
  return picked.reverse();
}

function extractiveHandoff(facts: Facts, budget: number, counts = budget, fill = false): string {
  return renderSections([
    { heading: 'Goal:', inline: taskLine(facts) ?? '(no user request in the log)', lines: must(laterRequests(facts).map((r) => `then: ${r}`)) },
    { heading: 'Progress and key decisions:', lines: [...must(changeLinesWithin(facts, budget)), ...must(doneTodoLines(facts)), ...finishedEarlierLines(facts), ...testLines(facts), ...decisionLines(facts, countFor(4, counts), countFor(3, counts)), ...editGists(facts, budget, fill)], empty: '(nothing done in these steps)' },
    { heading: 'Context, constraints and preferences:', lines: [...constraintLines(facts), ...errorLinesKeepingLast(facts), ...failedEditLines(facts), ...earlierSummaryText(facts).map((p) => `earlier summary ${p}`)], empty: '(none stated)' },
    { heading: 'What remains:', lines: [...must(openTodoLines(facts)), ...pendingCallLines(facts)], empty: '(not stated in the log)' },
    { heading: 'Data and references:', lines: [...userRefLines(facts), ...readLinesUnderRoot(facts, (f) => `read ${f}`), ...commandLines(facts, countFor(15, counts)), ...outcomeLines(facts), ...(fill ? roomFillLines(facts) : [])], empty: '(none)' },
  ], { header: [EXTRACTIVE_NOTE], budget });
}

function prompt(steps: readonly Step[]): ChatMessage[] {
  return [{ role: 'user', content: `${sessionSnippets(steps, 4000)}\n\n${COMPACT_PROMPT}` }];
}

async function run(trajectory: Run, range: StepRange, ctx: StrategyContext): Promise<StrategyOutput> {
  const o = ctx.options;
  const inRange = (s: Step) => s.index >= range[0] && s.index <= range[1];
  const rangeSteps = trajectory.steps.filter(inRange);
  const summarized = rangeSteps.filter((s) => !isInitialContext(s));
  const messages = prompt(summarized);
  let summaryBody: string;
  let mode: StrategyOutput['mode'] = 'extractive';
  if (ctx.llm) {
    summaryBody = (await ctx.llm.complete({ messages })).text.trim();
    mode = 'llm';
  } else {
    const facts = extractFacts(trajectory, summarized.map((s) => s.index));
    const room = summaryMaxChars(o, rangeSteps) - HANDOFF_PREFIX.length - 1;
    summaryBody = fillRoom((counts, fill) => extractiveHandoff(facts, room, counts, fill), room, rangeSteps, true);
  }
  const summary = tidy(`${HANDOFF_PREFIX}\n${summaryBody || '(no summary available)'}`);
  const recent = recentUserMessages(rangeSteps, Number(o.user_message_budget));
  const recentByIndex = new Map(recent.map((r) => [r.step.index, r]));
  const fates: StepFate[] = trajectory.steps.map(() => 'kept');
  const out: OutputStep[] = [];
  const removed: Step[] = [];
  for (const s of trajectory.steps) if (inRange(s) && !isInitialContext(s) && !recentByIndex.has(s.index)) removed.push(s);
  // The initial context and the recent user messages in their order, then the summary, then what follows the range.
  for (const s of trajectory.steps.slice(0, range[0])) out.push(keep(s));
  for (const s of rangeSteps) {
    const r = recentByIndex.get(s.index);
    if (r?.cut) { out.push(withText(s, r.text)); fates[s.index] = 'trimmed'; } else if (r || isInitialContext(s)) out.push(keep(s));
  }
  out.push(summaryStep(summary, removed, 'user', 'codex compacted'));
  for (const s of removed) fates[s.index] = 'summarized';
  for (const s of trajectory.steps.slice(range[1] + 1)) out.push(keep(s));
  const warnings = [`Kept ${recent.length} recent user message(s) within ${o.user_message_budget} tokens${recent.some((r) => r.cut) ? ', the oldest of them cut to fit' : ''}.`];
  return { mode, steps: out, fates, summary, prompt: messages, warnings };
}

const codexCompactOptions: OptionSpec[] = [
  { name: 'context_window', type: 'integer', default: 272_000, min: 1_000, max: 10_000_000, help: "The model's context window in tokens (272,000 for gpt-5-codex)." },
  { name: 'auto_compact_ratio', type: 'number', default: 0.9, min: 0.05, max: 1, help: 'Compact when the context reaches this share of the window (current Codex: 9/10 of the raw window).' },
  { name: 'auto_compact_token_limit', type: 'integer', default: 0, min: 0, max: 10_000_000, help: 'model_auto_compact_token_limit: a fixed limit in tokens; 0 derives it from the ratio.' },
  { name: 'user_message_budget', type: 'integer', default: 20_000, min: 0, max: 1_000_000, help: 'Recent user messages kept, newest first, within this many tokens (bytes / 4, as Codex counts them).' },
  ...SUMMARY_SIZE_OPTIONS,
];

export const codexCompactStrategy: Strategy = {
  id: 'codex-compact',
  label: 'Codex CLI compaction (hand-off summary)',
  kind: 'llm',
  description: fromDefaults('At {auto_compact_ratio%} of the window, the history becomes the initial context, the most recent user messages within {user_message_budget} tokens, and a hand-off summary behind a prefix that tells the next model what it is.', codexCompactOptions),
  options: codexCompactOptions,
  policy,
  summaryBudget: charsBudget,
  // One request: the model writes the hand-off summary.
  requestsPerFiring: () => 1,
  agentTrigger: (o, windowFromLog) => {
    const window = Number(o.context_window);
    const limit = autoCompactLimit(o);
    const n = (x: number) => x.toLocaleString('en-US');
    return {
      limit, window,
      description: `Codex compacts at ${Math.round(Number(o.auto_compact_ratio) * 100)}% of the model's context window: ${n(limit)} of ${n(window)} tokens${windowFromLog ? ' (the window as the log records it)' : ''}.`,
    };
  },
  run,
};
