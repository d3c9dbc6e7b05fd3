import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { TrajectoryLoadError, type LoadErrorCode } from '../../src/core/io/errors';
import { fixture, writeTemp } from '../helpers/paths';
import { loadTrajectory } from '../../src/core/open';
import { loadRun } from '../helpers/runs';

// Every file a user might open by mistake must give one clear error that names the file and says
// what is wrong, and damaged trajectories must load as much as they can with a warning that says where.

async function rejects(file: string, code: LoadErrorCode, says: RegExp, options = {}): Promise<void> {
  await assert.rejects(loadRun(file, options), (e: unknown) => {
    assert.ok(e instanceof TrajectoryLoadError, `expected a TrajectoryLoadError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    assert.ok(e.message.includes(file), `the message names the file: ${e.message}`);
    assert.match(e.message, says);
    return true;
  });
}

const chat = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Fix ABC-123: tests/test_card.py::test_float fails.' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"command":"pytest -x"}' } }] },
  { role: 'tool', tool_call_id: 'c1', content: 'FAILED tests/test_card.py::test_float' },
  { role: 'assistant', content: 'Fixed the float formatting.' },
];

test('bad input: text that is not JSON and has no trajectory markers', async () => {
  await rejects(writeTemp('broken.json', '{"a": [1, 2,'), 'not-json', /not valid JSON.*line 1/);
  await rejects(writeTemp('garbage.json', '{"a": 1 "b": 2}'), 'not-json', /not valid JSON/);
  await rejects(writeTemp('notes.txt', 'We met on Tuesday.\nThe action items are in the wiki.\n'), 'unrecognized', /not a trajectory.*plain text.*Formats tried: .*openai-chat/);
});

test('bad input: valid JSON that is no trajectory says what it found and what was tried', async () => {
  await rejects(writeTemp('hello.json', '{"hello": "world"}'), 'unrecognized', /JSON object with keys hello.*Formats tried: .*katalyst/);
  await rejects(writeTemp('numbers.json', '[1,2,3]'), 'unrecognized', /JSON array of 3 items.*Formats tried:/);
});

test('bad input: empty and white-space-only files', async () => {
  await rejects(writeTemp('empty.json', ''), 'empty', /empty/);
  await rejects(writeTemp('blank.jsonl', '  \n\t\n\n'), 'empty', /only white space/);
});

test('bad input: binary files are refused before any parsing', async () => {
  await rejects(writeTemp('data.bin', new Uint8Array([0x7b, 0x22, 0x00, 0x01, 0x02, 0x22, 0x7d])), 'binary', /binary/);
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]);
  await rejects(writeTemp('screenshot.json', png), 'binary', /binary/);
});

test('bad input: a truncated JSON document loads every complete record and warns with the line', async () => {
  const full = JSON.stringify({ model: 'gpt-4o', messages: chat }, null, 2);
  const cut = full.slice(0, full.indexOf('Fixed the float') + 5); // mid-way through the last message
  const t = await loadRun(writeTemp('cut.json', cut));
  assert.equal(t.format, 'openai-chat');
  assert.deepEqual(t.steps.map((s) => s.kind), ['system', 'user', 'tool_call', 'tool_result']);
  assert.equal(t.warnings.length, 1);
  const lineOfBreak = cut.split('\n').length;
  assert.match(t.warnings[0].message, /truncated/);
  assert.ok(t.warnings[0].line !== undefined && t.warnings[0].line >= lineOfBreak - 5 && t.warnings[0].line <= lineOfBreak,
    `warning line ${t.warnings[0].line} is near the break at line ${lineOfBreak}`);
  assert.match(t.warnings[0].message, new RegExp(`line ${t.warnings[0].line}\\b`));
});

test('bad input: bad JSONL lines in the middle are skipped and reported by line number', async () => {
  const lines = chat.map((m) => JSON.stringify(m));
  const text = [lines[0], lines[1], '{"role": "assistant", "content": oops', lines[2], lines[3], 'not json at all', lines[4]].join('\n') + '\n';
  const t = await loadRun(writeTemp('damaged.jsonl', text));
  assert.equal(t.format, 'openai-chat');
  assert.equal(t.records, 5, 'the five good lines load');
  assert.equal(t.steps[t.steps.length - 1].text, 'Fixed the float formatting.');
  assert.deepEqual(t.warnings.map((w) => w.line), [3, 6]);
  assert.match(t.warnings[0].message, /line 3 is not valid JSON/);
  assert.match(t.warnings[1].message, /line 6 is not valid JSON/);
});

test('bad input: a file over the size limit is refused with both sizes and how to raise the limit', async () => {
  const file = writeTemp('big.json', JSON.stringify(chat));
  await rejects(file, 'too-large', /over the limit of 100 B.*--max-size-mb/, { maxBytes: 100 });
  const t = await loadRun(file, { maxBytes: 1024 * 1024 });
  assert.equal(t.steps.length, 5, 'the same file loads under a larger limit');
});

test('bad input: loading never writes to the file, whether it loads or fails', async () => {
  const good = writeTemp('good.json', JSON.stringify(chat));
  const cut = writeTemp('cut.json', JSON.stringify(chat).slice(0, -20));
  const bad = writeTemp('bad.json', '{"hello": "world"}');
  const old = new Date('2024-01-02T03:04:05Z');
  for (const f of [good, cut, bad]) fs.utimesSync(f, old, old);
  const before = [good, cut, bad].map((f) => ({ bytes: fs.readFileSync(f), mtime: fs.statSync(f).mtimeMs }));
  await loadRun(good);
  await loadRun(cut);
  await assert.rejects(loadRun(bad));
  [good, cut, bad].forEach((f, i) => {
    assert.deepEqual(fs.readFileSync(f), before[i].bytes, `${f} content unchanged`);
    assert.equal(fs.statSync(f).mtimeMs, before[i].mtime, `${f} mtime unchanged`);
  });
});

test('jsonl: two records written with no line break between them are both read, and the file says so (a real pi session\'s last line)', async () => {
  // badlogic/pi-mono's compact.jsonl: its last line holds the final reply and the compaction record.
  const file = fixture('pi/pi-mono-two-records-one-line.jsonl');
  const t = await loadTrajectory(file);
  const steps = t.runs[0].steps;
  assert.ok(steps.some((s) => s.kind === 'assistant' && s.text.startsWith('Done. Removed the "Common patterns" section')), 'the reply');
  assert.ok(steps.some((s) => s.kind === 'compaction' && /Conversation Summary: Agent Compaction/.test(s.text)), 'the compaction after it');
  assert.deepEqual(t.warnings.map((w) => w.message).filter((m) => /line break/.test(m)), ['line 3 holds 2 records written with no line break between them; each was read.']);
  assert.equal(t.coverage!.read, 3, 'both records of the line count as read');
  assert.deepEqual(Object.keys(t.coverage!.skipped), ['session (header)']);
});
