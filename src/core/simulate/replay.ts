// "The whole run under a policy": replays a trajectory step by step as if the agent had used a
// strategy all along, beside the run as it really happened, and prices both the way the provider
// bills them. No model is called: a summary's size is the forgotten tokens times a ratio,
// measured from a real run or set by the user. What is modelled, and how, is listed in `notes`.

import type { CompactionResult, Strategy, StrategyOptions } from '../compaction';
import type { Run } from '../model';
import type { Cost, ResolvedPrice } from '../models';
import { PromptCache, type CacheBehaviour, type CacheLifetime } from '../pricing/promptCache';
import type { RunBill } from '../pricing/runCost';
import { billAsHappened, max, type BillingOptions } from './asHappened';
import type { Calibration, RecordedComparison } from './calibration';
import { Ledger, type SideTotals } from './replayBilling';
import { addCosts, addSides } from './replayBranches';
import { compactedRun, type ReplayEvent } from './replayCompacted';
import { effectOf, ratioOf, Sizes, type ReplayEffect } from './replayEffect';

export { measuredSummaryRatio } from './replayEffect';

export interface ReplayOptions extends BillingOptions {
  strategy: Strategy;
  options: StrategyOptions;
  /** A real run of the strategy on this trajectory: the source of the measured effect and ratio. */
  sample?: CompactionResult;
  /** Summary tokens ÷ forgotten tokens; overrides the ratio measured from `sample`. */
  summaryRatio?: number;
  /** Fire whenever the context holds more than this many tokens, instead of the strategy's own trigger. */
  tokenBudget?: number;
  /** Count the re-asks a strategy makes when a reply fails its checks (budget-schema). */
  modelFailures?: boolean;
}

interface ReplayPoint {
  step: number;
  /** Context after this step without compaction (the agent's own compactions applied). */
  tokensRaw: number;
  /** Context after this step with the strategy applied whenever its trigger fired. */
  tokensCompacted: number;
}

interface ReplayCost {
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
  /** Requests the agent made (each group of consecutive agent steps of the main line is one request), its subagents' included. */
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
  cacheSource: 'model' | 'user' | 'log' | 'log-reads';
  /** How long a cached prefix lives after its last use, in the model of both runs. */
  cacheTtl: CacheLifetime;
  /** Requests of the uncompacted run that found the cache expired after an idle gap. */
  cacheExpiries: number;
  /** The run's one cost (recorded first), as every view shows it. */
  bill: RunBill;
  /** Both runs as billed, in the provider's tokens (calibrated when `calibration` is set). */
  totals: { raw: SideTotals; compacted: SideTotals };
  cost: ReplayCost | null;
  /** How our counts were mapped onto the provider's, from the usage the log records; null when it records none. */
  calibration: Calibration | null;
  /** The uncompacted run checked against the recorded calls; `source` says what the log records. */
  recorded: RecordedComparison & { source: RunBill['source'] };
  /** Steps at which the agent compacted its own context (shown on the no-compaction curve). */
  agentCompactions: number[];
  /** What is modelled and how, in sentences, for the report and the CLI. */
  notes: string[];
}

export function replay(trajectory: Run, o: ReplayOptions): ReplayResult {
  const sizes = new Sizes(o.counter);
  const effect = effectOf(o, sizes);
  const { ratio, source } = ratioOf(o);
  const maxSize = typeof o.options.max_size === 'number' ? o.options.max_size : undefined;

  // The run as it happened, calibrated on what the log recorded; the run under the strategy is billed beside it.
  const happened = billAsHappened(trajectory, o);
  const { stepTokens, starts, raw, price, timing, ledgerModel, scale, warmCache, recordedReads } = happened.basis;
  const ledger = new Ledger(price, new PromptCache(happened.cache, o.model, warmCache, happened.cacheTtl.seconds, recordedReads), scale, false, timing, ledgerModel);
  const run = compactedRun({
    trajectory, strategy: o.strategy, options: o.options, stepTokens, starts, effect, ratio, sizes,
    tokenBudget: o.tokenBudget, maxSize, modelFailures: o.modelFailures,
    onRequest: (r) => ledger.request(r), onOutput: (n) => ledger.output(n), onSummary: (n, i, out) => ledger.summary(n, i, out),
  });

  // Subagents are billed the same under the strategy (it compacts the main line).
  const branches = happened.branches;
  const compactedTotals = branches ? addSides(ledger.totals(), branches.totals) : ledger.totals();
  const rawCost = happened.cost;
  const mainCost = ledger.costBreakdown();
  const compactedCost = branches ? (mainCost && branches.cost ? addCosts(mainCost, branches.cost) : null) : mainCost;
  const cost: ReplayCost | null = price && rawCost && compactedCost
    ? { model: o.model ?? price.matched, pricesAsOf: price.asOf, priceSource: price.source, raw: rawCost, compacted: compactedCost, saved: rawCost.total - compactedCost.total }
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
    steps: trajectory.steps.length,
    series,
    events: run.events,
    modelCalls: happened.modelCalls,
    requests: compactedTotals.requests,
    totalInputRaw: happened.totalInput,
    totalInputCompacted: run.totalInput,
    totalOutput: happened.totalOutput,
    summaryCalls,
    summaryInputTokens: run.summaryInputTokens,
    summaryOutputTokens: run.summaryOutputTokens,
    peakRaw: happened.peak,
    peakCompacted: max(run.series),
    cache: happened.cache,
    cacheSource: happened.cacheSource,
    cacheTtl: happened.cacheTtl,
    cacheExpiries: happened.cacheExpiries,
    bill: happened.bill,
    totals: { raw: happened.totals, compacted: compactedTotals },
    cost,
    calibration: happened.calibration,
    recorded: happened.recorded,
    agentCompactions: happened.agentCompactions,
    notes: [],
  };
  result.notes = notesOf(result, o, branches ? 0 : raw.sideBranchSteps, price, trajectory.meta.unshownPrompt);
  if (branches) result.notes.splice(3, 0, `Subagents: ${branches.branches} branch${branches.branches === 1 ? '' : 'es'}, ${branches.requests} request${branches.requests === 1 ? '' : 's'}, replayed each on its own model from a context and a prompt cache of its own, and billed the same in both runs (the strategy compacts the main line): ${branches.notes.join('; ')}.`);
  return result;
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

