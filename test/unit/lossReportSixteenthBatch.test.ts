import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { extractFacts } from '../../src/core/compaction';
import { errorOf, exitCodeOf } from '../../src/core/compaction/facts/outcomes';
import { stepFailed } from '../../src/core/compaction/facts/verdict';
import { fixture } from '../helpers/paths';
import { loadRun } from '../helpers/runs';
import { entityTexts, resultWith } from '../helpers/lossReport';

// What the loss report read wrong on three real Gemini CLI sessions labelled blind in session 55
// (issue 22), sixteenth batch: the kind of run the locked third holds and the held-out set had few
// of. Seventeenth batch: two chats shared from Gemini CLI as Markdown (a CTF solved with MCP
// analysis tools, a Rust CLI built with cargo). Each test reads the real text of a fixture.

const ARCHIVE = fixture('gemini-cli/aim-session-archive-hooks.json');
const URLVALIDATOR = fixture('gemini-cli/aim-django-urlvalidator-benchmark.json');
const POMODORO = fixture('gemini-cli/pomodoro-refused-replace.json');
const CTF = fixture('gemini-cli/ctf-agent-ezrop-pwn.md');
const RUST = fixture('gemini-cli/rust-skills-csv-json-cli.md');

const run = loadRun;
const texts = entityTexts;

test('Gemini CLI\'s later shell answer names an exit code only when it is not 0: one that names none exited 0, and a warning it printed is no error', async () => {
  const r = await run(ARCHIVE);
  // `gemini --list-sessions` printed a keychain error, fell back and went on; the answer has no `Exit Code:` line.
  const warned = resultWith(r, 'Keychain initialization encountered an error');
  assert.doesNotMatch(warned.text, /Exit Code:/);
  assert.equal(warned.exitCode, 0);
  assert.equal(stepFailed(warned, r.steps), false);
  assert.ok(!texts(r, 'error').some((t) => /Keychain/.test(t)), texts(r, 'error').join('\n'));
  // The answer that states one keeps it, and fails.
  const missing = resultWith(r, "ls: cannot access '.gemini/settings.json'");
  assert.equal(missing.exitCode, 2);
  assert.equal(stepFailed(missing, r.steps), true);
  // Its error is what ls said, without the shell tool's `Output: ` before it.
  const errors = texts(r, 'error');
  assert.ok(errors.includes("ls: cannot access '.gemini/settings.json': No such file or directory"), errors.join('\n'));
  assert.ok(!errors.some((t) => t.startsWith('Output: ')), errors.join('\n'));
  // The exit status is the same in a session of the earlier shape, where every answer states it.
  const django = await run(URLVALIDATOR);
  assert.equal(resultWith(django, 'python: command not found').exitCode, 127);
});

test('a list of commands that failed read none of the files its last command was to read, nor one the output says is missing', async () => {
  const r = await run(ARCHIVE);
  // `ls -la .gemini/settings.json && cat .gemini/settings.json && cat hooks/HOOKS_INDEX.md` exited 2 at the ls.
  const call = r.steps.find((s) => s.kind === 'tool_call' && (s.tool?.args ?? '').includes('cat hooks/HOOKS_INDEX.md'))!;
  const reads = extractFacts(r, r.steps.map((s) => s.index)).reads.filter((x) => x.step === call.index);
  assert.deepEqual(reads.map((x) => [x.text, x.failed === true]), [['.gemini/settings.json', true], ['hooks/HOOKS_INDEX.md', true]]);
  assert.ok(!texts(r, 'file').includes('hooks/HOOKS_INDEX.md'), texts(r, 'file').join('\n'));
});

test('unittest of Python 3.11 names the whole test id in its parentheses: the method is not added twice', async () => {
  const r = await run(URLVALIDATOR);
  const tests = texts(r, 'test');
  assert.ok(tests.includes('validators.tests.TestValidators.test_validators'), tests.join('\n'));
  assert.ok(!tests.some((t) => t.endsWith('.test_validators.test_validators')), tests.join('\n'));
});

test('an edit the tool refused with a sentence of prose, quoting code after it, has that sentence as its error', async () => {
  const r = await run(POMODORO);
  const errors = texts(r, 'error');
  assert.ok(errors.some((t) => t.startsWith('A secondary check by an LLM determined that no changes were necessary to fulfill the instruction.')), errors.join('\n'));
  assert.ok(!errors.some((t) => /^edit of .* failed$/.test(t)), errors.join('\n'));
});

test('a tool that answers with its streams and status (`{"success":false,"stdout","stderr","return_code":1}`) failed with that status, and its error is what it printed', async () => {
  const r = await run(CTF);
  const gdb = resultWith(r, 'Error in sourced command file');
  assert.equal(exitCodeOf(gdb), 1);
  assert.equal(stepFailed(gdb, r.steps), true);
  const errors = texts(r, 'error');
  // A diagnostic led by its file's path is a message, not a comment of code.
  assert.ok(errors.includes('/tmp/ctf_workspace/gdb_commands.txt:4: Error in sourced command file:'), errors.join('\n'));
  // A program that printed its usage and exited 1 was called wrong: the usage line says how.
  assert.ok(errors.includes('Usage: ./find name address [name address ...]'), errors.join('\n'));
  // An HTTP API's problem details in what a tool printed say the request failed (the tool itself went through).
  const problem = resultWith(r, "None is not of type 'object'");
  assert.equal(stepFailed(problem, r.steps), false);
  assert.equal(errorOf(problem, true)?.text, "400 Bad Request: None is not of type 'object'");
});

test('a failed check that prints a diff (`cargo fmt --check`) reports its first line, not a line of the code it quotes', async () => {
  const r = await run(RUST);
  const errors = texts(r, 'error');
  assert.ok(errors.some((t) => /^Diff in \/Users\/uday\/ml-workspace\/rust-demo\/src\/processor\.rs:17:$/.test(t)), errors.join('\n'));
  assert.ok(!errors.some((t) => /warn!\(/.test(t)), errors.join('\n'));
});

test('a rule stressed in capitals ("NO interactive commands.", "for ALL Python execution") is a constraint without a modal verb', async () => {
  const r = await run(CTF);
  const rules = texts(r, 'constraint');
  assert.ok(rules.some((t) => t.endsWith('NO interactive commands.')), rules.join('\n'));
  assert.ok(rules.some((t) => t.endsWith('Use `run_python_script` for ALL Python execution.')), rules.join('\n'));
});
