import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyCall } from '../../src/core/compaction/facts';
import { fixture } from '../helpers/paths';
import { loadRun, parseRunText } from '../helpers/runs';

// Cursor's CLI agent (`cursor-agent -p --output-format stream-json`), two real captures
// (reifying/cursor-hack, MIT). Before, they opened as Claude Code stream-json (the same init,
// messages and result) and their tool calls and thinking became no step.

test('cursor-agent: a stream is read as Cursor: shell calls and their results paired by call id, thinking deltas one thought', async () => {
  const run = await loadRun(fixture('cursor-agent/cursor-hack-direct-sleep.jsonl'));
  assert.equal(run.format, 'cursor-agent', 'was: claude-code, with 215 of its 220 records no step');
  assert.equal(run.meta.model, 'Auto');
  assert.equal(run.meta.extra?.cwd, '/home/user/project');
  const calls = run.steps.filter((s) => s.kind === 'tool_call');
  assert.deepEqual(calls.map((c) => classifyCall(c).command), ['sleep 5', 'sleep 3']);
  const results = run.steps.filter((s) => s.kind === 'tool_result');
  assert.deepEqual(results.map((r) => r.answers), calls.map((c) => c.index));
  assert.deepEqual(results.map((r) => r.exitCode), [0, 0], "the exit code Cursor recorded");
  // 210 deltas make one thought; the records it took say where they went.
  const thoughts = run.steps.filter((s) => s.kind === 'thought' && s.label === 'thinking');
  assert.equal(thoughts.length, 1);
  assert.ok(thoughts[0].text.length > 200, thoughts[0].text);
  assert.equal(run.coverage?.read, run.steps.length);
  assert.equal((run.coverage?.skipped['thinking delta (read into the thought it continues)'] ?? 0), 209);
  // The calls carry what the model asked, not Cursor's parse of the command.
  assert.doesNotMatch(calls[0].tool!.args, /parsingResult|toolCallId|simpleCommands/);
});

test('cursor-agent: parallel calls whose completions come back in the other order pair by id; text before the calls is shown text, "done" the answer', async () => {
  const run = await loadRun(fixture('cursor-agent/cursor-hack-parallel-sleep.jsonl'));
  const [six, four] = run.steps.filter((s) => s.kind === 'tool_call');
  const results = run.steps.filter((s) => s.kind === 'tool_result');
  assert.deepEqual(results.map((r) => r.answers), [four.index, six.index]);
  assert.deepEqual(run.steps.filter((s) => s.kind === 'assistant').map((s) => s.text), ['done']);
  assert.equal(run.steps.filter((s) => s.kind === 'thought' && s.label === 'text').length, 1);
});

test('cursor-agent: a failed call (any result but success) is an error; a failed run is an error step; usage on the result is the run\'s totals', () => {
  const line = (o: object) => JSON.stringify({ session_id: 's', ...o });
  const text = [
    line({ type: 'system', subtype: 'init', apiKeySource: 'login', cwd: '/w', model: 'gpt-5', permissionMode: 'default' }),
    line({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'Read config.yaml' }] } }),
    line({ type: 'tool_call', subtype: 'started', call_id: 'c1', tool_call: { readToolCall: { args: { path: 'config.yaml' } } } }),
    line({ type: 'tool_call', subtype: 'completed', call_id: 'c1', tool_call: { readToolCall: { args: { path: 'config.yaml' }, result: { error: { errorMessage: 'x', message: 'File not found: config.yaml' } } } } }),
    line({ type: 'result', subtype: 'error', is_error: true, result: 'The model provider returned 529', usage: { inputTokens: 1200, outputTokens: 40, cacheReadTokens: 800 } }),
  ].join('\n');
  const run = parseRunText(text, { path: 'cursor.jsonl', size: text.length });
  assert.equal(run.format, 'cursor-agent');
  const result = run.steps.find((s) => s.kind === 'tool_result')!;
  assert.equal(result.isError, true);
  assert.match(result.text, /File not found: config\.yaml/);
  assert.deepEqual(classifyCall(run.steps.find((s) => s.kind === 'tool_call')!).reads, ['config.yaml']);
  const failed = run.steps[run.steps.length - 1];
  assert.equal(failed.kind, 'other');
  assert.equal(failed.isError, true);
  assert.deepEqual(run.meta.recorded, { model: 'gpt-5', inputTokens: 1200, outputTokens: 40, cachedInputTokens: 800 });
});

test('cursor-agent: Claude Code stream-json is still Claude Code', () => {
  const text = [
    JSON.stringify({ type: 'system', subtype: 'init', cwd: '/w', session_id: 's', tools: ['Bash'], model: 'claude-sonnet-4-5' }),
    JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'hi' }] }, session_id: 's' }),
    JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'hello' }] }, session_id: 's' }),
  ].join('\n');
  assert.equal(parseRunText(text, { path: 'stream.jsonl', size: text.length }).format, 'claude-code');
});
