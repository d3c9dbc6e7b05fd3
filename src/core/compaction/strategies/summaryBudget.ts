// The size of a summary written without a model. A strategy whose source publishes no summary
// size takes `summary_max_chars`; what does not fit is ranked (facts/render.ts), never cut at the end.

import type { Run, Step } from '../../model';
import { asFill, changeGistLines, changeLines, type Facts, type Ranked } from '../facts';
import { contextTextOf } from '../text';
import type { OptionSpec, StepRange, Strategy, StrategyOptions } from '../types';

// About 2,000 tokens: room for a short range's hand-over, a small share of any model's window.
export const DEFAULT_SUMMARY_CHARS = 8000;

// A long range's hand-over grows with the work it replaces: a 600-step session's commits, errors
// and requests do not fit the room of a 30-step one. One part in ten, up to about 20,000 tokens
// (the output Claude Code reserves for writing its own summary): a tenth still leaves 90% of a
// long range's characters behind, and on the long development runs it kept 3 to 8 points more of
// the hand-picked facts than a twentieth (openhands-summary 91% -> 94%, claude-code-compact 84% -> 92%).
const DEFAULT_SUMMARY_SHARE = 0.1;
const SUMMARY_CAP_CHARS = 80_000;

const SUMMARY_MAX_CHARS: OptionSpec = {
  name: 'summary_max_chars', type: 'integer', default: SUMMARY_CAP_CHARS, min: 400, max: 1_000_000,
  help: `The summary written without a model never takes more than this many characters (the default, ${SUMMARY_CAP_CHARS.toLocaleString('en-US')}, is about 20,000 tokens: the output Claude Code reserves for its summary). Within it the least telling lines go first; the task, later requests and answers, the plan, files changed and the last error go last.`,
};

const SUMMARY_SHARE: OptionSpec = {
  name: 'summary_share', type: 'number', default: DEFAULT_SUMMARY_SHARE, min: 0, max: 0.4,
  help: `The summary written without a model takes ${DEFAULT_SUMMARY_CHARS.toLocaleString('en-US')} characters, or this share of the characters it replaces when that is more (a long range's hand-over grows with it), never more than summary_max_chars. 0: ${DEFAULT_SUMMARY_CHARS.toLocaleString('en-US')} on any range.`,
};

/** How many lines of a kind (commands, the agent's findings) a summary of `budget` characters lists: `count` on a default-sized one, more in step with a larger budget. */
export function countFor(count: number, budget: number): number {
  return Math.max(count, Math.floor((count * budget) / DEFAULT_SUMMARY_CHARS));
}

/**
 * A summary fills the room it was given: `render(counts)` lists `countFor(n, counts)` lines of each
 * kind and is cut to the budget by rank. When it comes out under 80% of its room, the lists may
 * grow (two, four, eight times) while that adds anything. A long range's room is its budget; a
 * range of the default size grows only within a fifth of what it replaces (GROWN_SHARE), so its
 * reduction stays well past the 60% a summary aims for: a 40-step conversation whose summary said
 * three of its replies in a quarter of its room says the others too. With `fills`, the render at
 * the counts chosen is made once more with the lines that only fill room (`render(counts, true)`).
 */
export function fillRoom(render: (counts: number, fill: boolean) => string, budget: number, replaced: readonly Pick<Step, 'kind' | 'text' | 'tool'>[] = [], fills = false): string {
  let counts = budget;
  let text = render(counts, false);
  const room = budget > DEFAULT_SUMMARY_CHARS ? budget : Math.min(budget, Math.floor(GROWN_SHARE * charsOf(replaced)));
  for (const k of [2, 4, 8]) {
    if (text.length >= 0.8 * room) break;
    const more = render(budget * k, false);
    if (more.length <= text.length || (budget <= DEFAULT_SUMMARY_CHARS && more.length > room)) break;
    text = more;
    counts = budget * k;
  }
  // The lines that only fill room (render.ts, `within`) come last, into what the lists left.
  return fills ? render(counts, true) : text;
}

/** The share of what it replaces a default-sized summary may grow to when its lists were cut short. */
const GROWN_SHARE = 0.2;

/**
 * What the edits put into each file: on a summary whose budget grew with a long range, ranked with
 * the rest; on a short range's, only in the room left over (`fill`, within FILL_SHARE of what it
 * replaces), so that its room and its reduction stay with what every summary says.
 */
export function editGists(facts: Facts, budget: number, fill = false): Ranked[] {
  if (budget > DEFAULT_SUMMARY_CHARS) return changeGistLines(facts);
  return fill ? asFill(changeGistLines(facts), facts) : [];
}

/**
 * The files changed, each with the first line its latest edit put in on a short range's summary;
 * a long range's lists what the edits put in on lines of their own (editGists), so not twice.
 */
export function changeLinesWithin(facts: Facts, budget: number): string[] {
  return changeLines(facts, budget <= DEFAULT_SUMMARY_CHARS);
}

/** The options that size a summary written without a model. */
export const SUMMARY_SIZE_OPTIONS: readonly OptionSpec[] = [SUMMARY_MAX_CHARS, SUMMARY_SHARE];

