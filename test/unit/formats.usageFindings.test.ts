import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { loadTrajectory } from '../../src/core/open';
import { runCost } from '../../src/core/pricing/runCost';
import { runCli } from '../helpers/cli';
import { fixture, writeTemp } from '../helpers/paths';
import { loadRun } from '../helpers/runs';

// Usage two real files of the wild-log set's dev part record and we did not read (issues 20, 21).

// gpt-5-nano and claude-sonnet-4 at their list prices, USD per token.
const NANO = { input: 0.05e-6, output: 0.4e-6 };
const SONNET_4 = { input: 3e-6, output: 15e-6 };

test('Inspect .eval: each sample bills its model call from the usage the log records, reasoning inside the output', async () => {
  const file = await loadTrajectory(fixture('inspect/metr-class-eval.eval'));
  assert.equal(file.runs.length, 5);
  // The header's totals (not the journal's start record, which has none).
  assert.deepEqual(
    [file.meta.recorded?.model, file.meta.recorded?.inputTokens, file.meta.recorded?.outputTokens],
    ['openai/gpt-5-nano', 3287, 14839]);
  const first = file.runs[0];
  const calls = first.steps.filter((s) => s.usage);
  assert.equal(calls.length, 1, 'the one model call of ClassEval_0, on one step');
  assert.deepEqual(
    [calls[0].usage?.model, calls[0].usage?.inputTokens, calls[0].usage?.outputTokens, calls[0].timestamp],
    ['openai/gpt-5-nano', 495, 2978, '2025-12-13T23:15:46.321494+00:00']);
  const bill = runCost(first);
  assert.equal(bill.source, 'per-call');
  assert.equal(bill.label, 'priced from recorded usage');
  assert.ok(Math.abs(bill.cost! - (495 * NANO.input + 2978 * NANO.output)) < 1e-9, `${bill.cost}`);
  const perCall = file.runs.flatMap((r) => r.steps.filter((s) => s.usage).map((s) => s.usage!));
  assert.equal(perCall.reduce((n, u) => n + u.outputTokens!, 0), 14839, 'the calls add up to the header totals');
});

test('stats --tokens on the Inspect .eval shows the recorded usage and its price', async () => {
  const { code, out } = await runCli('stats', fixture('inspect/metr-class-eval.eval'), '--tokens');
  assert.equal(code, 0);
  assert.match(out, /Recorded usage \(log totals, the same per call\), 5 calls\n {2}input {3}recorded 3,287,/);
  assert.match(out, /output {2}recorded 14,839,/);
  assert.match(out, /run {7}\$0\.0061 priced from recorded usage/);
});

test('Inspect usage with cache reads and writes counted apart (Anthropic) is the whole prompt, with its cache parts', async () => {
  const usage = { input_tokens: 10, output_tokens: 50, input_tokens_cache_write: 100, input_tokens_cache_read: 2000, total_tokens: 2160 };
  const log = {
    eval: { task: 't', model: 'anthropic/claude-sonnet-4-5' },
    samples: [{
      id: 1, epoch: 1, model_usage: { 'anthropic/claude-sonnet-4-5': usage },
      messages: [{ id: 'u', role: 'user', content: 'hi' }, { id: 'a', role: 'assistant', content: 'hello' }],
      events: [{ event: 'model', model: 'anthropic/claude-sonnet-4-5', timestamp: '2025-11-01T00:00:00Z', output: { usage, choices: [{ message: { id: 'a', role: 'assistant', content: 'hello' } }] } }],
    }],
  };
  const run = (await loadTrajectory(writeTemp('anthropic.json', JSON.stringify(log)))).runs[0];
  const reply = run.steps.find((s) => s.kind === 'assistant');
  assert.deepEqual(
    [reply?.usage?.inputTokens, reply?.usage?.cachedInputTokens, reply?.usage?.cacheWriteTokens, reply?.usage?.outputTokens],
    [2110, 2000, 100, 50]);
  assert.equal(run.meta.recorded?.inputTokens, 2110);
});

