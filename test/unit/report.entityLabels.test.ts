import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { absentLabelFiles, HELDOUT_DIR, LABEL_DIR, labelFiles, LOCKED_DIR, LOCKED_RELABELLED_DIR, scoreAll } from '../helpers/entityLabels';

// The loss report's entities measured against a set labelled by hand from real runs
// (test/fixtures/entities): at least 300 entities from at least 10 runs of at least 5 formats,
// with precision and recall each at least 90%.

test('entity extraction: precision and recall against the hand-labelled set are each at least 90%', async () => {
  const s = await scoreAll();
  assert.ok(s.labelled >= 300 && s.runs >= 10 && s.formats >= 5, `${s.labelled} entities, ${s.runs} runs, ${s.formats} formats`);
  const detail = s.perFile.map((f) => `${f.name}: ${f.matched}/${f.labelled} labelled found, ${f.matched}/${f.extracted} extracted right` +
    `${f.missed.length ? `\n    missed: ${f.missed.map(([k, t]) => `${k} ${JSON.stringify(t)}`).join('; ')}` : ''}` +
    `${f.extra.length ? `\n    extra: ${f.extra.map((e) => `${e.kind} ${JSON.stringify(e.text)}`).join('; ')}` : ''}`).join('\n');
  console.log(`entity labels: ${s.labelled} from ${s.runs} runs of ${s.formats} formats; precision ${(s.precision * 100).toFixed(1)}%, recall ${(s.recall * 100).toFixed(1)}%`);
  assert.ok(s.precision >= 0.9, `precision ${(s.precision * 100).toFixed(1)}%\n${detail}`);
  assert.ok(s.recall >= 0.9, `recall ${(s.recall * 100).toFixed(1)}%\n${detail}`);
});

test('entity extraction on runs it was not developed on (test/fixtures/entities-heldout): precision and recall each at least 90%, reported beside the in-sample figures', async () => {
  const inSample = await scoreAll([LABEL_DIR]);
  const held = await scoreAll([HELDOUT_DIR]);
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const absent = absentLabelFiles();
  console.log(`entity labels in-sample: ${inSample.labelled} from ${inSample.runs} runs, precision ${pct(inSample.precision)}, recall ${pct(inSample.recall)}; ` +
    `held out: ${held.labelled} from ${held.runs} runs, precision ${pct(held.precision)}, recall ${pct(held.recall)}${absent.length ? ` (not on this machine: ${absent.join(', ')})` : ''}`);
  assert.ok(held.runs >= 2 && held.labelled >= 9, `${held.labelled} held-out entities from ${held.runs} runs`);
  const detail = held.perFile.map((f) => `${f.name}: missed ${JSON.stringify(f.missed)}; extra ${JSON.stringify(f.extra.map((e) => [e.kind, e.text]))}`).join('\n');
  assert.ok(held.precision >= 0.9, `held-out precision ${pct(held.precision)}\n${detail}`);
  assert.ok(held.recall >= 0.9, `held-out recall ${pct(held.recall)}\n${detail}`);
});

test('entity extraction on the locked third (test/fixtures/entities-locked, never tuned on): figures printed beside the others', async () => {
  const locked = await scoreAll([LOCKED_DIR]);
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const absent = absentLabelFiles(LOCKED_DIR);
  console.log(`entity labels locked: ${locked.labelled} from ${locked.runs} runs, precision ${pct(locked.precision)}, recall ${pct(locked.recall)}${absent.length ? ` (not on this machine: ${absent.join(', ')})` : ''}`);
  // Totals only: the locked misses are not to be read while working (the test log is read often).
  for (const f of locked.perFile) console.log(`  ${f.name}: ${f.matched}/${f.labelled} labelled found, ${f.matched}/${f.extracted} extracted right`);
  assert.ok(locked.runs >= 4 && locked.labelled >= 30, `${locked.labelled} locked entities from ${locked.runs} runs`);
});

test('the locked runs labelled again (test/fixtures/entities-locked-relabelled) are locked runs, and their figures print beside the first labels', async () => {
  const locked = new Map(labelFiles(LOCKED_DIR).map((l) => [`${l.wild ?? l.fixture ?? l.corpus}#${l.run}`, l]));
  const again = labelFiles(LOCKED_RELABELLED_DIR);
  assert.ok(again.length >= 2, `${again.length} relabelled runs`);
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const [firstScores, againScores] = [await scoreAll([LOCKED_DIR]), await scoreAll([LOCKED_RELABELLED_DIR])];
  for (const l of again) {
    const first = locked.get(`${l.wild ?? l.fixture ?? l.corpus}#${l.run}`);
    assert.ok(first, `${l.name} names no run of the locked set`);
    assert.equal(l.range, first.range, `${l.name}: the same range as the first labels`);
    const [a, b] = [firstScores.perFile.find((f) => f.name === first.name)!, againScores.perFile.find((f) => f.name === l.name)!];
    console.log(`  ${l.name}: first labels ${a.labelled} (precision ${pct(a.matched / a.extracted)}, recall ${pct(a.matched / a.labelled)}); labelled again ${b.labelled} (precision ${pct(b.matched / b.extracted)}, recall ${pct(b.matched / b.labelled)})`);
  }
});
