// Hand-written scanners for the two secret shapes a regular expression cannot find in linear time:
// private-key blocks (their bodies run for thousands of characters, and a block may have lost its
// BEGIN or its END line) and random-looking values with no known prefix (an entropy test). Each
// walks the text once; the marker text and counting are the caller's (redact.ts).

/** A found secret: [start, end) in the text and its kind. */
export interface Span {
  start: number;
  end: number;
  kind: string;
}

const B64 = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=') B64[c.charCodeAt(0)] = 1;
const isB64 = (code: number) => code < 128 && B64[code] === 1;

// The armour line: BEGIN/END, optional algorithm words, PRIVATE KEY, optional BLOCK (PGP). Bounded, so linear.
const ARMOUR = /-----(BEGIN|END) ((?:[A-Z0-9]{1,16} ){0,4}PRIVATE KEY(?: BLOCK)?)-----/g;
const HEADER = /^(?:Version|Comment|Hash|Charset|Proc-Type|DEK-Info):/;

/** Length of a line break at `i` (`\n`, `\r\n`, or their JSON escapes `\\n`, `\\r\\n`); 0 when none. */
function breakAt(text: string, i: number): number {
  const c = text[i];
  if (c === '\n') return 1;
  if (c === '\r' && text[i + 1] === '\n') return 2;
  if (c === '\\') {
    if (text[i + 1] === 'n') return 2;
    if (text[i + 1] === 'r' && text[i + 2] === '\\' && text[i + 3] === 'n') return 4;
  }
  return 0;
}

/** Length of a line break that ends just before `i`; 0 when none. */
function breakBefore(text: string, i: number): number {
  if (text[i - 1] === '\n') return text[i - 2] === '\r' ? 2 : 1;
  if (text[i - 1] === 'n' && text[i - 2] === '\\') return text.slice(i - 4, i - 2) === '\\r' ? 4 : 2;
  return 0;
}

/** End of a cut-off block's body after its BEGIN line: base64, white space, escaped breaks and armour headers. */
function bodyEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (isB64(code) || code === 32 || code === 9 || code === 10 || code === 13) {
      // An armour header (PGP `Version: …`) runs to its line's end.
      if ((i === from || breakBefore(text, i)) && HEADER.test(text.slice(i, i + 12))) {
        while (i < text.length && text[i] !== '\n' && text[i] !== '\\') i++;
        continue;
      }
      i++;
      continue;
    }
    const br = breakAt(text, i);
    if (br === 0) break;
    i += br;
  }
  // Trailing white space and breaks stay outside the marker.
  while (i > from && /\s/.test(text[i - 1])) i--;
  while (i > from && breakBefore(text, i) >= 2) i -= breakBefore(text, i);
  return i;
}

/** Start of the base64 lines that run into an END line at `end` (a block whose top was cut), or -1. */
function bodyStart(text: string, end: number, floor: number): number {
  let i = end;
  let start = -1;
  for (;;) {
    const br = breakBefore(text, i);
    if (br === 0 || i - br < floor) break;
    let j = i - br;
    while (j > floor && isB64(text.charCodeAt(j - 1))) j--;
    const line = i - br - j;
    // Lines of 16 or more characters; the short `=abcd` checksum line of a PGP block only right above END.
    if (line >= 16 || (start === -1 && line === 5 && text[j] === '=')) {
      start = j;
      i = j;
      continue;
    }
    break;
  }
  return start;
}

/**
 * Private-key blocks: BEGIN to the matching END; a block cut off before its END (the body after
 * BEGIN); a block cut off above (the base64 lines that run into END). One pass over the armour
 * lines; the END searched for each label is remembered, so many unclosed blocks stay linear.
 */
export function privateKeySpans(text: string): Span[] {
  if (!text.includes('PRIVATE KEY')) return [];
  const spans: Span[] = [];
  const nextEnd = new Map<string, number>();
  let done = 0;
  ARMOUR.lastIndex = 0;
  for (let m = ARMOUR.exec(text); m; m = ARMOUR.exec(text)) {
    if (m.index < done) continue;
    const label = m[2];
    const after = m.index + m[0].length;
    if (m[1] === 'BEGIN') {
      const close = `-----END ${label}-----`;
      let end = nextEnd.get(label);
      if (end === undefined || (end !== -1 && end < after)) {
        end = text.indexOf(close, after);
        nextEnd.set(label, end);
      }
      const stop = end === -1 ? bodyEnd(text, after) : end + close.length;
      spans.push({ start: m.index, end: stop, kind: 'private-key' });
      done = stop;
      ARMOUR.lastIndex = Math.max(ARMOUR.lastIndex, stop);
    } else {
      const start = bodyStart(text, m.index, done);
      if (start === -1) continue;
      spans.push({ start, end: after, kind: 'private-key' });
      done = after;
    }
  }
  return spans;
}

