// The OpenAI Agents SDK session patterns from the session-memory cookbook:
// `trim-last-turns` keeps only the last N user turns; `summarizing-session` replaces everything
// before the last N user turns with a synthetic user → assistant pair carrying a summary.
// A turn starts at a real user message and runs until the next one.

import type { Step, Run } from '../../model';
import { replaceRange, summaryStep, syntheticStep } from '../assemble';
import {
  changeLine, constraintLines, describeTools, doneTodoLines, finishedEarlierLines, earlierSummaryText, EXTRACTIVE_NOTE, extractFacts,
  failedEditLines, failingTestIds, installLines, lastAgentLine, laterRequests, openTodoLines, pendingCallLines, readLinesUnderRoot,
  rankedCommandLines, rankedErrorLines, recordedLines, renderSections, taskOpening, taskWants, testLines, userRefLines, withinTokens, type Facts,
} from '../extract';
import { excerptLines, filesChanged, isCommitRecord, outcomeLines } from '../facts';
import { charEstimateCounter, type TokenCounter } from '../../tokens';
import { promptTokensOf } from '../text';
import type { PolicyChoice, StepRange, Strategy, StrategyContext, StrategyOutput } from '../types';
import { roundStarts } from './budgetSchema';

/** The synthetic user line that keeps the conversation natural before the summary. */
const SHADOW_USER_LINE = 'Please recap our conversation up to this point.';

function userStarts(trajectory: Run): number[] {
  return trajectory.steps.filter((s) => s.kind === 'user').map((s) => s.index);
}

/** Everything before the earliest of the last `keepTurns` user messages, system prompt aside. */
function rangeBeforeLastTurns(trajectory: Run, keepTurns: number): StepRange | null {
  const starts = userStarts(trajectory);
  const boundary = keepTurns === 0 ? trajectory.steps.length : starts[starts.length - keepTurns];
  const first = trajectory.steps.find((s) => s.kind !== 'system' && s.index < boundary);
  if (boundary === undefined || !first) return null;
  return [first.index, boundary - 1];
}

export const trimLastTurnsStrategy: Strategy = {
  id: 'trim-last-turns',
  label: 'Agents SDK trimming session (last N turns)',
  kind: 'deterministic',
  description: 'Keeps the system prompt and the last max_turns user turns whole (each user message and everything after it); drops everything older.',
  options: [
    { name: 'max_turns', type: 'integer', default: 8, min: 1, max: 1000, help: 'User turns kept (TrimmingSession default 8).' },
  ],
  policy(trajectory, options, counter, forced): PolicyChoice {
    const maxTurns = Number(options.max_turns);
    const turns = userStarts(trajectory).length;
    if (forced) return trimToBudget(trajectory, maxTurns, counter ?? charEstimateCounter, forced.tokenBudget);
    if (turns < maxTurns) return { range: null, reason: `${turns} user turns, fewer than max_turns ${maxTurns}: everything is kept.` };
    const range = rangeBeforeLastTurns(trajectory, maxTurns);
    if (!range) return { range: null, reason: `nothing comes before the last ${maxTurns} user turns except the system prompt.` };
    return { range, reason: `${turns} user turns: keep the last ${maxTurns}, drop what comes before.` };
  },
  async run(trajectory, range) {
    const { steps, fates } = replaceRange(trajectory, range, [], { survives: (s) => s.kind === 'system', fate: () => 'dropped' });
    return { mode: 'deterministic', steps, fates, summary: null, prompt: null, warnings: [] };
  },
};

/** Everything but the system prompt and the last round: what a forced summary takes when the turns leave nothing older. */
function beforeLastRound(trajectory: Run): StepRange | null {
  const starts = roundStarts(trajectory.steps);
  const first = trajectory.steps.findIndex((s) => s.kind !== 'system');
  const end = (starts[starts.length - 1] ?? 0) - 1;
  return first >= 0 && end >= first ? [first, end] : null;
}

/**
 * Over an outside token budget: the last max_turns turns are kept if that fits; otherwise the
 * oldest whole rounds (a user message, or a model response with the tool results after it) go
 * too, until the rest fits or only the last round is left. The system prompt always stays.
 */
