// The replay's "no compaction" run checked against what the log says was billed. Where the log
// records usage per call, the recorded prompt of each call is set beside the modelled one, and
// the model is calibrated on them: every call also carries what the log does not hold (system
// prompt, tool definitions: a constant `offset`), and where our tokenizer stands in for the
// model's own, its tokens are counted at a measured `ratio` to ours.

import type { RecordedUsage } from '../model';
import type { ResolvedPrice } from '../models';
import { recordedCallDollars } from '../pricing/runCost';
import { REPLY_PRIMING } from '../tokens';
import type { RecordedCacheReads } from '../pricing/promptCache';
import type { Scale } from './replayBilling';

/** One request of the uncompacted run with the usage the log recorded for it. */
export interface RecordedCall {
  /** The step at which the request starts. */
  step: number;
  /** Our count of the context the request read (before priming and calibration). */
  context: number;
  usage: RecordedUsage;
  /** True when the agent compacted its context since the previous recorded call. */
  afterCompaction: boolean;
}

/** The scale a run's recorded usage sets for our counts, and what its cache reads show (`RecordedCacheReads`: the smallest read, whether replies were read back). */
export interface Calibration extends Scale, RecordedCacheReads {
  /** Calls the figures were measured on. */
  calls: number;
  /** Tokens the first request already found in the prompt cache (cached before the log began). */
  warmCache: number;
  /** Context the log does not show that the recorded prompts carry from a call on (negative: less than it shows): [step of the call, provider tokens], in order. */
  unshown: [number, number][];
  /** How the scale was found, in words, for the report and the CLI. */
  note: string;
}

/**
 * Tokens of another vendor's tokenizer per o200k token that a real tokenizer difference can
 * explain (Claude, Gemini and open models measure 0.9–1.3 on prose and code). A fitted ratio
 * outside it says the log omits part of every call, not how the model counts: it is not applied.
 */
const PLAUSIBLE_TOKENIZER_RATIO: readonly [number, number] = [0.8, 1.5];

/**
 * Fits prompt = offset + ratio × ours on the recorded calls; null when no call records its prompt.
 * `outputs` holds our count of what each call wrote, keyed by its step.
 */
