// The one cost of a file, as every view shows it: `runCost` (recorded first) for each of its runs,
// with the replay's bill of the run as it happened for what the log does not record. Every view
// (tooltip, status bar, `stats --tokens`, Survey, report, `simulate`, `diff`) calls this or reads
// the same `RunBill` off a replay made with the same counter, so the figures agree.

import { promptTokensOf } from '../compaction';
import type { Run, TrajectoryFile } from '../model';
import { priceFor, runDate, type ModelPrice, type PriceOverrides, type ResolvedPrice } from '../models';
import type { CacheBehaviour } from '../pricing/promptCache';
import { runCost, type ModelBill, type RunBill } from '../pricing/runCost';

import type { TokenCounter } from '../tokens';
import { tokenizerFor } from '../tokens';
import { memoizedCounter, tiktokenCounter } from '../tokens';
import { billAsHappened, type AsHappened } from './asHappened';

export interface BillOptions {
  /** The user's model (CLI `--model`, the tokens.model setting): every call priced as it. */
  model?: string;
  /** The user's rates (CLI `--price`), USD per million tokens. */
  price?: ModelPrice;
  overrides?: PriceOverrides;
  cache?: CacheBehaviour;
  /** The counter to replay with (default: the model's own tokenizer). */
  counter?: TokenCounter;
  /**
   * The counter for the run's model, when the caller has one that already knows the run's texts
   * (the extension's token service): the same tokenizer, so the same bill, without counting twice.
   */
  counterFor?: (model: string | undefined) => TokenCounter;
}

/** The options a replay needs to produce the same bill as `billRun` (shared by survey and simulate). */
export function billingReplayOptions(run: Run, o: BillOptions): { model: string | undefined; price: ResolvedPrice | undefined; fixedModel: boolean; counter: TokenCounter } {
  const model = o.model ?? text(run.meta.model) ?? text(run.meta.recorded?.model);
  const tokenizer = tokenizerFor(model);
  const counter = o.counter ?? o.counterFor?.(model) ?? memoizedCounter(tiktokenCounter(tokenizer.encoding, tokenizer.approximate));
  const price: ResolvedPrice | undefined = o.price
    ? { ...o.price, matched: 'your --price', asOf: 'settings', source: 'settings' }
    : model ? priceFor(model, o.overrides ?? {}, runDate(run.steps)) : undefined;
  return { model, price, fixedModel: o.model !== undefined || o.price !== undefined, counter };
}

/** The bill of one run, with the billing of the run as it happened it came from (no strategy involved). */
export function billRunAsHappened(run: Run, o: BillOptions = {}): ReturnType<typeof billingReplayOptions> & { bill: RunBill; billing: AsHappened; stepTokens: number[] } {
  const r = billingReplayOptions(run, o);
  const stepTokens = run.steps.map((s) => promptTokensOf(s, r.counter));
  const billing = billAsHappened(run, { counter: r.counter, stepTokens, price: r.price, model: r.model, cache: o.cache, fixedModel: r.fixedModel });
  return { ...r, bill: billing.bill, billing, stepTokens };
}

/** The cost of one run as it happened. */
export function billRun(run: Run, o: BillOptions = {}): RunBill {
  return billRunAsHappened(run, o).bill;
}

/** The one cost of a file: its run's bill, or for a file of many runs the runs' bills summed. */
export function billFile(file: TrajectoryFile, o: BillOptions = {}): RunBill {
  return billFileRuns(file, o).bill;
}

/** `billFile` with each run's own bill beside it (a view that shows one run reuses its bill). */
export function billFileRuns(file: TrajectoryFile, o: BillOptions = {}): { bill: RunBill; runs: RunBill[] } {
  const runs = file.runs.map((run) => billRun(run, o));
  return { bill: runs.length === 1 ? runs[0] : sumBills(runs), runs };
}

/** Bills of several runs as one: a cost only when every run has one. */
function sumBills(bills: readonly RunBill[]): RunBill {
  const first = bills[0];
  if (!first) return runCost({ format: 'none', title: '', source: { path: '', size: 0 }, steps: [], meta: {}, warnings: [], records: 0 });
  const label = bills.every((b) => b.label === first.label) ? first.label : bills.some((b) => b.label === 'modelled') ? 'modelled' : 'priced from recorded usage';
  const source = bills.every((b) => b.source === first.source) ? first.source : bills.some((b) => b.source === 'per-call') ? 'per-call' : 'totals';
  const add = (f: (b: RunBill) => number | null) => (bills.every((b) => f(b) !== null) ? bills.reduce((n, b) => n + f(b)!, 0) : null);
  const byModel = new Map<string, ModelBill>();
  for (const b of bills) for (const m of b.byModel) {
    const row = byModel.get(m.model);
    if (!row) { byModel.set(m.model, { ...m }); continue; }
    row.calls += m.calls; row.input += m.input; row.cachedInput += m.cachedInput; row.cacheWrite += m.cacheWrite; row.output += m.output;
    row.cost = row.cost === null || m.cost === null ? null : row.cost + m.cost;
  }
  const cost = add((b) => b.cost);
  const missing = bills.find((b) => b.cost === null);
  // Requests with no usage in the log are left out of each run's figure: the file's says how many in all.
  const gaps = bills.filter((b) => b.unrecorded && b.unrecorded.requests > 0);
  const unrecorded = gaps.length === 0 ? undefined : {
    requests: gaps.reduce((n, b) => n + b.unrecorded!.requests, 0),
    of: bills.reduce((n, b) => n + (b.unrecorded?.of ?? b.calls), 0),
    cost: gaps.every((b) => b.unrecorded!.cost !== null) ? gaps.reduce((n, b) => n + b.unrecorded!.cost!, 0) : null,
  };
  const bill: RunBill = {
    source, label, cost,
    recordedCost: add((b) => b.recordedCost), pricedUsage: add((b) => b.pricedUsage), modelled: add((b) => b.modelled), difference: null,
    calls: bills.reduce((n, b) => n + b.calls, 0),
    tokens: {
      input: bills.reduce((n, b) => n + b.tokens.input, 0), cachedInput: bills.reduce((n, b) => n + b.tokens.cachedInput, 0),
      cacheWrite: bills.reduce((n, b) => n + b.tokens.cacheWrite, 0), output: bills.reduce((n, b) => n + b.tokens.output, 0),
    },
    byModel: [...byModel.values()].sort((a, b) => (b.cost ?? 0) - (a.cost ?? 0)),
    pricesAsOf: first.pricesAsOf,
    note: `${bills.length} runs: ${label}${missing ? `; ${bills.filter((b) => b.cost === null).length} without a cost (${missing.reason})` : ''}${unrecorded ? `; ${unrecorded.requests} of the ${unrecorded.of} requests have no usage in the log and are not in this figure` : ''}`,
    ...(unrecorded ? { unrecorded } : {}),
  };
  if (cost === null && missing?.reason) bill.reason = missing.reason;
  if (bill.cost !== null && bill.cost > 0 && bill.modelled !== null && label !== 'modelled') bill.difference = (bill.modelled - bill.cost) / bill.cost;
  return bill;
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}
