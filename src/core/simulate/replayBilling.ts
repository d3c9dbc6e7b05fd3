// What the replayed requests cost, one request at a time, as the provider bills them: the prompt
// cache decides which input tokens are read from it, written to it or sent in full, and each
// request pays the rates of its own prompt size (long-context tiers).

import { ratesFor, type Cost, type ResolvedPrice } from '../models';
import { PromptCache } from '../pricing/promptCache';
import type { BillTokens, ModelBill } from '../pricing/runCost';
import { REPLY_PRIMING } from '../tokens';

/** How our counts map onto what the provider counts: prompt = offset + ratio × our tokens. */
export interface Scale {
  /** Tokens the model reads on every request that the log does not hold (system prompt, tool definitions). */
  offset: number;
  /** The provider's tokens per token of ours (1 where our tokenizer is the model's own). */
  ratio: number;
  /** The same for what the model writes, where the log records it (thinking the log leaves out); default `ratio`. */
  outputRatio?: number;
  /** Share of the cacheable prefix a best-effort cache (Gemini's implicit one) really served, as the log shows; default 1. */
  cacheHitRate?: number;
}

export const IDENTITY_SCALE: Scale = { offset: 0, ratio: 1 };

/** One side of the run (without or with compaction), as billed. Token figures are the provider's. */
export interface SideTotals {
  /** Model requests: the agent's, plus the strategy's summary requests on the compacted side. */
  requests: number;
  /** All input tokens: uncached + cached + written. */
  input: number;
  uncachedInput: number;
  cachedInput: number;
  cacheWrite: number;
  output: number;
  /** USD, or null when the model's price (or a cache rate it needs) is unknown. */
  cost: number | null;
  /** The same bill per model, where the run's calls ran on their own models (set on the uncompacted side). */
  byModel?: ModelBill[];
}

/** What the ledger knows of each agent request beyond its tokens, in request order. */
export interface RequestTiming {
  /** Milliseconds since the previous request's reply (undefined where the log has no timestamps). */
  idleMs: (number | undefined)[];
  /** The model each request ran on, and its price; undefined entries use the ledger's own. */
  models?: (string | undefined)[];
  prices?: (ResolvedPrice | undefined)[];
  /** Where the log records the provider serving far less from its cache than it held: at most this many tokens read (`recordedCacheMisses`). */
  cachedAtMost?: (number | undefined)[];
  /** Where the log records a read far above what the previous request left (requests it does not show cached it): at least this many tokens read. */
  cachedAtLeast?: (number | undefined)[];
  /** Provider tokens of context the log does not show that each request carries (`Calibration.unshown`), beyond the scale's offset. */
  unshown?: number[];
  /** The cache read the log records at each request, for one that follows a reset of the cache (`CacheRequest.servedAfterReset`). */
  recordedReads?: (number | undefined)[];
}

/** A request the agent makes, in our tokens. */
export interface AgentRequest {
  context: number;
  /** Tokens at the start of the context unchanged since the previous request. */
  unchanged: number;
  /** Tokens of the system prompt at the start of the context. */
  system: number;
  blocks: number;
  unchangedBlocks: number;
}

export class Ledger {
  private readonly cache: PromptCache;
  private readonly t = { requests: 0, input: 0, uncachedInput: 0, cachedInput: 0, cacheWrite: 0, output: 0 };
  private readonly dollars = { input: 0, cachedInput: 0, cacheWrite: 0, output: 0 };
  private unknownRate = false;
  /** Output waiting for its request's rates: agent steps come after the request that produced them. */
  private pendingOutput = 0;
  private pendingPrompt = 0;
  /** The provider's prompt size and the cost of each agent request, in order (kept for the run as logged). */
  readonly prompts: number[] = [];
  readonly requestCosts: number[] = [];
  readonly cachedTokens: number[] = [];
  readonly writtenTokens: number[] = [];
  readonly outputTokens: number[] = [];

  /** Agent requests billed so far: the index into `timing`. */
  private agentRequests = 0;
  private pendingPrice: ResolvedPrice | undefined;
  private pendingModel = '';
  private readonly models = new Map<string, ModelBill>();
  /** The latest price used: for the day the bill's prices are of. */
  private priced: ResolvedPrice | undefined;

