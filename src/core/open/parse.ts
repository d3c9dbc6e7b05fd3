import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { FormatAdapter, ParseContext, ParsedInput, ParsedTrajectory } from '../formats/adapter';
import { FORMAT_ADAPTERS } from '../formats/registry';
import { computeCoverage, coverageOf, recordsSnapshot } from '../io/coverage';
import { TrajectoryLoadError } from '../io/errors';
import { checkParsedInput } from '../io/hostileInput';
import { pointerTokens } from '../io/jsonScan';
import { readInput, type ReadResult } from '../io/readInput';
import type { TrajectoryFile, TrajectorySource, Warning } from '../model';
import { describeDocument, findConversation, itemsShape } from './conversationSearch';
import { detectFormat } from './detect';
import type { LoadOptions } from './options';
import { StreamedDocument, StreamedParse } from './streamed';
import { linkSubagentFiles } from './subagentFiles';
import { toFile, withReading } from './toTrajectory';

// Records into a trajectory: the adapter detection picks (or the one a followed file settled
// on) parses them, and the reader adds what every format shares: source, record count, coverage.

/** Parses already-read text; the extension and tests use this, the CLI goes through `loadTrajectory`. */
export function parseTrajectoryText(text: string, source: TrajectorySource, options: LoadOptions = {}): TrajectoryFile {
  return parseReadResult(readInput(text, source.path), source, options);
}

export function parseReadResult({ input, warnings, truncatedAtLine, sink }: ReadResult, source: TrajectorySource, options: LoadOptions): TrajectoryFile {
  // The records went to the adapter as they were read (`recordSinkOpener`): only the end is left.
  if (sink instanceof StreamedParse) return withSubagents(sink.finish(source, warnings), options);
  // A document's event list went to the adapter element by element (`elementSinkOpener`): the rest of the document is here.
  if (sink instanceof StreamedDocument && input.shape === 'json') return withSubagents(sink.finish(source, warnings, input.value), options);
  try {
    return parseInput(input, source, warnings, options);
  } catch (e) {
    // What survives of a broken document (`{"a": [1, 2,`) is rarely a trajectory; say it is broken JSON.
    if (truncatedAtLine !== undefined && e instanceof TrajectoryLoadError && e.code === 'unrecognized') {
      throw new TrajectoryLoadError(source.path, 'not-json', `not valid JSON: the document breaks off at line ${truncatedAtLine}, and the complete part before it is not a trajectory either.`);
    }
    throw e;
  }
}

export function parseInput(input: ParsedInput, source: TrajectorySource, warnings: Warning[], options: LoadOptions = {}): TrajectoryFile {
  // Nesting too deep for the recursive code below is an error; usage that cannot be a count, a warning.
  checkParsedInput(input, source.path, warnings);
  let adapter: FormatAdapter;
  try {
    adapter = detectFormat(input, source.path, options.adapters).adapter;
  } catch (e) {
    if (!(e instanceof TrajectoryLoadError) || e.code !== 'unrecognized') throw e;
    return openFoundConversation(input, source, warnings, options, e);
  }
  let parsed: ParsedTrajectory;
  const ctx: ParseContext = { fileName: path.basename(source.path), warnings, ...(options.consumeInput ? { consumable: true } : {}) };
  // What coverage and the count need, taken first when the adapter may empty the input as it goes.
  const records = ctx.consumable ? { count: countRecords(input), coverage: recordsSnapshot(input) } : undefined;
  try {
    parsed = adapter.parse(input, ctx);
  } catch (e) {
    if (e instanceof TrajectoryLoadError) throw e;
    throw new TrajectoryLoadError(source.path, 'invalid', `looks like ${adapter.label} but could not be read: ${(e as Error).message}`);
  }
  const file = toFile(parsed, adapter.id, source, warnings);
  withReading(file, records?.count ?? countRecords(input), records ? coverageOf(records.coverage, file, ctx.skipped) : computeCoverage(input, file, ctx.skipped));
  return withSubagents(file, options);
}

