import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { describeUnexpected } from '../../src/cli/main';
import { jsonChunks } from '../../src/core/output/jsonChunks';
import { startFakeOpenAiServer } from '../helpers/fakeOpenAiServer';
import { runCli } from '../helpers/cli';
import { corpus, tempDir } from '../helpers/paths';

// Issue 14, "nothing is overwritten": every data-loss case through the real CLI. Each one checks
// the exit code (4: refused write), that the message names the file and the problem without a
// stack trace, and that the trajectory's bytes are the same afterwards.

const chat = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Fix tests/test_card.py' },
  { role: 'assistant', content: 'Looking.', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'bash', arguments: '{"command":"pytest -x"}' } }] },
  { role: 'tool', tool_call_id: 'call_1', content: '1 failed\nexit code 1' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'bash', arguments: '{"command":"cat card.py"}' } }] },
  { role: 'tool', tool_call_id: 'call_2', content: 'def card(): ...' },
  { role: 'assistant', content: 'Fixed it.' },
  { role: 'user', content: 'Run everything.' },
  { role: 'assistant', content: 'All pass.' },
];

const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** A folder with the trajectory `in.json`, and its hash to compare with afterwards. */
function setup(): { dir: string; input: string; hash: string } {
  const dir = tempDir('atl-writes-');
  const input = path.join(dir, 'in.json');
  fs.writeFileSync(input, JSON.stringify(chat, null, 2));
  return { dir, input, hash: sha(input) };
}

function assertRefused(r: { code: number; out: string; err: string }, file: string, problem: RegExp): void {
  assert.equal(r.code, 4, `exit code 4 (refused write); stderr: ${r.err}`);
  assert.ok(r.err.includes(file), `the message names ${file}: ${r.err}`);
  assert.match(r.err, problem);
  assert.doesNotMatch(r.err, /\n\s+at /, 'no stack trace');
  assert.equal(r.err.trim().split('\n').length, 1, `one line: ${r.err}`);
}

const compact = (input: string, ...rest: string[]) => runCli('compact', input, '--strategy', 'trim-last-turns', '--option', 'max_turns=1', ...rest);

test('security.writes: --html to a symlink of the trajectory is refused (compact and simulate), the trajectory is unchanged', async () => {
  const { dir, input, hash } = setup();
  const link = path.join(dir, 'link.json');
  fs.symlinkSync(input, link);
  assertRefused(await compact(input, '--html', link), link, /is the trajectory .*never overwritten/);
  assertRefused(await runCli('simulate', input, '--strategy', 'observation-masking', '--html', link), link, /never overwritten/);
  // --force replaces other files, never the trajectory.
  assertRefused(await compact(input, '--html', link, '--force'), link, /never overwritten/);
  assert.equal(sha(input), hash);
  assert.ok(fs.lstatSync(link).isSymbolicLink(), 'the link is left alone too');
});

test('security.writes: a relative link sub/rel.json -> ../in.json is refused', async () => {
  const { dir, input, hash } = setup();
  fs.mkdirSync(path.join(dir, 'sub'));
  const rel = path.join(dir, 'sub', 'rel.json');
  fs.symlinkSync('../in.json', rel);
  assertRefused(await compact(input, '--out', rel, '--force'), rel, /never overwritten/);
  assertRefused(await compact(input, '--html', rel), rel, /never overwritten/);
  assert.equal(sha(input), hash);
});

test('security.writes: reading through a link and writing to the real file is refused (compact link.json --html in.json)', async () => {
  const { dir, input, hash } = setup();
  const link = path.join(dir, 'link.json');
  fs.symlinkSync(input, link);
  assertRefused(await compact(link, '--html', input, '--force'), input, /never overwritten/);
  assert.equal(sha(input), hash);
});

test('security.writes: a hard link of the trajectory is refused, even with --force', async () => {
  const { dir, input, hash } = setup();
  const hard = path.join(dir, 'hard.json');
  fs.linkSync(input, hard);
  assertRefused(await compact(input, '--out', hard, '--force'), hard, /is the trajectory .*through a link/);
  assertRefused(await runCli('convert', input, '--to', 'atif', '--out', hard, '--force'), hard, /never overwritten/);
  assert.equal(sha(input), hash);
  assert.equal(fs.statSync(input).nlink, 2, 'still the same file under two names');
});

