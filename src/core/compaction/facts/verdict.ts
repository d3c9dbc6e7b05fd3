// One verdict on how a tool call ended, for every tool: the filter, Next Error, the tree's icons,
// `search is:error`, every summary and the loss report ask this function. The log's structure
// decides first (an error flag: Claude Code `is_error`, OpenHands error observations, ATIF and
// OTel status, Cline `api_req_failed`; then an exit status, recorded in a field or in the
// `Exit Code: 1` line a tool prints); only a result that records neither is read for an error
// message. The tool's name only tells how to read the text (an edit's refusal, a read's source
// code), never whether the result is read.

import type { Step } from '../../model';
import { classifyCall, type CallInfo } from './calls';
import { editOutcome, errorOf, exitCodeOf } from './outcomes';

export interface Verdict {
  /** true failed, false went through, undefined: the log does not say. */
  failed?: boolean;
  /** What decided it. */
  by: 'flag' | 'exit' | 'edit' | 'text' | 'none';
  exitCode?: number;
}

// grep, diff and test answer "no" with exit 1: that is an answer, not a failure.
const ANSWERS_NO = /^(?:(?:grep|egrep|fgrep|rg|diff|cmp|test)\b|\[\s)/;

export function answersNo(command: string | undefined, exitCode: number | undefined): boolean {
  return exitCode === 1 && command !== undefined && ANSWERS_NO.test(command.trim().replace(/^cd \S+ && /, ''));
}

/**
 * How the call that `result` answers ended. `info` is the call's classification when the caller
 * has it already. A result with exit status 0 and no error flag never failed, whatever it printed
 * (Gemini CLI's shell prints `Error: (none)` after every command).
 */
export function verdictOf(result: Step, call?: Step, info?: CallInfo): Verdict {
  if (result.isError) return { failed: true, by: 'flag', ...(exitCodeOf(result) !== undefined ? { exitCode: exitCodeOf(result) } : {}) };
  const kind = info ?? (call?.tool ? classifyCall(call, result) : undefined);
  const exitCode = exitCodeOf(result);
  if (exitCode !== undefined) return { failed: exitCode !== 0 && !answersNo(kind?.command, exitCode), by: 'exit', exitCode };
  if (kind?.kind === 'edit' || kind?.kind === 'read') {
    return editOutcome(result) === 'failed' ? { failed: true, by: 'edit' } : { failed: false, by: 'edit' };
  }
  // A command that only reads (`cat`, `sed -n`) prints source code: its text says nothing of how it ended.
  if (kind?.kind === 'shell' && kind.reads.length > 0 && kind.edits.length === 0) return { by: 'none' };
  if (errorOf(result, false)) return { failed: true, by: 'text' };
  return { by: 'none' };
}

/** Whether a step failed: a result by its verdict, any other step only by the log's own flag. */
export function stepFailed(step: Step, steps: readonly Step[]): boolean {
  if (step.isError) return true;
  if (step.kind !== 'tool_result') return false;
  const call = step.answers !== undefined ? steps[step.answers] : undefined;
  return verdictOf(step, call?.kind === 'tool_call' ? call : undefined).failed === true;
}
