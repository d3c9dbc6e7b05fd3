import type { Coverage, SourceLocation, Step, TrajectoryFile } from '../model';
import type { JsonlRecord, ParsedInput } from './input';
import { isRecord } from '../steps';
import { pointerTokens } from './jsonScan';

/** A record an adapter chose not to turn into a step, with the type it names it by (`skipRecord`). */
export interface SkippedRecord extends SourceLocation {
  type: string;
}

/** Above this share of records skipped, the reader warns (issue 20: "more than 1%"). */
const SKIPPED_WARNING_SHARE = 0.01;

/**
 * What the reader made of the file: which records steps came from (by the step's line or JSON
 * Pointer), which records no step came from and their type, and calls and results left unpaired.
 * Works for every adapter without its help; an adapter that skips a record on purpose names it
 * with `skipRecord`, and that name wins over the record's own type.
 */
export function computeCoverage(input: ParsedInput, file: TrajectoryFile, named: readonly SkippedRecord[] = []): Coverage {
  return coverageOf(recordList(input), file, named);
}

/**
 * What coverage needs of the records, whether they are still at hand (`recordList`) or were
 * handed to an adapter one by one and only counted as they went (`RecordLedger`).
 */
export interface CoverageRecords {
  readonly count: number;
  /** The record's own type (`recordType`), for a record no step came from. */
  typeOf(i: number): string;
  /** The record a step came from, by its location; undefined when it names none we can find. */
  indexOf(location: SourceLocation | undefined): number | undefined;
  /** A name given on purpose while the records went by (`RecordLedger.name`). */
  namedAt?(i: number): string | undefined;
  /** The records that share record `i`'s line (several written with no line break between them), `i` included. */
  lineMates?(i: number): readonly number[];
}

export function coverageOf(records: CoverageRecords, file: TrajectoryFile, named: readonly SkippedRecord[] = []): Coverage {
  const runs = file.holdsRuns && file.runs.length > 0 ? file.runs : undefined;
  const pairs = file.runs.map((r) => unpaired(r.steps)).reduce(sumPairs, { calls: 0, results: 0, pending: 0, interrupted: 0 });
  const base = { unpairedCalls: pairs.calls, unpairedResults: pairs.results, ...(pairs.pending > 0 ? { pendingCalls: pairs.pending } : {}), ...(pairs.interrupted > 0 ? { interruptedCalls: pairs.interrupted } : {}) };
  // Runs whose every step names its record (a file a harness appended several runs to, line by
  // line) are counted by record like one run's steps.
  const byRecord = runs?.every((r) => r.steps.every((s) => records.indexOf(s.location) !== undefined)) ?? false;
  if (runs && records.count !== runs.length && !byRecord) {
    // Runs are the records; which line of the file a run came from is the runs adapter's business.
    const read = runs.filter((r) => r.steps.length > 0).length;
    const empty = runs.length - read;
    return { records: runs.length, read, skipped: empty ? { 'run without steps': empty } : {}, named: 0, ...base, unlocatedSteps: 0 };
  }
  // Flags, not a Set of indexes: a million records cost a megabyte here, not tens.
  const readFlags = new Uint8Array(records.count);
  let readCount = 0;
  let unlocatedSteps = 0;
  let stepCount = 0;
  for (const { steps } of file.runs) {
    for (const step of steps) {
      stepCount++;
      const i = records.indexOf(step.location);
      if (i === undefined) unlocatedSteps++;
      // A line is the finest place a step names: a step there reads every record on it.
      else for (const j of records.lineMates?.(i) ?? [i]) {
        if (readFlags[j] === 1) continue;
        readFlags[j] = 1;
        readCount++;
      }
    }
  }
  const namedAt = new Map<number, string>();
  for (const s of named) {
    const i = records.indexOf(s);
    if (i !== undefined && !namedAt.has(i) && records.namedAt?.(i) === undefined) namedAt.set(i, s.type);
  }
  const nameOf = (i: number) => records.namedAt?.(i) ?? namedAt.get(i);
  const skipped: Record<string, number> = {};
  let namedCount = 0;
  let namedTotal = 0;
  // A reader that locates none of its steps cannot say which records it read: count none as skipped.
  const located = stepCount === 0 || unlocatedSteps < stepCount;
  for (let i = 0; i < records.count; i++) {
    const name = nameOf(i);
    if (name !== undefined) namedTotal++;
    if (readFlags[i] === 1) continue;
    if (!located && name === undefined) continue;
    if (name !== undefined) namedCount++;
    const type = name ?? records.typeOf(i);
    skipped[type] = (skipped[type] ?? 0) + 1;
  }
  const read = located ? readCount : records.count - namedTotal;
  return { records: records.count, read, skipped, named: namedCount, ...base, unlocatedSteps };
}

