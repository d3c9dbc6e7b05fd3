import type { RecordedUsage } from '../model';
import { isRecord } from '../steps';

// Recorded usage as the newer formats write it. `inputTokens` is always the whole prompt (fresh
// plus cached), as everywhere in the model; a format that counts cache reads apart adds them in.

export interface UsageParts {
  model?: string;
  /** The whole prompt, cached tokens included. */
  input?: number;
  output?: number;
  cacheRead?: number;
  /** Tokens written to the prompt cache (a part of `input`). */
  cacheWrite?: number;
  cost?: number;
}

/** A RecordedUsage with only the fields the log has, or undefined when it has no figure at all. */
export function recordedUsage(parts: UsageParts): RecordedUsage | undefined {
  const u: RecordedUsage = {};
  if (parts.model) u.model = parts.model;
  if (parts.input !== undefined) u.inputTokens = parts.input;
  if (parts.output !== undefined) u.outputTokens = parts.output;
  if (parts.cacheRead !== undefined) u.cachedInputTokens = parts.cacheRead;
  if (parts.cacheWrite !== undefined) u.cacheWriteTokens = parts.cacheWrite;
  if (parts.cost !== undefined) u.cost = parts.cost;
  return u.inputTokens === undefined && u.outputTokens === undefined && u.cost === undefined ? undefined : u;
}

/**
 * A provider's usage object in either of OpenAI's shapes: Chat Completions (`prompt_tokens`,
 * `completion_tokens`, `prompt_tokens_details.cached_tokens`) or Responses (`input_tokens`,
 * `output_tokens`, `input_tokens_details.cached_tokens`; a list of one in an Agents SDK RunState),
 * with what LiteLLM passes through beside them from Anthropic (`cache_read_input_tokens`,
 * `cache_creation_input_tokens`). Either prompt count holds the cached tokens. One reading for
 * every format that keeps a raw OpenAI-style response: mini-swe-agent run through the Responses API
 * records the second shape where its other runs record the first.
 */
export function openaiUsageParts(u: Record<string, unknown>): UsageParts {
  const details = (key: string) => {
    const v = u[key];
    const d = Array.isArray(v) ? v[0] : v;
    return isRecord(d) ? d : {};
  };
  return definedParts({
    input: num(u.prompt_tokens ?? u.input_tokens),
    output: num(u.completion_tokens ?? u.output_tokens),
    cacheRead: num(u.cached_tokens ?? details('prompt_tokens_details').cached_tokens ?? details('input_tokens_details').cached_tokens ?? u.cache_read_input_tokens),
    cacheWrite: num(u.cache_creation_input_tokens),
    cost: num(u.cost ?? u.total_cost ?? u.cost_usd),
  });
}

function definedParts(p: UsageParts): UsageParts {
  return Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)) as UsageParts;
}

export function num(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}

/** `record[key]` as an object, or an empty one. */
export function obj(record: unknown, key: string): Record<string, unknown> {
  const v = isRecord(record) ? record[key] : undefined;
  return isRecord(v) ? v : {};
}

/** Sums usages field by field; the model stays only when every part names the same one. */
export function sumUsage(parts: readonly (RecordedUsage | undefined)[]): RecordedUsage | undefined {
  let total: RecordedUsage | undefined;
  for (const u of parts) {
    if (!u) continue;
    if (!total) {
      total = { ...u };
      continue;
    }
    const plus = (a?: number, b?: number) => (a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0));
    total = {
      ...(total.model === u.model && u.model ? { model: u.model } : {}),
      ...definedOnly({
        inputTokens: plus(total.inputTokens, u.inputTokens),
        outputTokens: plus(total.outputTokens, u.outputTokens),
        cachedInputTokens: plus(total.cachedInputTokens, u.cachedInputTokens),
        cacheWriteTokens: plus(total.cacheWriteTokens, u.cacheWriteTokens),
        cacheWrite1hTokens: plus(total.cacheWrite1hTokens, u.cacheWrite1hTokens),
        cost: plus(total.cost, u.cost),
      }),
    };
  }
  return total;
}

function definedOnly<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
