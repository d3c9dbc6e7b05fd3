import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { corpus, REPO_ROOT, tempDir } from '../helpers/paths';
import { surveyFolder } from '../helpers/surveyFolder';

// `survey merge` over shard outputs, and the survey's untrusted inputs: --resume lines and files,
// --jobs, links in the surveyed folder and file names that could forge output lines.

const CLI = path.join(REPO_ROOT, 'out', 'src', 'cli', 'main.js');
const folder = surveyFolder(1);
const work = tempDir('atl-merge-');

function cli(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function lastJson(out: string): Record<string, unknown> {
  return JSON.parse(out.trimEnd().split('\n').at(-1)!);
}

function shardFiles(command: string[], n: number, name: string): string[] {
  return Array.from({ length: n }, (_, i) => {
    const r = cli(...command, '--json', '--shard', `${i + 1}/${n}`);
    assert.equal(r.code, 0, r.err);
    const file = path.join(work, `${name}-${i + 1}.jsonl`);
    fs.writeFileSync(file, r.out);
    return file;
  });
}

const unsharded = (() => {
  const r = cli('stats', folder.dir, '--json');
  assert.equal(r.code, 0, r.err);
  return { out: r.out, total: lastJson(r.out).total as Record<string, unknown> };
})();
const shards = shardFiles(['stats', folder.dir], 4, 'stats');

test('survey merge: shards 1/4 to 4/4 add up to the unsharded total exactly, to the token and the cent', () => {
  const ids = shards.map((f) => (lastJson(fs.readFileSync(f, 'utf8')).survey as { shard: unknown }).shard);
  assert.deepEqual(ids, [1, 2, 3, 4].map((index) => ({ index, count: 4 })), 'each output names its shard and N');
  const merged = cli('survey', 'merge', ...shards.reverse(), '--json');
  assert.equal(merged.code, 0, merged.err);
  const line = lastJson(merged.out);
  assert.deepEqual(line.total, unsharded.total);
  assert.equal(JSON.stringify(line.total), JSON.stringify(unsharded.total), 'the same line, byte for byte');
  assert.equal((line.survey as { shard: unknown }).shard, null);
  // The text form prints the unsharded run's total block.
  const text = cli('survey', 'merge', ...shards);
  assert.equal(text.code, 0, text.err);
  const block = cli('stats', folder.dir).out;
  assert.equal(text.out.slice(text.out.indexOf('\nTotal:')), block.slice(block.indexOf('\nTotal:')));
});

test('survey merge: simulate shards with two strategies merge to the unsharded per-strategy totals', () => {
  const cmd = ['simulate', folder.dir, '--strategy', 'observation-masking,trim-last-turns'];
  const whole = lastJson(cli(...cmd, '--json').out).total;
  const parts = shardFiles(cmd, 2, 'simulate');
  const merged = cli('survey', 'merge', ...parts, '--json');
  assert.equal(merged.code, 0, merged.err);
  assert.deepEqual(lastJson(merged.out).total, whole);
  // Mixed commands: a stats shard with a simulate shard.
  const mixed = cli('survey', 'merge', shards[0], parts[1]);
  assert.equal(mixed.code, 2);
  assert.match(mixed.err, new RegExp(`${path.basename(parts[1])} is the output of simulate`));
  // The same command with other strategies.
  const other = shardFiles(['simulate', folder.dir, '--strategy', 'observation-masking'], 2, 'simulate-other');
  const r = cli('survey', 'merge', parts[0], other[1]);
  assert.equal(r.code, 2);
  assert.match(r.err, /other options/);
});

test('survey merge: overlapping, missing and unfinished shards are refused, naming the file', () => {
  const twice = path.join(work, 'stats-2-again.jsonl');
  fs.copyFileSync(shards.find((f) => f.endsWith('stats-2.jsonl'))!, twice);
  const sorted = [...shards].sort();
  const overlap = cli('survey', 'merge', ...sorted, twice);
  assert.equal(overlap.code, 2);
  assert.match(overlap.err, /stats-2\.jsonl and .*stats-2-again\.jsonl are both shard 2\/4; their runs overlap/);
  assert.equal(overlap.out, '', 'no total is printed');
  const missing = cli('survey', 'merge', sorted[0], sorted[1], sorted[3]);
  assert.equal(missing.code, 2);
  assert.match(missing.err, /shard 3\/4 missing/);
  // A forged output: shard 3's identity, but a run of shard 1 in it.
  const forged = path.join(work, 'forged-3.jsonl');
  const s1 = fs.readFileSync(sorted[0], 'utf8').trim().split('\n');
  const s3 = fs.readFileSync(sorted[2], 'utf8').trim().split('\n');
  const total3 = JSON.parse(s3.at(-1)!);
  total3.total.runs += 1;
  fs.writeFileSync(forged, [s1[0], ...s3.slice(0, -1), JSON.stringify(total3)].join('\n') + '\n');
  const bad = cli('survey', 'merge', sorted[0], sorted[1], forged, sorted[3]);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /is in both .*stats-1\.jsonl and .*forged-3\.jsonl/);
  // Cut short: no total line.
  const cut = path.join(work, 'cut-4.jsonl');
  fs.writeFileSync(cut, fs.readFileSync(sorted[3], 'utf8').trim().split('\n').slice(0, -1).join('\n'));
  const unfinished = cli('survey', 'merge', sorted[0], sorted[1], sorted[2], cut);
  assert.equal(unfinished.code, 2);
  assert.match(unfinished.err, /cut-4\.jsonl: no total line; this shard did not finish/);
  for (const special of ['/dev/zero', work]) {
    const r = cli('survey', 'merge', special);
    assert.equal(r.code, 2, special);
    assert.match(r.err, special === work ? /is a folder/ : /not a regular file/);
  }
});

