// The run as it happened, billed, with no strategy: the agent's own requests (its own compactions
// applied), calibrated on the usage the log records, each priced at its call's model and day, with
// the provider's prompt cache and its lifetime. `billRun` (the cost every view shows) and the
// survey stop here; `replay` builds the run under a strategy beside it, on the same prices, cache
// and scale.

import type { Run } from '../model';
import { priceFor, runDate, type Cost, type ResolvedPrice } from '../models';
import { cacheBehaviourFor, defaultLifetime, providerCache, LIFETIME_CANDIDATES, lifetimeWords, PromptCache, type CacheBehaviour, type CacheLifetime, type RecordedCacheReads } from '../pricing/promptCache';
import { addTokens, runCost, type BillTokens, type RunBill } from '../pricing/runCost';
import { promptTokensOf } from '../compaction';
import type { TokenCounter } from '../tokens';
import { tokenizerFor } from '../tokens';
import { calibrate, compareWithRecorded, fitLogRates, recordedCacheTiming, type Calibration, type RecordedCall, type RecordedComparison } from './calibration';
import { IDENTITY_SCALE, Ledger, type RequestTiming, type Scale, type SideTotals } from './replayBilling';
import { addCosts, addSides, replayBranches, type BranchesBill } from './replayBranches';
import { rawRun, requestStarts, type RawRun } from './replayRaw';

export interface BillingOptions {
  counter: TokenCounter;
  /** Tokens of each original step as the compaction counted them; counted here when absent. */
  stepTokens?: readonly number[];
  /** Price of the agent's model. */
  price?: ResolvedPrice;
  model?: string;
  /** How the provider caches prompts; by default the model's provider's behaviour. */
  cache?: CacheBehaviour;
  /** Calibrate prompt sizes on the usage the log records (default true). */
  calibrate?: boolean;
  /** Price every request as `model`/`price` (the user's --model or --price), not each call's own model. */
  fixedModel?: boolean;
  /** The cache lifetime in seconds, instead of the provider's (or the one the log shows). */
  cacheTtl?: number;
}

export interface AsHappened {
  /** Requests the agent made (each group of consecutive agent steps of the main line is one request), its subagents' included. */
  modelCalls: number;
  /** Our count of the context summed over the agent's requests. */
  totalInput: number;
  /** Tokens the agent wrote. */
  totalOutput: number;
  peak: number;
  /** The prompt cache behaviour the bill follows, and whether it came from the model, the user or the log. */
  cache: CacheBehaviour;
  /** Who chose the cache: the user, the model's provider, or the log (`log`: it shows no caching; `log-reads`: no price names the provider, and its calls read a cache). */
  cacheSource: 'model' | 'user' | 'log' | 'log-reads';
  /** How long a cached prefix lives after its last use. */
  cacheTtl: CacheLifetime;
  /** Requests that found the cache expired after an idle gap. */
  cacheExpiries: number;
  /** The run's one cost (recorded first), as every view shows it. */
  bill: RunBill;
  /** The run as billed, in the provider's tokens (calibrated when `calibration` is set). */
  totals: SideTotals;
  cost: Cost | null;
  /** How our counts were mapped onto the provider's, from the usage the log records; null when it records none. */
  calibration: Calibration | null;
  /** The run checked against the recorded calls; `source` says what the log records. */
  recorded: RecordedComparison & { source: RunBill['source'] };
  /** Steps at which the agent compacted its own context. */
  agentCompactions: number[];
  /** The subagents' requests, each branch replayed on its own model, context and cache (the same under any strategy). */
  branches: BranchesBill | undefined;
  /** What a replay under a strategy shares with this run: the same steps, requests, prices, cache and scale. */
  basis: {
    stepTokens: readonly number[];
    starts: boolean[];
    raw: RawRun;
    price: ResolvedPrice | undefined;
    timing: RequestTiming;
    /** The model the ledger bills a request as when the timing names none. */
    ledgerModel: string;
    scale: Scale;
    warmCache: number;
    /** What the log's cache reads show (the run's calibration), for every cache the run is billed with. */
    recordedReads: RecordedCacheReads;
  };
}

