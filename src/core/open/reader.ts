// One reader for opening a trajectory and for following one an agent is still writing: `read()`
// the first time reads the whole file or folder (as `loadTrajectory`, which is one such read);
// later reads take what changed. Following (`follow: true`), JSON Lines are read from the byte
// after the last one read (a line not yet finished is read as the loader reads a cut-off line,
// and kept until its newline comes), event folders file by file; documents, zips and files over
// LIVE_MAX_BYTES are read again whole. A file that shrank, was replaced by another (a new inode)
// or was rewritten in place is read again from the start, and the update says so. Every read
// parses the records gathered so far through the adapter detection picks, into a whole new
// trajectory; adapters need nothing for it.

import { promises as fs, type Stats } from 'node:fs';
import type { FormatAdapter, ParsedInput } from '../formats/adapter';
import { FORMAT_ADAPTERS } from '../formats/registry';
import { formatBytes } from '../io/bytes';
import { TrajectoryLoadError } from '../io/errors';
import { EventFolder } from '../io/eventFolder';
import { beforeRead, collectAfterRead } from '../io/garbage';
import { readAppended } from '../io/growingFile';
import type { JsonlResult } from '../io/jsonLines';
import type { JsonLinesReader } from '../io/jsonLinesReader';
import { monotonicProgress, throwIfCancelled, yieldToEventLoop, type ProgressSink } from '../io/progress';
import { readTrajectoryFile, type FileContent } from '../io/readFile';
import { headOf } from '../io/sniffHead';
import type { TrajectoryFile, TrajectorySource } from '../model';
import { allSteps } from '../stats';
import { compactorOf } from './compactor';
import { detectFormat } from './detect';
import { DEFAULT_MAX_BYTES, type OpenOptions } from './options';
import { parseInput, parseInputWith, parseReadResult } from './parse';
import { elementSinkOpener, recordSinkOpener } from './streamed';
import { compared, unchanged, type ReadUpdate } from './update';

/**
 * Files up to this size are followed line by line, which keeps their parsed records in memory;
 * bigger ones (and zips) are followed by reading them again whole when they change.
 */
const LIVE_MAX_BYTES = 64 * 1024 * 1024;

/** A parse longer than this is followed by as long a pause before the next, so the thread stays free half the time. */
const QUIET_AFTER_MS = 250;

/** How later reads go: `jsonl` from the last byte read, `folder` file by file, `document` whole. */
type ReadMode = 'jsonl' | 'folder' | 'document';

/** What the reader has done so far; tests and the log read these. */
interface ReadCounters {
  /** Reads after the first. */
  polls: number;
  /** Bytes of a JSON Lines file read since it was opened (the first read included). */
  bytesRead: number;
  /** Bytes read again just before the read position, to check the file was not rewritten. */
  anchorBytes: number;
  /** Event files read from a folder (the first read included). */
  filesRead: number;
  /** Reads of the whole file or folder after the first: shrink, replace, rewrite. */
  reloads: number;
}

/** A reader of `file` (a file or an event folder); nothing is read before the first `read()`. */
export function openReader(file: string, options: OpenOptions = {}): TrajectoryReader {
  return new TrajectoryReader(file, options);
}

/** What a whole read found, taken over by the reader only once it succeeded. */
interface WholeRead {
  trajectory: TrajectoryFile;
  mode: ReadMode;
  stat: Stats;
  lines?: JsonLinesReader;
  folder?: EventFolder;
  adapter?: FormatAdapter;
}

export class TrajectoryReader {
  readonly counters: ReadCounters = { polls: 0, bytesRead: 0, anchorBytes: 0, filesRead: 0, reloads: 0 };
  mode: ReadMode = 'document';
  private shown: TrajectoryFile | undefined;
  /** Following a JSON Lines file: its records so far, and where the last read stopped. */
  private lines: JsonLinesReader | undefined;
  /** Following an event folder: the files read so far. */
  private folder: EventFolder | undefined;
  /** The file (or folder) as the last read found it: which one, how big, when written. */
  private seen = { dev: 0, ino: 0, size: 0, mtimeMs: 0 };
  /** The time the file was opened with: the tree knows it by it, so it stays while the file grows. */
  private openedModified: number | undefined;
  /** No change is read before this time (ms since the epoch): after a long parse or document read. */
  private quietUntil = 0;
  /** The adapter that read the file, once the records detection looks at are all in. */
  private adapter: FormatAdapter | undefined;
  /** What the JSON Lines shown last held, in short (see `JsonLinesReader.shownKey`). */
  private shownKey = '';
  /** The options of reads after the first: no progress and no cancel, those belong to the first. */
  private readonly later: OpenOptions;
  private follow: boolean;
  /** The adapters' compact stand-ins for elements of big documents and long lines, as they are read. */
  private readonly compactElement: OpenOptions['compactElement'];

