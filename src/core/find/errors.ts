import type { Step } from '../model';
import { classifyCall } from '../compaction/facts/calls';
import { editOutcome, errorOf, exitCodeOf } from '../compaction/facts/outcomes';

// Which steps failed, read the way the fact layer reads outcomes (compaction/facts): the log's
// error flag, a non-zero exit status (grep's "no match" is an answer, not a failure), an edit
// that did not go through, or an error the tool printed (a traceback, `command not found`,
// `FAILED tests/…`). The output of reads is source code, so no error is read out of it.

// grep, diff and test answer "no" with exit 1 (as facts/index.ts treats them).
const ANSWERS_NO = /^(?:(?:grep|egrep|fgrep|rg|diff|cmp|test)\b|\[\s)/;

/** Whether one step failed. `steps` is its run, to find the call a result answers. */
export function isErrorStep(step: Step, steps: readonly Step[]): boolean {
  if (step.isError) return true;
  if (step.kind !== 'tool_result') return false;
  const call = step.answers !== undefined ? steps[step.answers] : undefined;
  const info = call?.tool ? classifyCall(call, step) : undefined;
  const code = exitCodeOf(step);
  if (code !== undefined && code !== 0) {
    const command = (info?.command ?? '').trim().replace(/^cd \S+ && /, '');
    if (!(code === 1 && ANSWERS_NO.test(command))) return true;
  }
  if (info?.kind === 'edit' || info?.kind === 'read') return editOutcome(step) === 'failed';
  return errorOf(step, false) !== undefined;
}

const cache = new WeakMap<readonly Step[], ReadonlySet<number>>();

/** Indices of the steps of a run that failed; computed once per run and kept while the run lives. */
export function errorSteps(steps: readonly Step[]): ReadonlySet<number> {
  let found = cache.get(steps);
  if (!found) {
    const set = new Set<number>();
    for (const step of steps) if (isErrorStep(step, steps)) set.add(step.index);
    found = set;
    cache.set(steps, found);
  }
  return found;
}
