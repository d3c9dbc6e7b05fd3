import type { ParsedInput, JsonlRecord } from '../formats/adapter';
import type { Warning } from '../model';
import { TrajectoryLoadError } from './errors';
import { lineAt, repairTruncatedJson } from './jsonScan';

export interface ReadResult {
  input: ParsedInput;
  warnings: Warning[];
  /** Set when a cut-off JSON document was salvaged: the line where it breaks off. */
  truncatedAtLine?: number;
}

/** Looks at raw bytes and rejects what is clearly not text before anything tries to parse it. */
export function decodeText(bytes: Uint8Array, file: string): string {
  if (bytes.length === 0) throw new TrajectoryLoadError(file, 'empty', 'the file is empty.');
  const head = bytes.subarray(0, Math.min(bytes.length, 8192));
  if (head.includes(0)) {
    throw new TrajectoryLoadError(file, 'binary', 'this is a binary file, not a text trajectory (it contains NUL bytes).');
  }
  let text = new TextDecoder('utf-8').decode(bytes);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const replacements = countReplacementChars(text.slice(0, 8192));
  if (replacements > 16) {
    throw new TrajectoryLoadError(file, 'binary', 'this file is not UTF-8 text (it looks binary).');
  }
  return text;
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
export function readInput(text: string, file: string): ReadResult {
  if (text.trim() === '') throw new TrajectoryLoadError(file, 'empty', 'the file contains only white space.');
  let firstError: Error;
  try {
    return { input: { shape: 'json', value: JSON.parse(text) }, warnings: [] };
  } catch (e) {
    firstError = e as Error;
  }
  const jsonl = readJsonLines(text);
  if (jsonl) return jsonl;
  const start = text.trimStart()[0];
  if (start === '{' || start === '[') {
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

/**
 * JSON Lines: one value per line. Accepted when the first non-empty line is a JSON object or array
 * on its own and more lines than not parse; bad lines become warnings with their line numbers.
 */
function readJsonLines(text: string): ReadResult | undefined {
  const records: JsonlRecord[] = [];
  const warnings: Warning[] = [];
  let bad = 0;
  let lineNo = 0;
  let offset = 0;
  let sawFirst = false;
  let lastBadLine = 0;
  while (offset <= text.length) {
    let end = text.indexOf('\n', offset);
    if (end === -1) end = text.length;
    lineNo++;
    const line = text.slice(offset, end).trim();
    offset = end + 1;
    if (line === '') continue;
    try {
      const value = JSON.parse(line);
      records.push({ value, line: lineNo });
    } catch (e) {
      if (!sawFirst) return undefined;
      bad++;
      lastBadLine = lineNo;
      warnings.push({ message: `line ${lineNo} is not valid JSON and was skipped (${(e as Error).message}).`, line: lineNo });
    }
    if (!sawFirst) {
      sawFirst = true;
      const first = records[0]?.value;
      if (typeof first !== 'object' || first === null) return undefined;
    }
  }
  if (records.length === 0 || bad > records.length) return undefined;
  if (records.length === 1 && bad === 0) return undefined; // a one-line document is plain JSON
  const lastLine = text.trimEnd().split('\n').length;
  if (bad > 0 && lastBadLine === lastLine && !text.endsWith('\n')) {
    warnings[warnings.length - 1] = {
      message: `The file ends mid-record at line ${lastBadLine} (it looks truncated, as when an agent stops mid-write); every complete line before it was loaded.`,
      line: lastBadLine,
    };
  }
  return { input: { shape: 'jsonl', records }, warnings };
}