  constructor(readonly file: string, private readonly options: OpenOptions = {}) {
    this.later = { ...options, onProgress: undefined, signal: undefined };
    this.compactElement = compactorOf(options.adapters ?? FORMAT_ADAPTERS);
    this.follow = options.follow === true;
  }

  /** Whether later reads take only what changed (else they read everything again). */
  get follows(): boolean {
    return this.follow;
  }

  /** Keeps nothing for later reads from now on (live follow was turned off): they read everything again. */
  stopFollowing(): void {
    this.follow = false;
    this.lines = undefined;
    this.folder = undefined;
  }

  /** The trajectory of the last read that succeeded. */
  get trajectory(): TrajectoryFile {
    if (!this.shown) throw new Error(`${this.file} has not been read yet`);
    return this.shown;
  }

  /** Byte offset after the last complete line of a followed JSON Lines file (0 in the other modes). */
  get lineOffset(): number {
    return this.lines ? this.lines.offset - this.lines.pendingBytes : 0;
  }

  /** Bytes of an unfinished last line, read and waiting for its end. */
  get pendingBytes(): number {
    return this.lines?.pendingBytes ?? 0;
  }

  /**
   * The first call reads everything and throws a TrajectoryLoadError when the file cannot be
   * shown. Later calls read what changed, cheaply when nothing did (one `stat`, or one listing
   * of a folder); what cannot be read yet is the update's `error`, and the trajectory stays.
   */
  async read(): Promise<ReadUpdate> {
    if (!this.shown) {
      const bytesBefore = this.counters.bytesRead;
      this.take(await this.readWhole(this.options));
      return { change: 'opened', trajectory: this.trajectory, unchangedSteps: 0, previousSteps: 0, bytesRead: this.counters.bytesRead - bytesBefore, filesRead: this.counters.filesRead, compactions: [] };
    }
    this.counters.polls++;
    const before = this.shown;
    let stat;
    try {
      stat = await fs.stat(this.file);
    } catch {
      return unchanged(before, 'the file is gone');
    }
    const replaced = stat.ino !== this.seen.ino || stat.dev !== this.seen.dev;
    if (replaced) return this.reload(this.mode === 'folder' ? 'the folder was replaced' : 'the file was replaced by another');
    if (this.lines) return this.readAppended(this.lines, stat);
    if (this.folder) return this.readNewFiles(this.folder);
    return this.readChanged(stat);
  }

