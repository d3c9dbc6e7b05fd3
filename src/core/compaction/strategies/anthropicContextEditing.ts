// `anthropic-context-editing`: the Messages API's server-side context editing (beta header
// context-management-2025-06-27). `clear_tool_uses_20250919`: once the input passes `trigger`,
// the oldest tool results become a placeholder, the last `keep` tool uses stay, named tools are
// never cleared, and nothing is cleared unless at least `clear_at_least` tokens would go.
// `clear_thinking_20251015`: thinking blocks of earlier assistant turns are dropped; the last
// turn's stay by default. Nothing is removed but thinking, so tool calls stay paired.

import type { Step, Run } from '../../model';
import type { TokenCounter } from '../../tokens';
import { charEstimateCounter } from '../../tokens';
import { keep, withText } from '../assemble';
import { promptTokensOf } from '../text';
import type { ForcedTrigger, IncrementalPolicy, OptionSpec, OutputStep, PolicyChoice, StepFate, StepRange, Strategy, StrategyOptions, StrategyOutput } from '../types';
import { fromDefaults } from '../describeDefaults';

/** LangChain's mirror of the edit uses this text; the API's own placeholder is not published. */
export const CLEARED_PLACEHOLDER = '[cleared]';

const THINKING = /^(thinking|redacted_thinking|reasoning)$/i;

/** Thinking blocks (extended thinking, reasoning): not every thought step is one. */
function isThinking(step: Step): boolean {
  return step.kind === 'thought' && THINKING.test(step.label ?? '');
}

/**
 * Counts per step object and counter, valid while the step's text and tool name are the ones
 * counted. The whole-run replay asks this policy about the same (growing) context at every probe,
 * and a call's text is a new string each time, hashed whole again by the counter's cache.
 */
const stepCounts = new WeakMap<TokenCounter, WeakMap<Step, { text: string; name: string | undefined; tokens: number }>>();

function tokensOf(steps: readonly Step[], counter: TokenCounter): number {
  let memo = stepCounts.get(counter);
  if (!memo) stepCounts.set(counter, (memo = new WeakMap()));
  let total = 0;
  for (const s of steps) {
    const known = memo.get(s);
    if (known && known.text === s.text && known.name === s.tool?.name) {
      total += known.tokens;
      continue;
    }
    const tokens = promptTokensOf(s, counter);
    memo.set(s, { text: s.text, name: s.tool?.name, tokens });
    total += tokens;
  }
  return total;
}

function excluded(options: StrategyOptions): Set<string> {
  return new Set(String(options.exclude_tools).split(',').map((t) => t.trim()).filter(Boolean));
}

/** Tool results the edit may clear: all but the last `keep` tool uses, excluded tools aside. */
function clearableResults(trajectory: Run, options: StrategyOptions): Step[] {
  const results = trajectory.steps.filter((s) => s.kind === 'tool_result' && s.text !== options.placeholder);
  const keepLast = Number(options.keep_tool_uses);
  const older = keepLast > 0 ? results.slice(0, Math.max(0, results.length - keepLast)) : results;
  const names = excluded(options);
  return older.filter((r) => !names.has(r.toolName ?? trajectory.steps[r.answers ?? -1]?.tool?.name ?? ''));
}

/** Thinking steps outside the last `keep_thinking_turns` turns that have thinking. */
function clearableThinking(trajectory: Run, options: StrategyOptions): Step[] {
  if (options.clear_thinking !== true || options.keep_all_thinking === true) return [];
  const thinking = trajectory.steps.filter(isThinking);
  const turns = [...new Set(thinking.map((s) => s.turn))];
  const kept = new Set(turns.slice(Math.max(0, turns.length - Number(options.keep_thinking_turns))));
  return thinking.filter((s) => !kept.has(s.turn));
}

