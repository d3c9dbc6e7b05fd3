// Follows a trajectory an agent is still writing. JSON Lines files are read from where the last
// read stopped (a line not yet finished waits for its end); a folder of event files reads only the
// files it has not seen; a JSON document rewritten in place is read again whole. A file that shrank
// or was replaced by another (a new inode) is read again from the start, and the update says so.
// Records go through the same reader rules (`JsonLinesCollector`) and the same adapters as the
// loader's: every update parses the records gathered so far into a whole new trajectory.

import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { ParsedInput } from '../formats/adapter';
import type { Step, Trajectory, TrajectorySource, Warning } from '../model';
import { allSteps } from '../stats';
import { formatBytes } from '../io/bytes';
import { TrajectoryLoadError } from '../io/errors';
import { JsonLinesCollector } from '../io/jsonLines';
import type { FormatAdapter } from '../formats/adapter';
import { DEFAULT_MAX_BYTES, detectFormat, headOf, loadTrajectory, parseInput, parseInputWith, type LoadOptions } from '../io/load';
import { monotonicProgress, throwIfCancelled, yieldToEventLoop } from '../io/progress';
import { checkLooksLikeText, decodeText } from '../io/readInput';
import { isZip } from '../io/zip';
import { readRegularFile, safeFolderEntries } from '../io/safeFolder';

/**
 * Files up to this size are followed line by line, which keeps their parsed records in memory;
 * bigger ones (and zips) are followed by reading them again whole when they change.
 */
export const LIVE_MAX_BYTES = 64 * 1024 * 1024;

/** Bytes before the read position read again on every growth, to notice a file rewritten in place. */
const ANCHOR_BYTES = 64;
const CHUNK_BYTES = 2 * 1024 * 1024;
/** A parse longer than this is followed by as long a pause before the next, so the thread stays free half the time. */
const QUIET_AFTER_MS = 250;

export type LiveMode = 'jsonl' | 'folder' | 'document';

/** What the follower has done so far; tests and the log read these. */
export interface LiveCounters {
  /** Calls of `poll`. */
  polls: number;
  /** New bytes read from a JSON Lines file since it was opened (the first read included). */
  bytesRead: number;
  /** Bytes read again just before the read position, to check the file was not rewritten. */
  anchorBytes: number;
  /** Event files read from a folder (the first read included). */
  filesRead: number;
  /** Reads of the whole file or folder after the first: shrink, replace, rewrite. */
  reloads: number;
}

export type LiveChange = 'none' | 'appended' | 'rewritten' | 'reloaded';

export interface LiveUpdate {
  /**
   * `appended`: new records at the end; `rewritten`: a document read again whole; `reloaded`:
   * the file shrank or was replaced, so nothing of before is kept (see `reason`).
   */
  change: LiveChange;
  reason?: string;
  trajectory: Trajectory;
  /** Steps (over all runs, as `allSteps` lists them) the same as before this update, from the start. */
  unchangedSteps: number;
  /** Steps before the update (over all runs). */
  previousSteps: number;
  /** Bytes (or event files, in a folder) this update read. */
  bytesRead: number;
  filesRead: number;
  /** Compaction steps that were not there before (never set for a reload: that is another file). */
  compactions: Step[];
  /** Set when the new records could not be read as a trajectory; the trajectory is the last good one. */
  error?: string;
}

interface FileIdentity {
  dev: number;
  ino: number;
}

/** One JSON Lines file read so far: the records of every complete line, and the unfinished tail. */
class JsonlState {
  readonly collector = new JsonLinesCollector();
  /** Bytes read from the file: the complete lines and the unfinished tail. */
  offset = 0;
  /** Complete lines fed to the collector. */
  lines = 0;
  private pending: Buffer[] = [];
  pendingBytes = 0;
  /** The last bytes read (up to ANCHOR_BYTES), to notice a file rewritten in place. */
  anchor = Buffer.alloc(0);

  /** Byte offset after the last complete line. */
  get lineOffset(): number {
    return this.offset - this.pendingBytes;
  }

