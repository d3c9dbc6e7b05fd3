import type { Step, TrajectoryFile, TrajectorySource } from '../model';
import { allSteps } from '../stats';
import { estimateTokens, messageStarts, overheadOf, piecesOf, stepTokensOf, type StepTokens } from './chatFormat';
import { ContentCache, contentKey, defaultCacheDir, readFileCounts, writeFileCounts } from './contentCache';
import type { TokenCounter } from './counter';
import { tokenizerFor, type TokenizerInfo } from './models';
import { type EncodingName } from '../models';
import { countWithTiktoken } from './tiktokenCounter';
import { splitForCounting } from './exactSplit';
import { countInThread, countingBackend, type CountingBackend } from './countJobs';

// Counts arrive in two waves: `estimate` answers at once (chars/4, no hashing); `count` then
// reports snapshots through `onProgress` — already-known texts exact at once, the rest as the
// workers deliver them. Every snapshot carries its tokenizer, so a UI can say what it shows.

export interface TokenCounts {
  tokenizer: TokenizerInfo;
  /** Parallel to the steps that were counted. */
  steps: StepTokens[];
  /** True once every step is exact. */
  exact: boolean;
  /** Where the exact counts came from: the per-file cache, or tokenizing (with the content cache). */
  origin: 'estimate' | 'file-cache' | 'counted';
}

export interface CountOptions {
  /** Model name; picks the encoding. Defaults to none (o200k_base, marked approximate). */
  model?: string;
  /** The file the steps come from: enables the per-file cache. */
  source?: TrajectorySource;
  /** Called with a fresh snapshot as exact counts arrive (at most every `progressIntervalMs`). */
  onProgress?: (counts: TokenCounts) => void;
  progressIntervalMs?: number;
  signal?: AbortSignal;
}

export interface TokenServiceOptions {
  /** Folder of the per-file cache; `null` turns it off. Defaults to the XDG cache folder. */
  cacheDir?: string | null;
  /** Where exact counting runs; defaults to this thread (entry points pass `countingBackend(script)`). */
  backend?: CountingBackend;
}

/** A distinct text still to be tokenized, and the steps (one entry per occurrence) waiting for it. */
interface PendingText {
  key: string;
  text: string;
  estimate: number;
  steps: number[];
}

/** Texts handed to a worker at once: large enough to amortize messaging, small enough to balance. */
const BATCH_CHARS = 64 * 1024;
/** Texts longer than this are counted in parts (see exactSplit.ts). */
const PART_CHARS = 1024 * 1024;
/** Main-thread work between yields, so hashing a huge file never blocks the host for long. */
const SLICE_MS = 12;

export class TokenService {
  readonly cache = new ContentCache();
  readonly cacheDir: string | null;
  private backendInstance: CountingBackend | undefined;

  constructor(options: TokenServiceOptions = {}) {
    this.cacheDir = options.cacheDir === undefined ? defaultCacheDir() : options.cacheDir;
    this.backendInstance = options.backend;
  }

  get backend(): CountingBackend {
    return (this.backendInstance ??= countingBackend());
  }

  /** Immediate counts at chars/4, without hashing or tokenizing: what a view shows first. */
  estimate(steps: readonly Step[], model?: string): TokenCounts {
    const starts = messageStarts(steps);
    const counts = steps.map((step, i) => stepTokensOf(step, piecesOf(step).reduce((n, p) => n + estimateTokens(p), 0), overheadOf(step, starts[i]), false));
    return { tokenizer: tokenizerFor(model), steps: counts, exact: steps.length === 0, origin: 'estimate' };
  }

  /**
   * A synchronous counter for code that needs one number now (compaction budgets): it shares this
   * service's content cache, so its counts match what the views show, and tokenizes misses in-thread.
   */
  counterFor(model?: string): TokenCounter {
    const info = tokenizerFor(model);
    return {
      tokenizer: info.encoding,
      approximate: info.approximate,
      count: (text) => {
        if (text.length === 0) return 0;
        const key = contentKey(text);
        let n = this.cache.get(info.encoding, key);
        if (n === undefined) this.cache.set(info.encoding, key, (n = countWithTiktoken(info.encoding, text)));
        return n;
      },
    };
  }

  /** Every step of a file, runs included (parallel to `allSteps(t)`); model defaults to the log's. */
  countTrajectory(t: TrajectoryFile, options: Omit<CountOptions, 'source'> = {}): Promise<TokenCounts> {
    return this.count(allSteps(t), { ...options, model: options.model ?? t.meta.model, source: t.source });
  }

