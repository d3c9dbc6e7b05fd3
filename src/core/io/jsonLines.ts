import type { JsonlRecord, OpenRecordSink, ParsedInput, RecordSink } from './input';
import type { Warning } from '../model';
import { isRecord } from '../steps';
import { formatBytes } from './bytes';
import { noteNesting } from './jsonInspect';
import { RecordGate } from './recordGate';
import { readConcatenatedJson } from './concatenatedJson';

// The rules that make a file JSON Lines, in one place so the whole-text reader and the streaming
// reader cannot drift apart: the first non-blank line must be a JSON object or array on its own,
// more lines must parse than not, and bad lines become warnings with their line numbers.

export interface JsonlResult {
  input: ParsedInput;
  warnings: Warning[];
  /** The sink that took the records as they were read (`OpenRecordSink`); `input` then holds none. */
  sink?: RecordSink;
}

export class JsonLinesCollector {
  /** The records: kept, or handed to a sink when `openSink` opens one. */
  private readonly gate: RecordGate;

  constructor(records: JsonlRecord[] = [], readonly warnings: Warning[] = [], openSink?: OpenRecordSink) {
    this.gate = new RecordGate(openSink);
    for (const r of records) this.gate.records.push(r);
    this.gate.count = records.length;
  }

  /** The records kept (none once a sink took them). */
  get records(): JsonlRecord[] {
    return this.gate.records;
  }

  /** Records read, kept or handed on. */
  get count(): number {
    return this.gate.count;
  }

  /** Whether a sink takes the records (then a last unfinished line is taken, not tried on a copy). */
  get streaming(): boolean {
    return this.gate.sink !== undefined;
  }
  private bad = 0;
  private lastBadLine = 0;
  private lastNonBlankLine = 0;
  /** False once the first non-blank line showed this is not JSON Lines; then stop feeding lines. */
  stillJsonl = true;

  /** A copy to try a last line on without taking it: in a growing file that line may not be finished. */
  fork(): JsonLinesCollector {
    const copy = new JsonLinesCollector(this.records.slice(), this.warnings.slice());
    copy.bad = this.bad;
    copy.lastBadLine = this.lastBadLine;
    copy.lastNonBlankLine = this.lastNonBlankLine;
    copy.stillJsonl = this.stillJsonl;
    return copy;
  }

  /** True once a non-blank line has been seen. */
  get started(): boolean {
    return this.lastNonBlankLine > 0;
  }

  /** Takes one line's text (without `\n`); returns false when the file is not JSON Lines after all. */
  add(text: string, lineNo: number): boolean {
    let value: unknown;
    try {
      // JSON.parse skips space, tab, CR and LF itself; trim only when that is not enough (BOM, NBSP).
      value = JSON.parse(text);
    } catch (first) {
      const trimmed = text.trim();
      if (trimmed === '') return true;
      // Nothing to trim: parsing again would fail the same way.
      if (trimmed.length === text.length) return this.severalOnOneLine(text, lineNo) || this.badLine(lineNo, first as Error);
      try {
        value = JSON.parse(trimmed);
      } catch (e) {
        return this.severalOnOneLine(trimmed, lineNo) || this.badLine(lineNo, e as Error);
      }
    }
    if (this.lastNonBlankLine === 0 && (typeof value !== 'object' || value === null)) return (this.stillJsonl = false);
    this.lastNonBlankLine = lineNo;
    noteNesting(value, text); // where a record nests too deep, while its text is at hand
    this.gate.push({ value, line: lineNo });
    return true;
  }

  /**
   * Records written one after another with no newline between them (`{…}{…}`: a writer that lost
   * one, or two processes appending at once): each is read, at this line, and the file says so.
   * Not on the first line, where such text is no evidence of JSON Lines.
   */
  private severalOnOneLine(text: string, lineNo: number): boolean {
    if (this.lastNonBlankLine === 0 || text[0] !== '{') return false;
    const split = readConcatenatedJson(text);
    if (!split || split.warnings.length > 0 || !split.records.every((r) => isRecord(r.value))) return false;
    this.lastNonBlankLine = lineNo;
    for (const r of split.records) this.gate.push({ value: r.value, line: lineNo });
    this.warnings.push({ message: `line ${lineNo} holds ${split.records.length} records written with no line break between them; each was read.`, line: lineNo });
    return true;
  }

  /** A line read as it arrived (see LongLineReader): its value, or why it could not be read. */
  addValue(value: unknown, lineNo: number, error?: Error): boolean {
    if (error) return this.badLine(lineNo, error);
    if (this.lastNonBlankLine === 0 && (typeof value !== 'object' || value === null)) return (this.stillJsonl = false);
    this.lastNonBlankLine = lineNo;
    this.gate.push({ value, line: lineNo });
    return true;
  }

  /** A line too long to decode (over JavaScript's string limit) counts as a bad line. */
  tooLong(lineNo: number, bytes: number): boolean {
    return this.badLine(lineNo, undefined, `line ${lineNo} is ${formatBytes(bytes)} long, too long to read as one string, and was skipped.`);
  }

  private badLine(lineNo: number, error?: Error, message?: string): boolean {
    if (this.lastNonBlankLine === 0) return (this.stillJsonl = false);
    this.lastNonBlankLine = lineNo;
    this.bad++;
    this.lastBadLine = lineNo;
    this.warnings.push({ message: message ?? `line ${lineNo} is not valid JSON and was skipped (${error?.message}).`, line: lineNo });
    return true;
  }

  /**
   * The records as an input, or undefined when the file is not JSON Lines (or is a one-line
   * document, which is plain JSON). `endsWithNewline`: whether the file's last byte is `\n`.
   */
  finish(endsWithNewline: boolean): JsonlResult | undefined {
    const { records, warnings, bad, count } = this;
    if (!this.stillJsonl || count === 0 || bad > count) return undefined;
    if (count === 1 && bad === 0 && records.length === 1) return { input: { shape: 'json', value: records[0].value }, warnings };
    if (bad > 0 && this.lastBadLine === this.lastNonBlankLine && !endsWithNewline) {
      warnings[warnings.length - 1] = {
        message: `The file ends mid-record at line ${this.lastBadLine} (it looks truncated, as when an agent stops mid-write); every complete line before it was loaded.`,
        line: this.lastBadLine,
      };
    }
    return { input: { shape: 'jsonl', records }, warnings, ...(this.gate.sink ? { sink: this.gate.sink } : {}) };
  }
}
