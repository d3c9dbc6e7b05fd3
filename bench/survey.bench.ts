// `npm run bench` (survey part): `stats DIR --json` and `simulate DIR --strategy observation-masking
// --json` over 500 runs of about 1 MB each. Targets (issue 13): ≤ 30 s and ≤ 120 s on a 2-core
// machine; peak memory bounded by the runs in flight, shown by 100 runs beside 500.
// Each run is a real mini-swe-agent trajectory of the corpus, its agent loop repeated to ~1 MB,
// every message salted with the run and its position so that no count is reused (no cache helps).
// "runs/s per core" (runs over CPU seconds) says when a survey is worth sharding over machines.
// Sizes: ATL_BENCH_SURVEY_RUNS (comma-separated, default 100,500); ATL_BENCH_SURVEY_MB per run (default 1).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const COUNTS = (process.env.ATL_BENCH_SURVEY_RUNS ?? '100,500').split(',').map(Number).filter((n) => n > 0);
const CORES = os.availableParallelism?.() ?? os.cpus().length;
const MB_PER_RUN = Number(process.env.ATL_BENCH_SURVEY_MB ?? '1');
const TARGETS_MS: Record<string, number> = { stats: 30_000, simulate: 120_000 };
const SHARED = process.env.ATL_SHARED ?? path.resolve(__dirname, '..', '..', '..', 'shared');
const TEMPLATE = path.join(SHARED, 'corpus', 'mini-swe-agent', 'astropy__astropy-12907.traj.json');

interface Message { role: string; content: unknown; [k: string]: unknown }

/** Writes `count` runs into `dir` (reusing those already there), each about `bytes` long. */
function generate(dir: string, count: number, bytes: number): number {
  const template = JSON.parse(fs.readFileSync(TEMPLATE, 'utf8')) as { messages: Message[]; instance_id: string; [k: string]: unknown };
  const head = template.messages.slice(0, 2);
  const loop = template.messages.slice(2).filter((m) => m.role !== 'exit');
  const loopBytes = JSON.stringify(loop).length;
  let total = 0;
  for (let r = 0; r < count; r++) {
    const file = path.join(dir, `shard-${r % 10}`, `run-${String(r).padStart(4, '0')}.traj.json`);
    if (fs.existsSync(file)) { total += fs.statSync(file).size; continue; }
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const messages: Message[] = head.map((m, i) => salt(m, r, i));
    for (let round = 0; (round + 1) * loopBytes < bytes; round++) {
      for (const m of loop) messages.push(salt(m, r, messages.length));
    }
    const text = JSON.stringify({ ...template, instance_id: `bench__run-${r}`, messages });
    fs.writeFileSync(file, text);
    total += text.length;
  }
  return total;
}

function salt(m: Message, run: number, i: number): Message {
  return typeof m.content === 'string' ? { ...m, content: `${m.content}\n[run ${run}, message ${i}]` } : m;
}

interface ChildResult { code: number; ms: number; cpuMs: number; lines: number; total?: { runs: number; tokens: number; costModelled: number }; peakRssBytes: number; err: string }

function measure(args: string[]): ChildResult {
  const child = path.join(__dirname, 'survey.child.js');
  const r = spawnSync(process.execPath, [child, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`survey child failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as ChildResult;
}

function main(): void {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'atl-bench-survey-'));
  try {
    console.log(`Survey of many runs: runs of ~${MB_PER_RUN} MB made from ${path.basename(TEMPLATE)} (every message salted), ${CORES} cores`);
    console.log('  targets (500 runs): stats ≤ 30 s, simulate --strategy observation-masking ≤ 120 s; memory bounded by the runs in flight');
    const peaks: Record<string, Record<number, number>> = { stats: {}, simulate: {} };
    for (const count of COUNTS) {
      const dir = path.join(root, `runs-${count}`);
      fs.mkdirSync(dir, { recursive: true });
      const bytes = generate(dir, count, MB_PER_RUN * 1024 * 1024);
      for (const mode of ['stats', 'simulate'] as const) {
        const args = mode === 'stats' ? ['stats', dir, '--json'] : ['simulate', dir, '--strategy', 'observation-masking', '--json'];
        const load = os.loadavg()[0];
        const r = measure(args);
        const after = os.loadavg()[0];
        if (r.total?.runs !== count) throw new Error(`${mode} over ${count} runs reported ${r.total?.runs} runs: ${r.err}`);
        peaks[mode][count] = r.peakRssBytes;
        const target = TARGETS_MS[mode];
        const verdict = count >= 500 ? `  ${r.ms <= target ? 'meets' : 'MISSES'} the target (${(r.ms / target).toFixed(2)}× of it)` : '';
        // CPU time over the cores: what the same work takes on this machine when nobody else is using it.
        const idle = r.cpuMs / CORES;
        console.log(`  ${mode.padEnd(8)} ${String(count).padStart(4)} runs (${(bytes / 1024 / 1024).toFixed(0)} MB)  ${(r.ms / 1000).toFixed(1).padStart(6)} s  ${(bytes / 1024 / 1024 / (r.ms / 1000)).toFixed(1)} MB/s  CPU ${(r.cpuMs / 1000).toFixed(1)} s (${(idle / 1000).toFixed(1)} s over ${CORES} idle cores${count >= 500 ? `, ${(idle / target).toFixed(2)}× of the target` : ''})  ${(count / (r.cpuMs / 1000)).toFixed(1)} runs/s per core  peak RSS ${(r.peakRssBytes / 1024 / 1024).toFixed(0)} MB  load average ${load.toFixed(1)} → ${after.toFixed(1)}  ${r.total.tokens.toLocaleString('en-US')} tokens${verdict}`);
      }
    }
    if (COUNTS.length >= 2) {
      const [a, b] = [COUNTS[0], COUNTS[COUNTS.length - 1]];
      for (const mode of ['stats', 'simulate']) {
        const ratio = peaks[mode][b] / peaks[mode][a];
        console.log(`  ${mode}: peak RSS ×${ratio.toFixed(2)} for ×${(b / a).toFixed(0)} runs (${ratio < 1.5 ? 'bounded by the runs in flight' : 'GROWS with the number of runs'})`);
      }
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main();