export function billAsHappened(trajectory: Run, o: BillingOptions): AsHappened {
  const original = trajectory.steps;
  const stepTokens = o.stepTokens ?? original.map((s) => promptTokensOf(s, o.counter));
  const starts = requestStarts(original);
  const raw = rawRun(original, stepTokens, starts);
  const calibrating = o.calibrate !== false;
  const outputs = new Map(raw.requestSteps.map((step, i) => [step, raw.outputs[i]]));
  const calibration = calibrating ? calibrate(raw.recordedCalls, countsWithOwnTokenizer(o), outputs, raw.requestSteps[0]) : null;
  const named = new Set(raw.models.filter((m): m is string => m !== undefined));
  const mixed = !o.fixedModel && named.size > 1;
  const timing: RequestTiming = mixed ? requestTiming(raw.idleMs, raw.models, trajectory, o) : { idleMs: raw.idleMs };
  // One model named by the calls themselves (the served model, where the run's config names another): its price.
  const only = !o.fixedModel && named.size === 1 ? [...named][0] : undefined;
  const own = only && only !== o.model ? priceFor(only, {}, runDate(trajectory.steps)) ?? o.price : o.price;
  const base = { ...o, price: own };
  const price = withRecordedCacheReads(calibrating && !mixed ? priceAsBilled(base, raw.recordedCalls, trajectory) : own, raw.recordedCalls);
  const uncachedInLog = !o.cache && calibrating && recordsNoCaching(raw.recordedCalls, cacheBehaviourFor(o.model, price));
  // No price, so no provider known: the recorded calls' cache reads say a cache was there, and how it was billed.
  const shownByLog = !o.cache && !price && calibrating ? cachingShownByLog(raw.recordedCalls, o.model) : undefined;
  const cache = o.cache ?? (uncachedInLog ? 'none' : shownByLog ?? cacheBehaviourFor(o.model, price));
  const warm = calibration?.warmCache ?? 0;
  const recordedReads: RecordedCacheReads = calibration ?? {};
  // Where the log records the cache serving far less (or more) than it held, the replay reads that much there.
  const recordedCache = recordedCacheTiming(calibration, raw.recordedCalls, raw.requestSteps, raw.models, cache === 'none' ? undefined : cache === 'anthropic');
  Object.assign(timing, recordedCache.timing);
  const { misses, unseenHits } = recordedCache;
  if (misses > 0) {
    calibration!.note += `; at ${misses} call${misses === 1 ? '' : 's'} the log records the cache serving far less than the previous call left in it (a prefix the client changed, or the provider's miss), and the replay reads no more than recorded there`;
  }
  if (unseenHits > 0) {
    calibration!.note += `; at ${unseenHits} call${unseenHits === 1 ? '' : 's'} the log records the cache serving far more than the previous call left in it (requests the log does not show cached it), and the replay reads that much there`;
  }
  const ledgerModel = only ?? o.model ?? '';
  const billRaw = (scale: Scale, lifetime: number) => {
    const ledger = new Ledger(price, new PromptCache(cache, o.model, warm, lifetime, recordedReads), scale, true, timing, ledgerModel);
    raw.requests.forEach((r, i) => { ledger.request(r); ledger.output(raw.outputs[i]); });
    return ledger;
  };
  let ttl = lifetimeOf(o, cache, raw.recordedCalls, trajectory);
  // Without per-call usage to fit, the hidden part of each prompt is what the log records of it, if anything.
  const uncalibrated: Scale = trajectory.meta.unshownPrompt ? { offset: trajectory.meta.unshownPrompt.tokens, ratio: 1 } : IDENTITY_SCALE;
  let ledger = billRaw(calibration ?? uncalibrated, ttl.seconds);
  if (calibration && ttl.source === 'default' && cache !== 'none' && timing.idleMs.some((ms) => ms !== undefined && ms > LIFETIME_CANDIDATES[0] * 1000)) {
    // Where the log records cached tokens per call, the lifetime whose hits match them best.
    const miss = (l: Ledger) => cacheMiss(raw.recordedCalls, raw.requestSteps, l.cachedTokens);
    let best = miss(ledger);
    for (const seconds of LIFETIME_CANDIDATES) {
      if (seconds === ttl.seconds || best === undefined) continue;
      const tried = billRaw(calibration, seconds);
      const m = miss(tried);
      if (m !== undefined && m < best * 0.98) { best = m; ledger = tried; ttl = { seconds, source: 'calibrated', words: `${lifetimeWords(seconds)}, the lifetime whose cache hits match the cached tokens the log records per call` }; }
    }
  }
  if (calibration && cache === 'gemini') {
    // Gemini's implicit cache is best effort: it serves what the log shows it served.
    const hit = measuredHitRate(raw.recordedCalls, raw.requestSteps, ledger.cachedTokens);
    if (hit !== undefined && hit < 1) {
      calibration.cacheHitRate = hit;
      calibration.note += `; Gemini's implicit cache served ${(hit * 100).toFixed(0)}% of the prefix it could have, so both runs assume that share`;
      ledger = billRaw(calibration, ttl.seconds);
    }
  }

  if (calibration && ledger.warmAfterReset > 0) {
    calibration.note += `; after ${ledger.warmAfterReset} idle gap${ledger.warmAfterReset === 1 ? '' : 's'} or model switch${ledger.warmAfterReset === 1 ? '' : 'es'} the log records the cache still serving part of the prompt (kept warm by requests it does not show, as a client's shared system prompt and tools are), and the replay reads that much there; a replay under a strategy reads it within the system prompt`;
  }
  const scale = calibration ?? uncalibrated;
  // Subagents: each branch on its own model, context and cache, the same in both runs.
  const branches = replayBranches(original, stepTokens, {
    model: o.model, price, fixedModel: o.fixedModel === true, cache: o.cache ?? (uncachedInLog ? 'none' : undefined),
    lifetimeSeconds: ttl.seconds, mainScale: scale, ownTokenizer: countsWithOwnTokenizer(o), calibrating,
  });
  const totals = branches ? addSides(ledger.totals(), branches.totals) : ledger.totals();
  const mainCost = ledger.costBreakdown();
  const cost = branches ? (mainCost && branches.cost ? addCosts(mainCost, branches.cost) : null) : mainCost;
  // Totals that stop early split the requests at their end; per-call usage splits them by which record usage.
  const usage = trajectory.meta.recordedPart ? coveredShare(trajectory, raw, ledger, totals.cost, branches) ?? {} : recordedShare(raw, ledger, totals.cost, branches);
  const comparison = compareWithRecorded(raw.recordedCalls, raw.requestSteps, ledger.prompts, cost ? ledger.requestCosts : null, (i) => timing.prices?.[i] ?? price, ledger.cachedTokens);
  const bill = runCost(trajectory, {
    ...(o.fixedModel && o.model ? { model: o.model } : {}),
    ...(o.fixedModel && o.price?.source === 'settings' ? { price: o.price } : {}),
    modelled: {
      cost: totals.cost, byModel: totals.byModel,
      basis: price?.source.startsWith('the rates the log') ? 'log rates' : 'price table',
      cachedShare: totals.input > 0 ? totals.cachedInput / totals.input : undefined,
      writeShare: totals.input > 0 ? totals.cacheWrite / totals.input : undefined,
      reasons: differenceReasons(raw, ledger.expiries, ttl, calibration, branches, cache, totals.cachedInput),
      ...usage,
      ...(totals.cost === null ? { unknown: unpricedModel(totals, o.model) } : {}),
    },
  });
  return {
    modelCalls: raw.requests.length + (branches?.requests ?? 0),
    totalInput: raw.requests.reduce((n, r) => n + r.context, 0),
    totalOutput: raw.outputs.reduce((a, b) => a + b, 0),
    peak: max(raw.series),
    cache,
    cacheSource: o.cache ? 'user' : uncachedInLog ? 'log' : shownByLog ? 'log-reads' : 'model',
    cacheTtl: ttl,
    cacheExpiries: ledger.expiries,
    bill,
    totals,
    cost,
    calibration,
    recorded: { ...comparison, source: bill.source },
    agentCompactions: raw.agentCompactions,
    branches,
    basis: { stepTokens, starts, raw, price, timing, ledgerModel, scale, warmCache: warm, recordedReads },
  };
}

