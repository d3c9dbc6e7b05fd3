import * as fs from 'node:fs';
import * as path from 'node:path';
import { titleFromSteps } from '../../src/core/formats/chatMessages';
import { findStrategy, runCompaction } from '../../src/core/compaction';
import { charEstimateCounter } from '../../src/core/tokens/counter';
import { loadTrajectory } from '../../src/core/open';
import { stepFailed } from '../../src/core/compaction/facts/verdict';
import { REPO_ROOT } from '../helpers/paths';
import { computeStats, fileOfRun } from '../../src/core/stats';
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { CODEX_INJECTED } from '../../src/core/formats/codexInjected';
import { CLAUDE_CODE_INJECTED } from '../../src/core/formats/claudeCode';
import { atifText } from '../../src/core/formats/atifFile';
import { checkAtif } from '../../src/core/formats/atifRules';
import { injectedLabel } from '../../src/core/formats/injected';
import { StepBuilder, turnsOf } from '../../src/core/steps';
import { computeCoverage, coverageWarning } from '../../src/core/io/coverage';
import { stepLabel, stepPreview } from '../../src/core/view/stepPresentation';
import { fixture, writeTemp } from '../helpers/paths';
import { loadRun, parseRunText } from '../helpers/runs';
import { requestStarts } from '../../src/core/simulate/replayRaw';
import { billRunAsHappened } from '../../src/core/simulate';

// What the wild-log set's dev split showed (issue 20): each finding on a real file or real text.

test('Agent SDK messages logged as {type, message, timestamp} lines open, with the calls, the model and the usage', async () => {
  const t = await loadRun(fixture('anthropic-managed-agents/openagents-autopilot-sdk.jsonl'));
  assert.equal(t.format, 'anthropic-managed-agents');
  assert.equal(t.meta.model, 'claude-sonnet-4-5-20250929');
  assert.equal(t.meta.version, '2.0.76');
  const calls = t.steps.filter((s) => s.kind === 'tool_call');
  assert.equal(calls.length, 2);
  assert.equal(calls[0].tool?.name, 'Bash');
  const result = t.steps.find((s) => s.answers === calls[0].index);
  assert.ok(result, 'the Bash call pairs with the tool_result that names it');
  assert.match(result.text, /^Exit code 2/);
  // The message's text is narration before its call (the same API message id), not an answer.
  assert.equal(t.steps.find((s) => /start the autonomous loop/.test(s.text))?.kind, 'thought');
  assert.ok((t.meta.recorded?.inputTokens ?? 0) > 0, 'usage recorded once per API message');
  assert.equal(t.coverage?.skipped['system init'], 1, 'the init line is named, not lost');
});

test('codex: <environment_context> and AGENTS.md sent as user messages are environment steps; the request is the one turn', async () => {
  const t = await loadRun(fixture('codex/simonw-sample-codex-session.jsonl'));
  const env = t.steps.filter((s) => s.kind === 'environment');
  assert.deepEqual(env.map((s) => s.label), ['AGENTS.md instructions', 'environment: /Users/macmini/Code/homelab-migration']);
  assert.deepEqual(t.steps.filter((s) => s.kind === 'user').map((s) => s.text), ['can you analyse the MD files in this directory and determine if the info we have is clear enough to start planning the migration?']);
  assert.equal(turnsOf(t.steps).length, 1);
  const context = env[1];
  assert.equal(stepLabel(context), 'environment · environment: /Users/macmini/Code/homelab-migration');
  assert.doesNotMatch(stepPreview(context), /</, 'the preview shows the values, not the tags');
  assert.match(stepPreview(context), /^\/Users\/macmini\/Code\/homelab-migration on-request workspace-write/);
});

test('codex: injected-context rules, each on the text Codex writes', () => {
  const cases: [string, string][] = [
    ['<environment_context>\n  <cwd>/tmp/agent-history-real-agent/codex/workspace</cwd>\n  <shell>bash</shell>\n  <current_date>2026-06-05</current_date>\n</environment_context>', 'environment: /tmp/agent-history-real-agent/codex/workspace'],
    ['# AGENTS.md instructions for /Users/macmini/Code/homelab-migration\n\n<INSTRUCTIONS>\n## Skills', 'AGENTS.md instructions'],
    ['<user_instructions>\n\nAlways run the tests.\n</user_instructions>', 'user instructions'],
    // Codex 0.121: a command the person ran with `!` (a real rollout, sweep 7; was the run's title "<command>").
    ['<user_shell_command>\n<command>\ncodex mcp login cloudflare-api\n</command>\n<result>\nExit code: -1\nDuration: 0.0000 seconds\nOutput:\ncommand aborted by user\n</result>\n</user_shell_command>', '! codex mcp login cloudflare-api'],
  ];
  for (const [text, label] of cases) assert.equal(injectedLabel(CODEX_INJECTED, text), label);
  assert.equal(injectedLabel(CODEX_INJECTED, 'can you analyse the MD files in this directory'), undefined);
});

test('codex: a forked thread (a subagent) starts with the parent\'s history copied: its usage is its own, its task its assignment', () => {
  // Codex Desktop 0.119 (a real subagent rollout, sweep 7; ids, texts and figures here are ours):
  // its session_meta names the parent (`forked_from_id`), then the parent's session_meta, turn and
  // token counts follow, then the subagent's own turn. The parent's 234k-token turn was billed as
  // the subagent's, at the subagent's model, and the parent's request was the run's title.
  const own = '019d924b-6bc1-7fa2-aa36-5e5a0e068c59';
  const parent = '019d9249-e0ee-7020-a305-b6369cd02251';
  const line = (at: string, type: string, payload: Record<string, unknown>) => JSON.stringify({ timestamp: `2026-04-15T17:58:${at}Z`, type, payload });
  const count = (at: string, total: number[], last: number[]) => line(at, 'event_msg', { type: 'token_count', info: {
    total_token_usage: { input_tokens: total[0], cached_input_tokens: total[1], output_tokens: total[2], total_tokens: total[0] + total[2] },
    last_token_usage: { input_tokens: last[0], cached_input_tokens: last[1], output_tokens: last[2], total_tokens: last[0] + last[2] } } });
  const text = [
    line('35.546', 'session_meta', { id: own, forked_from_id: parent, timestamp: '2026-04-15T17:58:29.621Z', cwd: '/w', cli_version: '0.119.0-alpha.28', source: { subagent: { thread_spawn: { parent_thread_id: parent, depth: 1 } } } }),
    line('35.549', 'session_meta', { id: parent, timestamp: '2026-04-15T17:56:48.547Z', cwd: '/w', cli_version: '0.119.0-alpha.28' }),
    line('35.549', 'event_msg', { type: 'task_started', turn_id: '019d924a-361e-7a82-8f76-6b8406143f52' }),
    line('35.550', 'turn_context', { model: 'gpt-5.4', turn_id: '019d924a-361e-7a82-8f76-6b8406143f52' }),
    line('35.550', 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Set up the agent crew for this repository.' }] }),
    line('35.550', 'response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'I will split the work.' }] }),
    count('35.551', [200_000, 150_000, 2000], [60_000, 40_000, 700]),
    line('35.560', 'event_msg', { type: 'task_started', turn_id: '019d924b-8323-77b1-a26d-d65630532b7c' }),
    line('35.564', 'turn_context', { model: 'gpt-5.4-mini', turn_id: '019d924b-8323-77b1-a26d-d65630532b7c' }),
    line('35.589', 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Inspect the crew package and report what matters.' }] }),
    count('35.989', [200_000, 150_000, 2000], [60_000, 40_000, 700]),
    line('40.000', 'response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Found it.' }] }),
    count('40.100', [230_000, 170_000, 2500], [30_000, 20_000, 500]),
  ].join('\n');
  const run = parseRunText(text, { path: `rollout-2026-04-15T11-58-29-${own}.jsonl`, size: text.length, modified: 0 });
  assert.equal(run.meta.sessionId, own, 'the thread is the subagent\'s, not the parent\'s');
  assert.equal(run.title, 'Inspect the crew package and report what matters.');
  assert.deepEqual(run.steps.filter((s) => s.kind === 'user').map((s) => s.text), ['Inspect the crew package and report what matters.']);
  assert.match(run.steps.find((s) => s.text === 'Set up the agent crew for this repository.')!.label!, /^from the parent thread/);
  assert.deepEqual(run.steps.filter((s) => s.usage).map((s) => s.usage!.inputTokens), [30_000], 'only its own call');
  assert.deepEqual([run.meta.recorded?.inputTokens, run.meta.recorded?.cachedInputTokens, run.meta.recorded?.outputTokens], [30_000, 20_000, 500]);
  assert.equal(computeStats(fileOfRun(run)).forkedFrom, parent, 'stats names the thread it was forked from');
  assert.equal(run.meta.recordedCallsAtLeast, undefined, 'its own call is all its usage since the fork');
});

