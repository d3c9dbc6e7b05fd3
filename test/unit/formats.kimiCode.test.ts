import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { billRun } from '../../src/core/simulate';
import { fixture } from '../helpers/paths';
import { loadRun } from '../helpers/runs';

// Kimi Code CLI's session log (wire protocol 1.4) was "not a trajectory in any format we know"
// (jazzyalex/agent-sessions keeps a real one as a parser fixture, MIT).

test('kimi-code: prompts are requests, client reminders context, each tool call paired with its result, isError an error', async () => {
  const run = await loadRun(fixture('kimi-code/agent-sessions-assistant-tools.jsonl'));
  assert.equal(run.format, 'kimi-code');
  assert.equal(run.meta.model, 'moonshot-ai/kimi-k2.7-code');
  const requests = run.steps.filter((s) => s.kind === 'user').map((s) => s.text);
  assert.deepEqual(requests, ['hi', 'hi', 'hi', 'run ls command', 'cat /nonexistent-file-xyz', 'run subagent to count swift files in this repo', 'plan counting all html files in this repo', 'read README.md then grep for "Kimi"']);
  // Plan mode's rules and the to-do reminder came with the user's role from the client.
  const reminders = run.steps.filter((s) => s.kind === 'environment');
  assert.equal(reminders.length, 5);
  assert.ok(reminders.every((s) => s.text.startsWith('<system-reminder>')));
  const calls = run.steps.filter((s) => s.kind === 'tool_call');
  const results = run.steps.filter((s) => s.kind === 'tool_result');
  assert.equal(calls.length, 19);
  assert.deepEqual(new Set(results.map((r) => r.answers)), new Set(calls.map((c) => c.index)));
  const failed = results.filter((r) => r.isError);
  assert.equal(failed.length, 1);
  assert.match(failed[0].text, /^cat: \/nonexistent-file-xyz: No such file or directory/);
  // The manual compaction's summary, carrying its own call's usage.
  const compaction = run.steps.find((s) => s.kind === 'compaction')!;
  assert.match(compaction.text, /compacted/);
  assert.equal(compaction.usage?.outputTokens, 937);
});

test('kimi-code: each model call\'s step.end usage is on the call\'s first step, and the bill is priced from it', async () => {
  const run = await loadRun(fixture('kimi-code/agent-sessions-assistant-tools.jsonl'));
  const withUsage = run.steps.filter((s) => s.usage);
  assert.equal(withUsage.length, 23, '22 loop calls and the compaction\'s');
  // The first call answered "hi": 9,431 fresh + 14,848 read from the cache, 42 out (step.end, line 20).
  const third = withUsage.find((s) => s.usage!.outputTokens === 42)!;
  assert.deepEqual([third.usage!.inputTokens, third.usage!.cachedInputTokens], [9431 + 14848, 14848]);
  assert.ok(withUsage.every((s) => s.kind !== 'tool_result' && s.kind !== 'user'));
  const bill = billRun(run);
  assert.equal(bill.label, 'priced from recorded usage');
  assert.equal(bill.calls, 23);
});
