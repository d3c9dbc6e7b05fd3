import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT, tempDir } from '../helpers/paths';
import { surveyFolder } from '../helpers/surveyFolder';

// The survey through the command line, as a child process (tsc's output, whose worker script sits
// beside the pool): JSON Lines per run, a total, shards and a resumed run after a kill.

const CLI = path.join(REPO_ROOT, 'out', 'src', 'cli', 'main.js');
const folder = surveyFolder(3);

interface Parsed { runs: Record<string, unknown>[]; skipped: Record<string, unknown>[]; total?: Record<string, number> }

function cli(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function parse(out: string): Parsed {
  const p: Parsed = { runs: [], skipped: [] };
  for (const line of out.split('\n').filter((l) => l.trim() !== '')) {
    const v = JSON.parse(line);
    if (v.total) p.total = v.total;
    else if (v.skipped) p.skipped.push(v);
    else p.runs.push(v);
  }
  return p;
}

const key = (r: Record<string, unknown>) => `${r.file}#${r.run}`;
const full = (() => {
  const r = cli('stats', folder.dir, '--json');
  return { ...r, ...parse(r.out) };
})();

test('cli survey: stats DIR --json prints one line per run then the total; the bad file is reported and the rest measured', () => {
  assert.equal(full.code, 0, full.err);
  assert.equal(full.runs.length, folder.runs);
  assert.equal(new Set(full.runs.map(key)).size, folder.runs, 'each run once');
  const last = JSON.parse(full.out.trimEnd().split('\n').at(-1)!);
  assert.ok(last.total, 'the last line is the total');
  assert.equal(full.total!.runs, folder.runs);
  assert.equal(full.total!.steps, full.runs.reduce((n, r) => n + (r.steps as number), 0));
  assert.deepEqual(full.skipped.map((s) => s.file), [folder.bad]);
  assert.match(full.err, /skipped notes\.json: not a trajectory/);
  for (const r of full.runs) {
    for (const k of ['file', 'run', 'format', 'records', 'steps', 'turns', 'byKind', 'tools', 'chars', 'warnings', 'tokens', 'requests', 'costModelled', 'costRecorded', 'outcome']) {
      assert.ok(k in r, `${key(r)} has ${k}`);
    }
  }
});

test('cli survey: shards 1/3, 2/3 and 3/3 print every run exactly once and their totals add up', () => {
  const shards = ['1/3', '2/3', '3/3'].map((s) => {
    const r = cli('stats', folder.dir, '--json', '--shard', s);
    assert.equal(r.code, 0, r.err);
    return parse(r.out);
  });
  const runs = shards.flatMap((s) => s.runs.map(key));
  assert.deepEqual(runs.sort(), full.runs.map(key).sort());
  assert.ok(shards.every((s) => s.runs.length < folder.runs), 'no shard holds everything');
  for (const field of ['runs', 'steps', 'tokens', 'requests', 'skipped']) {
    assert.equal(shards.reduce((n, s) => n + s.total![field], 0), full.total![field], field);
  }
});

test('cli survey: stopped after a few lines, --resume prints each remaining run once with the right total', async () => {
  const dir = tempDir();
  const partialFile = path.join(dir, 'part1.jsonl');
  // One worker, so the survey is still running when it is stopped.
  const child = spawn(process.execPath, [CLI, 'stats', folder.dir, '--json', '--jobs', '1']);
  let out = '';
  await new Promise<void>((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.split('\n').length > 4 && !child.killed) child.kill('SIGKILL');
    });
    child.on('close', () => resolve());
  });
  assert.ok(!/"total"/.test(out), 'stopped before the end');
  fs.writeFileSync(partialFile, out);
  const before = parse(out.split('\n').filter((l) => { try { JSON.parse(l); return true; } catch { return false; } }).join('\n'));
  assert.ok(before.runs.length >= 3 && before.runs.length < folder.runs, `${before.runs.length} runs before the stop`);
  const r = cli('stats', folder.dir, '--json', '--resume', partialFile);
  assert.equal(r.code, 0, r.err);
  const after = parse(r.out);
  const all = [...before.runs, ...after.runs].map(key);
  assert.equal(new Set(all).size, all.length, 'no run printed twice');
  assert.deepEqual(all.sort(), full.runs.map(key).sort());
  for (const field of ['runs', 'files', 'skipped', 'steps', 'tokens', 'requests', 'inputTokens']) assert.equal(after.total![field], full.total![field], field);
  assert.ok(Math.abs(after.total!.costModelled - full.total!.costModelled) < 1e-6);
  // Appending to the same file and resuming again finds nothing left to do.
  fs.appendFileSync(partialFile, '\n' + r.out);
  const again = parse(cli('stats', folder.dir, '--json', '--resume', partialFile).out);
  assert.equal(again.runs.length, 0);
  assert.equal(again.total!.runs, full.total!.runs);
});