test('codex ≥ 0.9x: the <turn_aborted> note Codex sends after Esc is one interruption, not a request; the event after it adds none', async () => {
  // EdouardZemb/test-framework: the person answers "3", presses Esc, then asks "continue vers l'étape 3".
  const t = await loadRun(fixture('codex/turn-aborted-note.jsonl'));
  assert.deepEqual(t.steps.filter((s) => s.kind === 'user').map((s) => s.text.trim()).slice(1), ['3', "continue vers l'étape 3", 'y']);
  const stops = t.steps.filter((s) => s.interruption);
  assert.equal(stops.length, 1, 'the note and the turn_aborted event are one interruption');
  assert.equal(stops[0].kind, 'environment');
  assert.match(stops[0].text, /^<turn_aborted>/);
  // "3", which the agent never answered, and the request after the Esc are one turn.
  assert.equal(turnsOf(t.steps).length, 3);
});

test('codex: a turn that failed at the provider (an `error` event: 429 after retries, a usage limit) is an error step, searchable', () => {
  const line = (at: string, type: string, payload: Record<string, unknown>) => JSON.stringify({ timestamp: `2026-02-04T21:00:${at}Z`, type, payload });
  const text = [
    line('00.000', 'session_meta', { id: 's', timestamp: '2026-02-04T21:00:00.000Z', cwd: '/w', cli_version: '0.94.0' }),
    line('00.010', 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'find the file prompt' }] }),
    line('06.000', 'event_msg', { type: 'error', message: 'exceeded retry limit, last status: 429 Too Many Requests', codex_error_info: { response_too_many_failed_attempts: { http_status_code: 429 } } }),
    line('06.002', 'event_msg', { type: 'task_complete', turn_id: 't', last_agent_message: null }),
    line('09.000', 'event_msg', { type: 'error', message: "You've hit your usage limit. Try again at 4:05 AM.", codex_error_info: 'usage_limit_exceeded' }),
  ].join('\n');
  const run = parseRunText(text, { path: 'rollout-2026-02-04T21-00-00-x.jsonl', size: text.length, modified: 0 });
  const errors = run.steps.filter((s) => stepFailed(s, run.steps));
  assert.deepEqual(errors.map((s) => [s.kind, s.label]), [['other', 'error: response_too_many_failed_attempts'], ['other', 'error: usage_limit_exceeded']]);
  assert.match(errors[0].text, /429 Too Many Requests/);
  assert.ok(!requestStarts(run.steps).some(Boolean), 'no model call answered');
});

test('a Codex session exported as chat messages: calls pair by tool_call_id on their parts, Codex\'s notes are not requests, _metadata timestamps are read', async () => {
  // The shape of a `{messages, meta}` export of a Codex 0.116 session (Eyob-smax/Anju-Medical-Appointment-System's trajectory.json; texts here are ours).
  const at = (s: number) => ({ _metadata: { timestamp: `2026-03-24T13:01:${String(s).padStart(2, '0')}.000Z` } });
  const run = parseRunText(JSON.stringify({
    messages: [
      { role: 'system', content: [{ type: 'text', text: '<environment_context>\n  <cwd>/work</cwd>\n</environment_context>' }], ...at(1) },
      { role: 'user', content: [{ type: 'text', text: 'Create the project folders.' }], ...at(2) },
      { role: 'assistant', content: [{ type: 'tool_call', tool_call_id: 'call_A', name: 'shell_command', arguments: '{"command":"mkdir -p app/src"}' }], tool_calls: [{ id: 'call_A', type: 'function', function: { name: 'shell_command', arguments: '{"command":"mkdir -p app/src"}' } }], ...at(3) },
      { role: 'tool', tool_call_id: 'call_A', content: [{ type: 'tool_output', text: 'Exit code: 0\nWall time: 1.1 seconds\nOutput:\n' }], ...at(4) },
      { role: 'user', content: [{ type: 'text', text: '<turn_aborted>\nThe user interrupted the previous turn on purpose.\n</turn_aborted>' }], ...at(5) },
      { role: 'user', content: [{ type: 'text', text: 'Now add a README.' }], ...at(6) },
    ],
    meta: {
      session_meta: { id: 'x', cli_version: '0.116.0' },
      turn_contexts: [{ turn_id: 't1', model: 'gpt-5.2-codex' }, { turn_id: 't2', model: 'gpt-5.3-codex' }],
      token_counts: [
        { type: 'token_count', info: null },
        { type: 'token_count', info: { total_token_usage: { input_tokens: 11328, cached_input_tokens: 9600, output_tokens: 333, total_tokens: 11661 } } },
        { type: 'token_count', info: { total_token_usage: { input_tokens: 24010, cached_input_tokens: 20864, output_tokens: 702, total_tokens: 24712 } } },
      ],
    },
  }), { path: 'trajectory.json', size: 0, modified: 0 });
  // The export is a saved conversation with the rollout's own records beside it: read as one, its model and totals from them.
  assert.equal(run.format, 'openai-chat');
  assert.equal(run.meta.model, 'gpt-5.3-codex', 'the last turn\'s model');
  assert.deepEqual(run.meta.recorded, { model: 'gpt-5.3-codex', inputTokens: 24010, outputTokens: 702, cachedInputTokens: 20864 }, 'the last running total');
  const call = run.steps.find((s) => s.kind === 'tool_call')!;
  const result = run.steps.find((s) => s.kind === 'tool_result')!;
  assert.equal(result.answers, call.index, 'the output answers its call');
  const stop = run.steps.find((s) => s.interruption);
  assert.equal(stop?.kind, 'environment');
  assert.deepEqual(run.steps.filter((s) => s.kind === 'user').map((s) => s.text), ['Create the project folders.', 'Now add a README.']);
  assert.equal(call.timestamp, '2026-03-24T13:01:03.000Z');
});

/**
 * A Codex export as Eyob-smax/Anju-Medical-Appointment-System's trajectory.json has it (texts and
 * figures ours): each call's `token_count` written after its response (`_timestamp`) and again, the
 * same, after the tools ran; `cached_input_tokens` within `input_tokens`.
 */
function codexExport(model: string, calls: number): string {
  const at = (s: number) => `2026-03-24T13:${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}.000Z`;
  const listing = (i: number) => Array.from({ length: 400 }, (_, k) => `src/module${i}/file${k}.ts: export function handler${k}(request) { return route${k}(request); }`).join('\n');
  const messages: unknown[] = [{ role: 'user', content: [{ type: 'text', text: 'List the handlers of every module.' }], _metadata: { timestamp: at(0) } }];
  const counts: unknown[] = [{ type: 'token_count', info: null, _timestamp: at(1) }];
  let total = { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0, total_tokens: 0 };
  for (let i = 0; i < calls; i++) {
    const t = 10 + i * 20;
    const args = JSON.stringify({ command: `rg -n handler src/module${i}` });
    messages.push({ role: 'assistant', content: [{ type: 'text', text: `Reading module ${i}.` }], _metadata: { timestamp: at(t) } });
    messages.push({ role: 'assistant', content: [{ type: 'tool_call', tool_call_id: `call_${i}`, name: 'shell_command', arguments: args }], tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'shell_command', arguments: args } }], _metadata: { timestamp: at(t + 1) } });
    const last = { input_tokens: 12_000 + 9_000 * i, cached_input_tokens: i === 0 ? 0 : 11_500 + 9_000 * (i - 1), output_tokens: 80, total_tokens: 12_080 + 9_000 * i };
    total = { input_tokens: total.input_tokens + last.input_tokens, cached_input_tokens: total.cached_input_tokens + last.cached_input_tokens, output_tokens: total.output_tokens + last.output_tokens, total_tokens: total.total_tokens + last.total_tokens };
    const count = { type: 'token_count', info: { total_token_usage: { ...total }, last_token_usage: last } };
    counts.push({ ...count, _timestamp: at(t + 2) });
    messages.push({ role: 'tool', tool_call_id: `call_${i}`, content: [{ type: 'tool_output', text: `Exit code: 0\nWall time: 0.4 seconds\nOutput:\n${listing(i)}` }], _metadata: { timestamp: at(t + 3) } });
    counts.push({ ...count, _timestamp: at(t + 4) });
  }
  return JSON.stringify({ messages, meta: { session_meta: { id: 'x', cli_version: '0.116.0' }, turn_contexts: [{ turn_id: 't1', model }], token_counts: counts } });
}

test('a Codex chat export: each call\'s usage from its token_count, on the last step the model wrote before it; a count repeated after the tools is not a second call', () => {
  const run = parseRunText(codexExport('gpt-5.3-codex', 3), { path: 'trajectory.json', size: 0, modified: 0 });
  const withUsage = run.steps.filter((s) => s.usage);
  assert.deepEqual(withUsage.map((s) => s.kind), ['tool_call', 'tool_call', 'tool_call'], 'one usage a call, on its call (was: none, the totals only)');
  assert.deepEqual(withUsage.map((s) => s.usage!.inputTokens), [12_000, 21_000, 30_000]);
  assert.deepEqual(withUsage.map((s) => s.usage!.cachedInputTokens), [0, 11_500, 20_500]);
  assert.equal(run.meta.recorded?.inputTokens, 63_000, 'the totals are the last running total, as before');
  assert.equal(requestStarts(run.steps).filter(Boolean).length, 3);
});

