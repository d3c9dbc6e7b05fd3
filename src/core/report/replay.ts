// "The whole run under a policy": replays a trajectory step by step as if the agent had used a
// strategy all along, beside the run as it really happened, and prices both the way the provider
// bills them. No model is called: a summary's size is the forgotten tokens times a ratio,
// measured from a real run or set by the user. What is modelled, and how, is listed in `notes`.

import type { CompactionResult, Strategy, StrategyOptions } from '../compaction/types';
import type { Trajectory } from '../model';
import { runDate, type Cost, type ResolvedPrice } from '../pricing/prices';
import { cacheBehaviourFor, PromptCache, type CacheBehaviour } from '../pricing/promptCache';
import { contextTextOf } from '../compaction/text';
import type { TokenCounter } from '../tokens/counter';
import { tokenizerFor } from '../tokens/models';
import { calibrate, compareWithRecorded, fitLogRates, type Calibration, type RecordedCall, type RecordedComparison } from './calibration';
import { IDENTITY_SCALE, Ledger, type Scale, type SideTotals } from './replayBilling';
import { compactedRun, type ReplayEvent } from './replayCompacted';
import { effectOf, ratioOf, Sizes, type ReplayEffect } from './replayEffect';
import { rawRun, requestStarts } from './replayRaw';

export { DEFAULT_SUMMARY_RATIO, measuredSummaryRatio, type ReplayEffect } from './replayEffect';
export type { ReplayEvent } from './replayCompacted';
export type { SideTotals } from './replayBilling';
export type { Calibration, RecordedComparison } from './calibration';

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
  /** How the provider caches prompts; by default the model's provider's behaviour. */
  cache?: CacheBehaviour;
  /** Count the re-asks a strategy makes when a reply fails its checks (budget-schema). */
  modelFailures?: boolean;
  /** Calibrate prompt sizes on the usage the log records (default true). */
  calibrate?: boolean;
}

export interface ReplayPoint {
  step: number;
  /** Context after this step without compaction (the agent's own compactions applied). */
  tokensRaw: number;
  /** Context after this step with the strategy applied whenever its trigger fired. */
  tokensCompacted: number;
}

export interface ReplayCost {
  model: string;
  pricesAsOf: string;
  /** Where the prices come from (the database and its version, or settings). */
  priceSource: string;
  raw: Cost;
  compacted: Cost;
  /** raw.total − compacted.total; negative when compaction costs more than it saves. */
  saved: number;
}

export interface ReplayResult {
  strategy: string;
  label: string;
  /** When it compacts, as a clause that follows "it compacts": "whenever the history holds more than 100 events (max_size)". */
  trigger: string;
  effect: ReplayEffect;
  summaryRatio: number;
  ratioSource: 'run' | 'user' | 'default';
  steps: number;
  series: ReplayPoint[];
  events: ReplayEvent[];
  /** Requests the agent made (each group of consecutive agent steps of the main line is one request). */
  modelCalls: number;
  /** Requests over the compacted run: the agent's plus the strategy's summary requests. */
  requests: number;
  /** Our count of the context summed over the agent's requests, without and with compaction. */
  totalInputRaw: number;
  totalInputCompacted: number;
  /** Tokens the agent wrote (same both ways). */
  totalOutput: number;
  summaryCalls: number;
  summaryInputTokens: number;
  summaryOutputTokens: number;
  peakRaw: number;
  peakCompacted: number;
  /** The prompt cache behaviour the bill follows, and whether it came from the model or the user. */
  cache: CacheBehaviour;
  cacheSource: 'model' | 'user';
  /** Both runs as billed, in the provider's tokens (calibrated when `calibration` is set). */
  totals: { raw: SideTotals; compacted: SideTotals };
  cost: ReplayCost | null;
  /** How our counts were mapped onto the provider's, from the usage the log records; null when it records none. */
  calibration: Calibration | null;
  /** The uncompacted run checked against the recorded calls; null when the log records no usage per call. */
  recorded: RecordedComparison | null;
  /** Steps at which the agent compacted its own context (shown on the no-compaction curve). */
  agentCompactions: number[];
  /** What is modelled and how, in sentences, for the report and the CLI. */
  notes: string[];
}

