// Reads one JSON document that is too big to be a single JavaScript string (over about 512 MB).
// Every trajectory format keeps its bulk in one list: the document itself is an array of events,
// or an object with a few small fields and one or more arrays (`messages`, `history`, `samples`).
// So the scanner walks the bytes, finds the elements of the top-level array, or of arrays that are
// values of the top-level object, and JSON.parses each element on its own. Everything else at the
// top level (small values such as `model` or `metadata`) is parsed whole the same way.

import { StringDecoder } from 'node:string_decoder';
import { formatBytes } from './bytes';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

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

  constructor(private readonly maxSpanBytes: number) {}

  get finished(): boolean {
    return this.phase === 'done';
  }

  /** The document as far as it is complete (the caller warns when it is not `finished`). */
  get value(): unknown {
    return this.root;
  }

  /** Takes the next chunk; the caller may reuse its memory afterwards. */
  push(chunk: Buffer): void {
    const n = chunk.length;
    let i = 0;
    if (this.from === -2) this.from = 0; // collecting continues from the start of this chunk
    while (i < n) {
      if (this.inString) {
        // Skip string contents quickly: only a quote or a backslash matters.
        if (this.escaped) {
          this.escaped = false;
          i++;
          continue;
        }
        for (; i < n; i++) {
          const c = chunk[i];
          if (c === BACKSLASH) {
            if (i + 1 < n) i++;
            else this.escaped = true;
          } else if (c === QUOTE) {
            this.inString = false;
            break;
          }
        }
        i++;
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
      if (this.phase === 'start') this.begin(c, i);
      else if (this.phase === 'valueStart') this.beginValue(c, i);
      else if (this.phase === 'afterArray' && c !== COMMA && c !== CLOSE_OBJECT) this.unexpected(i);
      if (c === QUOTE) this.inString = true;
      else if (c === OPEN_ARRAY || c === OPEN_OBJECT) this.depth++;
      else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) this.close(chunk, i);
      else if (c === COMMA) this.comma(chunk, i);
      else if (c === COLON && this.depth === 1 && this.phase === 'key') {
        this.key = this.parseSpan(chunk, i) as string;
        this.phase = 'valueStart';
      }
      i++;
    }
    if (this.from >= 0) this.keep(chunk.subarray(this.from));
    this.offset += n;
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
    const text = this.spanText(chunk, end);
    this.from = -1;
    if (text.trim() === '') return; // `[]`
    this.list.push(this.parse(text, end));
  }

  private setValue(chunk: Buffer, end: number): void {
    setOwn(this.root as Record<string, unknown>, this.key, this.parseSpan(chunk, end));
  }

  private parseSpan(chunk: Buffer, end: number): unknown {
    const value = this.parse(this.spanText(chunk, end), end);
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
    this.partBytes += part.length;
    if (this.partBytes > this.maxSpanBytes) this.spanTooLong();
    this.parts.push(this.decoder.write(part));
    this.from = -2;
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
