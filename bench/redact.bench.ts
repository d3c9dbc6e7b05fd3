// `npm run bench`: the redactor on the red-team inputs of issue 23 (part 3), beside their bounds.
// - a base64 run near the words "PRIVATE KEY" (100 KB and 300 KB; before the fix 15 s and 150 s),
//   through redactSecrets, `convert --to atif` and `compact --html --out`;
// - the redactor's scaling on hostile shapes: time at n and 8n (bound: 12x);
// - one pass over 10 MB of ordinary log text.
// Sizes: ATL_BENCH_REDACT_KB (default 300).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { redactSecrets } from '../src/core/llm/redact';
import { runCli } from '../test/helpers/cli';
import { tempDir } from '../test/helpers/paths';

const KB = Number(process.env.ATL_BENCH_REDACT_KB ?? 300);
const BOUND_S = 5;

function b64(n: number, seed = 7): string {
  const a = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  let x = seed;
  let s = '';
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    s += a[(x >> 16) % 64];
  }
  return s;
}

/** The red team's shape: the words "PRIVATE KEY", then a long base64 run with no BEGIN line. */
const redTeam = (bytes: number) => `The PRIVATE KEY was rotated; the old blob follows:\n${b64(bytes)}\n`;

function seconds(f: () => unknown): number {
  const t = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - t) / 1e9;
}

async function secondsAsync(f: () => Promise<unknown>): Promise<number> {
  const t = process.hrtime.bigint();
  await f();
  return Number(process.hrtime.bigint() - t) / 1e9;
}

const HOSTILE: Record<string, (n: number) => string> = {
  'base64 near PRIVATE KEY': (n) => redTeam(n),
  'base64 lines into END': (n) => `${b64(n).replace(/(.{64})/g, '$1\n')}\n-----END PRIVATE KEY-----`,
  'BEGIN lines, no END': (n) => '-----BEGIN PRIVATE KEY-----\nabc\n'.repeat(n / 32),
  '"password: x" on one line': (n) => 'the quick brown fox password: x '.repeat(n / 32),
  'a_a_a_… (key prefixes)': (n) => 'a_'.repeat(n / 2),
  'x://x://…': (n) => 'x://'.repeat(n / 4),
  'machine + spaces (.netrc)': (n) => 'machine' + ' '.repeat(n),
  'Cookie: Cookie: …': (n) => 'Cookie: '.repeat(n / 8),
};

async function main(): Promise<void> {
  console.log('\nRedaction (issue 23): red-team inputs');
  for (const kb of [100, KB]) {
    const text = redTeam(kb * 1024);
    const s = seconds(() => redactSecrets(text));
    console.log(`  redactSecrets, ${kb} KB base64 near "PRIVATE KEY": ${s.toFixed(3)} s (bound ${BOUND_S} s; was 15 s at 100 KB, 150 s at 300 KB)`);
  }
  const dir = tempDir('atl-bench-redact-');
  const file = path.join(dir, 'redteam.json');
  fs.writeFileSync(file, JSON.stringify([
    { role: 'user', content: 'Rotate the key.' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"command":"cat old.key"}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: redTeam(KB * 1024) },
    { role: 'assistant', content: 'Done.' },
  ]));
  const convert = await secondsAsync(() => runCli('convert', file, '--to', 'atif', '--out', path.join(dir, 'out.atif.json')));
  console.log(`  convert --to atif, ${KB} KB: ${convert.toFixed(2)} s (bound ${BOUND_S} s)`);
  try {
    const compact = await secondsAsync(() => runCli('compact', file, '--strategy', 'observation-masking', '--html', path.join(dir, 'r.html'), '--out', path.join(dir, 'out.json')));
    console.log(`  compact --html --out, ${KB} KB: ${compact.toFixed(2)} s (bound ${BOUND_S} s; was 51 s at 100 KB)`);
  } catch (e) {
    console.log(`  compact --html --out: not measured (${(e as Error).message})`);
  }

  console.log('\nRedaction: time at n and 8n on hostile shapes (bound: 12x)');
  const n = 64 * 1024;
  for (const [name, make] of Object.entries(HOSTILE)) {
    const small = make(n);
    const large = make(8 * n);
    redactSecrets(small.slice(0, 1000));
    const a = Math.min(seconds(() => redactSecrets(small)), seconds(() => redactSecrets(small)));
    const b = Math.min(seconds(() => redactSecrets(large)), seconds(() => redactSecrets(large)));
    console.log(`  ${name.padEnd(28)} ${(a * 1000).toFixed(1).padStart(8)} ms  ${(b * 1000).toFixed(1).padStart(8)} ms  ${(b / Math.max(a, 1e-4)).toFixed(1)}x`);
  }

  const prose = 'The agent ran pytest -q in /work/app; 3 tests failed in test_api.py (call_abc123, sha 9fceb02d0ae5). '.repeat(100_000);
  const mb = prose.length / 1024 / 1024;
  const t = seconds(() => redactSecrets(prose));
  console.log(`\nRedaction: ${mb.toFixed(1)} MB of ordinary log text in ${t.toFixed(2)} s (${(mb / t).toFixed(1)} MB/s)`);
}

void main();
