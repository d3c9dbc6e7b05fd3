// `npm run bench` (writes part): an output larger than one JavaScript string (about 512 MB) is
// written in pieces through output/safeWrite, where JSON.stringify fails with "Invalid string
// length" (what `compact --out` on a 600 MB OpenHands file used to die of). The value is 700
// events sharing one 1 MB text, so it costs little memory itself; the figure to watch is the
// peak memory while writing, which must not grow with the output (a few MB of pieces, nowhere
// near the 700 MB written).
// Size: ATL_BENCH_WRITE_MB (700); 0 skips.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { jsonChunks } from '../src/core/output/jsonChunks';
import { writeSafely } from '../src/core/output/safeWrite';

const MB = 1024 * 1024;
const SIZE_MB = Number(process.env.ATL_BENCH_WRITE_MB ?? 700);

async function main(): Promise<void> {
  if (SIZE_MB <= 0) return;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atl-bench-writes-'));
  try {
    const text = 'x'.repeat(MB - 64);
    const events = Array.from({ length: SIZE_MB }, (_, id) => ({ id, source: 'environment', observation: 'run', content: text }));
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 20);
    const start = performance.now();
    const target = await writeSafely(path.join(dir, 'big.json'), (function* () {
      for (const piece of jsonChunks(events, 0)) {
        peak = Math.max(peak, process.memoryUsage().rss);
        yield piece;
      }
    })(), { inputs: [] });
    const ms = performance.now() - start;
    clearInterval(timer);
    const size = fs.statSync(target).size;
    const grew = Math.max(0, peak - rssBefore);
    console.log(`writes: ${(size / MB).toFixed(0)} MB of JSON written in pieces in ${(ms / 1000).toFixed(1)} s; peak RSS grew ${(grew / MB).toFixed(0)} MB ` +
      `(${(grew / size).toFixed(3)}× the output; target: well under 1×, not growing with the output)`);
    let stringify = 'succeeded';
    try {
      JSON.stringify(events);
    } catch (e) {
      stringify = `fails: ${(e as Error).name}: ${(e as Error).message}`;
    }
    console.log(`writes: JSON.stringify of the same value ${stringify}`);
    // The file starts as the JSON of the value does.
    const fd = fs.openSync(target, 'r');
    const head = Buffer.alloc(64);
    fs.readSync(fd, head, 0, 64, 0);
    fs.closeSync(fd);
    if (!head.toString('utf8').startsWith('[{"id":0,"source":"environment"')) throw new Error('the written file does not start as expected');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
