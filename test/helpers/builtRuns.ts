// Small runs built in a test, step by step, for the fact layer's tests: a run of the given format
// and tool calls with their results paired by id.

import type { Run } from '../../src/core/model';
import { StepBuilder } from '../../src/core/steps';

export function builtRun(build: (b: StepBuilder) => void, format = 'claude-code'): Run {
  const b = new StepBuilder();
  build(b);
  const steps = b.finish();
  return { format, title: 't', source: { path: '/tmp/t.jsonl', size: 0 }, steps, meta: {}, warnings: [], records: steps.length };
}

let n = 0;
/** A tool call and, when `output` is given, its result. */
export function addCall(b: StepBuilder, name: string, args: object, output?: string): void {
  const id = `c${++n}`;
  b.add({ kind: 'tool_call', text: JSON.stringify(args), tool: { name, args: JSON.stringify(args), callId: id } });
  if (output !== undefined) b.add({ kind: 'tool_result', text: output, tool: { name: '', args: '', callId: id } });
}
