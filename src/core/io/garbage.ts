// After a big file is read, its garbage (the chunks, the pieces a huge string was joined from, the
// parsed JSON the steps were built from) stays in the process until V8 decides to collect it, and
// whatever the command does next is added on top: a 200 MB tool output peaked at 2.9× the file
// in `compact`, 2.4× with one collection after loading. A host that owns its process (the CLI)
// installs a collector (and tunes V8's own when it starts: `cli/garbage.ts`); in the extension
// host V8 keeps its own rules.

let collector: (() => void) | undefined;
let onBigRead: (() => void) | undefined;

/** Files at least this big are followed by a collection when a collector is installed. */
const BIG_READ_BYTES = 32 * 1024 * 1024;

/**
 * `bigRead`: called before a file of at least BIG_READ_BYTES is read, for a host that tunes V8 for
 * small reads to give speed back to big ones (`cli/garbage.ts`).
 */
export function setGarbageCollector(collect: (() => void) | undefined, bigRead?: () => void): void {
  collector = collect;
  onBigRead = bigRead;
}

/** Called by the loader before it reads a file of `bytes`. */
export function beforeRead(bytes: number): void {
  if (onBigRead && bytes >= BIG_READ_BYTES) onBigRead();
}

/** Called by the loader once a file of `bytes` has become steps. */
export function collectAfterRead(bytes: number): void {
  if (collector && bytes >= BIG_READ_BYTES) collector();
}
