import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { loadTrajectory, parseTrajectoryText } from '../../src/core/open';
import { atifText } from '../../src/core/formats/atifFile';
import { describeCoverage } from '../../src/core/io/coverage';
import { StepBuilder } from '../../src/core/steps';
import type { Run, TrajectoryFile } from '../../src/core/model';
import { stepLabel } from '../../src/core/view/stepPresentation';
import { fixture } from '../helpers/paths';
import { loadRun } from '../helpers/runs';
import { fileOfRun } from '../../src/core/stats';

// What the wild-log set's locked part showed when its failures were opened (issue 20): each
// cause on the real file, copied into test/fixtures with its source.

/** Steps and calls of a file, and of its ATIF read back. */
function atifRoundTrip(t: TrajectoryFile): { before: [number, number]; after: [number, number] } {
  const count = (runs: readonly Run[]): [number, number] => {
    const steps = runs.flatMap((r) => r.steps);
    return [steps.length, steps.filter((s) => s.kind === 'tool_call').length];
  };
  const { text } = atifText(t);
  const back = parseTrajectoryText(text, { path: 'roundtrip.atif.json', size: text.length });
  return { before: count(t.runs), after: count(back.runs) };
}

test('pi: the calls of a reply that failed (stopReason "error") never ran: cut off, not calls without a result', async () => {
  const t = await loadRun(fixture('pi/pi-mono-failed-reply.jsonl'));
  assert.equal(t.format, 'pi');
  const calls = t.steps.filter((s) => s.kind === 'tool_call');
  assert.equal(calls.length, 17, 'one bash call, then 16 edits in the failed reply');
  assert.ok(t.steps.some((s) => s.kind === 'tool_result' && s.answers === calls[0].index), 'the bash call has its result');
  assert.equal(calls.filter((s) => s.tool?.interrupted).length, 16);
  assert.equal(t.coverage?.unpairedCalls, 0);
  assert.equal(t.coverage?.interruptedCalls, 16);
  assert.match(describeCoverage(t.coverage!), /16 calls cut off \(an aborted or failed reply, or a compaction\)/);
});

test('claude-code: a tool_result on a user line flagged isMeta is the call\'s result, and the ATIF round trip keeps every step', async () => {
  for (const name of ['claude-code/agent-sessions-claude-small.jsonl', 'claude-code/agent-sessions-subagent-meta-result.jsonl']) {
    const file = await loadTrajectory(fixture(name));
    const t = file.runs[0];
    assert.equal(t.format, 'claude-code', name);
    const call = t.steps.find((s) => s.kind === 'tool_call');
    const result = t.steps.find((s) => s.kind === 'tool_result');
    assert.ok(call && result, name);
    assert.equal(result.answers, call.index, `${name}: the log has no ids; the result follows its call`);
    assert.ok(result.text === 'ok' || result.text === 'a.txt:1: TODO fix', name);
    assert.ok(!t.steps.some((s) => s.label === 'meta' && s.text === ''), `${name}: no empty meta step stands for the result`);
    assert.equal(file.coverage?.unpairedCalls, 0, name);
    const rt = atifRoundTrip(file);
    assert.deepEqual(rt.after, rt.before, name);
  }
});

test('atif export: an empty system step reads back as a step', () => {
  const b = new StepBuilder();
  b.add({ kind: 'user', text: 'go' });
  b.add({ kind: 'system', text: '', label: 'meta' });
  b.add({ kind: 'assistant', text: 'done' });
  const run: Run = { format: 'claude-code', title: 't', steps: b.finish(), meta: {}, source: { path: 'x.jsonl', size: 1 } } as unknown as Run;
  const rt = atifRoundTrip(fileOfRun(run));
  assert.deepEqual(rt.after, [3, 0]);
});

test('codex: tool_call and tool_result items without ids pair in order; the call is named by its function, the output read', async () => {
  const t = await loadRun(fixture('codex/agent-sessions-codex-large.jsonl'));
  assert.equal(t.format, 'codex');
  const call = t.steps.find((s) => s.kind === 'tool_call');
  assert.equal(call?.tool?.name, 'run_shell_command');
  assert.deepEqual(JSON.parse(call!.tool!.args), { command: "printf 'line1\\nline2\\nline3\\n'", cwd: '/tmp/large' });
  const result = t.steps.find((s) => s.kind === 'tool_result');
  assert.equal(result?.answers, call!.index);
  assert.equal(result?.text, 'line1\nline2\nline3\n');
  assert.equal(result?.exitCode, 0);
  assert.equal(t.coverage?.unpairedCalls, 0);
  assert.ok(!t.steps.some((s) => s.kind === 'other'), 'the result is no longer an unknown item');
});

test('runs: Terminus 2 replies kept as traces `conversations` read as its thinking and its terminal calls, answered by the output; ATIF keeps them', async () => {
  const file = await loadTrajectory(fixture('runs/terminus-2-summary.traces.json'));
  assert.equal(file.format, 'runs');
  const t = file.runs[0];
  assert.deepEqual(t.steps.map((s) => s.kind), ['user', 'thought', 'tool_call', 'tool_result', 'thought', 'tool_call', 'tool_result', 'user', 'assistant']);
  assert.equal(stepLabel(t.steps[1]).includes('{'), false, 'the label shows the analysis, not the JSON');
  assert.match(t.steps[1].text, /^Terminal is ready\. Let me create a test directory first\.\n\nCreate test_dir/);
  assert.deepEqual(JSON.parse(t.steps[2].tool!.args), { keystrokes: 'mkdir test_dir\n' });
  assert.equal(t.steps[3].answers, 2);
  assert.match(t.steps[3].text, /^New Terminal Output:/);
  assert.equal(file.coverage?.unpairedCalls, 0);
  const rt = atifRoundTrip(file);
  assert.deepEqual(rt.after, rt.before);
  assert.deepEqual(rt.before, [9, 2], 'as Harbor\'s own ATIF of the same run (the wild set\'s dev part)');
});

test('atif export: an answer without calls that is Terminus JSON text stays one answer when read back', () => {
  const b = new StepBuilder();
  b.add({ kind: 'user', text: 'go' });
  b.add({ kind: 'assistant', text: '{\n  "analysis": "Terminal is ready.",\n  "plan": "List files.",\n  "commands": [{"keystrokes": "ls\\n", "duration": 0.1}],\n  "task_complete": false\n}' });
  const run = { format: 'openai-chat', title: 't', steps: b.finish(), meta: {}, source: { path: 'x.json', size: 1 } } as unknown as Run;
  const rt = atifRoundTrip(fileOfRun(run));
  assert.deepEqual(rt.after, [2, 0]);
});
