// The token-counting seam. Everything that shows or compares token counts goes through this,
// so the tokenizer in use can always be named next to the number.

export interface TokenCounter {
  /** Name of the tokenizer, e.g. `o200k_base`; shown wherever a count is. */
  readonly tokenizer: string;
  /** True when the tokenizer is a stand-in for the model's own (counts shown with "≈"). */
  readonly approximate: boolean;
  /** Tokens of plain text. Special-token text such as `<|endoftext|>` counts as ordinary text. */
  count(text: string): number;
}

/** A cheap estimate (4 characters a token), used until exact counts arrive and in tests. */
export const charEstimateCounter: TokenCounter = {
  tokenizer: 'chars/4',
  approximate: true,
  count: (text) => Math.ceil(text.length / 4),
};