function notesOf(r: ReplayResult, o: ReplayOptions, sideBranchSteps: number, price: ResolvedPrice | undefined, unshown: Run['meta']['unshownPrompt']): string[] {
  const notes: string[] = [];
  notes.push(`Prompt cache: ${CACHE_WORDS[r.cache]}; ${r.cacheSource === 'user' ? 'as you chose' : r.cacheSource === 'log' ? 'the recorded calls show no cache reads or writes, so the provider cached nothing' : r.cacheSource === 'log-reads' ? 'no price names the model\'s provider, and the recorded calls read from a cache, so its rules are the ones their usage fields show' : 'chosen from the model'}. Lifetime ${r.cacheTtl.words}${r.cacheExpiries > 0 ? `: idle gaps in the log's timestamps expired it ${r.cacheExpiries} time${r.cacheExpiries === 1 ? '' : 's'}` : ''}.`);
  notes.push(`Cost of the run as it happened: ${r.bill.cost === null ? r.bill.reason ?? 'unknown' : `$${r.bill.cost.toFixed(r.bill.cost < 0.01 ? 4 : 2)}`}, ${r.bill.label} (${r.bill.note}).${r.bill.differenceReason ? ` The replay's modelled bill differs by ${(r.bill.difference! * 100).toFixed(0)}%: ${r.bill.differenceReason}.` : ''}`);
  notes.push(r.calibration
    ? `Prompt sizes: our count of the log (${o.counter.tokenizer}), ${r.calibration.note}.`
    : `Prompt sizes: our count of the log (${o.counter.tokenizer}${o.counter.approximate ? ', a stand-in for the model\'s tokenizer' : ''}); the log records no usage per call to calibrate on, so ${unshown ? `every request also carries the ${unshown.tokens.toLocaleString('en-US')} tokens of ${unshown.from}, counted as they are` : 'what it does not hold (system prompt, tool definitions) is missing'}.`);
  if (r.agentCompactions.length > 0) notes.push(`The agent compacted its own context at step${r.agentCompactions.length === 1 ? '' : 's'} ${r.agentCompactions.join(', ')}: the no-compaction curve shows it as it happened; with the strategy, the strategy replaces it.`);
  notes.push(o.strategy.kind === 'llm'
    ? `Summaries: ${(r.summaryRatio * 100).toFixed(1)}% of what they replace (${r.ratioSource === 'run' ? 'measured on an offline run' : r.ratioSource === 'user' ? 'as set' : 'a default'}); each firing makes the requests a real run makes${o.modelFailures ? ', re-asks included' : ' (re-asks after failed checks are not counted)'}.`
    : `Effect: ${r.effect}; no model requests.`);
  if (sideBranchSteps > 0) notes.push(`${sideBranchSteps} subagent steps keep contexts of their own and are left out of both runs.`);
  if (price) {
    const read = price.cachedInputAssumed ? `$${price.cachedInput} cache read (assumed: the table has no cache-read price, and the log records reads, so they are billed at the input price, the most they cost), ` : `$${price.cachedInput} cache read, `;
    const rates = `$${price.input} in, ${price.cachedInput !== undefined ? read : ''}${price.cacheWrite !== undefined ? `$${price.cacheWrite} cache write, ` : ''}$${price.output} out per million tokens`;
    notes.push(`Prices: ${price.source === 'settings' ? 'from settings' : `${price.source}, in force on ${price.asOf}${price.undated ? ' (today: the log records no date)' : ''}${price.atTime ? ` at ${price.atTime} (its rates change with the time of day; the replay bills every request at this one)` : ''}`} (${price.matched}: ${rates}).`);
  } else {
    notes.push('Prices: none known for this model, so no cost (set one in agentTraceLens.prices or with --model).');
  }
  return notes;
}
