// The diagnostics compilers, linters and CI runners print, by where each puts its message relative
// to the source location it names: on the same line (`src/a.c:12:5: warning: …`, golangci's
// `x.go:224:3: QF1003: …`), on the line before an arrow or a bare location (rustc's and ruff's
// `--> src/a.py:109:16`, credo's `lib/a.ex:144:7 #(Mod.fun)`), on the line after a location that
// ends in the check's name (dialyzer's `lib/a.ex:57:13:pattern_match`), or on an indented line
// under the first (TypeScript's `  Property 'x' does not exist …`). GitHub Actions marks its own
// errors `##[error]` and, for a step that exited non-zero, says only "Process completed with exit
// code 1." after the line that explains it. A failed build's second and third diagnostics are what
// a debugger reads next; they are read from results that failed, and `##[error]` marks from a CI
// log a command fetched.

import { cleanText, firstLine } from './hygiene';

export interface Diagnostic {
  /** `warning`, `lint`, `TypeScript`, `CI`… */
  type: string;
  text: string;
  /** The line it was printed on. */
  line: number;
}

const CHARS = 240;
const HEAD_CHARS = 2_000_000;

// The prefix `gh run view --log` puts on every line (job, step, timestamp), or a bare timestamp.
// (Cleaned text has its tabs as spaces: the job's and step's names end where the timestamp starts.)
const CI_PREFIX = /^[^\n]{0,120}?\uFEFF?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?/;
// Box-drawing gutters and bullets some linters put before a message (`┃ [F] → …`, `│`).
const GUTTER = /^[┃│|]\s*/;
// A source location: `path.ext:12`, `path.ext:12:5`, optionally after rustc's arrow.
const LOCATION = /^(?:-->\s*|::: )?[\w./~@+-]*[\w-]\.\w{1,8}:\d+(?::\d+)?/;
const ONLY_LOCATION = new RegExp(`${LOCATION.source}(?::([A-Za-z_][\\w-]*))?(?:\\s+#\\(.*\\))?$`);
// A message on the location's line: a severity, a check's code, or both.
const LOCATED_MESSAGE = /^[\w./~@+-]*[\w-]\.\w{1,8}(?::\d+(?::\d+)?|\(\d+,\d+\)):?\s*-?\s*((?:fatal error|error|warning)(?:\[[\w-]+\])?(?: TS\d+)?:\s*\S.*|[A-Z]{1,6}\d{2,5}:?\s+\S.*)$/;
// A line that is code in a snippet, not a message (`17 | typedef …`, `   ^~~~`).
const SNIPPET = /^\s*(?:\d+\s*\||\|)|^\s*[~^]+\s*$/;

// ExUnit's heading of a failed test: `1) test sync/2 is idempotent (Spotter.SyncTest)`.
export const EXUNIT_FAILURE = /^\d+\) ((?:test|doctest|property) .+) \(([\w.]+)\)$/;

/** The diagnostics a failed result printed, in order, each once. */
export function* diagnosticsOf(text: string): Generator<Diagnostic> {
  // The first few of them are wanted: a build log of hundreds of megabytes is read from its head.
  const lines = (text.length > HEAD_CHARS ? text.slice(0, HEAD_CHARS) : text).split('\n').map((l) => l.replace(CI_PREFIX, '').replace(/\s+$/, ''));
  const seen = new Set<string>();
  let i = 0;
  const emit = (type: string, raw: string): Diagnostic | undefined => {
    const t = firstLine(raw.replace(GUTTER, '').trim(), CHARS);
    if (!t || seen.has(t)) return undefined;
    seen.add(t);
    return { type, text: t, line: i };
  };
  const near = (from: number, step: number): string | undefined => {
    for (let j = from + step; j >= 0 && j < lines.length && Math.abs(j - from) <= 3; j += step) {
      const l = lines[j].replace(GUTTER, '').trim();
      if (l !== '') return SNIPPET.test(lines[j]) || LOCATION.test(l) ? undefined : l;
    }
    return undefined;
  };
  // Dialyzer writes a message over several lines, blank ones among them (`The pattern`, `:variable_`,
  // `can never match, because …`, `binary().`): read on until a line ends a sentence, four at most.
  const sentenceAfter = (from: number): string | undefined => {
    const first = near(from, 1);
    if (first === undefined || /[.!?:]$/.test(first)) return first;
    const parts: string[] = [];
    for (let j = from + 1; j < lines.length && parts.length < 4; j++) {
      const l = lines[j].trim();
      if (l === '') continue;
      if (/^_{5,}$/.test(l) || LOCATION.test(l)) break;
      parts.push(l);
      if (/[.!?]$/.test(l)) break;
    }
    return parts.join(' ');
  };
  for (; i < lines.length; i++) {
    const line = lines[i].replace(GUTTER, '').trim();
    if (!line) continue;
    let found: Diagnostic | undefined;
    const ci = /^##\[error\](.*)$/.exec(line);
    if (ci) {
      // "Process completed with exit code 1." says only that the step failed; the line before says why.
      const why = /^Process completed with exit code \d+\.?$/.test(ci[1].trim()) ? near(i, -1) : ci[1];
      found = why && !/^##\[/.test(why) ? emit('CI', why) : undefined;
    } else if (LOCATED_MESSAGE.test(line)) {
      found = emit(/\bwarning\b/.test(line) ? 'warning' : /\berror TS\d+/.test(line) ? 'TypeScript' : 'lint', line);
      // TypeScript puts what is wrong on an indented line under the error.
      const more = /\berror TS\d+/.test(line) ? /^ {2,}([A-Z]\w*\b.*)$/.exec(lines[i + 1] ?? '') : null;
      if (found) yield found;
      found = more ? emit('TypeScript', more[1]) : undefined;
    } else {
      const loc = ONLY_LOCATION.exec(line);
      // A location alone: a check's name after it puts the message on the next line; an arrow or an
      // indent under the message puts it on the line before. (Node prints a crash's location alone,
      // unindented, above the code: not a message.)
      const under = loc && !loc[1] && (/^-->|^::: /.test(line) || /^\s|^[┃│|]/.test(lines[i]));
      let message = loc ? (loc[1] ? sentenceAfter(i) : under ? near(i, -1) : undefined) : undefined;
      // ExUnit names the failed test above its location and says what failed below it
      // (`1) test x (MyTest)`, `test/x_test.exs:142`, `Assertion with == failed`).
      if (message && EXUNIT_FAILURE.test(message)) message = near(i, 1);
      if (message && !/^(?:In file included from|from)\b/.test(message)) found = emit(loc![1] ? 'lint' : 'diagnostic', message);
    }
    if (found) yield found;
  }
}

/**
 * The errors a CI run's log marks `##[error]` (`gh run view --log-failed` prints them): what the
 * CI run failed on, even when the command that fetched the log went through.
 */
export function ciErrorsOf(text: string, max = 2): Diagnostic[] {
  // Asked of every command that went through: the raw text is looked at before it is cleaned.
  if (!text.includes('##[error]')) return [];
  const out: Diagnostic[] = [];
  for (const d of diagnosticsOf(cleanText(text))) if (d.type === 'CI' && out.push(d) === max) break;
  return out;
}
