// `npm run bench` (cost part): for every run whose log records usage per call, the run as it
// happened billed from the record (`runCost`) beside the replay's modelled bill of the same run
// without compaction, the median per-call deviation, and how the deviations are spread. Issue 21's
// target: the modelled bill within ±10% of the recorded one on at least 90% of the logs. Two sets,
// side by side: in-sample (the corpus, the fixtures and the wild set's `dev` files, which the cost
// work was developed on) and locked (`bench/cost-locked.json`: the wild set's locked files, defined
// before their figures were seen; look at them only when a piece of work is finished).
// ATL_BENCH_COST_RUNS caps the runs measured per file (default 20); ATL_BENCH_COST_LOCKED=0 skips the locked set.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadTrajectory } from '../src/core/open';
import { billRunAsHappened } from '../src/core/simulate';
import { wildSplitFiles } from '../test/helpers/realFiles';


const SHARED = process.env.ATL_SHARED ?? path.resolve(__dirname, '..', '..', '..', 'shared');
const ROOT = path.resolve(__dirname, '..', '..');
const WILD = process.env.ATL_WILD ?? path.join(ROOT, 'wild');
const RUNS_PER_FILE = Number(process.env.ATL_BENCH_COST_RUNS ?? 20);
const BAND = 0.1;

function walk(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      // An event folder (Cline task, OpenHands events) is one log.
      return fs.readdirSync(p).some((f) => /^(api_conversation_history|ui_messages)\.json$|^\d+\.json$/.test(f)) ? [p] : walk(p);
    }
    return /\.(json|jsonl|traj|md)$/.test(e.name) && !/^(SOURCES|README)\.md$/.test(e.name) ? [p] : [];
  });
}

/** The locked list: bench/cost-locked.json's wild files (and corpus runs, none yet). */
function lockedFiles(): string[] {
  const list = JSON.parse(fs.readFileSync(path.join(ROOT, 'bench', 'cost-locked.json'), 'utf8')) as { wild: { files: string[] } };
  return list.wild.files.map((f) => path.resolve(WILD, f)).filter((f) => fs.existsSync(f));
}

/** One copy of each file (a wild file may also be a fixture), by content. */
function distinct(files: readonly string[]): string[] {
  const seen = new Set<string>();
  return files.filter((f) => {
    const hash = fs.statSync(f).isDirectory() ? f : crypto.createHash('sha256').update(fs.readFileSync(f)).digest('hex');
    if (seen.has(hash)) return false;
    seen.add(hash);
    return true;
  });
}

interface Row { file: string; run: number; format: string; calls: number; source: string; recorded: number; modelled: number; deviation: number; perCall: number | null; why: string; tokens: string; unrecorded: string }

function pct(x: number): string {
  return `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
}

interface Measured { rows: Row[]; without: string[]; seconds: number }

async function measure(files: readonly string[]): Promise<Measured> {
  const rows: Row[] = [];
  const without: string[] = [];
  const started = performance.now();
  for (const file of files) {
    let t;
    try {
      t = await loadTrajectory(file);
    } catch {
      continue;
    }
    const runs = t.runs.slice(0, RUNS_PER_FILE);
    runs.forEach((run, i) => {
      const { bill, billing } = billRunAsHappened(run);
      const rel = path.relative(ROOT, file).replace(/^\.\.[/\\]/, '');
      if (bill.source !== 'per-call' || bill.cost === null || bill.cost <= 0 || billing.totals.cost === null) {
        without.push(`${rel}#${i} (${bill.source}${bill.cost === null ? `, ${bill.reason}` : ''})`);
        return;
      }
      const m = billing.totals;
      rows.push({
        file: rel, run: i, format: run.format, calls: bill.calls, source: bill.label,
        // The bill's own comparison: at the price table against the usage priced, at the log's rates against its stated cost.
        recorded: bill.cost, modelled: m.cost!, deviation: bill.difference ?? (m.cost! - bill.cost) / bill.cost,
        perCall: billing.recorded.medianCallCostDeviation, why: bill.differenceReason ?? '',
        tokens: `in ${k(m.input)}/${k(bill.tokens.input)} read ${k(m.cachedInput)}/${k(bill.tokens.cachedInput)} write ${k(m.cacheWrite)}/${k(bill.tokens.cacheWrite)} out ${k(m.output)}/${k(bill.tokens.output)}`,
        unrecorded: bill.unrecorded ? `${bill.unrecorded.requests} of ${bill.unrecorded.of} requests without usage, left out of the comparison` : '',
      });
    });
  }
  return { rows, without, seconds: (performance.now() - started) / 1000 };
}

