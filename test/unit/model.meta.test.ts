// Run metadata says what it is: on every real file, each key of a run's `meta` is a field
// TrajectoryMeta declares (the list below is typed against it, so it cannot name another), and
// whatever else an adapter kept sits in one `extra` bag with a null prototype.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { loadTrajectory } from '../../src/core/open';
import type { TrajectoryMeta } from '../../src/core/model';

import { setExtra, withExtra } from '../../src/core/meta';
import { allRealFiles } from '../helpers/realFiles';

const DECLARED = new Set<string>([
  'agent', 'model', 'recorded', 'recordedByModel', 'recordedPart', 'recordedCallsAtLeast', 'forkedFrom', 'unshownPrompt', 'sessionId', 'version', 'cliVersion', 'startTime', 'contextWindow', 'promptCacheRetention', 'promptCacheRetentionFrom',
  'apiCalls', 'exitStatus', 'jsonPath', 'runIndex', 'instanceId', 'taskId', 'task', 'reward', 'score', 'resolved', 'feedback',
  'trial', 'error', 'recordFields', 'atif', 'atifSteps', 'atifVariant', 'extra',
] satisfies (keyof TrajectoryMeta)[]);

test('every real file: run metadata holds declared fields only, the rest in a null-prototype extra', async () => {
  let extras = 0;
  for (const file of allRealFiles()) {
    const loaded = await loadTrajectory(file);
    for (const t of [loaded, ...loaded.runs]) {
      for (const key of Object.keys(t.meta)) assert.ok(DECLARED.has(key), `${file}: meta.${key} is not a declared field`);
      if (t.meta.extra) {
        extras++;
        assert.equal(Object.getPrototypeOf(t.meta.extra), null, `${file}: meta.extra has a prototype`);
      }
    }
  }
  assert.ok(extras > 10, 'adapters keep their other fields in extra');
});

test('setExtra keeps a key named by a log as data; withExtra copies', () => {
  const meta: TrajectoryMeta = { agent: 'a' };
  setExtra(meta, '__proto__', 'x');
  setExtra(meta, 'skipped', undefined);
  assert.deepEqual(Object.keys(meta.extra!), ['__proto__']);
  const more = withExtra(meta, { compactedBy: 'llm-summary' });
  assert.deepEqual(Object.keys(more.extra!), ['__proto__', 'compactedBy']);
  assert.deepEqual(Object.keys(meta.extra!), ['__proto__'], 'the original is not changed');
});
