import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadTrajectory } from '../../src/core/open';
import { toAtif } from '../../src/core/formats/atifExport';
import type { Run } from '../../src/core/model';
import { allRealFiles } from '../helpers/realFiles';
import { tempDir, writeTemp } from '../helpers/paths';
import { loadRun } from '../helpers/runs';

// `convert --to atif` and reading the result back keeps every step, call and error: the kinds
// and their counts, calls answered, and steps marked as errors.

function shape(t: Run): Record<string, unknown> {
  const kinds: Record<string, number> = {};
  for (const s of t.steps) kinds[s.kind] = (kinds[s.kind] ?? 0) + 1;
  return {
    kinds: Object.fromEntries(Object.entries(kinds).sort()),
    answeredCalls: t.steps.filter((s) => s.kind === 'tool_call' && t.steps.some((r) => r.answers === s.index)).length,
    errors: t.steps.filter((s) => s.isError).length,
  };
}

/**
 * The run written as ATIF and read back. Written under the original's name into a folder of its
 * own, with the subagent files it was read with at the same places: an ATIF document keeps its
 * subagents in their files, and the folder moves with it.
 */
async function roundTrip(t: Run): Promise<Run> {
  const dir = tempDir('atl-roundtrip-');
  const home = path.dirname(t.source.path);
  for (const sub of new Set(t.steps.map((s) => s.location?.file).filter((f): f is string => f !== undefined))) {
    const to = path.join(dir, path.relative(home, sub));
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(sub, to);
  }
  const file = path.join(dir, path.basename(t.source.path));
  fs.writeFileSync(file, JSON.stringify(toAtif(t)));
  return loadRun(file);
}

test('atif round trip: every corpus file and fixture keeps its steps, calls and errors', async () => {
  for (const file of allRealFiles()) {
    const t = await loadTrajectory(file);
    const runs = t.runs.slice(0, 5);
    for (const [i, run] of runs.entries()) {
      const back = await roundTrip(run);
      assert.deepEqual(shape(back), shape(run), `${file} run ${i}`);
    }
  }
});

test('atif round trip: several Gemini thoughts of one reply stay several thought steps', async () => {
  // Gemini CLI's session layout (messages with `thoughts: [{subject, description}]`), as the CLI writes it.
  const session = {
    sessionId: 'rt-1', projectHash: 'abc', startTime: '2026-03-01T10:00:00Z', lastUpdated: '2026-03-01T10:00:09Z',
    messages: [
      { id: 'u1', timestamp: '2026-03-01T10:00:01Z', type: 'user', content: [{ text: 'Why does test_add fail?' }] },
      { id: 'g1', timestamp: '2026-03-01T10:00:02Z', type: 'gemini', content: '', model: 'gemini-2.5-pro',
        thoughts: [
          { subject: 'Locating the test', description: 'I will read tests/test_math.py first.', timestamp: '2026-03-01T10:00:02Z' },
          { subject: 'Planning the read', description: 'Then math.py, to compare.', timestamp: '2026-03-01T10:00:02Z' },
        ],
        toolCalls: [{ id: 'c1', name: 'read_file', args: { path: 'math.py' }, status: 'success', timestamp: '2026-03-01T10:00:03Z',
          result: [{ functionResponse: { id: 'c1', name: 'read_file', response: { output: 'def add(a, b): return a - b' } } }] }],
        tokens: { input: 1200, output: 40, cached: 0, thoughts: 25, tool: 0, total: 1265 } },
      { id: 'g2', timestamp: '2026-03-01T10:00:04Z', type: 'gemini', content: 'add() subtracts; it should return a + b.', model: 'gemini-2.5-pro',
        thoughts: [
          { subject: 'Spotting the bug', description: 'The operator is wrong.', timestamp: '2026-03-01T10:00:04Z' },
          { subject: 'Answering', description: 'Say so plainly.', timestamp: '2026-03-01T10:00:04Z' },
        ],
        tokens: { input: 1300, output: 12, cached: 0, thoughts: 9, tool: 0, total: 1321 } },
    ],
  };
  const t = await loadRun(writeTemp('session-2026-03-01T10-00-rt1.json', JSON.stringify(session)));
  assert.equal(t.format, 'gemini-cli');
  assert.equal(t.steps.filter((s) => s.kind === 'thought').length, 4);
  const back = await roundTrip(t);
  assert.deepEqual(shape(back), shape(t));
  assert.deepEqual(back.steps.filter((s) => s.kind === 'thought').map((s) => s.text), t.steps.filter((s) => s.kind === 'thought').map((s) => s.text));
});

