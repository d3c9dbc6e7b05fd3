import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { checkAtif } from '../../src/core/formats/atifRules';
import { findInTrajectory, parseQuery } from '../../src/core/find';
import { loadTrajectory } from '../../src/core/open';
import { runCost } from '../../src/core/pricing/runCost';
import { extractEntities } from '../../src/core/report/entities';
import { billFile, billRunAsHappened } from '../../src/core/simulate';

import { turnsOf } from '../../src/core/steps';
import { loadRun } from '../helpers/runs';
import { runCli } from '../helpers/cli';
import { fixture, writeTemp } from '../helpers/paths';

// Issue 20's Aider findings, each on a real history from a public repository (test/fixtures/SOURCES.md).

const AFI = 'aider/afi-core-gpt-4o.aider.chat.history.md';
const SWARMS = 'aider/swarms-bot-minimax.aider.chat.history.md';

test('aider: a history that is one session header opens as that session with a warning, and converts to ATIF', async () => {
  const file = fixture('aider/prompt-sail-header-only.aider.chat.history.md');
  const t = await loadRun(file);
  assert.equal(t.format, 'aider');
  assert.deepEqual(t.steps.map((s) => [s.kind, s.label, s.text]), [['other', 'session header', 'aider chat started at 2025-01-24 09:22:56']]);
  assert.ok(!t.steps.some((s) => s.kind === 'user'), 'no request');
  assert.match(t.warnings.map((w) => w.message).join('\n'), /no messages, only a session header/);
  assert.equal(t.coverage?.records, 1);
  assert.equal(t.coverage?.read, 1);
  const converted = await runCli('convert', file, '--to', 'atif');
  assert.equal(converted.code, 0, converted.err);
  const doc = JSON.parse(converted.out) as { steps: { source: string; message: string }[] };
  assert.deepEqual(checkAtif(doc), []);
  assert.deepEqual(doc.steps.map((s) => [s.source, s.message]), [['system', 'aider chat started at 2025-01-24 09:22:56']]);
  const stats = await runCli('stats', file, '--json');
  assert.equal(stats.code, 0, stats.err);
});

test('aider: the prose around SEARCH/REPLACE blocks is the assistant\'s reply, not thinking', async () => {
  const t = await loadTrajectory(fixture(AFI));
  const session = t.runs[1];
  const edits = session.steps.filter((s) => s.tool?.name === 'edit');
  assert.deepEqual(edits.map((s) => JSON.parse(s.tool!.args).path), ['sync-afi.sh', 'aider-afi.sh']);
  const reply = session.steps.slice(edits[0].index - 1, edits[1].index + 2);
  assert.deepEqual(reply.map((s) => s.kind), ['assistant', 'tool_call', 'tool_call', 'assistant']);
  assert.match(reply[0].text, /^To implement the `sync-afi` and `aider-afi` commands/);
  assert.match(reply[3].text, /^After creating these files, you can make them executable/);
  // `kind:thinking` finds reasoning only: this model wrote none.
  assert.equal(findInTrajectory(t, parseQuery('kind:thinking')).reduce((n, r) => n + r.steps.length, 0), 0);
  // A reasoning model's <think> block stays a thought beside its reply.
  const swarms = await loadRun(fixture(SWARMS));
  assert.deepEqual(swarms.steps.filter((s) => s.kind === 'thought').map((s) => s.label), ['thinking', 'thinking']);
});

