import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { findStrategy, runCompaction, type CompactionContext } from '../../src/core/compaction';
import { loadTrajectory } from '../../src/core/open';
import { CLEARED_PLACEHOLDER } from '../../src/core/compaction/strategies/anthropicContextEditing';
import { CONTINUATION_OPENING, MICROCOMPACT_PLACEHOLDER } from '../../src/core/compaction/strategies/claudeCodeCompact';
import { HANDOFF_PREFIX } from '../../src/core/compaction/strategies/codexCompact';
import { SUMMARY_OPENING } from '../../src/core/compaction/strategies/langchainSummarization';
import { createOpenAiProvider } from '../../src/core/llm/openaiProvider';
import type { Run } from '../../src/core/model';
import { StepBuilder } from '../../src/core/steps';
import { charEstimateCounter } from '../../src/core/tokens/counter';
import { corpus } from '../helpers/paths';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../helpers/fakeOpenAiServer';

// The strategies agents and APIs use in 2026, each with its published defaults: offline, and with
// a model through the real client against a chat-completions server on 127.0.0.1.

const offline = { counter: charEstimateCounter };

/** A Claude-Code-like session: a request, thinking, reads, a shell, edits, a second request. */
function session(outputChars = 400): Run {
  const b = new StepBuilder();
  b.add({ kind: 'system', text: 'You are a coding agent.' });
  b.add({ kind: 'user', text: 'Fix the flaky date test in tests/test_dates.py. Do not touch the CI config.' });
  let n = 0;
  const call = (name: string, args: object, output: string, isError?: boolean) => {
    const id = `t${++n}`;
    b.add({ kind: 'tool_call', text: JSON.stringify(args), tool: { name, args: JSON.stringify(args), callId: id } });
    b.add({ kind: 'tool_result', text: output, isError, tool: { name: '', args: '', callId: id } });
  };
  b.add({ kind: 'thought', label: 'thinking', text: 'The test compares local and UTC dates.' });
  call('Read', { file_path: '/repo/tests/test_dates.py' }, 'x'.repeat(outputChars));
  call('Bash', { command: 'pytest tests/test_dates.py' }, `FAILED tests/test_dates.py::test_today - AssertionError: dates differ\n1 failed in 0.2s\n${'y'.repeat(outputChars)}`);
  call('Edit', { file_path: '/repo/src/dates.py', old_string: 'now()', new_string: 'now(timezone.utc)' }, 'The file /repo/src/dates.py has been updated.');
  b.add({ kind: 'user', text: 'Also add a test for the day boundary.' });
  b.closeOpenCalls();
  b.add({ kind: 'thought', label: 'thinking', text: 'A boundary test at 23:59 UTC.' });
  call('Write', { file_path: '/repo/tests/test_boundary.py', content: 'def test_boundary(): ...' }, 'File created successfully at: /repo/tests/test_boundary.py');
  call('Bash', { command: 'pytest tests' }, `2 passed in 0.3s\n${'z'.repeat(outputChars)}`);
  b.add({ kind: 'assistant', text: 'Both tests pass now.' });
  const steps = b.finish();
  return { format: 'claude-code', title: 'dates', source: { path: '/tmp/dates.jsonl', size: 0 }, steps, meta: {}, warnings: [], records: steps.length };
}

