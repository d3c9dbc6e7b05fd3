import { recordsTokens, type RecordedUsage, type Step, type Run } from '../model';

import { priceFor, ratesFor, runDate, type ModelPrice, type PriceOverrides, type ResolvedPrice } from '../models';

// The one cost of a run, the figure every view shows (tooltip, status bar, `stats --tokens`, the
// Survey, the report, `simulate`, `diff`). Recorded first: where the log records usage per call,
// the run is billed from those records call by call, each at its own model's price on its own day;
// where it records totals only, the totals are priced; where it records nothing, the replay's
// modelled bill is used and labelled so. A cost the log states itself (SWE-agent `instance_cost`,
// mini-swe-agent, LiteLLM per call) is the bill as recorded. Never $0 for "unknown".

type BillSource = 'per-call' | 'totals' | 'none';
type BillLabel = 'recorded' | 'priced from recorded usage' | 'modelled';

export interface BillTokens {
  /** The whole prompt: uncached, cache reads and cache writes together. */
  input: number;
  cachedInput: number;
  cacheWrite: number;
  output: number;
}

const NO_TOKENS: BillTokens = { input: 0, cachedInput: 0, cacheWrite: 0, output: 0 };

export function addTokens(a: BillTokens, b: BillTokens): BillTokens {
  return { input: a.input + b.input, cachedInput: a.cachedInput + b.cachedInput, cacheWrite: a.cacheWrite + b.cacheWrite, output: a.output + b.output };
}

/** The tokens of `rows` added up; undefined for none. */
function sumTokens(rows: readonly BillTokens[]): BillTokens | undefined {
  return rows.length === 0 ? undefined : rows.reduce<BillTokens>((sum, r) => addTokens(sum, r), NO_TOKENS);
}

/** The bill of the calls that ran on one model. */
export interface ModelBill extends BillTokens {
  model: string;
  calls: number;
  /** USD, or null when no price is known for the model (`priceRow` then absent). */
  cost: number | null;
  priceRow?: string;
  pricesAsOf?: string;
  /** Priced as of today: the log records no date. */
  undated?: true;
  /** Where the table's rates change with the hour: the times of day the calls were priced at. */
  timesOfDay?: string[];
}

/** What the replay modelled for the run as it happened, for runs whose log records too little. */
interface ModelledBill {
  cost: number | null;
  byModel?: ModelBill[];
  /** Share of the modelled input read from and written to the cache, to split recorded totals. */
  cachedShare?: number;
  writeShare?: number;
  /** Why the modelled bill may differ from the recorded one (cache expiries, calls left out, …). */
  reasons?: string[];
  /** Why there is no modelled cost (no price for the model, …). */
  unknown?: string;
  /** Priced at the rates the log was billed at (then compared with the stated cost), or at the price table (then with the usage priced). */
  basis?: 'log rates' | 'price table';
  /** Requests the replay finds that the log records no usage for, and what the replay models them at. */
  unrecorded?: { requests: number; of: number; cost: number | null };
  /** The modelled cost of just the requests whose usage the log records: compared with the bill, like with like. */
  modelledRecorded?: number;
  /** The modelled tokens of those same requests, for the reasons (all requests when absent). */
  modelledRecordedTokens?: BillTokens;
}

export interface RunBill {
  source: BillSource;
  label: BillLabel;
  /** The one figure, USD; null when it cannot be known (`reason` says why). */
  cost: number | null;
  /** "not recorded", "no price for MODEL", …; set when `cost` is null. */
  reason?: string;
  /** The cost the log states itself, when it does. */
  recordedCost: number | null;
  /** The recorded usage priced (per call, or the totals); null when a price is missing. */
  pricedUsage: number | null;
  /** The replay's modelled cost of the run as it happened, when given. */
  modelled: number | null;
  /** (modelled − bill) ÷ bill when both are known and the bill is not itself modelled. */
  difference: number | null;
  /** Why modelled and recorded differ, when they differ by more than 10%. */
  differenceReason?: string;
  /** Requests the log records no usage for (the bill leaves them out; the replay models them), when there are any. */
  unrecorded?: { requests: number; of: number; cost: number | null };
  /** Calls the bill covers (0 when the log records totals or nothing). */
  calls: number;
  tokens: BillTokens;
  byModel: ModelBill[];
  pricesAsOf: string;
  /** How the figure was obtained, in words. */
  note: string;
}

