import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { test } from 'node:test';
import { errorOf, furtherErrorsOf, testRun } from '../../src/core/compaction/facts/outcomes';
import { loadTrajectory } from '../../src/core/open';
import { extractEntities } from '../../src/core/report/entities';
import type { Run } from '../../src/core/model';
import { REPO_ROOT } from '../helpers/paths';

// What the loss report read wrong on two long Claude Code sessions of the wild-log set's dev part,
// labelled blind in session 52 (issue 22): pytest's own markers, an argument parser's synopsis, a
// linter's tally, ExUnit's failures, a call refused before it ran.

const wild = (rel: string) => path.join(REPO_ROOT, 'wild', 'files', rel);
const GRIMOIRE = wild('MQFacultyOfArts__PromptGrimoireTool/8c497bed-b719-4cb2-9cc6-2d8a507f51e8.jsonl'); // 376 steps
const SPOTTER = wild('marot__spotter/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl'); // 577 steps

async function run(file: string): Promise<Run> {
  return (await loadTrajectory(file)).runs[0];
}

/** The one result whose text holds `marker`. */
function resultWith(r: Run, marker: string) {
  const found = r.steps.filter((s) => s.kind === 'tool_result' && s.text.includes(marker));
  assert.equal(found.length, 1, `results holding ${marker}: ${found.map((s) => s.index)}`);
  return found[0];
}

test("pytest: what a fixture raised is the line pytest marks with E, not the section's heading", async () => {
  const r = await run(GRIMOIRE);
  const setup = resultWith(r, 'E           Failed: Server failed to start within 10 seconds');
  assert.deepEqual(errorOf(setup, true), { step: setup.index, type: 'Failed', text: 'Failed: Server failed to start within 10 seconds' });
  // A message without an exception's name is the error as pytest gave it.
  const fixture = r.steps.find((s) => s.kind === 'tool_result' && s.text.includes("E       fixture 'page' not found"))!;
  assert.equal(errorOf(fixture, true)?.text, "fixture 'page' not found");
  const errors = extractEntities(r, r.steps.map((s) => s.index)).filter((e) => e.kind === 'error').map((e) => e.text);
  assert.ok(!errors.some((t) => /^_+ ERROR at setup of/.test(t)), errors.join('\n'));
  assert.ok(errors.includes('Failed: Server process died. Exit code: 1'), errors.join('\n'));
});

test("an argument parser's synopsis is not the error it prints under it; a linter's tally is not one of its findings", async () => {
  const r = await run(GRIMOIRE);
  const usage = resultWith(r, 'unrecognized arguments: --timeout=30');
  const first = errorOf(usage, true)!;
  assert.equal(first.text, 'pytest: error: unrecognized arguments: --timeout=30');
  assert.deepEqual(furtherErrorsOf(usage, first, 5), []);
  // ruff's full output: the finding above its location, then `Found 1 error.`
  const lint = resultWith(r, 'TC003 Move standard library import `collections.abc.Callable`');
  assert.equal(errorOf(lint, true)?.text, 'TC003 Move standard library import `collections.abc.Callable` into a type-checking block');
  const errors = extractEntities(r, r.steps.map((s) => s.index)).filter((e) => e.kind === 'error').map((e) => e.text);
  assert.ok(!errors.some((t) => /^Found \d+ errors?\.$|usage: pytest/.test(t)), errors.join('\n'));
});

test('ExUnit: a failed test is named as ExUnit names it, and what failed is the line under its location', async () => {
  const r = await run(SPOTTER);
  const mix = resultWith(r, 'Assertion with == failed');
  const t = testRun(mix, 2);
  assert.deepEqual(t.failing, ['test sync_session_file/2 is idempotent — repeated sync does not duplicate messages']);
  assert.equal(t.outcome, '13 tests, 1 failure');
  assert.equal(t.ok, false);
  assert.equal(errorOf(mix, true)?.text, 'Assertion with == failed');
  const entities = extractEntities(r, r.steps.map((s) => s.index));
  assert.ok(entities.some((e) => e.kind === 'test' && e.text === 'test sync_session_file/2 is idempotent — repeated sync does not duplicate messages'));
  assert.ok(!entities.some((e) => e.kind === 'error' && /^1\) test /.test(e.text)));
});

test('a command whose permission request failed ran nothing: its refusal is an error, the command is not listed as run', async () => {
  const r = await run(GRIMOIRE);
  const refusal = r.steps[155];
  assert.equal(refusal.text, 'Tool permission request failed: AbortError');
  const call = r.steps[refusal.answers!];
  assert.match(call.tool!.args, /uv run python -m promptgrimoire &/);
  const entities = extractEntities(r, r.steps.map((s) => s.index));
  assert.ok(entities.some((e) => e.kind === 'error' && e.text === 'Tool permission request failed: AbortError'));
  assert.ok(!entities.some((e) => e.kind === 'command' && e.text.startsWith('uv run python -m promptgrimoire &')), entities.filter((e) => e.kind === 'command').map((e) => e.text).join('\n'));
  // A command that ran and failed is still listed.
  assert.ok(entities.some((e) => e.kind === 'command' && /--timeout=30/.test(e.text)));
});