test('a log whose model has no price but whose calls read a cache: the replay caches as their usage shows, and says why', () => {
  // `-bak`: a deployment's own name for the model, in no price table. The cache reads are the log's all the same.
  const run = parseRunText(codexExport('gpt-5.3-codex-bak', 6), { path: 'trajectory.json', size: 0, modified: 0 });
  const { billing } = billRunAsHappened(run, {});
  const recorded = run.steps.reduce((n, s) => n + (s.usage?.cachedInputTokens ?? 0), 0);
  assert.equal(billing.cache, 'openai', 'reads counted within the input, no writes: OpenAI\'s rules (was: none, every token uncached)');
  assert.equal(billing.cacheSource, 'log-reads');
  assert.ok(billing.totals.cachedInput > 0.8 * recorded && billing.totals.cachedInput < 1.2 * recorded, `modelled reads ${billing.totals.cachedInput} against ${recorded} recorded`);
  assert.equal(billing.totals.cost, null, 'still no price, so no cost');
});

test('claude-code: the message Claude Code writes when the API refused a request is a failed model call, not an answer, and no request billed', () => {
  // Claude Code 2.1's shape for it: `isApiErrorMessage`, `error`, `apiErrorStatus`, model `<synthetic>`, zero usage.
  const line = (o: Record<string, unknown>) => JSON.stringify({ sessionId: 's', version: '2.1.87', cwd: '/tmp/p', isSidechain: false, userType: 'external', ...o });
  const text = [
    line({ type: 'user', uuid: 'u1', parentUuid: null, timestamp: '2026-03-29T04:21:00.000Z', message: { role: 'user', content: 'fix the failing test' } }),
    line({ type: 'assistant', uuid: 'a1', parentUuid: 'u1', timestamp: '2026-03-29T04:21:01.000Z', error: 'rate_limit', isApiErrorMessage: true, apiErrorStatus: 429,
      message: { id: 'a1', model: '<synthetic>', role: 'assistant', type: 'message', stop_reason: 'stop_sequence', usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }, content: [{ type: 'text', text: "You've hit your limit · resets 1am (America/Denver)" }] } }),
  ].join('\n');
  const run = parseRunText(text, { path: 'session.jsonl', size: text.length, modified: 0 });
  const failed = run.steps[1];
  assert.equal(failed.kind, 'other');
  assert.equal(failed.isError, true);
  assert.equal(failed.label, 'model call failed: rate_limit (429)');
  assert.equal(stepFailed(failed, run.steps), true);
  assert.equal(run.steps.filter((s) => s.kind === 'assistant').length, 0, 'no answer from a model');
  assert.deepEqual(requestStarts(run.steps), [false, false], 'a refused call opens no request to bill');
});

test('claude-code: a session title is the summary of one of the file\'s own messages; titles copied from other sessions are not', async () => {
  // tomjnsn/agentlogs: 18 summaries of the project's other sessions ("Implement React Grab Provider …"), one request.
  const foreign = await loadTrajectory(fixture('claude-code/agentlogs-foreign-titles.jsonl'));
  assert.equal(foreign.runs[0].title, 'go to google.com, make a screenshoot, look at it, and tell me what you think');
  // moredip/session-share: its own summary (leafUuid a message of the file) is its title.
  assert.equal((await loadTrajectory(fixture('claude-code/moredip-warm-after-gaps.jsonl'))).runs[0].title, 'Spawn curry poem agents, write sushi');
});

test('claude-code 2.1: a user line marked origin.kind "task-notification" is an environment step, whatever its text', async () => {
  const t = await loadRun(fixture('claude-code/agent-sessions-schema-drift.jsonl'));
  const marked = t.steps.find((s) => s.text === 'List files')!;
  assert.equal(marked.kind, 'environment');
  assert.equal(marked.label, 'task notification: List files');
  assert.equal(t.steps.filter((s) => s.kind === 'user').length, 1, 'only the person\'s own line is a turn');
  // Claude Code's bookkeeping (permission-mode, attachment, system lines) is named; the bare
  // tool_use and tool_result lines are of no kind the reader knows, and the warning says so.
  assert.equal(t.coverage?.named, t.coverage && t.coverage.records - t.coverage.read - 2, 'every record it skipped but the two bare tool lines is named');
  assert.match(coverageWarning(t.coverage!) ?? '', /2 of them of a kind the reader does not know/);
});

test('qwen-code: a Qwen Code record is read as Qwen Code, not as Claude Code', async () => {
  const t = await loadRun(fixture('qwen-code/agent-sessions-user-line.jsonl'));
  assert.equal(t.format, 'qwen-code');
  assert.equal(t.steps[0].kind, 'user');
  assert.equal(t.steps[0].text, 'This record deliberately carries the wrong session ID.');
  assert.equal(t.meta.version, '0.21.13');
});

test('qwen-code: assistant parts, a function call and its response pair by id, usage from usageMetadata', async () => {
  // Qwen Code's ChatRecord shape around the real record above: ids, parts, functionCall / functionResponse.
  const user = { uuid: 'u1', parentUuid: null, sessionId: 's', timestamp: '2026-08-17T12:00:00.000Z', type: 'user', cwd: '/tmp/p', version: '0.21.13', message: { role: 'user', parts: [{ text: 'List the files' }] } };
  const model = { uuid: 'a1', parentUuid: 'u1', sessionId: 's', timestamp: '2026-08-17T12:00:02.000Z', type: 'assistant', cwd: '/tmp/p', version: '0.21.13', model: 'qwen3-coder-plus', message: { role: 'model', parts: [{ text: 'Checking the folder.', thought: true }, { functionCall: { id: 'call_1', name: 'list_directory', args: { path: '/tmp/p' } } }] }, usageMetadata: { promptTokenCount: 1200, candidatesTokenCount: 30, thoughtsTokenCount: 12, cachedContentTokenCount: 1000 } };
  const result = { uuid: 't1', parentUuid: 'a1', sessionId: 's', timestamp: '2026-08-17T12:00:03.000Z', type: 'tool_result', cwd: '/tmp/p', version: '0.21.13', message: { role: 'user', parts: [{ functionResponse: { id: 'call_1', name: 'list_directory', response: { output: 'a.txt\nb.txt' } } }] }, toolCallResult: { callId: 'call_1', status: 'success' } };
  const telemetry = { uuid: 'x1', parentUuid: 't1', sessionId: 's', timestamp: '2026-08-17T12:00:03.100Z', type: 'system', subtype: 'ui_telemetry', cwd: '/tmp/p', version: '0.21.13', systemPayload: {} };
  const t = await loadRun(writeTemp('qwen.jsonl', [user, model, result, telemetry].map((r) => JSON.stringify(r)).join('\n') + '\n'));
  assert.equal(t.format, 'qwen-code');
  assert.deepEqual(t.steps.map((s) => s.kind), ['user', 'thought', 'tool_call', 'tool_result']);
  assert.equal(t.steps[3].answers, 2);
  assert.deepEqual(t.meta.recorded, { model: 'qwen3-coder-plus', inputTokens: 1200, outputTokens: 42, cachedInputTokens: 1000 });
  assert.equal(t.coverage?.skipped['system ui_telemetry'], 1);
});

test('atif: a variant whose observation content is an object converts to valid ATIF, keeping every step', async () => {
  // The shape OpenAgents' MechaCoder writes (ATIF-v1.4, system steps whose results are the tool's own JSON).
  const doc = {
    schema_version: 'ATIF-v1.4', session_id: 'session-2025-12-05T08-00-23-404Z-ew8gut', agent: { name: 'mechacoder', version: '0.1.0' },
    steps: [
      { step_id: 1, timestamp: '2025-12-05T08:00:23.404Z', source: 'system', message: 'Session started', observation: { results: [{ content: { type: 'session_start', cwd: '/home/user/openagents' } }] } },
      { step_id: 2, timestamp: '2025-12-05T08:00:25.100Z', source: 'system', message: 'Subtask complete', observation: { results: [{ content: { success: true, filesModified: ['src/a.ts'] } }] } },
    ],
  };
  const t = await loadRun(writeTemp('variant.atif.json', JSON.stringify(doc)));
  const { text } = atifText(fileOfRun(t));
  const written = JSON.parse(text) as Record<string, unknown>;
  assert.deepEqual(checkAtif(written), []);
  const back = await loadRun(writeTemp('back.atif.json', text));
  assert.equal(back.steps.length, t.steps.length);
});