export interface RunCostOptions {
  /** Price every call as this model (CLI `--model`): for logs that name none, or a proxy's alias. */
  model?: string;
  /** Price every call at these rates, USD per million tokens (CLI `--price in,cached,write,out`). */
  price?: ModelPrice;
  overrides?: PriceOverrides;
  /** The replay's bill of the run as it happened. */
  modelled?: ModelledBill;
}

/** Differences above this share between the modelled and the recorded bill are explained. */
const EXPLAINED_DIFFERENCE = 0.1;

/** One recorded call: its usage, the model it ran on and its day. */
interface BilledCall {
  usage: RecordedUsage;
  model: string | undefined;
  at: Date | undefined;
}

/**
 * The calls whose usage the log records, once each. Adapters put a call's usage on one step
 * (Claude Code merges the lines of one message id); a usage object shared by several steps counts once.
 */
function recordedCalls(t: Run): BilledCall[] {
  const seen = new Set<RecordedUsage>();
  const calls: BilledCall[] = [];
  for (const run of [t]) {
    const runModel = text(run.meta.model);
    let at = runDate(run.steps);
    for (const step of run.steps) {
      const when = stepDate(step);
      if (when) at = when;
      const u = step.usage;
      if (!u || seen.has(u) || !recordsTokens(u)) continue;
      seen.add(u);
      calls.push({ usage: u, model: u.model ?? step.model ?? runModel, at });
    }
  }
  return calls;
}

