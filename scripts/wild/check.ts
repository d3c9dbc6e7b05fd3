import { loadTrajectory, parseTrajectoryText } from '../../src/core/open';
import { TrajectoryLoadError } from '../../src/core/io/errors';

import type { Coverage, Step, TrajectoryFile } from '../../src/core/model';
import { atifText } from '../../src/core/formats/atifFile';
import { priceFor } from '../../src/core/models';

import { isRecord, turnsOf } from '../../src/core/steps';
import { stepLabel, stepPreview } from '../../src/core/view/stepPresentation';

// One file of the wild-log set measured the way a user meets it (issue 20 §5): the format we
// detect, what the reader made of the records, turns against the log's own user-role messages,
// pairing, markup in what the tree shows, usage and price, and the ATIF round trip.

export interface WildRow {
  file: string;
  expected?: string;
  format: string;
  /** The loader refused the file: its message. */
  error?: string;
  formatOk?: boolean;
  coverage?: Coverage;
  /** Turns as the tree shows them, user steps, and records whose role is `user` in the file itself. */
  turns: number;
  userSteps: number;
  userRoleRecords: number;
  /** Labels or previews (as the tree shows them) that carry wrapper tags or raw JSON, with an example. */
  markup: { count: number; examples: string[] };
  usage: 'recorded' | 'none';
  priced: 'recorded cost' | 'price table' | 'no price' | 'n/a';
  atif: { ok: boolean; stepsBefore: number; stepsAfter: number; callsBefore: number; callsAfter: number; error?: string };
}