test('survey --resume: a line with a missing field or made-up numbers is reported and not summed; the total stays right', () => {
  const lines = unsharded.out.trim().split('\n').map((l) => JSON.parse(l));
  const runs = lines.filter((l) => l.file && !l.skipped);
  const missingField = { ...runs[0] };
  delete missingField.steps;
  const madeUp = { ...runs[1], steps: 1_000_000, tokens: 999_999_999 }; // its own stamp: the numbers are the lie
  const fabricated = { ...runs[2], file: 'no/such/run.jsonl' };
  const noStamp = { ...runs[3] };
  delete noStamp.source;
  const stale = { ...runs[4], source: { ...runs[4].source, sha256: '0'.repeat(64) } };
  const resumeFile = path.join(work, 'resume.jsonl');
  fs.writeFileSync(resumeFile, [missingField, fabricated, noStamp, stale, ...runs.slice(5)].map((l) => JSON.stringify(l)).join('\n') + '\n');
  const r = cli('stats', folder.dir, '--json', '--resume', resumeFile);
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /line 1: "steps" is missing/);
  assert.match(r.err, /line 2: names "no\/such\/run\.jsonl", which is not in the surveyed folder; not counted/);
  assert.match(r.err, /line 3 \(.*\): records no size, mtime and hash of its file; measured again/);
  assert.match(r.err, /line 4 \(.*\): does not match the file: its content differs \(SHA-256\); measured again/);
  assert.deepEqual(lastJson(r.out).total, unsharded.total);
  // The numbers of a line are checked only by its stamp: a line whose stamp is the file's own stands.
  // What the stamp guards against is a line for another version of the file.
  fs.writeFileSync(resumeFile, JSON.stringify(madeUp) + '\n');
  fs.appendFileSync(path.join(folder.dir, madeUp.file as string), '\n');
  const changed = cli('stats', folder.dir, '--json', '--resume', resumeFile);
  assert.match(changed.err, /line 1 .*does not match the file: its size is/);
  assert.notEqual((lastJson(changed.out).total as { steps: number }).steps >= 1_000_000, true, 'the made-up steps are not summed');
});