export function runCost(t: Run, o: RunCostOptions = {}): RunBill {
  const at = runDate(t.steps.slice(0, 50));
  const calls = recordedCalls(t);
  const totals = recordedTotals(t);
  const stated = statedCost(t, calls, totals);
  const perCallInput = calls.reduce((n, c) => n + (c.usage.inputTokens ?? 0), 0);
  // Per-call records that leave out most of the input the totals hold (Copilot CLI) are not the bill.
  // Records of output alone (Copilot CLI messages without their usage events) say nothing of what
  // each call sent: pricing them would bill the run at its output, a fraction of what it cost.
  const outputOnly = calls.length > 0 && calls.every((c) => c.usage.inputTokens === undefined && c.usage.cachedInputTokens === undefined);
  const perCall = calls.length > 0 && !outputOnly && !(totals && (totals.inputTokens ?? 0) > 1.01 * perCallInput);
  const prices = new PriceBook(o);

  let source: BillSource = 'none';
  let priced: Priced | undefined;
  if (perCall) {
    source = 'per-call';
    priced = prices.priceCalls(calls);
  } else if (totals && recordsTokens(totals)) {
    source = 'totals';
    const parts = t.meta.recordedByModel;
    priced = parts && parts.length > 1 && !o.model && !o.price
      ? prices.priceTotalsByModel(parts, at, o.modelled)
      : prices.priceTotals(totals, o.model ?? totals.model ?? text(t.meta.model), at, o.modelled);
  }
  const modelled = o.modelled?.cost ?? null;
  const bill: RunBill = {
    source, label: 'modelled', cost: null, recordedCost: stated, pricedUsage: priced?.cost ?? null, modelled, difference: null,
    calls: source === 'per-call' ? calls.length : 0,
    tokens: priced?.tokens ?? { input: 0, cachedInput: 0, cacheWrite: 0, output: 0 },
    byModel: priced?.byModel ?? o.modelled?.byModel ?? [],
    pricesAsOf: priced?.pricesAsOf ?? (at ?? new Date()).toISOString().slice(0, 10),
    note: '',
  };
  if (stated !== null) {
    bill.label = 'recorded';
    bill.cost = stated;
    const hours = [...new Set(priced?.byModel.flatMap((r) => r.timesOfDay ?? []) ?? [])];
    // The usage priced beside it says when part of that price is modelled: totals with no cache split get the replay's.
    const split = priced?.splitModelled ? (source === 'per-call' ? ", each call's split into cache reads and writes inferred" : ' with a modelled split into cache reads and writes (the log records none)') : '';
    bill.note = `the cost the log records${priced?.cost !== null && priced?.cost !== undefined ? `; its usage priced comes to ${usd(priced.cost)}${split}${hours.length ? ` at the rate of their hour (${timesText(hours)}; its rates change with the time of day)` : ''}` : ''}`;
  } else if (priced && priced.cost !== null) {
    bill.label = 'priced from recorded usage';
    bill.cost = priced.cost;
    bill.note = source === 'per-call'
      ? `${calls.length} recorded call${calls.length === 1 ? '' : 's'}, each priced at its own model's price (${priced.rows})${priced.splitModelled ? '; the log records cache reads and writes as one figure, so each call\'s split is inferred: it reads at most what the call before it sent, and wrote the rest' : ''}`
      : `the run's recorded totals priced (${priced.rows})${priced.splitModelled ? '; the split into cache reads and writes is modelled' : ''}`;
    for (const [row, reads] of priced.readsAtInputPrice ?? []) {
      bill.note += `; the price table has no cache-read price for ${row}, so the ${fmt(reads)} tokens the log records read from the cache are billed at the input price (the most they cost)`;
    }
  } else if (priced) {
    bill.label = 'priced from recorded usage';
    bill.reason = priced.reason;
    bill.note = `${bill.reason}; ${fmt(bill.tokens.input)} input and ${fmt(bill.tokens.output)} output tokens recorded`;
  } else if (hasAnyUsage(t) && calls.length === 0 && !(totals && recordsTokens(totals))) {
    // Usage fields present but all zero (a proxy that reports nothing): not a price of $0.
    bill.reason = 'not recorded (the log\'s usage fields are all zero)';
    bill.note = bill.reason;
    if (modelled !== null) { bill.cost = modelled; bill.note += '; the bill is modelled'; }
  } else if (outputOnly && !(totals && recordsTokens(totals))) {
    const out = calls.reduce((n, c) => n + (c.usage.outputTokens ?? 0), 0);
    bill.reason = 'not recorded (the log records output tokens only)';
    bill.note = `the log records only the output of its ${calls.length} call${calls.length === 1 ? '' : 's'} (${fmt(out)} tokens), not what each sent`;
    if (modelled !== null) { bill.cost = modelled; bill.note += '; the bill is modelled: the replay of the run, prompt cache included'; }
  } else if (modelled !== null) {
    bill.cost = modelled;
    const rows = (o.modelled?.byModel ?? []).filter((m) => m.priceRow).map((m) => `${m.model} at the ${m.priceRow} price (prices of ${m.pricesAsOf})`);
    bill.note = `modelled: the log records no usage, so the bill is the replay of the run${rows.length > 0 ? `, ${rows.join('; ')}` : ' at the model\'s price'}, prompt cache included`;
  } else {
    bill.reason = o.modelled?.unknown ?? (hasAnyUsage(t) ? 'not recorded' : 'not recorded, and no model to price');
    bill.note = bill.reason;
  }
  // Totals that leave out part of the run (calls after the last record of them) say so, beside the figure.
  if (source === 'totals' && t.meta.recordedPart) bill.note += `; ${t.meta.recordedPart.why}`;
  // Like with like: a replay at the price table against the usage priced at it (a stated cost may be
  // rounded, as Aider's, or priced otherwise), a replay at the log's own rates against the stated cost.
  const against = o.modelled?.basis === 'price table' && bill.pricedUsage !== null ? bill.pricedUsage : bill.cost;
  // Requests the log records no usage for: per call, those without it; with totals that stop early, those after them.
  const unrecorded = source === 'per-call' || (source === 'totals' && t.meta.recordedPart) ? o.modelled?.unrecorded : undefined;
  if (unrecorded && unrecorded.requests > 0) {
    bill.unrecorded = unrecorded;
    bill.note += `; ${unrecorded.requests} of the ${unrecorded.of} requests have no usage in the log, so they are not in this figure (the replay models them from our count of their context${unrecorded.cost !== null ? ` at ${usd(unrecorded.cost)}` : ''})`;
  }
  // Like with like: where the log leaves requests without usage, only the modelled cost of those it records.
  const ours = unrecorded && o.modelled?.modelledRecorded !== undefined ? o.modelled.modelledRecorded : modelled;
  // Totals that stop before the run does are compared with the modelled cost of what they cover, or not at all.
  const partial = source === 'totals' && t.meta.recordedPart !== undefined && !unrecorded;
  if (bill.label !== 'modelled' && against !== null && against > 0 && ours !== null && !partial) {
    bill.difference = (ours - against) / against;
    if (Math.abs(bill.difference) > EXPLAINED_DIFFERENCE) {
      const reasons = [...(o.modelled?.reasons ?? []), ...tokenReasons(bill.tokens, o.modelled?.modelledRecordedTokens ?? sumTokens(o.modelled?.byModel ?? []), source)];
      bill.differenceReason = reasons.length > 0 ? reasons.join('; ') : 'the replay\'s prompts and cache pattern differ from the recorded ones in ways the log does not show';
    }
  }
  return bill;
}

