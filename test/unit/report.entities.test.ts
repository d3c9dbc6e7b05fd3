import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { findStrategy, runCompaction } from '../../src/core/compaction';
import { loadTrajectory } from '../../src/core/open';
import type { Run } from '../../src/core/model';
import { extractEntities, forgottenEntities } from '../../src/core/report/entities';
import { buildReport } from '../../src/core/report/viewModel';

import { StepBuilder } from '../../src/core/steps';
import { charEstimateCounter } from '../../src/core/tokens/counter';
import { runCli } from '../helpers/cli';
import { addCall, builtRun } from '../helpers/builtRuns';
import * as path from 'node:path';
import { corpus, REPO_ROOT } from '../helpers/paths';

function run(): Run {
  const b = new StepBuilder();
  let n = 0;
  const call = (name: string, args: object, output: string) => {
    const id = `c${++n}`;
    b.add({ kind: 'tool_call', text: JSON.stringify(args), tool: { name, args: JSON.stringify(args), callId: id } });
    b.add({ kind: 'tool_result', text: output, tool: { name: '', args: '', callId: id } });
  };
  b.add({ kind: 'system', text: 'sys' });
  b.add({ kind: 'user', text: 'Order ABC-123 fails to save; see https://example.com/issues/7. You must not change the public API. Files are UTF-8; GPT-4 wrote the regex [A-Z0-9-].' }); // 1
  call('bash', { command: 'ls src' }, 'billing/\ncard.py\nREADME.md\nsetup.py'); // 2,3
  b.add({ kind: 'assistant', text: 'The class for this is in card.py, and the function that parses it is next.' }); // 4
  call('str_replace_editor', { command: 'view', path: '/repo/src/card.py' }, '1\tdef parse_amount(s):\n2\t    raise ValueError("bad")'); // 5,6
  call('bash', { command: 'pytest tests/test_card.py -x' }, 'FAILED tests/test_card.py::test_float - ValueError: could not convert string to float: \'1,5\'\n1 failed in 0.1s\n[The command completed with exit code 1.]'); // 7,8
  call('str_replace_editor', { command: 'str_replace', path: '/repo/src/card.py', old_str: 'float(s)', new_str: 'float(s.replace(",", "."))' }, 'The file /repo/src/card.py has been edited.'); // 9,10
  call('str_replace_editor', { command: 'str_replace', path: '/repo/src/totals.py', old_str: 'x', new_str: 'y' }, 'ERROR:\nNo replacement was performed, old_str `x` did not appear verbatim in /repo/src/totals.py.'); // 11,12
  b.add({ kind: 'assistant', text: 'Now run the tests again.' }); // 13
  call('bash', { command: 'pytest tests/test_card.py -x' }, '3 passed in 0.1s\n[The command completed with exit code 0.]'); // 14,15
  b.add({ kind: 'assistant', text: 'Fixed in /repo/src/card.py; order ABC-123 saves.' }); // 16
  const steps = b.finish();
  return { format: 'openai-chat', title: 'card', source: { path: '/tmp/card.json', size: 0 }, steps, meta: {}, warnings: [], records: steps.length };
}