  /** Exact counts of `steps`, reported progressively through `onProgress`. */
  async count(steps: readonly Step[], options: CountOptions = {}): Promise<TokenCounts> {
    const tokenizer = tokenizerFor(options.model);
    const encoding = tokenizer.encoding;
    const starts = messageStarts(steps);
    const overheads = steps.map((step, i) => overheadOf(step, starts[i]));
    const lengths = steps.map((step) => piecesOf(step).reduce((n, p) => n + p.length, 0));

    const stored = this.cacheDir && options.source ? await readFileCounts(this.cacheDir, options.source, encoding) : undefined;
    // Hashes name content, so even a stale record's texts are right; they spare re-tokenizing
    // everything but the new part of a log that grew.
    if (stored) for (const [key, n] of Object.entries(stored.record.texts)) this.cache.set(encoding, key, n);
    if (stored?.current && sameNumbers(stored.record.lengths, lengths)) {
      const counts = stored.record.content.map((content, i) => stepTokensOf(steps[i], content, overheads[i], true));
      const result: TokenCounts = { tokenizer, steps: counts, exact: true, origin: 'file-cache' };
      options.onProgress?.(result);
      return result;
    }

    // Pass 1: hash every piece; known texts resolve now, the rest wait for the backend.
    const content = new Array<number>(steps.length).fill(0);
    const missing = new Array<number>(steps.length).fill(0);
    const pending = new Map<string, PendingText>();
    const fileTexts: Record<string, number> = {};
    let sliceStart = Date.now();
    for (let i = 0; i < steps.length; i++) {
      for (const piece of piecesOf(steps[i])) {
        if (piece.length === 0) continue;
        const key = contentKey(piece);
        const cached = this.cache.get(encoding, key);
        if (cached !== undefined) {
          content[i] += cached;
          fileTexts[key] = cached;
          continue;
        }
        let entry = pending.get(key);
        if (!entry) pending.set(key, (entry = { key, text: piece, estimate: estimateTokens(piece), steps: [] }));
        entry.steps.push(i);
        content[i] += entry.estimate;
        missing[i]++;
      }
      if (Date.now() - sliceStart > SLICE_MS) {
        throwIfAborted(options.signal);
        await yieldToEventLoop();
        sliceStart = Date.now();
      }
    }

    const snapshot = (origin: TokenCounts['origin']): TokenCounts => {
      const counts = content.map((c, i) => stepTokensOf(steps[i], c, overheads[i], missing[i] === 0));
      return { tokenizer, steps: counts, exact: missing.every((m) => m === 0), origin };
    };
    if (pending.size > 0) options.onProgress?.(snapshot('estimate'));

    // Pass 2: tokenize each distinct text once, in batches spread over the backend.
    let lastReport = Date.now();
    const interval = options.progressIntervalMs ?? 100;
    const settle = (entries: PendingText[], counts: ArrayLike<number>) => {
      entries.forEach((entry, j) => {
        const exact = counts[j];
        this.cache.set(encoding, entry.key, exact);
        fileTexts[entry.key] = exact;
        for (const i of entry.steps) {
          content[i] += exact - entry.estimate;
          missing[i]--;
        }
      });
      if (options.onProgress && Date.now() - lastReport >= interval) {
        lastReport = Date.now();
        options.onProgress(snapshot('counted'));
      }
    };
    await this.countPending(encoding, [...pending.values()], settle, options.signal);

    const result = snapshot('counted');
    options.onProgress?.(result);
    if (this.cacheDir && options.source) {
      await writeFileCounts(this.cacheDir, options.source, { encoding, lengths, content, texts: fileTexts });
    }
    return result;
  }

  private async countPending<E extends { text: string }>(
    encoding: EncodingName,
    entries: E[],
    settle: (batch: E[], counts: ArrayLike<number>) => void,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    // A long text goes in parts that add up exactly: posted whole, it would be copied twice more.
    const jobs = entries.map((entry) => ({ entry, left: 0, total: 0 }));
    const parts: { job: (typeof jobs)[number]; text: string }[] = [];
    for (const job of jobs) {
      const texts = splitForCounting(job.entry.text, PART_CHARS);
      job.left = texts.length;
      for (const text of texts) parts.push({ job, text });
    }
    const batches: (typeof parts)[] = [];
    let batch: typeof parts = [];
    let chars = 0;
    for (const part of parts) {
      batch.push(part);
      chars += part.text.length;
      if (chars >= BATCH_CHARS) {
        batches.push(batch);
        batch = [];
        chars = 0;
      }
    }
    if (batch.length > 0) batches.push(batch);

    // A few batches in flight per worker keep every core busy; dispatching lazily lets a
    // cancellation stop the work that has not started yet.
    let next = 0;
    const lanes = Array.from({ length: Math.max(1, this.backend.parallelism * 2) }, async () => {
      while (next < batches.length) {
        throwIfAborted(signal);
        const b = batches[next++];
        const texts = b.map((p) => p.text);
        let counts: ArrayLike<number>;
        try {
          counts = await this.backend.run('count', { encoding, texts });
        } catch (e) {
          if (signal?.aborted) throw e;
          // A crashed worker costs speed, never the answer.
          counts = countInThread(encoding, texts);
        }
        const done: E[] = [];
        const totals: number[] = [];
        b.forEach(({ job }, j) => {
          job.total += counts[j];
          if (--job.left === 0) {
            done.push(job.entry);
            totals.push(job.total);
          }
        });
        if (done.length > 0) settle(done, totals);
      }
    });
    await Promise.all(lanes);
    throwIfAborted(signal);
  }

  async dispose(): Promise<void> {
    await this.backendInstance?.dispose();
    this.backendInstance = undefined;
  }
}

function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('token counting was cancelled');
}