test('anthropic-context-editing: past the trigger, old tool results become the placeholder; the last 3 tool uses and the last turn\'s thinking stay', async () => {
  const t = session();
  const strategy = findStrategy('anthropic-context-editing')!;
  const quiet = await runCompaction(t, { strategy }, offline);
  assert.equal(quiet.range !== null, true, 'thinking of the first turn is dropped even under the trigger');
  assert.ok(quiet.condensed.steps.every((s) => s.text !== CLEARED_PLACEHOLDER), 'no result cleared under 100,000 input tokens');
  const r = await runCompaction(t, { strategy, options: { trigger_input_tokens: 100 } }, offline);
  const results = r.condensed.steps.filter((s) => s.kind === 'tool_result');
  assert.deepEqual(results.map((s) => s.text === CLEARED_PLACEHOLDER), [true, true, false, false, false], 'the oldest two cleared, the last 3 tool uses kept');
  assert.equal(r.condensed.steps.length, t.steps.length - 1, 'only the first turn\'s thinking is removed');
  assert.ok(r.condensed.steps.some((s) => s.text === 'A boundary test at 23:59 UTC.'));
  assert.equal(r.mode, 'deterministic');

  const excluded = await runCompaction(t, { strategy, options: { trigger_input_tokens: 100, exclude_tools: 'Read', clear_tool_inputs: true } }, offline);
  const ex = excluded.condensed.steps;
  assert.equal(ex.find((s) => s.tool?.name === 'Read')!.tool!.args.includes('test_dates'), true, 'an excluded tool keeps its result and input');
  assert.equal(ex.find((s) => s.tool?.name === 'Bash')!.tool!.args, '{}', 'clear_tool_inputs blanks the cleared call');

  const atLeast = await runCompaction(t, { strategy, options: { trigger_input_tokens: 100, clear_at_least: 100_000 } }, offline);
  assert.ok(atLeast.condensed.steps.every((s) => s.text !== CLEARED_PLACEHOLDER));
  assert.match(atLeast.warnings.join('\n'), /less than clear_at_least/);
  const all = await runCompaction(t, { strategy, options: { keep_all_thinking: true } }, offline);
  assert.equal(all.range, null, 'keep "all" drops no thinking');
});

test('claude-code-compact: micro-compaction first, then the nine sections with every user message, behind the continuation opening', async () => {
  const strategy = findStrategy('claude-code-compact')!;
  const big = session(80_000);
  const micro = await runCompaction(big, { strategy }, offline);
  assert.ok(micro.condensed.steps.some((s) => s.text === MICROCOMPACT_PLACEHOLDER), micro.rangeReason);
  assert.equal(micro.summary, null, 'under the auto-compact threshold nothing is summarized');
  assert.equal(micro.condensed.steps.filter((s) => s.kind === 'tool_result' && s.text !== MICROCOMPACT_PLACEHOLDER).length, 3, 'the last 3 bulky results stay');

  const auto = await runCompaction(big, { strategy, options: { context_window: 20_000, max_output_tokens: 4000, autocompact_buffer: 1000 } }, offline);
  assert.match(auto.rangeReason, /auto-compact threshold 15000/);
  const s = auto.summary!;
  assert.ok(s.startsWith(CONTINUATION_OPENING));
  for (const h of ['1. Primary Request and Intent:', '2. Key Technical Concepts:', '3. Files and Code Sections:', '4. Errors and fixes:', '5. Problem Solving:', '6. All user messages:', '7. Pending Tasks:', '8. Current Work:', '9. Optional Next Step:']) assert.ok(s.includes(h), h);
  assert.ok(s.includes('Fix the flaky date test in tests/test_dates.py. Do not touch the CI config.'));
  assert.ok(s.includes('Also add a test for the day boundary.'));
  assert.match(s, /tests\/test_dates\.py::test_today/);
  assert.match(s, /Go on from where the conversation stopped/, 'an automatic compaction asks to continue');
  const summaryStep = auto.condensed.steps.find((x) => x.kind === 'compaction')!;
  assert.equal(summaryStep.compaction?.trigger, 'claude-code auto');
  assert.equal(summaryStep.compaction?.tokensBefore, auto.tokensBefore);
  assert.deepEqual(auto.condensed.steps.map((x) => x.kind), ['system', 'compaction']);

  const manual = await runCompaction(session(), { strategy, range: '1-9' }, offline);
  assert.doesNotMatch(manual.summary!, /Go on from where/, 'a /compact by hand does not');
});

test('codex-compact: recent user messages within the budget, then the summary behind the hand-off prefix', async () => {
  const strategy = findStrategy('codex-compact')!;
  const t = session();
  const r = await runCompaction(t, { strategy, range: '1:' }, offline);
  assert.deepEqual(r.condensed.steps.map((s) => s.kind), ['system', 'user', 'user', 'compaction']);
  assert.equal(r.condensed.steps[1].text, t.steps[1].text);
  assert.ok(r.summary!.startsWith(`${HANDOFF_PREFIX}\n`));
  assert.match(r.summary!, /Goal: Fix the flaky date test/);
  const tight = await runCompaction(t, { strategy, range: '1:', options: { user_message_budget: 12 } }, offline);
  const users = tight.condensed.steps.filter((s) => s.kind === 'user');
  assert.equal(users.length, 2, 'the newest fits whole; the older one is cut to what is left');
  assert.match(users[0].text, /tokens truncated/);
  assert.equal(tight.fates[1], 'trimmed');
  const limit = await runCompaction(t, { strategy, options: { context_window: 1000, auto_compact_ratio: 0.1 } }, offline);
  assert.match(limit.rangeReason, /auto-compact limit 100/);
});