test('entities are what the run acted on, not listings, prose or version strings', () => {
  const t = run();
  const found = extractEntities(t, t.steps.map((s) => s.index));
  const has = (kind: string, text: string) => found.some((e) => e.kind === kind && e.text === text);
  assert.ok(has('file', '/repo/src/card.py'), 'edited by an edit that went through');
  assert.equal(found.find((e) => e.text === '/repo/src/card.py')?.detail, 'edited');
  assert.ok(!has('file', '/repo/src/totals.py'), 'an edit that failed changed nothing');
  assert.ok(found.some((e) => e.kind === 'error' && /No replacement was performed/.test(e.text)), 'but its failure is an error');
  assert.ok(has('test', 'tests/test_card.py::test_float'));
  assert.ok(has('error', "ValueError: could not convert string to float: '1,5'"));
  assert.ok(has('command', 'pytest tests/test_card.py -x'));
  assert.equal(found.find((e) => e.kind === 'command' && e.text === 'pytest tests/test_card.py -x')?.detail, 'exit 1, exit 0', 'with its exit status each time it ran');
  assert.ok(has('url', 'https://example.com/issues/7'));
  assert.ok(has('identifier', 'ABC-123'));
  assert.ok(found.some((e) => e.kind === 'constraint' && /must not change the public API/.test(e.text)));
  for (const noise of ['setup.py', 'README.md', 'billing', 'UTF-8', 'GPT-4', 'Z0-9', 'for', 'that', 'this', 'parse_amount']) {
    assert.ok(!found.some((e) => e.text === noise), `"${noise}" is not an entity`);
  }
});

test('where an entity survives: the summary, the context still readable, or lost; masking keeps nothing "in summary"', async () => {
  const t = run();
  const masked = await runCompaction(t, { strategy: findStrategy('observation-masking')!, range: '2-12', options: { n: 1 } }, { counter: charEstimateCounter });
  const m = forgottenEntities(t, masked);
  assert.ok(m.length > 0);
  assert.ok(m.every((e) => e.where !== 'summary'), 'no summary, so nothing is kept in one');
  const error = m.find((e) => e.kind === 'error' && e.text.startsWith('ValueError'))!;
  assert.equal(error.where, 'lost', 'an error inside a masked output is not readable any more');
  const command = m.find((e) => e.kind === 'command' && e.text.startsWith('pytest'))!;
  assert.equal(command.where, 'context', 'the call that ran it is still there');

  const summary = await runCompaction(t, { strategy: findStrategy('openhands-summary')!, range: '2-12' }, { counter: charEstimateCounter });
  const s = forgottenEntities(t, summary);
  assert.equal(s.find((e) => e.text === '/repo/src/card.py')?.where, 'summary');
  assert.equal(s.find((e) => e.kind === 'test')?.where, 'summary');
});

test('"lost and needed later": the run met the entity again after the range', async () => {
  const t = run();
  const trimmed = await runCompaction(t, { strategy: findStrategy('trim-last-turns')!, range: '1-12' }, { counter: charEstimateCounter });
  const e = forgottenEntities(t, trimmed);
  const file = e.find((x) => x.text === '/repo/src/card.py')!;
  assert.equal(file.where, 'lost', 'nothing kept up to the end of the range names it');
  assert.equal(file.neededLater, true, 'step 16 names it again');
  assert.equal(file.laterStep, 16);
  assert.equal(e.find((x) => x.kind === 'command' && x.text.startsWith('pytest'))!.laterStep, 14, 'the test command runs again');
  assert.equal(e.find((x) => x.text === 'https://example.com/issues/7')!.neededLater, false);
  assert.equal(e.find((x) => x.kind === 'constraint')!.neededLater, true, "a user's constraint binds the rest of the run");
  const view = buildReport([trimmed], t, { replay: false }).results[0];
  assert.ok(view.entityCounts.lostNeeded >= 3);
  assert.equal(view.entityCounts.inSummary, 0);
});

test('compact --json: entities carry where, firstStep and neededLater', async () => {
  const cli = await runCli('compact', corpus('swe-agent/pydicom__pydicom-1458.traj'), '--strategy', 'observation-masking', '--json');
  assert.equal(cli.code, 0, cli.err);
  const out = JSON.parse(cli.out);
  assert.ok(out.entities.length > 0);
  for (const e of out.entities) {
    assert.deepEqual(Object.keys(e).filter((k) => k !== 'detail'), ['text', 'kind', 'kept', 'where', 'firstStep', 'neededLater']);
    assert.ok(['summary', 'context', 'lost'].includes(e.where));
    assert.notEqual(e.where, 'summary', 'masking has no summary');
    assert.equal(e.kept, e.where !== 'lost');
  }
});