test('openhands-v0 shared sessions (openhands-feedback): the request from `content`, run_ipython code and thought from `extras`', async () => {
  // The dataset keeps every event with one set of keys: an action's arguments moved to `extras`,
  // sometimes as a JSON string. Texts from a shared session the agent-data-protocol sample quotes.
  const events = [
    { id: 0, timestamp: '2024-10-06T12:20:39.561', source: 'user', message: '', action: 'message', observation: null, args: null, content: 'please write a function in b.cpp that adds two integers and return the result', extras: null },
    { id: 2, timestamp: '2024-10-06T12:20:41.489', source: 'agent', message: 'Running Python code interactively', action: 'run_ipython', observation: null, args: null, content: null,
      extras: JSON.stringify({ code: "create_file('b.cpp')", thought: 'I will create the file b.cpp first.', kernel_init_code: '' }) },
    { id: 3, timestamp: '2024-10-06T12:20:42.100', source: 'agent', message: "Code executed in IPython cell.", action: null, observation: 'run_ipython', args: null, content: '[File: /workspace/b.cpp (1 lines total)]', extras: JSON.stringify({ code: "create_file('b.cpp')" }), cause: 2 },
  ];
  const t = await loadRun(writeTemp('shared-session.json', JSON.stringify({ version: '1.0', feedback: 'positive', permissions: 'public', trajectory: events, timestamp: '2024-10-06-12-25-18' })));
  assert.equal(t.format, 'openhands-v0');
  const user = t.steps.find((s) => s.kind === 'user')!;
  assert.equal(user.text, 'please write a function in b.cpp that adds two integers and return the result');
  assert.equal(t.title, user.text, 'the run is titled by its request, not the file name');
  const call = t.steps.find((s) => s.kind === 'tool_call')!;
  assert.match(call.tool!.args, /create_file\('b\.cpp'\)/);
  assert.doesNotMatch(call.tool!.args, /I will create/, 'the thought is a step of its own');
  assert.equal(t.steps[call.index - 1].text, 'I will create the file b.cpp first.');
});

test('copilot-cli: a call known from tool.execution_start and named again by toolRequests is one call, paired once', async () => {
  const t = await loadRun(fixture('copilot-cli/agent-sessions-schema-drift.jsonl'));
  const calls = t.steps.filter((s) => s.kind === 'tool_call');
  assert.deepEqual(calls.map((c) => c.tool?.callId), ['call_1']);
  assert.equal(t.coverage?.unpairedCalls, 0);
  assert.equal(t.coverage?.unpairedResults, 1, 'call_2 answers a call the log never made');
  assert.equal(t.coverage?.read! + t.coverage?.named!, t.coverage?.records, 'every record read or named');
});

test('opencode: a task call shows its subagent as a branch: the prompt and the tools it ran', async () => {
  const t = await loadRun(fixture('opencode/all-tools.json'));
  const task = t.steps.find((s) => s.tool?.name === 'task')!;
  const branch = t.steps.filter((s) => s.branch === 'explore: Find package manifest');
  assert.deepEqual(branch.map((s) => s.label), ['subagent prompt', 'subagent glob']);
  assert.equal(branch[0].index, task.index + 1, 'the branch sits under the call that started it');
  assert.match(branch[0].text, /^Search the repo for package\.json files/);
  assert.equal(t.steps.find((s) => s.answers === task.index)?.branch, undefined, 'the result is on the main line');
});

test('user turns match the person\'s messages counted by hand (wild/README.md) on the dev runs kept as fixtures', async () => {
  // file → the person's messages (or the harness's task) counted by hand, line by line.
  const byHand: Record<string, number> = {
    'claude-code/agtrace-claude-session.jsonl': 2, // plus /exit, its caveat and output, and tool results under the user role
    'pi/agent-sessions-small.jsonl': 3,
    'codex/simonw-sample-codex-session.jsonl': 1, // AGENTS.md and <environment_context> are the client's
    'atif/openagents-regex-log.trajectory.json': 1, // the Terminal-Bench task
  };
  for (const [file, messages] of Object.entries(byHand)) {
    const t = await loadRun(fixture(file));
    assert.equal(turnsOf(t.steps).length, messages, `${file}: turns`);
    assert.equal(t.steps.filter((s) => s.kind === 'user').length, messages, `${file}: user steps`);
  }
});

test('claude-code 2.1: a system reminder block beside the person\'s words is an environment step, the words a user turn', async () => {
  const run = await loadRun(fixture('claude-code/copilot-chat-parallel-tasks.jsonl'));
  const [reminder, request] = run.steps;
  assert.equal(reminder.kind, 'environment');
  assert.match(reminder.label ?? '', /^system reminder/);
  assert.equal(request.kind, 'user');
  assert.equal(request.text, 'Run 4 subagents in parallel that just run the sleep commands with 1, 2, 3, 4 respectively, just a test');
  assert.equal(run.steps.filter((s) => s.kind === 'user').length, 1);
  // The four Task calls of one assistant message, each answered by its own result.
  const calls = run.steps.filter((s) => s.kind === 'tool_call' && !s.branch);
  assert.equal(calls.length, 4);
  assert.ok(calls.every((c) => run.steps.some((s) => s.kind === 'tool_result' && s.answers === c.index)));
});

test('atif: Terminus 2 replies written as JSON (analysis, plan, keystrokes) are its thinking and a terminal call the observation answers', async () => {
  const run = await loadRun(fixture('atif/terminus-2-json-replies.trajectory.json'));
  const calls = run.steps.filter((s) => s.kind === 'tool_call');
  assert.deepEqual(calls.map((c) => [c.tool?.name, JSON.parse(c.tool!.args).keystrokes]), [
    ['terminal', 'mkdir test_dir\n'], ['terminal', "echo 'test1' > test_dir/file1.txt\n"], ['terminal', "echo 'test2' > test_dir/file2.txt\n"],
  ]);
  for (const call of calls) assert.ok(run.steps.some((s) => s.kind === 'tool_result' && s.answers === call.index), `call ${call.index} is answered`);
  assert.equal(run.coverage?.unpairedResults, 0);
  const thought = run.steps.find((s) => s.kind === 'thought');
  assert.match(thought?.text ?? '', /^Terminal is ready\. Let me create a test directory first\.\n\nCreate test_dir/);
  assert.ok(!run.steps.some((s) => stepLabel(s).startsWith('{')), 'no raw JSON reply as a label');
});

test('atif: a Terminus 2 reply that marks the task complete is an action the harness answers, not a result without a call', async () => {
  const run = await loadRun(fixture('atif/terminus-2-json-replies.trajectory.cont-1.json'));
  const done = run.steps.filter((s) => s.kind === 'tool_call' && s.tool?.name === 'task_complete');
  assert.equal(done.length, 2, 'the mark and its confirmation');
  assert.match(run.steps.find((s) => s.answers === done[0].index)?.text ?? '', /Are you sure you want to mark the task as complete\?/);
  assert.equal(run.coverage?.unpairedResults, 0);
  assert.equal(run.coverage?.unpairedCalls, 0);
});

test('labels: the <analysis> and <summary> tags of a compaction reply are not shown, what they wrap is', () => {
  const reply = '<analysis>\nLet me chronologically analyze the conversation: 1. **User asked**\n</analysis>\n<summary>1. Primary request</summary>';
  const line = stepPreview({ index: 0, turn: 1, kind: 'assistant', text: reply });
  assert.ok(!/<\/?(analysis|summary)>/.test(line), line);
  assert.match(line, /^Let me chronologically analyze the conversation/);
});

test('claude-code 2.1: what the person typed while the agent worked is read from the queue records, once, and what others queued is not theirs', async () => {
  // Record shapes as Claude Code 2.1 writes them (documented from real transcripts in public
  // repositories: peiman/vaultmind's episode tests, appshapes/brigade's queue_ops evidence):
  // `queue-operation` enqueue/dequeue/remove with `reason: "absorbed_mid_turn"`, and `attachment`
  // records of type `queued_command` with `commandMode` and `origin.kind`.
  const at = (s: number) => `2026-09-24T10:00:${String(s).padStart(2, '0')}.000Z`;
  const line = (s: number, rest: Record<string, unknown>) => JSON.stringify({ sessionId: 'q1', timestamp: at(s), ...rest });
  const user = (s: number, uuid: string, content: unknown) => line(s, { type: 'user', uuid, parentUuid: null, message: { role: 'user', content } });
  const said = (s: number, uuid: string, text: string) => line(s, { type: 'assistant', uuid, message: { id: `m${uuid}`, role: 'assistant', model: 'claude-opus-4-6', content: [{ type: 'text', text }] } });
  const queue = (s: number, operation: string, content?: string, reason?: string) => line(s, { type: 'queue-operation', operation, ...(content ? { content } : {}), ...(reason ? { reason } : {}) });
  const attachment = (s: number, prompt: unknown, extra: Record<string, unknown>) => line(s, { type: 'attachment', uuid: `at${s}`, attachment: { type: 'queued_command', prompt, commandMode: 'prompt', ...extra } });
  const file = writeTemp('queued.jsonl', [
    queue(0, 'enqueue', 'start the migration'), queue(0, 'dequeue'),
    user(1, 'u1', 'start the migration'),
    said(2, 'a1', 'Starting.'),
    queue(3, 'enqueue', 'check again'), queue(9, 'remove', 'check again', 'absorbed_mid_turn'),
    queue(10, 'enqueue', '<cross-session-message from-name="alice">\nready</cross-session-message>'),
    queue(11, 'remove', '<cross-session-message from-name="alice">\nready</cross-session-message>', 'absorbed_mid_turn'),
    attachment(12, 'and I hope we measure what matters', { origin: { kind: 'human' } }),
    attachment(13, '[from workhorse] ready when you are', { origin: { kind: 'peer' } }),
    attachment(14, 'Goal set: finish the work', { origin: { kind: 'auto-continuation' } }),
    attachment(15, [{ type: 'text', text: '[Image #2] why is this offline?' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }], {}),
    said(16, 'a2', 'Done.'),
    queue(17, 'enqueue', 'one more thing'),
  ].join('\n') + '\n');
  const t = await loadRun(file);
  const users = t.steps.filter((s) => s.kind === 'user');
  assert.deepEqual(users.map((s) => s.text), ['start the migration', 'check again', 'and I hope we measure what matters', '[Image #2] why is this offline?', 'one more thing'],
    'the dequeued prompt once (as its user line), the absorbed one, the person\'s attachments; not the peer\'s, the goal or the other session\'s');
  assert.equal(users[1].timestamp, at(3), 'a queued message stands where it was typed');
  assert.match(users[4].label ?? '', /does not show it sent/, 'still queued when the file ends: kept, and said so');
  const env = t.steps.filter((s) => s.kind === 'environment').map((s) => s.label);
  assert.deepEqual(env, ['message from another session: alice', 'peer message: [from workhorse] ready when you are', 'auto-continuation message: Goal set: finish the work']);
  assert.equal(t.coverage?.unpairedCalls, 0);
  assert.equal(t.coverage?.named, t.coverage && t.coverage.records - t.coverage.read, 'every record not read into a step is named');
});

