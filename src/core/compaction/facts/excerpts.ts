// Excerpts: lines of the forgotten steps quoted as they stand, each scored by what it carries (a
// path, a name from code, a number, a verdict, one of the person's terms) rather than by the tool
// or format it came from. They are the last thing a summary says: they only fill the room it has
// left (render.ts, `within`), below every other line, so a summary with room to spare quotes what
// the run saw instead of leaving the room empty.

import { redactSecrets } from '../../llm/redact';
import type { Step } from '../../model';
import { INTENTION, sentencesOf } from './agentText';
import { DEFINITION } from './bearing';
import { addedLines, classifyCall } from './calls';
import { cleanText } from './hygiene';
import { eachOutputLine, LINE_NUMBER } from './outcomes';
import { personTagged } from './requests';

export interface Excerpt { step: number; text: string; score: number }

/** Lines quoted from one step at most, each a little lower than the one before (STEP_DECAY), so that one long output cannot take the room of the others. */
const PER_STEP = 15;
const STEP_DECAY = 0.04;
/** What an excerpt may take: a line of a few clauses; longer is data (a minified file, a JSON blob). */
const MAX_CHARS = 220;
const MIN_CHARS = 6;
/** Lines read from one output: its opening and its end, where tools print what they did and their verdict. */
const HEAD_LINES = 300;
const TAIL_LINES = 40;