// ---------------------------------------------------------------------------------------------
// Entropy: a value with no known prefix that is random enough to be a generated key.

/** Shannon entropy in bits per character. */
function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

const classOf = (c: string) => (c >= 'a' && c <= 'z' ? 1 : c >= 'A' && c <= 'Z' ? 2 : c >= '0' && c <= '9' ? 3 : 4);

/**
 * A generated key, not a word, a name or a hash: at least 20 characters, all three of upper case,
 * lower case and digits, the character class changing often (camelCase names change it rarely:
 * `cancellationTokenSource`), high entropy, and not hexadecimal (git SHAs, digests).
 */
const WORDS_RUN_TOGETHER = /^(?:[A-Z]?[a-z]{2,})+$/;

function looksRandom(s: string): boolean {
  if (s.length < 20 || /^[0-9a-fA-F]+$/.test(s)) return false;
  let upper = 0;
  let lower = 0;
  let digit = 0;
  let changes = 0;
  for (let i = 0; i < s.length; i++) {
    const k = classOf(s[i]);
    if (k === 1) lower++;
    else if (k === 2) upper++;
    else if (k === 3) digit++;
    if (i > 0 && k !== classOf(s[i - 1])) changes++;
  }
  if (upper < 2 || lower < 2 || digit < 2) return false;
  if (changes / (s.length - 1) < 0.35) return false;
  // A path of short words (`src/App2/Main3`) is not a key even when its letters mix, nor one whose
  // long parts are words run together (`PromptGrimoireTool/8c497bed`: a repository and a session id).
  if (s.includes('/') && s.split('/').every((part) => part.length < 16 || WORDS_RUN_TOGETHER.test(part))) return false;
  return entropy(s) >= Math.min(4.0, Math.log2(s.length) - 1);
}

const TOKEN_CHAR = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') TOKEN_CHAR[c.charCodeAt(0)] = 1;
const isTokenChar = (code: number) => code < 128 && TOKEN_CHAR[code] === 1;

// What may come right before a value for the entropy rule: an assignment (`=`, `:`), a glued-on
// prefix (`-`, `_`), a URL's path, query or fragment (`/`, `?`, `&`, `#`, `@`), or their URL escapes.
const BEFORE = new Set(['=', ':', '-', '_', '/', '?', '&', '#', '@', ';']);
const ESCAPED_BEFORE = /^%(?:3[DdAaBb]|2[FfDd6]|5[Ff]|40|23|3[Ff])$/;
// Content hashes written after their algorithm (`sha512-…` in lockfiles) are not secrets.
const HASH_PREFIX = /(?:sha\d{1,3}|md5|blake2b?)[-:_]$/i;
// Ids that agents and model APIs put in every log (`toolu_01…`, `call_…`, `chatcmpl-…`): random, public.
const ID_PREFIX = /^(?:toolu|tooluse|srvtoolu|msg|req|call|chatcmpl|resp|fc|rs|ctc|file|run|thread|asst|batch|step|item|evt|trace|span|conv|sess|ses|prt|ws|cs|ci|pr|job|task|gen)[-_]/i;

const ID_BEFORE = new RegExp(`(?:^|[^A-Za-z0-9])${ID_PREFIX.source.slice(1)}$`, 'i');

/** `key = value`, `key: value`: an `=` or `:` a few spaces before `at` (a quoted JSON value is the key rules'). */
function afterAssignment(text: string, at: number): boolean {
  let i = at - 1;
  let skipped = 0;
  while (i >= 0 && skipped < 4 && text[i] === ' ') {
    i--;
    skipped++;
  }
  return skipped > 0 && (text[i] === '=' || text[i] === ':');
}

const WORD_CHAR = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_.=%-') WORD_CHAR[c.charCodeAt(0)] = 1;
const isWordChar = (code: number) => code < 128 && WORD_CHAR[code] === 1;
const MAX_VALUE = 400;