  /** Takes the next bytes of the file; returns false once the file turns out not to be JSON Lines. */
  push(chunk: Buffer): boolean {
    this.offset += chunk.length;
    this.anchor = Buffer.concat([this.anchor, chunk.subarray(Math.max(0, chunk.length - ANCHOR_BYTES))]);
    this.anchor = this.anchor.subarray(Math.max(0, this.anchor.length - ANCHOR_BYTES));
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      const part = chunk.subarray(start, nl);
      const line = this.pending.length === 0 ? part : Buffer.concat([...this.pending, part]);
      this.pending = [];
      this.pendingBytes = 0;
      start = nl + 1;
      this.lines++;
      if (!this.collector.add(line.toString('utf8'), this.lines) || !this.collector.stillJsonl) return false;
    }
    if (start < chunk.length) {
      this.pending.push(Buffer.from(chunk.subarray(start)));
      this.pendingBytes += chunk.length - start;
    }
    return true;
  }

  /**
   * The records as adapter input. An unfinished last line that already parses (a file whose
   * writer left out the final newline) is shown, but stays unfinished: its bytes are kept, not
   * counted as a line, and read as part of the line once its newline arrives.
   */
  /** What `input` last returned, in short: records, bad lines, and the tail shown, if any. */
  shown = '';

  input(): { input: ParsedInput; warnings: Warning[] } | undefined {
    const collector = this.collector;
    let tail: unknown;
    if (this.pendingBytes > 0) {
      try {
        tail = JSON.parse(Buffer.concat(this.pending).toString('utf8'));
      } catch {
        tail = undefined;
      }
    }
    const withTail = tail !== undefined && typeof tail === 'object' && tail !== null;
    const records = withTail ? [...collector.records, { value: tail, line: this.lines + 1 }] : collector.records;
    this.shown = `${collector.records.length}:${collector.warnings.length}:${withTail ? this.pendingBytes : -1}`;
    if (!collector.stillJsonl || records.length === 0) return undefined;
    // As the loader says of a file cut off mid-record, except that here the rest may still come.
    const unfinished: Warning[] = this.pendingBytes > 0 && !withTail ? [{
      message: `The file ends mid-record at line ${this.lines + 1} (as when an agent is still writing it); every complete line before it was loaded, and the line will be once it is finished.`,
      line: this.lines + 1,
    }] : [];
    if (records.length === 1 && collector.warnings.length === 0) return { input: { shape: 'json', value: records[0].value }, warnings: unfinished };
    return { input: { shape: 'jsonl', records }, warnings: [...collector.warnings, ...unfinished] };
  }
}

interface FolderState {
  /** Entries skipped for safety (links out of the folder, FIFOs, devices), said once each. */
  skipped: Warning[];
  files: { name: string; value: unknown }[];
  seen: Set<string>;
  bytes: number;
}

/** Follows one file or event folder. Create it with `LiveSource.open`, then call `poll` when it may have changed. */
export class LiveSource {
  readonly counters: LiveCounters = { polls: 0, bytesRead: 0, anchorBytes: 0, filesRead: 0, reloads: 0 };
  mode: LiveMode = 'document';
  trajectory!: Trajectory;
  private jsonl: JsonlState | undefined;
  private folder: FolderState | undefined;
  private identity: FileIdentity | undefined;
  private size = 0;
  private mtime = 0;
  /** The time the file was opened with: the tree knows it by it, so it stays while the file grows. */
  private openedModified: number | undefined;

  /** The load options for later reads: no progress and no cancel, those belong to the first read. */
  private readonly options: LoadOptions;

  private constructor(readonly file: string, options: LoadOptions) {
    this.options = { ...options, onProgress: undefined, signal: undefined };
  }

  /** Reads the file or folder as the loader would, remembering where it stopped. */
  static async open(file: string, options: LoadOptions = {}): Promise<LiveSource> {
    const source = new LiveSource(file, options);
    await source.readAll(options);
    return source;
  }

  /** Byte offset after the last complete line of a JSON Lines file (0 in the other modes). */
  get lineOffset(): number {
    return this.jsonl?.lineOffset ?? 0;
  }

  /** Bytes of an unfinished last line, read and waiting for its end. */
  get pendingBytes(): number {
    return this.jsonl?.pendingBytes ?? 0;
  }

