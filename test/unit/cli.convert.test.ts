import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { checkAtif } from '../../src/core/formats/atifRules';
import { loadTrajectory } from '../../src/core/open';
import { runCli } from '../helpers/cli';
import { corpus, tempDir } from '../helpers/paths';
import { allRealFiles } from '../helpers/realFiles';


test('convert --to atif: every corpus file and fixture becomes ATIF that keeps the validator\'s rules', async () => {
  const files = allRealFiles();
  assert.ok(files.length >= 16);
  for (const file of files) {
    const { code, out, err } = await runCli('convert', file, '--to', 'atif');
    assert.equal(code, 0, `${file}: ${err}`);
    const docs = out.trimEnd().includes('\n{"schema_version"') ? out.trimEnd().split('\n').map((l) => JSON.parse(l) as unknown) : [JSON.parse(out) as unknown];
    for (const doc of docs) assert.deepEqual(checkAtif(doc), [], file);
    const stats = JSON.parse((await runCli('stats', file, '--json')).out) as { steps: number; byKind: Record<string, number> };
    const written = docs.reduce<number>((n, d) => n + ((d as { steps: { tool_calls?: unknown[] }[] }).steps.reduce((k, s) => k + (s.tool_calls?.length ?? 0), 0)), 0);
    // An ATIF file converts to itself: the calls of the subagent files beside it stay in those files.
    const read = await loadTrajectory(file);
    const inFiles = read.format === 'atif' ? read.runs.flatMap((r) => r.steps).filter((s) => s.kind === 'tool_call' && s.location?.file).length : 0;
    assert.equal(written + inFiles, stats.byKind.tool_call, `${file}: every tool call is written`);
  }
});

test('convert --out: writes a new file, refuses the trajectory itself (also through a link), and splits many runs by line', async () => {
  const dir = tempDir();
  const source = path.join(dir, 'output.jsonl');
  fs.copyFileSync(corpus('openhands-eval/output.jsonl'), source);
  const before = fs.readFileSync(source);
  const out = path.join(dir, 'runs.atif.jsonl');
  const ok = await runCli('convert', source, '--to', 'atif', '--out', out);
  assert.equal(ok.code, 0, ok.err);
  assert.match(ok.err, /3 documents, one per line/);
  assert.equal(fs.readFileSync(out, 'utf8').trimEnd().split('\n').length, 3);
  const same = await runCli('convert', source, '--to', 'atif', '--out', source);
  assert.equal(same.code, 4);
  assert.match(same.err, /never overwritten/);
  fs.symlinkSync(source, path.join(dir, 'link.jsonl'));
  const viaLink = await runCli('convert', source, '--to', 'atif', '--out', path.join(dir, 'link.jsonl'));
  assert.equal(viaLink.code, 4);
  assert.deepEqual(fs.readFileSync(source), before, 'the input is untouched');
  const one = await runCli('convert', source, '--to', 'atif', '--run', '1');
  assert.equal((JSON.parse(one.out) as { session_id: string }).session_id.length > 0, true);
  const wrong = await runCli('convert', source, '--to', 'sharegpt');
  assert.equal(wrong.code, 1);
  assert.match(wrong.err, /--to takes atif/);
});

test('compact --export atif writes the compacted trajectory as valid ATIF with the summary as a compaction step', async () => {
  const dir = tempDir();
  const out = path.join(dir, 'compacted.atif.json');
  const r = await runCli('compact', corpus('swe-agent/pydicom__pydicom-1458.traj'), '--strategy', 'openhands-summary', '--range', '2:20', '--out', out, '--export', 'atif', '--json');
  assert.equal(r.code, 0, r.err);
  const doc = JSON.parse(fs.readFileSync(out, 'utf8')) as { steps: { source: string; extra?: { context_management?: { type: string } } }[] };
  assert.deepEqual(checkAtif(doc), []);
  assert.ok(doc.steps.some((s) => s.source === 'system' && s.extra?.context_management?.type === 'compaction'));
});
