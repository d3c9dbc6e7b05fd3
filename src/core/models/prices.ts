import { calcPrice, type ModelPrice as DbPrice, type TieredPrices } from '@pydantic/genai-prices';
import { longestPrefixMatch, normalizeModelId } from './ids';

// Prices come from `@pydantic/genai-prices`, a maintained database of every provider's list
// prices (input, cache reads, cache writes, output; with their history and long-context tiers)
// that is bundled into our build: nothing is fetched at run time. The user's overrides
// (`agentTraceLens.prices`) win over it. A rate the database does not know stays unknown: a cost
// that needs it is not given rather than guessed.

/** The database the built-in prices come from; a unit test keeps it equal to the installed version. */
export const PRICE_DATABASE = '@pydantic/genai-prices 0.1.8';

export interface ModelPrice {
  /** USD per million input tokens. */
  input: number;
  /** USD per million input tokens served from the provider's prompt cache (cache reads). */
  cachedInput?: number;
  /** USD per million input tokens written to the prompt cache (Anthropic: 1.25× input for 5 minutes). */
  cacheWrite?: number;
  /** USD per million output tokens. */
  output: number;
}

/** Settings: model id (or prefix) → price, overriding the database. */
export type PriceOverrides = Record<string, ModelPrice>;

export interface ResolvedPrice extends ModelPrice {
  /** The database's model (e.g. `gpt-4o` for `gpt-4o-2024-08-06`), or the override's key. */
  matched: string;
  /** The database's provider id (`openai`, `anthropic`, `google`, …), when it came from there. */
  provider?: string;
  /** The day the prices are in force (the run's own date where the log has one), or `settings`. */
  asOf: string;
  /** Where the figures come from: the database and its version, or `settings`. */
  source: string;
  /** Higher rates for a request whose prompt holds at least `from` tokens (Claude and Gemini over 200k). */
  longContext?: { from: number } & ModelPrice;
  /** Priced as of today because no date was given (a log that records none). */
  undated?: true;
  /** The time of day the rates are of, where the table's rates change with the hour (`19:44 UTC`). */
  atTime?: string;
  /** Set where the table has no cache-read price but the log records cache reads: they are billed at the input price, said so. */
  cachedInputAssumed?: true;
}

/**
 * The price of a model on a day (default today): an override wins over the database; undefined
 * when neither knows the model. `at` picks the right row of the database's price history.
 */
export function priceFor(model: string | undefined, overrides: PriceOverrides = {}, at?: Date): ResolvedPrice | undefined {
  if (!model || model.trim() === '') return undefined;
  const id = normalizeModelId(model);
  const overrideRows = Object.entries(overrides).map(([prefix, price]) => ({ ...price, prefix: normalizeModelId(prefix) }));
  const override = longestPrefixMatch(overrideRows, id);
  if (override) return { ...pickPrice(override), matched: override.prefix, asOf: 'settings', source: 'settings' };
  const when = at ?? new Date();
  const price = databasePrice(model, id, when);
  // A run whose log records no date is priced as of today, and says so.
  if (price && at === undefined) return { ...price, undated: true };
  // A provider whose rates change with the hour (DeepSeek's off-peak discount until 2025-09-05):
  // the rate of that moment, said with it. Compared with the same day twelve hours away.
  if (price && !Number.isNaN(when.getTime())) {
    const other = databasePrice(model, id, new Date(when.getTime() + (when.getUTCHours() < 12 ? 12 : -12) * 3_600_000));
    if (other && (other.input !== price.input || other.output !== price.output || other.cachedInput !== price.cachedInput)) {
      return { ...price, atTime: `${when.toISOString().slice(11, 16)} UTC` };
    }
  }
  return price;
}

