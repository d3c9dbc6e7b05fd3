import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { corpus, REPO_ROOT, tempDir } from '../helpers/paths';

// --out to a device, a pipe or a kernel file: written through or refused, never a temporary file
// renamed over it (which left `--out /dev/stdout --force > file` with 0 bytes and a claim of success).

const CLI = path.join(REPO_ROOT, 'out', 'src', 'cli', 'main.js');
const RUN = corpus('codex/crud.jsonl');

/** The CLI with its standard output redirected to `outFile`, as a shell's `> outFile` does. */
function toFile(outFile: string, ...args: string[]) {
  const fd = fs.openSync(outFile, 'w');
  try {
    const r = spawnSync(process.execPath, [CLI, ...args], { stdio: ['ignore', fd, 'pipe'], encoding: 'utf8', timeout: 60_000 });
    return { code: r.status, err: r.stderr };
  } finally {
    fs.closeSync(fd);
  }
}

function isAtif(text: string): boolean {
  const doc = JSON.parse(text);
  return typeof doc.schema_version === 'string' && Array.isArray(doc.steps) && doc.steps.length > 0;
}

test('writes: --out through a link to /proc/self/fd/1, stdout redirected to a file, writes the file (no rename over the link)', () => {
  const dir = tempDir('atl-special-');
  const link = path.join(dir, 'out.json');
  fs.symlinkSync('/proc/self/fd/1', link);
  const captured = path.join(dir, 'captured.json');
  const r = toFile(captured, 'convert', RUN, '--to', 'atif', '--out', link, '--force');
  assert.equal(r.code, 0, r.err);
  assert.ok(fs.lstatSync(link).isSymbolicLink(), 'the link is still a link');
  assert.ok(isAtif(fs.readFileSync(captured, 'utf8')), 'the ATIF reached the redirected standard output');
  assert.deepEqual(fs.readdirSync(dir).sort(), ['captured.json', 'out.json'], 'no temporary file left');
});

test('writes: --out /dev/stdout --force with stdout redirected to a file (as root, too) fills the file; /dev/stdout stays a link', () => {
  const captured = path.join(tempDir('atl-special-'), 'captured.json');
  const before = fs.lstatSync('/dev/stdout');
  const r = toFile(captured, 'convert', RUN, '--to', 'atif', '--out', '/dev/stdout', '--force');
  assert.equal(r.code, 0, r.err);
  assert.ok(isAtif(fs.readFileSync(captured, 'utf8')));
  const after = fs.lstatSync('/dev/stdout');
  assert.equal(after.isSymbolicLink(), before.isSymbolicLink());
  assert.equal(after.ino, before.ino, '/dev/stdout is the same entry as before');
  // Into a shell's pipe as well (a FIFO; Node's own stdio pipes are sockets, which cannot be opened by path).
  const piped = spawnSync('sh', ['-c', '"$0" "$1" convert "$2" --to atif --out /dev/stdout | cat', process.execPath, CLI, RUN], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(piped.status, 0, piped.stderr);
  assert.ok(isAtif(piped.stdout));
  const nul = spawnSync(process.execPath, [CLI, 'convert', RUN, '--to', 'atif', '--out', '/dev/null'], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(nul.status, 0, nul.stderr);
  assert.ok(fs.statSync('/dev/null').isCharacterDevice());
});

test('writes: a pipe nobody reads, a kernel file and a new file in /dev are refused with exit 4 and the reason', () => {
  const fifo = path.join(tempDir('atl-special-'), 'out.fifo');
  execFileSync('mkfifo', [fifo]);
  const cases: [string, RegExp][] = [
    [fifo, /is a named pipe that nothing reads/],
    ['/proc/self/status', /is a kernel file/],
    ['/dev/atl-new-output.json', /a folder of devices or kernel files/],
  ];
  for (const [target, reason] of cases) {
    const r = spawnSync(process.execPath, [CLI, 'convert', RUN, '--to', 'atif', '--out', target, '--force'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 4, `${target}: ${r.stderr}`);
    assert.match(r.stderr, reason);
  }
  assert.ok(!fs.existsSync('/dev/atl-new-output.json'));
});
