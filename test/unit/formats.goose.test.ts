import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { findStrategy, runCompaction } from '../../src/core/compaction';
import { classifyCall } from '../../src/core/compaction/facts';
import { stepFailed } from '../../src/core/compaction/facts/verdict';
import { charEstimateCounter } from '../../src/core/tokens/counter';
import { fixture } from '../helpers/paths';
import { parseRunText } from '../helpers/runs';

// Goose (block/goose) sessions, in the shapes Goose's own types serialise to (its `Message`,
// `MessageContent`, `tool_result_serde` and `Session`; texts and figures ours): no public session
// log was found. Before, a Goose JSON Lines file opened as chat messages: its calls vanished and
// each tool result became a turn of the person's.

const source = (path: string) => ({ path, size: 0, modified: 0 });
const at = (s: number) => 1_745_000_000 + s;

// Built in those shapes (test/fixtures/goose): a session file of Goose ≤ 1.9, and an export whose conversation a compaction went through.
const legacySession = () => fs.readFileSync(fixture('goose/legacy-session.jsonl'), 'utf8');
const exportWithCompaction = () => fs.readFileSync(fixture('goose/export-with-compaction.json'), 'utf8');

test('goose: a session file of Goose ≤ 1.9 is read as Goose: calls and results paired by id, the results no turns of the person, a failed outcome an error', () => {
  const run = parseRunText(legacySession(), source('20250418_1.jsonl'));
  assert.equal(run.format, 'goose', 'was: openai-chat, with the calls lost');
  assert.equal(run.title, 'Fix the price parser');
  assert.deepEqual(run.steps.map((s) => s.kind), ['user', 'assistant', 'tool_call', 'tool_result', 'tool_call', 'tool_result', 'assistant']);
  assert.equal(run.steps.filter((s) => s.kind === 'user').length, 1, 'tool results are not the person speaking');
  const [shell, edit] = run.steps.filter((s) => s.kind === 'tool_call');
  const results = run.steps.filter((s) => s.kind === 'tool_result');
  assert.equal(results[0].answers, shell.index);
  assert.equal(results[1].answers, edit.index);
  assert.equal(results[1].isError, true, '`status: "error"` is the outcome Goose recorded');
  assert.ok(stepFailed(results[1], run.steps));
  assert.equal(run.steps[0].timestamp, new Date(at(0) * 1000).toISOString());
  // Session totals: `accumulated_*` add up the calls; the bare counts are the last call's.
  assert.equal(run.meta.recorded?.inputTokens, 7000);
  assert.equal(run.meta.recorded?.outputTokens, 400);
  assert.equal(run.meta.extra?.cwd, '/home/dev/shop');
});

test('goose: an extension-prefixed tool is read by its own name: developer__text_editor edits, developer__shell runs a command', () => {
  const run = parseRunText(legacySession(), source('20250418_1.jsonl'));
  const [shell, edit] = run.steps.filter((s) => s.kind === 'tool_call');
  assert.equal(classifyCall(shell).command, 'pytest tests/test_price.py');
  const info = classifyCall(edit);
  assert.equal(info.kind, 'edit', 'was: a shell command named "str_replace"');
  assert.deepEqual(info.edits.map((e) => e.file), ['/home/dev/shop/price.py']);
});

test('goose: an export with a compaction: the messages hidden from the agent stay, its summary is a compaction step, MCP isError and an exit code are read', async () => {
  const run = parseRunText(exportWithCompaction(), source('session.json'));
  assert.equal(run.format, 'goose');
  assert.equal(run.title, 'Upgrade the HTTP client');
  assert.equal(run.meta.model, 'claude-sonnet-4-5');
  assert.deepEqual(run.meta.recorded, { model: 'claude-sonnet-4-5', inputTokens: 51_000, outputTokens: 2_100, cost: 0.19 });
  const failed = run.steps.find((s) => s.sourceId === 'c')!;
  assert.equal(failed.isError, true, "MCP's isError");
  assert.equal(failed.exitCode, 1);
  assert.equal(run.steps.find((s) => s.sourceId === 'h')!.exitCode, 0);
  const compaction = run.steps.find((s) => s.kind === 'compaction');
  assert.equal(compaction?.sourceId, 'e', 'the summary only the agent sees, after the messages hidden from it');
  assert.match(compaction!.compaction!.summary!, /no solution \(exit 1\)/);
  assert.equal(run.steps.find((s) => s.sourceId === 'f')?.kind, 'environment', "Goose's own note in the assistant's name is no model call");
  assert.ok(!run.steps.some((s) => s.sourceId === 'd'), 'the marker the person sees is no step of the context');
  assert.equal(run.steps.find((s) => s.sourceId === 'b')?.model, 'claude-sonnet-4-5-20250929');
  // A summary of the run keeps the task and the failed command with its exit code.
  const r = await runCompaction(run, { strategy: findStrategy('openhands-summary')!, range: '0:-1' }, { counter: charEstimateCounter });
  assert.match(r.summary!, /Upgrade httpx to 0\.28/);
  assert.match(r.summary!, /uv add httpx==0\.28[^\n]*exit 1/);
});

test('goose: a block of a type this reader does not know keeps its message, named by its type', () => {
  const lines = legacySession().trimEnd().split('\n');
  lines.splice(2, 0, JSON.stringify({ id: 'n1', role: 'user', created: at(3), content: [{ type: 'toolSetUpdate', added: ['developer__shell'] }] }));
  const run = parseRunText(lines.join('\n'), source('20250418_1.jsonl'));
  assert.equal(run.format, 'goose');
  const kept = run.steps.find((s) => s.sourceId === 'n1');
  assert.equal(kept?.kind, 'environment');
  assert.match(kept!.label!, /toolSetUpdate/);
  assert.equal(run.steps.filter((s) => s.kind === 'tool_call').length, 2, 'the messages around it are read as before');
});

test('goose: chat messages with text only and an OpenAI chat log are not read as Goose', () => {
  const chat = [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }].map((m) => JSON.stringify(m)).join('\n');
  assert.notEqual(parseRunText(chat, source('chat.jsonl')).format, 'goose');
});

test('goose: an MCP result holding audio, an embedded resource and a link reads as their text and names, never as base64', () => {
  const lines = legacySession().trimEnd().split('\n');
  const audio = 'UklGR'.repeat(2000);
  lines[3] = JSON.stringify({
    id: 'm3', role: 'user', created: 1745000009,
    content: [{ type: 'toolResponse', id: 'toolu_1', toolResult: { status: 'success', value: [
      { type: 'text', text: 'recorded the session' },
      { type: 'audio', data: audio, mimeType: 'audio/wav' },
      { type: 'resource', resource: { uri: 'file:///home/dev/shop/notes.md', text: 'price parser: accept 2.5e3' } },
      { type: 'resource_link', uri: 'file:///home/dev/shop/price.py', name: 'price.py' },
      { type: 'text', text: '' },
    ] } }],
  });
  const run = parseRunText(lines.join('\n'), source('20250418_1.jsonl'));
  const result = run.steps.find((s) => s.kind === 'tool_result')!;
  assert.equal(result.text, 'recorded the session\n[audio]\nprice parser: accept 2.5e3\n[resource file:///home/dev/shop/price.py]');
  assert.ok(!result.text.includes('UklGR'), 'the audio is named, not dumped into the step and its token count');
});