  private async readAll(options: LoadOptions): Promise<void> {
    let stat;
    try {
      stat = await fs.stat(this.file);
    } catch {
      throw new TrajectoryLoadError(this.file, 'not-found', 'no such file or folder.');
    }
    this.jsonl = undefined;
    this.folder = undefined;
    this.identity = { dev: stat.dev, ino: stat.ino };
    this.size = stat.size;
    this.mtime = stat.mtimeMs;
    if (stat.isDirectory()) {
      this.mode = 'folder';
      this.folder = { files: [], seen: new Set(), bytes: 0, skipped: [] };
      await this.readNewFolderFiles();
      this.trajectory = this.parseFolder();
      this.openedModified = this.trajectory.source.modified;
      return;
    }
    const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    if (stat.size > maxBytes || stat.size > LIVE_MAX_BYTES || stat.size === 0) {
      await this.readDocument(options);
      return;
    }
    const state = new JsonlState();
    const handle = await fs.open(this.file, 'r');
    let jsonl = true;
    try {
      const head = Buffer.alloc(Math.min(stat.size, 8192));
      await handle.read(head, 0, head.length, 0);
      if (isZip(head)) jsonl = false;
      else {
        checkLooksLikeText(head, this.file);
        const progress = monotonicProgress(options.onProgress);
        jsonl = await readRange(handle, 0, undefined, options.signal, this.file, (chunk, soFar) => {
          progress(0.9 * Math.min(1, soFar / Math.max(1, stat.size)), `Reading ${formatBytes(soFar)} of ${formatBytes(stat.size)}…`);
          return state.push(chunk);
        });
      }
    } finally {
      await handle.close();
    }
    const input = jsonl ? state.input() : undefined;
    // A pretty-printed document is not JSON Lines. One line is followed as lines: should it be a
    // document written again whole, the bytes before the read position tell (see anchorHolds).
    if (!input) {
      await this.readDocument(options);
      return;
    }
    this.mode = 'jsonl';
    this.jsonl = state;
    this.counters.bytesRead += state.offset;
    this.size = state.offset;
    this.adapter = undefined;
    this.trajectory = this.parseJsonl(input, this.sourceOf(state.offset, stat.mtimeMs));
    this.openedModified = stat.mtimeMs;
    this.trajectory.source.modified = stat.mtimeMs;
    options.onProgress?.(1, 'Done');
  }

  /** No change is read before this time (ms since the epoch): after a long parse or document read. */
  private quietUntil = 0;

  /** The adapter that read the file, once the records detection looks at are all in. */
  private adapter: FormatAdapter | undefined;

  /**
   * The records as a trajectory, through the adapter detection picks. Detection sees the records
   * within the first 64 KB only; once more records follow them the choice cannot change, and is
   * not made again.
   */
  private parseJsonl(input: { input: ParsedInput; warnings: Warning[] }, source: TrajectorySource): Trajectory {
    if (this.adapter) return parseInputWith(this.adapter, input.input, source, input.warnings);
    const trajectory = parseInput(input.input, source, input.warnings);
    const head = headOf(input.input);
    const settled = input.input.shape === 'jsonl' && head.shape === 'jsonl' && head.records.length < input.input.records.length;
    if (settled && !trajectory.meta.jsonPath) {
      try {
        this.adapter = detectFormat(input.input, this.file).adapter;
      } catch {
        this.adapter = undefined;
      }
    }
    return trajectory;
  }

  private async readDocument(options: LoadOptions): Promise<void> {
    this.mode = 'document';
    this.trajectory = await loadTrajectory(this.file, options);
    this.size = this.trajectory.source.size;
    this.openedModified ??= this.trajectory.source.modified;
  }

  private sourceOf(size: number, modified: number): TrajectorySource {
    return { path: this.file, size, modified: this.openedModified ?? modified };
  }

