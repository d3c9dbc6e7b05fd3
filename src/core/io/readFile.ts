import { constants as bufferConstants } from 'node:buffer';
import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { formatBytes } from './bytes';
import { TrajectoryLoadError } from './errors';
import { readAllBytes, readChunks } from './fileChunks';
import { JsonDocumentScanner, UnstreamableJson, type JsonPath } from './jsonDocumentStream';
import { throwIfCancelled, yieldToEventLoop, type ProgressSink } from './progress';
import { checkLooksLikeText, decodeText, readInput, utf16Encoding, type ReadResult } from './readInput';
import { streamJsonl, type JsonLinesReader } from './jsonLinesReader';
import { isZip, readZipJson, type ZipJson } from './zip';
import type { OpenElementSink, OpenRecordSink } from './input';

// Turns a file on disk into parsed input, choosing how to read it: JSON Lines stream line by line
// whatever their size; a single JSON document is read as one string when it fits in one (the
// fastest way), and element by element when it does not; a zip is read whole.

/**
 * The largest text read as one string: JSON.parse needs the whole document as one, and V8 strings
 * stop at about 512 MB (2^29 - 24 UTF-16 units; one byte of UTF-8 never makes more than one unit).
 */
const MAX_DOCUMENT_BYTES = bufferConstants.MAX_STRING_LENGTH;

/**
 * Documents over this are read element by element even though they would fit in one string: read
 * whole, the file's bytes, its text and the parsed value are all held at once (about 4× the file
 * at the peak); in parts, only the value and one element's text (issue 14: memory under 3× the
 * input). Issue 23 lowered it from 16 MB: a 6 MB OpenCode export peaked 15 MB lower read in parts,
 * in the same time. Documents that cannot be read in parts, or that are damaged, are read whole after all.
 */
const STREAM_DOCUMENT_BYTES = 1024 * 1024;

/**
 * In a file read in parts, a first line longer than this is taken for a document written on one
 * line and read as one, not first gathered as a line (a 23 MB OTLP export held 16 MB of line
 * before it turned to the document reader; issue 23). A JSON Lines file whose first record is that
 * long is read as JSON Lines after all once the document reader refuses it (at its second value).
 * 256 KB (was 1 MB): the line gathered before the turn is garbage the read then carries; a 6 MB
 * OpenCode export on one line peaked about 2 MB lower.
 */
const ONE_LINE_DOCUMENT_BYTES = 256 * 1024;

export interface ReadFileOptions {
  /** Aborting it stops the load between chunks with a TrajectoryLoadError of code `cancelled`. */
  signal?: AbortSignal;
  /** Bytes read at a time (default 512 KB, `fileChunks.ts`); tests use tiny chunks to hit every boundary. */
  chunkBytes?: number;
  /** Documents over this are read element by element (default `MAX_DOCUMENT_BYTES`); tests lower it. */
  maxDocumentBytes?: number;
  /** Documents over this are read element by element when they can be (default `STREAM_DOCUMENT_BYTES`). */
  streamDocumentBytes?: number;
  /** Items of a document read in parts over this are read by a nested scanner (default 1 MB); tests lower it. */
  nestBytes?: number;
  /** JSON Lines records longer than this are read as they arrive (default 16 MB); tests lower it. */
  longLineBytes?: number;
  /** The most a zip's JSON may inflate to (see `zip.ts`); tests lower it. */
  maxZipInflatedBytes?: number;
  /**
   * Replaces elements of a document read in parts as they are read (`open/`'s `compactorOf`: the
   * adapters' compact stand-ins, a plain function since `io/` knows no format). Only for a value
   * that becomes steps; a caller that writes the value back (saveCondensed) leaves it out.
   */
  compactElement?: (path: JsonPath, value: unknown) => unknown;
  /**
   * Hands the records of JSON Lines (and of documents one after another) to a sink as they are
   * read instead of keeping them (`open/`'s `recordSinkOpener`: the adapter's `recordParser`), so
   * records and steps are never all in memory at once. Only for a read that keeps no records
   * (not a followed file's).
   */
  openRecordSink?: OpenRecordSink;
  /**
   * Hands the event list of a document read in parts to a sink element by element instead of
   * keeping it (`open/`'s `elementSinkOpener`: the adapter's `elementParser`), for the same reason.
   * Only for a read that keeps nothing for later. A document read whole after all (damaged, or not
   * readable in parts) is parsed as usual, and what the sink took is dropped.
   */
  openElementSink?: OpenElementSink;
}

