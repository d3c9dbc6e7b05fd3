// Secret redaction: applied to every piece of content before it is sent to a model, so a key
// pasted into a trajectory (or echoed by a tool) never leaves the machine. Each removed value is
// replaced by a marker naming what it was, e.g. `[REDACTED:github-token]`, and counted.
//
// The rules favour specific, well-known token shapes. The generic `password=` / `token:` rule
// checks the value so that ordinary code (`token = tokens[i]`, `password: string`) is left alone;
// hex hashes (git SHAs, sha256) and UUIDs match no rule. Every rule runs in linear time.

import { REDACTED_PREFIX, marker } from './redactMarker';
import { RULES, type Rule } from './redactRules';
import { entropySpans, privateKeySpans, type Span } from './redactScanners';

export interface RedactionResult {
  text: string;
  /** Number of values replaced. */
  count: number;
  /** Count per kind of secret, e.g. `{ 'github-token': 2 }`. */
  kinds: Record<string, number>;
}



// The `d` flag gives each group's position, so only the secret itself is replaced.
const COMPILED = RULES.map((rule) => ({ ...rule, pattern: new RegExp(rule.pattern.source, rule.pattern.flags + 'd') }));

function applyRule(rule: Rule, text: string, kinds: Record<string, number>): string {
  if (rule.needs && !rule.needs.some((n) => text.includes(n))) return text;
  const re = rule.pattern;
  re.lastIndex = 0;
  let out = '';
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const g = typeof rule.group === 'function' ? rule.group(m) : (rule.group ?? 0);
    const secret = m[g];
    const span = m.indices?.[g];
    if (secret === undefined || !span) continue;
    if (secret.startsWith(REDACTED_PREFIX)) continue;
    if (rule.accept && !rule.accept(secret, m)) continue;
    const kind = typeof rule.kind === 'function' ? rule.kind(m) : rule.kind;
    kinds[kind] = (kinds[kind] ?? 0) + 1;
    out += text.slice(last, span[0]) + marker(kind);
    last = span[1];
  }
  return out + text.slice(last);
}

function applySpans(spans: Span[], text: string, kinds: Record<string, number>): string {
  if (spans.length === 0) return text;
  let out = '';
  let last = 0;
  for (const s of spans) {
    kinds[s.kind] = (kinds[s.kind] ?? 0) + 1;
    out += text.slice(last, s.start) + marker(s.kind);
    last = s.end;
  }
  return out + text.slice(last);
}

/** Replaces secrets in `text` with `[REDACTED:<kind>]` markers and counts them. Idempotent. */
export function redactSecrets(text: string, o: { randomValues?: boolean } = {}): RedactionResult {
  const kinds: Record<string, number> = {};
  // Key blocks first (their bodies would otherwise match token rules piecemeal), random values last.
  let out = applySpans(privateKeySpans(text), text, kinds);
  for (const rule of COMPILED) out = applyRule(rule, out, kinds);
  if (o.randomValues !== false) out = applySpans(entropySpans(out), out, kinds);
  const count = Object.values(kinds).reduce((a, b) => a + b, 0);
  return { text: out, count, kinds };
}

/** Adds one redaction result's counts into a running total (for a whole request or run). */
export function addRedactions(total: { count: number; kinds: Record<string, number> }, part: RedactionResult): void {
  total.count += part.count;
  for (const [k, n] of Object.entries(part.kinds)) total.kinds[k] = (total.kinds[k] ?? 0) + n;
}

/** "3 (2 github-token, 1 url-password)" or "none found". */
export function describeRedactions(r: { count: number; kinds: Record<string, number> }): string {
  if (r.count === 0) return 'none found';
  const parts = Object.entries(r.kinds)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([k, n]) => `${n} ${k}`);
  return `${r.count} (${parts.join(', ')})`;
}

type Tally = { count: number; kinds: Record<string, number> };

function redactString(v: string, total: Tally, o: { randomValues?: boolean } = {}): string {
  const r = redactSecrets(v, o);
  if (r.count) addRedactions(total, r);
  return r.text;
}

/**
 * Every string in a JSON-like value, redacted, keys included (a copy; the value itself is
 * untouched). For files people share: exports, reports. `total` receives the counts.
 */
export function redactDeep<T>(value: T, total: Tally, text: (s: string) => string = (s) => redactString(s, total)): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return text(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      // Null prototype: a key from the log (`__proto__`) stays a plain key.
      const out: Record<string, unknown> = Object.create(null);
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[text(k)] = walk(x);
      return Object.setPrototypeOf(out, Object.prototype);
    }
    return v;
  };
  return walk(value) as T;
}

/**
 * `redactDeep` for a value that is only written out (an export): arrays and plain objects in which
 * nothing was redacted are returned as they are, not copied, so a large export with few secrets
 * is not held twice. The result must not be changed (it may share parts with `value`).
 */
export function redactShared<T>(value: T, total: Tally, text: (s: string) => string = (s) => redactString(s, total)): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return text(v);
    if (Array.isArray(v)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        if (!(i in v)) continue;
        const x = walk(v[i]);
        if (x !== v[i] && !out) out = v.slice(0, i);
        if (out) out[i] = x;
      }
      if (out) out.length = v.length;
      return out ?? v;
    }
    if (v && typeof v === 'object') {
      const proto = Object.getPrototypeOf(v) as unknown;
      // Anything but a plain object is copied as redactDeep copies it (its own enumerable fields).
      if (proto !== Object.prototype && proto !== null) return redactDeep(v, total, text);
      const entries = Object.entries(v as Record<string, unknown>);
      let out: Record<string, unknown> | undefined;
      for (const [n, [k, x]] of entries.entries()) {
        const key = text(k);
        const y = walk(x);
        if ((y !== x || key !== k) && !out) {
          out = Object.create(null) as Record<string, unknown>;
          for (const [k0, x0] of entries.slice(0, n)) out[k0] = x0;
        }
        if (out) out[key] = y;
      }
      return out ? Object.setPrototypeOf(out, Object.prototype) : v;
    }
    return v;
  };
  return walk(value) as T;
}

/**
 * The one pass every exit takes: text or any JSON-like value leaving the program (a model
 * request, a file, printed output, the clipboard) with its secrets replaced, keys included.
 * `redact: false` (the user's `--no-redact`) returns the value as it is.
 */
export function redactOutgoing<T>(value: T, opts: { redact?: boolean; total?: Tally; keep?: readonly string[] } = {}): T {
  if (opts.redact === false) return value;
  const total = opts.total ?? { count: 0, kinds: {} };
  const keep = [...new Set(opts.keep ?? [])].filter((k) => k.length > 0).sort((a, b) => b.length - a.length);
  if (keep.length === 0) return redactShared(value, total);
  // What the user typed (a file's path, an output's name) is theirs, not the log's: a random-looking
  // run id in a file name is not a secret. The text around it is redacted as always; it keeps all
  // but the named token shapes (`ghp_…`, `sk-…`).
  const shown = new Map(keep.map((k) => [k, redactString(k, total, { randomValues: false })]));
  const typed = new RegExp(keep.map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  const text = (s: string): string => {
    let out = '';
    let last = 0;
    for (const m of s.matchAll(typed)) {
      out += redactString(s.slice(last, m.index), total) + shown.get(m[0])!;
      last = m.index + m[0].length;
    }
    return last === 0 ? redactString(s, total) : out + redactString(s.slice(last), total);
  };
  return redactShared(value, total, text);
}