/**
 * What coverage needs of the input, taken before an adapter that may empty it (`ParseContext.consumable`)
 * reads it: each record's type kept by id, so no record is kept for it.
 */
export function recordsSnapshot(input: ParsedInput): CoverageRecords {
  const list = recordList(input);
  const ids = new Uint32Array(list.count);
  const names: string[] = [];
  const idOf = new Map<string, number>();
  for (let i = 0; i < list.count; i++) {
    const type = list.typeOf(i);
    let id = idOf.get(type);
    if (id === undefined) idOf.set(type, (id = names.push(type) - 1));
    ids[i] = id;
  }
  // Lines shared by several records, kept as numbers: the adapter may empty the records as it reads.
  const shared = new Map<number, readonly number[]>();
  if (list.lineMates) for (let i = 0; i < list.count; i++) {
    const mates = list.lineMates(i);
    if (mates.length > 1) shared.set(i, mates);
  }
  return { count: list.count, typeOf: (i) => names[ids[i]], indexOf: list.indexOf, lineMates: (i) => shared.get(i) ?? [i] };
}

/** The records as the loader counts them (`countRecords`): lines, array items, event files. */
function recordList(input: ParsedInput): CoverageRecords {
  switch (input.shape) {
    case 'jsonl': {
      const byLine = new Map<number, number>();
      input.records.forEach((r, i) => byLine.set(r.line, i));
      const records = input.records;
      return {
        count: records.length,
        typeOf: (i) => recordType(records[i].value),
        indexOf: (loc) => (loc?.line !== undefined ? byLine.get(loc.line) : recordOfPointer(loc?.pointer, records.length)),
        // byLine holds a line's last record: its mates, if any, are just before it.
        lineMates: (i) => recordsOfLine(i, (j) => records[j].line),
      };
    }
    case 'json': {
      const { values, prefix, twins } = containerOf(input.value);
      return { count: values.length, typeOf: (i) => recordType(values[i]), indexOf: (loc) => indexUnder(loc?.pointer, prefix, values.length) ?? twinIndex(loc?.pointer, twins, values.length) };
    }
    case 'folder':
      return {
        count: input.files.length,
        typeOf: (i) => recordType(input.files[i].value),
        indexOf: (loc) => {
          const first = loc?.pointer !== undefined ? pointerTokens(loc.pointer)[0] : undefined;
          const i = first === undefined ? -1 : input.files.findIndex((f) => f.name === first);
          return i >= 0 ? i : undefined;
        },
      };
    case 'text':
      // One document: read when any step came from it.
      return { count: 1, typeOf: () => recordType(input.text), indexOf: () => 0 };
  }
}

/** A pointer into a line-per-record file names the record by its first token. */
function recordOfPointer(pointer: string | undefined, count: number): number | undefined {
  const first = pointer !== undefined ? pointerTokens(pointer)[0] : undefined;
  return first !== undefined && /^\d+$/.test(first) && Number(first) < count ? Number(first) : undefined;
}

/**
 * The records of a JSON Lines file (or of documents one after another) counted as they are read
 * and handed on, when the adapter takes them one by one (`FormatAdapter.recordParser`): each one's
 * line, its own type and a name given on purpose, in typed arrays (12 bytes a record), so the
 * records themselves need not be kept for coverage (issue 23).
 */
export class RecordLedger implements CoverageRecords {
  /**
   * `listPrefix`: the records are the elements of the list at this JSON path of one document
   * (`FormatAdapter.elementParser`), located by JSON Pointer as `recordList` locates them; without
   * it, records are lines.
   */
  constructor(private readonly listPrefix?: string[]) {}

  private lines: Uint32Array = new Uint32Array(1024);
  private types: Uint32Array = new Uint32Array(1024);
  private names: Uint32Array = new Uint32Array(1024);
  /** Type names by id (0: none); a record's type is almost always one of a few. */
  private readonly typeNames: string[] = [''];
  private readonly typeIds = new Map<string, number>();
  count = 0;

  add(record: JsonlRecord): void {
    if (this.count === this.lines.length) {
      this.lines = grown(this.lines);
      this.types = grown(this.types);
      this.names = grown(this.names);
    }
    this.lines[this.count] = record.line;
    this.types[this.count] = this.idOf(recordType(record.value));
    this.count++;
  }

  typeOf(i: number): string {
    return this.typeNames[this.types[i]];
  }

  namedAt(i: number): string | undefined {
    return this.names[i] === 0 ? undefined : this.typeNames[this.names[i]];
  }

  /** Names a record read so far (the first name given wins, as in `coverageOf`); false when `where` names none of them yet. */
  name(type: string, where: SourceLocation): boolean {
    const i = this.indexOf(where);
    if (i === undefined) return false;
    if (this.names[i] === 0) this.names[i] = this.idOf(type);
    return true;
  }

