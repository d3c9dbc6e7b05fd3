import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { test } from 'node:test';
import { classifyCall } from '../../src/core/compaction/facts/calls';
import { errorOf, furtherErrorsOf, testRun } from '../../src/core/compaction/facts/outcomes';
import { userRefsOf } from '../../src/core/compaction/facts/requests';
import { loadTrajectory } from '../../src/core/open';
import { extractEntities } from '../../src/core/report/entities';
import type { Run, Step } from '../../src/core/model';
import { REPO_ROOT } from '../helpers/paths';

// What the loss report read wrong on long sessions of the wild-log set's dev part, labelled blind in
// session 52 (issue 22). Fourth batch: pytest's own markers, an argument parser's synopsis, a
// linter's tally, ExUnit's failures, a call refused before it ran. Fifth batch: a `bash -c` the agent
// typed, Elixir's exceptions, a module's own `Error`, pre-commit's hook lines, pytest's section
// headings, a tracker's lower-case ids.

const wild = (rel: string) => path.join(REPO_ROOT, 'wild', 'files', rel);
const GRIMOIRE = wild('MQFacultyOfArts__PromptGrimoireTool/8c497bed-b719-4cb2-9cc6-2d8a507f51e8.jsonl'); // 376 steps
const SPOTTER = wild('marot__spotter/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl'); // 577 steps
const GRIMOIRE_2 = wild('MQFacultyOfArts__PromptGrimoireTool/c6ee6a00-7b0f-4ea5-abbf-86617c7fd63a.jsonl'); // 447 steps
const SPOTTER_2 = wild('marot__spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl'); // 657 steps

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

test("a `bash -c '…'` the agent typed is the command it ran; a login shell's wrapper is the harness's", () => {
  const call = (command: string): Step => ({ index: 0, kind: 'tool_call', text: '', turn: 1, tool: { name: 'Bash', args: JSON.stringify({ command }) } });
  assert.equal(classifyCall(call("bash -c 'source lib/trace_context.sh; echo ok'")).command, "bash -c 'source lib/trace_context.sh; echo ok'");
  assert.equal(classifyCall(call("/bin/zsh -lc 'mkdir -p out'")).command, 'mkdir -p out');
  assert.equal(classifyCall(call("bash -lc 'ls -la'")).command, 'ls -la');
});

test("Elixir's exceptions are errors as printed, nested ones too; `** (EXIT)` only says the next one is why", async () => {
  const r = await run(SPOTTER_2);
  const mix = resultWith(r, '** (Mix) Could not start application opentelemetry');
  const first = errorOf(mix, true)!;
  assert.equal(first.text, '** (Mix) Could not start application opentelemetry: exited in: :opentelemetry_app.start(:normal, [])');
  assert.deepEqual(furtherErrorsOf(mix, first, 5).map((e) => e.text), ['** (BadMapError) expected a map, got:']);
});

test("a module's own `Error` named with its module is an exception; pre-commit's hook lines are not the findings", async () => {
  const r = await run(GRIMOIRE_2);
  const playwright = resultWith(r, "E           playwright._impl._errors.Error: Page.evaluate: TypeError: Cannot read properties of null (reading 'querySelector')");
  const first = errorOf(playwright, true)!;
  assert.ok([first, ...furtherErrorsOf(playwright, first, 5)].some((e) => e.text === "Error: Page.evaluate: TypeError: Cannot read properties of null (reading 'querySelector')"));
  // `ruff check……Failed`, then ruff's findings, then `ruff format……Passed`: the findings are the errors.
  const hook = r.steps.find((s) => s.kind === 'tool_result' && s.text.includes('ruff check....') && s.text.includes('PLW0603'))!;
  const hookFirst = errorOf(hook, true)!;
  assert.equal(hookFirst.text, 'PLW0603 Using the global statement to update `_current_selection` is discouraged');
  assert.ok(![hookFirst, ...furtherErrorsOf(hook, hookFirst, 5)].some((e) => /\.{5,}/.test(e.text)));
});

test("pytest's section heading names a failed test a cut summary does not; a test named with its file elsewhere is listed once", async () => {
  const r = await run(GRIMOIRE_2);
  const cut = r.steps.filter((s) => s.kind === 'tool_result' && /^_{3,} TestTextSelection\.test_selection_offsets_captured\[chromium\] _{3,}$/m.test(s.text));
  assert.ok(cut.length > 0);
  assert.ok(cut.some((s) => testRun(s, undefined).failing.includes('TestTextSelection.test_selection_offsets_captured[chromium]')));
  const tests = extractEntities(r, r.steps.map((s) => s.index)).filter((e) => e.kind === 'test').map((e) => e.text);
  assert.ok(tests.includes('TestTextSelection.test_selection_offsets_captured[chromium]'), tests.join('\n'));
  assert.ok(tests.includes('tests/e2e/test_text_selection.py::TestVisualHighlight::test_highlight_applied_to_selection[chromium]'), tests.join('\n'));
  assert.ok(!tests.includes('TestVisualHighlight.test_highlight_applied_to_selection[chromium]'), tests.join('\n'));
});