/** The largest value, 0 for none: the peak of a context series. */
export function max(values: readonly number[]): number {
  let m = 0;
  for (const v of values) if (v > m) m = v;
  return m;
}

/**
 * The cache the recorded calls show when no price names the model's provider: Anthropic's rules
 * where they record cache writes, else the model family's (promptCache.ts, providerCache); none
 * shown, undefined.
 */
function cachingShownByLog(calls: readonly RecordedCall[], model: string | undefined): CacheBehaviour | undefined {
  const writes = calls.some((c) => (c.usage.cacheWriteTokens ?? 0) > 0);
  if (!writes && !calls.some((c) => (c.usage.cachedInputTokens ?? 0) > 0)) return undefined;
  return writes ? 'anthropic' : providerCache(model);
}

/**
 * Whether the recorded calls show the provider cached nothing: Anthropic caches only where the agent
 * sets breakpoints, so calls that record no cache read or write at all ran without them (Aider
 * without --cache-prompts); an automatic cache that records 0 cached tokens on every long prompt
 * served none.
 */
function recordsNoCaching(calls: readonly RecordedCall[], behaviour: CacheBehaviour): boolean {
  const priced = calls.filter((c) => (c.usage.inputTokens ?? 0) > 0);
  if (priced.length === 0 || priced.some((c) => (c.usage.cachedInputTokens ?? 0) + (c.usage.cacheWriteTokens ?? 0) > 0)) return false;
  if (behaviour === 'anthropic') return true;
  if (behaviour === 'openai' || behaviour === 'gemini') {
    return priced.every((c) => c.usage.cachedInputTokens !== undefined) && priced.filter((c) => c.usage.inputTokens! >= 4096).length >= 2;
  }
  return false;
}