/** Where the replay's tokens part from the recorded ones (more than 20%), the largest first. */
function tokenReasons(recorded: BillTokens, m: BillTokens | undefined, source: BillSource): string[] {
  if (source !== 'per-call' || m === undefined) return [];
  const parts: [string, number, number][] = [
    ['prompt tokens', m.input, recorded.input],
    ['cache writes', m.cacheWrite, recorded.cacheWrite],
    ['cache reads', m.cachedInput, recorded.cachedInput],
    ['output tokens', m.output, recorded.output],
  ];
  return parts
    .filter(([, ours, theirs]) => Math.abs(ours - theirs) > 0.2 * Math.max(theirs, 1) && Math.abs(ours - theirs) > 500)
    .sort((a, b) => Math.abs(b[1] - b[2]) - Math.abs(a[1] - a[2]))
    .slice(0, 2)
    .map(([what, ours, theirs]) => `the replay has ${fmt(ours)} ${what} where the log records ${fmt(theirs)}`);
}

/** `$4.78 priced from recorded usage`, `not recorded`, `no price for glm-4.6`: the figure in words. */
export function billText(b: RunBill): string {
  if (b.cost === null) return b.reason ?? 'unknown';
  return `${usd(b.cost)} ${b.label}`;
}

/** `$1.23`, small amounts with four decimals; a negative amount keeps its sign. */
export function usd(x: number): string {
  const digits = x !== 0 && Math.abs(x) < 0.01 ? 4 : 2;
  return `${x < 0 ? '−' : ''}$${Math.abs(x).toFixed(digits)}`;
}

/** A saving in words: negative is extra cost. `signed` is raw − compacted. */
export function savingText(saved: number): { label: 'saves' | 'costs more' | 'same'; text: string } {
  if (Math.abs(saved) < 1e-9) return { label: 'same', text: 'costs the same' };
  return saved > 0 ? { label: 'saves', text: `saves ${usd(saved)}` } : { label: 'costs more', text: `costs ${usd(-saved)} more` };
}

interface Priced {
  cost: number | null;
  reason?: string;
  tokens: BillTokens;
  byModel: ModelBill[];
  pricesAsOf: string;
  rows: string;
  splitModelled?: boolean;
  /** Cache reads the log records for a model whose price has no cache-read rate, billed at the input rate: by price row. */
  readsAtInputPrice?: Map<string, number>;
}

class PriceBook {
  private readonly cache = new Map<string, ResolvedPrice | undefined>();
  constructor(private readonly o: RunCostOptions) {}

  price(model: string | undefined, at: Date | undefined): ResolvedPrice | undefined {
    if (this.o.price) return { ...this.o.price, matched: 'your --price', asOf: 'settings', source: 'settings' };
    const m = this.o.model ?? model;
    if (!m) return undefined;
    // By the minute: a table may change a model's rates with the time of day, not only by date.
    const minute = at ? at.toISOString().slice(0, 16) : 'today';
    const key = `${m}\u0000${minute}`;
    if (!this.cache.has(key)) this.cache.set(key, priceFor(m, this.o.overrides, at));
    return this.cache.get(key);
  }