  /**
   * Looks at the file again and reads what changed. Cheap when nothing did (one `stat`, or one
   * directory listing for a folder).
   */
  async poll(): Promise<LiveUpdate> {
    this.counters.polls++;
    const before = this.trajectory;
    const previousSteps = allSteps(before);
    const unchanged = (error?: string): LiveUpdate => ({ change: 'none', trajectory: before, unchangedSteps: previousSteps.length, previousSteps: previousSteps.length, bytesRead: 0, filesRead: 0, compactions: [], error });
    let stat;
    try {
      stat = await fs.stat(this.file);
    } catch {
      return unchanged('the file is gone');
    }
    const replaced = this.identity !== undefined && (stat.ino !== this.identity.ino || stat.dev !== this.identity.dev);
    if (this.mode === 'folder') {
      if (replaced) return this.reload('the folder was replaced', previousSteps.length);
      return this.pollFolder(previousSteps);
    }
    if (replaced) return this.reload('the file was replaced by another', previousSteps.length);
    if (this.mode === 'document') {
      if (stat.size === this.size && stat.mtimeMs === this.mtime) return unchanged();
      // A big document that keeps changing is read again at most every other reading time.
      if (Date.now() < this.quietUntil) return unchanged();
      this.mtime = stat.mtimeMs;
      try {
        const started = Date.now();
        const read = await loadTrajectory(this.file, this.options);
        this.quietUntil = Date.now() + (Date.now() - started);
        this.counters.reloads++;
        read.source.modified = this.openedModified ?? read.source.modified;
        this.size = read.source.size;
        this.trajectory = read;
        return this.updateFrom(before, previousSteps, 'rewritten', 'the document was written again', read.source.size, 0);
      } catch (e) {
        // Caught mid-write: keep what was shown and try again at the next change.
        return unchanged((e as Error).message);
      }
    }
    const state = this.jsonl!;
    if (stat.size < state.offset) return this.reload(`the file shrank from ${formatBytes(state.offset)} to ${formatBytes(stat.size)}`, previousSteps.length);
    if (stat.size === state.offset) return unchanged();
    // A big session's parse takes a while: leave the thread as long again before the next one.
    if (Date.now() < this.quietUntil) return unchanged();
    if (stat.size > LIVE_MAX_BYTES) return this.reload(`the file grew past ${formatBytes(LIVE_MAX_BYTES)}; it is followed by reading it whole from now on`, previousSteps.length);
    const handle = await fs.open(this.file, 'r');
    let read = 0;
    let stillJsonl = true;
    try {
      // The bytes just before the read position must be what they were: else the file was rewritten.
      if (state.offset > 0 && !(await this.anchorHolds(handle, state))) {
        await handle.close().catch(() => undefined);
        return this.reload('the file was written again from the start', previousSteps.length);
      }
      stillJsonl = await readRange(handle, state.offset, stat.size, undefined, this.file, (chunk) => {
        read += chunk.length;
        return state.push(chunk);
      });
    } finally {
      await handle.close().catch(() => undefined);
    }
    this.counters.bytesRead += read;
    this.mtime = stat.mtimeMs;
    this.size = state.offset;
    if (!stillJsonl) return this.reload('the file is no longer JSON Lines', previousSteps.length);
    const shownBefore = state.shown;
    const input = state.input();
    if (!input) return unchanged('no records yet');
    // Only part of a line arrived: nothing new to show yet.
    if (state.shown === shownBefore) return { ...unchanged(), bytesRead: read };
    const parseStart = Date.now();
    try {
      this.trajectory = this.parseJsonl(input, this.sourceOf(state.offset, stat.mtimeMs));
    } catch (e) {
      return { ...unchanged((e as Error).message), bytesRead: read };
    }
    const parseMs = Date.now() - parseStart;
    if (parseMs > QUIET_AFTER_MS) this.quietUntil = Date.now() + parseMs;
    return this.updateFrom(before, previousSteps, 'appended', undefined, read, 0);
  }

  /** Compares the last bytes read with what the file holds there now. */
  private async anchorHolds(handle: FileHandle, state: JsonlState): Promise<boolean> {
    const length = state.anchor.length;
    if (length === 0) return true;
    const now = Buffer.alloc(length);
    const { bytesRead } = await handle.read(now, 0, length, state.offset - length);
    this.counters.anchorBytes += bytesRead;
    return bytesRead === length && now.equals(state.anchor);
  }

  /** Forgets everything and reads the file or folder again from the start. */
  private async reload(reason: string, previousSteps: number): Promise<LiveUpdate> {
    this.counters.reloads++;
    this.openedModified = undefined;
    const bytesBefore = this.counters.bytesRead;
    const filesBefore = this.counters.filesRead;
    await this.readAll(this.options);
    return {
      change: 'reloaded', reason, trajectory: this.trajectory, unchangedSteps: 0, previousSteps,
      bytesRead: this.counters.bytesRead - bytesBefore, filesRead: this.counters.filesRead - filesBefore, compactions: [],
    };
  }

  private async pollFolder(previousSteps: Step[]): Promise<LiveUpdate> {
    const before = this.trajectory;
    const folder = this.folder!;
    const names = new Set(await jsonNames(this.file));
    for (const name of folder.seen) {
      if (!names.has(name)) return this.reload(`${name} was removed from the folder`, previousSteps.length);
    }
    const filesBefore = this.counters.filesRead;
    const added = await this.readNewFolderFiles(names);
    const read = this.counters.filesRead - filesBefore;
    if (added === 0) return { change: 'none', trajectory: before, unchangedSteps: previousSteps.length, previousSteps: previousSteps.length, bytesRead: 0, filesRead: read, compactions: [] };
    try {
      this.trajectory = this.parseFolder();
    } catch (e) {
      return { change: 'none', trajectory: before, unchangedSteps: previousSteps.length, previousSteps: previousSteps.length, bytesRead: 0, filesRead: read, compactions: [], error: (e as Error).message };
    }
    return this.updateFrom(before, previousSteps, 'appended', undefined, 0, read);
  }