test('codex-compact keeps the session prefix Codex rebuilds (AGENTS.md, the environment) on a real rollout; its reduction does not count it as saved', async () => {
  const t = (await loadTrajectory(corpus('codex/crud.jsonl'))).runs[0];
  const prefix = t.steps.filter((s) => s.sessionPrefix).map((s) => s.label);
  assert.deepEqual(prefix.map((l) => l?.replace(/:.*/, '')), ['AGENTS.md instructions', 'environment']);
  const codex = await runCompaction(t, { strategy: findStrategy('codex-compact')!, range: '0:' }, offline);
  for (const s of t.steps) if (s.sessionPrefix) assert.equal(codex.fates[s.index], 'kept', `step ${s.index} (${s.label}) is rebuilt by Codex, not summarised`);
  assert.ok(codex.condensed.steps.some((s) => s.text.startsWith('# AGENTS.md instructions')), 'AGENTS.md is in the history after the compaction');
  const auto = await runCompaction(t, { strategy: findStrategy('codex-compact')!, options: { auto_compact_token_limit: 1_000 } }, offline);
  assert.equal(auto.range?.[0], t.steps.find((s) => s.kind === 'user')!.index, 'the trigger compacts from the first request, after the initial context');
  // Another strategy's offline summary replaces the injected context like any message.
  const langchain = await runCompaction(t, { strategy: findStrategy('langchain-summarization')!, range: '0:-3' }, offline);
  assert.equal(langchain.fates[t.steps.find((s) => s.sessionPrefix)!.index], 'summarized');
});

test('langchain-summarization: triggers, the last 20 messages, no tool call parted from its result, input trimmed to 4,000 tokens', async () => {
  const strategy = findStrategy('langchain-summarization')!;
  const t = session(20_000);
  const r = await runCompaction(t, { strategy, options: { keep_messages: 4 } }, offline);
  // The cut before the last 4 messages falls between a Write call and its result: it moves earlier.
  const kept = r.condensed.steps.filter((s) => s.kind !== 'system' && s.kind !== 'compaction');
  assert.equal(kept[0].kind, 'tool_call', 'the kept messages start at a call, not at a result');
  assert.ok(r.summary!.startsWith(`${SUMMARY_OPENING}\n\n`));
  assert.match(r.warnings.join('\n'), /sees only the last 4000 tokens/);
  assert.ok(charEstimateCounter.count(r.prompt![0].content) <= 4000 + 200, 'the prompt holds at most the trimmed messages');
  const none = await runCompaction(session(10), { strategy, options: { trigger_tokens: 0 } }, offline);
  assert.equal(none.range, null);
  const byCount = await runCompaction(session(10), { strategy, options: { trigger_tokens: 0, trigger_messages: 5, keep_messages: 2 } }, offline);
  assert.match(byCount.rangeReason, /messages ≥ 5/);
});

async function withServer(fn: (server: FakeOpenAiServer, ctx: CompactionContext) => Promise<void>): Promise<void> {
  const server = await startFakeOpenAiServer();
  try {
    await fn(server, {
      counter: charEstimateCounter,
      provider: createOpenAiProvider({ baseUrl: server.baseUrl, apiKey: 'sk-test', model: 'gpt-4o-mini', retryBaseDelayMs: 20, maxRetries: 1, idleTimeoutMs: 10_000, timeoutMs: 20_000 }),
      confirm: async () => true,
    });
  } finally {
    await server.close();
  }
}