  indexOf(location: SourceLocation | undefined): number | undefined {
    if (this.listPrefix) return indexUnder(location?.pointer, this.listPrefix, this.count);
    if (location?.line === undefined) return recordOfPointer(location?.pointer, this.count);
    // Lines only grow; with two records on one line the later one is the line's (as `recordList`'s map).
    const line = location.line;
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.lines[mid] <= line) lo = mid + 1;
      else hi = mid;
    }
    return lo > 0 && this.lines[lo - 1] === line ? lo - 1 : undefined;
  }

  lineMates(i: number): readonly number[] {
    return this.listPrefix ? [i] : recordsOfLine(i, (j) => this.lines[j]);
  }

  private idOf(type: string): number {
    let id = this.typeIds.get(type);
    if (id === undefined) {
      id = this.typeNames.length;
      this.typeNames.push(type);
      this.typeIds.set(type, id);
    }
    return id;
  }
}

/** Record `i` and the records just before it on the same line (`lineOf`), in file order. */
function recordsOfLine(i: number, lineOf: (j: number) => number): readonly number[] {
  let first = i;
  while (first > 0 && lineOf(first - 1) === lineOf(i)) first--;
  return first === i ? [i] : Array.from({ length: i - first + 1 }, (_, k) => first + k);
}

function grown(from: Uint32Array): Uint32Array {
  const to = new Uint32Array(from.length * 2);
  to.set(from);
  return to;
}

/** The list that holds the events: the document itself, or its longest top-level array. */
function containerOf(value: unknown): { values: unknown[]; prefix: string[] | undefined; twins?: string[] } {
  if (Array.isArray(value)) return { values: value, prefix: [] };
  if (isRecord(value)) {
    let best: [string, unknown[]] | undefined;
    for (const [key, v] of Object.entries(value)) {
      if (Array.isArray(v) && (!best || v.length > best[1].length)) best = [key, v];
    }
    // Lists of the same length beside it are views of the same records (an OpenHands completion
    // log's `messages` as sent and `raw_messages` as the agent made them): a step from either reads its record.
    const twins = best ? Object.entries(value).filter(([k, v]) => k !== best![0] && Array.isArray(v) && v.length === best![1].length && v.length > 1).map(([k]) => k) : [];
    if (best) return { values: best[1], prefix: [best[0]], ...(twins.length ? { twins } : {}) };
  }
  return { values: [value], prefix: undefined };
}

function twinIndex(pointer: string | undefined, twins: readonly string[] | undefined, count: number): number | undefined {
  if (!twins || pointer === undefined) return undefined;
  const first = pointerTokens(pointer)[0];
  return first !== undefined && twins.includes(first) ? indexUnder(pointer, [first], count) : undefined;
}

function indexUnder(pointer: string | undefined, prefix: string[] | undefined, count: number): number | undefined {
  // A document that is one record: any step in it came from it.
  if (prefix === undefined) return 0;
  if (pointer === undefined) return undefined;
  const tokens = pointerTokens(pointer);
  for (let i = 0; i < prefix.length; i++) if (tokens[i] !== prefix[i]) return undefined;
  const token = tokens[prefix.length];
  if (token === undefined) return undefined;
  return /^\d+$/.test(token) && Number(token) < count ? Number(token) : undefined;
}

/** A record's own type, as its log names it: `type` (with a payload's type, as Codex nests them), `kind`, `role`…. */
function recordType(value: unknown): string {
  if (!isRecord(value)) return Array.isArray(value) ? 'array' : typeof value;
  for (const key of ['type', 'kind', 'event', 'event_type', 'action', 'observation', 'role', 'source']) {
    const v = value[key];
    if (typeof v !== 'string' || v.length === 0 || v.length > 60) continue;
    const inner = isRecord(value.payload) ? value.payload.type : isRecord(value.data) ? value.data.type : undefined;
    return typeof inner === 'string' && inner.length <= 60 ? `${v}/${inner}` : v;
  }
  const keys = Object.keys(value).slice(0, 3);
  return keys.length ? `{${keys.join(', ')}}` : '{}';
}

interface Pairs { calls: number; results: number; pending: number; interrupted: number }

/**
 * Calls no result answers and results that answer no call. The calls the run ends on (nothing but
 * calls after them) are pending, not unpaired: the log ends (the run was stopped, or is still
 * running) before their results could be written, so nothing is missing from the reading. Calls
 * the log says were cut off (an aborted or failed reply; only calls between them and a compaction, which
 * starts the context again) are interrupted, not unpaired either.
 */