test('codex: reasoning Codex Desktop keeps only encrypted (no summary, no content) is named in the coverage, not lost', async () => {
  const t = await loadRun(fixture('codex/codemie-desktop-encrypted-reasoning.jsonl'));
  assert.equal(t.format, 'codex');
  assert.equal(t.coverage?.skipped['response_item/reasoning (encrypted, no summary)'], 2);
  assert.equal(t.coverage?.named, t.coverage && t.coverage.records - t.coverage.read, 'every record not read into a step is named');
  assert.ok(!t.steps.some((s) => s.kind === 'thought' && s.text === ''), 'no empty thought stands for it');
});

test('pi: calls of an aborted reply, and a call a compaction follows, are named as cut off, not as calls without a result', async () => {
  const t = await loadRun(fixture('pi/pi-mono-aborted-and-compacted.jsonl'));
  assert.equal(t.format, 'pi');
  const aborted = t.steps.filter((s) => s.kind === 'tool_call' && s.tool?.interrupted);
  assert.equal(aborted.length, 4, 'the aborted replies held one call and three calls');
  assert.equal(t.coverage?.unpairedCalls, 0);
  assert.equal(t.coverage?.interruptedCalls, 5, 'four aborted, one cut off by the compaction');
  assert.equal(t.coverage?.unpairedResults, 0);
  assert.equal(t.steps.filter((s) => s.kind === 'compaction').length, 1);
});

test('coverage: a call answered later is not cut off by a compaction between; an unanswered one before a compaction is', () => {
  const b = new StepBuilder();
  b.add({ kind: 'user', text: 'go' });
  b.add({ kind: 'tool_call', text: '{}', tool: { name: 'bash', args: '{}', callId: 'c1' } });
  b.add({ kind: 'compaction', text: 'summary', compaction: { summary: 'summary' } });
  b.add({ kind: 'user', text: 'go on' });
  b.add({ kind: 'tool_call', text: '{}', tool: { name: 'bash', args: '{}', callId: 'c2' } });
  b.add({ kind: 'assistant', text: 'I will wait.' });
  b.add({ kind: 'user', text: 'and?' });
  const steps = b.finish();
  const c = computeCoverage({ shape: 'json', value: steps.map(() => ({})) }, fileOfRun({ format: 'openai-chat', title: 't', source: { path: '/t.json', size: 0 }, steps, meta: {}, warnings: [], records: steps.length }), undefined);
  assert.equal(c.interruptedCalls, 1, 'the call right before the compaction');
  assert.equal(c.unpairedCalls, 1, 'the call the agent went on past is still without a result');
});

test('a tool result that is a JSON object previews as its fields, not its braces (real outputs of an any-agent OTel trace)', () => {
  const result = (text: string) => ({ index: 3, kind: 'tool_result' as const, text, turn: 0, tool: { name: '', args: '' } });
  assert.equal(stepPreview(result('{\n  "timezone": "America/New_York",\n  "datetime": "2025-09-16T08:43:06-04:00",\n  "is_dst": true\n}')), 'timezone=America/New_York datetime=2025-09-16T08:43:06-04:00 is_dst=true');
  const nested = stepPreview(result('{"success": true, "result": {"steps": [{"number": 1, "description": "Get current time in the America/New_York timezone."}]}}'));
  assert.match(nested, /^success=true result=/);
  assert.equal(stepPreview(result('Traceback (most recent call last):')), 'Traceback (most recent call last):', 'plain text stays as it is');
});

test('claude-code: the client\'s "[Request interrupted by user]" markers are environment steps, not the person\'s requests (real text of two dev wild sessions)', () => {
  assert.equal(injectedLabel(CLAUDE_CODE_INJECTED, '[Request interrupted by user for tool use]'), 'interrupted by the person');
  assert.equal(injectedLabel(CLAUDE_CODE_INJECTED, '[Request interrupted by user]'), 'interrupted by the person');
  assert.equal(injectedLabel(CLAUDE_CODE_INJECTED, '[Request interrupted by user] but please also check the logs'), undefined, 'words after it are the person\'s');
});

test('otel: spans of one JSON document are located by JSON Pointer, and the agent\'s root span, which makes no step, is named (a real any-agent trace)', async () => {
  const t = await loadRun(fixture('otel/any-agent-google-trace.json'));
  assert.equal(t.format, 'otel');
  assert.equal(t.coverage?.unlocatedSteps, 0, 'every step says which span it came from');
  assert.deepEqual(t.steps.map((s) => s.location?.pointer), ['/spans/0', '/spans/0', '/spans/0', '/spans/1', '/spans/2', '/spans/3', '/spans/4', '/spans/5']);
  assert.equal(t.coverage?.records, 7);
  assert.equal(t.coverage?.read, 6);
  assert.deepEqual(t.coverage?.skipped, { 'invoke_agent span (no model or tool call)': 1 });
  assert.equal(t.coverage?.named, 1);
});

test('claude-code: a shell command the person ran with ! and its output, and a local command logged as system lines, are environment steps named by the command (real lines of a 2.1 session)', async () => {
  const run = await loadRun(fixture('claude-code/claude-history-shell-and-local-commands.jsonl'));
  assert.equal(run.steps.filter((s) => s.kind === 'user').length, 0, 'none of them is a request to the model');
  assert.deepEqual(run.steps.filter((s) => s.kind === 'environment').map((s) => s.label), ['! git pull', 'shell output', '! git status', 'shell output', '/mcp', 'command output']);
  assert.ok(run.steps.every((s) => !/<[a-z-]+>/.test(stepLabel(s))), 'no wrapper tags in a label');
});

test('claude-code: what a local command printed under its caveat (`Unknown skill: dream`) is the client\'s output, not a request (a 2.1.86 session, sweep 7)', () => {
  // The lines as Claude Code 2.1.86 wrote them after an unknown `/dream` (texts of the caveat and
  // the reply are the client's; the person's request is ours): a meta caveat, then a user line
  // with the same promptId whose parent is the caveat. It was a "later request" in summaries.
  const line = (o: Record<string, unknown>) => JSON.stringify({ sessionId: 's', version: '2.1.86', cwd: '/tmp/p', isSidechain: false, userType: 'external', timestamp: '2026-03-29T04:19:23.810Z', ...o });
  const text = [
    line({ type: 'user', uuid: 'u1', parentUuid: null, promptId: 'p1', message: { role: 'user', content: 'Tidy the notes folder.' } }),
    line({ type: 'assistant', uuid: 'a1', parentUuid: 'u1', message: { id: 'm1', role: 'assistant', model: 'claude-sonnet-4-6', content: [{ type: 'text', text: 'What do you need?' }] } }),
    line({ type: 'user', uuid: 'c1', parentUuid: 'a1', promptId: 'p2', isMeta: true, message: { role: 'user', content: '<local-command-caveat>Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to.</local-command-caveat>' } }),
    line({ type: 'user', uuid: 'o1', parentUuid: 'c1', promptId: 'p2', message: { role: 'user', content: 'Unknown skill: dream' } }),
    line({ type: 'user', uuid: 'u2', parentUuid: 'o1', promptId: 'p3', message: { role: 'user', content: 'restart' } }),
  ].join('\n') + '\n';
  const run = parseRunText(text, { path: 'session.jsonl', size: text.length });
  const output = run.steps.find((s) => s.text === 'Unknown skill: dream')!;
  assert.equal(output.kind, 'environment');
  assert.equal(output.label, 'command output');
  assert.deepEqual(run.steps.filter((s) => s.kind === 'user').map((s) => s.text), ['Tidy the notes folder.', 'restart'], 'the next request is the person\'s again');
});

