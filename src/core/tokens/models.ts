// Which tokenizer counts a model's text, as shown beside a count. The table of models (encodings,
// context windows) is on the ground floor, `core/models/`, shared with the prices.

import { DEFAULT_ENCODING, knownModel, type EncodingName } from '../models';

export interface TokenizerInfo {
  /** The model as the user or the log named it; undefined when none was given. */
  model?: string;
  encoding: EncodingName;
  /** True when `encoding` stands in for a tokenizer we do not have: counts are shown with "≈". */
  approximate: boolean;
  /** Why the count is approximate, for tooltips and `--json`. */
  note?: string;
  /** Context window in tokens, when we know it. */
  contextWindow?: number;
}

/** The tokenizer for a model name; unknown or missing models get o200k_base, marked approximate. */
export function tokenizerFor(model: string | undefined): TokenizerInfo {
  if (!model || model.trim() === '') {
    return { encoding: DEFAULT_ENCODING, approximate: true, note: `no model given; counted with ${DEFAULT_ENCODING}` };
  }
  const rule = knownModel(model);
  if (!rule) {
    return { model, encoding: DEFAULT_ENCODING, approximate: true, note: `unknown model; ${DEFAULT_ENCODING} stands in for its tokenizer` };
  }
  const info: TokenizerInfo = { model, encoding: rule.encoding, approximate: rule.standInFor !== undefined };
  if (rule.standInFor) info.note = `${rule.standInFor} tokenizer is not public; ${rule.encoding} stands in`;
  if (rule.contextWindow !== undefined) info.contextWindow = rule.contextWindow;
  return info;
}

/** The tokenizer as shown next to a count: `o200k_base`, or `≈ o200k_base` for a stand-in. */
export function tokenizerLabel(info: TokenizerInfo): string {
  return info.approximate ? `≈ ${info.encoding}` : info.encoding;
}

/** A count with its tokenizer, e.g. `12,345 tokens (o200k_base)` or `≈12,345 tokens (≈ o200k_base)`. */
export function formatTokenCount(n: number, info: TokenizerInfo): string {
  const number = n.toLocaleString('en-US');
  return `${info.approximate ? '≈' : ''}${number} tokens (${tokenizerLabel(info)})`;
}