  priceCalls(calls: readonly BilledCall[]): Priced {
    const byModel = new Map<string, ModelBill>();
    let missing: string | undefined;
    let asOf = '';
    const previousPrompt = new Map<string | undefined, number>();
    let splitInferred = false;
    const readsAtInputPrice = new Map<string, number>();
    for (const c of calls) {
      const name = this.o.price ? 'your --price' : this.o.model ?? c.model ?? '(no model named)';
      let row = byModel.get(name);
      if (!row) byModel.set(name, (row = { model: name, calls: 0, input: 0, cachedInput: 0, cacheWrite: 0, output: 0, cost: 0 }));
      const parts = partsOf(c.usage);
      if (c.usage.cachedIncludesWrites) { splitReadsAndWrites(parts, previousPrompt.get(c.model) ?? 0); splitInferred = true; }
      previousPrompt.set(c.model, parts.input);
      row.calls++;
      row.input += parts.input; row.cachedInput += parts.cached; row.cacheWrite += parts.written; row.output += parts.output;
      const price = this.price(c.model, c.at);
      if (!price) { row.cost = null; missing ??= name; continue; }
      row.priceRow ??= price.matched;
      row.pricesAsOf ??= price.asOf;
      if (price.undated) row.undated = true;
      if (price.atTime) row.timesOfDay = [...new Set([...(row.timesOfDay ?? []), price.atTime])];
      asOf ||= price.asOf;
      if (row.cost !== null) row.cost += callDollars(parts, price);
      if (parts.cached > 0 && ratesFor(price, parts.input).cachedInput === undefined) readsAtInputPrice.set(price.matched, (readsAtInputPrice.get(price.matched) ?? 0) + parts.cached);
    }
    return { ...summed([...byModel.values()], missing, asOf), splitModelled: splitInferred, readsAtInputPrice };
  }

  priceTotals(u: RecordedUsage, model: string | undefined, at: Date | undefined, modelled: ModelledBill | undefined): Priced {
    const parts = partsOf(u);
    let splitModelled = false;
    if (u.cachedInputTokens === undefined && u.cacheWriteTokens === undefined && modelled?.cachedShare !== undefined) {
      // Totals without their cache split: the replay's share of reads and writes, on the recorded input.
      parts.cached = Math.round(parts.input * modelled.cachedShare);
      parts.written = Math.round(parts.input * (modelled.writeShare ?? 0));
      splitModelled = parts.cached + parts.written > 0;
    }
    const name = this.o.price ? 'your --price' : this.o.model ?? model ?? '(no model named)';
    const row: ModelBill = { model: name, calls: 0, input: parts.input, cachedInput: parts.cached, cacheWrite: parts.written, output: parts.output, cost: null };
    const price = this.price(model, at);
    if (price) {
      // Totals are priced at the base rates: the long-context tier needs each call's prompt.
      row.cost = callDollars(parts, { ...price, longContext: undefined });
      row.priceRow = price.matched;
      row.pricesAsOf = price.asOf;
      if (price.undated) row.undated = true;
    }
    return { ...summed([row], price ? undefined : name, price?.asOf ?? ''), splitModelled };
  }

  /** Totals the log splits by model: each part at its own model's price. */
  priceTotalsByModel(parts: readonly RecordedUsage[], at: Date | undefined, modelled: ModelledBill | undefined): Priced {
    const each = parts.map((u) => this.priceTotals(u, u.model, at, modelled));
    const rows = each.flatMap((p) => p.byModel);
    return { ...summed(rows, rows.find((r) => r.cost === null)?.model, each.find((p) => p.pricesAsOf)?.pricesAsOf ?? ''), splitModelled: each.some((p) => p.splitModelled) };
  }
}

function timesText(times: readonly string[]): string {
  return times.length <= 2 ? times.join(', ') : `${times[0]} to ${times[times.length - 1]}`;
}

function summed(rows: ModelBill[], missing: string | undefined, asOf: string): Priced {
  const tokens: BillTokens = { input: 0, cachedInput: 0, cacheWrite: 0, output: 0 };
  for (const r of rows) { tokens.input += r.input; tokens.cachedInput += r.cachedInput; tokens.cacheWrite += r.cacheWrite; tokens.output += r.output; }
  const known = rows.every((r) => r.cost !== null);
  const cost = known ? rows.reduce((n, r) => n + r.cost!, 0) : null;
  const reason = missing === undefined ? undefined : missing === '(no model named)' ? 'no model named to price (use --model or --price)' : `no price for ${missing}`;
  const rowsText = rows.map((r) => `${r.model}${r.priceRow && r.priceRow !== r.model ? ` at the ${r.priceRow} price` : ''}${r.pricesAsOf ? `, prices of ${r.pricesAsOf}${r.undated ? ' (today: the log records no date)' : ''}` : ''}${r.timesOfDay ? `; its rates change with the time of day, and the calls are priced at the rate of their hour (${timesText(r.timesOfDay)})` : ''}`).join('; ');
  return { cost, ...(reason ? { reason } : {}), tokens, byModel: rows.sort((a, b) => (b.cost ?? 0) - (a.cost ?? 0)), pricesAsOf: asOf, rows: rowsText };
}

