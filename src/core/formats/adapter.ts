import type { SkippedRecord } from '../io/coverage';
import type { JsonlRecord, ParsedInput } from '../io/input';
import type { FormatId, SourceLocation, Run, SubagentFileRef, TrajectoryMeta, Warning } from '../model';

export type { JsonlRecord, ParsedInput } from '../io/input';

export interface ParseContext {
  fileName: string;
  /** Warnings the loader already collected (bad lines, truncation); adapters append theirs. */
  warnings: Warning[];
  /** Records the adapter read on purpose into no step (metadata, duplicates); see `skipRecord`. */
  skipped?: SkippedRecord[];
  /**
   * Nothing reads the input after `parse` (a read that keeps nothing for later; the loader took
   * what coverage needs first): the adapter may let each record of a big list go once its steps
   * exist (`releaseItem`), so the parsed document and the steps are not all in memory at once.
   */
  consumable?: boolean;
}

/** Lets item `i` of a list of the input go (see `ParseContext.consumable`); the list keeps its length. */
export function releaseItem(ctx: ParseContext, list: unknown[], i: number): void {
  if (ctx.consumable) list[i] = undefined;
}

/**
 * Says that the record at `where` (its line, or its JSON Pointer) becomes no step on purpose, e.g.
 * `skipRecord(ctx, 'queue-operation', { line })`. The coverage report counts it as named.
 */
export function skipRecord(ctx: ParseContext, type: string, where: SourceLocation | undefined): void {
  if (!where) return;
  (ctx.skipped ??= []).push({ type, line: where.line, pointer: where.pointer });
}

/** What an adapter returns; the loader adds the source, and the warnings it passed in. */
/** One run as an adapter reads it. */
interface ParsedRun {
  title: string;
  steps: Run['steps'];
  meta?: TrajectoryMeta;
  /** A run of a file of many runs may be in another format than the file (`runs` holds any). */
  format?: FormatId;
  /** Files beside the log that hold its subagents' steps; the loader reads them into branches. */
  subagentFiles?: SubagentFileRef[];
}

/** What an adapter reads from a file: its run, or (an evaluation output) the file's runs, never nested. */
export interface ParsedTrajectory extends ParsedRun {
  runs?: ParsedRun[];
}

export interface FormatAdapter {
  /** Stable lowercase id, e.g. `openhands-v0`. */
  readonly id: FormatId;
  /** Human name for messages and the UI. */
  readonly label: string;
  /**
   * Base-name patterns (`*.<ending>`) of this format's logs: what a survey reads, where the
   * Explorer offers "Open as Trajectory" and what the editor follower looks at
   * (`formats/fileNames.ts`). A name only proposes a file; `sniff` decides.
   */
  readonly fileNames: readonly string[];
  /** Names this format's logs may carry though most such files are no log (`*.md`): offered, never surveyed. */
  readonly otherFileNames?: readonly string[];
  /** Whether a folder with these file names is one run of this format, read whole (an event store, a task folder). */
  isRunFolder?(fileNames: readonly string[]): boolean;
  /**
   * The tool names of this format's agent, by what they do (matched whatever their case): the fact
   * layer (`compaction/facts/calls.ts`) tells edits, reads and commands apart by them, with a table
   * of its own for names many agents share (`bash`, `str_replace_editor`, `apply_patch`). A name
   * only adds a reading of a call; a call is read the same whatever format its log is in.
   */
  readonly tools?: AgentTools;
  /** How this format's agent compacts its own context: live follow shows how far the log is from it (`live/compactionTrigger.ts`). */
  readonly compactionTrigger?: AgentCompactionTrigger;
  /**
   * A big document is read element by element (`io/jsonDocumentStream.ts`); an element at `path`
   * may be replaced, as it is read, by a compact stand-in that `parse` reads exactly as it reads the
   * element (OTLP spans), so the document is never held whole in its bulky form. Runs before the
   * format is known: match only paths no other format reads, and return undefined to keep the element.
   */
  compactElement?(path: readonly (string | number)[], value: unknown): unknown;
  /**
   * JSON Lines (and documents one after another) taken record by record: when the loader reads a
   * whole file and keeps nothing for later, it hands each record over as it is read and keeps
   * none, so the records and the steps are never all in memory at once (issue 23). `head` is what
   * `sniff` saw; undefined declines. `parse` of a `jsonl` input must be feeding its records here
   * (one code path), so both give the same trajectory; the parser should keep of each record only
   * what its steps need.
   */
  recordParser?(ctx: ParseContext, head: readonly JsonlRecord[]): RecordParser | undefined;
  /**
   * A big document's event list taken element by element, as `recordParser` takes records: when
   * the loader reads a document in parts and keeps nothing for later, each element of the list
   * goes here as it is read, so the parsed list and the steps are never all in memory at once
   * (issue 23). `head` is the document as far as it is read when the list's first element arrives
   * (the list holding only that element), `key` the list's key (none when the document is the
   * list); undefined declines. `parse` of a `json` input must feed its list here (one code path).
   */
  elementParser?(ctx: ParseContext, head: unknown, key: string | undefined): ElementParser | undefined;
  /** Confidence 0..1 that the input is this format. Must be cheap: look at a few fields only. */
  sniff(input: ParsedInput, fileName: string): number;
  parse(input: ParsedInput, ctx: ParseContext): ParsedTrajectory;
}