function trimToBudget(trajectory: Run, maxTurns: number, counter: TokenCounter, budget: number): PolicyChoice {
  const byTurns = rangeBeforeLastTurns(trajectory, maxTurns);
  const steps = trajectory.steps;
  const tokens = steps.map((s) => promptTokensOf(s, counter));
  let total = tokens.reduce((a, b) => a + b, 0);
  if (byTurns) {
    for (let i = byTurns[0]; i <= byTurns[1]; i++) if (steps[i].kind !== 'system') total -= tokens[i];
    if (total <= budget) return { range: byTurns, reason: `over the ${budget}-token budget: keep the last ${maxTurns} user turns, drop what comes before.` };
  }
  const first = byTurns ? byTurns[1] + 1 : steps.findIndex((s) => s.kind !== 'system');
  if (first < 0) return { range: byTurns, reason: 'nothing to drop but the system prompt.' };
  const rounds = roundStarts(steps).filter((i) => i >= first);
  let end = byTurns ? byTurns[1] : first - 1;
  for (let r = 0; r + 1 < rounds.length && total > budget; r++) {
    for (let i = Math.max(rounds[r], end + 1); i < rounds[r + 1]; i++) if (steps[i].kind !== 'system') total -= tokens[i];
    end = rounds[r + 1] - 1;
  }
  const start = byTurns ? byTurns[0] : first;
  if (end < start) return { range: null, reason: `over the ${budget}-token budget, but only the last round is left.` };
  return { range: [start, end], reason: `over the ${budget}-token budget: drop the oldest rounds (steps ${start}–${end}) until the rest fits.` };
}

const SUMMARY_PROMPT = `You hand an agent session over to whoever continues it. Compress the earlier part of the session into an exact, reusable snapshot.

Before writing (do not show this):
- Check for contradictions between what the user said, the instructions and the tool output; note conflicts and reversals.
- Put events in time order; the latest update wins. Keep timestamps when there are any.
- Anything uncertain or unstated is marked UNVERIFIED, never guessed.

Write at most 200 words under exactly these headings:

• Task & Environment:
  - repository, language, versions, tools available.
• Goal:
  - the request as it stands now, in one sentence.
• Steps Tried & Results:
  - in order: commands and edits with their outcomes, errors and exit codes.
• Identifiers:
  - file paths, function names, issue or ticket numbers (only those that appear).
• Milestones:
  - key moments in order (reproduced the bug → patched → tests pass).
• Tool Insights:
  - which tool calls worked or failed, and why, where it is evident.
• Current Status & Blockers:
  - what is solved, what is open, what blocks progress.
• Next Step:
  - one concrete action, or two alternatives.

Rules:
- Short bullets, verbs first, no filler.
- Never invent facts; quote error text and codes exactly.
- When something was superseded, write "Superseded:" and leave out the details unless they still matter.`;

/** The cookbook's compact history: `ROLE: content`, long tool outputs cut at `trim` characters. */
export function sessionSnippets(steps: readonly Step[], trim: number): string {
  const lines: string[] = [];
  for (const s of steps) {
    let role: string;
    let content = s.text.trim();
    if (s.kind === 'tool_call' && s.tool) {
      role = 'ASSISTANT';
      content = `[calls ${s.tool.name}] ${s.tool.args}`.trim();
    } else if (s.kind === 'tool_result') role = 'TOOL';
    else if (s.kind === 'user') role = 'USER';
    else if (s.kind === 'system') role = 'SYSTEM';
    else role = 'ASSISTANT';
    if (!content) continue;
    if (role === 'TOOL' && content.length > trim) content = content.slice(0, trim) + ' …';
    lines.push(`${role}: ${content}`);
  }
  return lines.join('\n');
}

/**
 * The cookbook's headings, filled from the trajectory and kept within the summary's token limit:
 * when over it, the least telling lines go first (plain successful commands, files only read).
 */
function extractiveSessionSummary(facts: Facts, maxTokens: number, count: (text: string) => number): string {
  const r = (lines: string[], rank: number) => lines.map((text) => ({ text, rank }));
  const goal = taskOpening(facts, 250);
  const wants = taskWants(facts, 250, 250);
  // A constraint the goal line already quotes is not said twice.
  const constraints = constraintLines(facts).filter((c) => !goal?.includes(c.replace(/[.!]$/, '')));
  const render = (budget: number) => renderSections([
    { heading: '• Task & Environment:', inline: `tools used: ${describeTools(facts.toolCounts, 3)}`, lines: [...r(installLines(facts), 2), ...r(constraints.map((c) => `constraint: ${c}`), 2.2)], priority: 1 },
    // "The request as it stands now, in one sentence": the opening of the task.
    { heading: '• Goal:', inline: goal ?? '(no user request in the log)', lines: [...r(wants ? [`the task also says: ${wants}`] : [], 5.5), ...r(laterRequests(facts, 250).map((q) => `then: ${q}`), 5)], priority: 5 },
    { heading: '• Steps Tried & Results:', lines: [...committedLast(facts), ...r(failedEditLines(facts, true), 4), ...rankedCommandLines(facts, 40, true), ...outcomeLines(facts).map((o) => (o.rank >= 9 ? o : { ...o, rank: 1.2 })), ...excerptLines(facts)], empty: '(no command or edit in these steps)', priority: 2 },
    { heading: '• Identifiers:', lines: [...r(userRefLines(facts), 3), ...r(failingTestIds(facts), 4), ...r(readLinesUnderRoot(facts, undefined, false), 1.5)], empty: '(none in these steps)', priority: 3 },
    { heading: '• Milestones:', lines: [...r(recordedLines(facts), 4.2), ...r(testLines(facts), 4), ...r(doneTodoLines(facts), 3), ...finishedEarlierLines(facts)], empty: '(no test run, commit or finished task in these steps)', priority: 4 },
    { heading: '• Tool Insights:', lines: rankedErrorLines(facts, true), empty: '(no tool reported an error)', priority: 4 },
    { heading: '• Current Status & Blockers:', inline: lastAgentLine(facts, 150) ?? '(not stated)', lines: [...r(openTodoLines(facts), 4), ...r(pendingCallLines(facts), 2), ...r(earlierSummaryText(facts).map((p) => `earlier summary ${p}`), 5)], priority: 3 },
    { heading: '• Next Step:', inline: openTodoLines(facts)[0] ?? '(not stated in the log)', lines: [], priority: 1 },
  ], { header: [EXTRACTIVE_NOTE], budget });
  return withinTokens(render, maxTokens, count);
}