test('aider: what Aider sends the model on its own (edit-format errors, lint output) is an environment step and the files it adds a read, not the person', async () => {
  // Aider 0.86.2: the reply broke the edit format, Aider said so to the model and it answered again.
  const swarms = await loadRun(fixture(SWARMS));
  assert.deepEqual(swarms.steps.map((s) => s.kind), ['other', 'user', 'thought', 'assistant', 'environment', 'thought', 'assistant']);
  const reflection = swarms.steps[4];
  assert.equal(reflection.label, 'aider reflection: The LLM did not conform to the edit format.');
  assert.match(reflection.text, /No filename provided before ``` in file listing/);
  assert.equal(turnsOf(swarms.steps).length, 1, 'one request, one turn');
  assert.deepEqual(swarms.steps.filter((s) => s.usage).map((s) => [s.index, s.usage!.inputTokens, s.usage!.outputTokens]), [[3, 1000, 376], [6, 1400, 61]]);
  // Aider 0.85.1: the model named a file and the person let Aider add it: a read the client made
  // (the file's text goes to the model with the next request), not the person's turn.
  const afi = (await loadTrajectory(fixture(AFI))).runs[1];
  assert.deepEqual(afi.steps.filter((s) => s.kind === 'environment'), []);
  const add = afi.steps.find((s) => s.tool?.name === 'add_to_chat')!;
  assert.deepEqual([JSON.parse(add.tool!.args), add.byClient], [{ paths: ['init_repo.sh'] }, true]);
  assert.equal(afi.steps.find((s) => s.answers === add.index)?.text, 'Add file to the chat? (Y)es/(N)o/(D)on\'t ask again [Yes]: y');
  assert.deepEqual(afi.steps.filter((s) => s.kind === 'user').map((s) => s.text), ['chmod +x ~/AFI_Modular_Repos/*.sh', 'sync-afi\naider-afi']);
  // Aider 0.51: lint output after an edit, sent back once the person said yes.
  const caching = (await loadTrajectory(fixture('aider/aider-caching.aider.chat.history.md'))).runs.flatMap((r) => r.steps);
  const lint = caching.filter((s) => s.kind === 'environment');
  assert.deepEqual(lint.map((s) => s.label), ['aider reflection: Attempt to fix lint errors? y']);
  assert.match(lint[0].text, /# Fix any errors below, if possible\.[\s\S]*E226 missing whitespace around arithmetic operator/);
  // Notices between a request and its first reply (a repo-map warning) are not sent: they stay notices.
  const repoMap = (await loadTrajectory(fixture(AFI))).runs[2].steps.find((s) => /^Repo-map can't include/.test(s.text));
  assert.equal(repoMap?.kind, 'other');
});

test('aider: a request sent again before any reply is one request', async () => {
  // The request and the provider error are Aquaticat/Monochromatic's (wild set); the second sending is put after them.
  const history = [
    '', '# aider chat started at 2025-06-02 11:58:11', '', '> Aider v0.84.0  ', '> Model: openrouter/qwen3-235b-a22b with editor-diff edit format  ', '',
    '#### What can you say about this package?  ',
    '> litellm.BadRequestError: LLM Provider NOT provided. Pass in the LLM provider you are trying to call. You passed model=qwen3-235b-a22b  ', '',
    '#### What can you say about this package?  ', '',
    'It is a monorepo of ES modules.', '', '> Tokens: 2.1k sent, 9 received.  ', '',
    '#### What can you say about this package?  ', '', 'Still a monorepo of ES modules.', '', '> Tokens: 2.2k sent, 9 received.  ', '',
  ].join('\n');
  const t = await loadRun(writeTemp('.aider.chat.history.md', history));
  assert.deepEqual(t.steps.map((s) => s.kind), ['other', 'user', 'other', 'environment', 'assistant', 'user', 'assistant']);
  assert.equal(t.steps[3].label, 'request sent again: What can you say about this package?');
  // Asked again after an answer, it is a request of its own.
  assert.equal(turnsOf(t.steps).length, 2);
});

test('aider: each call is billed at its own "message" figure, the running "session" figure is never added, and no notice counts as a call', async () => {
  const t = await loadTrajectory(fixture(AFI));
  const calls = t.runs.flatMap((r) => r.steps).filter((s) => s.usage);
  // Five calls, each with its own line: "Cost: $0.0089 message, $0.02 session." is $0.0089.
  assert.deepEqual(calls.map((s) => s.usage!.cost), [0.0082, 0.0086, 0.0089, 0.01, 0.0085]);
  const byHand = 0.0082 + 0.0086 + 0.0089 + 0.01 + 0.0085;
  assert.ok(Math.abs((t.meta.recorded?.cost ?? 0) - byHand) < 1e-9, `recorded ${t.meta.recorded?.cost}`);
  // Each session's bill is its calls' recorded figures; the sessions' bills sum to the file's.
  const bills = t.runs.map((run) => runCost(run)).filter((b) => b.calls > 0);
  assert.ok(bills.every((b) => b.label === 'recorded' && b.source === 'per-call'), JSON.stringify(bills.map((b) => [b.label, b.source])));
  assert.equal(bills.reduce((n, b) => n + b.calls, 0), 5);
  const total = bills.reduce((n, b) => n + b.cost!, 0);
  assert.ok(Math.abs(total - byHand) < 1e-9, `bill ${total}`);
  assert.ok(Math.abs(billFile(t).cost! - byHand) < 1e-9, `the file's bill ${billFile(t).cost}`);
  // Aider echoes `aider … --message <a pytest log of many lines>` as one notice; it is the session's
  // start, not a reply, so the run made the two calls its two token lines record, and no third.
  const swarms = await loadRun(fixture(SWARMS));
  assert.match(swarms.steps[0].text, /--message Fix these test failures[\s\S]*MCP ruflo failed to initialize: Connection lost$/m);
  assert.equal(swarms.steps[0].label, 'session start');
  assert.equal(swarms.meta.version, 'v0.86.2');
  const asHappened = billRunAsHappened(swarms);
  assert.equal(asHappened.billing.modelCalls, 2);
  assert.equal(asHappened.bill.calls, 2);
  assert.equal(asHappened.bill.unrecorded, undefined, 'every call the replay finds has its recorded usage');
});

test('aider: a history saved with Windows line ends reads to the same steps as with Unix ones, blank lines inside a reply kept', async () => {
  const lf = fs.readFileSync(fixture(AFI), 'utf8');
  const withBlanks = lf.replace('following command:\n\n```bash', 'following command:\n\n\n\n```bash');
  assert.notEqual(withBlanks, lf, 'the fixture has the reply this test widens');
  const unix = (await loadTrajectory(writeTemp('.aider.chat.history.md', withBlanks))).runs.flatMap((r) => r.steps);
  const windows = (await loadTrajectory(writeTemp('.aider.chat.history.md', withBlanks.replace(/\n/g, '\r\n')))).runs.flatMap((r) => r.steps);
  const shape = (steps: typeof unix) => steps.map((s) => [s.kind, s.label, s.text, s.location?.line]);
  assert.deepEqual(shape(windows), shape(unix));
  assert.ok(unix.some((s) => s.kind === 'assistant' && s.text.includes('following command:\n\n\n\n```bash')), 'the blank lines inside the reply are part of it');
  assert.ok(!windows.some((s) => s.text.includes('\r')), 'no carriage return reaches a step');
});

const OPENCODER = 'aider/opencoder-failed-calls-whole-format.aider.chat.history.md';

test('aider: a model call that raised (litellm.APIError, BadRequestError) and Aider\'s own traceback are errors everywhere; a reply\'s notices are not', async () => {
  const t = await loadTrajectory(fixture(OPENCODER));
  assert.equal(t.runs.length, 4);
  const errors = [...findInTrajectory(t, parseQuery('is:error'))].map(({ run, steps }) => steps.map((i) => [run, t.runs[run].steps[i].label]));
  assert.deepEqual(errors.flat(), [
    [0, 'model call failed: litellm.APIError'],
    [1, 'model call failed: litellm.BadRequestError'],
    // After a reply, adding the files the model named sent the chat again: that call raised inside Aider.
    [3, 'exception: litellm_patch.OpenGPUPatchError'],
  ]);
  // The session whose request was answered, edited and committed has no error.
  assert.ok(!t.runs[2].steps.some((s) => s.isError));
});

test('aider: in the whole edit format the file in the reply is the edit "Applied edit to" answers, and the auto-commit is in the summary\'s version control', async () => {
  const t = await loadTrajectory(fixture(OPENCODER));
  const run = t.runs[2];
  assert.equal(t.coverage?.unpairedResults, 0, 'every result has its call');
  const edit = run.steps.find((s) => s.kind === 'tool_call' && s.tool?.name === 'edit');
  assert.ok(edit, run.steps.map((s) => `${s.kind} ${s.label}`).join('\n'));
  assert.equal(JSON.parse(edit.tool!.args).path, 'shutdown_pc.sh');
  assert.match(JSON.parse(edit.tool!.args).content, /^#!\/bin\/bash\n[\s\S]*sudo shutdown -h \+\$DELAY/);
  const applied = run.steps.find((s) => s.kind === 'tool_result' && s.text === 'Applied edit to shutdown_pc.sh');
  assert.equal(applied?.answers, run.steps.indexOf(edit));
  const commit = run.steps.find((s) => s.label === 'auto-commit')!;
  assert.equal(commit.byClient, true);
  assert.equal(billRunAsHappened(run).billing.modelCalls, 1, 'one reply, one call: Aider\'s own commit is no model request');
  const compacted = await runCli('compact', fixture(OPENCODER), '--run', '2', '--strategy', 'openhands-summary', '--range', `0:${run.steps.length}`, '--json');
  assert.equal(compacted.code, 0, compacted.err);
  const summary = (JSON.parse(compacted.out) as { summary: string }).summary;
  assert.match(summary, /VERSION_CONTROL_STATUS:\n {2}- git commit [^\n]*Commit 22f6ebc feat: add shutdown script/);
  assert.match(summary, /COMPLETED:\n {2}- edited shutdown_pc\.sh/);
});

test('aider: compact and simulate on a file of many sessions say which run they took and which is longest', async () => {
  const { code, err } = await runCli('compact', fixture(OPENCODER), '--strategy', 'observation-masking');
  assert.equal(code, 0, err);
  assert.match(err, /holds 4 runs; this is run 0 \(\d+ steps\), the longest is run 3 \(\d+ steps\)\. --run N picks another/);
  const chosen = await runCli('compact', fixture(OPENCODER), '--strategy', 'observation-masking', '--run', '2');
  assert.doesNotMatch(chosen.err, /holds 4 runs/);
});

test('aider: a traceback after a command, with no request made, is an exception, not a failed model call', async () => {
  const text = [
    '', '# aider chat started at 2026-02-28 22:05:16', '', '> Aider v0.86.2  ', '> Model: Qwen/Qwen3-Coder with whole edit format  ', '',
    '#### /add missing.py  ', '',
    '> Traceback (most recent call last):  ', '> File "aider/commands.py", line 880, in cmd_add  ', '> PermissionError: [Errno 13] Permission denied: \'missing.py\'  ', '',
  ].join('\n');
  const run = await loadRun(writeTemp('.aider.chat.history.md', text));
  const failed = run.steps.filter((s) => s.isError);
  assert.deepEqual(failed.map((s) => s.label), ['exception: PermissionError']);
});

test('aider: a notice Aider sends back unasked (the reply broke the edit format) is a failure the summary and the loss report name', async () => {
  // The real history: the model answered in prose under the `whole` edit format; Aider printed
  // "The LLM did not conform to the edit format." and sent its reason back without asking anyone.
  const t = await loadRun(fixture(SWARMS));
  const reflection = t.steps.find((s) => s.kind === 'environment' && /did not conform to the edit format/.test(s.text))!;
  assert.ok(reflection, 'the reflection is an environment step');
  assert.equal(reflection.isError, true, 'a reply Aider could not apply failed');
  // One the person was asked about first ("Attempt to fix lint errors? y") is not a failure.
  const caching = (await loadTrajectory(fixture('aider/aider-caching.aider.chat.history.md'))).runs.flatMap((r) => r.steps);
  const asked = caching.find((s) => s.kind === 'environment' && /Attempt to fix lint errors\?/.test(s.label ?? ''))!;
  assert.ok(asked && asked.isError !== true, 'an answered question is no failure');
  const errors = extractEntities(t, t.steps.map((s) => s.index)).filter((e) => e.kind === 'error').map((e) => e.text);
  assert.ok(errors.some((e) => /^The LLM did not conform to the edit format/.test(e)), errors.join(' | '));
});

test('aider: a file the person adds (`/add`, or yes to "Add file to the chat?") is a read the loss report lists', async () => {
  const text = [
    '', '# aider chat started at 2026-03-01 10:00:00', '', '> Aider v0.86.2  ', '> Model: gpt-4o with diff edit format  ', '',
    '#### /add src/cart.py  ', '', '> Added src/cart.py to the chat  ', '',
    '#### Fix total() for discounted items.  ', '',
    'Please also add tests/test_cart.py so I can update its test.', '',
    '> Tokens: 1.2k sent, 20 received. Cost: $0.0031 message, $0.0031 session.  ', '> tests/test_cart.py  ', "> Add file to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y  ", '',
    'The discount is applied now.', '',
  ].join('\n');
  const run = (await loadTrajectory(writeTemp('added.aider.chat.history.md', text))).runs[0];
  const adds = run.steps.filter((s) => s.tool?.name === 'add_to_chat').map((s) => JSON.parse(s.tool!.args).paths);
  assert.deepEqual(adds, [['src/cart.py'], ['tests/test_cart.py']]);
  const files = extractEntities(run, run.steps.map((s) => s.index)).filter((e) => e.kind === 'file').map((e) => [e.text, e.detail]);
  assert.deepEqual(files, [['src/cart.py', 'read'], ['tests/test_cart.py', 'read']]);
});
