import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import type { Step } from '../../src/core/model';
import { argsPreview, displayOrder, stepDocument, stepLabel, stepPreview } from '../../src/core/view/stepPresentation';
import { StepBuilder } from '../../src/core/steps';
import { loadTrajectory } from '../../src/core/open';
import { fixture } from '../helpers/paths';

function parallelCalls(): Step[] {
  const b = new StepBuilder();
  b.add({ kind: 'user', text: 'Check both files' });
  b.add({ kind: 'tool_call', text: '', tool: { name: 'read_file', args: '{"path":"a.py"}', callId: 'c1' } });
  b.add({ kind: 'tool_call', text: '', tool: { name: 'bash', args: '{"command":"pytest -q","timeout":30}', callId: 'c2' } });
  b.add({ kind: 'tool_result', text: '3 passed', tool: { name: '', args: '', callId: 'c2' } });
  b.add({ kind: 'tool_result', text: 'print(1)', tool: { name: '', args: '', callId: 'c1' } });
  return b.finish();
}

test('a result is listed right after the call it answers, even when calls ran in parallel', () => {
  const order = displayOrder(parallelCalls()).map((s) => s.index);
  assert.deepEqual(order, [0, 1, 4, 2, 3]);
});

test('step labels name the kind and the tool, on calls and on their observations', () => {
  const steps = parallelCalls();
  assert.equal(stepLabel(steps[1]), 'tool call · read_file');
  assert.equal(stepLabel(steps[3]), 'observation · bash');
  assert.equal(stepLabel(steps[0]), 'user');
});

test('a tool call previews its most telling argument first', () => {
  assert.equal(argsPreview('{"timeout":30,"command":"pytest -q"}'), 'pytest -q  timeout=30');
  assert.equal(argsPreview('{"path":"src/a.py","view_range":[1,20]}'), 'src/a.py');
  assert.equal(argsPreview('ls -la'), 'ls -la');
  assert.equal(stepPreview(parallelCalls()[2]), 'pytest -q timeout=30', 'white space is folded for one line');
  const long = stepPreview({ ...parallelCalls()[0], text: 'word '.repeat(40) }, 20);
  assert.equal(long.length, 20);
  assert.ok(long.endsWith('…'));
});

test('step content opens as JSON, diff or text by what it holds', () => {
  const [, call, , result] = parallelCalls();
  const doc = stepDocument(call);
  assert.equal(doc.extension, 'json');
  assert.equal(doc.content, '{\n  "path": "a.py"\n}');
  assert.equal(stepDocument(result).extension, 'txt');
  const diff = 'diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n';
  assert.equal(stepDocument({ ...result, text: diff }).extension, 'diff');
});

test('an item we do not know shows its type name as label and its fields as preview, never raw JSON', () => {
  const b = new StepBuilder();
  const item = '{"type":"world_state","cwd":"/repo","branch":"main","dirty":true}';
  b.add({ kind: 'other', text: item, label: item });
  const [step] = b.finish();
  assert.equal(stepLabel(step), 'other · world_state');
  assert.equal(stepPreview(step), 'cwd=/repo branch=main dirty=true');
});

test('a result that printed nothing previews the exit status its log recorded, and nothing it did not', async () => {
  const { loadRun } = await import('../helpers/runs');
  const { fixture } = await import('../helpers/paths');
  // Cursor's CLI: `sleep 5` and `sleep 3`, each completed with exitCode 0 and no output.
  const run = await loadRun(fixture('cursor-agent/cursor-hack-direct-sleep.jsonl'));
  const results = run.steps.filter((s) => s.kind === 'tool_result');
  assert.deepEqual(results.map((r) => stepPreview(r)), ['exit 0 · no output', 'exit 0 · no output']);
  assert.equal(stepPreview({ ...results[0], exitCode: undefined }), '', 'no status recorded, none shown');
  // Its calls: the command, then the arguments that say something (an empty workingDirectory does not).
  assert.equal(stepPreview(run.steps.find((s) => s.kind === 'tool_call')!), 'sleep 5 timeout=10000 isBackground=false');
});

test('a command given as its words (a real Codex 0.36 call) previews as the line it runs, not a JSON list', async () => {
  const run = (await loadTrajectory(fixture('codex/typelang-serena-sandbox-failures.jsonl'))).runs[0];
  const call = run.steps.find((s) => s.kind === 'tool_call' && s.tool?.args.includes('"codex exec --json'));
  assert.ok(call);
  assert.match(stepPreview(call, 200), /^codex exec --json "Please run the serena summarize tool for the current repository and then exit\."  *workdir=\/home\/hsin4\/myproject\/typelang-hm-rs timeout_ms=120000$/);
});