export function calibrate(calls: readonly RecordedCall[], ownTokenizer: boolean, outputs: ReadonlyMap<number, number> = new Map(), firstRequestStep?: number): Calibration | null {
  const pairs = calls.filter((c) => (c.usage.inputTokens ?? 0) > 0);
  if (pairs.length === 0) return null;
  const modelled = (c: RecordedCall) => c.context + REPLY_PRIMING;
  let ratio = 1;
  let implausibleRatio: number | undefined;
  if (!ownTokenizer) {
    // What the prompt grew by between two calls is text the log holds, so the growth compares the
    // two tokenizers without the hidden part; a compaction in between breaks the comparison.
    let grewOurs = 0;
    let grewTheirs = 0;
    for (let i = 1; i < pairs.length; i++) {
      if (pairs[i].afterCompaction) continue;
      const ours = modelled(pairs[i]) - modelled(pairs[i - 1]);
      const theirs = pairs[i].usage.inputTokens! - pairs[i - 1].usage.inputTokens!;
      if (ours <= 0 || theirs <= 0 || unshownChange(theirs, ours, pairs[i - 1].usage.inputTokens!, PLAUSIBLE_TOKENIZER_RATIO[1]) !== 0) continue;
      grewOurs += ours;
      grewTheirs += theirs;
    }
    const measured = grewOurs > 0 ? grewTheirs / grewOurs : NaN;
    if (Number.isFinite(measured)) {
      if (measured >= PLAUSIBLE_TOKENIZER_RATIO[0] && measured <= PLAUSIBLE_TOKENIZER_RATIO[1]) ratio = measured;
      else implausibleRatio = measured;
    }
  }
  // Context the log does not show that appears (or goes) between two calls: carried from there on.
  const hiddenAt: number[] = [];
  const unshown: [number, number][] = [];
  let carried = 0;
  pairs.forEach((c, i) => {
    const before = carried;
    // A compaction restarts the context; another model has a system prompt and tools of its own (a switch is not unshown context).
    if (i > 0 && (c.afterCompaction || c.usage.model !== pairs[i - 1].usage.model)) carried = 0;
    else if (i > 0) {
      const ours = modelled(c) - modelled(pairs[i - 1]);
      carried += unshownChange(c.usage.inputTokens! - pairs[i - 1].usage.inputTokens!, ours, pairs[i - 1].usage.inputTokens!, ratio);
    }
    hiddenAt.push(carried);
    if (carried !== before) unshown.push([c.step, carried]);
  });
  const offset = median(pairs.map((c, i) => c.usage.inputTokens! - hiddenAt[i] - ratio * modelled(c)));
  // What the model wrote, against our count of the steps it wrote (reasoning the log leaves out shows here).
  let recordedOut = 0, oursOut = 0;
  for (const c of pairs) {
    const ours = outputs.get(c.step);
    if (c.usage.outputTokens === undefined || !ours) continue;
    recordedOut += c.usage.outputTokens;
    oursOut += ours;
  }
  const outputRatio = oursOut > 0 && recordedOut > 0 ? recordedOut / oursOut : ratio;
  const first = pairs[0];
  // A figure of reads and writes together (Cline) does not say what was cached before the log began.
  const warmCache = first.step === firstRequestStep && !first.usage.cachedIncludesWrites ? Math.min(first.usage.cachedInputTokens ?? 0, first.usage.inputTokens!) : 0;
  const hidden = offset >= 0
    ? `every request also carries ${Math.round(offset).toLocaleString('en-US')} tokens the log does not hold (system prompt, tool definitions; an estimate: the recorded prompts less our count of what the log shows)`
    : `every request is ${Math.round(-offset).toLocaleString('en-US')} tokens smaller than our count of the log (framing we count and the provider does not)`;
  const note = ownTokenizer || implausibleRatio !== undefined
    ? `calibrated on ${pairs.length} recorded call${pairs.length === 1 ? '' : 's'}: ${hidden}`
    : `calibrated on ${pairs.length} recorded call${pairs.length === 1 ? '' : 's'}: the model's tokenizer counts ${ratio.toFixed(3)} tokens per token of the stand-in, and ${hidden}`;
  const more = [
    implausibleRatio !== undefined
      ? `; the recorded prompts grew ${implausibleRatio.toFixed(2)}× as fast as our count of the log, more than a tokenizer difference explains (the log leaves out part of what each call sent), so no tokenizer ratio was applied`
      : '',
    Math.abs(outputRatio - ratio) > 0.005 ? `; the model wrote ${outputRatio.toFixed(2)} tokens per token of its steps in the log` : '',
    warmCache > 0 ? `; the first request found ${warmCache.toLocaleString('en-US')} tokens already cached` : '',
  ].join('');
  let smallestRead = Infinity;
  for (const c of pairs) if (!c.usage.cachedIncludesWrites && (c.usage.cachedInputTokens ?? 0) > 0) smallestRead = Math.min(smallestRead, c.usage.cachedInputTokens!);
  const jumps = unshown.length > 0
    ? `; the recorded prompt changes by more than the log shows at ${unshown.length} call${unshown.length === 1 ? '' : 's'} (context it does not show, or shows and the call did not carry): both runs carry the difference from there on`
    : '';
  const replyCached = replyCachedIn(pairs);
  const replyNote = replyCached === false ? '; the recorded cache reads never reach past the previous prompt, so a reply is not read from the cache' : '';
  return { offset, ratio, outputRatio, warmCache, ...(smallestRead < Infinity ? { smallestRead } : {}), ...(replyCached !== undefined ? { replyCached } : {}), unshown, calls: pairs.length, note: note + more + jumps + replyNote };
}

/**
 * How much more (or less) the recorded prompt changed between two calls than the log shows, where
 * that is more than counting explains (over 2,000 tokens and a tenth of the prompt); else 0.
 */
function unshownChange(theirs: number, ours: number, before: number, ratio: number): number {
  const unshown = theirs - ratio * Math.max(0, ours);
  return Math.abs(unshown) > Math.max(2000, 0.1 * before) ? unshown : 0;
}

/** Rates (USD per million tokens) that reproduce the cost the log records per call. */
export interface LogRates {
  input: number;
  cachedInput?: number;
  cacheWrite?: number;
  output: number;
  calls: number;
}