/** Each request's idle gap, model and price (the log's per-call model unless the user fixed one). */
function requestTiming(idleMs: (number | undefined)[], models: (string | undefined)[], trajectory: Run, o: BillingOptions): RequestTiming {
  if (o.fixedModel) return { idleMs };
  const at = runDate(trajectory.steps);
  const prices = new Map<string, ResolvedPrice | undefined>();
  const priceOf = (m: string | undefined) => {
    if (!m || m === o.model) return o.price;
    if (!prices.has(m)) prices.set(m, priceFor(m, {}, at));
    return prices.get(m);
  };
  const named = models.map((m) => m ?? o.model);
  return { idleMs, models: named, prices: named.map(priceOf) };
}

/** The lifetime the bill uses: the user's; Anthropic's 1 hour where the log records 1-hour writes; else the provider's. */
function lifetimeOf(o: BillingOptions, cache: CacheBehaviour, calls: readonly RecordedCall[], trajectory: Run): CacheLifetime {
  if (o.cacheTtl !== undefined) return { seconds: o.cacheTtl, source: 'user', words: `${lifetimeWords(o.cacheTtl)}, as you set` };
  const retention = typeof trajectory.meta.promptCacheRetention === 'string' ? trajectory.meta.promptCacheRetention : undefined;
  const from = typeof trajectory.meta.promptCacheRetentionFrom === 'string' ? trajectory.meta.promptCacheRetentionFrom : 'the log';
  if (cache === 'anthropic' && (retention === '1h' || calls.some((c) => (c.usage.cacheWrite1hTokens ?? 0) > 0))) {
    return { seconds: 3600, source: 'log', words: `1 hour, refreshed on each hit (stated by ${retention === '1h' ? from : 'the log\'s 1-hour cache writes'}; 1-hour writes are billed at 2× input)` };
  }
  if (cache === 'anthropic' && retention === '5m') return { seconds: 300, source: 'log', words: `5 minutes, refreshed on each hit (stated by ${from})` };
  return defaultLifetime(cache, o.model, retention);
}

/** Σ |modelled − recorded| cached tokens over the recorded calls; undefined when none records them. */
function cacheMiss(calls: readonly RecordedCall[], requestSteps: readonly number[], modelledCached: readonly number[]): number | undefined {
  const index = new Map(requestSteps.map((step, i) => [step, i]));
  let miss = 0, any = false;
  for (const c of calls) {
    const i = index.get(c.step);
    if (i === undefined || c.usage.cachedInputTokens === undefined) continue;
    miss += Math.abs(modelledCached[i] - c.usage.cachedInputTokens);
    any = true;
  }
  return any ? miss : undefined;
}

