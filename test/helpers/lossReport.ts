// What the loss-report batch tests ask of a real run: the texts of the entities of one kind the
// report lists over the whole run, and the result that holds a marker.
import { strict as assert } from 'node:assert';
import { extractEntities } from '../../src/core/report/entities';
import type { Run, Step } from '../../src/core/model';

export function entityTexts(r: Run, kind: string): string[] {
  return extractEntities(r, r.steps.map((s) => s.index)).filter((e) => e.kind === kind).map((e) => e.text);
}

export function resultWith(r: Run, marker: string): Step {
  const s = r.steps.find((x) => x.kind === 'tool_result' && x.text.includes(marker));
  assert.ok(s, `the run holds a result with ${marker}`);
  return s;
}