  /** Reads the file or folder from the start, as the loader does; the reader's state is left as it was. */
  private async readWhole(options: OpenOptions): Promise<WholeRead> {
    let stat;
    try {
      stat = await fs.stat(this.file);
    } catch {
      throw new TrajectoryLoadError(this.file, 'not-found', 'no such file or folder.');
    }
    const progress = monotonicProgress(options.onProgress);
    if (stat.isDirectory()) return this.readFolder(stat, options, progress);
    if (!stat.isFile()) throw new TrajectoryLoadError(this.file, 'invalid', 'not a regular file (a named pipe, device or socket); only files and folders are read.');
    const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    if (stat.size > maxBytes) {
      throw new TrajectoryLoadError(this.file, 'too-large', `the file is ${formatBytes(stat.size)}, over the limit of ${formatBytes(maxBytes)}. Raise the limit (setting agentTraceLens.maxFileSizeMB, or --max-size-mb on the command line) to open it.`);
    }
    const size = stat.size;
    const source: TrajectorySource = { path: this.file, size, modified: this.openedModified ?? stat.mtimeMs };
    progress(0, `Reading ${formatBytes(size)}…`);
    // Elements of a document read in parts (and of long lines, here and when followed) become the
    // adapters' compact stand-ins as they arrive: the followed JSON Lines reader keeps this option.
    // A read that keeps nothing for later hands JSON Lines records to the adapter as they are read
    // (`open/streamed.ts`), where it takes them one by one; a followed file keeps its records.
    const openRecordSink = this.follow ? undefined : recordSinkOpener(this.file, options);
    const openElementSink = this.follow ? undefined : elementSinkOpener(this.file, options);
    beforeRead(size);
    let content: FileContent | undefined = await readTrajectoryFile(this.file, size, { compactElement: this.compactElement, openRecordSink, openElementSink, ...options }, progress);
    let read: WholeRead;
    if (content.zip) {
      // A zip of JSON files (Inspect `.eval`) reads like a folder of event files.
      progress(0.6, 'Building steps…');
      read = { mode: 'document', stat, trajectory: parseInput({ shape: 'folder', files: content.zip.files }, source, content.zip.warnings, options) };
    } else {
      throwIfCancelled(options.signal, this.file);
      progress(0.9, 'Building steps…');
      await yieldToEventLoop();
      throwIfCancelled(options.signal, this.file);
      // Kept for later reads only when followed line by line; otherwise the adapter may empty it as it goes.
      const trajectory = parseReadResult(content.result, source, this.follow ? options : { ...options, consumeInput: true });
      // Followed line by line only while it is small enough to keep its records.
      const lines = this.follow && size <= LIVE_MAX_BYTES ? content.lines : undefined;
      read = lines ? { mode: 'jsonl', stat, trajectory, lines, adapter: this.settled(content.result.input, trajectory) } : { mode: 'document', stat, trajectory };
    }
    content = undefined; // what was read is garbage now, unless followed: let the collection take it
    collectAfterRead(size);
    progress(1, 'Done');
    return read;
  }

  /** OpenHands V1 keeps a conversation as a folder of `event-*.json` files. */
  private async readFolder(stat: Stats, options: OpenOptions, progress: ProgressSink): Promise<WholeRead> {
    const folder = new EventFolder(this.file);
    const names = await folder.names();
    if (names.length === 0) throw new TrajectoryLoadError(this.file, 'unrecognized', 'this folder holds no .json event files.');
    const { filesRead } = await folder.readNew(names, options.signal, progress);
    this.counters.filesRead += filesRead;
    progress(0.9, 'Building steps…');
    const trajectory = this.parseFolder(folder);
    collectAfterRead(folder.bytes);
    progress(1, 'Done');
    return { mode: 'folder', stat, trajectory, folder: this.follow ? folder : undefined };
  }

  private take(read: WholeRead): void {
    this.shown = read.trajectory;
    this.mode = read.mode;
    this.seen = { dev: read.stat.dev, ino: read.stat.ino, size: read.stat.size, mtimeMs: read.stat.mtimeMs };
    this.lines = read.lines;
    this.folder = read.folder;
    this.adapter = read.adapter;
    this.openedModified ??= read.stat.mtimeMs;
    if (read.lines) {
      this.counters.bytesRead += read.lines.offset;
      this.shownKey = read.lines.shownKey();
    }
  }

  /** Forgets everything and reads the file or folder again from the start. */
  private async reload(reason: string): Promise<ReadUpdate> {
    const previousSteps = allSteps(this.trajectory).length;
    const bytesBefore = this.counters.bytesRead;
    const filesBefore = this.counters.filesRead;
    const opened = this.openedModified;
    this.openedModified = undefined;
    let read: WholeRead;
    try {
      read = await this.readWhole(this.later);
    } catch (e) {
      this.openedModified = opened;
      throw e;
    }
    this.counters.reloads++;
    this.take(read);
    return {
      change: 'reloaded', reason, trajectory: this.trajectory, unchangedSteps: 0, previousSteps,
      bytesRead: this.counters.bytesRead - bytesBefore, filesRead: this.counters.filesRead - filesBefore, compactions: [],
    };
  }

  /** A document (or anything not followed piece by piece) is read again whole when its size or time changed. */
  private async readChanged(stat: Stats): Promise<ReadUpdate> {
    const before = this.trajectory;
    if (stat.size === this.seen.size && stat.mtimeMs === this.seen.mtimeMs) return unchanged(before);
    // A big document that keeps changing is read again at most every other reading time.
    if (Date.now() < this.quietUntil) return unchanged(before);
    const started = Date.now();
    let read: WholeRead;
    try {
      read = await this.readWhole(this.later);
    } catch (e) {
      // Caught mid-write: keep what was shown and try again at the next change.
      this.seen.mtimeMs = stat.mtimeMs;
      return unchanged(before, (e as Error).message);
    }
    this.quietUntil = Date.now() + (Date.now() - started);
    this.counters.reloads++;
    this.take(read);
    return compared(allSteps(before), this.trajectory, 'rewritten', 'the document was written again', this.trajectory.source.size, 0);
  }