test('with a model: each summarising 2026 strategy sends one request and builds its history around the reply', async () => {
  await withServer(async (server, ctx) => {
    server.script(
      { text: '<analysis>\nread the log\n</analysis>\n\n\n<summary>\n1. Primary Request and Intent: fix the date test\n</summary>' },
      { text: 'Goal: fix the date test. Next: run the suite.' },
      { text: 'Fixed dates.py; both tests pass.' },
    );
    const cc = await runCompaction(session(), { strategy: findStrategy('claude-code-compact')!, range: '1-9' }, ctx);
    assert.equal(cc.mode, 'llm');
    assert.equal(cc.summary, `${CONTINUATION_OPENING}\nAnalysis:\nread the log\n\nSummary:\n1. Primary Request and Intent: fix the date test`);
    assert.match(server.requests[0].body.messages[1].content, /6\. All user messages/);
    const codex = await runCompaction(session(), { strategy: findStrategy('codex-compact')!, range: '1:' }, ctx);
    assert.equal(codex.summary, `${HANDOFF_PREFIX}\nGoal: fix the date test. Next: run the suite.`);
    assert.match(server.requests[1].body.messages[0].content, /hand-off summary/);
    const lc = await runCompaction(session(20_000), { strategy: findStrategy('langchain-summarization')!, options: { keep_messages: 4 } }, ctx);
    assert.equal(lc.summary, `${SUMMARY_OPENING}\n\nFixed dates.py; both tests pass.`);
    assert.ok(!server.requests[2].body.messages[0].content.includes('x'.repeat(5000)), 'the older, long read did not reach the model');
    assert.equal(server.requests.length, 3);
    // Context editing happens on the server, not with a summary: nothing is sent.
    await runCompaction(session(), { strategy: findStrategy('anthropic-context-editing')!, options: { trigger_input_tokens: 100 } }, ctx);
    assert.equal(server.requests.length, 3);
  });
});

test("with a model: its summary is kept as written; lines it repeats apart (code fences, closing tags) are not folded", async () => {
  await withServer(async (server, ctx) => {
    const reply = ['Goal: fix the date test.', '```python', 'def to_utc(d): ...', '```', '<file>', 'tests/test_dates.py', '</file>', '<file>', 'src/dates.py', '</file>', '```python', 'assert to_utc(d).tzinfo', '```', '<file>', 'setup.cfg', '</file>', '```', 'pytest -q', '```', 'done', 'done', 'done'].join('\n');
    server.script({ text: reply });
    const codex = await runCompaction(session(), { strategy: findStrategy('codex-compact')!, range: '1:' }, ctx);
    assert.equal(codex.mode, 'llm');
    // Only a run of equal lines is folded.
    assert.equal(codex.summary, `${HANDOFF_PREFIX}\n${reply.replace('done\ndone\ndone', 'done (×3)')}`);
  });
});

test('with a model that fails, the 2026 summarising strategies fall back to their extractive summary', async () => {
  await withServer(async (server, ctx) => {
    server.defaultReply = { kind: 'status', status: 500 };
    for (const id of ['claude-code-compact', 'codex-compact', 'langchain-summarization']) {
      const r = await runCompaction(session(), { strategy: findStrategy(id)!, range: '1:' }, ctx);
      assert.equal(r.mode, 'extractive', id);
      assert.match(r.summary!, /Extractive summary/, id);
      assert.match(r.warnings[0], /Fell back to the extractive mode/, id);
    }
  });
});

test('the replay: a budget fires each 2026 strategy in place of its own trigger, and each says how many requests a firing makes', () => {
  const t = session();
  const options = (id: string) => Object.fromEntries(findStrategy(id)!.options.map((o) => [o.name, o.default]));
  const forced = { tokenBudget: 100 };
  for (const id of ['anthropic-context-editing', 'claude-code-compact', 'codex-compact', 'langchain-summarization']) {
    const s = findStrategy(id)!;
    // The session is far under every published trigger: nothing without the budget (thinking aside).
    const own = s.policy(t, options(id), charEstimateCounter);
    if (id !== 'anthropic-context-editing') assert.equal(own.range, null, `${id}: ${own.reason}`);
    const choice = s.policy(t, options(id), charEstimateCounter, forced);
    assert.ok(choice.range, `${id} does not fire over the budget: ${choice.reason}`);
    assert.match(choice.reason, /budget/);
    const requests = s.requestsPerFiring!(t, choice.range, options(id));
    assert.equal(requests, id === 'anthropic-context-editing' ? 0 : 1, `${id}: ${requests} requests`);
  }
  // Claude Code's micro-compaction asks no model; its summary asks one.
  const cc = findStrategy('claude-code-compact')!;
  const micro = cc.policy(session(60_000), { ...options('claude-code-compact'), microcompact_keep: 1 }, charEstimateCounter);
  assert.match(micro.reason, /micro-compact/);
  assert.equal(cc.requestsPerFiring!(session(60_000), micro.range!, { ...options('claude-code-compact'), microcompact_keep: 1 }), 0);
});
