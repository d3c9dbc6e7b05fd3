import type { FormatAdapter } from '../formats/adapter';
import type { ReadFileOptions } from '../io/readFile';
import type { ProgressSink } from '../io/progress';

const MB = 1024 * 1024;

/**
 * 4 GB: JSON Lines files (and big JSON arrays) stream, so their size is bounded by memory (at most
 * about 2.5 bytes per byte of file, measured by `npm run bench`), not by JavaScript's string limit.
 */
export const DEFAULT_MAX_BYTES = 4096 * MB;

export interface LoadOptions extends ReadFileOptions {
  /** Files larger than this are refused with a clear message. */
  maxBytes?: number;
  adapters?: readonly FormatAdapter[];
  /** Called as the load advances, fraction 0..1 (only ever rising), ending with 1. */
  onProgress?: ProgressSink;
  /** Nothing reads the parsed input after the adapter (the reader's own reads that keep nothing): see `ParseContext.consumable`. */
  consumeInput?: boolean;
  /**
   * Read the subagent files a log names into branches of its run (default). A survey turns it off:
   * it reads every file under the folder on its own, subagent files included, and counts each once.
   */
  subagentFiles?: boolean;
  /** How deep in subagent files this read is (a subagent's file names its own subagents): 0 for the file opened. */
  subagentDepth?: number;
}

export interface OpenOptions extends LoadOptions {
  /**
   * Keep what was read, so that a later read takes only what was appended (live follow). Without
   * it the reader keeps nothing between reads, and a read after a change reads everything again.
   * Progress and cancel (`onProgress`, `signal`) belong to the first read only.
   */
  follow?: boolean;
}
