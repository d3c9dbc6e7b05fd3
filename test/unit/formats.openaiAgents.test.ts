import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { loadTrajectory } from '../../src/core/open';
import { stepFailed } from '../../src/core/compaction/facts/verdict';
import { billRunAsHappened } from '../../src/core/simulate';
import { fixture } from '../helpers/paths';

// The OpenAI Agents SDK's trace export (dfinson/traceforge's capture of a run on gpt-5): it was
// "not a trajectory in any format we know".

test('openai-agents: a trace export reads its spans in order: the agent, each model response, each function call with its output', async () => {
  const loaded = await loadTrajectory(fixture('openai-agents/traceforge-issue-tracker.jsonl'));
  assert.equal(loaded.format, 'openai-agents');
  const run = loaded.runs[0];
  assert.equal(run.title, 'demo_issue_tracker_get_endpoint');
  assert.match(run.steps[0].text, /^Demo issue tracker coding agent \(tools: list_dir, read_file, write_file, run_pytest\)$/);
  const calls = run.steps.filter((s) => s.kind === 'tool_call');
  const results = run.steps.filter((s) => s.kind === 'tool_result');
  assert.deepEqual(calls.map((c) => c.tool!.name).slice(0, 3), ['list_dir', 'read_file', 'read_file']);
  assert.deepEqual(results.map((r) => r.answers), calls.map((c) => c.index), 'each output answers its function span');
  // 13 response spans: 13 model calls, each before the calls it made.
  assert.equal(run.steps.filter((s) => s.label === 'response').length, 13);
  assert.equal(billRunAsHappened(run).billing.modelCalls, 13);
  // The failing pytest is the one error; the passing one is not.
  const pytest = results.filter((r) => run.steps[r.answers!].tool!.name === 'run_pytest');
  assert.deepEqual(pytest.map((r) => stepFailed(r, run.steps)), [true, false]);
});