function policy(trajectory: Run, options: StrategyOptions, counter: TokenCounter = charEstimateCounter, forced?: ForcedTrigger): PolicyChoice {
  const total = tokensOf(trajectory.steps, counter);
  const trigger = Number(options.trigger_input_tokens);
  // An outside trigger (the replay's budget) stands in for the edit's own.
  const over = total > trigger || forced !== undefined;
  const results = over ? clearableResults(trajectory, options) : [];
  const thinking = clearableThinking(trajectory, options);
  let first = Infinity;
  let last = -Infinity;
  for (const s of results) { first = Math.min(first, s.index); last = Math.max(last, s.index); }
  for (const s of thinking) { first = Math.min(first, s.index); last = Math.max(last, s.index); }
  const why = over
    ? `${total} input tokens > ${forced ? `the ${forced.tokenBudget}-token budget` : `trigger ${trigger}`}: clear the tool results before the last ${options.keep_tool_uses} tool uses`
    : `${total} input tokens, not over the trigger of ${trigger}: no tool result is cleared`;
  if (last < 0) return { range: null, reason: `${why}, and no thinking of earlier turns to drop.` };
  return {
    range: [first, last],
    reason: `${why}${thinking.length ? `; drop the thinking of all but the last ${options.keep_thinking_turns} turn(s)` : ''}.`,
  };
}

/**
 * The policy above, kept up to date as steps come and as the replay clears them (`changed`): the
 * total kept as a sum, the tool results and thinking turns as lists, so that each answer costs
 * O(log n) instead of a pass over the whole context at every request.
 */
function incrementalPolicy(options: StrategyOptions, counter: TokenCounter = charEstimateCounter): IncrementalPolicy {
  const trigger = Number(options.trigger_input_tokens);
  const keepLast = Number(options.keep_tool_uses);
  const names = excluded(options);
  const placeholder = options.placeholder;
  const thinkingOn = options.clear_thinking === true && options.keep_all_thinking !== true;
  const keepTurns = Number(options.keep_thinking_turns);
  const counted = new Map<Step, number>();
  const toolOf = new Map<number, string>();
  let total = 0;
  /** Tool results that may be cleared, in order, and where the ones of tools not excluded sit among them. */
  let results = 0;
  const open: { position: number; index: number }[] = [];
  /** Turns with thinking in first-seen order, with the first and last of their thinking steps. */
  const turns: { turn: number; first: number; last: number }[] = [];
  const turnAt = new Map<number, { turn: number; first: number; last: number }>();
  /** Set once a turn's thinking resumes after a later turn's: then the last step is searched for. */
  let interleaved = false;
  const count = (s: Step) => {
    const n = promptTokensOf(s, counter);
    total += n - (counted.get(s) ?? 0);
    counted.set(s, n);
  };
  return {
    push(step) {
      count(step);
      if (step.kind === 'tool_call' && step.tool) toolOf.set(step.index, step.tool.name);
      if (step.kind === 'tool_result' && step.text !== placeholder) {
        if (!names.has(step.toolName ?? toolOf.get(step.answers ?? -1) ?? '')) open.push({ position: results, index: step.index });
        results++;
      }
      if (thinkingOn && isThinking(step)) {
        const known = turnAt.get(step.turn);
        if (known) {
          known.last = step.index;
          if (known !== turns[turns.length - 1]) interleaved = true;
        } else {
          const entry = { turn: step.turn, first: step.index, last: step.index };
          turns.push(entry);
          turnAt.set(step.turn, entry);
        }
      }
    },
    changed(step) {
      count(step);
    },
    range(forced) {
      let first = Infinity;
      let last = -Infinity;
      if (total > trigger || forced !== undefined) {
        // Results before the last `keep` ones, of tools not excluded: a prefix of `open`.
        const older = keepLast > 0 ? Math.max(0, results - keepLast) : results;
        let lo = 0, hi = open.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (open[mid].position < older) lo = mid + 1; else hi = mid;
        }
        if (lo > 0) { first = open[0].index; last = open[lo - 1].index; }
      }
      const cleared = Math.max(0, turns.length - keepTurns);
      if (cleared > 0) {
        first = Math.min(first, turns[0].first);
        if (!interleaved) last = Math.max(last, turns[cleared - 1].last);
        else for (let i = 0; i < cleared; i++) last = Math.max(last, turns[i].last);
      }
      return last < 0 ? null : [first, last];
    },
  };
}

