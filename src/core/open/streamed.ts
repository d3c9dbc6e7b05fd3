import * as path from 'node:path';
import type { ElementParser, FormatAdapter, ParseContext, ParsedTrajectory, RecordParser } from '../formats/adapter';
import { coverageOf, RecordLedger, type SkippedRecord } from '../io/coverage';
import { TrajectoryLoadError } from '../io/errors';
import { InputCheck } from '../io/hostileInput';
import type { ElementSink, JsonlRecord, OpenElementSink, OpenRecordSink, RecordSink } from '../io/input';
import type { TrajectoryFile, TrajectorySource, Warning } from '../model';
import { detectFormat } from './detect';
import type { LoadOptions } from './options';
import { toFile, withReading } from './toTrajectory';

// A file's records handed to its adapter one by one as they are read (`FormatAdapter.recordParser`)
// instead of gathered first: the loader keeps of each record only its line and type in a ledger
// for coverage, so a JSON Lines file's records and its steps are never all in memory at once
// (issue 23). The trajectory is the one `parseInput` makes of the same records: the same checks
// (nesting, usage), the same detection (on the head, which is all detection ever sees), warnings in
// the same order, coverage by the same function.

/** An opener for `ReadFileOptions.openRecordSink`: detects the format on the head and opens its adapter's record parser. */
export function recordSinkOpener(file: string, options: LoadOptions): OpenRecordSink {
  return (head) => {
    let adapter: FormatAdapter;
    try {
      adapter = detectFormat({ shape: 'jsonl', records: head as JsonlRecord[] }, file, options.adapters).adapter;
    } catch {
      return undefined; // read whole, where the same detection says why
    }
    if (!adapter.recordParser) return undefined;
    const ctx: ParseContext = { fileName: path.basename(file), warnings: [] };
    try {
      const parser = adapter.recordParser(ctx, head);
      return parser && new StreamedParse(file, adapter, parser, ctx);
    } catch {
      return undefined;
    }
  };
}

/**
 * An opener for `ReadFileOptions.openElementSink`: detects the format on the document as far as
 * it is read and opens its adapter's element parser for the list whose first element arrived.
 */
export function elementSinkOpener(file: string, options: LoadOptions): OpenElementSink {
  return (root, key) => {
    let adapter: FormatAdapter;
    try {
      adapter = detectFormat({ shape: 'json', value: root }, file, options.adapters).adapter;
    } catch {
      return undefined; // the whole document, where the same detection says why
    }
    if (!adapter.elementParser) return undefined;
    const ctx: ParseContext = { fileName: path.basename(file), warnings: [] };
    try {
      const parser = adapter.elementParser(ctx, root, key);
      return parser && new StreamedDocument(file, adapter, parser, ctx, key);
    } catch {
      return undefined;
    }
  };
}

/**
 * What records and elements handed on share: each is counted in a ledger and checked before the
 * adapter takes it, a failure is kept for the end, and names the adapter gives go to the ledger.
 */
class StreamedReading {
  readonly ledger: RecordLedger;
  private readonly check: InputCheck;
  /** The first record nested too deep: the error `checkParsedInput` gives, whatever the adapter did. */
  private tooDeep: unknown;
  private failed: unknown;
  /** Names given for records the ledger cannot place (yet): applied at the end, after the ledger's. */
  private readonly unplaced: SkippedRecord[] = [];

  constructor(file: string, private readonly adapter: FormatAdapter, private readonly ctx: ParseContext, listPrefix?: string[]) {
    this.check = new InputCheck(file);
    this.ledger = new RecordLedger(listPrefix);
  }

  take(record: JsonlRecord, look: (check: InputCheck) => void, feed: () => void): void {
    this.ledger.add(record);
    if (this.tooDeep !== undefined) return;
    try {
      look(this.check);
    } catch (e) {
      this.tooDeep = e;
      return;
    }
    if (this.failed !== undefined) return;
    try {
      feed();
    } catch (e) {
      this.failed = e;
    }
    this.takeNames();
  }

  /** Names from `skipRecord` go into the ledger as they come, in order, so the list does not grow with the file. */
  private takeNames(): void {
    const named = this.ctx.skipped;
    if (!named || named.length === 0) return;
    for (const s of named) {
      if (this.unplaced.length > 0 || !this.ledger.name(s.type, s)) this.unplaced.push(s);
    }
    named.length = 0;
  }

  /** The trajectory, as `parseInput` makes it; `warnings` are the reader's (bad lines, a cut-off end). */
  finish(source: TrajectorySource, warnings: Warning[], parse: () => ParsedTrajectory): TrajectoryFile {
    if (this.tooDeep !== undefined) throw this.tooDeep;
    this.check.report(warnings);
    let parsed: ParsedTrajectory;
    try {
      if (this.failed !== undefined) throw this.failed;
      parsed = parse();
    } catch (e) {
      if (e instanceof TrajectoryLoadError) throw e;
      throw new TrajectoryLoadError(source.path, 'invalid', `looks like ${this.adapter.label} but could not be read: ${(e as Error).message}`);
    } finally {
      for (const w of this.ctx.warnings) warnings.push(w);
    }
    this.takeNames();
    const file = toFile(parsed, this.adapter.id, source, warnings);
    withReading(file, this.ledger.count, coverageOf(this.ledger, file, this.unplaced));
    return file;
  }
}

/** JSON Lines records (or documents one after another) handed to the adapter's `recordParser`. */
export class StreamedParse implements RecordSink {
  private readonly reading: StreamedReading;

  constructor(file: string, adapter: FormatAdapter, private readonly parser: RecordParser, ctx: ParseContext) {
    this.reading = new StreamedReading(file, adapter, ctx);
  }

  add(record: JsonlRecord): void {
    this.reading.take(record, (check) => check.record(record), () => this.parser.add(record));
  }

  finish(source: TrajectorySource, warnings: Warning[]): TrajectoryFile {
    return this.reading.finish(source, warnings, () => this.parser.finish());
  }
}

/**
 * A document's event list handed to the adapter's `elementParser` element by element; the
 * document's other fields come at the end. Elements are the records, as `recordList` counts a
 * document's (`countRecords`), located by JSON Pointer under the list's key.
 */
export class StreamedDocument implements ElementSink {
  private readonly reading: StreamedReading;

  constructor(file: string, adapter: FormatAdapter, private readonly parser: ElementParser, ctx: ParseContext, private readonly key: string | undefined) {
    this.reading = new StreamedReading(file, adapter, ctx, key === undefined ? [] : [key]);
  }

  add(value: unknown, index: number): void {
    this.reading.take({ value, line: 0 }, (check) => check.look(value, () => `in item ${index} of ${this.key === undefined ? 'the document' : `"${this.key}"`}`), () => this.parser.add(value, index));
  }

  /** `root`: the document as read, its list empty. */
  finish(source: TrajectorySource, warnings: Warning[], root: unknown): TrajectoryFile {
    return this.reading.finish(source, warnings, () => this.parser.finish(root));
  }
}
