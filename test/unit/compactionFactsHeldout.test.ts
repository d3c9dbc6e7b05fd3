import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { factFiles, factsReport, FACTS_DIR, FACTS_HELDOUT_DIR, measureFacts } from '../helpers/factLabels';

// The same measure as compactionFacts.test.ts on runs the fact layer was not developed on
// (test/fixtures/facts-heldout, labelled before any strategy ran on them): reported beside the
// in-sample figures; no strategy may drop the task, and each keeps most of the facts.

test('held out: every summarising strategy keeps the task and at least 75% of the hand-picked facts; in-sample and held-out figures side by side', async () => {
  const held = factFiles(FACTS_HELDOUT_DIR);
  assert.ok(held.present.length >= 4, `${held.present.length} held-out runs`);
  const inSample = await measureFacts(factFiles(FACTS_DIR).present);
  const heldOut = await measureFacts(held.present);
  console.log(`facts kept offline — in-sample:\n${factsReport(inSample)}\nheld out (${held.present.length} runs${held.absent.length ? `; not on this machine: ${held.absent.join(', ')}` : ''}):\n${factsReport(heldOut)}`);
  for (const r of heldOut) {
    assert.deepEqual(r.taskLost, [], `${r.id} dropped the task`);
    assert.ok(r.kept / r.facts >= 0.75, `${r.id}: ${r.kept}/${r.facts}\n${factsReport(heldOut)}`);
  }
});