/**
 * The rates the log was billed at, fitted by least squares on the calls that record their cost
 * and tokens; undefined unless they reproduce every call's cost within 2% (median) and none is
 * negative. A harness that prices its own calls (LiteLLM in mini-swe-agent, OpenHands) may use
 * rates other than the price database's.
 */
export function fitLogRates(calls: readonly RecordedCall[]): LogRates | undefined {
  const rows = calls.filter((c) => typeof c.usage.cost === 'number' && c.usage.cost > 0 && (c.usage.inputTokens ?? 0) > 0 && c.usage.outputTokens !== undefined);
  if (rows.length < 4) return undefined;
  const features = (c: RecordedCall) => {
    const cached = c.usage.cachedInputTokens ?? 0;
    const written = c.usage.cacheWriteTokens ?? 0;
    return [c.usage.inputTokens! - cached - written, cached, written, c.usage.outputTokens!].map((v) => v / 1e6);
  };
  const used = [0, 1, 2, 3].filter((j) => rows.some((c) => features(c)[j] > 0));
  if (!used.includes(0) || !used.includes(3)) return undefined;
  const x = solveLeastSquares(rows.map((c) => used.map((j) => features(c)[j])), rows.map((c) => c.usage.cost!));
  if (!x || x.some((v) => !Number.isFinite(v) || v < 0)) return undefined;
  const rate = (j: number) => { const k = used.indexOf(j); return k < 0 ? undefined : x[k]; };
  const residual = median(rows.map((c) => Math.abs(used.reduce((n, j, k) => n + features(c)[j] * x[k], 0) - c.usage.cost!) / c.usage.cost!));
  if (residual > 0.02) return undefined;
  const rates: LogRates = { input: rate(0)!, output: rate(3)!, calls: rows.length };
  if (rate(1) !== undefined) rates.cachedInput = rate(1);
  if (rate(2) !== undefined) rates.cacheWrite = rate(2);
  return rates;
}

/** Least squares by the normal equations (a handful of unknowns); undefined when singular. */
function solveLeastSquares(a: number[][], b: number[]): number[] | undefined {
  const n = a[0].length;
  const m = Array.from({ length: n }, (_, i) => [...Array.from({ length: n }, (_, j) => a.reduce((s, row) => s + row[i] * row[j], 0)), a.reduce((s, row, r) => s + row[i] * b[r], 0)]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(m[r][col]) > Math.abs(m[pivot][col])) pivot = r;
    if (Math.abs(m[pivot][col]) < 1e-18) return undefined;
    [m[col], m[pivot]] = [m[pivot], m[col]];
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = m[r][col] / m[col][col];
      for (let k = col; k <= n; k++) m[r][k] -= f * m[col][k];
    }
  }
  return m.map((row, i) => row[n] / row[i]);
}

export interface RecordedComparison {
  /** Calls whose usage the log records (main line, paired with a replayed request). */
  calls: number;
  /** Median over calls of |modelled − recorded| ÷ recorded, for the prompt of the uncompacted run. */
  medianPromptDeviation: number | null;
  /** What the recorded calls cost: as the log says, or their recorded usage priced; null when neither is known. */
  cost: number | null;
  costSource: 'log' | 'usage priced' | null;
  /** The modelled cost of the same calls, uncompacted, with the prompt cache. */
  modelledCost: number | null;
  /** (modelled − recorded) ÷ recorded, or null. */
  costDifference: number | null;
  /** Median over calls of |modelled − recorded| ÷ recorded for each call's cost (recorded usage priced); null when not priced. */
  medianCallCostDeviation: number | null;
  /**
   * Cache reads over the calls that record them, recorded and modelled (uncompacted): the check of
   * the cache that needs no price. Null when no call records reads apart from writes.
   */
  cacheReads: { calls: number; recorded: number; modelled: number } | null;
  /** Recorded and modelled prompt per call, for the chart. */
  points: { step: number; recorded: number; modelled: number }[];
}

/**
 * Compares the modelled uncompacted run with the recorded calls. `modelledPrompts` and
 * `modelledCosts` are per replayed request, in the order of `requestSteps`; `priceAt(i)` is the
 * price request `i` is billed at (a run that switched models prices each call at its own).
 */