test('a tracker id the person gives in lower case is an identifier; a model, a decade or an architecture is not', async () => {
  const ids = (text: string) => userRefsOf(text).filter((r) => r.kind === 'identifier').map((r) => r.text);
  assert.deepEqual(ids('Run bd show spotter-4te to see the issue details and bd ready to find available subtasks.'), ['spotter-4te']);
  assert.deepEqual(ids('close av-44n.2 and av-2xv when done'), ['av-44n.2', 'av-2xv']);
  assert.deepEqual(ids('use gpt-4o like in the mid-90s on x86-64 with utf-8 and python3-dev'), []);
  const r = await run(SPOTTER_2);
  assert.ok(extractEntities(r, r.steps.map((s) => s.index)).some((e) => e.kind === 'identifier' && e.text === 'spotter-4te'));
});

test("pi-mono (sixth batch): a rule in parentheses or said of the work binds it; an API error the person pasted does not; Biome's × line is an error", async () => {
  const { constraintsOf } = await import('../../src/core/compaction/facts/requests');
  assert.deepEqual(constraintsOf('you can look up the detailed history in /tmp/s.jsonl if you need to (don\'t read the full file!)'), ["don't read the full file!"]);
  assert.deepEqual(constraintsOf('it needs to cover all the things we want to do on a high level'), ['it needs to cover all the things we want to do on a high level']);
  const pasted = [
    'this results in',
    '',
    ' Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.236: `tool_use`',
    ' ids were found without `tool_result` blocks immediately after: toolu_019tYDrbzifrra2KYzmYqWvk. Each',
    ' `tool_use` block must have a corresponding `tool_result` block in the next',
    ' message."},"request_id":"req_011CVvAQm5gLufA1cDeHobKh"}',
    '',
    'You must not inject the bash message between the call and its result.',
  ].join('\n');
  assert.deepEqual(constraintsOf(pasted), ['You must not inject the bash message between the call and its result.']);
  const r = await run(wild('badlogic__pi-mono/before-compaction.jsonl'));
  const biome = r.steps.find((s) => s.kind === 'tool_result' && s.text.includes('× expected a semicolon to end the class property, but found none'))!;
  const first = errorOf(biome, true)!;
  assert.ok([first, ...furtherErrorsOf(biome, first, 5)].some((e) => e.text === 'expected a semicolon to end the class property, but found none'));
});

test("a 400-token hand-over keeps the run's last error, whatever else it must leave out", async () => {
  const { findStrategy, runCompaction } = await import('../../src/core/compaction');
  const { charEstimateCounter } = await import('../../src/core/tokens/counter');
  const { extractFacts } = await import('../../src/core/compaction/facts/facts');
  const r = await run(wild('JanDeDobbeleer__oh-my-posh/full.jsonl'));
  const facts = extractFacts(r, r.steps.slice(0, 718).map((s) => s.index));
  const last = facts.errors[facts.errors.length - 1];
  const summary = (await runCompaction(r, { strategy: findStrategy('summarizing-session')!, range: '0:-2' }, { counter: charEstimateCounter })).summary!;
  const insights = /• Tool Insights:\n((?: {2}- .*\n)*)/.exec(summary)?.[1] ?? '';
  assert.ok(insights.includes(last.text.slice(0, 60)), `${last.text}\n---\n${insights}`);
});

test("versions a bug report gives as values, and ids an API minted, are identifiers the person gave", () => {
  const ids = (text: string) => userRefsOf(text).filter((r) => r.kind === 'identifier').map((r) => r.text);
  // pvlib's issue template (wild dev split) and a pasted API error (pi-mono).
  assert.deepEqual(ids('**Versions:**\n - ``pvlib.__version__``: 0.8.0\n - python: 3.7.4 (default, Aug 13 2019, 20:35:49)'), ['0.8.0', '3.7.4']);
  assert.deepEqual(ids('ids were found without `tool_result` blocks immediately after: toolu_019tYDrbzifrra2KYzmYqWvk. Each'), ['toolu_019tYDrbzifrra2KYzmYqWvk']);
  // A snake_case name is not an id; nor is a version in prose that names no value.
  assert.deepEqual(ids('rename user_interface_component and ship it in 2.0'), []);
});