/**
 * The files changed, for a summary of a few hundred tokens: a file whose change a later commit
 * holds ranks below the commits (their subjects and file counts say what changed); what changed
 * since the last commit is where the work stands, and ranks with the task.
 */
function committedLast(facts: Facts): { text: string; rank: number }[] {
  const lastCommit = Math.max(-1, ...facts.commands.filter((c) => isCommitRecord(c.recorded)).map((c) => c.step));
  return filesChanged(facts).map((c) => ({ text: changeLine(facts, c, false), rank: c.step < lastCommit ? 3.9 : 5 }));
}

async function runSummarizing(trajectory: Run, range: StepRange, ctx: StrategyContext): Promise<StrategyOutput> {
  const summarized = trajectory.steps.slice(range[0], range[1] + 1).filter((s) => s.kind !== 'system');
  const messages = [
    { role: 'system' as const, content: SUMMARY_PROMPT },
    { role: 'user' as const, content: sessionSnippets(summarized, Number(ctx.options.tool_trim_limit)) },
  ];
  let summary: string;
  let mode: StrategyOutput['mode'] = 'extractive';
  if (ctx.llm) {
    summary = (await ctx.llm.complete({ messages, maxOutputTokens: Number(ctx.options.max_tokens) })).text;
    mode = 'llm';
  } else {
    summary = extractiveSessionSummary(extractFacts(trajectory, summarized.map((s) => s.index)), Number(ctx.options.max_tokens), (t) => ctx.counter.count(t));
  }
  const pair = [syntheticStep('user', SHADOW_USER_LINE, 'history_summary_prompt'), summaryStep(summary, summarized, 'assistant', 'agents-sdk summarizing session')];
  const { steps, fates } = replaceRange(trajectory, range, pair, { survives: (s) => s.kind === 'system' });
  return { mode, steps, fates, summary, prompt: messages, warnings: [] };
}

export const summarizingSessionStrategy: Strategy = {
  id: 'summarizing-session',
  label: 'Agents SDK summarizing session',
  kind: 'llm',
  description: 'When there are more than context_limit user turns, everything before the last keep_last_n_turns turns becomes a synthetic user → assistant pair holding a summary.',
  options: [
    { name: 'context_limit', type: 'integer', default: 3, min: 1, max: 1000, help: 'Summarize when there are more user turns than this.' },
    { name: 'keep_last_n_turns', type: 'integer', default: 3, min: 0, max: 1000, help: 'User turns kept verbatim; must not exceed context_limit.' },
    { name: 'tool_trim_limit', type: 'integer', default: 600, min: 10, max: 1_000_000, help: 'Tool outputs longer than this are cut before they go to the summarizer.' },
    { name: 'max_tokens', type: 'integer', default: 400, min: 16, max: 100_000, help: 'Longest summary the model may write, in tokens.' },
  ],
  // The summary's own limit: max_tokens, as the run's counter counts them.
  summaryBudget: (o) => ({ tokens: Number(o.max_tokens) }),
  policy(trajectory, options, _counter, forced): PolicyChoice {
    const limit = Number(options.context_limit);
    const keepTurns = Number(options.keep_last_n_turns);
    if (keepTurns > limit) return { range: null, reason: `keep_last_n_turns (${keepTurns}) must not be greater than context_limit (${limit}).` };
    const turns = userStarts(trajectory).length;
    if (turns <= limit && !forced) return { range: null, reason: `${turns} user turns, not more than context_limit ${limit}.` };
    const range = rangeBeforeLastTurns(trajectory, keepTurns) ?? (forced ? beforeLastRound(trajectory) : null);
    if (!range) return { range: null, reason: 'nothing comes before the kept turns except the system prompt.' };
    return { range, reason: `${turns} user turns > context_limit ${limit}: keep the last ${keepTurns}, summarize the rest into a user → assistant pair.` };
  },
  requestsPerFiring: () => 1,
  run: runSummarizing,
};