  /**
   * `asLogged`: the run as it happened. Its ledger keeps each request's figures for the comparison
   * with the record, and takes whole a read the log records after a reset of the cache; a replay
   * under a strategy takes that read only within the system prefix, the part no compaction changes.
   */
  constructor(private readonly price: ResolvedPrice | undefined, cache: PromptCache, private readonly scale: Scale, private readonly asLogged = false, private readonly timing?: RequestTiming, private readonly mainModel = '') {
    this.cache = cache;
  }

  /** Requests after a reset of the cache that the log records still reading from it, so far. */
  get warmAfterReset(): number {
    return this.cache.warmAfterReset;
  }

  /** Cache expiries after idle gaps longer than the lifetime, so far. */
  get expiries(): number {
    return this.cache.expiries;
  }

  private row(model: string, price: ResolvedPrice | undefined): ModelBill {
    let row = this.models.get(model);
    if (!row) {
      this.models.set(model, (row = { model, calls: 0, input: 0, cachedInput: 0, cacheWrite: 0, output: 0, cost: price ? 0 : null }));
      if (price) { row.priceRow = price.matched; row.pricesAsOf = price.asOf; }
    }
    return row;
  }

  request(r: AgentRequest): void {
    this.flushOutput();
    const k = this.agentRequests++;
    const model = this.timing?.models?.[k] ?? this.mainModel;
    const price = this.timing?.prices?.[k] ?? this.price;
    // Another model does not read this model's cache: a switch starts from nothing.
    const switched = k > 0 && (this.timing?.models?.[k - 1] ?? this.mainModel) !== model;
    const idleMs = switched ? Infinity : this.timing?.idleMs[k];
    const cachedAtMost = this.timing?.cachedAtMost?.[k];
    const cachedAtLeast = this.timing?.cachedAtLeast?.[k];
    const s = this.scale;
    // Context the log does not show, new at this request where it grew: after the prefix the previous one had.
    const unshown = this.timing?.unshown?.[k] ?? 0;
    const unshownBefore = k > 0 ? Math.min(unshown, this.timing?.unshown?.[k - 1] ?? 0) : unshown;
    const prompt = Math.max(0, s.offset + unshown + s.ratio * (r.context + REPLY_PRIMING));
    const lastMessageEnd = Math.max(0, s.offset + unshown + s.ratio * r.context);
    const system = s.offset + s.ratio * r.system;
    const recordedRead = this.timing?.recordedReads?.[k];
    const billed = this.cache.bill({
      prompt,
      lastMessageEnd,
      unchanged: s.offset + unshownBefore + s.ratio * r.unchanged,
      system,
      ...(recordedRead !== undefined ? { servedAfterReset: recordedRead, warmBound: this.asLogged ? lastMessageEnd : system } : {}),
      blocks: r.blocks,
      unchangedBlocks: r.unchangedBlocks,
      ...(idleMs !== undefined ? { idleMs } : {}),
      ...(cachedAtMost !== undefined ? { cachedAtMost } : {}),
      ...(cachedAtLeast !== undefined ? { cachedAtLeast } : {}),
    });
    const hit = s.cacheHitRate ?? 1;
    const bill = hit === 1 ? billed : { ...billed, cached: billed.cached * hit, uncached: billed.uncached + billed.cached * (1 - hit) };
    this.t.requests++;
    this.t.input += prompt;
    this.t.uncachedInput += bill.uncached;
    this.t.cachedInput += bill.cached;
    this.t.cacheWrite += bill.written;
    if (this.asLogged) { this.prompts.push(prompt); this.cachedTokens.push(bill.cached); this.writtenTokens.push(bill.written); this.outputTokens.push(0); }
    this.pendingPrompt = prompt;
    this.pendingPrice = price;
    this.pendingModel = model;
    const row = this.row(model, price);
    row.calls++; row.input += prompt; row.cachedInput += bill.cached; row.cacheWrite += bill.written;
    if (!price) { this.unknownRate = true; return; }
    this.priced = price;
    const rates = ratesFor(price, prompt);
    const uncached = (bill.uncached * rates.input) / 1e6;
    let cached = 0, written = 0;
    if (bill.cached > 0) {
      if (rates.cachedInput === undefined) this.unknownRate = true;
      cached = (bill.cached * (rates.cachedInput ?? rates.input)) / 1e6;
    }
    if (bill.written > 0) {
      if (rates.cacheWrite === undefined) this.unknownRate = true;
      // Anthropic's 1-hour writes cost 2× input, its 5-minute ones the listed write price (1.25×).
      const writeRate = this.cache.behaviour === 'anthropic' && this.cache.lifetimeSeconds >= 3600 ? 2 * rates.input : rates.cacheWrite ?? rates.input;
      written = (bill.written * writeRate) / 1e6;
    }
    if (row.cost !== null) row.cost += uncached + cached + written;
    this.dollars.input += uncached;
    this.dollars.cachedInput += cached;
    this.dollars.cacheWrite += written;
    if (this.asLogged) this.requestCosts.push(uncached + cached + written);
  }

