import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { JsonDocumentScanner } from '../../src/core/io/jsonDocumentStream';
import { loadTrajectory } from '../../src/core/io/load';
import type { Trajectory } from '../../src/core/model';
import { corpus, writeTemp } from '../helpers/paths';

// Documents over 16 MB are read element by element so that the file's bytes, its text and the
// parsed value are never all held at once (issue 14: memory under 3× the input). What the user
// sees must not change: `streamDocumentBytes` lowers the threshold so small files take that path.

const STREAMED = { streamDocumentBytes: 1 };
const WHOLE = { streamDocumentBytes: Number.POSITIVE_INFINITY };

function comparable(t: Trajectory): unknown {
  return { format: t.format, title: t.title, records: t.records, steps: t.steps, meta: t.meta, warnings: t.warnings };
}

for (const rel of ['openhands-v0/basic_gui_mode.json', 'swe-agent/marshmallow-code__marshmallow-1867.traj']) {
  test(`${rel}: read element by element, the same trajectory as read whole`, async () => {
    const file = corpus(rel);
    const whole = await loadTrajectory(file, WHOLE);
    const streamed = await loadTrajectory(file, STREAMED);
    assert.ok(whole.steps.length > 5);
    assert.deepEqual(comparable(streamed), comparable(whole));
  });
}

test('a cut-off document still loads its complete records with the line where it breaks', async () => {
  const events = JSON.parse(fs.readFileSync(corpus('openhands-v0/basic_gui_mode.json'), 'utf8')) as unknown[];
  const text = JSON.stringify(events, null, 1);
  const file = writeTemp('cut.json', text.slice(0, Math.floor(text.length * 0.7)));
  const whole = await loadTrajectory(file, WHOLE);
  const streamed = await loadTrajectory(file, STREAMED);
  assert.match(streamed.warnings[0]?.message ?? '', /ends abruptly.*before line \d+/);
  assert.deepEqual(comparable(streamed), comparable(whole));
});

test('a chat document whose one message is most of the file reads the same both ways', async () => {
  const big = 'INFO build ok\n'.repeat(20_000);
  const file = writeTemp('one-message.json', JSON.stringify({ model: 'gpt-4o', messages: [
    { role: 'user', content: 'Build it.' },
    { role: 'assistant', content: 'Running.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"cmd":"make"}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: big },
    { role: 'assistant', content: 'Done.' },
  ] }));
  const streamed = await loadTrajectory(file, STREAMED);
  assert.deepEqual(comparable(streamed), comparable(await loadTrajectory(file, WHOLE)));
  assert.ok(streamed.steps.some((s) => s.text === big));
});

test('a top-level "__proto__" key is a plain field, as JSON.parse makes it, not the object\'s prototype', () => {
  const text = '{"__proto__": {"polluted": true}, "messages": [{"role": "user", "content": "hi"}]}';
  const scanner = new JsonDocumentScanner(1024);
  scanner.push(Buffer.from(text));
  const value = scanner.value as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(value), Object.prototype);
  assert.equal((value as { polluted?: boolean }).polluted, undefined);
  assert.deepEqual(Object.keys(value), Object.keys(JSON.parse(text) as object));
  assert.deepEqual(Object.getOwnPropertyDescriptor(value, '__proto__')?.value, { polluted: true });
});
