// "The whole run under a policy": replays a trajectory step by step as if the agent had used a
// strategy all along. Before each step is added, the strategy's trigger is checked on the context
// the agent would hold at that moment; when it fires, the strategy's policy picks what to forget
// and the replay applies the effect the real run showed (a summary of measured size, masking,
// dropping or trimming). No model is called: a summary's size is the forgotten tokens times a
// ratio, measured from a real run or set by the user.

import type { Step, Trajectory } from '../model';
import { costOf, type Cost, type ResolvedPrice } from '../pricing/prices';
import { TurnCounter } from '../steps';
import type { TokenCounter } from '../tokens/counter';
import { isAgentStep } from '../tokens/chatFormat';
import { widenToPairs } from '../compaction/range';
import { contextTextOf } from '../compaction/text';
import type { CompactionResult, StepRange, Strategy, StrategyOptions } from '../compaction/types';

/** Used when no run measured a ratio and the user set none. */
export const DEFAULT_SUMMARY_RATIO = 0.1;

export interface ReplayOptions {
  strategy: Strategy;
  options: StrategyOptions;
  counter: TokenCounter;
  /** Tokens of each original step as the compaction counted them; counted here when absent. */
  stepTokens?: readonly number[];
  /** A real run of the strategy on this trajectory: the source of the measured effect and ratio. */
  sample?: CompactionResult;
  /** Summary tokens ÷ forgotten tokens; overrides the ratio measured from `sample`. */
  summaryRatio?: number;
  /** Fire whenever the context holds more than this many tokens, instead of the strategy's own trigger. */
  tokenBudget?: number;
  /** Price of the agent's model, for the cost both ways. */
  price?: ResolvedPrice;
  model?: string;
}

export interface ReplayPoint {
  step: number;
  /** Context after this step without compaction. */
  tokensRaw: number;
  /** Context after this step with the strategy applied whenever its trigger fired. */
  tokensCompacted: number;
}

/** One firing of the trigger: just before `step` was added. */
export interface ReplayEvent {
  step: number;
  tokensBefore: number;
  tokensAfter: number;
  stepsBefore: number;
  stepsAfter: number;
  /** Context entries forgotten, masked or trimmed. */
  affected: number;
  /** Model requests the firing costs (0 for deterministic strategies). */
  calls: number;
}

export type ReplayEffect = 'summarize' | 'mask' | 'drop' | 'trim';

export interface ReplayCost {
  model: string;
  pricesAsOf: string;
  raw: Cost;
  compacted: Cost;
  /** raw.total − compacted.total; negative when compaction costs more than it saves. */
  saved: number;
}

export interface ReplayResult {
  strategy: string;
  label: string;
  /** The trigger in words, e.g. "more than 100 events (max_size)". */
  trigger: string;
  effect: ReplayEffect;
  summaryRatio: number;
  ratioSource: 'run' | 'user' | 'default';
  steps: number;
  series: ReplayPoint[];
  events: ReplayEvent[];
  /** Requests the agent made (each group of consecutive agent steps is one request). */
  modelCalls: number;
  /** Input tokens summed over the agent's requests, without and with compaction. */
  totalInputRaw: number;
  totalInputCompacted: number;
  /** Tokens the agent wrote (same both ways). */
  totalOutput: number;
  summaryCalls: number;
  summaryInputTokens: number;
  summaryOutputTokens: number;
  peakRaw: number;
  peakCompacted: number;
  cost: ReplayCost | null;
}

/** One item of the replayed context. `step.index` is its position in the context. */
interface Entry {
  step: Step;
  origin: number | null;
  tokens: number;
  state: 'raw' | 'masked' | 'trimmed' | 'summary';
}

interface Effect {
  kind: ReplayEffect;
  /** Tokens of one masked observation. */
  maskTokens: number;
  /** Trimmed size ÷ original size. */
  trimRatio: number;
  /** Original steps the sample kept although they were inside its range (OpenHands' first user message). */
  keptInside: Set<number>;
}

