// `claude-code-compact`: how Claude Code keeps a session inside its window. Micro-compaction first:
// old results of the tools that produce bulk (reads, shells, searches, fetches, edits) become a
// fixed placeholder, the last few stay. When the context nears the window (window − min(output,
// 20k) − 13k, about 83.5% of 200k) or the user runs /compact, the conversation becomes one user
// message holding a nine-section summary that keeps every user message, logged behind a
// compact boundary the way Claude Code records it.

import type { ChatMessage } from '../../llm/provider';
import type { Step, Run } from '../../model';
import { charEstimateCounter, type TokenCounter } from '../../tokens';
import { keep, summaryStep, textOnly, withText } from '../assemble';
import {
  constraintLines, decisionLines, earlierSummaryText, EXTRACTIVE_NOTE, extractFacts, failedEditLines,
  doneTodoLines, filesChanged, lastAgentLine, openTodoLines, paragraph, readLinesUnderRoot, renderSections, taskLine, testLines, tidy, type Facts,
} from '../extract';
import { roomFillLines, errorLinesKeepingLast, must, outcomeLines, rankedCommandLines } from '../facts';
import { changeLinesWithin, charsBudget, countFor, fillRoom, editGists, overShareWarning, rangeShareChars, rangeSteps, SUMMARY_SIZE_OPTIONS, summaryMaxChars } from './summaryBudget';
import { classifyCall } from '../facts';
import { ANSWERED_PREFIX, INTERRUPTED_PREFIX, requestText } from '../facts';
import { promptTokensOf } from '../text';
import type { ForcedTrigger, OutputStep, PolicyChoice, StepFate, StepRange, Strategy, StrategyContext, StrategyOptions, StrategyOutput } from '../types';
import { sessionSnippets } from './agentsSdk';

/** What Claude Code writes in place of a micro-compacted tool result. */
export const MICROCOMPACT_PLACEHOLDER = '[Old tool result content cleared]';
/** The opening of the message Claude Code puts a compaction summary in (its marker in logs). */
export const CONTINUATION_OPENING = 'This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:';

const WEB_TOOLS = /^(webfetch|web_fetch|websearch|web_search|fetch|browser|browse)/i;

function tokensOf(steps: readonly Step[], counter: TokenCounter): number {
  return steps.reduce((n, s) => n + promptTokensOf(s, counter), 0);
}

function autoCompactThreshold(o: StrategyOptions): number {
  return Number(o.context_window) - Math.min(Number(o.max_output_tokens), 20_000) - Number(o.autocompact_buffer);
}

/** Results of bulk-producing tools, older than the last `microcompact_keep` of them. */
function microcompactable(trajectory: Run, o: StrategyOptions): Step[] {
  const results = trajectory.steps.filter((s) => {
    if (s.kind !== 'tool_result' || s.answers === undefined || s.text === MICROCOMPACT_PLACEHOLDER) return false;
    const call = trajectory.steps[s.answers];
    const kind = classifyCall(call, s).kind;
    return kind === 'read' || kind === 'shell' || kind === 'search' || kind === 'list' || kind === 'edit' || WEB_TOOLS.test(call.tool?.name ?? '');
  });
  const keepLast = Number(o.microcompact_keep);
  return keepLast > 0 ? results.slice(0, Math.max(0, results.length - keepLast)) : results;
}

function savingsOf(results: readonly Step[], counter: TokenCounter): number {
  return results.reduce((n, r) => n + counter.count(r.text) - counter.count(MICROCOMPACT_PLACEHOLDER), 0);
}

