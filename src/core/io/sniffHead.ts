import type { ParsedInput } from './input';

// What adapters see when they sniff: the start of the file only, however large it is.

/** Records (JSON lines, items of a top-level array) past this many are not shown to `sniff`. */
const SNIFF_RECORDS = 1000;
/** Nor are records past the first 64 KB of content: detection stays cheap however large the file. */
export const SNIFF_BYTES = 64 * 1024;
/**
 * A record counts for at most this much of it: one long first line (a 77 KB pasted prompt in
 * Claude Code's queue-operation line) must not hide the lines that say what the file is.
 */
const RECORD_CHARGE = 8 * 1024;

/**
 * Sniffing must stay cheap on a million-line file: adapters see the records that start within its
 * first 64 KB, each counted for at most 8 KB (so at least eight, at most 1000), and the first 64 KB
 * of a text file.
 */
export function headOf(input: ParsedInput): ParsedInput {
  switch (input.shape) {
    case 'jsonl': {
      const n = countWithin(input.records, (r) => r.value);
      return n === input.records.length ? input : { shape: 'jsonl', records: input.records.slice(0, n) };
    }
    case 'json': {
      if (!Array.isArray(input.value)) return input;
      const n = countWithin(input.value, (v) => v);
      return n === input.value.length ? input : { shape: 'json', value: input.value.slice(0, n) };
    }
    case 'text':
      return input.text.length > SNIFF_BYTES ? { shape: 'text', text: input.text.slice(0, SNIFF_BYTES) } : input;
    default:
      return input;
  }
}

/** The head counted as records arrive: `take` is true while a record is still one `sniff` sees (as `headOf`). */
export class HeadCounter {
  private n = 0;
  private used = 0;

  take(value: unknown): boolean {
    if (this.n >= SNIFF_RECORDS || this.used >= SNIFF_BYTES) return false;
    this.used += chargeOf(value);
    this.n++;
    return true;
  }
}

/** How many leading items start within the first SNIFF_BYTES of (approximate) JSON text. */
function countWithin<T>(items: readonly T[], valueOf: (item: T) => unknown): number {
  let used = 0;
  let n = 0;
  while (n < items.length && n < SNIFF_RECORDS && used < SNIFF_BYTES) {
    used += chargeOf(valueOf(items[n]));
    n++;
  }
  return Math.max(1, Math.min(n, items.length));
}

/** What a record counts for against the head's bytes: its JSON length, at most RECORD_CHARGE. */
function chargeOf(value: unknown): number {
  return Math.min(RECORD_CHARGE, approxJsonSize(value, RECORD_CHARGE + 1));
}

/** Roughly the length of a value's JSON text, counted only until it passes `limit`. */
function approxJsonSize(value: unknown, limit: number): number {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && size <= limit) {
    const v = stack.pop();
    if (typeof v === 'string') size += v.length + 2;
    else if (Array.isArray(v)) {
      size += 2 + v.length;
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]);
    } else if (v && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        size += k.length + 4;
        stack.push(child);
      }
      size += 2;
    } else size += String(v).length;
  }
  return size;
}

