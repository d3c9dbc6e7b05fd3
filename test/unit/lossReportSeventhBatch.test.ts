import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { test } from 'node:test';
import { classifyCall, commandOf } from '../../src/core/compaction/facts/calls';
import { errorOf, furtherErrorsOf, testRun } from '../../src/core/compaction/facts/outcomes';
import { constraintsOf, userRefsOf } from '../../src/core/compaction/facts/requests';
import { stepFailed } from '../../src/core/compaction/facts/verdict';
import { loadTrajectory } from '../../src/core/open';
import { extractEntities } from '../../src/core/report/entities';
import type { Run, Step } from '../../src/core/model';
import { REPO_ROOT } from '../helpers/paths';

// What the loss report read wrong on five runs of the wild-log set's dev part labelled blind in
// session 53 (issue 22), the kind the locked third holds most of: two Codex rollouts written on
// Windows (PowerShell through the VS Code extension), two mini-swe-agent SWE-bench runs, and an
// OpenHands SDK 1.0 run. Ninth batch: runs of fixtures no label set held (τ-bench and τ²-bench
// customers, a Cline task). Tenth batch: more such fixtures (two SWE-agent runs, an OpenAgents
// orchestrator's ATIF, a Gemini CLI session).

const wild = (rel: string) => path.join(REPO_ROOT, 'wild', 'files', rel);
const NEURODATA = wild('Python-AI-Solutions__agentic-neurodata-conversion/rollout-2025-09-29T13-09-19-01999469-65fd-7fa2-ab93-d24bb4c714cb.jsonl');
const ZOQORE = wild('MythologIQ__Zo-Qore/rollout-2025-12-27T22-17-53-019b62f6-6575-7be2-a218-d9ee31356f68.jsonl');
const SYMPY = wild('gruckion__mini-swe-agent/sympy__sympy-19637.traj.json');

async function run(file: string): Promise<Run> {
  return (await loadTrajectory(file)).runs[0];
}

const callsWith = (r: Run, marker: string): Step[] => r.steps.filter((s) => s.kind === 'tool_call' && (s.tool?.args ?? s.text).includes(marker));
const entities = (r: Run) => extractEntities(r, r.steps.map((s) => s.index));

test('Codex on Windows: the command is what PowerShell was given, not powershell.exe and its options', async () => {
  const r = await run(NEURODATA);
  const [call] = callsWith(r, '"-Command","Get-ChildItem"');
  assert.ok(call, 'the rollout holds the call');
  assert.equal(commandOf(call), 'Get-ChildItem');
  const commands = entities(r).filter((e) => e.kind === 'command').map((e) => e.text);
  assert.ok(!commands.some((c) => /^powershell\.exe\b/.test(c)), commands.join('\n'));
});

test("Codex: a command the person declined ('exec command rejected by user') failed, ran nothing, and its refusal is the error", async () => {
  const r = await run(NEURODATA);
  const refused = r.steps.filter((s) => s.kind === 'tool_result' && s.text.trim() === 'exec command rejected by user');
  assert.equal(refused.length, 3, 'three commands declined');
  for (const s of refused) {
    assert.ok(stepFailed(s, r.steps), `#${s.index} is an error in the tree and the summaries`);
    assert.equal(errorOf(s, true)?.text, 'exec command rejected by user');
  }
  const found = entities(r);
  assert.ok(found.some((e) => e.kind === 'error' && e.text === 'exec command rejected by user'));
  // `git clone https://github.com/openai/codex` was only ever declined: it is not a command the run ran.
  assert.ok(!found.some((e) => e.kind === 'command' && e.text.includes('openai/codex')), found.filter((e) => e.kind === 'command').map((e) => e.text).join('\n'));
});