test('OpenHands SDK completion log: the reply carries its recorded usage and LiteLLM\'s cost, shown as recorded', async () => {
  const t = await loadRun(fixture('openai-chat/openhands-sdk-completion-log.json'));
  assert.equal(t.format, 'openai-chat');
  assert.equal(t.meta.model, 'litellm_proxy/claude-sonnet-4-20250514');
  assert.ok(!t.warnings.some((w) => /No format we know/.test(w.message)), 'read as a format, not a conversation found inside');
  const call = t.steps.find((s) => s.usage);
  assert.deepEqual([call?.usage?.inputTokens, call?.usage?.outputTokens, call?.usage?.cost], [6729, 199, 0.023172]);
  assert.equal(call?.timestamp, '2025-09-04T19:44:06.707Z');
  const finish = t.steps.find((s) => s.tool?.name === 'finish');
  assert.equal(finish?.tool?.expectsNoResult, true, 'the closing call is not a call that lost its result');
  const bill = runCost(t);
  assert.equal(bill.label, 'recorded');
  assert.equal(bill.cost, 0.023172);
  assert.ok(Math.abs(bill.pricedUsage! - (6729 * SONNET_4.input + 199 * SONNET_4.output)) < 1e-9, `${bill.pricedUsage}`);
  const { out } = await runCli('stats', fixture('openai-chat/openhands-sdk-completion-log.json'), '--tokens');
  assert.match(out, /Recorded usage \(per call\), 1 call\n {2}input {3}recorded 6,729,/);
  assert.match(out, /recorded cost \$0\.0232/);
  assert.match(out, /run {7}\$0\.02 recorded/);
});

test('OpenHands SDK completion log in non-function-calling mode: calls and results are read from raw_messages, paired, and the task is the person\'s, not the in-context example', async () => {
  const file = fixture('openai-chat/openhands-sdk-nonfncall-completion-log.json');
  const t = await loadRun(file);
  assert.equal(t.format, 'openai-chat');
  assert.match(t.warnings.map((w) => w.message).join('\n'), /non-function-calling mode[^\n]*raw_messages/);
  // `messages` held these as `<function=terminal>` text and "EXECUTION RESULT of [terminal]:" user turns.
  assert.deepEqual(t.steps.filter((s) => s.kind === 'tool_call').map((s) => s.tool!.name), ['terminal', 'str_replace_editor', 'terminal', 'finish']);
  const results = t.steps.filter((s) => s.kind === 'tool_result');
  assert.equal(results.length, 3);
  assert.ok(results.every((r) => r.answers !== undefined && t.steps[r.answers].kind === 'tool_call'), 'every result answers its call by id');
  assert.equal(t.steps.filter((s) => s.kind === 'user').length, 1, 'tool results are not the person\'s turns');
  assert.match(t.title, /^Hello! Can you create a new Python file named hello\.py/);
  assert.ok(!t.steps.some((s) => /<function=|EXECUTION RESULT of \[/.test(s.text)));
  assert.equal(t.coverage?.read, t.coverage?.records, 'every record is read (raw_messages[i] is messages[i])');
  // The reply's recorded usage (9,024 of 9,204 prompt tokens from the cache) stays on the closing call.
  const call = t.steps.find((s) => s.usage);
  assert.deepEqual([call?.tool?.name, call?.usage?.inputTokens, call?.usage?.cachedInputTokens], ['finish', 9204, 9024]);
});

test('stats --tokens: Codex totals that hold more calls than the rollout records one by one say so, not "2 calls"', async () => {
  // A real Codex 0.94 rollout kept from its middle (EdouardZemb/test-framework): its running total
  // (2,135,514 input) holds the session's earlier calls; the two calls it records add up to 214,740.
  const { code, out } = await runCli('stats', fixture('codex/turn-aborted-note.jsonl'), '--tokens');
  assert.equal(code, 0);
  assert.match(out, /Recorded usage \(log totals\), 2 calls in the log, at least 3 in its totals: its running total \(token_count\) is larger than the 2 calls it records one by one\n {2}input {3}recorded 2,135,514,/);
  // Where the calls add up to the totals, the count stands alone.
  const whole = await runCli('stats', fixture('codex/codemie-unified-exec.jsonl'), '--tokens');
  assert.match(whole.out, /Recorded usage \(log totals, the same per call\), 3 calls\n/);
});
