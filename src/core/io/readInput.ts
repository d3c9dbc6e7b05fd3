import type { ElementSink, OpenRecordSink, ParsedInput, RecordSink } from './input';
import type { Warning } from '../model';
import { TrajectoryLoadError } from './errors';
import { readConcatenatedJson } from './concatenatedJson';
import { JsonLinesCollector } from './jsonLines';
import { lineAt, repairTruncatedJson } from './jsonScan';
import { checkParsedText } from './hostileInput';

export interface ReadResult {
  input: ParsedInput;
  warnings: Warning[];
  /** Set when a cut-off JSON document was salvaged: the line where it breaks off. */
  truncatedAtLine?: number;
  /**
   * The sink that took the records as they were read (`OpenRecordSink`), or a document's event
   * list element by element (`OpenElementSink`); `input` then holds none of them.
   */
  sink?: RecordSink | ElementSink;
}

/**
 * UTF-16 text: a byte order mark, or (without one) the NUL bytes of ASCII text in every other
 * byte. Undefined for anything else (UTF-8, binary).
 */
export function utf16Encoding(head: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head.length >= 2 && head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  const n = Math.min(head.length, 1024) & ~1;
  if (n < 4) return undefined;
  let evenNul = 0;
  let oddNul = 0;
  for (let i = 0; i < n; i += 2) {
    if (head[i] === 0) evenNul++;
    if (head[i + 1] === 0) oddNul++;
  }
  const pairs = n / 2;
  if (oddNul >= pairs * 0.6 && evenNul <= pairs * 0.05) return 'utf-16le';
  if (evenNul >= pairs * 0.6 && oddNul <= pairs * 0.05) return 'utf-16be';
  return undefined;
}

/** Looks at raw bytes and rejects what is clearly not text before anything tries to parse it. */
export function decodeText(bytes: Uint8Array, file: string): string {
  const utf16 = utf16Encoding(bytes.subarray(0, 1024));
  if (utf16) {
    let text = new TextDecoder(utf16).decode(bytes);
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.trim() === '') throw new TrajectoryLoadError(file, 'empty', 'the file is empty.');
    checkDecodedHead(text, file);
    return text;
  }
  checkBytes(bytes, file);
  let text = new TextDecoder('utf-8').decode(bytes);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  checkDecodedHead(text, file);
  return text;
}

/**
 * The same checks on the first bytes of a file only, for files too big to decode whole. Throws
 * for an empty file, NUL bytes (binary) or text that is mostly not UTF-8.
 */
export function checkLooksLikeText(head: Uint8Array, file: string): void {
  if (utf16Encoding(head)) return;
  checkBytes(head, file);
  checkDecodedHead(new TextDecoder('utf-8').decode(head.subarray(0, 8192)), file);
}

function checkBytes(head: Uint8Array, file: string): void {
  if (head.length === 0) throw new TrajectoryLoadError(file, 'empty', 'the file is empty.');
  if (head.subarray(0, Math.min(head.length, 8192)).includes(0)) {
    throw new TrajectoryLoadError(file, 'binary', 'this is a binary file, not a text trajectory (it contains NUL bytes).');
  }
}

function checkDecodedHead(text: string, file: string): void {
  if (countReplacementChars(text.slice(0, 8192)) > 16) {
    throw new TrajectoryLoadError(file, 'binary', 'this file is not UTF-8 text (it looks binary).');
  }
}

function countReplacementChars(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\ufffd'); i !== -1; i = s.indexOf('\ufffd', i + 1)) n++;
  return n;
}

/**
 * Turns file text into one of the input shapes adapters understand: a JSON document, JSON lines,
 * or plain text. Damaged input is salvaged where possible, with a warning that says where.
 */
export function readInput(text: string, file: string, openSink?: OpenRecordSink): ReadResult {
  if (text.trim() === '') throw new TrajectoryLoadError(file, 'empty', 'the file contains only white space.');
  let firstError: Error;
  try {
    const value: unknown = JSON.parse(text);
    // Nesting too deep for what comes after the parser is refused here, where the byte is known.
    checkParsedText(value, text, file);
    return { input: { shape: 'json', value }, warnings: [] };
  } catch (e) {
    if (e instanceof TrajectoryLoadError) throw e;
    firstError = e as Error;
  }
  const jsonl = readJsonLines(text);
  if (jsonl) return jsonl;
  const start = text.trimStart()[0];
  if (start === '{' || start === '[') {
    // Pretty-printed documents one after another (OTLP exports, span-by-span console output).
    const concatenated = readConcatenatedJson(text, openSink);
    if (concatenated) return { input: { shape: 'jsonl', records: concatenated.records }, warnings: concatenated.warnings, ...(concatenated.sink ? { sink: concatenated.sink } : {}) };
    const repaired = repairTruncatedJson(text);
    if (repaired) {
      const line = lineAt(text, repaired.cutAt);
      return {
        input: { shape: 'json', value: repaired.value },
        truncatedAtLine: line,
        warnings: [{
          message: `The file ends abruptly (it looks truncated, as when an agent stops mid-write). Loaded every complete record before line ${line}; the rest was ignored.`,
          line,
          offset: repaired.cutAt,
        }],
      };
    }
    throw new TrajectoryLoadError(file, 'not-json', `not valid JSON: ${describeJsonError(firstError, text)}.`);
  }
  return { input: { shape: 'text', text }, warnings: [] };
}

function describeJsonError(error: Error, text: string): string {
  const m = /position (\d+)/.exec(error.message);
  const where = m ? ` (line ${lineAt(text, Number(m[1]))})` : '';
  return error.message.replace(/^JSON\.parse: /, '').replace(/\s*\(line \d+ column \d+\)/, '') + where;
}

/** JSON Lines read from whole text; the streaming reader applies the same rules chunk by chunk. */
function readJsonLines(text: string): ReadResult | undefined {
  const collector = new JsonLinesCollector();
  let lineNo = 0;
  for (let offset = 0; offset <= text.length && collector.stillJsonl;) {
    let end = text.indexOf('\n', offset);
    if (end === -1) end = text.length;
    collector.add(text.slice(offset, end), ++lineNo);
    offset = end + 1;
  }
  const result = collector.finish(text.endsWith('\n'));
  // readInput already tried the whole text as one JSON value; a single line is not JSON Lines.
  return result?.input.shape === 'jsonl' ? result : undefined;
}
