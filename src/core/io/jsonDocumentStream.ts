// Reads one JSON document that is too big to be a single JavaScript string (over about 512 MB).
// Every trajectory format keeps its bulk in one list: the document itself is an array of events,
// or an object with a few small fields and one or more arrays (`messages`, `history`, `samples`).
// So the scanner walks the bytes, finds the elements of the top-level array, or of arrays that are
// values of the top-level object, and JSON.parses each element on its own. Everything else at the
// top level (small values such as `model` or `metadata`) is parsed whole the same way.
// One string inside an element can still be most of the file (a 200 MB tool output): past
// `bigStringBytes` it is unescaped in pieces as it arrives (JsonStringPieces), and the element's
// text holds a placeholder for it that is swapped back once the element is parsed.
// One element can also be most of the file (an OTLP export's one `resourceSpans` entry holds every
// span): past `nestBytes` it is read by a scanner of its own, which streams that element's arrays
// in turn, so no element is gathered as text beyond that size whatever the nesting. A caller may
// replace each streamed element as it is parsed (`compact`, given the element's path): an adapter's
// compact stand-in for it, so that the document is never held whole in its bulky parsed form.

import { randomBytes } from 'node:crypto';

import { StringDecoder } from 'node:string_decoder';
import { formatBytes } from './bytes';
import { JsonStringPieces } from './jsonStringPieces';
import type { ElementSink, OpenElementSink } from './input';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
/** Strings in an item over this are unescaped in pieces as they arrive (see JsonStringPieces). */
const BIG_STRING_BYTES = 4 * 1024 * 1024;
/** An item (an object or array) over this is read by a nested scanner instead of gathered as text. */
const NEST_BYTES = 1024 * 1024;

/** Where a streamed element sits: the keys and indexes from the document's root. */
export type JsonPath = readonly (string | number)[];

export interface ScannerOptions {
  /** Strings in an item over this are unescaped in pieces as they arrive. */
  bigStringBytes?: number;
  /** Objects and arrays over this are read by a nested scanner (tests lower it). */
  nestBytes?: number;
  /** Called with each element of a streamed array once parsed; what it returns takes the element's place. */
  compact?: (path: JsonPath, value: unknown) => unknown;
  /** Offered each top-level list at its first element, until one is taken: that list's elements then go to the sink, not the list. */
  openSink?: OpenElementSink;
  /** The path of the item this scanner reads (a nested scanner's), and its first byte in the file. */
  path?: JsonPath;
  offset?: number;
}

type Phase =
  | 'start' // before the first byte of the document
  | 'elements' // inside a streamed array: collecting one element at a time
  | 'key' // top-level object: collecting a key
  | 'valueStart' // top-level object: after the colon, before the value
  | 'value' // top-level object: collecting a value that is not an array
  | 'afterArray' // top-level object: a streamed array just closed
  | 'done';

/** Why a document could not be read in parts; the loader turns it into a message for the user. */
export class UnstreamableJson extends Error {}