test('cli survey: simulate DIR --strategy A,B prints both strategies per run and per-strategy totals', () => {
  const r = cli('simulate', folder.dir, '--strategy', 'observation-masking,openhands-summary', '--json', '--shard', '1/2');
  assert.equal(r.code, 0, r.err);
  const p = parse(r.out);
  assert.ok(p.runs.length > 0);
  for (const run of p.runs) {
    const strategies = run.strategies as Record<string, unknown>[];
    assert.deepEqual(strategies.map((s) => s.strategy), ['observation-masking', 'openhands-summary']);
    for (const s of strategies.filter((x) => !x.error)) {
      for (const k of ['inputRaw', 'inputCompacted', 'costRaw', 'costCompacted', 'requestsRaw', 'requestsCompacted', 'entitiesLost', 'entitiesLostNeededLater']) assert.ok(k in s, k);
    }
  }
  const totals = (p.total as unknown as { strategies: { strategy: string; inputRaw: number; inputCompacted: number }[] }).strategies;
  assert.deepEqual(totals.map((s) => s.strategy), ['observation-masking', 'openhands-summary']);
  assert.ok(totals[0].inputCompacted < totals[0].inputRaw);
});

test('cli survey: text output lists the runs and the total with both costs labelled', () => {
  const r = cli('stats', folder.dir, '--shard', '2/3');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /cost \(modelled, with prompt caching\)/);
  assert.match(r.out, /cost \(recorded by the logs\)/);
  assert.match(r.out, /Total: \d+ runs/);
});

test('cli survey: wrong usage is refused with the reason', () => {
  const bad = cli('stats', folder.dir, '--shard', '3/2');
  assert.equal(bad.code, 1);
  assert.match(bad.err, /--shard takes I\/N/);
  const noStrategy = cli('simulate', folder.dir, '--json');
  assert.equal(noStrategy.code, 1);
  assert.match(noStrategy.err, /needs --strategy/);
});

test('cli survey: a file of many runs with --per-run prints one line per run; without it, stats FILE is unchanged', () => {
  const file = path.join(folder.dir, 'evals', 'output.jsonl');
  const perRun = parse(cli('stats', file, '--per-run', '--json').out);
  assert.deepEqual(perRun.runs.map((r) => r.run), [0, 1, 2]);
  assert.deepEqual(perRun.runs.map((r) => r.steps), full.runs.filter((r) => r.file === 'evals/output.jsonl').sort((a, b) => (a.run as number) - (b.run as number)).map((r) => r.steps));
  const single = cli('stats', file, '--json');
  const lines = single.out.trim().split('\n');
  assert.equal(lines.length, 1, 'the single-file stats: one object for the file');
  assert.equal(JSON.parse(lines[0]).steps, perRun.total!.steps);
});

test('cli survey: one file of many runs is split over shards by run, each run in exactly one', () => {
  const file = path.join(folder.dir, 'evals', 'output.jsonl');
  const parts = ['1/2', '2/2'].map((s) => parse(cli('stats', file, '--per-run', '--json', '--shard', s).out));
  assert.deepEqual(parts.flatMap((p) => p.runs.map((r) => r.run as number)).sort(), [0, 1, 2]);
  assert.equal(parts[0].total!.runs + parts[1].total!.runs, 3);
  assert.equal(parts[0].skipped.length + parts[1].skipped.length, 0, 'a shard without runs of the file reports nothing skipped');
});
