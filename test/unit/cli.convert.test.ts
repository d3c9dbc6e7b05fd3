import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { checkAtif } from '../../src/core/formats/atifRules';
import { FORMAT_ADAPTERS } from '../../src/core/formats/registry';
import { runCli } from '../helpers/cli';
import { corpus, REPO_ROOT, SHARED, tempDir } from '../helpers/paths';

/**
 * Every real trajectory the tests read: the shared corpus and our own fixtures (files and task
 * folders) under test/fixtures/<format id>/. Other fixture folders (entities/, labels written by
 * hand) hold no trajectories.
 */
export function allRealFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string, depth: number) => {
    for (const name of fs.readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      if (name === 'SOURCES.md') continue;
      if (fs.statSync(full).isDirectory()) {
        // A folder of its own (a Cline task) is one trajectory; otherwise look inside.
        if (fs.existsSync(path.join(full, 'api_conversation_history.json')) || fs.existsSync(path.join(full, 'ui_messages.json'))) files.push(full);
        else if (depth < 3) walk(full, depth + 1);
      } else files.push(full);
    }
  };
  walk(path.join(SHARED, 'corpus'), 0);
  const ids = new Set(FORMAT_ADAPTERS.map((x) => x.id));
  for (const dir of fs.readdirSync(path.join(REPO_ROOT, 'test', 'fixtures')).sort()) {
    if (ids.has(dir)) walk(path.join(REPO_ROOT, 'test', 'fixtures', dir), 1);
  }
  return files;
}

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
    assert.equal(written, stats.byKind.tool_call, `${file}: every tool call is written`);
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