  private async readAppended(lines: JsonLinesReader, stat: Stats): Promise<ReadUpdate> {
    const before = this.trajectory;
    if (stat.size < lines.offset) return this.reload(`the file shrank from ${formatBytes(lines.offset)} to ${formatBytes(stat.size)}`);
    if (stat.size === lines.offset) return unchanged(before);
    // A big session's parse takes a while: leave the thread as long again before the next one.
    if (Date.now() < this.quietUntil) return unchanged(before);
    if (stat.size > LIVE_MAX_BYTES) return this.reload(`the file grew past ${formatBytes(LIVE_MAX_BYTES)}; it is followed by reading it whole from now on`);
    const appended = await readAppended(this.file, lines, stat.size);
    this.counters.anchorBytes += appended.anchorBytes;
    // The bytes just before the read position were not what they had been: the file was rewritten.
    if (appended.rewritten) return this.reload('the file was written again from the start');
    const bytesRead = appended.bytesRead;
    this.counters.bytesRead += bytesRead;
    this.seen.mtimeMs = stat.mtimeMs;
    const records = lines.stillJsonl ? lines.result() : undefined;
    if (!records) return this.reload('the file is no longer JSON Lines');
    // Only part of a line arrived (or a blank one): nothing new to show yet.
    const key = lines.shownKey();
    if (key === this.shownKey) return unchanged(before, undefined, { bytesRead });
    this.shownKey = key;
    const parseStart = Date.now();
    try {
      this.shown = this.parseLines(records, { path: this.file, size: lines.offset, modified: this.openedModified ?? stat.mtimeMs });
    } catch (e) {
      return unchanged(before, (e as Error).message, { bytesRead });
    }
    const parseMs = Date.now() - parseStart;
    if (parseMs > QUIET_AFTER_MS) this.quietUntil = Date.now() + parseMs;
    return compared(allSteps(before), this.trajectory, 'appended', undefined, bytesRead, 0);
  }

  /**
   * The records as a trajectory, through the adapter detection picks. Detection sees the records
   * within the first 64 KB only; once more records follow them the choice cannot change, and is
   * not made again.
   */
  private parseLines(records: JsonlResult, source: TrajectorySource): TrajectoryFile {
    if (this.adapter) return parseInputWith(this.adapter, records.input, source, records.warnings, this.later);
    const trajectory = parseInput(records.input, source, records.warnings, this.later);
    this.adapter = this.settled(records.input, trajectory);
    return trajectory;
  }

  /** The adapter later reads can keep: detection has seen all it ever looks at. */
  private settled(input: ParsedInput, trajectory: TrajectoryFile): FormatAdapter | undefined {
    const head = headOf(input);
    if (input.shape !== 'jsonl' || head.shape !== 'jsonl' || head.records.length >= input.records.length || trajectory.meta.jsonPath) return undefined;
    try {
      return detectFormat(input, this.file, this.options.adapters).adapter;
    } catch {
      return undefined;
    }
  }

  private async readNewFiles(folder: EventFolder): Promise<ReadUpdate> {
    const before = this.trajectory;
    const names = await folder.names();
    const gone = folder.removed(names);
    if (gone) return this.reload(`${gone} was removed from the folder`);
    const { filesRead, added } = await folder.readNew(names);
    this.counters.filesRead += filesRead;
    // A file still being written waits for its end.
    if (added === 0) return unchanged(before, undefined, { filesRead });
    try {
      this.shown = this.parseFolder(folder);
    } catch (e) {
      return unchanged(before, (e as Error).message, { filesRead });
    }
    return compared(allSteps(before), this.trajectory, 'appended', undefined, 0, filesRead);
  }

  private parseFolder(folder: EventFolder): TrajectoryFile {
    return parseInput({ shape: 'folder', files: folder.files }, { path: this.file, size: folder.bytes }, folder.warnings(), this.options);
  }
}