function policy(trajectory: Run, o: StrategyOptions, counter: TokenCounter = charEstimateCounter, forced?: ForcedTrigger): PolicyChoice {
  const total = tokensOf(trajectory.steps, counter);
  // An outside trigger (the replay's budget) takes the place of the auto-compact threshold.
  const threshold = forced ? forced.tokenBudget : autoCompactThreshold(o);
  const clearable = microcompactable(trajectory, o);
  const savings = savingsOf(clearable, counter);
  const afterMicro = total - (total > Number(o.microcompact_trigger_tokens) && savings >= Number(o.microcompact_min_savings) ? savings : 0);
  if (afterMicro >= threshold || forced) {
    const first = trajectory.steps.find((s) => s.kind !== 'system');
    if (!first) return { range: null, reason: 'over the threshold, but there is nothing but the system prompt.' };
    if (forced) return { range: [first.index, trajectory.steps.length - 1], reason: `${total} tokens, over the ${threshold}-token budget: summarize the conversation.` };
    return { range: [first.index, trajectory.steps.length - 1], reason: `${afterMicro} tokens after micro-compaction ≥ the auto-compact threshold ${threshold} (window ${o.context_window} − min(max output, 20,000) − buffer ${o.autocompact_buffer}): summarize the conversation.` };
  }
  if (total > Number(o.microcompact_trigger_tokens) && savings >= Number(o.microcompact_min_savings) && clearable.length) {
    return { range: [clearable[0].index, clearable[clearable.length - 1].index], reason: `${total} tokens > ${o.microcompact_trigger_tokens}: micro-compact ${clearable.length} old tool results (${savings} tokens), keeping the last ${o.microcompact_keep}; below the auto-compact threshold ${threshold}.` };
  }
  return { range: null, reason: `${total} tokens, under the auto-compact threshold ${threshold}${clearable.length ? ` and micro-compaction would save only ${savings} tokens (needs ${o.microcompact_min_savings} once over ${o.microcompact_trigger_tokens})` : ''}.` };
}

/**
 * True when `range` is the micro-compaction the policy chose (old bulky results only, made
 * without a model), not the summary of the conversation, which runs to the newest step.
 */
function isMicrocompactionRange(trajectory: Run, range: StepRange, o: StrategyOptions): boolean {
  const first = trajectory.steps.find((s) => s.kind !== 'system');
  if (first && range[0] === first.index && range[1] === trajectory.steps.length - 1) return false;
  const clearable = microcompactable(trajectory, o);
  return clearable.length > 0 && range[0] === clearable[0].index && range[1] === clearable[clearable.length - 1].index;
}

/** The nine sections, filled from the trajectory; every user message kept word for word. */
function extractiveNineSections(trajectory: Run, facts: Facts, steps: readonly Step[], budget = summaryMaxChars({}), share?: number, counts = budget, fill = false): string {
  // Every user message, the answers the person gave to the agent's questions, and where they stopped it;
  // a saved prompt sent again, by what changed in it (its first sending is word for word).
  const repeated = new Map(facts.requests.filter((r) => r.repeats !== undefined).map((r) => [r.step, r.text]));
  const userMessages = [...steps.map((s) => repeated.get(s.index) ?? requestText(s)).filter((t): t is string => !!t), ...facts.requests.filter((r) => r.text.startsWith(ANSWERED_PREFIX) || r.text.startsWith(INTERRUPTED_PREFIX)).map((r) => r.text)].map(paragraph);
  const changed = filesChanged(facts);
  // On a short range the task is said once in full, under 6; section 1 opens it.
  const task = taskLine(facts);
  const taskQuoted = task !== undefined && userMessages.some((m) => m.includes(paragraph(task).slice(0, 200)));
  const short = share !== undefined && share < budget;
  const intent = task && short && taskQuoted ? taskLine(facts, 300) : task;
  const body = renderSections([
    { heading: '1. Primary Request and Intent:', inline: intent ?? '(no user request in the log)', lines: constraintLines(facts).map((c) => `constraint: ${c}`) },
    { heading: '2. Key Technical Concepts:', lines: decisionLines(facts, countFor(5, counts), countFor(3, counts)), empty: '(none stated in these steps)' },
    { heading: '3. Files and Code Sections:', lines: [...changed.map((c) => `${c.file} (${c.action}${c.times > 1 ? `, ${c.times} edits` : ''})`), ...readLinesUnderRoot(facts, (f) => `${f} (read)`), ...editGists(facts, budget, fill)], empty: '(no file touched in these steps)' },
    { heading: '4. Errors and fixes:', lines: [...errorLinesKeepingLast(facts), ...failedEditLines(facts), ...testLines(facts)], empty: '(no error in these steps)' },
    { heading: '5. Problem Solving:', lines: [...must(changeLinesWithin(facts, budget)), ...must(doneTodoLines(facts)), ...rankedCommandLines(facts, countFor(20, counts)), ...outcomeLines(facts), ...(fill ? roomFillLines(facts) : [])], empty: '(no command or change in these steps)' },
    { heading: '6. All user messages:', lines: must(userMessages), empty: '(none in these steps)' },
    // Finished items of the plan are work done (section 5), not pending.
    { heading: '7. Pending Tasks:', lines: [...must(openTodoLines(facts)), ...earlierSummaryText(facts).map((p) => `from an earlier summary ${p}`)], empty: facts.plan ? '(none left on the plan)' : '(none stated in these steps)' },
    { heading: '8. Current Work:', inline: lastAgentLine(facts, short ? 200 : 600) ?? '(no agent message in these steps)', lines: [] },
    { heading: '9. Optional Next Step:', inline: openTodoLines(facts)[0] ?? '(not stated in the log)', lines: [] },
  ], { header: [EXTRACTIVE_NOTE, 'Summary:'], budget, share });
  void trajectory;
  return body;
}