  /** Tokens the agent wrote in its latest request. */
  output(tokens: number): void {
    this.pendingOutput += (this.scale.outputRatio ?? this.scale.ratio) * tokens;
  }

  /** The strategy's own summary requests: fresh prompts, nothing cached. */
  summary(requests: number, input: number, output: number): void {
    if (requests <= 0) return;
    const s = this.scale.ratio;
    const written = (this.scale.outputRatio ?? s) * output;
    this.t.requests += requests;
    this.t.input += s * input;
    this.t.uncachedInput += s * input;
    this.t.output += written;
    if (!this.price) return;
    const rates = ratesFor(this.price, (s * input) / requests);
    this.dollars.input += (s * input * rates.input) / 1e6;
    this.dollars.output += (written * rates.output) / 1e6;
  }

  private flushOutput(): void {
    if (this.pendingOutput === 0) return;
    this.cache.output(this.pendingOutput);
    this.t.output += this.pendingOutput;
    if (this.asLogged && this.outputTokens.length > 0) this.outputTokens[this.outputTokens.length - 1] += this.pendingOutput;
    const row = this.models.get(this.pendingModel);
    if (row) row.output += this.pendingOutput;
    const price = this.pendingPrice ?? this.price;
    if (price) {
      const dollars = (this.pendingOutput * ratesFor(price, this.pendingPrompt).output) / 1e6;
      if (row && row.cost !== null) row.cost += dollars;
      this.dollars.output += dollars;
      if (this.asLogged && this.requestCosts.length > 0) this.requestCosts[this.requestCosts.length - 1] += dollars;
    }
    this.pendingOutput = 0;
  }

  /**
   * The replay of just the requests whose usage the log records (kept prompts only): their cost and
   * the provider's tokens, so the bill compares like with like. `requestSteps[i]` is request i's step.
   */
  recordedPart(run: { requestSteps: readonly number[]; recordedCalls: readonly { step: number }[] }): { requests: number; cost: number; tokens: BillTokens } {
    const withUsage = new Set(run.recordedCalls.map((c) => c.step));
    return { ...this.requestsWhere(run.requestSteps, (step) => withUsage.has(step)), requests: withUsage.size };
  }

  /** The replay of the requests whose step passes `include`: how many, their cost and tokens. */
  requestsWhere(requestSteps: readonly number[], include: (step: number) => boolean): { requests: number; cost: number; tokens: BillTokens } {
    this.flushOutput();
    const tokens = { input: 0, cachedInput: 0, cacheWrite: 0, output: 0 };
    let cost = 0;
    let requests = 0;
    requestSteps.forEach((step, i) => {
      if (!include(step)) return;
      requests++;
      cost += this.requestCosts[i] ?? 0;
      tokens.input += this.prompts[i] ?? 0; tokens.cachedInput += this.cachedTokens[i] ?? 0;
      tokens.cacheWrite += this.writtenTokens[i] ?? 0; tokens.output += this.outputTokens[i] ?? 0;
    });
    return { requests, cost, tokens };
  }

  totals(): SideTotals {
    this.flushOutput();
    const d = this.dollars;
    const cost = !(this.price ?? this.priced) || this.unknownRate ? null : d.input + d.cachedInput + d.cacheWrite + d.output;
    return { ...this.t, cost, byModel: [...this.models.values()].sort((a, b) => (b.cost ?? 0) - (a.cost ?? 0)) };
  }

  /** The dollars by kind, for the report's cost breakdown (null as in `totals`). */
  costBreakdown(): Cost | null {
    const total = this.totals().cost;
    const price = this.price ?? this.priced;
    if (total === null || !price) return null;
    // pricesAsOf: the main model's day; per-model rows carry their own.
    const d = this.dollars;
    return { currency: 'USD', input: d.input, cachedInput: d.cachedInput, cacheWrite: d.cacheWrite, output: d.output, total, pricesAsOf: price.asOf };
  }
}