test('claude-code: a message that opens with the client\'s reminder and goes on in the person\'s words is both: a reminder, then the request (/btw, 2.1.86)', () => {
  // A `/btw` side question as Claude Code 2.1.86 writes it (sweep 7; the question here is ours):
  // one string, the reminder first. The whole line was an environment step and the question lost.
  const line = (o: Record<string, unknown>) => JSON.stringify({ sessionId: 's', version: '2.1.86', cwd: '/tmp/p', isSidechain: true, userType: 'external', timestamp: '2026-03-29T04:05:00.000Z', ...o });
  const reminder = '<system-reminder>This is a side question from the user. You must answer this question directly in a single response.</system-reminder>';
  const text = [
    line({ type: 'user', uuid: 'q1', parentUuid: null, message: { role: 'user', content: `${reminder}\n\nDoes the footnote style match the old notes?` } }),
    line({ type: 'assistant', uuid: 'a1', parentUuid: 'q1', message: { id: 'm1', role: 'assistant', model: 'claude-sonnet-4-6', content: [{ type: 'text', text: 'Yes, it does.' }] } }),
  ].join('\n') + '\n';
  const run = parseRunText(text, { path: 'agent-aside_question-1.jsonl', size: text.length });
  assert.deepEqual(run.steps.map((s) => s.kind), ['environment', 'user', 'assistant']);
  assert.equal(run.steps[1].text, 'Does the footnote style match the old notes?');
  assert.equal(run.title, 'Does the footnote style match the old notes?');
});

test('gemini-cli: a user message the CLI sent while it showed the person only a tool response is an environment step, not a turn (a real 2026 session line)', () => {
  const person = JSON.stringify({ id: 'p1', timestamp: '2026-04-23T12:53:05.283Z', type: 'user', content: [{ text: 'Make GEMINI.md' }] });
  const reply = JSON.stringify({ id: 'g1', timestamp: '2026-04-23T12:53:40.000Z', type: 'gemini', content: 'Done.' });
  const header = JSON.stringify({ sessionId: '0c5a1f0e', projectHash: 'p', startTime: '2026-04-23T12:53:02.597Z', lastUpdated: '2026-04-23T12:53:02.597Z', kind: 'main' });
  const text = [header, person, reply, "{\"id\":\"1b8df650-1638-435e-b736-1f1f42357da9\",\"timestamp\":\"2026-04-23T12:53:48.927Z\",\"type\":\"user\",\"content\":[{\"text\":\"System: Please continue.\"}],\"displayContent\":[{\"functionResponse\":{\"id\":\"jyi4d5mc\",\"name\":\"update_topic\",\"response\":{\"output\":\"Strategic Intent: \u5df2\u6210\u529f\u7522\u751f GEMINI.md \u6a94\u6848\u4e26\u5b8c\u6210\u5c08\u6848\u5206\u6790\u3002\"}}}]}"].join('\n') + '\n';
  const run = parseRunText(text, { path: 'session-2026-04-23.jsonl', size: text.length });
  const sent = run.steps[run.steps.length - 1];
  assert.equal(sent.kind, 'environment');
  assert.equal(sent.label, 'sent by the CLI: System: Please continue.');
  assert.equal(run.steps.filter((s) => s.kind === 'user').length, 1);
  assert.equal(turnsOf(run.steps).length, 1);
});

test('copilot-cli: a user.message with nothing typed and text sent (autopilot\'s nudge) is an environment step, not an empty turn (a real 2026 event)', () => {
  const start = JSON.stringify({ type: 'user.message', data: { content: 'Investigate doc generators; do not edit code.' }, id: 'u1', timestamp: '2026-04-24T01:10:00.000Z', parentId: null });
  const reply = JSON.stringify({ type: 'assistant.message', data: { messageId: 'm1', content: 'Looking.', toolRequests: [] }, id: 'a1', timestamp: '2026-04-24T01:11:00.000Z', parentId: 'u1' });
  const text = [start, reply, "{\"type\":\"user.message\",\"data\":{\"content\":\"\",\"transformedContent\":\"<current_datetime>2026-04-24T01:12:37.464+08:00</current_datetime>\\n\\nYou have not yet marked the task as complete using the task_complete tool. If you were planning, stop planning and start implementing. You aren't done until you have fully completed the task.\\n\\nIMPORTANT: Do NOT call task_complete if:\\n- You have open questions or ambiguities - make good decisions and keep working\\n- You encountered an error - try to resolve it or find an alternative approach\\n- There are remaining steps - complete them first\\n\\nKeep working autonomously until the task is truly finished, then call task_complete.\\n\\n<reminder>\\n<sql_tables>No tables currently exist. Default tables (todos, todo_deps) will be created automatically when you first use the SQL tool.</sql_tables>\\n</reminder>\",\"attachments\":[],\"supportedNativeDocumentMimeTypes\":[],\"agentMode\":\"autopilot\",\"interactionId\":\"2c71409f-8488-43f8-b878-2c0a92426f6b\"},\"id\":\"bcb6a884-d526-41ca-bb9a-59d91af59516\",\"timestamp\":\"2026-04-23T17:12:37.464Z\",\"parentId\":\"6d596ac8-fc7c-4464-8722-98352e766adb\"}"].join('\n') + '\n';
  const run = parseRunText(text, { path: 'events.jsonl', size: text.length });
  const nudge = run.steps[run.steps.length - 1];
  assert.equal(nudge.kind, 'environment');
  assert.match(nudge.label ?? '', /^sent by the client: You have not yet marked the task as complete/);
  assert.equal(run.steps.filter((s) => s.kind === 'user').length, 1);
  assert.equal(turnsOf(run.steps).length, 1);
});

test('openai-chat: Kimi\'s think parts are thought steps, and its <system> status line on a tool\'s output is not shown as a tag (real lines of a Kimi CLI log)', () => {
  const text = ["{\"role\": \"assistant\", \"content\": [{\"type\": \"think\", \"think\": \"The user wants me to execute a task at `tasks/T-20260602-doc-link-audit.md`. I need to:\\n1. Read the task spec\\n2. Follow the Goal, Anti-Patterns, and Do-Not-Touch sections\\n3. Fix broken markdown links to satisfy all 5 evals\\n4. Success bar: in-scope broken-link count drops below 5 (baseline 34)\\n5. Run the Exit Check myself to verify before reporting done\\n6. Do NOT touch docs/audit/**\\n7. Do NOT modify out-of-scope dirs\\n8. Do NOT create new files\\n9. Do NOT rewrite content beyond link fixes\\n10. Where a link target was renamed, point at the new path; where deleted with no successor, convert the link to plain text\\n\\nLet me start by reading the task spec.\", \"encrypted\": null}], \"tool_calls\": [{\"type\": \"function\", \"id\": \"tool_362GLi9L0uPFGpwtIyB8dYvP\", \"function\": {\"name\": \"ReadFile\", \"arguments\": \"{\\\"path\\\": \\\"tasks/T-20260602-doc-link-audit.md\\\"}\"}}]}", "{\"role\": \"tool\", \"tool_call_id\": \"tool_362GLi9L0uPFGpwtIyB8dYvP\", \"content\": [{\"type\": \"text\", \"text\": \"<system>287 lines read from file starting from line 1. Total lines in file: 287. End of file reached.</system>\"}, {\"type\": \"text\", \"text\": \"     1\\t---\\n     2\\tid: T-20260602-doc-link-audit\\n     3\\ttitle: Fix broken relative markdown links in docs/ + .claude/{rules,commands}/ + top-level MDs\\n     4\\tstatus: ready\\n     5\\tformat_version: 2\\n     6\\teffort: S\\n     7\\tbudget_iterations: 15\\n     8\\tagent: any\\n     9\\tdepends_on: []\\n    10\\ttouches_pat\"}]}"].join('\n') + '\n';
  const run = parseRunText(text, { path: 'real-session.jsonl', size: text.length });
  const thought = run.steps[0];
  assert.equal(thought.kind, 'thought');
  assert.match(thought.text, /^The user wants me to execute a task at `tasks\/T-20260602-doc-link-audit\.md`/);
  assert.ok(!run.steps.some((s) => stepPreview(s).startsWith('{')), 'no raw JSON part as a preview');
  const result = run.steps.find((s) => s.kind === 'tool_result')!;
  assert.equal(result.answers, run.steps.find((s) => s.kind === 'tool_call')!.index);
  assert.match(stepPreview(result), /^287 lines read from file starting from line 1\./);
});