/** The characters `steps` put into the context. */
export const charsOf = (steps: readonly Pick<Step, 'kind' | 'text' | 'tool'>[]) => steps.reduce((n, s) => n + contextTextOf(s).length, 0);

/** The steps of `range` (inclusive), the work a summary of it replaces. */
export const rangeSteps = (trajectory: Run, range: StepRange): Step[] => trajectory.steps.slice(range[0], range[1] + 1);

/**
 * The characters a summary of `replaced` may take: DEFAULT_SUMMARY_CHARS, or `summary_share` of
 * what it replaces when that is more, never more than `summary_max_chars`.
 */
export function summaryMaxChars(options: StrategyOptions, replaced: readonly Pick<Step, 'kind' | 'text' | 'tool'>[] = []): number {
  return sizeFor(options, charsOf(replaced)).chars;
}

/** The size for a range of `replacedChars`, with what it came from: the share's own figure and the size before the cap. */
function sizeFor(options: StrategyOptions, replacedChars: number): { chars: number; share: number; grown: number; wanted: number } {
  const n = Number(options.summary_max_chars);
  const cap = Number.isFinite(n) && n > 0 ? n : SUMMARY_CAP_CHARS;
  const share = Number(options.summary_share ?? DEFAULT_SUMMARY_SHARE);
  const grown = share > 0 ? Math.floor(share * replacedChars) : 0;
  const wanted = Math.max(DEFAULT_SUMMARY_CHARS, grown);
  return { chars: Math.min(cap, wanted), share, grown, wanted };
}

/**
 * How a summary written without a model was sized, in words, for the report and the CLI: its size
 * is a choice (ours or its source's), and the reduction and the facts kept depend on it.
 */
export function describeSummarySize(strategy: Pick<Strategy, 'summaryBudget' | 'options'>, options: StrategyOptions, trajectory: Run, range: StepRange): string | undefined {
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  if (!strategy.options.some((o) => o.name === 'summary_share')) {
    const budget = strategy.summaryBudget?.(options, trajectory, range);
    if (!budget) return undefined;
    return `Written without a model within ${'tokens' in budget ? `${n(budget.tokens)} tokens` : `${n(budget.chars)} characters`}: the size its source sets for the summary.`;
  }
  // Sized by SUMMARY_SIZE_OPTIONS (its summaryBudget is charsBudget): the range is measured once.
  const replaced = charsOf(rangeSteps(trajectory, range));
  const { chars, share, grown, wanted } = sizeFor(options, replaced);
  const shareOf = `summary_share ${share} of the ${n(replaced)} characters it replaces`;
  const why = wanted > chars ? `summary_max_chars caps it (else ${n(wanted)}: ${grown > DEFAULT_SUMMARY_CHARS ? shareOf : 'the default'})`
    : grown > DEFAULT_SUMMARY_CHARS ? shareOf
      : `the default${share > 0 ? `; a range of more than ${n(DEFAULT_SUMMARY_CHARS / share)} characters gets summary_share ${share} of what it replaces` : ' (summary_share 0)'}`;
  return `Written without a model within ${n(chars)} characters: ${why}. The least telling lines go first.`;
}

/** `summaryBudget` for a strategy whose summary of the range is sized by SUMMARY_SIZE_OPTIONS. */
export const charsBudget = (options: StrategyOptions, trajectory: Run, range: StepRange) => ({ chars: summaryMaxChars(options, rangeSteps(trajectory, range)) });

/** The reduction a summary aims for (issue 22): the summary takes at most 40% of what it replaces. */
export const REDUCTION_TARGET = 0.6;

/**
 * The size a summary written without a model aims at on a short range: what keeps the whole
 * context within 40% of its size (the steps kept count too), never more than 40% of the replaced
 * steps nor the published budget. Where the kept steps alone take 40% or more, no summary can reach
 * the target and the range's own 40% is used. Lines below MUST_KEEP go to meet it; the task, later
 * requests and answers, the plan, files changed and the last error never do.
 */
export function rangeShareChars(replaced: readonly Pick<Step, 'kind' | 'text' | 'tool'>[], all: readonly Pick<Step, 'kind' | 'text' | 'tool'>[], budget: number): number {
  const replacedChars = charsOf(replaced);
  const keptChars = charsOf(all) - replacedChars;
  const ofRange = replacedChars * (1 - REDUCTION_TARGET);
  const ofWhole = (replacedChars + keptChars) * (1 - REDUCTION_TARGET) - keptChars;
  return Math.floor(Math.min(budget, ofWhole > 0 ? Math.min(ofRange, ofWhole) : ofRange));
}

/** Said when the lines every summary keeps do not fit a short range's share: shown, not hidden. */
export function overShareWarning(summaryChars: number, share: number, budget: number): string | undefined {
  if (share >= budget || summaryChars <= share) return undefined;
  return `This range is too short to summarise in ${Math.max(0, share)} characters (its share for a ${Math.round(REDUCTION_TARGET * 100)}% reduction) ` +
    `without losing what every summary keeps (the task, later requests and answers, the plan, files changed, the last error): the summary takes ${summaryChars}.`;
}