test('on a SWE-agent run: entities come from the forgotten steps, and every lost one is absent from the condensed context', async () => {
  const t = (await loadTrajectory(corpus('swe-agent/marshmallow-code__marshmallow-1867.traj'))).runs[0];
  const r = await runCompaction(t, { strategy: findStrategy('openhands-summary')!, options: { max_size: 20 } }, { counter: charEstimateCounter });
  const entities = forgottenEntities(t, r);
  assert.ok(entities.length >= 6, `${entities.length} entities`);
  assert.ok(entities.some((e) => e.kind === 'file' && e.text.endsWith('src/marshmallow/fields.py') && e.detail === 'edited'));
  const condensed = r.condensed.steps.map((s) => `${s.text}\n${s.tool?.args ?? ''}`).join('\n').toLowerCase();
  for (const e of entities) if (!e.kept) assert.ok(!condensed.includes(e.text.toLowerCase()), `"${e.text}" is marked lost but the condensed context names it`);
  assert.equal(entities.find((e) => e.text === 'reproduce.py' || e.text === '/testbed/reproduce.py')?.kept, true);
  assert.ok(!entities.some((e) => e.text === 'pyproject.toml'), 'a path an `ls` listed is not an entity');
  assert.ok(entities.some((e) => e.kind === 'command' && e.text === 'python reproduce.py'));
});