/**
 * Rates the database (0.1.8, the newest) has wrong, from the provider's own pricing page: from
 * `from` on, a model the database matched as `matched` of `provider` costs `price`. DeepSeek
 * ended its night-time discount at 16:00 UTC on 2025-09-05 (0.07/0.56/1.68) and cut V3.2's rates
 * on 2025-09-29; the database still bills deepseek-chat at the V3 rates with the discount. A
 * mini-swe-agent run of 2026-04-11 records $0.0142, which the corrected rates give and the
 * database's ($0.03) do not.
 */
const CORRECTIONS: readonly { provider: string; matched: readonly string[]; from: string; price: ModelPrice; page: string }[] = [
  { provider: 'deepseek', matched: ['deepseek-chat', 'deepseek-reasoner'], from: '2025-09-05T16:00:00Z', price: { input: 0.56, cachedInput: 0.07, output: 1.68 }, page: "DeepSeek's pricing page, from 2025-09-05 16:00 UTC" },
  { provider: 'deepseek', matched: ['deepseek-chat', 'deepseek-reasoner'], from: '2025-09-29T00:00:00Z', price: { input: 0.28, cachedInput: 0.028, output: 0.42 }, page: "DeepSeek's pricing page, V3.2 rates from 2025-09-29" },
];

function corrected(price: ResolvedPrice, at: Date): ResolvedPrice {
  const fix = CORRECTIONS.filter((c) => c.provider === price.provider && c.matched.includes(price.matched) && at.getTime() >= Date.parse(c.from)).at(-1);
  if (!fix) return price;
  const { cachedInput: _c, cacheWrite: _w, longContext: _l, ...rest } = price;
  return { ...rest, ...fix.price, source: `${PRICE_DATABASE}, corrected by ${fix.page}` };
}

function databasePrice(model: string, id: string, at: Date): ResolvedPrice | undefined {
  const when = Number.isNaN(at.getTime()) ? new Date() : at;
  const full = model.trim().toLowerCase();
  const slash = full.indexOf('/');
  // Routed ids (`openrouter/…`, `meta-llama/llama-4-maverick`) first as given, then by their provider, then bare.
  const attempts: [string, string | undefined][] = [[full, undefined]];
  if (slash > 0) attempts.push([full.slice(slash + 1), full.slice(0, slash)]);
  attempts.push([id, undefined]);
  for (const [candidate, providerId] of attempts) {
    let found: ReturnType<typeof calcPrice> = null;
    try {
      found = calcPrice({ input_tokens: 0, output_tokens: 0 }, candidate, { timestamp: when, ...(providerId ? { providerId } : {}) });
    } catch {
      found = null;
    }
    if (!found) continue;
    const p = found.model_price;
    const input = base(p.input_mtok);
    const output = base(p.output_mtok);
    if (input === undefined || output === undefined) continue;
    const price: ResolvedPrice = {
      input, output, matched: found.model.id, provider: found.provider.id,
      asOf: when.toISOString().slice(0, 10), source: PRICE_DATABASE,
    };
    const cached = base(p.cache_read_mtok);
    const write = base(p.cache_write_mtok);
    if (cached !== undefined) price.cachedInput = cached;
    if (write !== undefined) price.cacheWrite = write;
    const long = longContextOf(p);
    if (long) price.longContext = long;
    return corrected(price, when);
  }
  return undefined;
}

function isTiered(v: unknown): v is TieredPrices {
  return typeof v === 'object' && v !== null && 'base' in v && 'tiers' in v;
}

function base(v: DbPrice[string]): number | undefined {
  if (typeof v === 'number') return v;
  return isTiered(v) ? v.base : undefined;
}

