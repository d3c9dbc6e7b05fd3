import type { Trajectory } from '../../core/model';
import { CompactionWorker, findCompactionWorker } from '../../core/offthread/client';
import type { CounterSpec } from '../../core/offthread/protocol';
import { tokenizerFor } from '../../core/tokens/models';
import { readLlmSettings } from './llmSettings';

// Compaction, the range prompt's policy, the report and its replay count tokens; in VS Code they
// run in one worker thread so the window never waits for them. Undefined only when the worker
// script is missing (running from sources), in which case callers count in this thread.

let shared: CompactionWorker | undefined;

export function compactionWorker(): CompactionWorker | undefined {
  if (shared) return shared;
  const script = findCompactionWorker();
  return script ? (shared = new CompactionWorker(script)) : undefined;
}

export async function disposeCompactionWorker(): Promise<void> {
  const w = shared;
  shared = undefined;
  await w?.dispose();
}

/** The same choice as `compactionCounter`, as plain data for the worker. */
export function compactionCounterSpec(model: string | undefined, trajectory: Trajectory): CounterSpec {
  const fromLog = typeof trajectory.meta.model === 'string' ? trajectory.meta.model : undefined;
  const tokenizer = tokenizerFor(model ?? readLlmSettings().model ?? fromLog);
  return { encoding: tokenizer.encoding, approximate: tokenizer.approximate };
}