test('turns: a file that opens with the result of a call made before it (a Claude Code compaction agent) has one turn, not two', () => {
  const lines = [
    { type: 'user', uuid: 'r1', parentUuid: null, sessionId: 's', isSidechain: true, agentId: 'acompact-1', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_before', content: 'done' }] } },
    { type: 'user', uuid: 'u1', parentUuid: 'r1', sessionId: 's', isSidechain: true, agentId: 'acompact-1', message: { role: 'user', content: 'Summarize the conversation so far.' } },
    { type: 'assistant', uuid: 'a1', parentUuid: 'u1', sessionId: 's', isSidechain: true, agentId: 'acompact-1', message: { id: 'm1', role: 'assistant', model: 'claude-haiku-4-5', content: [{ type: 'text', text: 'Summary: …' }] } },
  ];
  const text = lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
  const run = parseRunText(text, { path: 'agent-acompact-1.jsonl', size: text.length });
  assert.equal(run.steps[0].kind, 'tool_result');
  assert.equal(turnsOf(run.steps).length, 1);
});

test('claude-code: one response\'s parallel calls written one line each, with their results between them, are one request, not five (real lines of a 2026 subagent file)', async () => {
  const run = await loadRun(fixture('claude-code/spotter-parallel-calls-interleaved.jsonl'));
  const calls = run.steps.filter((s) => s.kind === 'tool_call');
  assert.equal(calls.length, 5);
  // The response's blocks sit together, in the order written; the results follow, each answering its call.
  const firstResult = run.steps.findIndex((s) => s.kind === 'tool_result');
  assert.ok(calls.every((c) => c.index < firstResult), 'every call before the first result');
  assert.deepEqual(run.steps.filter((s) => s.kind === 'tool_result').map((r) => r.answers), calls.map((c) => c.index), 'each result answers its own call, in order');
  assert.equal(requestStarts(run.steps).filter(Boolean).length, 1, 'one model request');
  assert.equal(billRunAsHappened(run).billing.modelCalls, 1, 'the replay bills one request');
});

test("a Codex command's status is read from Codex's own wording: the `Exit code:` header, and `execution error:` when the sandbox could not start it", async () => {
  // A real Codex 0.6x rollout (wild dev split): rustup could not write its temp folder, and one
  // command ran in a folder whose name had a typo.
  const t = await loadRun(path.join(REPO_ROOT, 'wild', 'files', 'Prometheus-AGS__prometheus-parking-lot-rs', 'rollout-2025-12-06T15-11-37-019af581-86ce-7d23-b9c6-0f99353d36af.jsonl'));
  const at = (i: number) => t.steps[i];
  assert.equal(at(4).exitCode, 255);
  assert.equal(at(360).exitCode, 1);
  assert.match(at(257).text, /^execution error: Io\(/);
  assert.equal(at(257).isError, true);
  assert.equal(stepFailed(at(257), t.steps), true);
  // A command that went through keeps exit 0 and no error.
  const ok = t.steps.find((s) => s.kind === 'tool_result' && /^Exit code: 0\n/.test(s.text));
  assert.ok(ok && ok.exitCode === 0 && !ok.isError && !stepFailed(ok, t.steps));
});

test("a run's title skips a saved prompt's label heading and fences: spec-kit's '## User Input' titles nothing", async (t) => {
  // Wild-log dev file (wild/SOURCES.md), read in place: Codex expanded /speckit.specify into the first message.
  const file = path.join(REPO_ROOT, 'wild', 'files', 'Prometheus-AGS__prometheus-parking-lot-rs', 'rollout-2025-12-06T15-11-37-019af581-86ce-7d23-b9c6-0f99353d36af.jsonl');
  const titled = (text: string) => titleFromSteps([{ kind: 'user', text }], 'fallback');
  assert.equal(titled('## User Input\n\n```text\nAdd a CSV export\n```\n\nYou MUST consider the user input.'), 'Add a CSV export');
  assert.equal(titled('# Fix the login redirect\n\nUsers land on /home.'), '# Fix the login redirect', 'a heading that says something is the title');
  assert.equal(titled('## Task\n'), '## Task', 'a label alone is still a title');
  if (!fs.existsSync(file)) return t.skip('wild/files is not in this checkout');
  const run = (await loadTrajectory(file)).runs[0];
  assert.match(run.title, /^I want to build everything that has been discussed in README\.md/);
});

test('Codex unified exec: the exit status a later exec_command_end records is the call\'s; a write_stdin poll\'s "Process exited with code N" is its own', async () => {
  const file = fixture('codex/codemie-unified-exec.jsonl');
  const run = await loadRun(file);
  const started = run.steps.find((s) => s.kind === 'tool_result' && s.toolName === 'exec_command' && /Process running with session ID 48230/.test(s.text))!;
  assert.equal(started.exitCode, 0, 'exec_command_end (call_Y2p6…) says exit_code 0');
  const polled = run.steps.find((s) => s.kind === 'tool_result' && s.toolName === 'write_stdin' && /Process exited with code 0/.test(s.text))!;
  assert.equal(polled.exitCode, 0);
  const r = await runCompaction(run, { strategy: findStrategy('openhands-summary')!, range: '0:-1' }, { counter: charEstimateCounter });
  assert.match(r.summary!, /checked: sed -n '1,180p' …\/using-superpowers\/SKILL\.md \(exit 0\)/, r.summary!);
  assert.doesNotMatch(r.summary!, /→ Process running with session ID 48230/);
  // The same records with the command failing: the call's result is an error, found by its status.
  const text = fs.readFileSync(file, 'utf8').replace(/("type":"exec_command_end","call_id":"call_Y2p6KmqwoTtpi6atpDPuxC5M"[^\n]*?"exit_code":)0/, '$11');
  const failing = parseRunText(text, { path: 'rollout.jsonl', size: text.length });
  const failed = failing.steps[started.index];
  assert.equal(failed.exitCode, 1);
  assert.equal(stepFailed(failed, failing.steps), true);
});

test("Codex: a web search the item records as completed has its outcome; it is not pending", async () => {
  // The search line as a real Codex 0.125 rollout wrote it (codemie-ai/codemie-code, see test/fixtures/SOURCES.md's codemie-unified-exec row).
  const search = '{"timestamp":"2026-05-11T08:39:29.842Z","type":"response_item","payload":{"type":"web_search_call","status":"completed","action":{"type":"search","query":"OpenCode config compact context percentage compact threshold env var OPENCODE_CONFIG_CONTENT","queries":["OpenCode config compact context percentage compact threshold env var OPENCODE_CONFIG_CONTENT","opencode config autocompact compact threshold context"]}}}';
  const user = '{"timestamp":"2026-05-11T08:39:20.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Find how OpenCode sets its compaction threshold."}]}}';
  const reply = '{"timestamp":"2026-05-11T08:39:40.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"OpenCode compacts at a fixed share of the window."}]}}';
  const text = [user, search, search.replace('"completed"', '"failed"'), reply].join('\n');
  const run = parseRunText(text, { path: 'rollout.jsonl', size: text.length });
  const results = run.steps.filter((s) => s.kind === 'tool_result');
  assert.deepEqual(results.map((r) => [r.text, r.answers !== undefined, stepFailed(r, run.steps)]), [['', true, false], ['', true, true]]);
  const r = await runCompaction(run, { strategy: findStrategy('openhands-summary')!, range: '0:-2' }, { counter: charEstimateCounter });
  assert.doesNotMatch(r.summary!, /no result yet: web_search/, r.summary!);
});

test('Codex unified exec: a write_stdin poll continues the exec_command whose session its result named; summaries read the command with the poll\'s output and status', async () => {
  const file = fixture('codex/codemie-unified-exec.jsonl');
  const run = await loadRun(file);
  const command = run.steps.find((s) => s.kind === 'tool_call' && s.tool?.name === 'exec_command')!;
  const poll = run.steps.find((s) => s.kind === 'tool_call' && s.tool?.name === 'write_stdin')!;
  assert.equal(poll.continues, command.index, 'session 48230, named by the command\'s result');
  const summary = async (r: typeof run, id: string) => (await runCompaction(r, { strategy: findStrategy(id)!, range: '0:-1' }, { counter: charEstimateCounter })).summary!;
  const oh = await summary(run, 'openhands-summary');
  assert.doesNotMatch(oh, /Process running with session ID/, 'the harness line is not the command\'s output');
  assert.match(oh, /SKILL\.md \(read\): name: using-superpowers/, 'what the poll returned is what the command printed');
  const kt = await summary(run, 'katalyst-tools');
  assert.match(kt, /^exec_command \(1 call, 1 more reading their output\):/m);
  assert.doesNotMatch(kt, /^write_stdin/m, 'the poll is not a tool of its own in the grouping');
  // Without the exec_command_end event, the poll's own "Process exited with code 1" is how the command ended.
  const text = fs.readFileSync(file, 'utf8').split('\n').filter((l) => !l.includes('"exec_command_end"')).join('\n')
    .replace('Process exited with code 0', 'Process exited with code 1');
  const failing = parseRunText(text, { path: 'rollout.jsonl', size: text.length });
  const ktFailing = await summary(failing, 'katalyst-tools');
  assert.match(ktFailing, /exit 1/, ktFailing);
});

test('sweep 8: a Codex rollout that kept only events has its answer in task_complete; Claude Code 2.1.27x\'s mode and bridge-session lines are bookkeeping', async () => {
  // The shapes of two real 2026 files (liux4989/CodingTrajectory, mani99brar/ai-logs; no licence
  // stated, so not copied), with texts of ours.
  const rollout = [
    { timestamp: '2026-06-30T08:51:06.978Z', type: 'session_meta', payload: { id: '019f17c0-0000-7000-8000-000000000001', cwd: '/work/app', model_provider: 'openai' } },
    { timestamp: '2026-06-30T08:51:06.984Z', type: 'turn_context', payload: { turn_id: 't1', model: 'gpt-5.5' } },
    { timestamp: '2026-06-30T08:51:06.987Z', type: 'event_msg', payload: { type: 'user_message', message: 'Rename the config loader to loadSettings.' } },
    { timestamp: '2026-06-30T08:52:55.740Z', type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: { input_tokens: 1000, cached_input_tokens: 800, output_tokens: 100, total_tokens: 1100 }, last_token_usage: { input_tokens: 1000, cached_input_tokens: 800, output_tokens: 100, total_tokens: 1100 } } } },
    { timestamp: '2026-06-30T08:52:55.745Z', type: 'event_msg', payload: { type: 'task_complete', turn_id: 't1', last_agent_message: 'Renamed it in 3 files; the tests pass.' } },
  ].map((r) => JSON.stringify(r)).join('\n');
  const codex = (await loadTrajectory(writeTemp('rollout-2026-06-30T08-51-06-019f17c0.jsonl', rollout))).runs[0];
  assert.deepEqual(codex.steps.map((s) => [s.kind, s.text]), [['user', 'Rename the config loader to loadSettings.'], ['assistant', 'Renamed it in 3 files; the tests pass.']]);
  // A rollout whose answer is a message of its own does not get it twice.
  const answered = rollout.replace('{"timestamp":"2026-06-30T08:52:55.745Z"', `${JSON.stringify({ timestamp: '2026-06-30T08:52:55.742Z', type: 'event_msg', payload: { type: 'agent_message', message: 'Renamed it in 3 files; the tests pass.' } })}\n{"timestamp":"2026-06-30T08:52:55.745Z"`);
  assert.equal((await loadTrajectory(writeTemp('rollout-answered.jsonl', answered))).runs[0].steps.filter((s) => s.kind === 'assistant').length, 1);
  const claude = [
    { type: 'mode', mode: 'normal', sessionId: 's1' },
    { type: 'bridge-session', sessionId: 's1', bridgeSessionId: 'cse_1', lastSequenceNum: 0 },
    { type: 'user', uuid: 'u1', parentUuid: null, sessionId: 's1', timestamp: '2026-06-30T08:51:06.978Z', message: { role: 'user', content: 'What does loadSettings return?' } },
    { type: 'assistant', uuid: 'a1', parentUuid: 'u1', sessionId: 's1', timestamp: '2026-06-30T08:51:09.000Z', message: { id: 'msg_1', role: 'assistant', model: 'claude-sonnet-4-6', content: [{ type: 'text', text: 'A Settings object.' }], usage: { input_tokens: 10, output_tokens: 5 } } },
  ].map((r) => JSON.stringify(r)).join('\n');
  const session = await loadTrajectory(writeTemp('36fca710-0000-4000-8000-000000000001.jsonl', claude));
  assert.equal(session.runs[0].format, 'claude-code');
  assert.doesNotMatch(coverageWarning(session.coverage!) ?? '', /does not know/);
  assert.equal(session.coverage?.named, 2, 'mode and bridge-session are named bookkeeping');
});