/** The first long-context tier, when input and output both have one (the database prices the whole request at it). */
function longContextOf(p: DbPrice): ResolvedPrice['longContext'] {
  const tier = (v: DbPrice[string]) => (isTiered(v) && v.tiers.length > 0 ? [...v.tiers].sort((a, b) => a.start - b.start)[0] : undefined);
  const inTier = tier(p.input_mtok);
  const outTier = tier(p.output_mtok);
  if (!inTier || !outTier) return undefined;
  const long: NonNullable<ResolvedPrice['longContext']> = { from: inTier.start, input: inTier.price, output: outTier.price };
  const cached = tier(p.cache_read_mtok);
  const write = tier(p.cache_write_mtok);
  if (cached) long.cachedInput = cached.price;
  if (write) long.cacheWrite = write.price;
  return long;
}

function pickPrice(p: ModelPrice): ModelPrice {
  const out: ModelPrice = { input: p.input, output: p.output };
  if (p.cachedInput !== undefined) out.cachedInput = p.cachedInput;
  if (p.cacheWrite !== undefined) out.cacheWrite = p.cacheWrite;
  return out;
}

/** The day a run happened: its first timestamp, for the prices then in force; undefined when the log has none. */
export function runDate(steps: readonly { timestamp?: string }[]): Date | undefined {
  for (const s of steps) {
    if (!s.timestamp) continue;
    const d = new Date(s.timestamp);
    if (!Number.isNaN(d.getTime())) return d;
  }
  return undefined;
}

/** The rates one request pays: the long-context tier when its prompt reaches it. */
export function ratesFor(price: ResolvedPrice, promptTokens: number): ModelPrice {
  const long = price.longContext;
  if (long && promptTokens >= long.from) return long;
  return price;
}

export interface TokenUsage {
  /** All input tokens: uncached, cache reads and cache writes together. */
  input: number;
  /** The part of `input` served from the prompt cache. */
  cachedInput?: number;
  /** The part of `input` written to the prompt cache. */
  cacheWrite?: number;
  output: number;
}

export interface Cost {
  currency: 'USD';
  /** Uncached input. */
  input: number;
  cachedInput: number;
  cacheWrite: number;
  output: number;
  total: number;
  /** The day the prices are in force (or `settings`), shown with every cost. */
  pricesAsOf: string;
  /** Rates the usage needed that the price does not have: the total is then not a real cost. */
  unknownRates?: ('cachedInput' | 'cacheWrite')[];
}

/**
 * Cost of a usage at a price (one request, or a sum priced at the base rates). Cache reads and
 * writes need their own rates; when the price lacks one, the cost says so in `unknownRates`.
 */
export function costOf(usage: TokenUsage, price: ModelPrice & { asOf?: string }): Cost {
  const cached = Math.min(usage.cachedInput ?? 0, usage.input);
  const written = Math.min(usage.cacheWrite ?? 0, usage.input - cached);
  const unknownRates: NonNullable<Cost['unknownRates']> = [];
  if (cached > 0 && price.cachedInput === undefined) unknownRates.push('cachedInput');
  if (written > 0 && price.cacheWrite === undefined) unknownRates.push('cacheWrite');
  const input = ((usage.input - cached - written) * price.input) / 1e6;
  const cachedInput = (cached * (price.cachedInput ?? price.input)) / 1e6;
  const cacheWrite = (written * (price.cacheWrite ?? price.input)) / 1e6;
  const output = (usage.output * price.output) / 1e6;
  const cost: Cost = { currency: 'USD', input, cachedInput, cacheWrite, output, total: input + cachedInput + cacheWrite + output, pricesAsOf: price.asOf ?? '' };
  if (unknownRates.length > 0) cost.unknownRates = unknownRates;
  return cost;
}

/** `$1.23 (prices of 2026-11-23)`; small amounts keep enough digits to be read. */
export function formatCost(cost: Cost): string {
  if (cost.unknownRates) return `unknown (no ${cost.unknownRates.map((r) => (r === 'cachedInput' ? 'cache-read' : 'cache-write')).join(' or ')} price)`;
  const digits = cost.total !== 0 && cost.total < 0.01 ? 4 : 2;
  return `$${cost.total.toFixed(digits)} (prices of ${cost.pricesAsOf})`;
}
