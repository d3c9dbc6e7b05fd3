// `npm run bench` (facts part): how many hand-picked facts each summarising strategy keeps offline,
// on the in-sample set (test/fixtures/facts), on runs the fact layer was not developed on
// (test/fixtures/facts-heldout), on wild-log dev runs labelled after that set was tuned on
// (test/fixtures/facts-fresh), on three of those runs labelled again by a second labeller
// (test/fixtures/facts-relabelled), on long wild-log dev runs (test/fixtures/facts-long) and on the locked third no change is tuned on
// (test/fixtures/facts-locked), with four of its runs labelled again under a written rule
// (test/fixtures/facts-locked-relabelled), side by side, against the target of 90% at a median reduction of
// 60%. No timing: the figures are about what a summary keeps. ATL_BENCH_FACTS_LOCKED=0 leaves the
// locked column out, for work that must not see it before it is finished.
import { factFiles, FACTS_DIR, FACTS_FRESH_DIR, FACTS_HELDOUT_DIR, FACTS_LOCKED_DIR, FACTS_LOCKED_RELABELLED_DIR, FACTS_LONG_DIR, FACTS_RELABELLED_DIR, measureFacts, type StrategyFacts } from '../test/helpers/factLabels';

async function main(): Promise<void> {
  const withLocked = process.env.ATL_BENCH_FACTS_LOCKED !== '0';
  const sets = [['in-sample', FACTS_DIR], ['held out', FACTS_HELDOUT_DIR], ['fresh', FACTS_FRESH_DIR], ['relabelled', FACTS_RELABELLED_DIR], ['long', FACTS_LONG_DIR], ...(withLocked ? [['locked', FACTS_LOCKED_DIR], ['locked, relabelled', FACTS_LOCKED_RELABELLED_DIR]] as const : [])] as const;
  const files = sets.map(([, dir]) => factFiles(dir));
  const rows = await Promise.all(files.map((f) => measureFacts(f.present)));
  const pct = (k: number, n: number) => `${((k / Math.max(1, n)) * 100).toFixed(0)}%`.padStart(4);
  const absent = files.flatMap((f) => f.absent);
  console.log(`\nFacts kept by offline summaries (target ≥ 90% at a median reduction ≥ 60%): ${sets.map(([name], i) => `${name} ${files[i].present.length} runs`).join(', ')}${absent.length ? ` (not on this machine: ${absent.join(', ')})` : ''}`);
  console.log(`  ${'strategy'.padEnd(24)} ${sets.map(([name]) => name.padEnd(24)).join(' ')}`);
  const cell = (x: StrategyFacts) => `${pct(x.kept, x.facts)} ${`${x.kept}/${x.facts}`.padEnd(7)} red. ${(x.median * 100).toFixed(0)}%`.padEnd(24);
  for (const [i, r] of rows[0].entries()) {
    const dropped = rows.slice(1).flatMap((set) => set[i].taskLost);
    console.log(`  ${r.id.padEnd(24)} ${rows.map((set) => cell(set[i])).join(' ')}${dropped.length ? ` — task dropped on ${dropped.join(', ')}` : ''}`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