test('survey --resume: a folder, /dev/zero or a FIFO is refused with exit 2 and a message, never a hang or exit 70', () => {
  const fifo = path.join(work, 'resume.fifo');
  execFileSync('mkfifo', [fifo]);
  for (const [file, reason] of [[work, /is a folder/], ['/dev/zero', /not a regular file/], [fifo, /not a regular file/]] as const) {
    const r = cli('stats', folder.dir, '--json', '--resume', file);
    assert.equal(r.code, 2, `${file}: ${r.err}`);
    assert.match(r.err, new RegExp(`--resume ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: `));
    assert.match(r.err, reason);
  }
});

test('survey --jobs: more than the machine has is clamped with a message; nonsense is refused', () => {
  const r = cli('stats', folder.dir, '--json', '--jobs', '1e9');
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /--jobs 1e9 is more than this machine can use; using \d+/);
  assert.deepEqual(lastJson(r.out).total, unsharded.total);
  for (const bad of ['0', '-3', '2.5', 'many']) {
    const x = cli('stats', folder.dir, `--jobs=${bad}`);
    assert.equal(x.code, 1, bad);
    assert.match(x.err, /--jobs takes a whole number/);
  }
});

test('survey: a folder of symlinked runs (Hugging Face cache layout) is surveyed; a link out of it is reported as skipped', () => {
  const root = tempDir('atl-hf-');
  const blobs = path.join(root, 'models--acme--runs', 'blobs');
  const snap = path.join(root, 'models--acme--runs', 'snapshots', 'abc123');
  fs.mkdirSync(blobs, { recursive: true });
  fs.mkdirSync(snap, { recursive: true });
  const sources = ['codex/crud.jsonl', 'claude-code/crud.jsonl', 'mini-swe-agent/astropy__astropy-12907.traj.json'];
  for (const [i, rel] of sources.entries()) {
    fs.copyFileSync(corpus(rel), path.join(blobs, `blob${i}`)); // blobs have no extension: only the links name the format
    fs.symlinkSync(path.join('..', '..', 'blobs', `blob${i}`), path.join(snap, `${i}-${path.basename(rel)}`));
  }
  fs.symlinkSync(corpus('swe-agent/pydicom__pydicom-1458.traj'), path.join(snap, 'outside.traj'));
  const r = cli('stats', path.join(root, 'models--acme--runs'), '--json');
  assert.equal(r.code, 0, r.err);
  const total = lastJson(r.out).total as { runs: number; skipped: number };
  assert.equal(total.runs, sources.length, 'every linked run is read');
  assert.equal(total.skipped, 1);
  assert.match(r.err, /skipped snapshots\/abc123\/outside\.traj: a symbolic link out of the surveyed folder/);
  const text = cli('stats', root);
  assert.match(text.out, /Total: 3 runs in 3 files, 1 skipped/);
  // The snapshot alone: its blobs are outside it, so every run is reported, with the folder to survey instead.
  const alone = cli('stats', snap);
  assert.match(alone.out, /Total: 0 runs in 0 files, 4 skipped/);
  assert.match(alone.err, new RegExp(`skipped 0-crud\\.jsonl: a symbolic link out of the surveyed folder .*survey ${root.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}/models--acme--runs, which holds both`));
  const empty = cli('stats', tempDir('atl-empty-'));
  assert.match(empty.err, /no trajectory found under/);
});

test('survey: a newline in a file name is printed escaped and cannot forge a line', () => {
  const dir = tempDir('atl-names-');
  fs.copyFileSync(corpus('codex/crud.jsonl'), path.join(dir, 'run\nTotal: 999 runs in 999 files\n.jsonl'));
  fs.writeFileSync(path.join(dir, 'bad\nagent-trace-lens: all good.json'), '{"not": "a run"}');
  const r = cli('stats', dir);
  assert.equal(r.code, 0, r.err);
  assert.doesNotMatch(r.out, /^Total: 999/m);
  assert.match(r.out, /"run\\nTotal: 999 runs in 999 files\\n\.jsonl"/);
  assert.doesNotMatch(r.err, /^agent-trace-lens: all good/m);
  assert.match(lastJson(cli('stats', dir, '--json').out).total ? 'ok' : '', /ok/);
});