test('masking leaves every call readable: a command with quotes or newlines is still "in context", only outputs are lost', async () => {
  const t = (await loadTrajectory(corpus('mini-swe-agent/astropy__astropy-12907.traj.json'))).runs[0];
  const r = await runCompaction(t, { strategy: findStrategy('observation-masking')! }, { counter: charEstimateCounter });
  const entities = forgottenEntities(t, r);
  const commands = entities.filter((e) => e.kind === 'command');
  assert.ok(commands.some((c) => /["\n]/.test(c.text) || c.text.includes('"')), 'the run has commands with quotes');
  assert.deepEqual(commands.filter((c) => c.where !== 'context').map((c) => c.text), [], 'no command of a call still in context is reported lost');
  assert.ok(entities.some((e) => e.kind === 'error' && e.where === 'lost'), 'errors that only the masked outputs held are lost');
});

test('the loss report lists what a debugger checks from a forgotten user message: the account id, the failing test, the error type, each with its fate', async () => {
  const b = new StepBuilder();
  b.add({ kind: 'system', text: 'You are a coding agent.' });
  b.add({ kind: 'user', text: 'My account ID is ABC123. The failing test is tests/test_card.py::test_float and the error is ValueError: bad float.' }); // 1
  b.add({ kind: 'assistant', text: 'Let me look at the card parser.' });
  b.add({ kind: 'tool_call', text: '{"command":"ls"}', tool: { name: 'bash', args: '{"command":"ls"}', callId: 'a' } });
  b.add({ kind: 'tool_result', text: 'card.py\n[The command completed with exit code 0.]', tool: { name: '', args: '', callId: 'a' } });
  b.add({ kind: 'user', text: 'Any luck?' }); // 5
  b.add({ kind: 'assistant', text: 'Still looking at test_float.' }); // 6
  const steps = b.finish();
  const t: Run = { format: 'openai-chat', title: 'card', source: { path: '/tmp/card.json', size: 0 }, steps, meta: {}, warnings: [], records: steps.length };
  const trimmed = await runCompaction(t, { strategy: findStrategy('trim-last-turns')!, range: '1-4' }, { counter: charEstimateCounter });
  const e = forgottenEntities(t, trimmed);
  const fate = (kind: string, text: string) => e.find((x) => x.kind === kind && x.text.startsWith(text));
  assert.equal(fate('identifier', 'ABC123')?.where, 'lost', JSON.stringify(e));
  assert.equal(fate('test', 'tests/test_card.py::test_float')?.where, 'lost');
  const error = fate('error', 'ValueError');
  assert.equal(error?.text, 'ValueError: bad float');
  assert.equal(error?.where, 'lost');
  assert.equal(fate('test', 'tests/test_card.py::test_float')?.neededLater, true, 'step 6 names test_float again');

  // A summary that forgets the message keeps all three.
  let summarising = 0;
  for (const id of ['claude-code-compact', 'langchain-summarization', 'katalyst-chat', 'rolling-summary', 'hierarchical-summary', 'summarizing-session']) {
    const summarized = await runCompaction(t, { strategy: findStrategy(id)!, range: '1-4' }, { counter: charEstimateCounter });
    if ((summarized.fates[1] ?? 'kept') === 'kept') continue;
    summarising++;
    const s = forgottenEntities(t, summarized);
    for (const text of ['ABC123', 'tests/test_card.py::test_float', 'ValueError']) {
      assert.ok(s.some((x) => x.text.startsWith(text) && x.kept), `${id}: ${text} is kept: ${JSON.stringify(s)}\n${summarized.summary}`);
    }
  }
  assert.ok(summarising >= 2, `${summarising} summaries forgot the message`);
});

test('test ids keep their brackets whole, in the facts and in the summaries', async () => {
  const t = (await loadTrajectory(new URL('../../../samples/demo-trajectory.json', `file://${__filename}`).pathname)).runs[0];
  const found = extractEntities(t, t.steps.map((s) => s.index)).filter((x) => x.kind === 'test');
  assert.ok(found.some((x) => x.text === 'tests/test_card.py::test_float_exponent[2.5e+20-2.5E+20]'), JSON.stringify(found.map((x) => x.text)));
  for (const x of found) assert.equal((x.text.match(/\[/g) ?? []).length, (x.text.match(/\]/g) ?? []).length, `${x.text} is cut inside its brackets`);
  const r = await runCompaction(t, { strategy: findStrategy('openhands-summary')!, range: '1:-2' }, { counter: charEstimateCounter });
  assert.doesNotMatch(r.summary ?? '', /test_float_exponent\[[^\]\n]*(?:,|$)/m, 'no test id cut inside its brackets');
});

test('a command run again with another count or timeout is one row; one run on another issue is another', async () => {
  // A Codex coordinator's session (wild-log set, EntityProcess/agentv) polls its workers with
  // `workmux capture prepare-cli -n 80`, then `-n 120`, `-n 200`…, and reads thirteen issues.
  const file = path.join(REPO_ROOT, 'wild', 'files', 'EntityProcess__agentv', 'codex-full.jsonl');
  const t = (await loadTrajectory(file)).runs[0];
  const commands = extractEntities(t, t.steps.map((s) => s.index)).filter((e) => e.kind === 'command');
  const polls = commands.filter((e) => e.text.startsWith('workmux capture prepare-cli -n '));
  assert.equal(polls.length, 1, polls.map((e) => e.text).join('\n'));
  assert.ok(polls[0].mentions >= 10, `every poll counted on the one row: ${polls[0].mentions}`);
  assert.match(polls[0].detail ?? '', new RegExp(`run ${polls[0].mentions} times, with other counts`));
  const issues = new Set(commands.map((e) => /^gh issue view (\d+) /.exec(e.text)?.[1]).filter(Boolean));
  assert.ok(['1391', '1368', '1281', '1263', '1139'].every((n) => issues.has(n)), [...issues].join(' '));
});

test('"needed later" and "in summary" hold for the same check run with another count', async () => {
  const b = new StepBuilder();
  b.add({ kind: 'user', text: 'Watch the build log until it finishes.' });
  b.add({ kind: 'tool_call', text: '', tool: { name: 'bash', args: JSON.stringify({ command: 'tail -n 50 build.log' }), callId: 'a' } });
  b.add({ kind: 'tool_result', text: 'compiling…', tool: { name: '', args: '', callId: 'a' } });
  b.add({ kind: 'tool_call', text: '', tool: { name: 'bash', args: JSON.stringify({ command: 'gh run view 4412 --log' }), callId: 'b' } });
  b.add({ kind: 'tool_result', text: 'in progress', tool: { name: '', args: '', callId: 'b' } });
  b.add({ kind: 'assistant', text: 'Still building.' });
  b.add({ kind: 'tool_call', text: '', tool: { name: 'bash', args: JSON.stringify({ command: 'tail -n 200 build.log' }), callId: 'c' } }); // 6
  b.add({ kind: 'tool_result', text: 'done', tool: { name: '', args: '', callId: 'c' } });
  b.add({ kind: 'tool_call', text: '', tool: { name: 'bash', args: JSON.stringify({ command: 'gh run view 4413 --log' }), callId: 'd' } }); // 8
  b.add({ kind: 'tool_result', text: 'ok', tool: { name: '', args: '', callId: 'd' } });
  const steps = b.finish();
  const t: Run = { format: 'openai-chat', title: 'build', source: { path: '/tmp/build.json', size: 0 }, steps, meta: {}, warnings: [], records: steps.length };
  const trimmed = await runCompaction(t, { strategy: findStrategy('trim-last-turns')!, range: '1-5' }, { counter: charEstimateCounter });
  const e = forgottenEntities(t, trimmed);
  assert.equal(e.find((x) => x.text === 'tail -n 50 build.log')?.laterStep, 6, 'the same tail, with 200 lines, ran again');
  assert.equal(e.find((x) => x.text.startsWith('gh run view 4412'))?.neededLater, false, 'another run id is another check');
  const summarised = forgottenEntities(t, { ...trimmed, summary: 'Checked: tail -n 200 build.log (→ done)' });
  assert.equal(summarised.find((x) => x.text === 'tail -n 50 build.log')?.where, 'summary');
});

test('a saved prompt expanded around what the person typed (spec-kit): the constraints listed are theirs, not the prompt author\'s', () => {
  // The shape spec-kit's commands arrive in (a wild Codex rollout, Prometheus-AGS): the typed
  // arguments in a fenced block under "User Input", then the prompt's own steps and rules.
  const template = [
    '## User Input', '', '```text', 'Add audit persistence to the queue service. We want to reuse postgres for audit persistence. Do not add a new database.', '```', '',
    'You **MUST** consider the user input before proceeding (if not empty).', '', '## Outline', '',
    'Given that feature description, do this:', '',
    '1. **Generate a concise short name** (2-4 words) for the branch. You must only ever run this script once per feature.',
    '2. Load the spec template. DO NOT create any checklists that are embedded in the spec.',
    '3. Never exceed 5 total asked questions, and avoid speculative tech stack questions unless the absence blocks functional clarity.',
    '4. All paths must be absolute. Success criteria must be measurable, technology-agnostic and verifiable without implementation details.',
  ].join('\n');
  const b = new StepBuilder();
  b.add({ kind: 'user', text: template });
  b.add({ kind: 'assistant', text: 'Creating the feature branch.' });
  const steps = b.finish();
  const t: Run = { format: 'codex', title: 'spec', source: { path: '/tmp/rollout.jsonl', size: 0 }, steps, meta: {}, warnings: [], records: steps.length };
  const constraints = extractEntities(t, [0, 1]).filter((e) => e.kind === 'constraint').map((e) => e.text);
  assert.deepEqual(constraints, ['We want to reuse postgres for audit persistence.', 'Do not add a new database.'], 'before: the template\'s seven rules, and not the person\'s two');
});

test('one error about other temporary files is one row: the names a program picked at random are not what went wrong', () => {
  // rustup on macOS (a wild Codex rollout, Prometheus-AGS): the same refusal, four times, each with its own temp file.
  const b = new StepBuilder();
  b.add({ kind: 'user', text: 'Run cargo fmt.' });
  for (const [i, name] of ['ry1fzx2tyam4ymju_file', 'c3rvgs0huk8zhzj__file', 'ezmcwyzle953v5t0_file'].entries()) {
    b.add({ kind: 'tool_call', text: '', tool: { name: 'shell', args: '{"command":"cargo fmt"}', callId: `c${i}` } });
    b.add({ kind: 'tool_result', text: `error: could not create temp file /Users/dev/.rustup/tmp/${name}: Operation not permitted (os error 1)`, exitCode: 1, tool: { name: '', args: '', callId: `c${i}` } });
  }
  // A file someone named in /tmp is what went wrong: two of them are two rows.
  for (const name of ['a.txt', 'b.txt']) {
    b.add({ kind: 'tool_call', text: '', tool: { name: 'shell', args: `{"command":"cat /tmp/${name}"}`, callId: name } });
    b.add({ kind: 'tool_result', text: `cat: /tmp/${name}: No such file or directory`, exitCode: 1, tool: { name: '', args: '', callId: name } });
  }
  const steps = b.finish();
  const t: Run = { format: 'codex', title: 'fmt', source: { path: '/tmp/rollout.jsonl', size: 0 }, steps, meta: {}, warnings: [], records: steps.length };
  const errors = extractEntities(t, steps.map((s) => s.index)).filter((e) => e.kind === 'error').map((e) => e.text);
  assert.deepEqual(errors, [
    'error: could not create temp file /Users/dev/.rustup/tmp/ry1fzx2tyam4ymju_file: Operation not permitted (os error 1)',
    'cat: /tmp/a.txt: No such file or directory',
    'cat: /tmp/b.txt: No such file or directory',
  ], 'before: one row per temp file');
});

test('entities of a log shared redacted, of calls cut short, and PowerShell\'s own complaint (new blind-labelled dev runs, session 51)', () => {
  const run = builtRun((b) => {
    // madshn/localpush's rollouts are redacted by their owner: `[REDACTED_TEXT len=3017 sha=f3ffd0ed]`.
    b.add({ kind: 'user', text: '[REDACTED_TEXT len=3017 sha=f3ffd0ed]' });
    const placeholder = '[REDACTED_ARGUMENTS len=46 sha=4cb9a2fc]';
    b.add({ kind: 'tool_call', text: placeholder, tool: { name: 'exec_command', args: placeholder, callId: 'r1' } });
    b.add({ kind: 'tool_result', text: '[REDACTED_OUTPUT len=120 sha=0a1b2c3d]', tool: { name: '', args: '', callId: 'r1' } });
    // A Kimi session whose ReadFile arguments were cut off in the log.
    const cut = '{"path": "/Users/dev/app/docs/e2e-ach.md';
    b.add({ kind: 'tool_call', text: cut, tool: { name: 'ReadFile', args: cut, callId: 'r2' } });
    // Copilot CLI on Windows: the pipe's exit 0 hides PowerShell's "not recognized" (softwaresalt/agent-engram).
    addCall(b, 'powershell', { command: 'bd ready --json 2>&1 | head -50' }, "head: \nLine |\n   2 |  bd ready --json 2>&1 | head -50\n     |                         ~~~~\n     | The term 'head' is not recognized as a name of a cmdlet, function, script file, or executable program.\nCheck the spelling of the name, or if a path was included, verify that the path is correct and try again.\n<exited with exit code 0>");
  }, 'copilot-cli');
  const found = extractEntities(run, run.steps.map((s) => s.index));
  assert.deepEqual(found.filter((e) => e.kind === 'identifier'), [], 'a placeholder\'s hash names no thing');
  assert.deepEqual(found.filter((e) => e.kind === 'command').map((e) => e.text), ['bd ready --json 2>&1 | head -50'], 'placeholders and JSON cut short are no command lines');
  assert.ok(found.some((e) => e.kind === 'error' && e.text.startsWith("The term 'head' is not recognized as a name of a cmdlet")), JSON.stringify(found));
});
