import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { runOutcome } from '../../src/core/formats/runMeta';
import { loadTrajectory } from '../../src/core/open';
import { billRun } from '../../src/core/simulate';
import { corpus, fixture, writeTemp } from '../helpers/paths';
import { loadRun } from '../helpers/runs';

const jsonl = (lines: unknown[]) => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
const v0Events = () => JSON.parse(fs.readFileSync(corpus('openhands-v0/basic.json'), 'utf8')) as unknown[];
const v1Events = () => fs.readFileSync(corpus('openhands-v1/events.jsonl'), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as unknown);

test('runs: real tau-bench results ({task_id, reward, info, traj, trial}) open as one run per episode', async () => {
  const t = await loadTrajectory(fixture('runs/tau-bench-gpt-4o-airline.json'));
  assert.equal(t.format, 'runs');
  assert.equal(t.runs?.length, 3);
  const run = t.runs![0];
  assert.equal(run.format, 'openai-chat', 'each run keeps the format of its trajectory');
  assert.match(run.title, /^task 0: Hi! I'm looking to book a flight/);
  assert.equal(run.meta.taskId, '0');
  assert.equal(run.meta.reward, 0);
  assert.equal(run.meta.trial, 0);
  assert.equal(runOutcome(run.meta), 'reward 0 · trial 0');
  assert.equal(run.steps[0].kind, 'system');
  assert.equal(run.steps[1].location?.pointer, '/0/traj/1', 'Reveal in Source points into the record');
  assert.equal(t.title, '3 runs (OpenAI chat-completions messages)');
});

test('runs: an OpenHands feedback dataset ({version, feedback, permissions, trajectory}) as JSON Lines', async () => {
  const record = (feedback: string, i: number) => ({ version: '1.0', feedback, permissions: 'public', timestamp: `2025-01-0${i}T00:00:00`, polarity: feedback, trajectory: v0Events() });
  const t = await loadTrajectory(writeTemp('feedback.jsonl', jsonl([record('positive', 1), record('negative', 2)])));
  assert.equal(t.format, 'runs');
  assert.equal(t.runs?.length, 2);
  assert.equal(t.runs![0].format, 'openhands-v0');
  assert.equal(t.runs![1].meta.feedback, 'negative');
  assert.equal(t.runs![1].steps[0].location?.line, 2, 'steps of a JSON Lines record point at its line');
  assert.deepEqual((t.runs![0].meta.recordFields as Record<string, unknown>).permissions, 'public');
});

test('runs: an OpenHands resolver output.jsonl ({issue, instruction, history, success}) shows each issue and whether it was resolved', async () => {
  const rec = (n: number, success: boolean) => ({
    issue: { owner: 'acme', repo: 'app', number: n, title: `Crash on empty input #${n}`, body: '...' },
    issue_type: 'issue', instruction: 'Fix the issue', base_commit: 'abc', git_patch: 'diff --git ...',
    history: v0Events(), metrics: { accumulated_cost: 0.12 }, success, comment_success: null, result_explanation: 'ok', error: null,
  });
  const t = await loadTrajectory(writeTemp('output.jsonl', jsonl([rec(12, true), rec(13, false)])));
  // Read by the OpenHands evaluation reader: the issue names the run, `success` says whether it was resolved.
  assert.equal(t.format, 'openhands-eval');
  assert.deepEqual(t.runs!.map((r) => [r.title, r.meta.resolved]), [['acme/app#12: Crash on empty input #12', true], ['acme/app#13: Crash on empty input #13', false]]);
  assert.equal(runOutcome(t.runs![1].meta), 'not resolved');
});

test('openhands-eval: an evaluation output whose history holds SDK (V1) events', async () => {
  const rec = (id: string, resolved: boolean) => ({
    instance_id: id, instance: { problem_statement: 'Make the tests pass' }, history: v1Events(),
    metadata: { agent_class: 'CodeActAgent', llm_config: { model: 'litellm_proxy/claude-sonnet-4' } }, metrics: { accumulated_cost: 0.5 },
    test_result: { report: { resolved } },
  });
  const t = await loadTrajectory(writeTemp('output.jsonl', jsonl([rec('django__django-1', true), rec('django__django-2', false)])));
  assert.equal(t.format, 'openhands-eval');
  assert.equal(t.runs?.length, 2);
  const single = await loadRun(corpus('openhands-v1/events.jsonl'));
  assert.deepEqual(t.runs![0].steps.map((s) => s.kind), single.steps.map((s) => s.kind), 'the V1 events read as the openhands-v1 adapter reads them');
  assert.equal(t.runs![0].meta.resolved, true);
  assert.equal(t.runs![1].meta.resolved, false);
  assert.equal(t.runs![0].steps[0].location?.line, 1);
});

test('runs: JSON Lines of ATIF documents, an object holding a list, and trajectories kept as JSON strings', async () => {
  const atif = (i: number) => ({ schema_version: 'ATIF-v1.5', session_id: `s${i}`, agent: { name: 'a', version: '1' }, steps: [{ step_id: 1, source: 'user', message: `task ${i}` }, { step_id: 2, source: 'agent', message: 'done' }] });
  const docs = await loadTrajectory(writeTemp('trajectories.jsonl', jsonl([atif(1), atif(2), atif(3)])));
  assert.equal(docs.format, 'runs');
  assert.deepEqual(docs.runs!.map((r) => r.format), ['atif', 'atif', 'atif']);
  const chat = (q: string) => [{ role: 'user', content: q }, { role: 'assistant', content: 'ok' }];
  const wrapped = await loadTrajectory(writeTemp('rollouts.json', JSON.stringify({ results: [
    { id: 'r1', score: 0.5, conversation: JSON.stringify(chat('first')) },
    { id: 'r2', score: 1, conversation: JSON.stringify(chat('second')) },
  ] })));
  assert.equal(wrapped.format, 'runs');
  assert.deepEqual(wrapped.runs!.map((r) => [r.meta.taskId, r.meta.score, r.steps.length]), [['r1', 0.5, 2], ['r2', 1, 2]]);
  assert.match(wrapped.title, /in "results"/);
});

test('runs: files other formats read whole are not taken as many runs', async () => {
  for (const file of [corpus('openhands-eval/output.jsonl'), corpus('claude-code/crud.jsonl'), corpus('swe-agent/pydicom__pydicom-1458.traj')]) {
    assert.notEqual((await loadTrajectory(file)).format, 'runs', file);
  }
  const plain = await loadRun(writeTemp('chat.json', JSON.stringify([{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }])));
  assert.equal(plain.format, 'openai-chat');
});

test('runs: τ²-bench results hold their runs beside a list of tasks; each simulation a run, billed from the agent\'s own recorded calls, its failed tool call an error', async () => {
  // Real results (sierra-research/tau2-bench, MIT): two of the 50 simulations and their tasks. Before,
  // "no format we know" opened one simulation's messages and priced nothing.
  const t = await loadTrajectory(fixture('runs/tau2-airline-two-simulations.json'));
  assert.equal(t.format, 'runs');
  assert.equal(t.runs.length, 2);
  assert.deepEqual(t.runs.map((r) => r.meta.model), ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5-20250929']);
  // Each run's reward (under reward_info) is on its node, as a top-level `reward` is.
  assert.deepEqual(t.runs.map((r) => runOutcome(r.meta)), ['reward 1 · trial 0', 'reward 1 · trial 0']);
  // The agent's calls record their cost; the bill is theirs (agent_cost), not the user simulator's.
  const bills = t.runs.map((r) => billRun(r));
  assert.deepEqual(bills.map((b) => b.label), ['recorded', 'recorded']);
  assert.ok(Math.abs(bills[0].cost! - 0.441693) < 1e-6 && Math.abs(bills[1].cost! - 0.476751) < 1e-6, bills.map((b) => b.cost).join(', '));
  // `error: true` on the tool's message is the harness's verdict.
  const failed = t.runs[1].steps.filter((s) => s.isError);
  assert.equal(failed.length, 1);
  assert.match(failed[0].text, /^Error: Payment amount does not add up, total price is 375, but paid 299/);
  assert.equal(t.runs[0].steps.filter((s) => s.isError).length, 0);
});
