import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { loadTrajectory } from '../../src/core/open';
import { fixture } from '../helpers/paths';

// Steps are built on a constructor of their own so their fields live in the object itself
// (steps.ts, `StepObject`; issue 23's memory bound). What leaves the core must still be plain
// data: the webview gets steps by structured clone, the CLI and exports by JSON, and the tests
// and the diff compare them with deepStrictEqual.
for (const rel of ['opencode/all-tools.json', 'gemini-cli/chat-contents-compressed.json', 'claude-code/spotter-parallel-calls-interleaved.jsonl']) {
  test(`steps of ${rel} are plain objects that survive structured clone unchanged`, async () => {
    const t = await loadTrajectory(fixture(rel));
    const steps = t.runs.flatMap((r) => r.steps);
    assert.ok(steps.length > 5, 'the fixture has steps');
    for (const step of steps) {
      assert.equal(Object.getPrototypeOf(step), Object.prototype, `step ${step.index} has Object's prototype`);
      assert.deepStrictEqual(structuredClone(step), step);
    }
  });
}