function unpaired(steps: readonly Step[]): Pairs {
  const answered = new Set<number>();
  let results = 0;
  for (const s of steps) {
    if (s.kind !== 'tool_result') continue;
    if (s.answers === undefined) results++;
    else answered.add(s.answers);
  }
  let tail = steps.length;
  while (tail > 0 && steps[tail - 1].kind === 'tool_call') tail--;
  // Calls the next non-call step after which is a compaction: the compaction cut them off.
  const beforeCompaction = new Set<number>();
  for (let i = steps.length - 1, compacted = false; i >= 0; i--) {
    if (steps[i].kind === 'tool_call') { if (compacted) beforeCompaction.add(i); }
    else compacted = steps[i].kind === 'compaction';
  }
  let calls = 0;
  let pending = 0;
  let interrupted = 0;
  for (const s of steps) {
    if (s.kind !== 'tool_call' || answered.has(s.index) || s.tool?.expectsNoResult === true) continue;
    if (s.tool?.interrupted === true || beforeCompaction.has(s.index)) interrupted++;
    else if (s.index >= tail) pending++;
    else calls++;
  }
  return { calls, results, pending, interrupted };
}

function sumPairs(a: Pairs, b: Pairs): Pairs {
  return { calls: a.calls + b.calls, results: a.results + b.results, pending: a.pending + b.pending, interrupted: a.interrupted + b.interrupted };
}

/** Records that became no step, in all. */
export function skippedCount(c: Coverage): number {
  return Object.values(c.skipped).reduce((a, b) => a + b, 0);
}

/** One line for `stats` and the tree's tooltip: "read 120 of 130 records; skipped 8 queue-operation, 2 summary; 1 call without a result". */
export function describeCoverage(c: Coverage): string {
  const parts = [`read ${n(c.read)} of ${n(c.records)} records into steps`];
  const skipped = Object.entries(c.skipped).sort((a, b) => b[1] - a[1]);
  if (skipped.length > 0) {
    const shown = skipped.slice(0, 6).map(([type, count]) => `${n(count)} ${type}`);
    if (skipped.length > 6) shown.push(`${skipped.length - 6} more types`);
    parts.push(`skipped ${shown.join(', ')}`);
  }
  if (c.unpairedCalls > 0) parts.push(`${n(c.unpairedCalls)} call${c.unpairedCalls === 1 ? '' : 's'} without a result`);
  if (c.pendingCalls) parts.push(`${n(c.pendingCalls)} call${c.pendingCalls === 1 ? '' : 's'} the log ends before answering`);
  if (c.interruptedCalls) parts.push(`${n(c.interruptedCalls)} call${c.interruptedCalls === 1 ? '' : 's'} cut off (an aborted or failed reply, or a compaction)`);
  if (c.unpairedResults > 0) parts.push(`${n(c.unpairedResults)} result${c.unpairedResults === 1 ? '' : 's'} without a call`);
  if (c.unlocatedSteps > 0) parts.push(`${n(c.unlocatedSteps)} step${c.unlocatedSteps === 1 ? '' : 's'} not traced to a record`);
  const subs = c.subagentFiles;
  if (subs && subs.read > 0) parts.push(`${n(subs.read)} subagent file${subs.read === 1 ? '' : 's'} read beside it as branches`);
  if (subs && subs.notRead.length > 0) {
    const named = subs.notRead.slice(0, 3).map((f) => `${f.path} (${f.why})`).join(', ');
    parts.push(`${n(subs.notRead.length)} subagent file${subs.notRead.length === 1 ? '' : 's'} named but not read: ${named}${subs.notRead.length > 3 ? ', …' : ''}`);
  }
  return parts.join('; ');
}

/** The warning a user sees when more than 1% of the records became no step; undefined otherwise. */
export function coverageWarning(c: Coverage): string | undefined {
  const count = skippedCount(c);
  if (c.records === 0 || count / c.records <= SKIPPED_WARNING_SHARE) return undefined;
  const top = Object.entries(c.skipped).sort((a, b) => b[1] - a[1]).slice(0, 3).map(([type, k]) => `${n(k)} ${type}`);
  const pct = Math.round((count / c.records) * 100);
  const list = `${top.join(', ')}${Object.keys(c.skipped).length > 3 ? ', …' : ''}`;
  // Records the reader names on purpose (an event stream's earlier states, usage read onto a step,
  // bookkeeping) were understood: said so, so that a stream read whole does not look like a loss.
  const unknown = count - c.named;
  if (unknown <= 0) return `${n(count)} of ${n(c.records)} records (${pct}%) became no step, each of a kind the reader names (read with another record, an earlier state, bookkeeping): ${list}.`;
  return `${n(count)} of ${n(c.records)} records (${pct}%) became no step: ${list}; ${n(unknown)} of them of a kind the reader does not know.`;
}

function n(value: number): string {
  return value.toLocaleString('en-US');
}