async function run(trajectory: Run, range: StepRange, ctx: { options: StrategyOptions; counter: TokenCounter }): Promise<StrategyOutput> {
  const o = ctx.options;
  const inRange = (s: Step) => s.index >= range[0] && s.index <= range[1];
  const placeholder = String(o.placeholder);
  const warnings: string[] = [];
  let results = clearableResults(trajectory, o).filter(inRange);
  const reclaimed = results.reduce((n, r) => n + ctx.counter.count(r.text) - ctx.counter.count(placeholder), 0);
  if (results.length && reclaimed < Number(o.clear_at_least)) {
    warnings.push(`Clearing would reclaim ${reclaimed} tokens, less than clear_at_least (${o.clear_at_least}): no tool result was cleared, as the API does.`);
    results = [];
  }
  const cleared = new Set(results.map((r) => r.index));
  const callsCleared = new Set(o.clear_tool_inputs === true ? results.map((r) => r.answers).filter((i): i is number => i !== undefined) : []);
  const dropped = new Set(clearableThinking(trajectory, o).filter(inRange).map((s) => s.index));
  const fates: StepFate[] = trajectory.steps.map(() => 'kept');
  const steps: OutputStep[] = [];
  for (const s of trajectory.steps) {
    if (dropped.has(s.index)) { fates[s.index] = 'dropped'; continue; }
    if (cleared.has(s.index)) { fates[s.index] = 'masked'; steps.push(withText(s, placeholder)); continue; }
    if (callsCleared.has(s.index) && s.tool) {
      fates[s.index] = 'masked';
      steps.push({ step: { ...s, text: '{}', tool: { ...s.tool, args: '{}' } }, origin: s.index });
      continue;
    }
    steps.push(keep(s));
  }
  const turnsDropped = new Set([...dropped].map((i) => trajectory.steps[i].turn)).size;
  if (cleared.size || dropped.size) {
    warnings.push(`Applied edits: clear_tool_uses_20250919 cleared ${cleared.size} tool result(s)${callsCleared.size ? ` and ${callsCleared.size} input(s)` : ''} (${Math.max(0, reclaimed)} tokens); clear_thinking_20251015 cleared the thinking of ${turnsDropped} turn(s).`);
  }
  return { mode: 'deterministic', steps, fates, summary: null, prompt: null, warnings };
}

const anthropicContextEditingOptions: OptionSpec[] = [
  { name: 'trigger_input_tokens', type: 'integer', default: 100_000, min: 1, max: 10_000_000, help: 'Clear tool results once the input is over this many tokens (clear_tool_uses_20250919 trigger, default 100,000 input tokens).' },
  { name: 'keep_tool_uses', type: 'integer', default: 3, min: 0, max: 100_000, help: 'The most recent tool uses whose results stay (keep, default 3).' },
  { name: 'clear_at_least', type: 'integer', default: 0, min: 0, max: 10_000_000, help: 'Clear nothing unless at least this many tokens would go, so that breaking the prompt cache is worth it (clear_at_least; unset by default).' },
  { name: 'exclude_tools', type: 'string', default: '', maxLength: 10_000, help: 'Comma-separated tool names whose results are never cleared (exclude_tools).' },
  { name: 'clear_tool_inputs', type: 'boolean', default: false, help: 'Also blank the arguments of the calls whose results are cleared (clear_tool_inputs).' },
  { name: 'placeholder', type: 'string', default: CLEARED_PLACEHOLDER, maxLength: 1000, help: 'Text that replaces a cleared result (the API does not publish its own; LangChain\'s mirror uses "[cleared]").' },
  { name: 'clear_thinking', type: 'boolean', default: true, help: 'Drop thinking blocks of earlier assistant turns (clear_thinking_20251015; the API does this by default even without the edit).' },
  { name: 'keep_thinking_turns', type: 'integer', default: 1, min: 0, max: 10_000, help: 'Assistant turns whose thinking stays (keep thinking_turns, default 1: the last turn).' },
  { name: 'keep_all_thinking', type: 'boolean', default: false, help: 'Keep every thinking block (keep: "all"), which keeps prompt-cache hits.' },
];

export const anthropicContextEditingStrategy: Strategy = {
  id: 'anthropic-context-editing',
  label: 'Anthropic context editing (clear tool uses, clear thinking)',
  kind: 'deterministic',
  pairSafe: true,
  description: fromDefaults('The Messages API edits: past {trigger_input_tokens} input tokens, the oldest tool results become a placeholder except the last {keep_tool_uses} tool uses; thinking of earlier turns is dropped. Nothing else is removed.', anthropicContextEditingOptions),
  options: anthropicContextEditingOptions,
  policy,
  incrementalPolicy,
  // The edits are applied by the API while it serves the request: no request of their own.
  requestsPerFiring: () => 0,
  run: (trajectory, range, ctx) => run(trajectory, range, ctx),
};