/** Tags that clients and harnesses wrap around text; a label showing one shows the wrapper, not the request. */
const KNOWN_TAGS = /<\/?(task-notification|command-name|command-message|command-args|local-command-stdout|local-command-caveat|system-reminder|thinking|thinking-content[\w-]*|returncode|output|system|pr_description|user_instructions|environment_context|environment_details|user-prompt-submit-hook|task|feedback|ide_selection|ide_opened_file|function_results|tool_use_error)\b[^>]*>/i;
/** Any tag at the very start of a label. */
const LEADING_TAG = /^\s*<\/?[a-z][\w:-]*(\s[^>]*)?>/i;
/** A label that is JSON, not words. */
const RAW_JSON = /^\s*(\{\s*"|\[\s*\{|\[\s*")/;

/** `[name]` in SOURCES.md: a format we do not mean to read. */
export function outOfScope(expected: string | undefined): boolean {
  return !!expected && expected.startsWith('[');
}

export function markupIn(text: string): boolean {
  return KNOWN_TAGS.test(text) || LEADING_TAG.test(text) || RAW_JSON.test(text);
}

export async function checkFile(file: string, expected?: string): Promise<WildRow> {
  let t: TrajectoryFile;
  try {
    t = await loadTrajectory(file);
  } catch (e) {
    const message = e instanceof TrajectoryLoadError ? e.message : `crashed: ${(e as Error).message}`;
    // A format we do not read is handled right when it is refused as unknown.
    const refusedRight = outOfScope(expected) && e instanceof TrajectoryLoadError && e.code === 'unrecognized';
    return {
      file, expected, format: '-', error: message.slice(0, 300), formatOk: expected ? refusedRight : undefined,
      turns: 0, userSteps: 0, userRoleRecords: 0, markup: { count: 0, examples: [] }, usage: 'none', priced: 'n/a',
      atif: { ok: false, stepsBefore: 0, stepsAfter: 0, callsBefore: 0, callsAfter: 0, error: 'not read' },
    };
  }
  const runs = t.runs;
  const steps = runs.flatMap((r) => r.steps);
  return {
    file,
    expected,
    format: t.format,
    formatOk: expected ? !outOfScope(expected) && expected === t.format : undefined,
    coverage: t.coverage,
    turns: runs.reduce((n, r) => n + turnsOf(r.steps).length, 0),
    userSteps: steps.filter((s) => s.kind === 'user').length,
    userRoleRecords: await userRoleRecords(file),
    markup: markupOf(t, steps),
    ...usageOf(t, steps),
    atif: atifRoundTrip(t),
  };
}

function markupOf(t: TrajectoryFile, steps: readonly Step[]): WildRow['markup'] {
  const examples: string[] = [];
  let count = 0;
  const look = (text: string, where: string) => {
    if (!markupIn(text)) return;
    count++;
    if (examples.length < 3) examples.push(`${where}: ${text.slice(0, 70)}`);
  };
  for (const run of t.runs) look(run.title, 'title');
  for (const s of steps) {
    look(stepLabel(s), `step ${s.index} label`);
    // The tree shows the preview of every step but calls (their arguments are the model's own JSON).
    // A tool's output is shown as the tool printed it (a README's HTML, a command's JSON): only a
    // wrapper some client puts around outputs counts there.
    // A structured-output reply (the reader labels it so) is the model's own JSON too.
    if (s.kind === 'tool_result') { if (KNOWN_TAGS.test(stepPreview(s))) look(stepPreview(s), `step ${s.index} ${s.kind}`); }
    else if (s.kind !== 'tool_call' && !/\(structured output\)$/.test(s.label ?? '')) look(stepPreview(s), `step ${s.index} ${s.kind}`);
  }
  return { count, examples };
}

function usageOf(t: TrajectoryFile, steps: readonly Step[]): Pick<WildRow, 'usage' | 'priced'> {
  const withUsage = steps.filter((s) => s.usage && (s.usage.inputTokens || s.usage.outputTokens || s.usage.cost));
  const recorded = t.meta.recorded;
  const any = withUsage.length > 0 || !!(recorded && (recorded.inputTokens || recorded.outputTokens || recorded.cost));
  if (!any) return { usage: 'none', priced: 'n/a' };
  if (recorded?.cost || withUsage.some((s) => s.usage!.cost)) return { usage: 'recorded', priced: 'recorded cost' };
  const models = new Set([t.meta.model, ...withUsage.map((s) => s.usage!.model ?? s.model)].filter((m): m is string => !!m));
  return { usage: 'recorded', priced: [...models].some((m) => priceFor(m)) ? 'price table' : 'no price' };
}

/** Steps and calls before `convert --to atif` and after reading the ATIF back. */
function atifRoundTrip(t: TrajectoryFile): WildRow['atif'] {
  const before = t.runs.flatMap((r) => r.steps);
  const callsBefore = before.filter((s) => s.kind === 'tool_call').length;
  const stepsBefore = before.length;
  try {
    const { text } = atifText(t);
    // Read as if written in the original's place: subagent files an ATIF document names stay beside it.
    const back = parseTrajectoryText(text, { path: t.source.path, size: text.length });
    const after = back.runs.flatMap((r) => r.steps);
    const callsAfter = after.filter((s) => s.kind === 'tool_call').length;
    return { ok: callsAfter === callsBefore && after.length === stepsBefore, stepsBefore, stepsAfter: after.length, callsBefore, callsAfter };
  } catch (e) {
    return { ok: false, stepsBefore, stepsAfter: 0, callsBefore, callsAfter: 0, error: (e as Error).message.slice(0, 200) };
  }
}

/**
 * Records (lines, or items of the document's main list) whose own role is `user`: what a reader of
 * the raw log would count as user messages, tool results that logs file under `user` included.
 */
async function userRoleRecords(file: string): Promise<number> {
  const { promises: fs } = await import('node:fs');
  let text: string;
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile() || stat.size > 64 * 1024 * 1024) return 0;
    text = await fs.readFile(file, 'utf8');
  } catch {
    return 0;
  }
  let items: unknown[] = [];
  try {
    const doc = JSON.parse(text) as unknown;
    // A document of one record (a one-line JSON Lines file) is its own list.
    items = Array.isArray(doc) ? doc : isRecord(doc) ? (longestList(doc).length > 0 ? longestList(doc) : [doc]) : [];
  } catch {
    items = text.split('\n').flatMap((line) => {
      try {
        return line.trim() ? [JSON.parse(line) as unknown] : [];
      } catch {
        return [];
      }
    });
    // Markdown chat logs (Aider): a `#### ` line is a user message.
    if (items.length === 0) return text.split('\n').filter((l) => l.startsWith('#### ')).length;
  }
  return items.filter((v) => isUserRole(v)).length;
}

function longestList(doc: Record<string, unknown>): unknown[] {
  let best: unknown[] = [];
  for (const v of Object.values(doc)) if (Array.isArray(v) && v.length > best.length) best = v;
  return best;
}

function isUserRole(v: unknown, depth = 0): boolean {
  if (!isRecord(v) || depth > 2) return false;
  if (v.role === 'user' || v.type === 'user' || v.source === 'user' || v.type === 'user_message' || v.type === 'user.message') return true;
  return ['message', 'payload', 'data', 'item'].some((k) => isUserRole(v[k], depth + 1));
}

/** Share of records read into steps or skipped by a reader that named them. */
export function recordsAccountedFor(rows: readonly WildRow[]): { accounted: number; records: number } {
  let accounted = 0;
  let records = 0;
  for (const r of rows) {
    if (!r.coverage) continue;
    records += r.coverage.records;
    accounted += r.coverage.read + r.coverage.named;
  }
  return { accounted, records };
}
