import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { SurveyEntry } from './enumerate';
import { surveyEntry, type SurveyJob } from './measure';
import type { SurveyLine } from './types';

// A small pool of worker threads, one file in flight per worker: memory is bounded by the runs
// being measured, not by the size of the folder. Without a worker script (the .ts sources run
// directly) the files are measured one at a time in this thread.

export interface WorkRequest {
  id: number;
  entry: SurveyEntry;
  job: SurveyJob;
}

export type WorkReply = { id: number; lines: SurveyLine[] } | { id: number; error: string };

/** `surveyWorker.js` beside this module: dist/ for the bundles, out/src/core/survey/ for tsc's output. */
export function findSurveyWorker(dir = __dirname): string | undefined {
  const candidate = path.join(dir, 'surveyWorker.js');
  return fs.existsSync(candidate) ? candidate : undefined;
}

export function defaultParallelism(): number {
  return Math.max(1, typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length);
}

export interface PoolOptions {
  /** Workers (default: one per core). */
  jobs?: number;
  signal?: AbortSignal;
  workerScript?: string | null;
}

/**
 * Measures every entry, calling `onLines` as each file finishes (in completion order). Resolves
 * when all are done; a worker that dies is replaced and its file reported as skipped.
 */
export async function measureAll(entries: readonly SurveyEntry[], job: SurveyJob, onLines: (entry: SurveyEntry, lines: SurveyLine[]) => void, options: PoolOptions = {}): Promise<void> {
  const script = options.workerScript === null ? undefined : options.workerScript ?? findSurveyWorker();
  const width = Math.max(1, Math.min(options.jobs ?? defaultParallelism(), entries.length));
  if (!script) {
    for (const entry of entries) {
      if (options.signal?.aborted) return;
      onLines(entry, await surveyEntry(entry, job));
    }
    return;
  }
  let next = 0;
  let id = 0;
  const workers: Worker[] = [];
  const runSlot = async (): Promise<void> => {
    let worker = new Worker(script);
    workers.push(worker);
    try {
      while (next < entries.length && !options.signal?.aborted) {
        const entry = entries[next++];
        const request: WorkRequest = { id: ++id, entry, job };
        let reply: WorkReply;
        try {
          reply = await ask(worker, request);
        } catch (e) {
          if (options.signal?.aborted) break; // stopped on purpose: the file is not measured, not failed
          // The worker died (out of memory, a crash in native code): report the file, carry on with a new one.
          reply = { id: request.id, error: `the worker measuring it stopped: ${(e as Error).message}` };
          await worker.terminate().catch(() => undefined);
          worker = new Worker(script);
          workers.push(worker);
        }
        onLines(entry, 'lines' in reply ? reply.lines : [{ file: entry.rel, skipped: reply.error }]);
      }
    } finally {
      await worker.terminate().catch(() => undefined);
    }
  };
  const abort = () => { for (const w of workers) void w.terminate(); };
  options.signal?.addEventListener('abort', abort, { once: true });
  try {
    await Promise.all(Array.from({ length: width }, runSlot));
  } finally {
    options.signal?.removeEventListener('abort', abort);
  }
}

function ask(worker: Worker, request: WorkRequest): Promise<WorkReply> {
  return new Promise((resolve, reject) => {
    const onMessage = (reply: WorkReply) => { if (reply.id === request.id) { cleanup(); resolve(reply); } };
    const onError = (e: Error) => { cleanup(); reject(e); };
    const onExit = (code: number) => { cleanup(); reject(new Error(`exit code ${code}`)); };
    const cleanup = () => { worker.off('message', onMessage); worker.off('error', onError); worker.off('exit', onExit); };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    worker.postMessage(request);
  });
}
