import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { pairsWhole, parseRange, widenToPairs } from '../../src/core/compaction/range';
import { StepBuilder } from '../../src/core/steps';

test('compaction range: the forms a user types map to inclusive 0-based step ranges', () => {
  assert.deepEqual(parseRange('12-40', 50), { range: [12, 40] });
  assert.deepEqual(parseRange(' 12 - 40 ', 50), { range: [12, 40] });
  assert.deepEqual(parseRange('12:40', 50), { range: [12, 39] }, 'colon form is a slice: the end is excluded');
  assert.deepEqual(parseRange(':-10', 50), { range: [0, 39] }, 'all but the last 10');
  assert.deepEqual(parseRange('-10:', 50), { range: [40, 49] }, 'the last 10');
  assert.deepEqual(parseRange('5:', 50), { range: [5, 49] });
  assert.deepEqual(parseRange('7', 50), { range: [7, 7] });
});

test('compaction range: mistakes are explained, and the explanation says how steps are numbered', () => {
  const beyond = parseRange('12-60', 50);
  assert.ok('error' in beyond && /Step 60 does not exist/.test(beyond.error) && /0–49/.test(beyond.error));
  assert.ok('error' in beyond && /numbered from 0/.test(beyond.error));
  const backwards = parseRange('40-12', 50);
  assert.ok('error' in backwards && /starts after it ends/.test(backwards.error));
  const empty = parseRange(':-60', 50);
  assert.ok('error' in empty && /selects no steps/.test(empty.error));
  const junk = parseRange('first ten', 50);
  assert.ok('error' in junk && /is not a range/.test(junk.error));
  assert.ok('error' in parseRange(':', 50));
});

function pairs() {
  const b = new StepBuilder();
  b.add({ kind: 'user', text: 'task' }); // 0
  b.add({ kind: 'thought', text: 'two calls at once' }); // 1
  b.add({ kind: 'tool_call', text: 'a', tool: { name: 'bash', args: 'ls', callId: 'a' } }); // 2
  b.add({ kind: 'tool_call', text: 'b', tool: { name: 'bash', args: 'pwd', callId: 'b' } }); // 3
  b.add({ kind: 'tool_result', text: 'out a', tool: { name: '', args: '', callId: 'a' } }); // 4
  b.add({ kind: 'tool_result', text: 'out b', tool: { name: '', args: '', callId: 'b' } }); // 5
  b.add({ kind: 'assistant', text: 'done' }); // 6
  return b.finish();
}

test('compaction range: a range never splits a tool call from its result; it widens and says so', () => {
  const steps = pairs();
  const cutAfterCall = widenToPairs(steps, [0, 2]);
  assert.deepEqual(cutAfterCall.range, [0, 5], 'call 2 pulls in result 4, which sits after call 3, whose result 5 comes too');
  assert.match(cutAfterCall.note ?? '', /Widened steps 0–2 to steps 0–5/);
  const cutBeforeResult = widenToPairs(steps, [5, 6]);
  assert.deepEqual(cutBeforeResult.range, [2, 6], 'result 5 pulls in call 3; result 4, now inside, pulls in call 2');
  const whole = widenToPairs(steps, [1, 5]);
  assert.deepEqual(whole.range, [1, 5]);
  assert.equal(whole.note, undefined, 'nothing to say when the range is already whole');
  assert.ok(pairsWhole(steps, (i) => i >= 0 && i <= 5));
  assert.ok(!pairsWhole(steps, (i) => i <= 2));
});