/** The word (run of token characters with `_ . - = %`) around [start, end), or undefined when longer than a key: a data blob. */
function wordAround(text: string, start: number, end: number): string | undefined {
  let a = start;
  while (a > 0 && isWordChar(text.charCodeAt(a - 1))) if (start - --a > MAX_VALUE) return undefined;
  let b = end;
  while (b < text.length && isWordChar(text.charCodeAt(b))) if (++b - end > MAX_VALUE) return undefined;
  return b - a > MAX_VALUE ? undefined : text.slice(a, b);
}

/** Random-looking values (see looksRandom) right after `=`, `:`, `-`, `_` or inside a URL. */
export function entropySpans(text: string): Span[] {
  const spans: Span[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (!isTokenChar(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    let slash = false;
    while (i < n && isTokenChar(text.charCodeAt(i))) {
      if (text.charCodeAt(i) === 47) slash = true;
      i++;
    }
    let end = i;
    while (end < n && end - i < 2 && text[end] === '=') end++;
    const len = i - start;
    if (len < 20 || len > MAX_VALUE) continue;
    // A path in a URL: each segment on its own (`/share/<key>/report.pdf`).
    if (slash) {
      let a = start;
      for (let k = start; k <= i; k++) {
        if (k < i && text[k] !== '/') continue;
        if (k - a >= 20 && text[a - 1] === '/' && looksRandom(text.slice(a, k)) && inUrl(text, a)) spans.push({ start: a, end: k, kind: 'high-entropy' });
        a = k + 1;
      }
      if (spans.length && spans[spans.length - 1].start >= start) continue;
    }
    const prev = text[start - 1];
    const escaped = start >= 3 && ESCAPED_BEFORE.test(text.slice(start - 3, start));
    if (!(prev !== undefined && BEFORE.has(prev)) && !escaped && !afterAssignment(text, start)) continue;
    if ((prev === '/' || prev === '?' || prev === '&' || prev === '#' || prev === '@' || prev === ';') && !inUrl(text, start)) continue;
    const value = text.slice(start, i);
    if (!looksRandom(value)) continue;
    // Blobs (encrypted reasoning, images) and the ids every log carries are not keys.
    const word = wordAround(text, start, end);
    const head = text.slice(Math.max(0, start - 12), start);
    if (word === undefined || ID_PREFIX.test(word) || ID_BEFORE.test(head) || word.startsWith('gAAAAA')) continue;
    // `TypeName:<id>` (Inspect's store keys, namespaced ids) names a record, not a credential.
    if (prev === ':' && /(?:^|[^A-Za-z0-9])[A-Z][a-z]+(?:[A-Z][a-z]+)+:$/.test(text.slice(Math.max(0, start - 48), start))) continue;
    if (HASH_PREFIX.test(head) || head.endsWith('base64,')) continue;
    if (slash) spans.push(...pathSegmentSpans(text, start, end));
    else spans.push({ start, end, kind: 'high-entropy' });
  }
  return spans;
}

/**
 * A random-looking value that holds `/` outside a URL: when another of its segments is a name
 * (`vo-<id>/gemini-3-pro-preview/010ac575`, `openai-curated/cloudflare/<sha>/skills/SKILL.md`) it
 * is a path, and only its random segments are values; else (base64 holds `/` too) all of it is.
 */
function pathSegmentSpans(text: string, start: number, end: number): Span[] {
  const segments: { start: number; end: number }[] = [];
  let a = start;
  for (let k = start; k <= end; k++) {
    if (k < end && text[k] !== '/') continue;
    if (k > a) segments.push({ start: a, end: k });
    a = k + 1;
  }
  const named = segments.slice(1).some((g) => PATH_NAME.test(text.slice(g.start, g.end)) && !looksRandom(text.slice(g.start, g.end)));
  if (!named) return [{ start, end, kind: 'high-entropy' }];
  return segments.filter((g) => g.end - g.start >= 16 && looksRandom(text.slice(g.start, g.end))).map((g) => ({ ...g, kind: 'high-entropy' }));
}

// A file or folder name: letters first, then letters, digits, `.`, `_`, `-`.
const PATH_NAME = /^[A-Za-z][\w.-]*$/;

/** True when the `/` before `at` belongs to a URL (`scheme://` earlier on the same stretch without spaces). */
function inUrl(text: string, at: number): boolean {
  let i = at - 1;
  const floor = Math.max(0, at - 2048);
  while (i > floor && !/[\s"'<>]/.test(text[i])) {
    if (text[i] === '/' && text[i - 1] === '/' && text[i - 2] === ':') return true;
    i--;
  }
  return false;
}
