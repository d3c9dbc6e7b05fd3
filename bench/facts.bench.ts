// `npm run bench` (facts part): how many hand-picked facts each summarising strategy keeps offline,
// on the in-sample set (test/fixtures/facts) and on runs the fact layer was not developed on
// (test/fixtures/facts-heldout), side by side, against the target of 90% at a median reduction of
// 60%. No timing: the figures are about what a summary keeps.
import { factFiles, FACTS_DIR, FACTS_HELDOUT_DIR, measureFacts } from '../test/helpers/factLabels';

async function main(): Promise<void> {
  const inFiles = factFiles(FACTS_DIR).present;
  const held = factFiles(FACTS_HELDOUT_DIR);
  const a = await measureFacts(inFiles);
  const b = await measureFacts(held.present);
  const pct = (k: number, n: number) => `${((k / Math.max(1, n)) * 100).toFixed(0)}%`.padStart(5);
  console.log(`\nFacts kept by offline summaries: in-sample ${inFiles.length} runs, held out ${held.present.length} runs${held.absent.length ? ` (not on this machine: ${held.absent.join(', ')})` : ''}`);
  console.log(`  ${'strategy'.padEnd(24)} ${'in-sample'.padEnd(22)} held out`);
  for (const [i, r] of a.entries()) {
    const h = b[i];
    const cell = (x: typeof r) => `${pct(x.kept, x.facts)} ${`${x.kept}/${x.facts}`.padEnd(7)} red. ${(x.median * 100).toFixed(0)}%`;
    console.log(`  ${r.id.padEnd(24)} ${cell(r).padEnd(22)} ${cell(h)}${h.taskLost.length ? ` — task dropped on ${h.taskLost.join(', ')}` : ''}`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
