import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { toAtif } from '../../src/core/formats/atifExport';
import { checkAtif } from '../../src/core/formats/atifRules';
import type { Step } from '../../src/core/model';
import { corpus, fixture, writeTemp } from '../helpers/paths';
import { loadRun } from '../helpers/runs';
import { loadTrajectory } from '../../src/core/open';
import { runCli } from '../helpers/cli';

const kinds = (t: { steps: Step[] }) => t.steps.map((s) => s.kind);
/** Through JSON both ways, as a file on disk would be (so -0 and 0 compare alike). */
const asJson = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;

// A v1.7 document built from the RFC's published shape: multimodal content parts, an embedded
// subagent resolved by trajectory_id, a context-management compaction step, per-step and final metrics.
const v17 = {
  schema_version: 'ATIF-v1.7',
  session_id: 'run-42',
  trajectory_id: 'root',
  agent: { name: 'harbor-agent', version: '1.0.0', model_name: 'gemini-2.5-flash' },
  steps: [
    { step_id: 1, source: 'system', message: 'You solve tasks in a Linux shell.' },
    { step_id: 2, source: 'user', timestamp: '2026-01-10T10:00:00Z', message: [{ type: 'text', text: 'What is in this screenshot?' }, { type: 'image', source: { media_type: 'image/png', path: 'images/s1.png' } }] },
    {
      step_id: 3, source: 'agent', message: 'I will ask a helper to read it.', reasoning_content: 'Delegate the OCR.',
      tool_calls: [{ tool_call_id: 'c1', function_name: 'delegate', arguments: { task: 'ocr' } }],
      observation: { results: [{ source_call_id: 'c1', content: 'It says 42.', subagent_trajectory_ref: [{ trajectory_id: 'ocr-1' }] }] },
      metrics: { prompt_tokens: 520, completion_tokens: 80, cached_tokens: 200, cost_usd: 0.00045, extra: { cache_creation_input_tokens: 64 } },
    },
    { step_id: 4, source: 'system', message: 'Context compaction performed', observation: { results: [{ content: 'Summary: the screenshot says 42.' }] }, extra: { context_management: { type: 'compaction', boundary: 'replace' } } },
    { step_id: 5, source: 'agent', message: 'The screenshot says 42.', metrics: { prompt_tokens: 600, completion_tokens: 12, cost_usd: 0.0002 } },
  ],
  final_metrics: { total_prompt_tokens: 1120, total_completion_tokens: 92, total_cached_tokens: 200, total_cost_usd: 0.00065, total_steps: 5 },
  subagent_trajectories: [{
    schema_version: 'ATIF-v1.7', trajectory_id: 'ocr-1', agent: { name: 'ocr', version: '0.1' },
    steps: [
      { step_id: 1, source: 'user', message: 'Read images/s1.png' },
      { step_id: 2, source: 'agent', message: '42', metrics: { prompt_tokens: 90, completion_tokens: 2 } },
    ],
  }],
};

test('atif: a v1.7 document maps steps, calls, results, metrics, content parts, an embedded subagent and a compaction', async () => {
  const t = await loadRun(writeTemp('trajectory.json', JSON.stringify(v17)));
  assert.equal(t.format, 'atif');
  assert.deepEqual(kinds(t), ['system', 'user', 'thought', 'thought', 'tool_call', 'tool_result', 'user', 'assistant', 'compaction', 'assistant']);
  assert.equal(t.steps[1].text, 'What is in this screenshot?\n[image images/s1.png]', 'image parts name their file, never inline data');
  assert.equal(t.steps[2].label, 'reasoning');
  const call = t.steps[4];
  assert.deepEqual(call.tool, { name: 'delegate', args: '{"task":"ocr"}', callId: 'c1' });
  assert.deepEqual(call.usage, { model: 'gemini-2.5-flash', inputTokens: 520, outputTokens: 80, cachedInputTokens: 200, cacheWriteTokens: 64, cost: 0.00045 });
  assert.equal(t.steps[5].answers, 4);
  assert.equal(t.steps[5].text, 'It says 42.');
  assert.deepEqual(t.steps.filter((s) => s.branch).map((s) => [s.branch, s.kind, s.text]), [['ocr-1', 'user', 'Read images/s1.png'], ['ocr-1', 'assistant', '42']],
    'the embedded subagent follows the delegation, on its own branch');
  assert.equal(t.steps[8].compaction?.summary, 'Summary: the screenshot says 42.');
  assert.equal(t.steps[8].compaction?.trigger, 'compaction');
  assert.deepEqual(t.meta.recorded, { model: 'gemini-2.5-flash', inputTokens: 1120, outputTokens: 92, cachedInputTokens: 200, cost: 0.00065 });
  assert.equal(t.steps[4].location?.pointer, '/steps/2');
  assert.equal(t.steps[6].location?.pointer, '/subagent_trajectories/0/steps/0');
});

