import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { test } from 'node:test';
import { loadTrajectory } from '../../src/core/open';
import { findStrategy, runCompaction } from '../../src/core/compaction';
import { stepFailed } from '../../src/core/compaction/facts/verdict';
import { charEstimateCounter } from '../../src/core/tokens';
import { fixture, REPO_ROOT } from '../helpers/paths';
import { loadRun } from '../helpers/runs';

// `codex exec --json`'s event stream was "not a trajectory in any format we know" (a real 2026 run,
// yuanyuanyuan/stark-repo-analyzer-skill, MIT; two wild-log dev files of atomize-hq/agent-wrappers).

test('codex-exec: items become steps, each command a call paired with its completed result and exit code; Codex\'s error item is an error', async () => {
  const run = await loadRun(fixture('codex-exec/stark-click-baseline.jsonl'));
  assert.equal(run.format, 'codex-exec');
  assert.equal(run.meta.sessionId, '019f5544-b709-7f40-a849-b8c16aeb9eed');
  const calls = run.steps.filter((s) => s.kind === 'tool_call');
  const results = run.steps.filter((s) => s.kind === 'tool_result');
  // The todo list started before the other items completed and completed last: paired by item id, not by order.
  for (const r of results) assert.equal(run.steps[r.answers!].label, r.label, `result ${r.index} answers an item of its own type`);
  assert.equal(run.steps[results.at(-1)!.answers!].tool!.name, 'todo_list', 'the last result is the todo list started earlier');
  assert.deepEqual(new Set(results.map((r) => r.answers)), new Set(calls.map((c) => c.index)), 'every call answered');
  const commands = calls.filter((c) => c.tool!.name === 'shell');
  assert.equal(commands.length, 6);
  assert.ok(results.filter((r) => r.label === 'command_execution').every((r) => r.exitCode === 0 && !stepFailed(r, run.steps)));
  const notice = run.steps.find((s) => s.label === 'error')!;
  assert.match(notice.text, /^Skill descriptions were shortened/);
  assert.equal(notice.isError, true);
  assert.equal(run.steps.filter((s) => s.kind === 'assistant').length, 7, 'each agent_message item');
  assert.ok(run.steps.some((s) => s.kind === 'thought' && s.label === 'reasoning'));
});

test('codex-exec: a summary reads the commands inside zsh -lc, the files a file_change touched and the todo list\'s state', async () => {
  const run = await loadRun(fixture('codex-exec/stark-click-baseline.jsonl'));
  const out = await runCompaction(run, { strategy: findStrategy('openhands-summary')!, range: '0:-1' }, { counter: charEstimateCounter });
  const summary = out.summary!;
  assert.match(summary, /created \/Users\/chuzu\/projests\/stark-repo-analyzer-skill\/docs\/baseline\/physical-runs\/click\/run-1\/metadata\.json/);
  assert.match(summary, /^ {2}- Phase 1-2: Explore codebase, measure size, create metadata\.json \[completed\]$/m);
  assert.match(summary, /^ {2}- Phase 3: External research \+ project docs.* \[pending\]$/m);
  assert.doesNotMatch(summary, /zsh -lc/, 'the wrapper is not the command');
});

test('codex-exec: turn.completed usage is the run\'s recorded totals (wild-log dev file)', async () => {
  const t = await loadTrajectory(path.join(REPO_ROOT, 'wild', 'files', 'atomize-hq__agent-wrappers', 'streaming.jsonl'));
  assert.equal(t.format, 'codex-exec');
  const run = t.runs[0];
  assert.deepEqual([run.meta.recorded?.inputTokens, run.meta.recorded?.outputTokens, run.meta.recorded?.cachedInputTokens], [7499, 111, 0]);
  assert.deepEqual(run.steps.map((s) => s.kind), ['thought', 'assistant']);
});