// Written for this project; the nine section names are the ones Claude Code's summaries carry.
const SYSTEM = 'You write the hand-over summary of a coding session so that the session can go on from it alone.';
const INSTRUCTIONS = `Summarize the conversation above in detail: what the user asked for, what was done and why, and where the work stands.
First think it through inside <analysis> tags, in order of time: each request and what the assistant did about it, the decisions and their reasons, the exact file names, code, function signatures and edits, the errors met and how they were fixed, and what the user said about the work. Check that nothing technical is wrong or missing.
Then write the summary inside <summary> tags, with these sections:
1. Primary Request and Intent
2. Key Technical Concepts
3. Files and Code Sections (with the code that matters)
4. Errors and fixes
5. Problem Solving
6. All user messages (every one that is not a tool result, word for word)
7. Pending Tasks
8. Current Work
9. Optional Next Step (only if it follows from the latest request; quote it)`;

function prompt(steps: readonly Step[]): ChatMessage[] {
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: `${sessionSnippets(steps, 4000)}\n\n${INSTRUCTIONS}` },
  ];
}

/** The reply as Claude Code stores it: `Analysis:` and `Summary:` for the two tags, blank lines collapsed. */
function formatReply(reply: string): string {
  return reply
    .replace(/<analysis>([\s\S]*?)<\/analysis>/, (_m, a: string) => `Analysis:\n${a.trim()}`)
    .replace(/<summary>([\s\S]*?)<\/summary>/, (_m, s: string) => `Summary:\n${s.trim()}`)
    .replace(/\n{2,}/g, '\n\n')
    .trim();
}

/** What follows the summary when Claude Code compacts by itself (auto), not on /compact. */
function continuationFor(ctx: StrategyContext): string {
  return ctx.rangeSource === 'user' ? '' : '\nGo on from where the conversation stopped, with the last task you were given, without asking the user anything first.';
}