test('records a reader reads on purpose into no step are named: Copilot\'s model change and repeated execution_start, Gemini\'s later form of a message, Codex\'s ghost snapshot', async () => {
  // Shapes of real dev files (softwaresalt/agent-engram, Mai0313/VibeCodingTracker, Prometheus-AGS's rollout), texts of ours.
  const copilot = [
    { type: 'session.start', data: { sessionId: 's', selectedModel: 'gpt-5' }, id: 'e1', timestamp: '2026-05-01T10:00:00.000Z' },
    { type: 'session.model_change', data: { newModel: 'claude-sonnet-4.6' }, id: 'e2', timestamp: '2026-05-01T10:00:01.000Z' },
    { type: 'user.message', data: { content: 'List the files.' }, id: 'e3', timestamp: '2026-05-01T10:00:02.000Z' },
    { type: 'assistant.message', data: { content: '', toolRequests: [{ toolCallId: 't1', name: 'powershell', arguments: { command: 'ls' } }] }, id: 'e4', timestamp: '2026-05-01T10:00:03.000Z' },
    { type: 'tool.execution_start', data: { toolCallId: 't1', toolName: 'powershell', arguments: { command: 'ls' } }, id: 'e5', timestamp: '2026-05-01T10:00:03.100Z' },
    { type: 'tool.execution_complete', data: { toolCallId: 't1', success: true, result: { content: 'a.txt' } }, id: 'e6', timestamp: '2026-05-01T10:00:04.000Z' },
  ].map((r) => JSON.stringify(r)).join('\n');
  const c = await loadTrajectory(writeTemp('events.jsonl', copilot));
  assert.equal(c.runs[0].format, 'copilot-cli');
  const all = (cov: NonNullable<typeof c.coverage>) => cov.named === cov.records - cov.read;
  assert.ok(all(c.coverage!), JSON.stringify(c.coverage));
  const gemini = [
    { sessionId: 'g', projectHash: 'h', startTime: '2026-04-23T12:53:00.000Z', lastUpdated: '2026-04-23T12:53:00.000Z', kind: 'main' },
    { id: 'u1', timestamp: '2026-04-23T12:53:01.000Z', type: 'user', content: [{ text: 'Write GEMINI.md.' }] },
    { id: 'm1', timestamp: '2026-04-23T12:53:05.000Z', type: 'gemini', content: '', thoughts: [{ subject: 'Planning', description: 'Read the README first.' }] },
    { id: 'm1', timestamp: '2026-04-23T12:53:09.000Z', type: 'gemini', content: 'Done: GEMINI.md written.', thoughts: [{ subject: 'Planning', description: 'Read the README first.' }] },
  ].map((r) => JSON.stringify(r)).join('\n');
  const g = await loadTrajectory(writeTemp('session-2026-04-23T12-53-g.jsonl', gemini));
  assert.equal(g.runs[0].format, 'gemini-cli');
  assert.equal(g.runs[0].steps.filter((s) => s.kind === 'assistant').map((s) => s.text).join(), 'Done: GEMINI.md written.', 'the message in its final form, once');
  assert.ok(all(g.coverage!), JSON.stringify(g.coverage));
  const rollout = [
    { timestamp: '2026-01-01T00:00:00.000Z', type: 'session_meta', payload: { id: '019b0000-0000-7000-8000-000000000001', cwd: '/w' } },
    { timestamp: '2026-01-01T00:00:01.000Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix the build.' }] } },
    { timestamp: '2026-01-01T00:00:02.000Z', type: 'response_item', payload: { type: 'ghost_snapshot', ghost_commit: { id: 'abc123', parent: 'def456', preexisting_untracked_files: [], preexisting_untracked_dirs: [] } } },
    { timestamp: '2026-01-01T00:00:03.000Z', type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Fixed.' }] } },
  ].map((r) => JSON.stringify(r)).join('\n');
  const x = await loadTrajectory(writeTemp('rollout-2026-01-01T00-00-00-019b0000.jsonl', rollout));
  assert.equal(x.runs[0].format, 'codex');
  assert.ok(all(x.coverage!), JSON.stringify(x.coverage));
});

test('claude-code: a session in which the person only typed /exit is titled "/exit", not by its file name', () => {
  // The shape of a real Claude Code 2.1.270 session (sweep 8; ids and paths here are ours): the
  // local-command caveat (isMeta), the typed command, its output.
  const base = { isSidechain: false, userType: 'external', entrypoint: 'cli', cwd: '/home/u', sessionId: 's-1', version: '2.1.270', timestamp: '2026-09-14T08:14:44.011Z' };
  const text = [
    { type: 'user', isMeta: true, parentUuid: null, uuid: 'u-0', message: { role: 'user', content: '<local-command-caveat>Caveat: The messages below were generated by the user while running local commands.</local-command-caveat>' } },
    { type: 'user', parentUuid: 'u-0', uuid: 'u-1', message: { role: 'user', content: '<command-name>/exit</command-name>\n            <command-message>exit</command-message>\n            <command-args></command-args>' } },
    { type: 'user', parentUuid: 'u-1', uuid: 'u-2', message: { role: 'user', content: '<local-command-stdout>See ya!</local-command-stdout>' } },
  ].map((r) => JSON.stringify({ ...base, ...r })).join('\n');
  const run = parseRunText(text, { path: 'aaaa-bbbb.jsonl', size: text.length, modified: 0 });
  assert.equal(run.format, 'claude-code');
  assert.equal(run.title, '/exit');
});

test('codex: a tool_search_call is answered by its tool_search_output, which lists the tools it found', async () => {
  // A real Codex 2026 session (EntityProcess/agentv, wild dev): the model searched its tools twice,
  // and the answers were "calls without a result".
  const t = await loadTrajectory(path.join(REPO_ROOT, 'wild', 'files', 'EntityProcess__agentv', 'codex-full.jsonl'));
  const run = t.runs[0];
  const searches = run.steps.filter((s) => s.kind === 'tool_call' && s.tool?.name === 'tool_search');
  assert.equal(searches.length, 2);
  for (const call of searches) {
    const answer = run.steps.find((s) => s.kind === 'tool_result' && s.answers === call.index);
    assert.ok(answer, `call ${call.index} has its answer`);
    assert.match(answer.text, /^mcp__codex_apps__github: Access repositories, issues, and pull requests\..* \(\d+ tools: _/);
  }
});