/** What makes the modelled bill of the run as it happened differ from the recorded one. */
function differenceReasons(raw: RawRun, expiries: number, ttl: CacheLifetime, calibration: Calibration | null, branches: BranchesBill | undefined, cache: CacheBehaviour, modelledReads: number): string[] {
  const reasons: string[] = [];
  if ((cache === 'openai' || cache === 'gemini') && modelledReads > 0 && raw.recordedCalls.length > 0 && raw.recordedCalls.every((c) => c.usage.cachedInputTokens === undefined)) {
    // Aider, for one, reports cache hits for Anthropic and DeepSeek models only.
    reasons.push('the log records no cached tokens for its calls (the harness does not report cache hits), so its usage is priced with every input token at the full rate, where the provider\'s automatic cache serves part of each prompt');
  }
  if (expiries > 0) reasons.push(`the cache expired ${expiries} time${expiries === 1 ? '' : 's'} after idle gaps longer than ${lifetimeWords(ttl.seconds)}`);
  if (raw.sideBranchSteps > 0 && !branches) reasons.push(`${raw.sideBranchSteps} subagent steps are billed in the record but left out of the replay`);
  if (calibration && /more than a tokenizer difference/.test(calibration.note)) reasons.push('the log leaves out part of what each call sent');
  const shrank = raw.recordedCalls.filter((c, i) => i > 0 && !c.afterCompaction && (c.usage.inputTokens ?? 0) > 0 && c.usage.inputTokens! < 0.5 * (raw.recordedCalls[i - 1].usage.inputTokens ?? 0));
  if (shrank.length > 0) {
    const at = shrank.map((c) => { const before = raw.recordedCalls[raw.recordedCalls.indexOf(c) - 1]; return `${fmtTokens(before.usage.inputTokens!)} at step ${before.step} → ${fmtTokens(c.usage.inputTokens!)} at step ${c.step}`; });
    reasons.push(`the recorded prompt falls by more than half from one call to the next with no compaction in the log (${at.join('; ')}): those calls carried context, or other requests' usage, that the log does not show`);
  }
  const grew = hiddenGrowth(raw.recordedCalls, calibration?.ratio ?? 1);
  if (grew.length > 0) {
    const at = grew.slice(0, 2).map((g) => `${fmtTokens(g.recorded)} tokens from step ${g.from} to step ${g.to}, where the log shows ${fmtTokens(g.shown)} added`);
    reasons.push(`the recorded prompt grows by ${at.join('; by ')}${grew.length > 2 ? ` (and at ${grew.length - 2} more calls)` : ''}: those calls carried context the log does not show (reasoning kept encrypted, output or attachments it leaves out, or lines cut from the log)`);
  }
  return reasons;
}

/** Consecutive recorded calls whose prompt grows far more than what the log shows was added between them, the largest first. */
function hiddenGrowth(calls: readonly RecordedCall[], ratio: number): { from: number; to: number; recorded: number; shown: number }[] {
  const out: { from: number; to: number; recorded: number; shown: number }[] = [];
  for (let i = 1; i < calls.length; i++) {
    const a = calls[i - 1], b = calls[i];
    if (b.afterCompaction || !a.usage.inputTokens || !b.usage.inputTokens) continue;
    const recorded = b.usage.inputTokens - a.usage.inputTokens;
    const shown = Math.max(0, ratio * (b.context - a.context));
    if (recorded - shown > Math.max(2000, 0.1 * a.usage.inputTokens) && recorded > 2 * shown) out.push({ from: a.step, to: b.step, recorded, shown: Math.round(shown) });
  }
  return out.sort((x, y) => (y.recorded - y.shown) - (x.recorded - x.shown));
}

/**
 * Requests the replay finds that the log records no usage for, and the modelled cost of just the
 * requests it does record (main line and subagents): the bill compares like with like.
 */
function recordedShare(raw: RawRun, ledger: Ledger, modelled: number | null, branches: BranchesBill | undefined): { unrecorded?: { requests: number; of: number; cost: number | null }; modelledRecorded?: number; modelledRecordedTokens?: BillTokens } {
  const recordedCalls = raw.recordedCalls.length + (branches?.recordedRequests ?? 0);
  const requests = raw.requests.length + (branches?.requests ?? 0);
  if (recordedCalls === 0 || recordedCalls === requests || modelled === null) return {};
  const main = ledger.recordedPart(raw);
  const tokens = branches ? addTokens(main.tokens, branches.modelledRecordedTokens) : main.tokens;
  const part = branches ? (branches.modelledRecordedCost === null ? null : main.cost + branches.modelledRecordedCost) : main.cost;
  if (part === null) return {};
  return { unrecorded: { requests: requests - recordedCalls, of: requests, cost: modelled - part }, modelledRecorded: part, modelledRecordedTokens: tokens };
}

/**
 * Where the log's totals stop before the run does (`meta.recordedPart`: a Copilot session resumed
 * after its last shutdown), the requests after them are the unrecorded ones, and the modelled cost
 * of those before them is what the totals compare with. Main line only: with subagent branches the
 * split is not made.
 */