test('atif: a real Terminus-2 run with a context summarization reads its handoff as a compaction', async () => {
  // The three summarization subagents beside it are read as branches (subagentFiles.test.ts): here, the run alone.
  const t = await loadRun(fixture('atif/terminus-2-context-summarization.trajectory.json'), { subagentFiles: false });
  assert.equal(t.format, 'atif');
  assert.equal(t.steps.length, 24);
  const compaction = t.steps.filter((s) => s.kind === 'compaction');
  assert.equal(compaction.length, 1);
  assert.match(compaction[0].text, /^Performed context summarization and handoff/);
  assert.match(compaction[0].compaction?.summary ?? '', /Context summarization 1: Step 1 - Summary generation/);
  // Terminus writes results without a source_call_id: each answers its step's call.
  const calls = t.steps.filter((s) => s.kind === 'tool_call');
  assert.equal(calls.length, 7);
  for (const c of calls) assert.ok(t.steps.some((s) => s.answers === c.index), `call ${c.index} has its result`);
  assert.deepEqual(t.meta.recorded, { model: 'openai/gpt-4o', inputTokens: 7802, outputTokens: 1030, cachedInputTokens: 0, cost: 0.029804999999999998 });
  // The final metrics also count the three summarizer calls, which are subagents, not steps of this run.
  assert.equal(calls.reduce((n, s) => n + (s.usage?.inputTokens ?? 0), 0), 6502);
});

test('atif round trip: ATIF → model → ATIF gives back every real Harbor document field for field', async () => {
  for (const name of ['terminus-2-context-summarization.trajectory.json', 'openhands-hello-world.trajectory.json', 'terminus-2-invalid-json.trajectory.json']) {
    const file = fixture(`atif/${name}`);
    const t = await loadRun(file);
    assert.deepEqual(asJson(toAtif(t)), asJson(JSON.parse(fs.readFileSync(file, 'utf8'))), name);
  }
  const t = await loadRun(writeTemp('v17.json', JSON.stringify(v17)));
  assert.deepEqual(asJson(toAtif(t)), asJson(v17), 'the v1.7 document, subagents and content parts included');
});

test('atif out: a converted trajectory keeps every call, result and metric, and results sit in the step of their call', async () => {
  const messages = [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'List files, then count them.' },
    { role: 'assistant', content: 'Listing.', tool_calls: [{ id: 'a', type: 'function', function: { name: 'ls', arguments: '{"path":"."}' } }, { id: 'b', type: 'function', function: { name: 'wc', arguments: 'not json' } }] },
    { role: 'tool', tool_call_id: 'b', content: '2' },
    { role: 'assistant', content: 'Waiting for ls.' },
    { role: 'tool', tool_call_id: 'a', content: 'x y' },
    { role: 'assistant', content: 'Two files.' },
  ];
  const t = await loadRun(writeTemp('chat.json', JSON.stringify(messages)));
  const doc = toAtif(t);
  assert.deepEqual(checkAtif(doc), []);
  const steps = doc.steps as Record<string, unknown>[];
  assert.deepEqual(steps.map((s) => s.source), ['system', 'user', 'agent', 'agent', 'agent']);
  assert.deepEqual(steps[2].tool_calls, [
    { tool_call_id: 'a', function_name: 'ls', arguments: { path: '.' } },
    { tool_call_id: 'b', function_name: 'wc', arguments: { input: 'not json' } },
  ]);
  assert.deepEqual(steps[2].observation, { results: [{ source_call_id: 'b', content: '2' }, { source_call_id: 'a', content: 'x y' }] },
    'the late result of ls still goes to the step that called it');
  const back = await loadRun(writeTemp('back.json', JSON.stringify(doc)));
  assert.equal(back.steps.filter((s) => s.kind === 'tool_call').length, 2);
  assert.equal(back.steps.filter((s) => s.kind === 'tool_result' && s.answers !== undefined).length, 2);
});

test('atif out: cache reads and writes survive the trip, the writes in metrics.extra as Harbor writes them', async () => {
  const t = await loadRun(corpus('claude-code/crud.jsonl'));
  const doc = toAtif(t);
  assert.deepEqual(checkAtif(doc), []);
  const metrics = (doc.steps as Record<string, unknown>[]).map((s) => s.metrics as Record<string, unknown> | undefined).filter((m) => m);
  const first = t.steps.find((s) => s.usage)!.usage!;
  assert.deepEqual(metrics[0], { prompt_tokens: first.inputTokens, completion_tokens: first.outputTokens, cached_tokens: first.cachedInputTokens, extra: { cache_creation_input_tokens: first.cacheWriteTokens } });
  const writes = t.steps.reduce((n, s) => n + (s.usage?.cacheWriteTokens ?? 0), 0);
  assert.ok(writes > 0);
  assert.deepEqual((doc.final_metrics as Record<string, unknown>).extra, { total_cache_creation_input_tokens: writes });
  const back = await loadRun(writeTemp('cache-back.json', JSON.stringify(doc)));
  const usages = (x: typeof t) => x.steps.filter((s) => s.usage).map((s) => ({ ...s.usage, model: undefined }));
  assert.deepEqual(usages(back), usages(t));
  assert.equal(back.meta.recorded?.cacheWriteTokens, writes);
});