/**
 * What the file holds. `lines`: the JSON Lines reader that read it, positioned after the last byte
 * read, for a caller that follows the file as it grows (dropped by one that does not).
 */
export type FileContent = { result: ReadResult; lines?: JsonLinesReader; zip?: undefined } | { zip: ZipJson; result?: undefined; lines?: undefined };

/** Reads the file; progress goes to 0.9 (the caller builds steps after). */
export async function readTrajectoryFile(file: string, size: number, options: ReadFileOptions, progress: ProgressSink): Promise<FileContent> {
  const reading = (share: number) => (n: number) => progress(share * n / size, `Reading ${formatBytes(n)} of ${formatBytes(size)}…`);
  // `size` bounds every read: a file that grows while it is read is read as it was when checked.
  const chunks = { ...options, file, size };
  const handle = await fs.open(file, 'r');
  try {
    const head = Buffer.alloc(Math.min(size, 8192));
    await handle.read(head, 0, head.length, 0);
    if (isZip(head)) return { zip: readZipJson(await readAllBytes(handle, size, chunks, reading(0.5)), file, { maxInflatedBytes: options.maxZipInflatedBytes }) };
    checkLooksLikeText(head, file);
    const maxDocumentBytes = options.maxDocumentBytes ?? MAX_DOCUMENT_BYTES;
    if (utf16Encoding(head)) return { result: await readUtf16(handle, file, size, maxDocumentBytes, chunks, reading(0.6)) };
    const streamDocumentBytes = options.streamDocumentBytes ?? STREAM_DOCUMENT_BYTES;
    // A document on one line that is read in parts below is not first gathered whole as a line.
    const inParts = size > streamDocumentBytes;
    const firstLineMaxBytes = inParts ? Math.min(streamDocumentBytes, ONE_LINE_DOCUMENT_BYTES) : streamDocumentBytes;
    let longFirstLine = false;
    const jsonl = { ...chunks, size, maxLineBytes: maxDocumentBytes, onProgress: reading(0.9), compactElement: options.compactElement, openRecordSink: options.openRecordSink };
    const lines = await streamJsonl(handle, { ...jsonl, firstLineMaxBytes, onLongFirstLine: () => { longFirstLine = true; } });
    const records = lines?.result();
    if (lines && records) return { result: records, lines };
    // The document reader refused what began with a long line: JSON Lines after all, if it is.
    const linesAfterAll = async (): Promise<FileContent | undefined> => {
      if (!longFirstLine) return undefined;
      const again = await streamJsonl(handle, { ...jsonl, firstLineMaxBytes: Number.POSITIVE_INFINITY });
      const result = again?.result();
      return again && result ? { result, lines: again } : undefined;
    };
    if (size > maxDocumentBytes) {
      try {
        return { result: await streamDocument(handle, file, size, maxDocumentBytes, chunks, reading(0.9)) };
      } catch (e) {
        const again = e instanceof TrajectoryLoadError && e.code === 'too-large' ? await linesAfterAll() : undefined;
        if (again) return again;
        throw e;
      }
    }
    if (inParts) {
      const streamed = await tryStreamDocument(handle, maxDocumentBytes, chunks, reading(0.9));
      if (streamed) return { result: streamed };
      const again = await linesAfterAll();
      if (again) return again;
    }
    let bytes: Buffer | undefined = await readAllBytes(handle, size, chunks, reading(0.6));
    progress(0.6, 'Parsing JSON…');
    await yieldToEventLoop();
    throwIfCancelled(options.signal, file);
    const text = decodeText(bytes, file);
    // The bytes are garbage once decoded: let the parse reuse their memory (peak 3× → 2× the file).
    bytes = undefined;
    return { result: readInput(text, file, options.openRecordSink) };
  } finally {
    await handle.close();
  }
}

