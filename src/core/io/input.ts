// What the reader hands to format adapters: a file's records, parsed, never its bytes. Defined
// here, on the floor that reads them, so that io/ needs nothing from the adapters above it
// (`formats/adapter.ts` re-exports these for the adapters).

export interface JsonlRecord {
  value: unknown;
  /** 1-based line number in the file. */
  line: number;
}

/** A file after the reader has read it; adapters work on parsed values, never on raw bytes. */
export type ParsedInput =
  | { shape: 'json'; value: unknown }
  | { shape: 'jsonl'; records: JsonlRecord[] }
  | { shape: 'text'; text: string }
  | { shape: 'folder'; files: { name: string; value: unknown }[] };

/** Takes a file's records one by one as they are read, instead of a list (an adapter's `recordParser`, opened by `open/`). */
export interface RecordSink {
  add(record: JsonlRecord): void;
}

/**
 * Given the head of a file's records (those `sniff` sees, once a record past them arrives), a sink
 * for them and all later ones; undefined keeps every record in a list, as without one.
 */
export type OpenRecordSink = (head: readonly JsonlRecord[]) => RecordSink | undefined;

/** Takes the elements of a document's event list one by one as they are read (an adapter's `elementParser`, opened by `open/`). */
export interface ElementSink {
  /** The element at `index` of the list, in order. */
  add(value: unknown, index: number): void;
}

/**
 * Given a document as far as it is read when the first element of one of its top-level lists
 * arrives (`root`, with that list holding only `first`, under `key`; no key when the document
 * is the list), a sink for that list's elements; undefined keeps them in the list, as without one.
 */
export type OpenElementSink = (root: unknown, key: string | undefined, first: unknown) => ElementSink | undefined;