  /**
   * Reads the event files not read yet; a file that does not parse (still being written) waits.
   * Returns how many were added.
   */
  private async readNewFolderFiles(known?: Set<string>): Promise<number> {
    const folder = this.folder!;
    const names = [...(known ?? await jsonNames(this.file))].filter((n) => !folder.seen.has(n));
    // The loader's rules: a FIFO, a device or a link out of the folder is never opened; it is
    // named once in the warnings and not looked at again.
    const entries = await safeFolderEntries(this.file, names, folder.skipped);
    const safe = new Set(entries.map((e) => e.name));
    for (const name of names) if (!safe.has(name)) folder.seen.add(name);
    let read = 0;
    let added = 0;
    for (const { name, full } of entries) {
      throwIfCancelled(this.options.signal, this.file);
      let bytes: Buffer;
      try {
        bytes = await readRegularFile(full, name);
      } catch {
        continue; // removed meanwhile
      }
      read++;
      this.counters.filesRead++;
      let value: unknown;
      try {
        value = JSON.parse(decodeText(bytes, full));
      } catch {
        continue; // not finished yet: read it again next time
      }
      folder.seen.add(name);
      folder.bytes += bytes.length;
      folder.files.push({ name, value });
      added++;
      if (read % 64 === 0) await yieldToEventLoop();
    }
    folder.files.sort((a, b) => compareNatural(a.name, b.name));
    return added;
  }

  private parseFolder(): Trajectory {
    const folder = this.folder!;
    if (folder.files.length === 0) throw new TrajectoryLoadError(this.file, 'unrecognized', 'this folder holds no .json event files.');
    return parseInput({ shape: 'folder', files: folder.files }, { path: this.file, size: folder.bytes, modified: this.openedModified ?? this.mtime }, [...folder.skipped]);
  }

  private updateFrom(_before: Trajectory, previous: Step[], change: LiveChange, reason: string | undefined, bytesRead: number, filesRead: number): LiveUpdate {
    const now = allSteps(this.trajectory);
    const unchangedSteps = commonPrefix(previous, now);
    const had = previous.filter((s) => s.kind === 'compaction').length;
    const compactions = now.filter((s) => s.kind === 'compaction').slice(had);
    return { change, reason, trajectory: this.trajectory, unchangedSteps, previousSteps: previous.length, bytesRead, filesRead, compactions };
  }
}

/** Reads [from, to) (to the end when `to` is undefined) in chunks; stops when `onChunk` says false. */
async function readRange(handle: FileHandle, from: number, to: number | undefined, signal: AbortSignal | undefined, file: string,
  onChunk: (chunk: Buffer, soFar: number) => boolean): Promise<boolean> {
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let position = from;
  for (;;) {
    throwIfCancelled(signal, file);
    const want = to === undefined ? buffer.length : Math.min(buffer.length, to - position);
    if (want <= 0) return true;
    const { bytesRead } = await handle.read(buffer, 0, want, position);
    if (bytesRead === 0) return true;
    position += bytesRead;
    if (!onChunk(buffer.subarray(0, bytesRead), position)) return false;
    if (to === undefined || position < to) await yieldToEventLoop();
  }
}

async function jsonNames(dir: string): Promise<string[]> {
  return (await fs.readdir(dir)).filter((n) => n.endsWith('.json')).sort(compareNatural);
}

function compareNatural(a: string, b: string): number {
  return a.localeCompare(b, undefined, { numeric: true });
}

/** How many steps from the start are the same in both lists. */
export function commonPrefix(a: readonly Step[], b: readonly Step[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (!sameStep(a[i], b[i])) return i;
  return n;
}

/** Kind, branch, text, tool and summary all the same: the step did not change. */
function sameStep(a: Step, b: Step): boolean {
  return a.kind === b.kind && a.branch === b.branch && a.text === b.text && a.tool?.name === b.tool?.name
    && a.tool?.args === b.tool?.args && a.compaction?.summary === b.compaction?.summary;
}
