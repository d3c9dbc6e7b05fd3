import { TrajectoryLoadError } from './errors';

/** Told how far a load has got: `fraction` rises from 0 to 1; `message` says what is happening. */
export type ProgressSink = (fraction: number, message: string) => void;

/** Lets the caller's progress UI repaint and a cancel request land between chunks of work. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export function throwIfCancelled(signal: AbortSignal | undefined, file: string): void {
  if (signal?.aborted) throw new TrajectoryLoadError(file, 'cancelled', 'opening was cancelled.');
}

/**
 * Wraps a sink so it only ever moves forward and is not called for every tiny step (a 1 GB file
 * read in 2 MB chunks would otherwise report 500 times): it passes on a report when the fraction
 * rose by a percent, when the kind of message changes (reading → parsing), and the final 1.
 */
export function monotonicProgress(sink: ProgressSink | undefined): ProgressSink {
  let last = -1;
  let lastKind = '';
  return (fraction, message) => {
    if (!sink) return;
    const f = Math.min(1, Math.max(last, fraction));
    const kind = message.replace(/[\d.,]+\s*[KMG]?B?/g, '#'); // "Reading # of #…" stays one kind
    if (f - last < 0.01 && kind === lastKind && !(f === 1 && last < 1)) return;
    last = f;
    lastKind = kind;
    sink(f, message);
  };
}
