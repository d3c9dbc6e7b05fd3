import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkFile, markupIn, outOfScope } from '../../scripts/wild/check';
import { assignSplit } from '../../scripts/wild/split';
import { corpus, REPO_ROOT, SHARED } from '../helpers/paths';

// `npm run wild` (issue 20 §5) measured on corpus files; the wild set itself stays out of unit tests.

// The checker looks at what the tree shows. These two logs once showed wrapper tags there (Claude
// Code's /clear and /compact wrappers, mini-swe-agent's <returncode> previews); now they must not.
test('wild: Claude Code /clear and /compact wrappers no longer reach what the tree shows', async () => {
  const row = await checkFile(corpus('claude-code/compact.jsonl'), 'claude-code');
  assert.equal(row.formatOk, true);
  assert.equal(row.markup.count, 0, row.markup.examples.join('\n'));
});

test('wild: mini-swe-agent observation previews no longer start with <returncode>', async () => {
  const row = await checkFile(corpus('mini-swe-agent/sphinx-doc__sphinx-9711.traj.json'), 'mini-swe-agent');
  assert.ok(!row.markup.examples.some((e) => /<returncode>/.test(e)), row.markup.examples.join('\n'));
});

test('wild: the ATIF round trip counts steps and calls before and after reading the export back', async () => {
  const row = await checkFile(corpus('codex/crud.jsonl'), 'codex');
  assert.ok(row.atif.callsBefore > 0);
  assert.equal(row.atif.callsAfter, row.atif.callsBefore);
  assert.equal(row.atif.stepsAfter, row.atif.stepsBefore);
  assert.equal(row.atif.ok, true);
  assert.equal(row.usage, 'recorded');
});

test('wild: a file no adapter reads is right only when it is refused, for a format we do not mean to read', async () => {
  assert.equal(outOfScope('[qwen-code]'), true);
  assert.equal(outOfScope('pi'), false);
  const misread = await checkFile(corpus('codex/crud.jsonl'), '[codex-exec]');
  assert.equal(misread.formatOk, false, 'read as codex, but declared out of scope');
});

test('wild: plain words are not markup; leading tags, known wrappers and raw JSON are', () => {
  assert.equal(markupIn('Fix the failing test in parser.ts'), false);
  assert.equal(markupIn('compare a < b and c > d'), false);
  assert.equal(markupIn('<task-notification> <task-id>b1</task-id>'), true);
  assert.equal(markupIn('see <thinking>why</thinking>'), true);
  assert.equal(markupIn('{"output":"Success"}'), true);
});

test('wild: the split is deterministic, a third locked, and files added later never move earlier ones', () => {
  const files = Array.from({ length: 30 }, (_, i) => `files/r${i % 7}/f${i}.jsonl`);
  const fmt = (p: string) => `fmt${Number(/f(\d+)/.exec(p)?.[1] ?? 0) % 4}`;
  const first = assignSplit(files, fmt);
  assert.deepEqual(assignSplit(files, fmt), first);
  const locked = Object.values(first.files).filter((v) => v === 'locked').length;
  assert.equal(locked, 10);
  const grown = assignSplit([...files, 'files/new/a.jsonl', 'files/new/b.jsonl'], fmt, first);
  for (const f of files) assert.equal(grown.files[f], first.files[f], f);
  assert.ok(grown.files['files/new/a.jsonl']);
});

// The wild-log set is runs the layers were not developed on: a copy of a corpus run is not one
// (session 42 added two corpus runs, found only after they were labelled). A wild file copied into
// test/fixtures later is allowed (wild/README.md).
test('wild: no file of the wild-log set is a copy of a corpus run', () => {
  const filesUnder = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : e.isFile() ? [path.join(dir, e.name)] : []));
  const known = new Map<number, string[]>();
  for (const f of filesUnder(path.join(SHARED, 'corpus'))) {
    const size = fs.statSync(f).size;
    known.set(size, [...(known.get(size) ?? []), f]);
  }
  const digest = (f: string) => crypto.createHash('sha256').update(fs.readFileSync(f)).digest('hex');
  const copies: string[] = [];
  for (const f of filesUnder(path.join(REPO_ROOT, 'wild', 'files'))) {
    const same = known.get(fs.statSync(f).size);
    if (!same) continue;
    const d = digest(f);
    for (const k of same) if (digest(k) === d) copies.push(`${path.relative(REPO_ROOT, f)} = ${k}`);
  }
  assert.deepEqual(copies, []);
});