export function replay(trajectory: Trajectory, o: ReplayOptions): ReplayResult {
  const sizes = new Sizes(o.counter);
  const original = trajectory.steps;
  const stepTokens = o.stepTokens ?? original.map((s) => o.counter.count(contextTextOf(s)));
  const effect = effectOf(o, sizes);
  const { ratio, source } = ratioOf(o);
  const maxSize = typeof o.options.max_size === 'number' ? o.options.max_size : undefined;
  const starts = requestStarts(original);

  // The run as it happened, calibrated on what the log recorded.
  const raw = rawRun(original, stepTokens, starts);
  const calibrating = o.calibrate !== false;
  const outputs = new Map(raw.requestSteps.map((step, i) => [step, raw.outputs[i]]));
  const calibration = calibrating ? calibrate(raw.recordedCalls, countsWithOwnTokenizer(o), outputs, raw.requestSteps[0]) : null;
  const price = calibrating ? priceAsBilled(o, raw.recordedCalls, trajectory) : o.price;
  const cache = o.cache ?? cacheBehaviourFor(o.model, price);
  const warm = calibration?.warmCache ?? 0;
  const billRaw = (scale: Scale) => {
    const ledger = new Ledger(price, new PromptCache(cache, o.model, warm), scale, true);
    raw.requests.forEach((r, i) => { ledger.request(r); ledger.output(raw.outputs[i]); });
    return ledger;
  };
  let rawLedger = billRaw(calibration ?? IDENTITY_SCALE);
  if (calibration && cache === 'gemini') {
    // Gemini's implicit cache is best effort: it serves what the log shows it served.
    const hit = measuredHitRate(raw.recordedCalls, raw.requestSteps, rawLedger.cachedTokens);
    if (hit !== undefined && hit < 1) {
      calibration.cacheHitRate = hit;
      calibration.note += `; Gemini's implicit cache served ${(hit * 100).toFixed(0)}% of the prefix it could have, so both runs assume that share`;
      rawLedger = billRaw(calibration);
    }
  }
  const scale = calibration ?? IDENTITY_SCALE;

  // The run under the strategy.
  const ledger = new Ledger(price, new PromptCache(cache, o.model, warm), scale);
  const run = compactedRun({
    trajectory, strategy: o.strategy, options: o.options, stepTokens, starts, effect, ratio, sizes,
    tokenBudget: o.tokenBudget, maxSize, modelFailures: o.modelFailures,
    onRequest: (r) => ledger.request(r), onOutput: (n) => ledger.output(n), onSummary: (n, i, out) => ledger.summary(n, i, out),
  });

  const rawTotals = rawLedger.totals();
  const compactedTotals = ledger.totals();
  const rawCost = rawLedger.costBreakdown();
  const compactedCost = ledger.costBreakdown();
  const cost: ReplayCost | null = price && rawCost && compactedCost
    ? { model: o.model ?? price.matched, pricesAsOf: price.asOf, priceSource: price.source, raw: rawCost, compacted: compactedCost, saved: rawCost.total - compactedCost.total }
    : null;
  const recorded = raw.recordedCalls.length > 0
    ? compareWithRecorded(raw.recordedCalls, raw.requestSteps, rawLedger.prompts, rawCost ? rawLedger.requestCosts : null, price)
    : null;
  const series = raw.series.map((tokensRaw, step) => ({ step, tokensRaw, tokensCompacted: run.series[step] }));
  const summaryCalls = run.events.reduce((n, e) => n + e.requests, 0);
  const result: ReplayResult = {
    strategy: o.strategy.id,
    label: o.strategy.label,
    trigger: describeTrigger(o, maxSize),
    effect: effect.kind,
    summaryRatio: ratio,
    ratioSource: source,
    steps: original.length,
    series,
    events: run.events,
    modelCalls: raw.requests.length,
    requests: compactedTotals.requests,
    totalInputRaw: raw.requests.reduce((n, r) => n + r.context, 0),
    totalInputCompacted: run.totalInput,
    totalOutput: raw.outputs.reduce((a, b) => a + b, 0),
    summaryCalls,
    summaryInputTokens: run.summaryInputTokens,
    summaryOutputTokens: run.summaryOutputTokens,
    peakRaw: max(raw.series),
    peakCompacted: max(run.series),
    cache,
    cacheSource: o.cache ? 'user' : 'model',
    totals: { raw: rawTotals, compacted: compactedTotals },
    cost,
    calibration,
    recorded,
    agentCompactions: raw.agentCompactions,
    notes: [],
  };
  result.notes = notesOf(result, o, raw.sideBranchSteps, price);
  return result;
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
function priceAsBilled(o: ReplayOptions, calls: Parameters<typeof fitLogRates>[0], trajectory: Trajectory): ResolvedPrice | undefined {
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

/** Four significant digits: a fitted rate of 0.27999999 is the list price of 0.28. */
function round(x: number): number {
  return Number(x.toPrecision(4));
}

/** Whether our counts use the priced model's own tokenizer (else a stand-in, calibrated by a ratio). */
function countsWithOwnTokenizer(o: ReplayOptions): boolean {
  if (!o.model) return !o.counter.approximate;
  const own = tokenizerFor(o.model);
  return !own.approximate && own.encoding === o.counter.tokenizer;
}

function max(values: readonly number[]): number {
  let m = 0;
  for (const v of values) if (v > m) m = v;
  return m;
}

function describeTrigger(o: ReplayOptions, maxSize: number | undefined): string {
  if (o.tokenBudget !== undefined) return `whenever the context holds more than ${o.tokenBudget} tokens`;
  if (o.strategy.recomputes) return `before every request once the strategy's policy finds something to compact (${o.strategy.id} rebuilds its summary each time)`;
  if (maxSize !== undefined) return `whenever the history holds more than ${maxSize} events (max_size)`;
  return `whenever the strategy's policy finds something to compact (${o.strategy.id})`;
}

const CACHE_WORDS: Record<CacheBehaviour, string> = {
  openai: 'OpenAI-style automatic caching (a prefix shared with the previous request, from 1,024 tokens in steps of 128, at the cache-read price)',
  anthropic: 'Anthropic-style breakpoints on the system prompt and the last message, as Claude Code sets them (reads of the cached prefix, writes of the rest at the cache-write price)',
  gemini: 'Gemini implicit caching (a prefix shared with the previous request, above the model\'s minimum, at the cache-read price)',
  none: 'no prompt cache: every input token at the full price',
};

function notesOf(r: ReplayResult, o: ReplayOptions, sideBranchSteps: number, price: ResolvedPrice | undefined): string[] {
  const notes: string[] = [];
  notes.push(`Prompt cache: ${CACHE_WORDS[r.cache]}; ${r.cacheSource === 'user' ? 'as you chose' : 'chosen from the model'}. Requests are assumed to follow each other within the cache's lifetime.`);
  notes.push(r.calibration
    ? `Prompt sizes: our count of the log (${o.counter.tokenizer}), ${r.calibration.note}.`
    : `Prompt sizes: our count of the log (${o.counter.tokenizer}${o.counter.approximate ? ', a stand-in for the model\'s tokenizer' : ''}); the log records no usage per call to calibrate on, so what it does not hold (system prompt, tool definitions) is missing.`);
  if (r.agentCompactions.length > 0) notes.push(`The agent compacted its own context at step${r.agentCompactions.length === 1 ? '' : 's'} ${r.agentCompactions.join(', ')}: the no-compaction curve shows it as it happened; with the strategy, the strategy replaces it.`);
  notes.push(o.strategy.kind === 'llm'
    ? `Summaries: ${(r.summaryRatio * 100).toFixed(1)}% of what they replace (${r.ratioSource === 'run' ? 'measured on an offline run' : r.ratioSource === 'user' ? 'as set' : 'a default'}); each firing makes the requests a real run makes${o.modelFailures ? ', re-asks included' : ' (re-asks after failed checks are not counted)'}.`
    : `Effect: ${r.effect}; no model requests.`);
  if (sideBranchSteps > 0) notes.push(`${sideBranchSteps} subagent steps keep contexts of their own and are left out of both runs.`);
  if (price) {
    const rates = `$${price.input} in, ${price.cachedInput !== undefined ? `$${price.cachedInput} cache read, ` : ''}${price.cacheWrite !== undefined ? `$${price.cacheWrite} cache write, ` : ''}$${price.output} out per million tokens`;
    notes.push(`Prices: ${price.source === 'settings' ? 'from settings' : `${price.source}, in force on ${price.asOf}`} (${price.matched}: ${rates}).`);
  } else {
    notes.push('Prices: none known for this model, so no cost (set one in agentTraceLens.prices or with --model).');
  }
  return notes;
}
