import type { Run, TrajectoryFile } from '../model';
import { modelNamed } from '../meta';
import { contextWindowOf, costOf, priceFor, runDate, type Cost, type ModelPrice, type PriceOverrides } from '../models';

import type { RunBill } from '../pricing/runCost';
import { compareRecorded, type RecordedReport } from './recorded';
import { tokenizerLabel } from './models';
import { modelCalls, summarizeTokens, type ModelCall, type TokenTotals } from './summary';
import type { TokenCounts } from './tokenService';

// The token figures of a whole file in one plain object: what `stats --json --model` prints and
// what a tooltip or the status bar reads. Pure: counting happened before.

export interface TokenReport {
  tokenizer: {
    name: string;
    /** `o200k_base`, or `≈ o200k_base` for a stand-in: show this next to every count. */
    label: string;
    approximate: boolean;
    model?: string;
    note?: string;
    contextWindow?: number;
  };
  tokens: TokenTotals & {
    /** Share of the run's context window (`contextWindow`) that the whole trajectory fills, when the window is known. */
    contextShare?: number;
    contextWindow?: RunWindow;
  };
  recorded: RecordedReport | null;
  /** Our count of the calls priced as one model (kept for `stats --json`); the run's cost is `bill`. */
  cost: CostReport | null;
  /** The run's one cost, recorded first: the figure every view shows. */
  bill: RunBill;
}

interface CostReport {
  model: string;
  /** The price row used, e.g. `gpt-4o` for `gpt-4o-2024-08-06`. */
  priceRow: string;
  pricesAsOf: string;
  perMillion: ModelPrice;
  /** Model calls reconstructed from the log, and the tokens they were billed for by our count. */
  calls: number;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  /** Every input token at the full rate. */
  withoutCache: Cost;
  /** Each call's repeat of the previous prompt at the cached rate (when the model has one). */
  withPromptCache: Cost;
}

/** The context window a run had, and whose it is. */
export interface RunWindow {
  tokens: number;
  /** The model the window belongs to, when one is named. */
  model?: string;
  /** `log`: the log records the window (Codex); `run`: the window of the model the run used; `tokenizer`: the log names no model we know, so the counting model's. */
  from: 'log' | 'run' | 'tokenizer';
}

/**
 * The window the run worked in: the one its log records, else that of the model it ran on. The
 * tokenizer setting picks how tokens are counted, not the model that held them, so its model's
 * window stands in only when the log names none we know (a gpt-5-mini run counted with gpt-4o's
 * tokenizer still had 400,000 tokens, not 128,000).
 */
export function runWindow(run: Run, tokenizerModel?: string): RunWindow | undefined {
  if (typeof run.meta.contextWindow === 'number') return { tokens: run.meta.contextWindow, from: 'log', ...(typeof run.meta.model === 'string' ? { model: run.meta.model } : {}) };
  const logged = modelNamed(run);
  const ran = contextWindowOf(logged);
  if (ran !== undefined) return { tokens: ran, model: logged, from: 'run' };
  const counted = contextWindowOf(tokenizerModel);
  return counted !== undefined ? { tokens: counted, model: tokenizerModel, from: 'tokenizer' } : undefined;
}

/** The token report of a file, beside its bill (`billRun` of core/simulate: the cost every view shows). */
export function tokenReport(t: TrajectoryFile, counts: TokenCounts, prices: PriceOverrides, bill: RunBill): TokenReport {
  const runs = t.runs;
  const steps = runs.flatMap((r) => r.steps);
  const totals = summarizeTokens(steps, counts.steps);
  const info = counts.tokenizer;
  // Several runs each had a context of their own: their sum is a share of no window.
  const window = runs.length === 1 ? runWindow(runs[0], info.model) : undefined;
  const share = window ? totals.total / window.tokens : undefined;
  const tokenizer: TokenReport['tokenizer'] = { name: info.encoding, label: tokenizerLabel(info), approximate: info.approximate };
  if (info.model !== undefined) tokenizer.model = info.model;
  if (info.note !== undefined) tokenizer.note = info.note;
  if (info.contextWindow !== undefined) tokenizer.contextWindow = info.contextWindow;

  const calls: ModelCall[] = [];
  let offset = 0;
  for (const run of runs) {
    calls.push(...modelCalls(run.steps, counts.steps.slice(offset, offset + run.steps.length)));
    offset += run.steps.length;
  }
  return {
    tokenizer,
    tokens: share === undefined ? totals : { ...totals, contextShare: share, contextWindow: window },
    recorded: compareRecorded(t, counts.steps) ?? null,
    cost: costReport(info.model, calls, prices, runDate(steps)) ?? null,
    bill,
  };
}

function costReport(model: string | undefined, calls: readonly ModelCall[], prices: PriceOverrides, at?: Date): CostReport | undefined {
  // The prices in force when the run happened, where the log says when.
  const price = model ? priceFor(model, prices, at) : undefined;
  if (!model || !price) return undefined;
  const input = calls.reduce((n, c) => n + c.input, 0);
  const cached = calls.reduce((n, c) => n + c.cachedInput, 0);
  const output = calls.reduce((n, c) => n + c.output, 0);
  const perMillion: ModelPrice = { input: price.input, output: price.output };
  if (price.cachedInput !== undefined) perMillion.cachedInput = price.cachedInput;
  if (price.cacheWrite !== undefined) perMillion.cacheWrite = price.cacheWrite;
  return {
    model,
    priceRow: price.matched,
    pricesAsOf: price.asOf,
    perMillion,
    calls: calls.length,
    inputTokens: input,
    cachedInputTokens: cached,
    outputTokens: output,
    withoutCache: costOf({ input, output }, price),
    // A model without a cache-read price is billed in full: it has no prompt cache to serve from.
    withPromptCache: costOf({ input, cachedInput: price.cachedInput === undefined ? 0 : cached, output }, price),
  };
}
