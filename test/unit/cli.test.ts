import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli';
import { REPO_ROOT, tempDir, writeTemp } from '../helpers/paths';

const SAMPLE = path.join(REPO_ROOT, 'samples', 'demo-trajectory.json');
const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');
const STATS_KEYS = ['file', 'format', 'records', 'steps', 'turns', 'byKind', 'tools', 'chars', 'warnings', 'coverage'];

const run = runCli;

const scratchpad = [
  'Fix the flaky upload test (ABC-123).',
  'Previous Action: run_tests',
  "Previous Action Input: {'path': 'tests/test_upload.py'}",
  'Observation: 1 failed, 12 passed',
  'Previous Action: read_file',
  "Previous Action Input: {'path': 'app/upload.py'}",
  'Observation: def upload(): ...',
  'Previous Action: run_tests',
  "Previous Action Input: {'path': 'tests/test_upload.py'}",
  'Observation: 13 passed',
].join('\n');

test('cli: stats --json prints exactly one JSON object with the documented keys', async () => {
  const { code, out, err } = await run('stats', SAMPLE, '--json');
  assert.equal(code, 0, err);
  assert.equal(err, '');
  const lines = out.trimEnd().split('\n');
  assert.equal(lines.length, 1, 'one line, one object');
  const stats = JSON.parse(lines[0]);
  assert.deepEqual(Object.keys(stats).sort(), [...STATS_KEYS].sort());
  assert.equal(stats.file, SAMPLE);
  assert.equal(stats.format, 'openai-chat');
  assert.equal(stats.byKind.tool_call, stats.byKind.tool_result, 'every call in the sample is answered');
  assert.deepEqual(stats.warnings, []);
});

test('cli: human-readable stats name the format and count steps and tools', async () => {
  const file = writeTemp('scratchpad.txt', scratchpad);
  const { code, out } = await run('stats', file);
  assert.equal(code, 0);
  assert.ok(out.includes(file), 'names the file');
  assert.match(out, /format\s+katalyst/);
  assert.match(out, /steps\s+7\n/, 'task + 3 calls + 3 results');
  assert.match(out, /tool_call\s+3\n/);
  assert.match(out, /run_tests\s+2\n/);
  assert.match(out, /read_file\s+1\n/);
});

test('cli: a file in no known format exits 2, naming the file and the formats tried', async () => {
  const file = writeTemp('settings.json', JSON.stringify({ editor: { fontSize: 14 } }));
  const { code, out, err } = await run('stats', file, '--json');
  assert.equal(code, 2);
  assert.equal(out, '', 'nothing on stdout, so a pipe gets no half result');
  assert.ok(err.includes(file), err);
  assert.match(err, /Formats tried: .*openai-chat/);
  assert.match(err, /katalyst/);
  const missing = await run('stats', path.join(path.dirname(file), 'nope.json'));
  assert.equal(missing.code, 2);
  assert.match(missing.err, /nope\.json: no such file/);
});

test('cli: wrong usage exits 1 with the usage text', async () => {
  for (const argv of [[], ['frobnicate'], ['stats'], ['stats', 'a.json', 'b.json'], ['stats', SAMPLE, '--bogus'], ['stats', SAMPLE, '--max-size-mb', 'lots']]) {
    const { code, err, out } = await run(...argv);
    assert.equal(code, 1, `argv ${JSON.stringify(argv)}`);
    assert.match(err + out, /Usage: agent-trace-lens/, `argv ${JSON.stringify(argv)} shows usage`);
  }
  const help = await run('--help');
  assert.equal(help.code, 0);
  assert.match(help.out, /stats FILE/);
});

test('cli: --max-size-mb refuses a file over the limit with exit 2', async () => {
  const { code, err } = await run('stats', SAMPLE, '--max-size-mb', '0.01');
  assert.equal(code, 2);
  assert.match(err, /over the limit/);
});

test('cli: the shipped sample is the demo the README promises', () => {
  const size = fs.statSync(SAMPLE).size;
  assert.ok(size >= 150 * 1024 && size <= 400 * 1024, `sample is ${size} bytes`);
  const sample = JSON.parse(fs.readFileSync(SAMPLE, 'utf8'));
  assert.equal(sample.model, 'gpt-4o');
  const calls = sample.messages.flatMap((m: { tool_calls?: unknown[] }) => m.tool_calls ?? []);
  assert.ok(calls.length >= 50 && calls.length <= 80, `${calls.length} tool calls`);
  assert.match(sample.messages[1].content, /ABC-123/);
  assert.equal(sample.messages.at(-1).role, 'assistant');
});

test('cli: the built dist/cli.js runs stats --json on the sample', () => {
  assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`npm run build\` first (npm test does it before the unit tests).`);
  const result = spawnSync(process.execPath, [CLI, 'stats', SAMPLE, '--json'], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  const stats = JSON.parse(result.stdout);
  assert.equal(stats.format, 'openai-chat');
  assert.ok(stats.tools.bash > 0 && stats.tools.edit_file > 0, JSON.stringify(stats.tools));
  assert.equal(stats.turns, 1);
});

test("cli: the README's main command, as written, runs twice in a row (the second replaces its own report)", () => {
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const line = /^npm ci && npm run build && npx agent-trace-lens (.+)$/m.exec(readme);
  assert.ok(line, 'the README shows the main command');
  const args = line[1].split(' ');
  const dir = tempDir();
  fs.mkdirSync(path.join(dir, 'samples'));
  fs.copyFileSync(SAMPLE, path.join(dir, 'samples', 'demo-trajectory.json'));
  for (const attempt of [1, 2]) {
    const result = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: 'utf8' });
    assert.equal(result.status, 0, `run ${attempt}: ${result.stderr}`);
    assert.match(fs.readFileSync(path.join(dir, 'demo-report.html'), 'utf8'), /<html/i);
  }
});

test('the shipped sample is exactly what scripts/generate-sample.mjs writes', () => {
  const fresh = path.join(tempDir(), 'demo.json');
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'generate-sample.mjs'), fresh]);
  const committed = fs.readFileSync(path.join(REPO_ROOT, 'samples', 'demo-trajectory.json'), 'utf8');
  assert.equal(fs.readFileSync(fresh, 'utf8'), committed, 'regenerate the sample with: node scripts/generate-sample.mjs');
});

test('cli: output piped into `head` ends quietly with exit 0 when head has read enough (no EPIPE trace)', () => {
  assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`npm run build\` first`);
  // Thousands of matching lines, far more than a pipe holds: the CLI is still writing when head leaves.
  const messages = [{ role: 'user', content: 'Count to 4000.' }, ...Array.from({ length: 4000 }, (_, i) => ({ role: 'assistant', content: `number ${i} of the count, said in a line long enough to fill the pipe` }))];
  const big = writeTemp('count.json', JSON.stringify(messages));
  const result = spawnSync('bash', ['-c', 'set -o pipefail; "$0" "$1" search "$2" number | head -n 1', process.execPath, CLI, big], { encoding: 'utf8' });
  assert.equal(result.stdout.split('\n').filter(Boolean).length, 1, result.stdout);
  assert.equal(result.stderr, '', 'no stack trace');
  assert.equal(result.status, 0);
});
