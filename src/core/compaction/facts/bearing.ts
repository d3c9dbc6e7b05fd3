// What a tool returned that bears on what the person asked: the lines of a file read, a search's
// hits or a command's output that name the request's own terms (`get_ticket(ticket_id)` for "Add a
// GET /tickets/{ticket_id} endpoint…"). The terms come from the person's words in the log, never
// from a list of ours; the lines fill what room a summary has left (render.ts, `within`).

import type { Step } from '../../model';
import { addedLines, classifyCall } from './calls';
import { bounded, cleanText } from './hygiene';
import { eachOutputLine, LINE_NUMBER, LISTING_ENTRY } from './outcomes';

const MAX_TERMS = 60;
const YEAR = /^(?:19|20)\d\d$/;

/**
 * The words of a request a reader would look for in a file: identifiers (`ticket_id`,
 * `extractTextContent`, `QF1003`, `HTTP_404_NOT_FOUND`), file names (`service.py`) and numbers of
 * three digits or more (`404`), each once. Plain words are left out: they are in every file.
 */
export function requestTerms(texts: readonly string[]): string[] {
  const out = new Set<string>();
  for (const text of texts) {
    for (const m of text.slice(0, 20_000).matchAll(/[\w$][\w$.-]*[\w$]/g)) {
      const t = m[0].replace(/^[.-]+|[.-]+$/g, '');
      if (t.length < 3 || t.length > 60 || YEAR.test(t) || /^https?$/.test(t)) continue;
      const code = /[a-z0-9]_[a-z0-9]/i.test(t) || /[a-z][A-Z]/.test(t) || (/[A-Za-z]/.test(t) && /\d/.test(t) && t.length >= 4)
        || /^[\w-]+\.[A-Za-z]\w{0,5}$/.test(t) && /[A-Za-z]{2}/.test(t.split('.')[0]) || /^\d{3,}$/.test(t);
      if (code) out.add(t);
      if (out.size >= MAX_TERMS) return [...out];
    }
    // A route or a path as the person wrote it: `/tickets/{ticket_id}`, `src/cmd/export.go`.
    for (const m of text.slice(0, 20_000).matchAll(/(?<![\w.:/])(?:[\w{}$.-]+)?\/[\w{}$.-]+(?:\/[\w{}$.-]*)*/g)) {
      const t = m[0].replace(/[.-]+$/, '');
      if (t.length >= 6 && t.length <= 80 && /[A-Za-z]{2}/.test(t) && !/^\/\//.test(t)) out.add(t);
      if (out.size >= MAX_TERMS) return [...out];
    }
  }
  return [...out];
}


// A definition says more of a file than a use: `def get_ticket(…)`, `@app.get("/tickets/{ticket_id}")`.
export const DEFINITION = /^(?:export\s+)?(?:async\s+)?(?:(?:def|class|function|func|fn|pub|const|let|var|type|interface|struct|enum|module|defmodule)\s|@\w)/;

/**
 * At most `max` lines of `output` that name the most of `terms` (and of `written`, the terms the
 * run's own edits wrote), in the order they stand: not a line already said (`said`), not a line of
 * hundreds of characters (data), each once.
 */
export function bearingLinesOf(output: string, terms: readonly string[], said: readonly string[] = [], max = 2, written: readonly string[] = []): string[] {
  if (!(terms.length || written.length) || !output) return [];
  const scored: { line: string; score: number; at: number }[] = [];
  const seen = new Set<string>();
  let at = 0;
  let text = output.length > 400_000 ? output.slice(0, 400_000) : output;
  // `cat -n` numbers each line before a tab, which cleaning turns into a space: the number goes first.
  if ((text.slice(0, 2000).match(/^[ \t]*\d+\t/gm) ?? []).length >= 3) text = text.replace(/^[ \t]*\d+\t/gm, '');
  for (const raw of eachOutputLine(cleanText(text), false)) {
    at++;
    const line = raw.replace(LINE_NUMBER, '').trim();
    // A listing's entry (`-rw-r--r-- 1 u u 2215 Jun 28 main.py`) names a file, not what is in it.
    if (line.length < 8 || line.length > 240 || LISTING_ENTRY.test(line) || seen.has(line) || said.some((s) => s !== '' && (s.includes(line) || line.includes(s)))) continue;
    // A term of the request counts whole; one the run's own edits wrote, half, and two are needed.
    const named = terms.filter((t) => line.includes(t)).length;
    const reused = written.filter((t) => line.includes(t) && !terms.includes(t)).length;
    if (!named && reused < 2) continue;
    seen.add(line);
    scored.push({ line, score: named + reused / 2 + (DEFINITION.test(line) ? 0.5 : 0), at });
  }
  return scored.sort((a, b) => b.score - a.score || a.at - b.at).slice(0, max).sort((a, b) => a.at - b.at).map((s) => bounded(s.line, 160));
}

/** The identifiers the edits among `chosen` wrote: a line a result showed that names two of them is what the run reused. */
export function termsWrittenBy(steps: readonly Step[], chosen: readonly number[]): string[] {
  const lines: string[] = [];
  for (const i of chosen) {
    const s = steps[i];
    if (s.kind !== 'tool_call' || !s.tool) continue;
    const info = classifyCall(s);
    if (info.edits.length) lines.push(...addedLines(info.args, info.command).slice(0, 200));
    if (lines.length > 2000) break;
  }
  return requestTerms([lines.join('\n')]);
}