/** Parses with an adapter already chosen, skipping detection: a file read again as it grows (live follow). */
export function parseInputWith(adapter: FormatAdapter, input: ParsedInput, source: TrajectorySource, warnings: Warning[], options: LoadOptions = {}): TrajectoryFile {
  const ctx: ParseContext = { fileName: path.basename(source.path), warnings };
  const parsed = adapter.parse(input, ctx);
  const file = toFile(parsed, adapter.id, source, warnings);
  withReading(file, countRecords(input), computeCoverage(input, file, ctx.skipped));
  return withSubagents(file, options);
}

/**
 * The subagent files the log names, read into branches (`subagentFiles.ts`) by this same parse,
 * one level deeper each time. Small files beside the log, so read at once; a followed log reads
 * them again with each change.
 */
function withSubagents(file: TrajectoryFile, options: LoadOptions): TrajectoryFile {
  if (!file.runs.some((r) => r.subagentFiles)) return file;
  if (options.subagentFiles === false) {
    for (const run of file.runs) delete run.subagentFiles;
    return file;
  }
  return linkSubagentFiles(file, (sub, stat, depth) => {
    const text = readFileSync(sub, 'utf8');
    return parseTrajectoryText(text, { path: sub, size: stat.size, modified: stat.mtimeMs }, { adapters: options.adapters, subagentDepth: depth });
  }, options.subagentDepth ?? 0);
}

/**
 * No format claims the file: open the conversation found inside it, if any, saying where it was
 * found; otherwise say what the file holds instead.
 */
function openFoundConversation(input: ParsedInput, source: TrajectorySource, warnings: Warning[], options: LoadOptions, cause: TrajectoryLoadError): TrajectoryFile {
  const root = input.shape === 'json' ? input.value : input.shape === 'jsonl' ? input.records.map((r) => r.value) : undefined;
  const found = root === undefined ? undefined : findConversation(root);
  const adapter = found && (options.adapters ?? FORMAT_ADAPTERS).find((a) => a.id === found.format);
  if (!found || !adapter) {
    if (root === undefined) throw cause;
    const what = input.shape === 'jsonl' ? `${input.records.length} JSON lines of ${itemsShape(input.records.map((r) => r.value))}` : describeDocument(root);
    const names = (options.adapters ?? FORMAT_ADAPTERS).map((a) => a.id).join(', ');
    throw new TrajectoryLoadError(source.path, 'unrecognized',
      `not a trajectory in any format we know: it is ${what}, and no list of chat messages, Anthropic messages or Responses items was found inside it. Formats tried: ${names}.`);
  }
  const foundInput: ParsedInput = { shape: 'json', value: found.value };
  const ctx: ParseContext = { fileName: path.basename(source.path), warnings };
  const parsed = adapter.parse(foundInput, ctx);
  const file = toFile(parsed, adapter.id, source, warnings);
  // Counted before the locations below are rewritten to point into the whole file.
  const coverage = computeCoverage(foundInput, file, ctx.skipped);
  const tokens = pointerTokens(found.pointer);
  for (const step of file.runs.flatMap((run) => run.steps)) {
    if (input.shape === 'jsonl') step.location = { line: input.records[Number(tokens[0])]?.line };
    else step.location = { pointer: found.pointer + (step.location?.pointer ?? '') };
  }
  warnings.unshift({ message: `No format we know matches this file; opened the ${found.items} ${adapter.label} found at JSON path ${found.pointer}.` });
  file.meta.jsonPath = found.pointer;
  return withReading(file, found.items, coverage);
}

/** Generic, so adapters need not care: the list that holds the events is the longest top-level one. */
function countRecords(input: ParsedInput): number {
  switch (input.shape) {
    case 'json': {
      const v = input.value;
      if (Array.isArray(v)) return v.length;
      if (v && typeof v === 'object') {
        const lengths = Object.values(v).filter(Array.isArray).map((a) => a.length);
        return lengths.length > 0 ? Math.max(...lengths) : 1;
      }
      return 1;
    }
    case 'jsonl': return input.records.length;
    case 'folder': return input.files.length;
    case 'text': return 1;
  }
}