test('atif rules: each broken rule is reported, naming where', () => {
  const bad = {
    schema_version: 'ATIF-v1.5', agent: { name: 'x' },
    steps: [
      { step_id: 1, source: 'user', message: 'hi', metrics: { prompt_tokens: 1 } },
      { step_id: 3, source: 'agent', message: 'ok', timestamp: 'yesterday', tool_calls: [{ tool_call_id: 'c', function_name: 'f', arguments: [] }], observation: { results: [{ source_call_id: 'zz', content: 'r' }] } },
      { step_id: 3, source: 'robot', message: 1, llm_call_count: 2 },
    ],
    surprise: true,
  };
  const errors = checkAtif(bad);
  for (const expected of [
    /trajectory\.surprise: not a field/, /session_id: required/, /agent\.version: required/, /steps\[0\]\.metrics: only allowed on agent steps/,
    /steps\[1\]\.step_id: expected 2/, /steps\[1\]\.timestamp: not ISO 8601/, /tool_calls\[0\]\.arguments: required JSON object/,
    /results\[0\]\.source_call_id: "zz" is not a tool_call_id of step 2/, /steps\[2\]\.source: must be/, /steps\[2\]\.message: required string/,
    /steps\[2\]\.llm_call_count: not a field/,
  ]) assert.ok(errors.some((e) => expected.test(e)), `${String(expected)} in ${errors.join('\n')}`);
  assert.deepEqual(checkAtif(v17), []);
});

test('atif fixtures: every file we keep as test data is valid ATIF by our rules', () => {
  const dir = path.dirname(fixture('atif/terminus-2-invalid-json.trajectory.json'));
  // openagents-*: a third-party variant kept on purpose (it is not valid ATIF; we read it and convert it to valid ATIF).
  for (const name of fs.readdirSync(dir).filter((n) => !n.startsWith('openagents-'))) assert.deepEqual(checkAtif(JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'))), [], name);
});

test('atif: ATIF streamed as JSON Lines (a __header__ line, then a step per line) reads as the document, each step at its line', async () => {
  // OpenAgents' MechaCoder orchestrator writes `.atif.jsonl` beside `.atif.json`; it was "no format we know".
  const file = fixture('atif/openagents-streamed.atif.jsonl');
  const loaded = await loadTrajectory(file);
  assert.equal(loaded.format, 'atif');
  const run = loaded.runs[0];
  assert.equal(run.steps[0].text, 'Session started: session-2025-12-05T08-07-41-882Z-35za38');
  assert.equal(run.steps[0].location?.line, 2, 'Reveal in Source goes to the step\'s own line');
  assert.ok(run.steps.some((s) => /^Created commit: 1be85e6/.test(s.text)));
  // A subtask's result from its subagent (`{success, turns}` beside a subagent_trajectory_ref) is that
  // result, not a context summarization (Terminus refers its summarizers with refs alone).
  assert.equal(run.steps.filter((s) => s.kind === 'compaction').length, 0);
  assert.equal(run.steps.filter((s) => /"files_modified":\[\],"turns":\d/.test(s.text.replace(/\s/g, ''))).length, 2);
});

test('atif: a variant\'s result that records its own outcome ({command, passed: false}) is an error, by that flag', async () => {
  // The same orchestrator's checks: `bun run typecheck` killed (passed: false) twice, then a passing test run.
  const run = await loadRun(fixture('atif/openagents-orchestrator-checks.atif.json'));
  const checks = run.steps.filter((s) => /"command":/.test(s.text));
  const failed = checks.filter((s) => s.isError).map((s) => JSON.parse(s.text).passed);
  assert.ok(failed.length >= 2, `${failed.length} failed checks`);
  assert.ok(failed.every((p) => p === false), 'only the checks that say passed: false');
  assert.ok(checks.some((s) => !s.isError && JSON.parse(s.text).passed === true));
});

test('atif: final_metrics of all zeros record nothing, in stats as in the bill', async () => {
  // The orchestrator writes final_metrics with every count 0: stats compared "recorded 0, ours 105".
  const out = (await runCli('stats', fixture('atif/openagents-orchestrator-checks.atif.json'), '--tokens')).out;
  assert.doesNotMatch(out, /Recorded usage/);
  assert.match(out, /run +not recorded \(the log's usage fields are all zero\)/);
});
