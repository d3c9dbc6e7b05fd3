import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { findStrategy, runCompaction } from '../../src/core/compaction';
import { classifyCall } from '../../src/core/compaction/facts';
import { stepFailed } from '../../src/core/compaction/facts/verdict';
import { charEstimateCounter } from '../../src/core/tokens/counter';
import { parseRunText } from '../helpers/runs';

// Goose (block/goose) sessions, in the shapes Goose's own types serialise to (its `Message`,
// `MessageContent`, `tool_result_serde` and `Session`; texts and figures ours): no public session
// log was found. Before, a Goose JSON Lines file opened as chat messages: its calls vanished and
// each tool result became a turn of the person's.

const source = (path: string) => ({ path, size: 0, modified: 0 });
const at = (s: number) => 1_745_000_000 + s;

function legacySession(): string {
  const lines = [
    { working_dir: '/home/dev/shop', description: 'Fix the price parser', schedule_id: null, message_count: 6, total_tokens: 3100, input_tokens: 3000, output_tokens: 100, accumulated_total_tokens: 7400, accumulated_input_tokens: 7000, accumulated_output_tokens: 400 },
    { id: 'm1', role: 'user', created: at(0), content: [{ type: 'text', text: 'tests/test_price.py::test_parse fails with ValueError: bad price. Fix it.' }] },
    { id: 'm2', role: 'assistant', created: at(5), content: [{ type: 'text', text: 'Running the test first.' }, { type: 'toolRequest', id: 'toolu_1', toolCall: { status: 'success', value: { name: 'developer__shell', arguments: { command: 'pytest tests/test_price.py' } } } }] },
    { id: 'm3', role: 'user', created: at(9), content: [{ type: 'toolResponse', id: 'toolu_1', toolResult: { status: 'success', value: [{ type: 'text', text: 'FAILED tests/test_price.py::test_parse - ValueError: bad price' }] } }] },
    { id: 'm4', role: 'assistant', created: at(12), content: [{ type: 'toolRequest', id: 'toolu_2', toolCall: { status: 'success', value: { name: 'developer__text_editor', arguments: { command: 'str_replace', path: '/home/dev/shop/price.py', old_str: 'float(s)', new_str: 'float(s.strip())' } } } }] },
    { id: 'm5', role: 'user', created: at(14), content: [{ type: 'toolResponse', id: 'toolu_2', toolResult: { status: 'error', error: 'No match found for old_str in /home/dev/shop/price.py' } }] },
    { id: 'm6', role: 'assistant', created: at(20), content: [{ type: 'text', text: 'The replacement did not apply; the file uses Decimal.' }] },
  ];
  return lines.map((l) => JSON.stringify(l)).join('\n');
}

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
  const visible = { userVisible: true, agentVisible: true };
  const archived = { userVisible: true, agentVisible: false };
  const agentOnly = { userVisible: false, agentVisible: true };
  const doc = {
    id: '20251118_7', working_dir: '/srv/api', name: 'Upgrade the HTTP client', created_at: '2025-11-18T09:00:00Z', updated_at: '2025-11-18T09:30:00Z',
    extension_data: {}, message_count: 9, schedule_id: null, provider_name: 'anthropic', model_config: { model_name: 'claude-sonnet-4-5' },
    accumulated_input_tokens: 51_000, accumulated_output_tokens: 2_100, accumulated_cost: 0.19,
    conversation: [
      { id: 'a', role: 'user', created: at(0), content: [{ type: 'text', text: 'Upgrade httpx to 0.28 and keep the retries.' }], metadata: archived },
      { id: 'b', role: 'assistant', created: at(4), content: [{ type: 'toolRequest', id: 'call_1', toolCall: { status: 'success', value: { name: 'shell', arguments: { command: 'uv add httpx==0.28' } } } }], metadata: { ...archived, inference: { provider: 'anthropic', requestedModel: 'claude-sonnet-4-5', resolvedModel: 'claude-sonnet-4-5-20250929' } } },
      { id: 'c', role: 'user', created: at(9), content: [{ type: 'toolResponse', id: 'call_1', toolResult: { status: 'success', value: { content: [{ type: 'text', text: 'error: No solution found when resolving dependencies' }], structuredContent: { exit_code: 1 }, isError: true } } }], metadata: archived },
      { id: 'd', role: 'assistant', created: at(30), content: [{ type: 'conversationCompacted', msg: 'Conversation compacted and summarized' }], metadata: { userVisible: true, agentVisible: false } },
      { id: 'e', role: 'user', created: at(31), content: [{ type: 'text', text: '## Summary\nThe task: upgrade httpx to 0.28. uv add failed: no solution (exit 1).' }], metadata: agentOnly },
      { id: 'f', role: 'assistant', created: at(31), content: [{ type: 'text', text: 'The previous message contains a summary of the conversation so far.' }], metadata: agentOnly },
      { id: 'g', role: 'assistant', created: at(40), content: [{ type: 'thinking', thinking: 'The lock pins anyio.', signature: 'sig' }, { type: 'toolRequest', id: 'call_2', toolCall: { status: 'success', value: { name: 'shell', arguments: { command: 'uv lock --upgrade-package anyio' } } } }], metadata: visible },
      { id: 'h', role: 'user', created: at(45), content: [{ type: 'toolResponse', id: 'call_2', toolResult: { status: 'success', value: { content: [{ type: 'text', text: 'Resolved 31 packages' }], structuredContent: { exit_code: 0 }, isError: false } } }], metadata: visible },
    ],
  };
  const run = parseRunText(JSON.stringify(doc), source('session.json'));
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

test('goose: chat messages with text only and an OpenAI chat log are not read as Goose', () => {
  const chat = [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }].map((m) => JSON.stringify(m)).join('\n');
  assert.notEqual(parseRunText(chat, source('chat.jsonl')).format, 'goose');
});
