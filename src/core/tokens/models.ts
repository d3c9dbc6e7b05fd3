// Which tokenizer counts a model's text, and how large its context window is.
// tiktoken's own model table matches exact ids only (`gpt-5.1` throws), so we keep a prefix table
// in the spirit of OpenAI's MODEL_PREFIX_TO_ENCODING and look up the longest matching prefix.

/** The encodings we load from `tiktoken`. */
export type EncodingName = 'o200k_base' | 'cl100k_base';

export const DEFAULT_ENCODING: EncodingName = 'o200k_base';

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

interface ModelRule {
  prefix: string;
  encoding: EncodingName;
  /** Set for models of vendors whose tokenizer is not public: what we stand in for. */
  standInFor?: string;
  contextWindow?: number;
}

// Longest prefix wins, so `gpt-4o` beats `gpt-4` and `gpt-4.1` beats `gpt-4`.
const MODEL_RULES: readonly ModelRule[] = [
  { prefix: 'gpt-5', encoding: 'o200k_base', contextWindow: 400_000 },
  { prefix: 'gpt-5-chat', encoding: 'o200k_base', contextWindow: 128_000 },
  { prefix: 'gpt-4.5', encoding: 'o200k_base', contextWindow: 128_000 },
  { prefix: 'gpt-4.1', encoding: 'o200k_base', contextWindow: 1_047_576 },
  { prefix: 'gpt-4o', encoding: 'o200k_base', contextWindow: 128_000 },
  { prefix: 'chatgpt-4o', encoding: 'o200k_base', contextWindow: 128_000 },
  { prefix: 'o1', encoding: 'o200k_base', contextWindow: 200_000 },
  { prefix: 'o1-mini', encoding: 'o200k_base', contextWindow: 128_000 },
  { prefix: 'o1-preview', encoding: 'o200k_base', contextWindow: 128_000 },
  { prefix: 'o3', encoding: 'o200k_base', contextWindow: 200_000 },
  { prefix: 'o4-mini', encoding: 'o200k_base', contextWindow: 200_000 },
  { prefix: 'codex-mini', encoding: 'o200k_base', contextWindow: 200_000 },
  // gpt-oss uses o200k_harmony: o200k_base plus chat special tokens, identical on ordinary text.
  { prefix: 'gpt-oss', encoding: 'o200k_base', contextWindow: 131_072 },
  { prefix: 'gpt-4', encoding: 'cl100k_base', contextWindow: 8_192 },
  { prefix: 'gpt-4-32k', encoding: 'cl100k_base', contextWindow: 32_768 },
  { prefix: 'gpt-4-turbo', encoding: 'cl100k_base', contextWindow: 128_000 },
  { prefix: 'gpt-4-1106', encoding: 'cl100k_base', contextWindow: 128_000 },
  { prefix: 'gpt-4-0125', encoding: 'cl100k_base', contextWindow: 128_000 },
  { prefix: 'gpt-3.5', encoding: 'cl100k_base', contextWindow: 16_385 },
  { prefix: 'gpt-35', encoding: 'cl100k_base', contextWindow: 16_385 },
  // Other vendors: their tokenizers are not in tiktoken; o200k_base is the stated stand-in.
  { prefix: 'claude', encoding: 'o200k_base', standInFor: 'Anthropic', contextWindow: 200_000 },
  { prefix: 'gemini', encoding: 'o200k_base', standInFor: 'Google', contextWindow: 1_048_576 },
  { prefix: 'gemini-1.5-pro', encoding: 'o200k_base', standInFor: 'Google', contextWindow: 2_097_152 },
  { prefix: 'deepseek', encoding: 'o200k_base', standInFor: 'DeepSeek', contextWindow: 128_000 },
  { prefix: 'qwen', encoding: 'o200k_base', standInFor: 'Qwen' },
  { prefix: 'llama', encoding: 'o200k_base', standInFor: 'Meta Llama' },
  { prefix: 'mistral', encoding: 'o200k_base', standInFor: 'Mistral' },
  { prefix: 'devstral', encoding: 'o200k_base', standInFor: 'Mistral' },
  { prefix: 'kimi', encoding: 'o200k_base', standInFor: 'Moonshot' },
  { prefix: 'glm', encoding: 'o200k_base', standInFor: 'Zhipu' },
];

/**
 * The bare model id: lowercase, without a routing prefix (`openai/`, `anthropic/`, `azure/`,
 * `litellm_proxy/`, `bedrock/us.anthropic.`) and without a fine-tune wrapper (`ft:gpt-4o-…:org::id`).
 */
export function normalizeModelId(model: string): string {
  let id = model.trim().toLowerCase();
  if (id.startsWith('ft:')) id = id.slice(3);
  const slash = id.lastIndexOf('/');
  if (slash >= 0) id = id.slice(slash + 1);
  // Bedrock ids look like `us.anthropic.claude-…` or `anthropic.claude-…`.
  const dotted = /^(?:[a-z]{2}\.)?(?:anthropic|meta|mistral|amazon|google)\.(.*)$/.exec(id);
  if (dotted) id = dotted[1];
  return id;
}

/** Longest rule whose prefix the id starts with, or undefined. Shared with the price table. */
export function longestPrefixMatch<T extends { prefix: string }>(rules: readonly T[], id: string): T | undefined {
  let best: T | undefined;
  for (const rule of rules) {
    if (id.startsWith(rule.prefix) && (!best || rule.prefix.length > best.prefix.length)) best = rule;
  }
  return best;
}

/** The tokenizer for a model name; unknown or missing models get o200k_base, marked approximate. */
export function tokenizerFor(model: string | undefined): TokenizerInfo {
  if (!model || model.trim() === '') {
    return { encoding: DEFAULT_ENCODING, approximate: true, note: `no model given; counted with ${DEFAULT_ENCODING}` };
  }
  const rule = longestPrefixMatch(MODEL_RULES, normalizeModelId(model));
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

/** Share of the context window a count fills, 0..1+, or undefined when the window is unknown. */
export function contextShare(tokens: number, info: TokenizerInfo): number | undefined {
  return info.contextWindow ? tokens / info.contextWindow : undefined;
}
