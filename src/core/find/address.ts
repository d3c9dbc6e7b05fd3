// "Go to Step…": a step named as the tree and the CLI name it, `STEP` or `RUN:STEP`, both from 0.

export interface StepAddress {
  run: number;
  step: number;
}

/**
 * Reads `N` (a step of `currentRun`) or `RUN:STEP`. `runLengths` holds the step count of every run.
 * Returns the address, or the reason it names no step (for the input box's validation message).
 */
export function parseStepAddress(value: string, runLengths: readonly number[], currentRun = 0): StepAddress | string {
  const multi = runLengths.length > 1;
  const m = /^\s*(?:(\d+)\s*:\s*)?(\d+)\s*$/.exec(value);
  if (!m) return multi ? 'Type STEP, or RUN:STEP (both counted from 0).' : 'Type a step number (from 0).';
  const run = m[1] !== undefined ? Number(m[1]) : currentRun;
  if (run >= runLengths.length) return `This file has ${runLengths.length === 1 ? 'one run, run 0' : `runs 0 to ${runLengths.length - 1}`}.`;
  const step = Number(m[2]);
  const length = runLengths[run];
  if (step >= length) return length === 0 ? `${multi ? `Run ${run}` : 'This trajectory'} has no steps.` : `${multi ? `Run ${run}` : 'This trajectory'} has steps 0 to ${length - 1}.`;
  return { run, step };
}