/** UTF-16 text (Windows tools write it) is decoded whole; it has two bytes per character or more. */
async function readUtf16(handle: FileHandle, file: string, size: number, maxDocumentBytes: number, options: ReadFileOptions & { file: string }, onProgress: (n: number) => void): Promise<ReadResult> {
  if (size / 2 > maxDocumentBytes) {
    throw new TrajectoryLoadError(file, 'too-large', `this UTF-16 file of ${formatBytes(size)} is too large to read as one piece of text; convert it to UTF-8 (e.g. \`iconv -f UTF-16 -t UTF-8 FILE > FILE.utf8.json\`) and open that.`);
  }
  return readInput(decodeText(await readAllBytes(handle, size, options, onProgress), file), file);
}

/** A document too big to be one string, read element by element of its event arrays. */
async function streamDocument(handle: FileHandle, file: string, size: number, maxDocumentBytes: number, options: ReadFileOptions & { file: string }, onProgress: (n: number) => void): Promise<ReadResult> {
  const scanner = new JsonDocumentScanner(maxDocumentBytes, { compact: options.compactElement, nestBytes: options.nestBytes, openSink: options.openElementSink });
  try {
    await readChunks(handle, options, (chunk, n) => {
      scanner.push(chunk);
      onProgress(n);
      return true;
    });
  } catch (e) {
    if (e instanceof UnstreamableJson) throw documentTooLarge(file, size, maxDocumentBytes, e.message);
    if (e instanceof SyntaxError) throw new TrajectoryLoadError(file, 'not-json', `not valid JSON: ${e.message}.`);
    throw e;
  }
  const warnings = scanner.finished ? [] : [{
    message: 'The file ends abruptly (it looks truncated, as when an agent stops mid-write). Loaded every complete record before the break; the rest was ignored.',
  }];
  return { input: { shape: 'json', value: scanner.value }, warnings, ...(scanner.sink ? { sink: scanner.sink } : {}) };
}

/**
 * The document element by element, or undefined when it cannot be read that way whole and
 * undamaged (then it is read as one string, which salvages and describes damage the usual way).
 */
async function tryStreamDocument(handle: FileHandle, maxSpanBytes: number, options: ReadFileOptions & { file: string }, onProgress: (n: number) => void): Promise<ReadResult | undefined> {
  const scanner = new JsonDocumentScanner(maxSpanBytes, { compact: options.compactElement, nestBytes: options.nestBytes, openSink: options.openElementSink });
  try {
    await readChunks(handle, options, (chunk, n) => {
      scanner.push(chunk);
      onProgress(n);
      return true;
    });
  } catch (e) {
    if (e instanceof UnstreamableJson || e instanceof SyntaxError) return undefined;
    throw e;
  }
  if (!scanner.finished) return undefined;
  return { input: { shape: 'json', value: scanner.value }, warnings: [], ...(scanner.sink ? { sink: scanner.sink } : {}) };
}

function documentTooLarge(file: string, size: number, limit: number, reason: string): TrajectoryLoadError {
  return new TrajectoryLoadError(file, 'too-large',
    `this is a single JSON document of ${formatBytes(size)}. JavaScript cannot hold text over ${formatBytes(limit)} as one piece, ` +
    `and this document cannot be read in parts because ${reason}. JSON Lines files (one event per line) are always read in parts: ` +
    `convert its event list, e.g. \`jq -c '.[]' FILE > FILE.jsonl\` for a bare array or \`jq -c '.messages[]' FILE > FILE.jsonl\` ` +
    `for {"messages": [...]}, and open the .jsonl file.`);
}