export function replay(trajectory: Trajectory, o: ReplayOptions): ReplayResult {
  const sizes = new Sizes(o.counter);
  const original = trajectory.steps;
  const stepTokens = o.stepTokens ?? original.map((s) => o.counter.count(contextTextOf(s)));
  const effect = effectOf(o, sizes);
  const { ratio, source } = ratioOf(o);
  const maxSize = typeof o.options.max_size === 'number' ? o.options.max_size : undefined;

  const context: Entry[] = [];
  const view = new ContextView(trajectory);
  const originPos = new Map<number, number>();
  let contextTokens = 0;
  let rawTokens = 0;
  const series: ReplayPoint[] = [];
  const events: ReplayEvent[] = [];
  let modelCalls = 0, totalInputRaw = 0, totalInputCompacted = 0, totalOutput = 0;
  let summaryCalls = 0, summaryInputTokens = 0, summaryOutputTokens = 0;
  let peakRaw = 0, peakCompacted = 0;

  /** The range to compact now, or null when the trigger does not fire. */
  const triggered = (view: () => Trajectory): StepRange | null => {
    if (context.length === 0) return null;
    if (o.tokenBudget !== undefined && contextTokens <= o.tokenBudget) return null;
    // The OpenHands condensers' policy also answers explicit requests, so their trigger is the count.
    if (o.tokenBudget === undefined && maxSize !== undefined && context.length <= maxSize) return null;
    const v = view();
    const range = o.strategy.policy(v, o.options, sizes).range;
    return range && !o.strategy.pairSafe ? widenToPairs(v.steps, range).range : range;
  };

  original.forEach((step, t) => {
    const viewOf = () => view.of(context);
    const range = triggered(viewOf);
    if (range) {
      const before = contextTokens, stepsBefore = context.length;
      const callsIfSummarized = o.strategy.kind === 'llm' ? o.strategy.maxCalls?.(viewOf(), range, o.options) ?? 1 : 0;
      const applied = apply(context, range, effect, ratio, sizes);
      if (applied.affected > 0) {
        contextTokens += applied.tokensDelta;
        // Masking and trimming change entries in place; only removals renumber.
        if (context.length !== stepsBefore || effect.kind === 'summarize' || effect.kind === 'drop') {
          reindex(context, originPos);
          view.invalidate();
        }
        const calls = applied.insertedTokens > 0 ? callsIfSummarized : 0;
        summaryCalls += calls;
        if (calls > 0) {
          summaryInputTokens += applied.summarizedTokens;
          summaryOutputTokens += applied.insertedTokens;
        }
        events.push({ step: t, tokensBefore: before, tokensAfter: contextTokens, stepsBefore, stepsAfter: context.length, affected: applied.affected, calls });
      }
    }
    if (isAgentStep(step) && (t === 0 || !isAgentStep(original[t - 1]))) {
      modelCalls++;
      totalInputRaw += rawTokens;
      totalInputCompacted += contextTokens;
    }
    if (isAgentStep(step)) totalOutput += stepTokens[t];
    const copy: Step = { ...step, index: context.length };
    if (step.answers !== undefined) {
      const at = originPos.get(step.answers);
      if (at === undefined) delete copy.answers;
      else copy.answers = at;
    }
    originPos.set(t, context.length);
    context.push({ step: copy, origin: t, tokens: stepTokens[t], state: 'raw' });
    view.push(copy);
    contextTokens += stepTokens[t];
    rawTokens += stepTokens[t];
    peakRaw = Math.max(peakRaw, rawTokens);
    peakCompacted = Math.max(peakCompacted, contextTokens);
    series.push({ step: t, tokensRaw: rawTokens, tokensCompacted: contextTokens });
  });

  let cost: ReplayCost | null = null;
  if (o.price) {
    const raw = costOf({ input: totalInputRaw, output: totalOutput }, o.price);
    const compacted = costOf({ input: totalInputCompacted + summaryInputTokens, output: totalOutput + summaryOutputTokens }, o.price);
    cost = { model: o.model ?? o.price.matched, pricesAsOf: o.price.asOf, raw, compacted, saved: raw.total - compacted.total };
  }
  return {
    strategy: o.strategy.id,
    label: o.strategy.label,
    trigger: describeTrigger(o, maxSize),
    effect: effect.kind,
    summaryRatio: ratio,
    ratioSource: source,
    steps: original.length,
    series, events, modelCalls, totalInputRaw, totalInputCompacted, totalOutput,
    summaryCalls, summaryInputTokens, summaryOutputTokens, peakRaw, peakCompacted, cost,
  };
}