interface Parts { input: number; cached: number; written: number; written1h: number; output: number }

function partsOf(u: RecordedUsage): Parts {
  const input = Math.max(0, u.inputTokens ?? 0);
  const cached = Math.min(Math.max(0, u.cachedInputTokens ?? 0), input);
  const written = Math.min(Math.max(0, u.cacheWriteTokens ?? 0), input - cached);
  return { input, cached, written, written1h: Math.min(written, Math.max(0, u.cacheWrite1hTokens ?? 0)), output: Math.max(0, u.outputTokens ?? 0) };
}

/**
 * Cache reads and writes the log records as one figure: a call reads at most what the call before
 * it sent (what that call's breakpoints left cached); the rest of the figure was written.
 */
function splitReadsAndWrites(p: Parts, previousPrompt: number): void {
  const both = p.cached + p.written;
  p.cached = Math.min(both, previousPrompt);
  p.written = both - p.cached;
}

/**
 * One recorded call at its price, as the run's bill prices it (a log that records reads and writes
 * as one figure splits them by `previousPrompt`, the prompt of the call before): the figure every
 * check against recorded usage uses, so that one call never has two prices.
 */
export function recordedCallDollars(u: RecordedUsage, price: ResolvedPrice, previousPrompt: number): number {
  const parts = partsOf(u);
  if (u.cachedIncludesWrites) splitReadsAndWrites(parts, previousPrompt);
  return callDollars(parts, price);
}

/** One call at its price: the long-context tier when its prompt reaches it; 1-hour writes at 2× input. */
function callDollars(p: Parts, price: ResolvedPrice): number {
  const r = ratesFor(price, p.input);
  const fresh = p.input - p.cached - p.written;
  const write5m = p.written - p.written1h;
  return (fresh * r.input + p.cached * (r.cachedInput ?? r.input) + write5m * (r.cacheWrite ?? r.input) + p.written1h * 2 * r.input + p.output * r.output) / 1e6;
}

/** Usage with at least one token; a record of all zeros (a proxy that reports nothing) is not usage. */
function hasAnyUsage(t: Run): boolean {
  return t.meta.recorded !== undefined || t.steps.some((s) => s.usage !== undefined);
}

/** The run's totals as the log records them. */
function recordedTotals(t: Run): RecordedUsage | undefined {
  const all = t.meta.recorded ? [t.meta.recorded] : [];
  if (all.length === 0) return undefined;
  const sum: RecordedUsage = {};
  for (const u of all) {
    for (const f of ['inputTokens', 'outputTokens', 'cachedInputTokens', 'cacheWriteTokens', 'cacheWrite1hTokens', 'cost'] as const) {
      if (typeof u[f] === 'number') sum[f] = (sum[f] ?? 0) + u[f]!;
    }
    sum.model ??= u.model;
  }
  return sum;
}

/** The cost the log states: every recorded call's own cost, else the run's; zero is "not recorded". */
function statedCost(t: Run, calls: readonly BilledCall[], totals: RecordedUsage | undefined): number | null {
  if (calls.length > 0 && calls.every((c) => typeof c.usage.cost === 'number' && c.usage.cost > 0)) {
    const perCall = calls.reduce((n, c) => n + c.usage.cost!, 0);
    // The run's own total wins where it covers more (calls the per-call records left out).
    return totals?.cost !== undefined && totals.cost > perCall * 1.001 ? totals.cost : perCall;
  }
  if (totals?.cost !== undefined && totals.cost > 0) return totals.cost;
  void t;
  return null;
}

function stepDate(step: Step): Date | undefined {
  if (!step.timestamp) return undefined;
  const d = new Date(step.timestamp);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