test('security.writes: an event file of a folder trajectory, or any new file inside the folder, is refused', async () => {
  const lines = fs.readFileSync(corpus('openhands-v1/events.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '');
  const folder = path.join(tempDir('atl-writes-'), 'conversation');
  fs.mkdirSync(folder);
  lines.forEach((line, i) => fs.writeFileSync(path.join(folder, `event-${String(i).padStart(5, '0')}.json`), line));
  const event = path.join(folder, 'event-00003.json');
  const before = sha(event);
  assertRefused(await runCli('compact', folder, '--strategy', 'observation-masking', '--out', event, '--force'), event, /event file event-00003\.json of the trajectory folder/);
  const inside = path.join(folder, 'condensed.json');
  assertRefused(await runCli('compact', folder, '--strategy', 'observation-masking', '--out', inside), inside, /inside the trajectory folder/);
  assert.equal(fs.existsSync(inside), false);
  // Through a link to the folder.
  const alias = path.join(path.dirname(folder), 'alias');
  fs.symlinkSync(folder, alias);
  assertRefused(await runCli('compact', folder, '--strategy', 'observation-masking', '--out', path.join(alias, 'x.json')), path.join(alias, 'x.json'), /inside the trajectory folder/);
  assert.equal(fs.existsSync(path.join(folder, 'x.json')), false);
  // A hard link to an event file from outside the folder is the event file too.
  const outside = path.join(path.dirname(folder), 'outside.json');
  fs.linkSync(event, outside);
  assertRefused(await runCli('convert', folder, '--to', 'atif', '--out', outside, '--force'), outside, /event file event-00003\.json/);
  assert.equal(sha(event), before);
  // Beside the folder is fine.
  const beside = path.join(path.dirname(folder), 'condensed.json');
  const ok = await runCli('compact', folder, '--strategy', 'observation-masking', '--out', beside);
  assert.equal(ok.code, 0, ok.err);
  assert.ok(fs.statSync(beside).size > 0);
});

test('security.writes: a folder holding a subfolder named *.json: writing to it is refused with a clean message', async () => {
  const lines = fs.readFileSync(corpus('openhands-v1/events.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '');
  const out = tempDir('atl-writes-');
  const target = path.join(out, 'report.json');
  fs.mkdirSync(target);
  fs.writeFileSync(path.join(out, 'in.jsonl'), lines.join('\n') + '\n');
  assertRefused(await runCli('compact', path.join(out, 'in.jsonl'), '--strategy', 'observation-masking', '--out', target), target, /is a folder/);
  assertRefused(await runCli('compact', path.join(out, 'in.jsonl'), '--strategy', 'observation-masking', '--out', target, '--force'), target, /is a folder/);
  assert.ok(fs.statSync(target).isDirectory());
  // As the input: a folder trajectory holding a subfolder named *.json reads, naming what it skipped.
  const folder = path.join(out, 'conversation');
  fs.mkdirSync(path.join(folder, 'sub.json'), { recursive: true });
  lines.forEach((line, i) => fs.writeFileSync(path.join(folder, `event-${String(i).padStart(5, '0')}.json`), line));
  const stats = await runCli('stats', folder);
  assert.equal(stats.code, 0, stats.err);
  assert.match(stats.out, /sub\.json was skipped: it is a folder/);
  const written = path.join(out, 'condensed.json');
  const ok = await runCli('compact', folder, '--strategy', 'observation-masking', '--out', written);
  assert.equal(ok.code, 0, ok.err);
  assert.ok(fs.statSync(written).isFile());
});

test('security.writes: an existing file is replaced only with --force', async () => {
  const { dir, input, hash } = setup();
  const existing = path.join(dir, 'notes.json');
  fs.writeFileSync(existing, 'my notes');
  assertRefused(await compact(input, '--out', existing), existing, /already exists; pass --force to replace it/);
  assertRefused(await compact(input, '--html', existing), existing, /already exists/);
  assertRefused(await runCli('convert', input, '--to', 'atif', '--out', existing), existing, /already exists/);
  assertRefused(await runCli('simulate', input, '--strategy', 'observation-masking', '--html', existing), existing, /already exists/);
  assert.equal(fs.readFileSync(existing, 'utf8'), 'my notes');
  const forced = await compact(input, '--out', existing, '--force');
  assert.equal(forced.code, 0, forced.err);
  const written = JSON.parse(fs.readFileSync(existing, 'utf8')) as { messages: { content: string }[] };
  assert.deepEqual(written.messages.map((m) => m.content), ['You are a coding agent.', 'Run everything.', 'All pass.']);
  assert.deepEqual(fs.readdirSync(dir).sort(), ['in.json', 'notes.json'], 'no temporary file is left behind');
  assert.equal(sha(input), hash);
});

test('security.writes: --out X --html X (two outputs, one file) is refused before anything is written', async () => {
  const { dir, input, hash } = setup();
  const both = path.join(dir, 'both.json');
  assertRefused(await compact(input, '--out', both, '--html', both), both, /--out and --html name the same file/);
  assert.equal(fs.existsSync(both), false);
  // Also when one reaches the other through a link.
  const alias = path.join(dir, 'alias.json');
  fs.writeFileSync(both, 'x');
  fs.symlinkSync(both, alias);
  assertRefused(await compact(input, '--out', both, '--html', alias, '--force'), alias, /same file/);
  assert.equal(fs.readFileSync(both, 'utf8'), 'x');
  assert.equal(sha(input), hash);
});

test('security.writes: with --json a bad --out is found before the model is asked (zero requests)', async () => {
  const { dir, input } = setup();
  const server = await startFakeOpenAiServer();
  try {
    server.defaultReply = { text: 'USER_CONTEXT: fix the card test' };
    const bad = path.join(dir, 'no-such-folder', 'out.json');
    const r = await runCli('compact', input, '--strategy', 'openhands-summary', '--range', '2-5', '--base-url', server.baseUrl, '--model', 'local-model', '--yes', '--json', '--out', bad);
    assertRefused(r, bad, /the folder .*no-such-folder does not exist/);
    assert.equal(server.requests.length, 0, 'no request reached the model');
    assert.equal(r.out, '', 'nothing on stdout');
    // The same call with a good --out does ask the model: the check above is what stopped it.
    const good = path.join(dir, 'out.json');
    const ok = await runCli('compact', input, '--strategy', 'openhands-summary', '--range', '2-5', '--base-url', server.baseUrl, '--model', 'local-model', '--yes', '--json', '--out', good);
    assert.equal(ok.code, 0, ok.err);
    assert.equal(server.requests.length, 1);
    assert.equal((JSON.parse(ok.out) as { out: string }).out, good);
  } finally {
    await server.close();
  }
});

test('security.writes: a missing folder and a folder as the target give a clean message and exit 4', async () => {
  const { dir, input, hash } = setup();
  const missing = path.join(dir, 'nope', 'deeper', 'r.html');
  assertRefused(await compact(input, '--html', missing), missing, /does not exist/);
  assertRefused(await runCli('convert', input, '--to', 'atif', '--out', missing), missing, /does not exist/);
  assertRefused(await compact(input, '--out', dir), dir, /is a folder/);
  assertRefused(await runCli('simulate', input, '--strategy', 'observation-masking', '--html', dir, '--force'), dir, /is a folder/);
  // Checked before the trajectory is read: a bad target is reported even when the input is missing too.
  assertRefused(await compact(path.join(dir, 'no-such-input.json'), '--out', missing), missing, /does not exist/);
  // A file where a folder should be.
  const underFile = path.join(input, 'r.html');
  assertRefused(await compact(input, '--html', underFile), underFile, /in\.json is not a folder/);
  assert.equal(sha(input), hash);
});

test('security.writes: the exit codes are in the usage text', async () => {
  const r = await runCli('--help');
  assert.equal(r.code, 0);
  for (const [code, words] of [[0, /success/], [1, /wrong usage/], [2, /the file could not be read/], [3, /a model was asked for, and the result is the strategy's fall-back/], [4, /an output was refused or could not be written/]] as const) {
    assert.match(r.out, new RegExp(`\\n\\s+${code}\\s+${words.source}`), `exit code ${code}`);
  }
});

test('security.writes: the JSON writer makes JSON.stringify\'s text in bounded pieces, at any depth and length', () => {
  for (const file of ['openhands-v0/basic.json', 'mini-swe-agent/sphinx-doc__sphinx-9711.traj.json']) {
    const value: unknown = JSON.parse(fs.readFileSync(corpus(file), 'utf8'));
    for (const indent of [0, 2]) assert.equal([...jsonChunks(value, indent, 4096)].join(''), JSON.stringify(value, null, indent), `${file} indent ${indent}`);
  }
  const odd = { a: undefined, b: [undefined, () => 1, NaN, -0, Infinity], c: new Date(0), d: '\u2028"\\\u0000😀', e: {}, f: [] };
  assert.equal([...jsonChunks(odd, 2)].join(''), JSON.stringify(odd, null, 2));
  // 3 MB of one string, with a surrogate pair across every 1 MB boundary: pieces stay bounded.
  const long = ('x'.repeat((1 << 20) - 1) + '😀').repeat(3);
  const pieces = [...jsonChunks({ long }, 2, 1 << 16)];
  assert.ok(pieces.length >= 3);
  assert.ok(Math.max(...pieces.map((p) => p.length)) <= (1 << 20) + (1 << 16) + 16);
  assert.equal(JSON.parse(pieces.join('')).long, long);
  // Nested deeper than JSON.stringify can go.
  let deep: unknown = 'bottom';
  for (let i = 0; i < 20_000; i++) deep = [deep];
  assert.throws(() => JSON.stringify(deep), RangeError);
  const text = [...jsonChunks(deep)].join('');
  assert.equal(text, '['.repeat(20_000) + '"bottom"' + ']'.repeat(20_000));
});

test('security.writes: an unexpected error is one line without a stack, unless ATL_DEBUG=1', () => {
  const saved = process.env.ATL_DEBUG;
  try {
    delete process.env.ATL_DEBUG;
    const e = new RangeError('Invalid string length\nsecond line');
    const line = describeUnexpected(e);
    assert.equal(line, 'agent-trace-lens: unexpected error: Invalid string length (ATL_DEBUG=1 shows where)\n');
    process.env.ATL_DEBUG = '1';
    assert.match(describeUnexpected(e), /RangeError: Invalid string length[\s\S]*\n\s+at /);
  } finally {
    if (saved === undefined) delete process.env.ATL_DEBUG;
    else process.env.ATL_DEBUG = saved;
  }
});