function describeTrigger(o: ReplayOptions, maxSize: number | undefined): string {
  if (o.tokenBudget !== undefined) return `the context holds more than ${o.tokenBudget} tokens`;
  if (maxSize !== undefined) return `the history holds more than ${maxSize} events (max_size)`;
  return `the strategy's policy finds something to compact (${o.strategy.id})`;
}

/** What the strategy does to a range, as its sample run showed, or as its kind suggests. */
function effectOf(o: ReplayOptions, counter: TokenCounter): Effect {
  const s = o.sample;
  const keptInside = new Set<number>();
  let kind: ReplayEffect | undefined;
  let maskTokens = counter.count('Old environment output: (10 lines omitted)');
  let trimRatio = 0.5;
  if (s?.range) {
    for (let i = s.range[0]; i <= s.range[1]; i++) if (s.fates[i] === 'kept') keptInside.add(i);
    const after = afterTokensByOrigin(s);
    const masked = s.fates.flatMap((f, i) => (f === 'masked' ? [i] : []));
    const trimmed = s.fates.flatMap((f, i) => (f === 'trimmed' ? [i] : []));
    if (masked.length > 0) {
      kind = 'mask';
      maskTokens = Math.round(masked.reduce((n, i) => n + (after.get(i) ?? 0), 0) / masked.length);
    } else if (s.origins.some((x) => x === null)) {
      kind = 'summarize';
    } else if (s.fates.includes('dropped')) {
      kind = 'drop';
    } else if (trimmed.length > 0) {
      kind = 'trim';
      const before = trimmed.reduce((n, i) => n + s.stepTokensBefore[i], 0);
      trimRatio = before === 0 ? 1 : trimmed.reduce((n, i) => n + (after.get(i) ?? 0), 0) / before;
    }
  }
  kind ??= o.strategy.pairSafe ? 'mask' : o.strategy.kind === 'llm' ? 'summarize' : 'drop';
  return { kind, maskTokens, trimRatio, keptInside };
}

function ratioOf(o: ReplayOptions): { ratio: number; source: ReplayResult['ratioSource'] } {
  if (o.summaryRatio !== undefined && Number.isFinite(o.summaryRatio) && o.summaryRatio >= 0) return { ratio: o.summaryRatio, source: 'user' };
  const measured = o.sample ? measuredSummaryRatio(o.sample) : undefined;
  return measured !== undefined ? { ratio: measured, source: 'run' } : { ratio: DEFAULT_SUMMARY_RATIO, source: 'default' };
}

/** Tokens of the steps the run made (the summary) ÷ tokens of the steps it summarized. */
export function measuredSummaryRatio(r: CompactionResult): number | undefined {
  let forgotten = 0;
  r.fates.forEach((f, i) => { if (f === 'summarized') forgotten += r.stepTokensBefore[i]; });
  let inserted = 0;
  r.origins.forEach((x, i) => { if (x === null) inserted += r.stepTokensAfter[i]; });
  return forgotten > 0 && inserted > 0 ? inserted / forgotten : undefined;
}

function afterTokensByOrigin(r: CompactionResult): Map<number, number> {
  const m = new Map<number, number>();
  r.origins.forEach((x, i) => { if (x !== null) m.set(x, r.stepTokensAfter[i]); });
  return m;
}

/**
 * Steps the replay made up (summaries, masked observations) carry a marker instead of text; the
 * replay's counter knows each marker's size, so a token-budget policy sees the estimated sizes.
 */
class Sizes implements TokenCounter {
  private readonly synthetic = new Map<string, number>();
  private readonly cache = new Map<string, number>();
  readonly tokenizer: string;
  readonly approximate: boolean;

  constructor(private readonly inner: TokenCounter) {
    this.tokenizer = inner.tokenizer;
    this.approximate = inner.approximate;
  }

  marker(tokens: number): string {
    const text = `\u0000replay-${this.synthetic.size}\u0000`;
    this.synthetic.set(text, tokens);
    return text;
  }

