// Text hygiene for everything the fact layer writes: terminal noise out (ANSI colours, spinner
// backspaces and carriage returns, other control bytes), text bounded at a sentence or word end
// (never mid-word), and repeated lines collapsed into one line with a count.

import { MARGIN, prefixEnd, transformedHead } from '../../textHead';

const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;
// Control characters other than newline and tab, C1 controls included.
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** Terminal output as a person would have read it on screen. */
export function cleanText(text: string): string {
  let t = text.replace(/\r\n/g, '\n').replace(ANSI, '');
  // A backspace erases the character before it (pip's and npm's spinners: "-\b \b\\\b \bdone").
  if (t.includes('\b')) {
    let out = '';
    for (const ch of t) out = ch === '\b' ? out.slice(0, -1) : out + ch;
    t = out;
  }
  // A carriage return inside a line redraws it: only what was written last stays visible.
  if (t.includes('\r')) t = t.split('\n').map((line) => line.split('\r').filter((part) => part !== '').pop() ?? '').join('\n');
  // `cat -n` and Kimi's ReadFile number lines as `     3<TAB>…`: the number keeps its mark (LINE_NUMBER).
  return t.replace(/^( +\d+)\t/gm, '$1→').replace(/\t/g, ' ').replace(CONTROL, '');
}

/** One paragraph: clean, whitespace collapsed (so no line of it can repeat in a summary). */
export function paragraph(text: string): string {
  return cleanText(text).replace(/\s+/g, ' ').trim();
}

/** Whether a text is already in `said` (case and spacing aside): a quote of what a summary says once is not said twice. */
export function saidIn(said: string): (text: string) => boolean {
  const flat = paragraph(said).toLowerCase();
  return (text) => flat.includes(paragraph(text).toLowerCase());
}

/**
 * The least k in 0..n for which `pass(k)` holds, for a `pass` that once true stays true as k grows
 * (n when none below it does): a dozen trials instead of n.
 */
export function leastPassing(n: number, pass: (k: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (pass(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

const SENTENCE_END = /[.!?。](?=["')\]]*(?:\s|$))/g;

/**
 * `text` as one paragraph of at most `max` characters. A cut falls at the end of a sentence when
 * one ends in the second half of the allowance (unless `atSentence` is false), else at the end of
 * a word, and is marked "[…]" so nobody mistakes it for the whole.
 */
export function bounded(text: string, max: number, atSentence = true): string {
  const { head: flat, whole } = transformedHead(text, LONGEST_WORD * max, paragraph);
  if (flat.length <= max) return flat;
  const room = Math.max(1, max - 4);
  const head = flat.slice(0, room + 1);
  let cut = -1;
  if (atSentence) for (const m of head.matchAll(SENTENCE_END)) if (m.index !== undefined && m.index + 1 <= room) cut = m.index + 1;
  if (cut < room * 0.5) {
    const space = head.lastIndexOf(' ', room);
    cut = space > 0 ? space : -1;
  }
  if (cut <= 0) {
    // One word longer than the allowance (a URL, a path): keep it whole rather than split it,
    // up to LONGEST_WORD times the allowance (past that it is a blob: base64, minified code).
    const end = flat.indexOf(' ');
    if (end >= 0 && end <= LONGEST_WORD * max) return `${flat.slice(0, end)} […]`;
    if (whole && end < 0 && flat.length <= LONGEST_WORD * max) return flat;
    return `${flat.slice(0, LONGEST_WORD * max)} […]`;
  }
  return `${flat.slice(0, cut).trimEnd()} […]`;
}

/** How many times its allowance one word may run before `bounded` cuts it anyway. */
const LONGEST_WORD = 4;

/**
 * A line a program printed with its line breaks escaped (`Pre-commit validation failed:\n\n[FORMAT]
 * Code is not formatted.`: a hook that echoed without -e) reads as the lines it meant, joined by ` · `.
 * One `\n` may be a quoted string in a message; two or more are breaks.
 */
function withEscapedBreaks(line: string): string {
  return (line.match(/\\n/g)?.length ?? 0) >= 2 ? line.split(/(?:\s*\\n\s*)+/).filter(Boolean).join(' · ') : line;
}

/**
 * One line kept to `max` characters by cutting its middle: where a message ends says what went
 * wrong (`… 'pip install numpy pandas']' timed out after 60 seconds`) when its head is a long echo of
 * the command, and two such messages stay two.
 */
export function headAndTail(line: string, max: number): string {
  if (line.length <= max) return line;
  const tailRoom = Math.floor(max * 0.4);
  const headEnd = line.lastIndexOf(' ', max - tailRoom - 3);
  const tailStart = line.indexOf(' ', line.length - tailRoom);
  const head = line.slice(0, headEnd > max * 0.3 ? headEnd : max - tailRoom - 3);
  const tail = line.slice(tailStart > 0 && tailStart < line.length - 10 ? tailStart + 1 : line.length - tailRoom);
  return `${head.trimEnd()} … ${tail.trimStart()}`;
}

/** The first non-empty line of `text`, bounded like `bounded`; read from a growing prefix of the text. */
export function firstLine(text: string, max: number): string {
  for (let n = 4096; ; n *= 4) {
    const end = prefixEnd(text, n);
    const whole = end >= text.length;
    const lines = cleanText(whole ? text : text.slice(0, end)).split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i].trim();
      if (line === '') continue;
      // The prefix's last line may go on past it; it will do once it holds more than is kept.
      if (whole || i < lines.length - 1 || line.length > LONGEST_WORD * max + MARGIN) return bounded(withEscapedBreaks(line), max);
      break;
    }
    if (whole) return '';
  }
}

/** The items with duplicates folded into the first occurrence: `edited a.py ×3`. */
export function counted(items: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return [...counts].map(([item, n]) => (n > 1 ? `${item} ×${n}` : item));
}

/** Unique items in first-seen order. */
export function unique<T>(items: readonly T[], key: (item: T) => string = String): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const k = key(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/**
 * The last pass over any text we write: control characters out, and a run of more than two equal
 * lines kept once with their number. Only a run: a line said again elsewhere (a closing tag, a
 * code fence, a model's `---`) is part of the text's structure.
 */
export function tidy(text: string): string {
  const lines = cleanText(text).split('\n').map((l) => l.trimEnd());
  const out: string[] = [];
  for (let i = 0; i < lines.length;) {
    let j = i + 1;
    while (j < lines.length && lines[j] === lines[i]) j++;
    const n = j - i;
    if (n > 2 && lines[i].trim() !== '') out.push(`${lines[i]} (×${n})`);
    else out.push(...lines.slice(i, j));
    i = j;
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trim();
}