export function compareWithRecorded(
  calls: readonly RecordedCall[],
  requestSteps: readonly number[],
  modelledPrompts: readonly number[],
  modelledCosts: readonly number[] | null,
  priceAt: (request: number) => ResolvedPrice | undefined,
  modelledCached: readonly number[] = [],
): RecordedComparison {
  const index = new Map<number, number>();
  requestSteps.forEach((s, i) => index.set(s, i));
  const points: RecordedComparison['points'] = [];
  const deviations: number[] = [];
  let logCost = 0, logCostCalls = 0, pricedCost: number | null = 0, modelled: number | null = modelledCosts ? 0 : null;
  let cacheInfo = false;
  const reads = { calls: 0, recorded: 0, modelled: 0 };
  const callDeviations: number[] = [];
  let previousInput = 0;
  for (const c of calls) {
    const i = index.get(c.step);
    const before = previousInput;
    previousInput = c.usage.inputTokens ?? 0;
    if (i === undefined) continue;
    const recorded = c.usage.inputTokens;
    if (recorded !== undefined && recorded > 0) {
      points.push({ step: c.step, recorded, modelled: modelledPrompts[i] });
      deviations.push(Math.abs(modelledPrompts[i] - recorded) / recorded);
    }
    if (typeof c.usage.cost === 'number' && c.usage.cost > 0) { logCost += c.usage.cost; logCostCalls++; }
    if (c.usage.cachedInputTokens !== undefined || c.usage.cacheWriteTokens !== undefined) cacheInfo = true;
    if (c.usage.cachedInputTokens !== undefined && !c.usage.cachedIncludesWrites && modelledCached[i] !== undefined) {
      reads.calls++;
      reads.recorded += c.usage.cachedInputTokens;
      reads.modelled += modelledCached[i];
    }
    const price = priceAt(i);
    if (!price) pricedCost = null;
    if (pricedCost !== null && price) {
      // Priced as the run's bill prices it (1-hour writes, reads and writes recorded as one figure).
      const priced = recordedCallDollars(c.usage, price, before);
      pricedCost += priced;
      if (priced > 0 && modelledCosts) callDeviations.push(Math.abs(modelledCosts[i] - priced) / priced);
    }
    if (modelled !== null && modelledCosts) modelled += modelledCosts[i];
  }
  let cost: number | null = null;
  let costSource: RecordedComparison['costSource'] = null;
  if (logCostCalls > 0) { cost = logCost; costSource = 'log'; }
  else if (pricedCost !== null && cacheInfo) { cost = pricedCost; costSource = 'usage priced'; }
  const costDifference = cost !== null && modelled !== null && cost > 0 ? (modelled - cost) / cost : null;
  return {
    calls: calls.filter((c) => index.has(c.step)).length,
    medianPromptDeviation: deviations.length > 0 ? median(deviations) : null,
    medianCallCostDeviation: callDeviations.length > 0 ? median(callDeviations) : null,
    cost, costSource, modelledCost: modelled, costDifference, points,
    cacheReads: reads.calls > 0 ? { ...reads, modelled: Math.round(reads.modelled) } : null,
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Requests at which the log records the provider serving far less from its cache than the previous
 * call left there, with the prompt not shrunk in between: a prefix the client changed (a reminder
 * or a notification rewritten near the start), a thinking block dropped, or the provider's own miss
 * (OpenAI's cache is best effort). The replay cannot see why, so it follows the record: at those
 * requests it reads at most what the log says was read (`cachedAtMost`, per request, in the
 * provider's tokens), in the run as it happened and under a strategy alike.
 */
function recordedCacheMisses(calls: readonly RecordedCall[], requestSteps: readonly number[], models: readonly (string | undefined)[], writes: boolean): { cachedAtMost: (number | undefined)[]; misses: number; cachedAtLeast: (number | undefined)[]; unseenHits: number; recordedReads: (number | undefined)[] } {
  const index = new Map(requestSteps.map((step, i) => [step, i]));
  const cachedAtMost: (number | undefined)[] = requestSteps.map(() => undefined);
  const cachedAtLeast: (number | undefined)[] = requestSteps.map(() => undefined);
  // Every read the log records, for requests the replay finds after a reset of the cache.
  const recordedReads: (number | undefined)[] = requestSteps.map(() => undefined);
  let misses = 0, unseenHits = 0;
  let previous: { request: number; end: number } | undefined;
  for (const c of calls) {
    const k = index.get(c.step);
    const u = c.usage;
    const known = k !== undefined && !u.cachedIncludesWrites && u.cachedInputTokens !== undefined && (u.inputTokens ?? 0) > 0 && (!writes || u.cacheWriteTokens !== undefined);
    if (!known) { previous = undefined; continue; }
    const read = u.cachedInputTokens!;
    if (read > 0) recordedReads[k] = read;
    if (previous && previous.request === k - 1 && !c.afterCompaction && models[k] === models[k - 1]) {
      // What the cache could serve had nothing changed: what the previous call left in it, within this prompt.
      const could = Math.min(previous.end, u.inputTokens!);
      if (could - read > Math.max(1024, 0.05 * could)) { cachedAtMost[k] = read; misses++; }
      // More than the previous call left: requests the log does not show (cut from it, or a client's own) cached it.
      else if (read - previous.end > Math.max(1024, 0.05 * previous.end)) { cachedAtLeast[k] = read; unseenHits++; }
    }
    // Anthropic's cache holds what a call read and wrote; an automatic cache, the call's whole prompt.
    previous = { request: k, end: writes ? read + (u.cacheWriteTokens ?? 0) : u.inputTokens! };
  }
  return { cachedAtMost, misses, cachedAtLeast, unseenHits, recordedReads };
}

/** Per request (in the order of `requestSteps`), the unshown context it carries: the latest change at or before its step. */
function unshownPerRequest(unshown: readonly [number, number][], requestSteps: readonly number[]): number[] | undefined {
  if (unshown.length === 0) return undefined;
  let next = 0, carried = 0;
  return requestSteps.map((step) => {
    while (next < unshown.length && unshown[next][0] <= step) carried = unshown[next++][1];
    return carried;
  });
}

/**
 * What the log records of its cache and of context it does not show, as the ledger's timing takes
 * it (`RequestTiming`): the same for the main line (`billAsHappened`) and each subagent
 * (`replayBranches`), with the counts their notes give.
 */
export function recordedCacheTiming(calibration: Calibration | null, recordedCalls: readonly RecordedCall[], requestSteps: readonly number[], models: readonly (string | undefined)[], anthropicWrites: boolean | undefined): {
  timing: { cachedAtMost?: (number | undefined)[]; cachedAtLeast?: (number | undefined)[]; unshown?: number[]; recordedReads?: (number | undefined)[] };
  misses: number;
  unseenHits: number;
} {
  if (!calibration) return { timing: {}, misses: 0, unseenHits: 0 };
  const unshown = unshownPerRequest(calibration.unshown, requestSteps);
  // undefined: the replay caches nothing, so there is no miss to follow.
  const m = anthropicWrites === undefined ? undefined : recordedCacheMisses(recordedCalls, requestSteps, models, anthropicWrites);
  return {
    timing: {
      ...(m && m.misses > 0 ? { cachedAtMost: m.cachedAtMost } : {}),
      ...(m && m.unseenHits > 0 ? { cachedAtLeast: m.cachedAtLeast } : {}),
      ...(m && m.recordedReads.some((r) => r !== undefined) ? { recordedReads: m.recordedReads } : {}),
      ...(unshown ? { unshown } : {}),
    },
    misses: m?.misses ?? 0,
    unseenHits: m?.unseenHits ?? 0,
  };
}

/** Whether the recorded reads show the cache holding each reply: see `Calibration.replyCached`. */
function replyCachedIn(pairs: readonly RecordedCall[]): boolean | undefined {
  let reads = 0;
  let past = 0;
  for (let i = 1; i < pairs.length; i++) {
    const read = pairs[i].usage.cachedInputTokens ?? 0;
    if (read <= 0 || pairs[i].usage.cachedIncludesWrites) continue;
    reads++;
    if (read > (pairs[i - 1].usage.inputTokens ?? Infinity)) past++;
  }
  return past > 0 ? true : reads >= 3 ? false : undefined;
}