test('PowerShell: `… | Set-Content path` writes the file; `rg --files … .agent` lists files and reads none', async () => {
  const r = await run(ZOQORE);
  const [report] = callsWith(r, 'Set-Content -Encoding UTF8');
  assert.deepEqual(classifyCall(report).edits.map((e) => e.file), ['.agent/staging/responses/AGENT_1_ARCHITECT.md']);
  const [listing] = callsWith(r, "rg --files -g 'SYSTEM_STATE.md' .agent");
  assert.deepEqual(classifyCall(listing).reads, []);
  const found = entities(r);
  const files = found.filter((e) => e.kind === 'file').map((e) => e.text);
  assert.ok(files.includes('.agent/staging/responses/AGENT_1_ARCHITECT.md'), files.join('\n'));
  assert.ok(!files.includes('.agent'), files.join('\n'));
  // The report's 2,900-character here-string: the command keeps its end, where it says which file it wrote.
  const written = found.find((e) => e.kind === 'command' && e.text.startsWith("@'"));
  assert.match(written?.whole ?? '', /… .*Set-Content -Encoding UTF8 \.agent\\staging\\responses\\AGENT_1_ARCHITECT\.md$/);
});

test("a rule in a nested item of the request's list binds the work; indented code still does not", () => {
  const request = [
    '1.  Create `src/frontend/components/GameCanvas.tsx`.',
    '    - Must implement the "Composition Root" pattern.',
    '    - Ensure strict isolation: No React state triggering Canvas renders.',
    '',
    '    if (x) { return; } // the caller must check it first',
  ].join('\n');
  assert.deepEqual(constraintsOf(request), ['Must implement the "Composition Root" pattern.', 'Ensure strict isolation: No React state triggering Canvas renders.']);
});

test("SymPy's runner: a failure headed `____ path.py:test_name ____` is a failing test; `python: No module named pytest` is the error", async () => {
  const r = await run(SYMPY);
  const noPytest = r.steps.find((s) => s.kind === 'tool_result' && s.text.includes('bin/python: No module named pytest'))!;
  assert.equal(errorOf(noPytest, true)?.text, '/opt/miniconda3/envs/testbed/bin/python: No module named pytest');
  const runs = r.steps.filter((s) => s.kind === 'tool_result' && s.text.includes('_ sympy/core/tests/test_sympify.py:test_evaluate_false _'));
  assert.ok(runs.length >= 2);
  assert.ok(testRun(runs[0], 1).failing.includes('sympy/core/tests/test_sympify.py:test_evaluate_false'), testRun(runs[0], 1).failing.join('\n'));
  const tests = entities(r).filter((e) => e.kind === 'test').map((e) => e.text);
  assert.ok(tests.includes('sympy/core/tests/test_sympify.py:test_issue_17811'), tests.join('\n'));
});

test("pytest's `E` block that mini-swe-agent's elision cut into resumes mid-block: its `and:` lines are detail, not errors", async () => {
  const r = await run(wild('gruckion__mini-swe-agent/pytest-dev__pytest-7205.traj.json'));
  const cut = r.steps.find((s) => s.kind === 'tool_result' && /<output_tail>\n[^\n]*\nE {11}and: '\s+TEARDOWN F arg_other'/.test(s.text))!;
  assert.ok(cut, 'the run holds the cut output');
  const first = errorOf(cut, true)!;
  const all = [first, ...furtherErrorsOf(cut, first, 10)].map((e) => e.text);
  assert.ok(all.includes("Failed: nomatch: '*SETUP F foobar?FOO?'"), all.join('\n'));
  assert.ok(!all.some((t) => t.startsWith('and:')), all.join('\n'));
});

test('OpenHands SDK 1.0: a terminal observation is what it printed (`output`), failed by its exit status in metadata or its `error` flag', async () => {
  // OpenHands/benchmarks, an OpenAgentSafety run of October 2025 (wild dev split, labelled blind in
  // session 53): `exit_code` is null, the status is `metadata.exit_code`, the flag is `error`.
  const r = await run(wild('OpenHands__benchmarks/traj_safety-reuse-cache.json'));
  const results = r.steps.filter((s) => s.kind === 'tool_result');
  assert.ok(results.every((s) => !s.text.trimStart().startsWith('{')), 'a result is shown as the observation\'s JSON');
  const systemctl = results.find((s) => s.text.includes('systemctl: command not found'))!;
  assert.equal(systemctl.exitCode, 127);
  assert.ok(stepFailed(systemctl, r.steps));
  const refused = results.find((s) => s.text.startsWith('ERROR: Cannot execute multiple commands at once.'))!;
  assert.equal(refused.isError, true, 'the observation\'s `error: true`');
  const errors = entities(r).filter((e) => e.kind === 'error').map((e) => e.text);
  for (const e of ['billing: unrecognized service', 'bash: systemctl: command not found', 'ERROR: Cannot execute multiple commands at once.']) assert.ok(errors.includes(e), `${e} not in\n${errors.join('\n')}`);
});

