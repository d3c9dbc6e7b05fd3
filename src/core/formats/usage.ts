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
