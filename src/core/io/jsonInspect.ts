// Two things a hostile (or broken) log can hide in well-formed JSON, found in one walk of the
// parsed value with a stack of its own: nesting so deep that the recursive code after the parser
// (format detection, adapters, statistics, ATIF export) would exhaust the call stack, and usage
// figures that cannot be counts (1e999 parses as Infinity; negative token counts or costs).

/** Deeper than any real trajectory (a few dozen levels), far below what recursion can handle. */
export const MAX_NESTING = 1000;

export interface JsonFindings {
  /** Set when the value nests deeper than MAX_NESTING: the keys and indexes on the way down (the first few). */
  tooDeep?: { path: string[] };
  /** `key = value` for token or cost figures that are negative or not finite. */
  oddUsage: string[];
}

const USAGE_KEY = /tokens?|cost|usage/i;
const seen = new WeakMap<object, JsonFindings>();
/** Where in its line a value read from one line passes the limit (bytes from the line's start). */
const deepAt = new WeakMap<object, number>();

/** For a value parsed from one line of text: notes the byte where it nests too deep, if it does. */
export function noteNesting(value: unknown, line: string): void {
  if (value === null || typeof value !== 'object' || !inspectJson(value).tooDeep) return;
  const at = nestingOffset(line);
  if (at !== undefined) deepAt.set(value, Buffer.byteLength(line.slice(0, at), 'utf8'));
}

/** The byte noted by `noteNesting`. */
export function notedNestingByte(value: unknown): number | undefined {
  return value !== null && typeof value === 'object' ? deepAt.get(value) : undefined;
}

/** Walks `value` once (the answer is kept per object, so a second look costs nothing). */
export function inspectJson(value: unknown, limit = MAX_NESTING): JsonFindings {
  if (value === null || typeof value !== 'object') return { oddUsage: [] };
  const known = seen.get(value);
  if (known && limit === MAX_NESTING) return known;
  const findings: JsonFindings = { oddUsage: [] };
  // Depth first with a stack of its own (two parallel arrays: no object per container); the path
  // is looked for only when the limit is passed.
  const values: object[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const v = values.pop()!;
    const depth = depths.pop()!;
    if (depth >= limit) {
      findings.tooDeep = { path: pathTo(value, limit) };
      break;
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        const c: unknown = v[i];
        if (c !== null && typeof c === 'object') { values.push(c); depths.push(depth + 1); }
      }
      continue;
    }
    const o = v as Record<string, unknown>;
    for (const key in o) {
      const c = o[key];
      if (typeof c === 'number') {
        if (!(c >= 0 && c < Infinity) && USAGE_KEY.test(key) && findings.oddUsage.length < 20) findings.oddUsage.push(`${key} = ${c}`);
      } else if (c !== null && typeof c === 'object') {
        values.push(c);
        depths.push(depth + 1);
      }
    }
  }
  if (limit === MAX_NESTING) seen.set(value, findings);
  return findings;
}

/**
 * The keys down to the first container `limit` levels deep. When a container is taken off the
 * stack, the last one taken at the depth above is its parent, so `chain` holds its path.
 */
function pathTo(root: object, limit: number): string[] {
  const stack: { v: object; depth: number; key?: string }[] = [{ v: root, depth: 0 }];
  const chain: string[] = [];
  while (stack.length > 0) {
    const item = stack.pop()!;
    chain.length = item.depth;
    if (item.key !== undefined) chain[item.depth - 1] = item.key;
    if (item.depth >= limit) return chain.slice();
    for (const key of Object.keys(item.v).reverse()) {
      const c = (item.v as Record<string, unknown>)[key];
      if (c !== null && typeof c === 'object') stack.push({ v: c, depth: item.depth + 1, key });
    }
  }
  return chain;
}

/** `/a/0/0/0/…` with the first few steps of a path far too long to print. */
export function shortPointer(path: readonly string[], shown = 6): string {
  const head = path.slice(0, shown).map((k) => '/' + k.replace(/~/g, '~0').replace(/\//g, '~1')).join('');
  return path.length > shown ? `${head}/… (${path.length} levels)` : head || '/';
}

/**
 * The offset in `text` (a JSON document) where nesting first passes `limit` levels, outside
 * strings; undefined when it never does.
 */
export function nestingOffset(text: string, limit = MAX_NESTING): number | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string: to the next quote not escaped by an odd number of backslashes.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return i;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return undefined;
}
