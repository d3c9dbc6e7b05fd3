// The size of a summary written without a model. A strategy whose source publishes no summary
// size takes `summary_max_chars`; what does not fit is ranked (facts/render.ts), never cut at the end.

import type { OptionSpec, StrategyOptions } from '../types';

// About 2,000 tokens: room for a long run's hand-over, a small share of any model's window.
export const DEFAULT_SUMMARY_CHARS = 8000;

export const SUMMARY_MAX_CHARS: OptionSpec = {
  name: 'summary_max_chars', type: 'integer', default: DEFAULT_SUMMARY_CHARS, min: 400, max: 1_000_000,
  help: 'The summary written without a model takes at most this many characters: the least telling lines go first; the task, later requests and answers, the plan, files changed and the last error go last.',
};

export function summaryMaxChars(options: StrategyOptions): number {
  const n = Number(options.summary_max_chars);
  return Number.isFinite(n) && n > 0 ? n : DEFAULT_SUMMARY_CHARS;
}

/** `summaryBudget` for a strategy whose whole summary is the rendered text plus `wrapper` characters. */
export const charsBudget = (options: StrategyOptions) => ({ chars: summaryMaxChars(options) });