/** An adapter's parse of JSON Lines fed one record at a time (see `FormatAdapter.recordParser`). */
export interface RecordParser {
  /** The next record, in file order. */
  add(record: JsonlRecord): void;
  finish(): ParsedTrajectory;
}

/** An adapter's parse of a document's event list fed one element at a time (see `FormatAdapter.elementParser`). */
export interface ElementParser {
  /** The element at `index` of the list, in order. */
  add(value: unknown, index: number): void;
  /** `root`: the whole document, its other fields read, the list empty when it went by element. */
  finish(root: unknown): ParsedTrajectory;
}

/** Parses records through a record parser: what an adapter's `parse` does with a `jsonl` input. */
export function parseRecords(parser: RecordParser, records: readonly JsonlRecord[]): ParsedTrajectory {
  for (const r of records) parser.add(r);
  return parser.finish();
}

/** An agent's own tool names by what they do (see `FormatAdapter.tools`). */
interface AgentTools {
  /** Tools that change a file their arguments name (`Edit`, `replace_in_file`). */
  readonly edit?: readonly string[];
  /** Tools that write a new file (`Write`, `write_to_file`). */
  readonly create?: readonly string[];
  /** Tools that read a file (`Read`, `read_file`). */
  readonly read?: readonly string[];
  /** Tools that run a shell command (`run_shell_command`, `exec_command`). */
  readonly command?: readonly string[];
}

/** When an agent compacts its own context (see `FormatAdapter.compactionTrigger`). */
type AgentCompactionTrigger =
  /**
   * On tokens, as the compaction strategy with this id reproduces it: the strategy's
   * `agentTrigger` gives the limit for the model's window, so the live view and the replay agree.
   */
  | { readonly agent: string; readonly unit: 'tokens'; readonly strategy: string }
  /** On events: once the agent's view holds more than `maxSize` of them (OpenHands condensers); `where` says where the number comes from. */
  | { readonly agent: string; readonly unit: 'events'; readonly maxSize: number; readonly where: string };

/** The input's top-level JSON object, for adapters of formats that are one object per file. */
export function jsonObjectOf(input: ParsedInput): Record<string, unknown> | undefined {
  const v = input.shape === 'json' ? input.value : undefined;
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** The input's records when it is JSON Lines, else none, for adapters of formats written a record a line. */
export function jsonlRecordsOf(input: ParsedInput): JsonlRecord[] {
  return input.shape === 'jsonl' ? input.records : [];
}

/** A folder whose JSON files are all event files of one store (other files may sit beside them). */
export function eventStore(names: readonly string[], eventFile: RegExp): boolean {
  const json = names.filter((n) => n.toLowerCase().endsWith('.json'));
  return json.length > 0 && json.every((n) => eventFile.test(n));
}