function coveredShare(t: Run, raw: RawRun, ledger: Ledger, modelled: number | null, branches: BranchesBill | undefined): ReturnType<typeof recordedShare> | undefined {
  const covered = t.meta.recordedPart?.steps;
  if (covered === undefined || modelled === null || branches) return undefined;
  const part = ledger.requestsWhere(raw.requestSteps, (step) => step < covered);
  const after = raw.requestSteps.length - part.requests;
  if (after === 0) return undefined;
  return { unrecorded: { requests: after, of: raw.requestSteps.length, cost: modelled - part.cost }, modelledRecorded: part.cost, modelledRecordedTokens: part.tokens };
}

/** "no price for MODEL": the first model of the modelled bill without a price. */
function unpricedModel(totals: SideTotals, model: string | undefined): string {
  const missing = totals.byModel?.find((m) => m.cost === null)?.model || model;
  return missing ? `no price for ${missing}` : 'no model named to price (use --model or --price)';
}

function fmtTokens(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** Cached tokens the log records over those our model finds cacheable, on the same calls. */
function measuredHitRate(calls: readonly RecordedCall[], requestSteps: readonly number[], modelledCached: readonly number[]): number | undefined {
  const index = new Map(requestSteps.map((step, i) => [step, i]));
  let recorded = 0, modelled = 0;
  for (const c of calls) {
    const i = index.get(c.step);
    if (i === undefined || c.usage.cachedInputTokens === undefined) continue;
    recorded += c.usage.cachedInputTokens;
    modelled += modelledCached[i];
  }
  return modelled > 0 ? recorded / modelled : undefined;
}

/**
 * The price the bill uses: the user's override; else, where the log records each call's cost,
 * the rates it was billed at (a harness may price otherwise than the database); else the database's.
 */
function priceAsBilled(o: BillingOptions, calls: Parameters<typeof fitLogRates>[0], trajectory: Run): ResolvedPrice | undefined {
  if (o.price?.source === 'settings') return o.price;
  const rates = fitLogRates(calls);
  if (!rates) return o.price;
  // Rates the database already has (within 2%) are cited from the database.
  const near = (a: number | undefined, b: number | undefined) => a === undefined || (b !== undefined && Math.abs(a - b) <= 0.02 * Math.max(a, b));
  if (o.price && near(rates.input, o.price.input) && near(rates.output, o.price.output) && near(rates.cachedInput, o.price.cachedInput) && near(rates.cacheWrite, o.price.cacheWrite)) return o.price;
  const asOf = (runDate(trajectory.steps) ?? new Date()).toISOString().slice(0, 10);
  const fitted: ResolvedPrice = {
    input: round(rates.input), output: round(rates.output), matched: o.price?.matched ?? o.model ?? 'the log\'s model', asOf,
    source: `the rates the log was billed at (fitted on the cost of ${rates.calls} calls)`,
  };
  if (o.price?.provider) fitted.provider = o.price.provider;
  if (rates.cachedInput !== undefined) fitted.cachedInput = round(rates.cachedInput);
  if (rates.cacheWrite !== undefined) fitted.cacheWrite = round(rates.cacheWrite);
  return fitted;
}

/**
 * A price without a cache-read rate for a model the log records reading from the cache (Gemini 3
 * Pro Image's row has none): the provider cached, so the run is billed with its cache, and the reads
 * at the input price, which is what they cost at most.
 */
function withRecordedCacheReads(price: ResolvedPrice | undefined, calls: readonly RecordedCall[]): ResolvedPrice | undefined {
  if (!price || price.cachedInput !== undefined || price.source === 'settings') return price;
  if (!calls.some((c) => (c.usage.cachedInputTokens ?? 0) > 0)) return price;
  return { ...price, cachedInput: price.input, cachedInputAssumed: true };
}

/** Four significant digits: a fitted rate of 0.27999999 is the list price of 0.28. */
function round(x: number): number {
  return Number(x.toPrecision(4));
}

/** Whether our counts use the priced model's own tokenizer (else a stand-in, calibrated by a ratio). */
function countsWithOwnTokenizer(o: BillingOptions): boolean {
  if (!o.model) return !o.counter.approximate;
  const own = tokenizerFor(o.model);
  return !own.approximate && own.encoding === o.counter.tokenizer;
}

