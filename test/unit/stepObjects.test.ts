import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { loadTrajectory } from '../../src/core/open';
import { geminiRewinds } from '../helpers/hostilePayloads';
import { fixture, writeTemp } from '../helpers/paths';

// Steps are built on a constructor of their own so their fields live in the object itself
// (steps.ts, `StepObject`; issue 23's memory bound). What leaves the core must still be plain
// data: the webview gets steps by structured clone, the CLI and exports by JSON, and the tests
// and the diff compare them with deepStrictEqual.
// A Gemini CLI JSON Lines session's steps are made as its lines are read and placed at the end (`StepRecorder`).
const files: [string, () => string][] = [
  ...['opencode/all-tools.json', 'gemini-cli/chat-contents-compressed.json', 'claude-code/spotter-parallel-calls-interleaved.jsonl'].map((rel): [string, () => string] => [rel, () => fixture(rel)]),
  ['a Gemini CLI JSON Lines session with rewinds', () => writeTemp('session-rewinds.jsonl', geminiRewinds(20))],
];
for (const [name, file] of files) {
  test(`steps of ${name} are plain objects that survive structured clone unchanged`, async () => {
    const t = await loadTrajectory(file());
    const steps = t.runs.flatMap((r) => r.steps);
    assert.ok(steps.length > 5, 'the fixture has steps');
    for (const step of steps) {
      assert.equal(Object.getPrototypeOf(step), Object.prototype, `step ${step.index} has Object's prototype`);
      assert.deepStrictEqual(structuredClone(step), step);
    }
  });
}