// A verdict or a state a tool printed: what a reader checks first.
const VERDICT = /\b(?:exit(?:ed)?(?: with)?(?: code| status)?\s*-?\d+|passed|failed|failures?|errors?|warnings?|success(?:ful(?:ly)?)?|updated|created|deleted|removed|modified|renamed|installed|added|not found|no such|denied|refused|timed? ?out|skipped|ok|done|completed?|aborted|killed|missing|invalid|cannot|can't|unable|\d+ (?:files?|tests?|lines?|insertions?|deletions?|changes?|replacements?|matches|results?|items?|rows?))\b/i;
// A path (`src/app/main.py`, `/home/u/x`) or a file name with an extension (`service.py`).
const PATH = /(?:^|[\s"'`(=:])(?:~|\.{1,2})?\/?[\w@.-]+\/[\w@./-]+|\b[\w-]+\.(?:[a-z]{1,5}\d?)\b(?!\.\w)/i;
// A name from code (`ticket_id`, `getUserName`, `QF1003`), a hash or a version.
const CODE_NAME = /\b(?:[a-z]\w*_\w+|[a-z]+[A-Z]\w*|[A-Z]{2,}\d+\w*|[0-9a-f]{7,40}|v?\d+\.\d+(?:\.\d+)?)\b/;
const NUMBER = /\d/;
// Words in capitals a prompt uses to insist: a rule the agent was held to.
const INSISTS = /\b(?:NOW|MUST|NEVER|ALWAYS|STOP|WAIT|DO NOT|IMPORTANT|CRITICAL|REQUIRED|ONLY)\b/;
/**
 * The lines worth quoting from the steps `chosen`, at most PER_STEP a step, each once (at its
 * first step), with a score between 0 and 1. `terms` are the person's own (bearing.ts,
 * `requestTerms`): a line that names them bears on what was asked.
 */
export function excerptsOf(steps: readonly Step[], chosen: readonly number[], terms: readonly string[]): Excerpt[] {
  const seen = new Set<string>();
  const out: Excerpt[] = [];
  const candidates = chosen.map((i) => candidateLines(steps[i], steps));
  // A line met again and again with only its ids and numbers changed is a tool's template
  // (`agentId: a9cad17 (internal ID - do not mention to user…)`): it tells less each time.
  const shapes = new Map<string, number>();
  for (const lines of candidates) for (const c of lines) shapes.set(shapeOf(c.text), (shapes.get(shapeOf(c.text)) ?? 0) + 1);
  for (const [n, i] of chosen.entries()) {
    const lines = candidates[n];
    const scored: Excerpt[] = [];
    lines.forEach((c, at) => {
      const text = c.text;
      const key = text.toLowerCase();
      if (seen.has(key)) return;
      seen.add(key);
      const templated = (shapes.get(shapeOf(text)) ?? 0) >= TEMPLATE_REPEATS ? TEMPLATE_PENALTY : 0;
      scored.push({ step: i, text, score: Math.max(0, scoreOf(text, c.base, at === 0 || at === lines.length - 1, terms) - templated) });
    });
    // A step's best lines first, never a secret (the rules a prompt is redacted by); each further
    // line of the same step counts for a little less.
    const best: Excerpt[] = [];
    for (const e of scored.sort((a, b) => b.score - a.score)) {
      if (best.length >= PER_STEP) break;
      if (redactSecrets(e.text, { randomValues: false }).count === 0) best.push({ ...e, score: Math.max(0, e.score - STEP_DECAY * best.length) });
    }
    out.push(...best);
  }
  return out;
}

interface Candidate { text: string; base: number }

/** How often a line's shape must recur among the steps read to be a template, and what that costs it. */
const TEMPLATE_REPEATS = 3;
const TEMPLATE_PENALTY = 0.2;

/** A line with its numbers and hex ids blanked: the same for each use of one template. */
function shapeOf(text: string): string {
  return text.toLowerCase().replace(/\b[0-9a-f]*\d[0-9a-f]*\b/g, '#');
}

/** The lines of a step a reader might quote, with a base score for where they stand. */
function candidateLines(step: Step, steps: readonly Step[]): Candidate[] {
  const text = step.text ?? '';
  switch (step.kind) {
    // What the agent said: its findings, sentence by sentence.
    case 'assistant':
    case 'thought':
      return sentencesOf(cleanText(text.slice(0, 20_000))).map((s) => tidyLine(s).replace(/^#+\s*/, '')).filter(quotable).map((s) => ({ text: s, base: INTENTION.test(s) ? 0.1 : step.kind === 'thought' ? 0.3 : 0.4 }));
    // What the person (or the harness on their behalf) put in: instructions, settings, context.
    // Where a client tagged the person's words (Cline's `<feedback>`), the rest is its own wrapper.
    case 'user':
    case 'environment':
    case 'system':
      return lines(personTagged(text.slice(0, 40_000)) ?? text.slice(0, 40_000), 200).map((l) => ({ text: l, base: 0.3 }));
    // A line that echoes the command (`Command: ls -la`, `$ ls -la`) is the harness's, not the output.
    case 'tool_result': {
      const call = step.answers !== undefined ? steps[step.answers] : undefined;
      const command = call?.tool ? classifyCall(call).command?.trim() : undefined;
      return outputLines(text).filter((l) => !command || !l.endsWith(command)).map((l) => ({ text: l, base: 0.25 }));
    }
    case 'tool_call': {
      if (!step.tool) return [];
      // What an edit wrote (a definition, a setting) and the command run, not the call's JSON.
      const info = classifyCall(step);
      const written = info.edits.length ? addedLines(info.args, info.command).slice(0, 200) : [];
      return [...(info.command ? [info.command] : []), ...written].map(tidyLine).filter(quotable).map((l) => ({ text: l, base: 0.2 }));
    }
    default:
      return [];
  }
}

function scoreOf(text: string, base: number, edge: boolean, terms: readonly string[]): number {
  let s = base;
  const marks = [VERDICT, PATH, CODE_NAME, INSISTS, DEFINITION].map((r) => r.test(text));
  const [verdict, path, name, insists, definition] = marks;
  const named = terms.some((t) => text.includes(t));
  if (verdict) s += 0.15;
  if (path) s += 0.12;
  if (name) s += 0.08;
  if (NUMBER.test(text)) s += 0.04;
  if (insists) s += 0.1;
  if (definition) s += 0.08;
  if (edge) s += 0.06;
  if (named) s += 0.12;
  // A heading or a list item that names nothing ("Build configuration") is the outline of a text, not what it says.
  if (!named && !marks.some(Boolean) && text.split(/\s+/).length < 7) s -= 0.2;
  // A name alone (`packages/e2e/`, a listing's entry) says where something is, not what happened there.
  if (!/\s/.test(text)) s -= 0.1;
  // A line of mostly punctuation (a table rule, a JSON brace run) says little for its length.
  const letters = (text.match(/[\p{L}\p{N}]/gu) ?? []).length;
  if (letters < text.length * 0.5) s -= 0.15;
  return Math.max(0, Math.min(0.99, s));
}

// A client's receipt before what a tool returned (Cline's `[attempt_completion] Result:`): its, not the tool's.
const RECEIPT = /^\[[\w-]+(?: for '[^']*')?\] Result:\s*/;
// A line that is a tag alone (`</environment_details>`): markup, not text.
const TAG_ONLY = /^<\/?[\w:-]+(?:\s[^<>]*)?\/?>$/;

function tidyLine(raw: string): string {
  return raw.replace(LINE_NUMBER, '').replace(RECEIPT, '').replace(/^(?:[-*+•>]|\d+[.)])\s+/, '').replace(/\s+/g, ' ').trim();
}

function quotable(line: string): boolean {
  return line.length >= MIN_CHARS && line.length <= MAX_CHARS && /[\p{L}]/u.test(line) && !TAG_ONLY.test(line);
}

function lines(text: string, max: number): string[] {
  const out: string[] = [];
  for (const raw of cleanText(text).split('\n')) {
    const l = tidyLine(raw);
    if (quotable(l)) out.push(l);
    if (out.length >= max) break;
  }
  return out;
}

/** An output's opening HEAD_LINES lines and its last TAIL_LINES, without the wrapper a harness puts round it. */
function outputLines(text: string): string[] {
  const head: string[] = [];
  const tail: string[] = [];
  let n = 0;
  for (const raw of eachOutputLine(text.length > 400_000 ? text.slice(0, 400_000) : text)) {
    const l = tidyLine(raw);
    if (!quotable(l)) continue;
    if (n++ < HEAD_LINES) head.push(l);
    else {
      tail.push(l);
      if (tail.length > TAIL_LINES) tail.shift();
    }
  }
  return [...head, ...tail];
}