test('atif round trip: a Cline failed API request stays an error step, not a system step', async () => {
  // ui_messages.json in the shape Cline publishes (ClineMessage: ts, type, say, text).
  const ui = [
    { ts: 1760000000000, type: 'say', say: 'task', text: 'Add a --verbose flag to cli.py' },
    { ts: 1760000001000, type: 'say', say: 'api_req_started', text: JSON.stringify({ request: '<task>Add a --verbose flag</task>', tokensIn: 900, tokensOut: 30, cost: 0.01 }) },
    { ts: 1760000002000, type: 'say', say: 'text', text: 'I will read cli.py.' },
    { ts: 1760000003000, type: 'say', say: 'api_req_started', text: JSON.stringify({ request: '…' }) },
    { ts: 1760000004000, type: 'say', say: 'api_req_failed', text: '429 {"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}' },
    { ts: 1760000005000, type: 'say', say: 'api_req_started', text: JSON.stringify({ request: '…', tokensIn: 950, tokensOut: 20, cost: 0.01 }) },
    { ts: 1760000006000, type: 'say', say: 'completion_result', text: 'Added the flag.' },
  ];
  const t = await loadRun(writeTemp('ui_messages.json', JSON.stringify(ui)));
  const failed = t.steps.find((s) => /rate_limit_error/.test(s.text))!;
  assert.equal(failed.kind, 'other');
  assert.equal(failed.isError, true);
  const back = await roundTrip(t);
  assert.deepEqual(shape(back), shape(t));
  const again = back.steps.find((s) => /rate_limit_error/.test(s.text))!;
  assert.equal(again.kind, 'other');
  assert.equal(again.isError, true);
  assert.equal(again.label, failed.label);
});

test('atif round trip: empty thinking and text blocks of a Claude Code reply stay steps', async () => {
  // Claude Code 2.1 lines as it writes them when the thinking is not shown: `thinking: ""` with a
  // signature, then an empty text block before the call. Each is a step; the export kept neither.
  const lines = [
    { type: 'user', uuid: 'u1', parentUuid: null, sessionId: 's', version: '2.1.80', timestamp: '2026-03-01T00:00:00.000Z', message: { role: 'user', content: 'Fix the bug' } },
    { type: 'assistant', uuid: 'a0', parentUuid: 'u1', sessionId: 's', version: '2.1.80', timestamp: '2026-03-01T00:00:01.000Z', message: { id: 'msg_1', role: 'assistant', model: 'claude-opus-4-6', content: [{ type: 'thinking', thinking: '', signature: 'EqQBCkgIBhABGAIiQ' }] } },
    { type: 'assistant', uuid: 'a1', parentUuid: 'a0', sessionId: 's', version: '2.1.80', timestamp: '2026-03-01T00:00:01.000Z', message: { id: 'msg_1', role: 'assistant', model: 'claude-opus-4-6', content: [{ type: 'text', text: '' }, { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }] } },
    { type: 'user', uuid: 'r1', parentUuid: 'a1', sessionId: 's', version: '2.1.80', timestamp: '2026-03-01T00:00:02.000Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.py' }] } },
    { type: 'assistant', uuid: 'a2', parentUuid: 'r1', sessionId: 's', version: '2.1.80', timestamp: '2026-03-01T00:00:03.000Z', message: { id: 'msg_2', role: 'assistant', model: 'claude-opus-4-6', content: [{ type: 'text', text: 'Done.' }] } },
  ];
  const t = await loadRun(writeTemp('empty-thinking.jsonl', lines.map((l) => JSON.stringify(l)).join('\n')));
  assert.equal(t.steps.length, 6);
  const back = await roundTrip(t);
  assert.deepEqual(back.steps.map((s) => s.kind), t.steps.map((s) => s.kind));
  assert.deepEqual(shape(back), shape(t));
});