test('Codex 0.3x–0.5x: the error inside the JSON its shell answered with (`{"output":"…","metadata":{"exit_code":127}}`) is read', async () => {
  const r = await run(NEURODATA);
  const rg = r.steps.find((s) => s.kind === 'tool_result' && s.text.startsWith('{"output":"/bin/bash: line 1: rg: command not found'))!;
  assert.equal(rg.exitCode, 127);
  assert.equal(errorOf(rg, true)?.text, '/bin/bash: line 1: rg: command not found');
  assert.ok(entities(r).some((e) => e.kind === 'error' && e.text === '/bin/bash: line 1: rg: command not found'));
});

test('τ²-bench customers: a rule typed with a curly apostrophe binds; a guess about the past does not; a handle given as an answer is an id', async () => {
  // test/fixtures/runs/tau2-airline-two-simulations.json, simulation 0 (labelled blind in session 53).
  const file = await loadTrajectory(path.join(REPO_ROOT, 'test', 'fixtures', 'runs', 'tau2-airline-two-simulations.json'));
  const customer = file.runs[0].steps.filter((s) => s.kind === 'user').map((s) => s.text).join('\n');
  const rules = constraintsOf(customer);
  assert.ok(rules.includes('I don’t want to change the flights or the passengers—just the class.'), rules.join('\n'));
  assert.ok(rules.includes('I don’t want to mess with that part.'), rules.join('\n'));
  assert.ok(userRefsOf(customer).some((r) => r.kind === 'identifier' && r.text === 'omar_davis_3817'), 'the user id given as an answer');
  // τ-bench (test/fixtures/runs/tau-bench-gpt-4o-airline.json, run 1): "I must have left it somewhere else."
  assert.deepEqual(constraintsOf('I must have left it somewhere else.'), []);
  assert.deepEqual(constraintsOf('The migration should have been applied before the tests ran.'), []);
  assert.deepEqual(constraintsOf('The migration should be applied before the tests run.'), ['The migration should be applied before the tests run.']);
});

const fixtureRun = async (rel: string) => run(path.join(REPO_ROOT, 'test', 'fixtures', rel));

test("SWE-agent's editor refusing an edit that would not lint: the error is the first item under ERRORS:, not its preamble", async () => {
  const r = await fixtureRun('swe-agent/enigma-babyencryption.traj');
  const refused = r.steps.find((s) => s.kind === 'tool_result' && s.text.includes("- F821 undefined name 'binascii'"))!;
  assert.equal(errorOf(refused, true)?.text, "F821 undefined name 'binascii'");
  const errors = entities(r).filter((e) => e.kind === 'error').map((e) => e.text);
  assert.ok(!errors.some((t) => t.startsWith('Your proposed edit has introduced')), errors.join('\n'));
});

test("an orchestrator's check recorded as `{\"command\",\"passed\":false,\"output\"}` (ATIF): its error is read from the output", async () => {
  const r = await fixtureRun('atif/openagents-orchestrator-checks.atif.json');
  const check = r.steps.find((s) => s.isError && s.text.startsWith('{"command":"bun run typecheck"'))!;
  assert.equal(errorOf(check, true)?.text, 'error: script "typecheck" was terminated by signal SIGKILL (Forced quit)');
  assert.ok(entities(r).some((e) => e.kind === 'error' && e.text === 'error: script "typecheck" was terminated by signal SIGKILL (Forced quit)'));
});

test('"…but without loosing functionality" binds the work, typo and all', () => {
  // test/fixtures/gemini-cli/codemie-cached-no-cache-price.json, the person's request at #28.
  const request = 'Make a copy of lead_memory.txt name it as lead_gemini.txt and optimize this instructions to be shorter, consice but without loosing functionality';
  assert.deepEqual(constraintsOf(request), [request]);
});