async function run(trajectory: Run, range: StepRange, ctx: StrategyContext): Promise<StrategyOutput> {
  const o = ctx.options;
  const inRange = (s: Step) => s.index >= range[0] && s.index <= range[1];
  const warnings: string[] = [];
  // 1. Micro-compaction of old bulky results inside the range.
  const micro = microcompactable(trajectory, o).filter(inRange);
  const microSet = new Set(micro.map((s) => s.index));
  const afterMicro = trajectory.steps.map((s) => (microSet.has(s.index) ? textOnly(s, MICROCOMPACT_PLACEHOLDER) : s));
  const tokensAfterMicro = tokensOf(afterMicro, ctx.counter);
  const threshold = autoCompactThreshold(o);
  const summarize = ctx.rangeSource === 'user' || tokensAfterMicro >= threshold;
  if (!summarize) {
    const fates: StepFate[] = trajectory.steps.map((s) => (microSet.has(s.index) ? 'masked' : 'kept'));
    const steps = trajectory.steps.map((s) => (microSet.has(s.index) ? withText(s, MICROCOMPACT_PLACEHOLDER) : keep(s)));
    if (micro.length) warnings.push(`Micro-compacted ${micro.length} old tool result(s); ${tokensAfterMicro} tokens remain, under the auto-compact threshold ${threshold}.`);
    return { mode: 'deterministic', steps, fates, summary: null, prompt: null, warnings };
  }
  // 2. The full compaction: the range becomes the summary message (system messages stay).
  const summarized = afterMicro.filter((s) => inRange(s) && s.kind !== 'system');
  const messages = prompt(summarized);
  let body: string;
  let mode: StrategyOutput['mode'] = 'extractive';
  if (ctx.llm) {
    body = formatReply((await ctx.llm.complete({ messages, temperature: 0 })).text);
    mode = 'llm';
  } else {
    // The opening and the continuation line count against the summary's size.
    const maxChars = summaryMaxChars(o, rangeSteps(trajectory, range));
    const room = maxChars - CONTINUATION_OPENING.length - 200;
    // On a short range the opening and the continuation line count against its share as they are.
    const wrapper = CONTINUATION_OPENING.length + 1 + continuationFor(ctx).length;
    const share = rangeShareChars(summarized, trajectory.steps, maxChars);
    const facts = extractFacts(trajectory, summarized.map((s) => s.index));
    const steps = trajectory.steps.filter((s) => inRange(s));
    body = fillRoom((counts, fill) => extractiveNineSections(trajectory, facts, steps, room, share - wrapper, counts, fill), room, rangeSteps(trajectory, range), true);
    const over = overShareWarning(body.length + wrapper, share, maxChars);
    if (over) warnings.push(over);
  }
  const trigger = ctx.rangeSource === 'user' ? 'manual' : 'auto';
  const continuation = continuationFor(ctx);
  const summary = tidy(`${CONTINUATION_OPENING}\n${body}${continuation}`);
  const preTokens = tokensOf(trajectory.steps, ctx.counter);
  const step = summaryStep(summary, summarized, 'user', `claude-code ${trigger}`);
  step.step.compaction = { ...step.step.compaction!, tokensBefore: preTokens };
  step.step.label = 'compact_boundary';
  const fates: StepFate[] = trajectory.steps.map((s) => (inRange(s) && s.kind !== 'system' ? 'summarized' : 'kept'));
  const out: OutputStep[] = [];
  let placed = false;
  for (const s of trajectory.steps) {
    if (inRange(s) && s.kind !== 'system') {
      if (!placed) { out.push(step); placed = true; }
      continue;
    }
    out.push(keep(s));
  }
  warnings.push(`Compacted (${trigger}): ${preTokens} tokens before, as Claude Code logs it in its compact_boundary entry.`);
  return { mode, steps: out, fates, summary, prompt: messages, warnings };
}

export const claudeCodeCompactStrategy: Strategy = {
  id: 'claude-code-compact',
  label: 'Claude Code compaction (micro-compact, then /compact)',
  kind: 'llm',
  description: 'Clears old bulky tool results first (micro-compaction); near the window (about 83.5% of 200k) or on a chosen range, replaces the conversation with one user message holding a nine-section summary that keeps every user message.',
  options: [
    { name: 'context_window', type: 'integer', default: 200_000, min: 1_000, max: 10_000_000, help: "The model's context window in tokens (200,000 for Claude models; set 1,000,000 for the long-context variants)." },
    { name: 'max_output_tokens', type: 'integer', default: 32_000, min: 0, max: 1_000_000, help: 'The output limit; up to 20,000 of it is reserved out of the window.' },
    { name: 'autocompact_buffer', type: 'integer', default: 13_000, min: 0, max: 1_000_000, help: 'Tokens kept free below the effective window: auto-compact fires at window − min(output, 20,000) − this (167,000 on 200k).' },
    { name: 'microcompact_keep', type: 'integer', default: 3, min: 0, max: 10_000, help: 'Most recent results of bulky tools that micro-compaction leaves alone.' },
    { name: 'microcompact_trigger_tokens', type: 'integer', default: 40_000, min: 0, max: 10_000_000, help: 'Micro-compact only once the context is over this many tokens.' },
    { name: 'microcompact_min_savings', type: 'integer', default: 20_000, min: 0, max: 10_000_000, help: 'And only when clearing would save at least this many tokens.' },
    ...SUMMARY_SIZE_OPTIONS,
  ],
  policy,
  summaryBudget: charsBudget,
  requestsPerFiring: (trajectory, range, o) => (isMicrocompactionRange(trajectory, range, o) ? 0 : 1),
  agentTrigger: (o) => {
    const window = Number(o.context_window);
    const limit = autoCompactThreshold(o);
    const n = (x: number) => x.toLocaleString('en-US');
    return {
      limit, window,
      description: `Claude Code auto-compacts when the context reaches its window less the output reserve and a buffer: ${n(window)} − ${n(Math.min(Number(o.max_output_tokens), 20_000))} − ${n(Number(o.autocompact_buffer))} = ${n(limit)} tokens (${Math.round(limit / window * 1000) / 10}% of the window).`,
    };
  },
  run,
};
