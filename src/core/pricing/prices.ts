import { longestPrefixMatch, normalizeModelId } from '../tokens/models';

// The price table that ships with the extension. Figures are the vendors' public list prices in
// US dollars per million tokens as of PRICE_TABLE_DATE (standard tier, no batch discount, the
// lowest context tier where a price depends on prompt length). They go stale: settings
// (`agentTraceLens.prices`) override any row, and every cost is shown with the date it rests on.
export const PRICE_TABLE_DATE = '2025-08-15';

export interface ModelPrice {
  /** USD per million input tokens. */
  input: number;
  /** USD per million input tokens served from the provider's prompt cache, where it has one. */
  cachedInput?: number;
  /** USD per million output tokens. */
  output: number;
}

interface PriceRow extends ModelPrice {
  prefix: string;
}

// Longest prefix wins (`gpt-4o-mini` before `gpt-4o`, `claude-3-5-haiku` before `claude-3`).
const BUILT_IN_PRICES: readonly PriceRow[] = [
  // OpenAI
  { prefix: 'gpt-5', input: 1.25, cachedInput: 0.125, output: 10 },
  { prefix: 'gpt-5-mini', input: 0.25, cachedInput: 0.025, output: 2 },
  { prefix: 'gpt-5-nano', input: 0.05, cachedInput: 0.005, output: 0.4 },
  { prefix: 'gpt-4.1', input: 2, cachedInput: 0.5, output: 8 },
  { prefix: 'gpt-4.1-mini', input: 0.4, cachedInput: 0.1, output: 1.6 },
  { prefix: 'gpt-4.1-nano', input: 0.1, cachedInput: 0.025, output: 0.4 },
  { prefix: 'gpt-4o', input: 2.5, cachedInput: 1.25, output: 10 },
  { prefix: 'gpt-4o-mini', input: 0.15, cachedInput: 0.075, output: 0.6 },
  { prefix: 'o1', input: 15, cachedInput: 7.5, output: 60 },
  { prefix: 'o1-mini', input: 1.1, cachedInput: 0.55, output: 4.4 },
  { prefix: 'o3', input: 2, cachedInput: 0.5, output: 8 },
  { prefix: 'o3-mini', input: 1.1, cachedInput: 0.55, output: 4.4 },
  { prefix: 'o4-mini', input: 1.1, cachedInput: 0.275, output: 4.4 },
  { prefix: 'gpt-4-turbo', input: 10, output: 30 },
  { prefix: 'gpt-4-1106', input: 10, output: 30 },
  { prefix: 'gpt-4-0125', input: 10, output: 30 },
  { prefix: 'gpt-4-32k', input: 60, output: 120 },
  { prefix: 'gpt-4', input: 30, output: 60 },
  { prefix: 'gpt-3.5-turbo', input: 0.5, output: 1.5 },
  // Anthropic (cached input = cache reads)
  { prefix: 'claude-opus-4', input: 15, cachedInput: 1.5, output: 75 },
  { prefix: 'claude-sonnet-4', input: 3, cachedInput: 0.3, output: 15 },
  { prefix: 'claude-3-7-sonnet', input: 3, cachedInput: 0.3, output: 15 },
  { prefix: 'claude-3-5-sonnet', input: 3, cachedInput: 0.3, output: 15 },
  { prefix: 'claude-3-5-haiku', input: 0.8, cachedInput: 0.08, output: 4 },
  { prefix: 'claude-3-opus', input: 15, cachedInput: 1.5, output: 75 },
  { prefix: 'claude-3-haiku', input: 0.25, cachedInput: 0.03, output: 1.25 },
  // Google (prompts up to 200k tokens for 2.5 Pro)
  { prefix: 'gemini-2.5-pro', input: 1.25, cachedInput: 0.31, output: 10 },
  { prefix: 'gemini-2.5-flash', input: 0.3, cachedInput: 0.075, output: 2.5 },
  { prefix: 'gemini-2.5-flash-lite', input: 0.1, cachedInput: 0.025, output: 0.4 },
  { prefix: 'gemini-2.0-flash', input: 0.1, cachedInput: 0.025, output: 0.4 },
];

/** Settings: model id (or prefix) → price, overriding the built-in row. */
export type PriceOverrides = Record<string, ModelPrice>;

export interface ResolvedPrice extends ModelPrice {
  /** The table row that matched, e.g. `gpt-4o` for `gpt-4o-2024-08-06`. */
  matched: string;
  /** The date the figures rest on: the table's date, or `settings` for an override. */
  asOf: string;
}

/** The price of a model: an override wins over the built-in table; undefined when neither knows it. */
export function priceFor(model: string | undefined, overrides: PriceOverrides = {}): ResolvedPrice | undefined {
  if (!model) return undefined;
  const id = normalizeModelId(model);
  const overrideRows = Object.entries(overrides).map(([prefix, price]) => ({ ...price, prefix: normalizeModelId(prefix) }));
  const override = longestPrefixMatch(overrideRows, id);
  if (override) return { ...pickPrice(override), matched: override.prefix, asOf: 'settings' };
  const row = longestPrefixMatch(BUILT_IN_PRICES, id);
  return row ? { ...pickPrice(row), matched: row.prefix, asOf: PRICE_TABLE_DATE } : undefined;
}

function pickPrice(p: ModelPrice): ModelPrice {
  return p.cachedInput === undefined ? { input: p.input, output: p.output } : { input: p.input, cachedInput: p.cachedInput, output: p.output };
}

export interface TokenUsage {
  /** All input tokens, cached ones included. */
  input: number;
  /** The part of `input` served from the prompt cache. */
  cachedInput?: number;
  output: number;
}

export interface Cost {
  currency: 'USD';
  input: number;
  cachedInput: number;
  output: number;
  total: number;
  /** The price table's date (or `settings`), shown with every cost. */
  pricesAsOf: string;
}

/** Cost of a usage at a price. Cached tokens are billed at the cached rate where the model has one. */
export function costOf(usage: TokenUsage, price: ResolvedPrice): Cost {
  const cachedTokens = price.cachedInput === undefined ? 0 : Math.min(usage.cachedInput ?? 0, usage.input);
  const input = ((usage.input - cachedTokens) * price.input) / 1e6;
  const cachedInput = (cachedTokens * (price.cachedInput ?? 0)) / 1e6;
  const output = (usage.output * price.output) / 1e6;
  return { currency: 'USD', input, cachedInput, output, total: input + cachedInput + output, pricesAsOf: price.asOf };
}

/** `$1.23 (prices of 2025-08-15)`; small amounts keep enough digits to be read. */
export function formatCost(cost: Cost): string {
  const digits = cost.total !== 0 && cost.total < 0.01 ? 4 : 2;
  return `$${cost.total.toFixed(digits)} (prices of ${cost.pricesAsOf})`;
}