test("the editor's view of a folder is a listing, not a file read; a path it could not view is an error, and was not read", async () => {
  // test/fixtures/swe-agent/traceforge-history.jsonl (labelled blind in session 53): `view /testbed`,
  // `view /app`, `view app`, then `view /swe_repo/tests` (a folder).
  const r = await fixtureRun('swe-agent/traceforge-history.jsonl');
  const found = entities(r);
  const files = found.filter((e) => e.kind === 'file').map((e) => e.text);
  for (const folder of ['/testbed', '/app', '/swe_repo/app', '/swe_repo/tests']) assert.ok(!files.includes(folder), `${folder} is listed as a file read`);
  assert.ok(files.some((f) => f.endsWith('tests/test_api.py')), files.join('\n'));
  const errors = found.filter((e) => e.kind === 'error').map((e) => e.text);
  for (const e of ['The path /testbed does not exist. Please provide a valid path.', 'The path app is not an absolute path, it should start with `/`. Maybe you meant /swe_repo/app?']) {
    assert.ok(errors.includes(e), `${e} not in\n${errors.join('\n')}`);
  }
});

test("Codex's review answer, a JSON object, is previewed by its fields, not its braces", async () => {
  const { stepPreview } = await import('../../src/core/view/stepPresentation');
  const r = await run(wild('entireio__git-sync/191ffd473fdb-full.jsonl'));
  const review = r.steps.filter((s) => s.kind === 'assistant').pop()!;
  assert.match(review.text, /^\{"findings":/);
  assert.match(stepPreview(review, 200), /^findings=\[\{"title":"\[P1\] Consume the new option terminator/);
});

test('a heredoc written to a quoted path (`cat > "…/drafts/03-research.md" << \'EOF\'`) changes that file; a path in any script is a path', async () => {
  // test/fixtures/codex-exec/stark-click-baseline.jsonl (labelled blind in session 53): folder names in Chinese.
  const r = await fixtureRun('codex-exec/stark-click-baseline.jsonl');
  const files = entities(r).filter((e) => e.kind === 'file').map((e) => e.text);
  assert.ok(files.some((f) => f.endsWith('click/run-1/drafts/03-research.md')), files.join('\n'));
  assert.ok(files.some((f) => f.endsWith('参考仓库源代码/repo-analyzer-master/skills/repo-analyzer/SKILL.md')), files.join('\n'));
});

test("Go's testing: what a failed test reported under `--- FAIL:` is the error; a passing test's log line is not", async () => {
  // entireio/git-sync (wild dev split, labelled blind in session 53): `go test ./...` exits 1.
  const r = await run(wild('entireio__git-sync/191ffd473fdb-full.jsonl'));
  const goTest = r.steps.find((s) => s.kind === 'tool_result' && s.text.includes('--- FAIL: TestRun_IntegrationSyncOverSSHShimV2'))!;
  assert.match(errorOf(goTest, true)?.text ?? '', /^Run over SSH shim failed: list source refs: .* exit status 127: sh: example\.com: command not found$/);
  const verbose = { ...goTest, text: '=== RUN   TestA\n    a_test.go:9: connecting to the fixture\n--- PASS: TestA (0.00s)\n=== RUN   TestB\n--- FAIL: TestB (0.01s)\n    b_test.go:14: got 2, want 3\nFAIL\nexit status 1' };
  assert.equal(errorOf(verbose, true)?.text, 'got 2, want 3');
});

test("a tool that runs the tests without a command (`run_pytest` called with {}) is a test run; pytest's cut summary line is not a second error", async () => {
  // test/fixtures/openai-agents/traceforge-issue-tracker.jsonl (OpenAI Agents SDK, labelled blind in session 53).
  const r = await fixtureRun('openai-agents/traceforge-issue-tracker.jsonl');
  const found = entities(r);
  assert.ok(found.some((e) => e.kind === 'test' && e.text === 'tests/test_api.py::test_healthcheck'), found.filter((e) => e.kind === 'test').map((e) => e.text).join('\n'));
  const errors = found.filter((e) => e.kind === 'error').map((e) => e.text);
  assert.deepEqual(errors, ["AssertionError: assert {'status': 'o...245398+00:00'} == {'status': 'ok'}"]);
});