export class JsonDocumentScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  private phase: Phase = 'start';
  private root: unknown[] | Record<string, unknown> | undefined;
  /** The array whose elements are being collected, and the depth its elements sit at. */
  private list: unknown[] = [];
  private listDepth = 0;
  private key = '';
  /**
   * The span being collected (a key, a value or an element): earlier chunks' text in `parts` (decoded
   * as they arrive, so a huge item is not held as bytes, joined bytes and text at once), then
   * this chunk's from index `from`. -1: nothing is being collected; -2: it goes on at the next chunk.
   */
  private parts: string[] = [];
  private partBytes = 0;
  /** Decodes `parts`; holds the bytes of a character split between two chunks. */
  private decoder = new StringDecoder('utf8');
  private from = -1;
  /** Bytes seen before the current chunk, for error positions. */
  private offset = 0;
  /** This chunk's index of the open string's opening quote; -1 when it opened in an earlier chunk. */
  private stringOpen = -1;
  /** Where in `parts` the open string's body starts while it is still gathered as text; -1 otherwise. */
  private stringPart = -1;
  private stringBytes = 0;
  /** The open string's body once it has grown past `bigStringBytes`. */
  private bigString: JsonStringPieces | undefined;
  /** The big strings of the item being collected, by the placeholder that stands for each in its text. */
  private bigStrings = new Map<string, string>();
  /** Random, so that no text in the file can pose as a placeholder. */
  private readonly placeholder = `\\u0000atl-big-string:${randomBytes(8).toString('hex')}:`;
  private readonly bigStringBytes: number;
  private readonly nestBytes: number;
  private readonly compact: ScannerOptions['compact'];
  private readonly path: JsonPath;
  /** The scanner reading the big item being collected, if it grew past `nestBytes`. */
  private nested: JsonDocumentScanner | undefined;
  /** That scanner once its item is complete, until the comma or bracket after the item. */
  private finishedItem: JsonDocumentScanner | undefined;
  private readonly openSink: OpenElementSink | undefined;
  /** The sink that takes the elements of the list `sinkList` (see `ScannerOptions.openSink`), and how many it has taken. */
  private elementSink: ElementSink | undefined;
  private sinkList: unknown[] | undefined;
  private sinkCount = 0;

  constructor(private readonly maxSpanBytes: number, options: number | ScannerOptions = {}) {
    const o = typeof options === 'number' ? { bigStringBytes: options } : options;
    this.bigStringBytes = o.bigStringBytes ?? BIG_STRING_BYTES;
    this.nestBytes = o.nestBytes ?? NEST_BYTES;
    this.compact = o.compact;
    this.openSink = o.openSink;
    this.path = o.path ?? [];
    this.offset = o.offset ?? 0;
  }

  get finished(): boolean {
    return this.phase === 'done';
  }

  /** The document as far as it is complete (the caller warns when it is not `finished`). */
  get value(): unknown {
    return this.root;
  }

  /** The sink that took a list's elements, if one did (`ScannerOptions.openSink`). */
  get sink(): ElementSink | undefined {
    return this.elementSink;
  }

  /** Takes the next chunk; the caller may reuse its memory afterwards. */
  push(chunk: Buffer): void {
    this.scan(chunk, false);
  }

  /**
   * Scans `chunk`; with `stopAtEnd` (a nested scanner) it stops once its item is complete and
   * returns how many bytes that took, else it returns -1.
   */
  private scan(chunk: Buffer, stopAtEnd: boolean): number {
    const n = chunk.length;
    let i = 0;
    let ended = -1;
    if (this.from === -2) this.from = 0; // collecting continues from the start of this chunk
    while (i < n) {
      if (this.nested) {
        // The big item's own scanner reads its bytes; this one goes on where the item ends.
        const used = this.nested.scan(chunk.subarray(i), true);
        if (used < 0) break;
        i += used;
        this.finishedItem = this.nested;
        this.nested = undefined;
        this.depth = this.phase === 'elements' ? this.listDepth : 1;
        continue;
      }
      if (this.inString) {
        // Skip string contents quickly: only a quote or a backslash matters.
        if (this.escaped) {
          this.escaped = false;
          i++;
          continue;
        }
        // The next quote not escaped: found natively (a string is most of a log's bytes), then
        // the backslashes right before it counted back, at most to where this search began.
        for (;;) {
          const quote = chunk.indexOf(QUOTE, i);
          const end = quote < 0 ? n : quote;
          let backslashes = 0;
          while (end - backslashes - 1 >= i && chunk[end - backslashes - 1] === BACKSLASH) backslashes++;
          if (quote < 0) {
            this.escaped = backslashes % 2 === 1;
            i = n;
            break;
          }
          if (backslashes % 2 === 1) {
            i = quote + 1;
            continue;
          }
          this.inString = false;
          if (this.bigString) this.endBigString(chunk, quote);
          this.stringPart = -1;
          i = quote + 1;
          break;
        }
        continue;
      }
      const c = chunk[i];
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
        i++;
        continue;
      }
      if (this.phase === 'start' && this.offset + i < 3 && (c === 0xef || c === 0xbb || c === 0xbf)) {
        i++; // a UTF-8 byte-order mark
        continue;
      }
      if (this.phase === 'done') throw new UnstreamableJson(`there is more than one JSON value (a second one starts at byte ${this.offset + i})`);
      if (this.finishedItem && c !== COMMA && c !== CLOSE_ARRAY && c !== CLOSE_OBJECT) this.unexpected(i);
      if (this.phase === 'start') this.begin(c, i);
      else if (this.phase === 'valueStart') this.beginValue(c, i);
      else if (this.phase === 'afterArray' && c !== COMMA && c !== CLOSE_OBJECT) this.unexpected(i);
      if (c === QUOTE) {
        this.inString = true;
        this.stringOpen = i;
      }
      else if (c === OPEN_ARRAY || c === OPEN_OBJECT) this.depth++;
      else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
        this.close(chunk, i);
        if (stopAtEnd && this.finished) {
          ended = i + 1;
          break;
        }
      }
      else if (c === COMMA) this.comma(chunk, i);
      else if (c === COLON && this.depth === 1 && this.phase === 'key') {
        this.key = this.parseSpan(chunk, i) as string;
        this.phase = 'valueStart';
      }
      i++;
    }
    if (this.from >= 0 && ended < 0) this.keepRest(chunk);
    this.stringOpen = -1;
    this.offset += ended < 0 ? n : ended;
    return ended;
  }

  /** At the end of a chunk: keeps the unfinished span, telling an open string's body apart. */
  private keepRest(chunk: Buffer): void {
    if (this.bigString) {
      this.addBytes(chunk.length - this.from);
      this.stringPiece(() => this.bigString?.add(this.decoder.write(chunk.subarray(this.from))), chunk.length);
      this.from = -2;
      return;
    }
    if (!this.inString || (this.phase !== 'elements' && this.phase !== 'value')) {
      this.keep(chunk.subarray(this.from));
      if (this.partBytes > this.nestBytes && (this.phase === 'elements' || this.phase === 'value')) this.nest(chunk);
      return;
    }
    let bodyFrom = this.from;
    if (this.stringOpen >= 0) {
      this.keep(chunk.subarray(this.from, this.stringOpen + 1));
      this.stringPart = this.parts.length;
      this.stringBytes = 0;
      bodyFrom = this.stringOpen + 1;
    }
    this.stringBytes += chunk.length - bodyFrom;
    this.keep(chunk.subarray(bodyFrom));
    if (this.partBytes > this.nestBytes && this.nest(chunk)) return;
    if (this.stringBytes > this.bigStringBytes) {
      // The body so far moves out of the span's text into pieces of its own.
      const body = this.parts.splice(this.stringPart);
      this.stringPart = -1;
      const pieces = new JsonStringPieces();
      this.stringPiece(() => body.forEach((text) => pieces.add(text)), chunk.length);
      this.bigString = pieces;
    }
  }

  /**
   * The item being collected has grown past `nestBytes`: if it is an object or an array, its text so
   * far goes to a scanner of its own, and so does the rest of it as it arrives. Only when the kept
   * text ends on a whole character (the decoder holds no byte back) and holds no big string yet.
   */
  private nest(chunk: Buffer): boolean {
    if (this.bigStrings.size > 0 || chunk[chunk.length - 1] >= 0x80) return false;
    const text = this.parts.join('');
    const first = text.trimStart()[0];
    if (first !== '{' && first !== '[') return false;
    const bytes = Buffer.from(text, 'utf8');
    const index = this.phase === 'elements' ? this.list.length : undefined;
    const path = [...this.path, ...(this.listDepth === 2 || this.phase === 'value' ? [this.key] : []), ...(index === undefined ? [] : [index])];
    this.nested = new JsonDocumentScanner(this.maxSpanBytes, { bigStringBytes: this.bigStringBytes, nestBytes: this.nestBytes, compact: this.compact, path, offset: this.offset + chunk.length - bytes.length });
    this.parts = [];
    this.partBytes = 0;
    this.stringPart = -1;
    this.stringBytes = 0;
    this.from = -1;
    if (this.nested.scan(bytes, true) >= 0) {
      // The item is already complete (its closing bracket was in this chunk; the comma is not yet).
      this.finishedItem = this.nested;
      this.nested = undefined;
      return true;
    }
    // From the next chunk on, the nested scanner reads the item and says where it ends.
    this.inString = false;
    this.escaped = false;
    return true;
  }

  /** The big string closes at byte `end`: the span's text gets its placeholder and goes on from the quote. */
  private endBigString(chunk: Buffer, end: number): void {
    const pieces = this.bigString as JsonStringPieces;
    this.bigString = undefined;
    this.addBytes(end - Math.max(0, this.from));
    const value = this.stringPiece(() => pieces.finish(this.decoder.write(chunk.subarray(Math.max(0, this.from), end))), end);
    const name = `${this.placeholder}${this.bigStrings.size}`;
    this.bigStrings.set(JSON.parse(`"${name}"`) as string, value);
    this.parts.push(name);
    this.from = end;
  }

  private stringPiece<T>(work: () => T, end: number): T {
    try {
      return work();
    } catch (e) {
      throw new SyntaxError(`${(e as Error).message.replace(/ in JSON at position \d+.*/, '')} in a string that goes on past byte ${this.offset + end}`);
    }
  }

  private begin(c: number, i: number): void {
    if (c === OPEN_ARRAY) {
      this.root = this.list = [];
      this.listDepth = 1;
      this.phase = 'elements';
      this.from = i + 1;
    } else if (c === OPEN_OBJECT) {
      this.root = {};
      this.phase = 'key';
      this.from = i + 1;
    } else {
      throw new UnstreamableJson('it is neither an array nor an object');
    }
  }

  /** A top-level value starts: arrays are streamed element by element, anything else collected whole. */
  private beginValue(c: number, i: number): void {
    if (c === OPEN_ARRAY) {
      this.list = [];
      setOwn(this.root as Record<string, unknown>, this.key, this.list);
      this.listDepth = 2;
      this.phase = 'elements';
      this.from = i + 1;
    } else {
      this.phase = 'value';
      this.from = i;
    }
  }

  private close(chunk: Buffer, i: number): void {
    this.depth--;
    if (this.phase === 'elements' && this.depth === this.listDepth - 1) {
      this.addElement(chunk, i);
      this.phase = this.listDepth === 1 ? 'done' : 'afterArray';
    } else if (this.depth === 0) {
      if (this.phase === 'value') this.setValue(chunk, i);
      else if (this.phase === 'key' && this.spanText(chunk, i).trim() !== '') this.unexpected(i);
      this.from = -1;
      this.phase = 'done';
    }
  }

  private comma(chunk: Buffer, i: number): void {
    if (this.phase === 'elements' && this.depth === this.listDepth) {
      this.addElement(chunk, i);
      this.from = i + 1;
    } else if (this.depth === 1 && (this.phase === 'value' || this.phase === 'afterArray')) {
      if (this.phase === 'value') this.setValue(chunk, i);
      this.phase = 'key';
      this.from = i + 1;
    }
  }

  private addElement(chunk: Buffer, end: number): void {
    let value: unknown;
    if (this.finishedItem) value = this.nestedValue();
    else {
      const text = this.spanText(chunk, end);
      this.from = -1;
      if (text.trim() === '') return; // `[]`
      value = this.restoreBigStrings(this.parse(text, end));
    }
    if (this.compact) {
      // The element's index: a list a sink takes stays empty, so its count is the sink's.
      const index = this.sinkList === this.list ? this.sinkCount : this.list.length;
      const path = [...this.path, ...(this.listDepth === 2 ? [this.key] : []), index];
      value = this.compact(path, value);
    }
    if (this.sinkList === this.list && this.elementSink) {
      this.elementSink.add(value, this.sinkCount++);
      return;
    }
    if (this.openSink && !this.elementSink && this.list.length === 0 && this.takenBySink(value)) return;
    this.list.push(value);
  }

  /** Offers the list that `first` opens to `openSink`; true when a sink took it. */
  private takenBySink(first: unknown): boolean {
    const key = this.listDepth === 2 ? this.key : undefined;
    this.list.push(first); // the document as the opener sees it: this list holds its first element
    const sink = this.openSink?.(this.root, key, first);
    this.list.length = 0;
    if (!sink) return false;
    this.elementSink = sink;
    this.sinkList = this.list;
    sink.add(first, this.sinkCount++);
    return true;
  }

  private setValue(chunk: Buffer, end: number): void {
    setOwn(this.root as Record<string, unknown>, this.key, this.finishedItem ? this.nestedValue() : this.parseSpan(chunk, end));
  }

  /** The big item the nested scanner read, once the comma or bracket after it is reached. */
  private nestedValue(): unknown {
    const value = this.finishedItem?.value;
    this.finishedItem = undefined;
    this.from = -1;
    return value;
  }

  private parseSpan(chunk: Buffer, end: number): unknown {
    const value = this.restoreBigStrings(this.parse(this.spanText(chunk, end), end));
    this.from = -1;
    return value;
  }

  private parse(text: string, end: number): unknown {
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new SyntaxError(`${(e as Error).message.replace(/ in JSON at position \d+.*/, '')} in the item that ends at byte ${this.offset + end}`);
    }
  }

  private spanText(chunk: Buffer, end: number): string {
    const tail = chunk.subarray(Math.max(0, this.from), end);
    if (this.partBytes + tail.length > this.maxSpanBytes) this.spanTooLong();
    let text: string;
    if (this.parts.length === 0) text = tail.toString('utf8');
    else {
      this.parts.push(this.decoder.end(tail));
      text = this.parts.join('');
      this.decoder = new StringDecoder('utf8');
    }
    this.parts = [];
    this.partBytes = 0;
    return text;
  }

  /** Keeps the unfinished span's bytes from this chunk; the next chunk continues it from byte 0. */
  private keep(part: Buffer): void {
    this.addBytes(part.length);
    this.parts.push(this.decoder.write(part));
    this.from = -2;
  }

  private addBytes(n: number): void {
    this.partBytes += n;
    if (this.partBytes > this.maxSpanBytes) this.spanTooLong();
  }

  /** Puts the item's big strings where their placeholders are (values or keys, at any depth). */
  private restoreBigStrings(value: unknown): unknown {
    if (this.bigStrings.size === 0) return value;
    const found = this.bigStrings;
    this.bigStrings = new Map();
    if (typeof value === 'string') return found.get(value) ?? value;
    let left = found.size;
    const stack: unknown[] = [value];
    while (stack.length > 0 && left > 0) {
      const node = stack.pop();
      if (node === null || typeof node !== 'object') continue;
      const record = node as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const child = record[key];
        const big = typeof child === 'string' ? found.get(child) : undefined;
        if (big !== undefined) {
          record[key] = big;
          left--;
        } else if (child !== null && typeof child === 'object') stack.push(child);
        const bigKey = found.get(key);
        if (bigKey !== undefined) {
          delete record[key];
          setOwn(record, bigKey, big ?? child);
          left--;
        }
      }
    }
    return value;
  }

  private spanTooLong(): never {
    throw new UnstreamableJson(`one item in it is over ${formatBytes(this.maxSpanBytes)} by itself`);
  }

  private unexpected(i: number): never {
    throw new SyntaxError(`unexpected character at byte ${this.offset + i}`);
  }
}

/** As JSON.parse does: a key named `__proto__` is an own property, never the object's prototype. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}