  count(text: string): number {
    let extra = 0;
    if (text.includes('\u0000replay-')) {
      text = text.replace(/\u0000replay-\d+\u0000/g, (m) => { extra += this.synthetic.get(m) ?? 0; return ''; });
    }
    let n = this.cache.get(text);
    if (n === undefined) this.cache.set(text, (n = this.inner.count(text)));
    return n + extra;
  }
}

function apply(context: Entry[], range: StepRange, effect: Effect, ratio: number, sizes: Sizes) {
  const [a, b] = range;
  let affected = 0, summarizedTokens = 0, insertedTokens = 0, tokensDelta = 0;
  if (effect.kind === 'mask' || effect.kind === 'trim') {
    for (let i = a; i <= b && i < context.length; i++) {
      const e = context[i];
      if (e.state !== 'raw' || e.step.kind === 'system') continue;
      if (effect.kind === 'mask' && e.step.kind !== 'tool_result') continue;
      const tokens = effect.kind === 'mask' ? Math.min(e.tokens, effect.maskTokens) : Math.round(e.tokens * effect.trimRatio);
      e.state = effect.kind === 'mask' ? 'masked' : 'trimmed';
      tokensDelta += tokens - e.tokens;
      e.tokens = tokens;
      // The replay's own copy, and the same object the policy's view holds: changed in place.
      e.step.text = sizes.marker(tokens);
      if (e.step.tool) e.step.tool = { ...e.step.tool, name: '', args: e.step.text };
      affected++;
    }
    return { affected, summarizedTokens, insertedTokens, tokensDelta };
  }
  const survivors: Entry[] = [];
  const removed: Entry[] = [];
  for (let i = a; i <= b && i < context.length; i++) {
    const e = context[i];
    const survives = e.step.kind === 'system' || (e.origin !== null && effect.keptInside.has(e.origin) && e.state === 'raw');
    (survives ? survivors : removed).push(e);
  }
  if (removed.length === 0) return { affected, summarizedTokens, insertedTokens, tokensDelta };
  summarizedTokens = removed.reduce((n, e) => n + e.tokens, 0);
  const inserted: Entry[] = [];
  if (effect.kind === 'summarize') {
    insertedTokens = Math.max(1, Math.round(summarizedTokens * ratio));
    inserted.push({
      step: { index: 0, turn: 0, kind: 'compaction', text: sizes.marker(insertedTokens), label: 'replay summary' },
      origin: null, tokens: insertedTokens, state: 'summary',
    });
  }
  context.splice(a, Math.min(b, context.length - 1) - a + 1, ...survivors, ...inserted);
  return { affected: removed.length, summarizedTokens, insertedTokens, tokensDelta: insertedTokens - summarizedTokens };
}

/** Renumbers the context after a change and relinks tool results to their calls. */
function reindex(context: Entry[], originPos: Map<number, number>): void {
  const oldToNew = new Map<number, number>();
  context.forEach((e, i) => { if (e.state !== 'summary') oldToNew.set(e.step.index, i); });
  originPos.clear();
  // The entries' steps are the replay's own copies: renumbered in place.
  context.forEach((e, i) => {
    const step = e.step;
    step.index = i;
    if (step.answers !== undefined) {
      const linked = oldToNew.get(step.answers);
      if (linked === undefined) delete step.answers;
      else step.answers = linked;
    }
    if (e.origin !== null) originPos.set(e.origin, i);
  });
}

/**
 * The context as a trajectory, so the strategy's own policy can look at it. Kept in step with the
 * context rather than rebuilt for every step: an appended step gets its turn from a running
 * counter, and only a removal (which renumbers) rebuilds the list.
 */
class ContextView {
  private steps: Step[] = [];
  private turns = new TurnCounter();
  private stale = false;

  constructor(private readonly base: Trajectory) {}

  push(step: Step): void {
    if (this.stale) return;
    step.turn = this.turns.next(step);
    this.steps.push(step);
  }

  invalidate(): void {
    this.stale = true;
  }

  of(context: readonly Entry[]): Trajectory {
    if (this.stale) {
      // The entries' steps are the replay's own copies, so turns may be assigned in place.
      this.steps = [];
      this.turns = new TurnCounter();
      this.stale = false;
      for (const e of context) this.push(e.step);
    }
    return { ...this.base, steps: this.steps, runs: undefined, records: this.steps.length };
  }
}