/** Thousands of tokens, modelled/recorded. */
function k(n: number): string {
  return n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(Math.round(n));
}

const median = (xs: number[]) => (xs.length === 0 ? NaN : xs.length % 2 ? xs[(xs.length - 1) / 2] : (xs[xs.length / 2 - 1] + xs[xs.length / 2]) / 2);

function report(name: string, m: Measured): { within: number; runs: number; median: number } {
  const { rows, without } = m;
  console.log(`  ${name}: ${rows.length} runs with per-call usage (${m.seconds.toFixed(1)} s); tokens are modelled/recorded`);
  for (const r of rows) {
    console.log(`    ${`${r.file}${r.run ? `#${r.run}` : ''}`.padEnd(72)} ${r.format.padEnd(15)} ${String(r.calls).padStart(4)} calls  recorded $${r.recorded.toFixed(4).padStart(9)} (${r.source === 'recorded' ? 'stated' : 'usage priced'})  modelled $${r.modelled.toFixed(4).padStart(9)}  ${pct(r.deviation).padStart(8)}  per-call median ${r.perCall === null ? '—' : `${(r.perCall * 100).toFixed(1)}%`}  ${r.tokens}${r.unrecorded ? `  (${r.unrecorded})` : ''}${Math.abs(r.deviation) > BAND ? `  why: ${r.why}` : ''}`);
  }
  const abs = rows.map((r) => Math.abs(r.deviation)).sort((a, b) => a - b);
  const within = abs.filter((d) => d <= BAND).length;
  const buckets: [string, (d: number) => boolean][] = [['≤5%', (d) => d <= 0.05], ['5–10%', (d) => d > 0.05 && d <= 0.1], ['10–25%', (d) => d > 0.1 && d <= 0.25], ['25–50%', (d) => d > 0.25 && d <= 0.5], ['>50%', (d) => d > 0.5]];
  console.log(`    distribution of |modelled − recorded| ÷ recorded: ${buckets.map(([label, f]) => `${label} ${abs.filter(f).length}`).join(', ')}`);
  const perCall = rows.map((r) => r.perCall).filter((x): x is number => x !== null).sort((a, b) => a - b);
  console.log(`    median |deviation| ${(median(abs) * 100).toFixed(1)}%; median per-call deviation ${(median(perCall) * 100).toFixed(1)}% (over runs' medians)`);
  console.log(`    within ±${BAND * 100}%: ${within} of ${rows.length} (${rows.length ? ((within / rows.length) * 100).toFixed(0) : 0}%; target 90%)`);
  console.log(`    without per-call usage to compare (${without.length}): ${without.slice(0, 30).join(', ')}${without.length > 30 ? ', …' : ''}`);
  return { within, runs: rows.length, median: median(abs) };
}

async function main(): Promise<void> {
  const devWild = wildSplitFiles('dev', WILD);
  const inSample = distinct([...walk(path.join(SHARED, 'corpus')), ...walk(path.join(ROOT, 'test', 'fixtures')).filter((f) => !/[/\\](entities|facts)[/\\]/.test(f)), ...devWild]);
  console.log(`Cost: modelled (replay, no compaction) against the run's recorded bill`);
  const a = report(`in-sample (corpus, fixtures, ${devWild.length} wild dev files)`, await measure(inSample));
  if (process.env.ATL_BENCH_COST_LOCKED === '0') return;
  const locked = lockedFiles().filter((f) => !inSample.includes(f));
  const b = report(`locked (bench/cost-locked.json, ${locked.length} files)`, await measure(locked));
  const share = (x: { within: number; runs: number }) => `${x.within}/${x.runs} (${x.runs ? ((x.within / x.runs) * 100).toFixed(0) : 0}%)`;
  console.log(`  side by side, within ±10%: in-sample ${share(a)}, median |dev| ${(a.median * 100).toFixed(1)}%  |  locked ${share(b)}, median |dev| ${(b.median * 100).toFixed(1)}%`);
}

void main();
