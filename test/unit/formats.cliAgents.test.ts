import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { loadTrajectory } from '../../src/core/open';
import type { Step } from '../../src/core/model';
import { fixture, tempDir, writeTemp } from '../helpers/paths';
import { titleFromSteps } from '../../src/core/formats/chatMessages';
import { loadRun } from '../helpers/runs';
import { billRunAsHappened } from '../../src/core/simulate';
import { runCost } from '../../src/core/pricing/runCost';
import { runCli } from '../helpers/cli';
import { findStrategy, runCompaction } from '../../src/core/compaction';
import { extractFacts } from '../../src/core/compaction/extract';
import { charEstimateCounter } from '../../src/core/tokens/counter';
import { stepTotal, TokenService } from '../../src/core/tokens';
import { stepPreview } from '../../src/core/view/stepPresentation';

const kinds = (t: { steps: Step[] }) => t.steps.map((s) => s.kind);
const jsonl = (lines: unknown[]) => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';

// ---- Gemini CLI --------------------------------------------------------------------------------

test('gemini-cli: the real session JSON from the ATIF RFC reads with its tokens and model', async () => {
  const t = await loadRun(fixture('gemini-cli/session-hello-world.json'));
  assert.equal(t.format, 'gemini-cli');
  assert.deepEqual(kinds(t), ['user', 'assistant']);
  assert.deepEqual(t.steps[1].usage, { model: 'gemini-2.0-flash', inputTokens: 5915, outputTokens: 24, cachedInputTokens: 0 });
  assert.equal(t.meta.sessionId, 'cdd63974-c2a3-4f1c-931d-cce1db22ec03');
  assert.equal(t.steps[0].location?.pointer, '/messages/0');
});

test('gemini-cli: the JSON Lines layout applies repeated ids, $set histories, $rewindTo and the compression summary', async () => {
  const header = { sessionId: 's-1', projectHash: 'abc', startTime: '2026-03-01T10:00:00Z', lastUpdated: '2026-03-01T10:00:00Z', kind: 'main' };
  const user = { id: 'u1', timestamp: '2026-03-01T10:00:01Z', type: 'user', content: [{ text: 'Fix the failing test in math.py' }] };
  const draft = { id: 'g1', timestamp: '2026-03-01T10:00:02Z', type: 'gemini', content: '', model: 'gemini-2.5-pro' };
  const final = {
    ...draft,
    thoughts: [{ subject: 'Plan', description: 'Read the test first.', timestamp: '2026-03-01T10:00:02Z' }],
    toolCalls: [{ id: 'c1', name: 'read_file', args: { path: 'math.py' }, status: 'success', timestamp: '2026-03-01T10:00:03Z',
      result: [{ functionResponse: { id: 'c1', name: 'read_file', response: { output: 'def add(a, b): return a - b' } } }] }],
    tokens: { input: 1200, output: 40, cached: 800, thoughts: 25, tool: 10, total: 1275 },
  };
  const wrong = { id: 'g2', timestamp: '2026-03-01T10:00:04Z', type: 'gemini', content: 'Deleting the tests.' };
  const summary = { id: 'u2', timestamp: '2026-03-01T10:00:06Z', type: 'user', content: [{ text: '<state_snapshot>\n<overall_goal>Fix add() in math.py</overall_goal>\n</state_snapshot>' }] };
  const file = writeTemp('session-2026-03-01T10-00-s1.jsonl', jsonl([
    header, user, draft, final, wrong, { $rewindTo: 'g2' },
    { id: 'i1', timestamp: '2026-03-01T10:00:05Z', type: 'info', content: 'Chat history compressed.' },
    { $set: { messages: [summary, { ...final }], lastUpdated: '2026-03-01T10:00:06Z' } },
    { id: 'g3', timestamp: '2026-03-01T10:00:07Z', type: 'gemini', content: 'Fixed: add() now returns a + b.', tokens: { input: 300, output: 12, cached: 0 } },
  ]));
  const t = await loadRun(file);
  assert.equal(t.format, 'gemini-cli');
  assert.deepEqual(kinds(t), ['user', 'thought', 'tool_call', 'tool_result', 'other', 'compaction', 'assistant']);
  assert.equal(t.steps[1].text, 'Plan: Read the test first.');
  assert.equal(t.steps[3].answers, 2);
  assert.equal(t.steps[3].text, 'def add(a, b): return a - b');
  // The message's tokens: prompt plus tool-use prompt, reply plus thinking.
  assert.deepEqual(t.steps[2].usage, { model: 'gemini-2.5-pro', inputTokens: 1210, outputTokens: 65, cachedInputTokens: 800 });
  assert.match(t.steps[5].compaction?.summary ?? '', /<overall_goal>Fix add\(\) in math.py/);
  assert.ok(!t.steps.some((s) => s.text === 'Deleting the tests.'), 'the rewound reply is gone, as in the CLI');
  assert.match(t.warnings[0].message, /1 message\(s\) were rewound/);
  assert.equal(t.meta.recorded?.inputTokens, 1510);
});

// ---- Copilot CLI -------------------------------------------------------------------------------

test('gemini-cli: a chat shared as Markdown (/chat share chat.md) reads as the chat: each call answered, the CLI\'s context an environment step', async () => {
  // A real share of 2026-01 (wechicken456/CTF-agent, MIT): the session context under ## USER, the
  // person's task, 29 calls written without the ids their answers name, one the person cancelled.
  const ctf = await loadRun(fixture('gemini-cli/ctf-agent-ezrop-pwn.md'));
  assert.equal(ctf.format, 'gemini-cli');
  const calls = ctf.steps.filter((s) => s.kind === 'tool_call');
  assert.equal(calls.length, 29);
  assert.ok(calls.every((c) => ctf.steps.some((r) => r.kind === 'tool_result' && r.answers === c.index)), 'every call has its answer');
  assert.equal(ctf.steps[0].kind, 'environment');
  assert.equal(ctf.steps[0].label, 'session context');
  assert.equal(ctf.steps.filter((s) => s.kind === 'user').length, 2, 'the task and the person\'s correction, not the context');
  assert.match(ctf.title, /^You are an elite cybersecurity researcher/, 'not the "# Role & Goal" heading');
  const cancelled = ctf.steps.find((s) => s.kind === 'tool_result' && s.text.startsWith('[Operation Cancelled]'))!;
  assert.equal(cancelled.isError, true);
  assert.equal(ctf.steps[cancelled.answers!].tool?.name, 'run_shell_command');
  // Each step points at its section's line.
  assert.equal(ctf.steps[0].location?.line, 1);
  // A share of the later shell shape (udapy/rust-agentic-skills, MIT): `cargo fmt --check` states
  // exit 1; the others state none and exited 0.
  const rust = await loadRun(fixture('gemini-cli/rust-skills-csv-json-cli.md'));
  const shells = rust.steps.filter((s) => s.kind === 'tool_result' && rust.steps[s.answers!]?.tool?.name === 'run_shell_command');
  assert.equal(shells.length, 9);
  assert.deepEqual(shells.map((s) => s.exitCode).filter((c) => c !== 0), [1]);
  // It was "not a trajectory in any format we know (plain text)".
  const loaded = await loadTrajectory(fixture('gemini-cli/rust-skills-csv-json-cli.md'));
  assert.deepEqual(loaded.warnings, []);
});

test('copilot-cli: a real events.jsonl reads tool requests, results, reasoning and the shutdown totals', async () => {
  const t = await loadRun(fixture('copilot-cli/events.jsonl'));
  assert.equal(t.format, 'copilot-cli');
  assert.deepEqual(kinds(t), ['user', 'thought', 'tool_call', 'tool_result', 'assistant']);
  assert.equal(t.steps[2].tool?.name, 'report_intent');
  assert.equal(t.steps[3].answers, 2);
  assert.equal(t.steps[3].text, 'Intent logged');
  assert.deepEqual(t.steps[4].usage, { model: 'claude-sonnet-4.6', outputTokens: 335 });
  // 4 fresh + 24,072 cache reads + 24,167 cache writes: the shutdown event's input counts them all.
  assert.deepEqual(t.meta.recorded, { model: 'claude-sonnet-4.6', inputTokens: 48243, outputTokens: 414, cachedInputTokens: 24072, cacheWriteTokens: 24167 });
  assert.equal(t.meta.version, '1.0.49-1');
  assert.equal(t.title, 'list available models');
});

test('copilot-cli: assistant.usage, a compaction and a truncation, and the older session JSON', async () => {
  const ev = (type: string, data: unknown, id: string) => ({ type, data, id, timestamp: '2026-04-01T09:00:00.000Z', parentId: null });
  const t = await loadRun(writeTemp('events.jsonl', jsonl([
    ev('session.start', { sessionId: 'cs-1', version: 1, producer: 'copilot-agent', copilotVersion: '1.0.60', startTime: '2026-04-01T09:00:00.000Z' }, 'e1'),
    ev('user.message', { content: 'Run the tests' }, 'e2'),
    ev('assistant.message', { messageId: 'm1', content: 'Running them.', toolRequests: [{ toolCallId: 't1', name: 'bash', arguments: { command: 'npm test' } }] }, 'e3'),
    ev('assistant.usage', { model: 'gpt-5.2', inputTokens: 5000, outputTokens: 60, cacheReadTokens: 4000, cost: 1 }, 'e4'),
    ev('tool.execution_start', { toolCallId: 't1', toolName: 'bash', arguments: { command: 'npm test' } }, 'e5'),
    ev('tool.execution_complete', { toolCallId: 't1', success: false, error: { message: '2 tests failed' } }, 'e6'),
    ev('session.compaction_complete', { success: true, preCompactionTokens: 90000, summaryContent: 'Tests fail in parser.spec.ts.' }, 'e7'),
    ev('session.truncation', { tokenLimit: 128000, preTruncationTokensInMessages: 130000, preTruncationMessagesLength: 40, postTruncationTokensInMessages: 100000, postTruncationMessagesLength: 30, messagesRemovedDuringTruncation: 10, performedBy: 'BasicTruncator' }, 'e8'),
  ])));
  assert.equal(t.format, 'copilot-cli');
  assert.deepEqual(kinds(t), ['user', 'thought', 'tool_call', 'tool_result', 'compaction', 'compaction']);
  assert.deepEqual(t.steps[2].usage, { model: 'gpt-5.2', inputTokens: 5000, outputTokens: 60, cachedInputTokens: 4000, cost: 1 });
  assert.equal(t.steps[3].isError, true);
  assert.equal(t.steps[3].text, '2 tests failed');
  assert.deepEqual(t.steps[4].compaction, { summary: 'Tests fail in parser.spec.ts.', trigger: 'compaction', tokensBefore: 90000 });
  assert.equal(t.steps[5].compaction?.trigger, 'truncation');
  const legacy = await loadRun(writeTemp('session.json', JSON.stringify({
    sessionId: 'old-1', startTime: '2025-09-01T10:00:00Z', timeline: [],
    chatMessages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: null, tool_calls: [{ id: 'x', type: 'function', function: { name: 'view', arguments: '{"path":"a"}' } }] }, { role: 'tool', tool_call_id: 'x', content: 'A' }],
  })));
  assert.equal(legacy.format, 'copilot-cli');
  assert.deepEqual(kinds(legacy), ['user', 'tool_call', 'tool_result']);
  assert.equal(legacy.steps[2].answers, 1);
});

// ---- OpenCode ----------------------------------------------------------------------------------

test('opencode: real exports read tool parts, per-call usage from step-finish parts, and parts in creation order', async () => {
  const t = await loadRun(fixture('opencode/crud.json'));
  assert.equal(t.format, 'opencode');
  assert.deepEqual(t.steps.filter((s) => s.kind === 'tool_call').map((s) => s.tool?.name), ['write', 'read', 'edit', 'bash']);
  // The second call: 140 fresh + 17,920 cache reads is the whole prompt.
  assert.deepEqual(t.steps[4].usage, { model: 'gpt-5.2-codex', inputTokens: 18060, outputTokens: 29, cachedInputTokens: 17920, cacheWriteTokens: 0, cost: 0 });
  assert.match(t.steps[5].text, /# The Elevator/);
  const all = await loadRun(fixture('opencode/all-tools.json'));
  assert.equal(all.steps[1].tool?.name, 'question', 'the step-start listed last still comes first');
  assert.ok(all.steps.some((s) => s.kind === 'tool_result' && s.isError), 'the failed execute call is an error result');
  assert.equal(all.title, 'Tools usage audit: undo all edits and writes');
});

test('opencode: a compaction marker and its summary message make one compaction step', async () => {
  const msg = (role: string, parts: unknown[], extra: Record<string, unknown> = {}) => ({ info: { id: `msg_${role}${parts.length}`, role, sessionID: 'ses_1', time: { created: 1760000000000 }, ...extra }, parts });
  const t = await loadRun(writeTemp('export.json', JSON.stringify({
    info: { id: 'ses_1', title: 'Refactor the router', time: { created: 1760000000000 } },
    messages: [
      msg('user', [{ id: 'prt_1', type: 'text', text: 'Refactor the router' }]),
      msg('assistant', [{ id: 'prt_2', type: 'text', text: 'Done with the first half.' }], { modelID: 'claude-sonnet-4', tokens: { input: 10, output: 20, reasoning: 0, cache: { read: 100, write: 5 } }, cost: 0.01 }),
      msg('user', [{ id: 'prt_3', type: 'compaction', auto: true }]),
      msg('assistant', [{ id: 'prt_4', type: 'text', text: 'Summary: the router is half refactored.' }], { summary: true, modelID: 'claude-sonnet-4' }),
    ],
  })));
  assert.equal(t.format, 'opencode');
  assert.deepEqual(kinds(t), ['user', 'assistant', 'compaction']);
  assert.deepEqual(t.steps[1].usage, { model: 'claude-sonnet-4', inputTokens: 115, outputTokens: 20, cachedInputTokens: 100, cacheWriteTokens: 5, cost: 0.01 });
  assert.deepEqual(t.steps[2].compaction, { trigger: 'auto', summary: 'Summary: the router is half refactored.' });
});

// ---- Cline -------------------------------------------------------------------------------------

test('cline: a real task folder joins the API history with its metadata; text results answer their calls', async () => {
  const t = await loadRun(path.dirname(fixture('cline/task-crud/api_conversation_history.json')));
  assert.equal(t.format, 'cline');
  assert.equal(t.title, 'tell me abouth this repo');
  assert.equal(t.meta.version, '3.58.0');
  assert.equal(t.meta.model, 'claude-opus-4-6');
  const calls = t.steps.filter((s) => s.kind === 'tool_call');
  assert.equal(calls.length, 38);
  const results = t.steps.filter((s) => s.kind === 'tool_result');
  assert.equal(results.length, 37, 'each [tool for ...] Result: text answers a call (the last call got none before the log ends)');
  assert.ok(results.every((r) => r.answers !== undefined && t.steps[r.answers].kind === 'tool_call'));
  assert.ok(t.steps.some((s) => s.kind === 'system' && s.label === 'environment details'), 'environment details are context, not the user');
  // Per-message metrics of Cline CLI: 19 fresh + 10,386 cached, where on Anthropic "cached" counts cache writes too.
  assert.deepEqual(calls[2].usage, { model: 'claude-opus-4-6', inputTokens: 10405, outputTokens: 175, cachedInputTokens: 10386, cachedIncludesWrites: true });
});

test('cline: api_req_started usage goes on the response it paid for, in the folder and in ui_messages.json alone', async () => {
  const dir = tempDir();
  const history = [
    { role: 'user', content: [{ type: 'text', text: '<task>\nAdd a README\n</task>' }, { type: 'text', text: '<environment_details>\nfiles: none\n</environment_details>' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'I will write it.\n<write_to_file>\n<path>README.md</path>\n<content># App</content>\n</write_to_file>' }] },
    { role: 'user', content: [{ type: 'text', text: "[write_to_file for 'README.md'] Result:\nThe content was successfully saved." }] },
    { role: 'assistant', content: [{ type: 'text', text: '<attempt_completion>\n<result>README added.</result>\n</attempt_completion>' }] },
  ];
  const req = (ts: number, usage: object) => ({ ts, type: 'say', say: 'api_req_started', text: JSON.stringify({ request: '…', ...usage }) });
  const ui = [
    { ts: 1, type: 'say', say: 'task', text: 'Add a README' },
    req(2, { tokensIn: 12, tokensOut: 80, cacheWrites: 3000, cacheReads: 0, cost: 0.012 }),
    { ts: 3, type: 'say', say: 'text', text: 'I will write it.' },
    { ts: 4, type: 'ask', ask: 'tool', text: JSON.stringify({ tool: 'newFileCreated', path: 'README.md', content: '# App' }) },
    req(5, { tokensIn: 20, tokensOut: 30, cacheWrites: 50, cacheReads: 3000, cost: 0.002 }),
    { ts: 6, type: 'say', say: 'completion_result', text: 'README added.' },
    { ts: 7, type: 'ask', ask: 'condense', text: 'Summary: a README was added.' },
  ];
  fs.writeFileSync(path.join(dir, 'api_conversation_history.json'), JSON.stringify(history));
  fs.writeFileSync(path.join(dir, 'ui_messages.json'), JSON.stringify(ui));
  fs.writeFileSync(path.join(dir, 'task_metadata.json'), JSON.stringify({ model_usage: [{ ts: 1, model_id: 'claude-sonnet-4-5', model_provider_id: 'anthropic' }] }));
  const t = await loadRun(dir);
  assert.equal(t.format, 'cline');
  assert.deepEqual(kinds(t), ['user', 'system', 'thought', 'tool_call', 'tool_result', 'tool_call']);
  assert.deepEqual(JSON.parse(t.steps[3].tool!.args), { path: 'README.md', content: '# App' }, 'XML tool calls of older Cline are read');
  assert.equal(t.steps[4].answers, 3);
  assert.deepEqual(t.steps[3].usage, { model: 'claude-sonnet-4-5', inputTokens: 3012, outputTokens: 80, cachedInputTokens: 0, cacheWriteTokens: 3000, cost: 0.012 });
  assert.deepEqual(t.steps[5].usage, { model: 'claude-sonnet-4-5', inputTokens: 3070, outputTokens: 30, cachedInputTokens: 3000, cacheWriteTokens: 50, cost: 0.002 });
  assert.equal(t.meta.recorded?.cost, 0.014);
  const alone = await loadRun(path.join(dir, 'ui_messages.json'));
  assert.equal(alone.format, 'cline');
  assert.deepEqual(kinds(alone), ['user', 'assistant', 'tool_call', 'assistant', 'compaction']);
  assert.equal(alone.steps[2].usage?.inputTokens, 3012);
  assert.equal(alone.steps[3].usage?.inputTokens, 3070);
});

// No public ui_messages.json under a permissive license was found (see test/fixtures/SOURCES.md), so
// this one is written here in the shape Cline publishes (ClineMessage, ClineApiReqInfo, ClineSayTool
// and ClinePlanModeResponse in apps/vscode/src/shared/ExtensionMessage.ts of cline/cline, Apache-2.0),
// in the order a plan-then-act task writes it: checkpoints, a streaming stub, progress lists, a
// command whose output comes in chunks (the first one empty).
test('cline: ui_messages.json alone links commands to their output chunks, reads tool approvals and plan replies, one usage per request', async () => {
  const modelInfo = (mode: string) => ({ providerId: 'anthropic', modelId: 'claude-sonnet-4-5', mode });
  const req = (ts: number, mode: string, request: string, usage: object) => ({ ts, type: 'say', say: 'api_req_started', text: JSON.stringify({ request, ...usage }), modelInfo: modelInfo(mode), conversationHistoryIndex: -1 });
  const ui = [
    { ts: 1767000000000, type: 'say', say: 'text', text: 'Add a health check endpoint to server.ts', images: [], files: [], modelInfo: modelInfo('plan') },
    req(1767000001000, 'plan', '<task>\nAdd a health check endpoint to server.ts\n</task>', { tokensIn: 9, tokensOut: 140, cacheWrites: 12400, cacheReads: 0, cost: 0.0487 }),
    { ts: 1767000002000, type: 'say', say: 'checkpoint_created', text: '', lastCheckpointHash: 'a1b2c3d', isCheckpointCheckedOut: false },
    { ts: 1767000003000, type: 'say', say: 'text', text: 'Let me read the server first.', partial: false },
    { ts: 1767000004000, type: 'ask', ask: 'tool', text: JSON.stringify({ tool: 'readFile', path: 'src/server.ts', content: '/home/dev/app/src/server.ts', operationIsLocatedInWorkspace: true }), partial: false },
    req(1767000005000, 'plan', "[read_file for 'src/server.ts'] Result:", { tokensIn: 6, tokensOut: 310, cacheWrites: 1800, cacheReads: 12400, cost: 0.0146 }),
    { ts: 1767000006000, type: 'say', say: 'text', text: '', partial: true },
    { ts: 1767000007000, type: 'ask', ask: 'plan_mode_respond', text: JSON.stringify({ response: 'Plan: add GET /health answering {status: "ok"}, then run the tests.', options: ['Proceed', 'Use /healthz'] }), partial: false },
    { ts: 1767000008000, type: 'say', say: 'task_progress', text: '- [ ] add the route\n- [ ] run the tests' },
    req(1767000009000, 'act', '[plan_mode_respond] Result:', { tokensIn: 25, tokensOut: 420, cacheWrites: 900, cacheReads: 14200, cost: 0.0139 }),
    { ts: 1767000010000, type: 'say', say: 'text', text: 'Adding the route.', partial: false },
    { ts: 1767000011000, type: 'ask', ask: 'tool', text: JSON.stringify({ tool: 'editedExistingFile', path: 'src/server.ts', diff: '------- SEARCH\napp.listen(port)\n=======\napp.get("/health", (_q, r) => r.json({ status: "ok" }))\napp.listen(port)\n+++++++ REPLACE' }) },
    req(1767000012000, 'act', "[replace_in_file for 'src/server.ts'] Result:", { tokensIn: 4, tokensOut: 95, cacheWrites: 700, cacheReads: 15100, cost: 0.0085 }),
    { ts: 1767000013000, type: 'say', say: 'command', text: 'npm test' },
    { ts: 1767000014000, type: 'ask', ask: 'command_output', text: '' },
    { ts: 1767000015000, type: 'ask', ask: 'command_output', text: '> app@1.0.0 test\n> node --test' },
    { ts: 1767000016000, type: 'ask', ask: 'command_output', text: '# pass 12\n# fail 0' },
    req(1767000017000, 'act', "[execute_command for 'npm test'] Result:", { tokensIn: 3, tokensOut: 60, cacheWrites: 450, cacheReads: 15800, cost: 0.0065 }),
    { ts: 1767000018000, type: 'say', say: 'completion_result', text: 'GET /health answers {status: "ok"}; the 12 tests pass.' },
    { ts: 1767000019000, type: 'ask', ask: 'completion_result', text: '' },
  ];
  const t = await loadRun(writeTemp('ui_messages.json', JSON.stringify(ui)));
  assert.equal(t.format, 'cline');
  assert.equal(t.title, 'Add a health check endpoint to server.ts');
  // Checkpoints, the streaming stub, progress lists and empty asks are the UI's bookkeeping.
  assert.deepEqual(kinds(t), ['user', 'assistant', 'tool_call', 'assistant', 'assistant', 'tool_call', 'tool_call', 'tool_result', 'tool_result', 'assistant']);
  assert.equal(t.steps[2].tool?.name, 'readFile');
  assert.deepEqual(JSON.parse(t.steps[2].tool!.args), { path: 'src/server.ts', operationIsLocatedInWorkspace: true });
  assert.equal(t.steps[3].text, 'Plan: add GET /health answering {status: "ok"}, then run the tests.', 'a plan reply reads as its response');
  const outputs = t.steps.filter((s) => s.label === 'ask command_output');
  assert.deepEqual(outputs.map((o) => o.text), ['> app@1.0.0 test\n> node --test', '# pass 12\n# fail 0']);
  assert.ok(outputs.every((o) => o.answers !== undefined && t.steps[o.answers].tool?.name === 'execute_command' && JSON.parse(t.steps[o.answers].tool!.args).command === 'npm test'));
  // Five requests, each paid on the last thing its response showed; the prompt is tokensIn plus cache writes and reads.
  const paid = t.steps.filter((s) => s.usage);
  assert.deepEqual(paid.map((s) => s.index), [2, 3, 5, 6, 9]);
  assert.deepEqual(paid[0].usage, { model: 'claude-sonnet-4-5', inputTokens: 12409, outputTokens: 140, cachedInputTokens: 0, cacheWriteTokens: 12400, cost: 0.0487 });
  assert.deepEqual(paid[4].usage, { model: 'claude-sonnet-4-5', inputTokens: 16253, outputTokens: 60, cachedInputTokens: 15800, cacheWriteTokens: 450, cost: 0.0065 });
  assert.equal(Math.round((t.meta.recorded?.cost ?? 0) * 1e4), 922);
});

// ---- Aider -------------------------------------------------------------------------------------

test('aider: a real history (Aider\'s own, the day prompt caching came) reads sessions, edits answered by "Applied edit", commands and cache usage', async () => {
  const t = await loadTrajectory(fixture('aider/aider-caching.aider.chat.history.md'));
  assert.equal(t.format, 'aider');
  // 22 session headers, 6 of them with nothing under them.
  assert.equal(t.runs?.length, 16);
  assert.equal(t.title, 'Aider chat history: 16 sessions');
  const runs = t.runs!;
  const all = runs.flatMap((r) => r.steps);
  assert.equal(runs[0].title, 'hi');
  assert.equal(runs[0].meta.version, 'v0.50.2-dev');
  // A session on Haiku ("Model: …"), later ones on Sonnet ("Main model: …"): usage names the model in use.
  const haiku = 'anthropic/claude-3-haiku-20240307';
  const sonnet = 'claude-3-5-sonnet-20240620';
  assert.deepEqual(runs[0].steps[2].usage, { model: haiku, inputTokens: 2930, outputTokens: 18, cacheWriteTokens: 2728, cost: 0.00093 });
  assert.deepEqual(runs[1].steps[2].usage, { model: haiku, inputTokens: 2937, outputTokens: 45, cachedInputTokens: 2728, cost: 0.00018 });
  // "12,963 sent, 11,191 cache write, 1,270 cache hit, 105 received." with its Cost part wrapped to the next line.
  const both = all.find((s) => s.usage?.cacheWriteTokens && s.usage.cachedInputTokens);
  assert.deepEqual(both?.usage, { model: sonnet, inputTokens: 12963, outputTokens: 105, cachedInputTokens: 1270, cacheWriteTokens: 11191, cost: 0.05 });
  // Five SEARCH/REPLACE blocks, five "Applied edit to" lines, each answering the edit of its file.
  const edits = all.filter((s) => s.tool?.name === 'edit');
  assert.equal(edits.length, 5);
  assert.deepEqual(Object.keys(JSON.parse(edits[0].tool!.args)), ['path', 'search', 'replace']);
  assert.equal(JSON.parse(edits[0].tool!.args).path, 'aider/utils.py');
  for (const run of runs) {
    for (const applied of run.steps.filter((s) => s.label === 'applied edit')) {
      const edit = run.steps[applied.answers!];
      assert.equal(edit.tool?.name, 'edit');
      assert.equal(applied.text, `Applied edit to ${JSON.parse(edit.tool!.args).path}`);
    }
  }
  assert.equal(all.filter((s) => s.label === 'applied edit').length, 5);
  const commands = all.filter((s) => s.kind === 'other' && s.label?.startsWith('/')).map((s) => s.label);
  assert.deepEqual(commands.sort(), ['/add', '/add', '/ask', '/diff', '/ex', '/ex', '/ex']);
  // The 19 Cost lines sum to $0.46131, the ^C'd request under a session header included.
  assert.equal(Math.round((t.meta.recorded?.cost ?? 0) * 1e6), 461310);
  // From 0.51.1-dev on, "13k sent": rounded counts, and the file says so.
  assert.ok(all.some((s) => s.usage?.inputTokens === 13000 && s.usage.outputTokens === 429));
  assert.match(t.warnings[0].message, /rounded/);
});

test('aider: sessions become runs; shell commands, cache tokens, a wrapped Cost line and reply headings are told apart', async () => {
  const md = [
    '', '# aider chat started at 2026-01-05 10:00:00', '', '> Aider v0.86.1  ', '> Main model: anthropic/claude-sonnet-4 with diff edit format  ', '',
    '#### fix the parser bug  ', '',
    'The offset is wrong.', '', '#### Why', 'A heading of the reply, not a user line.', '',
    'src/parser.py', '```python', '<<<<<<< SEARCH', 'i = 1', '=======', 'i = 0', '>>>>>>> REPLACE', '```', '',
    '> Tokens: 2.4k sent, 1.1k cache write, 800 cache hit, 156 received.  ', 'Cost: $0.0058 message, $0.021 session.', '> Applied edit to src/parser.py  ',
    '> python -m pytest  ', '> Run shell command? (Y)es/(N)o [Yes]: y  ', '> Running python -m pytest  ', '> 3 passed  ', '> Add command output to the chat? (Y)es/(N)o [Yes]: y  ', '',
    '# aider chat started at 2026-01-06 09:00:00', '', '> Model: gpt-4o with whole edit format  ', '', '#### hello  ', '', 'Hi there.', '', '> Tokens: 900 sent, 42 received.  ', '',
  ].join('\n');
  const t = await loadTrajectory(writeTemp('.aider.chat.history.md', md));
  assert.equal(t.format, 'aider');
  assert.equal(t.runs?.length, 2);
  const [first, second] = t.runs!;
  assert.deepEqual(kinds(first), ['other', 'user', 'assistant', 'tool_call', 'tool_result', 'other', 'tool_call', 'tool_result', 'other']);
  assert.match(first.steps[2].text, /#### Why\nA heading of the reply/);
  assert.deepEqual(first.steps[3].usage, { model: 'anthropic/claude-sonnet-4', inputTokens: 2400, outputTokens: 156, cachedInputTokens: 800, cacheWriteTokens: 1100, cost: 0.0058 });
  assert.equal(first.steps[4].answers, 3);
  assert.equal(first.steps[6].tool?.name, 'shell');
  assert.equal(first.steps[7].text, '3 passed');
  assert.equal(first.steps[7].answers, 6);
  assert.deepEqual(second.steps[2].usage, { model: 'gpt-4o', inputTokens: 900, outputTokens: 42 });
});

test('aider: lines written before 0.52 read exactly: counts with separators, "request" costs, a Tokens line wrapped without its line break', async () => {
  const md = [
    '', '# aider chat started at 2024-08-05 19:33:32', '', '> Aider v0.47.2-dev  ',
    '> Models: claude-3-5-sonnet-20240620 with diff edit format, weak model claude-3-haiku-20240307  ', '',
    '#### explain the parser  ', '', 'It reads the file line by line.', '',
    '> Tokens: 5,244 sent, 604 received. Cost: $0.02 request, $0.02 session.  ', '',
    '#### and the cache?  ', '', 'The system prompt is written to it once.', '',
    '> Tokens: 12,963 sent, 11,191 cache write, 1,270 cache hit, 105 received.', 'Cost: $0.05 message, $0.05 session.  ', '',
    // A request cut short by ^C: its usage report lands under the next session's header.
    '# aider chat started at 2024-08-05 19:40:00', '', '>  ', '> ^C again to exit  ', '> Tokens: 9,921 sent, 0 received.', 'Cost: $0.03 message, $0.03 session.  ', '',
  ].join('\n');
  const file = await loadTrajectory(writeTemp('.aider.chat.history.md', md));
  const [t, cut] = file.runs!;
  assert.deepEqual(kinds(t), ['other', 'user', 'assistant', 'user', 'assistant']);
  const model = 'claude-3-5-sonnet-20240620';
  assert.deepEqual(t.steps[2].usage, { model, inputTokens: 5244, outputTokens: 604, cost: 0.02 });
  assert.deepEqual(t.steps[4].usage, { model, inputTokens: 12963, outputTokens: 105, cachedInputTokens: 1270, cacheWriteTokens: 11191, cost: 0.05 });
  assert.equal(t.steps[4].text, 'The system prompt is written to it once.', 'the wrapped usage report is not part of the reply');
  assert.ok(!cut.steps.some((s) => s.kind === 'assistant'), 'the Cost line of a cut request is no reply');
  assert.deepEqual(cut.meta.recorded, { inputTokens: 9921, outputTokens: 0, cost: 0.03 }, 'a request cut short is still paid for');
  assert.equal(file.meta.recorded?.cost, 0.02 + 0.05 + 0.03);
  assert.ok(!file.warnings.some((w) => /rounded/.test(w.message)), 'exact counts are not called rounded');
});

test('cline: feedback after attempt_completion is the person\'s words without Cline\'s wrapper; the completion\'s answer is what the agent told them; result wrappers are not output', async () => {
  const run = await loadRun(fixture('cline/agentlogs-feedback-after-completion.json'));
  assert.equal(run.format, 'cline');
  const r = await runCompaction(run, { strategy: findStrategy('openhands-summary')!, range: '0:-1' }, { counter: charEstimateCounter });
  const summary = r.summary!;
  assert.match(summary, /^ {2}- later request: add a new plugin for a new coding agent cline\./m);
  assert.doesNotMatch(summary, /The user has provided feedback on the results/, 'Cline\'s own sentence is not the request');
  // The answer lives in the call's `result` argument; Cline's receipt says only "[attempt_completion] Result: Done".
  assert.match(summary, /told the user: \*\*AgentLogs\*\* is an open-source, self-hostable platform/);
  assert.doesNotMatch(summary, /Result: Done/);
  // The person asked for more after it: the completion is not where the run stands.
  assert.match(summary, /^CURRENT_STATE:(?: \(no agent message in these steps\))?$/m, 'no agent line on the heading');
  assert.match(summary, /README\.md \(read\): <p align="center">/, 'the file, not "[read_file for \'README.md\'] Result:"');
  assert.doesNotMatch(summary, /\[read_file for '[^']*'\] Result:/);
});

test('opencode: two tool calls of one LLM step are one request: both calls, then both results, and the step\'s usage on it', async () => {
  const all = await loadRun(fixture('opencode/all-tools.json'));
  // Message 4 holds one step that called glob and grep (one step-finish, one usage).
  const from = all.steps.findIndex((s) => s.tool?.name === 'glob');
  assert.deepEqual(all.steps.slice(from, from + 4).map((s) => `${s.kind} ${s.tool?.name ?? all.steps[s.answers!].tool!.name}`), ['tool_call glob', 'tool_call grep', 'tool_result glob', 'tool_result grep']);
  const b = billRunAsHappened(all);
  assert.equal(b.billing.modelCalls, 14, 'as many requests as step-finish parts record (15 with a phantom one before)');
  assert.equal(b.bill.unrecorded, undefined, 'no request without usage');
});

test('copilot-cli: every session.shutdown adds its own calls to the totals, each model priced at its own price; turns after the last one are said to be in none', async () => {
  // softwaresalt/agent-engram: shutdown 1 (opus 54 requests, haiku 16), resume, shutdown 2 (opus 39), resume, more turns.
  const run = await loadRun(fixture('copilot-cli/agent-engram-resumed-session.jsonl'));
  assert.equal(run.meta.model, 'claude-opus-4.6');
  assert.equal(run.meta.recorded?.inputTokens, 3_832_521 + 364_103 + 4_137_889, 'both shutdowns, both models (was the last shutdown alone)');
  assert.deepEqual(run.meta.recordedByModel?.map((u) => [u.model, u.inputTokens]), [['claude-opus-4.6', 3_832_521 + 4_137_889], ['claude-haiku-4.5', 364_103]]);
  assert.match(run.meta.recordedPart?.why ?? '', /2 session\.shutdown events, and the \d+ steps the agent took after line \d+ ended with none/);
  const bill = runCost(run);
  assert.deepEqual(bill.byModel.map((r) => r.model), ['claude-opus-4.6', 'claude-haiku-4.5'], 'haiku\'s share at haiku\'s price, not opus\'s');
  assert.match(bill.note, /in no recorded total/);
  const replayed = billRunAsHappened(run).bill;
  assert.ok(replayed.modelled !== null && replayed.cost !== null, replayed.note);
  // The requests after the last shutdown are the unrecorded ones, modelled and named beside the figure;
  // the totals are compared with the modelled cost of the requests they cover, not of the whole run.
  assert.equal(replayed.unrecorded?.requests, 2);
  assert.match(replayed.note, /2 of the 7 requests have no usage in the log, so they are not in this figure \(the replay models them from our count of their context at \$[\d.]+\)/);
  const stats = (await runCli('stats', fixture('copilot-cli/agent-engram-resumed-session.jsonl'), '--tokens')).out;
  assert.match(stats, /Recorded usage \(log totals, which stop before the run does\), 5 calls/);
  // Calls that record their output alone leave nothing to compare, and the section says so rather than stand empty.
  const simulated = (await runCli('simulate', fixture('copilot-cli/agent-engram-resumed-session.jsonl'), '--strategy', 'openhands-summary')).out;
  assert.match(simulated, /Against what the log recorded \(\d+ calls\)\n {2}per call +the log records no prompt size or cost per call, only output tokens/);
});

test('copilot-cli: a read_powershell that names a shellId continues the call that started that shell; the build is told with its exit code', async () => {
  const run = await loadRun(fixture('copilot-cli/agent-engram-shell-read.jsonl'));
  const build = run.steps.find((s) => s.tool?.name === 'powershell' && /cargo build --release/.test(s.tool.args))!;
  const read = run.steps.find((s) => s.tool?.name === 'read_powershell')!;
  assert.equal(read.continues, build.index, 'linked by shellId 7, the id the build\'s result named');
  const summary = (await runCompaction(run, { strategy: findStrategy('openhands-summary')!, range: '0:-2' }, { counter: charEstimateCounter })).summary ?? '';
  // Was "cargo build --release … (→ <command with shellId: 7 is still running after 180 seconds. […])".
  assert.match(summary, /cargo build --release 2>&1 \| Select-Object -Last 5 .*\(exit 101: error: failed to remove file/);
  assert.doesNotMatch(summary, /is still running after 180 seconds/);
});

test('copilot-cli: the system prompt logged again before each request is one context, counted once; an abort by the person is an interruption (real events)', async () => {
  // EntityProcess/agentv (MIT): Copilot CLI 1.0.64 logs its 46 KB system prompt before every request.
  const run = await loadRun(fixture('copilot-cli/agentv-resent-prompt-abort.jsonl'));
  const systems = run.steps.filter((s) => s.kind === 'system');
  assert.equal(systems.length, 3, 'each logged prompt stays visible where the log has it');
  assert.deepEqual(systems.map((s) => s.resent === true), [false, true, true]);
  const service = new TokenService({ cacheDir: null });
  const counts = await service.count(run.steps, { model: run.meta.model });
  await service.dispose();
  const tokensOf = (i: number) => stepTotal(counts.steps[i]);
  assert.ok(tokensOf(systems[0].index) > 9000, 'the prompt counts once');
  assert.deepEqual([tokensOf(systems[1].index), tokensOf(systems[2].index)], [0, 0], 'and not again');
  // The tree's row says why a prompt of 46 KB weighs nothing there.
  assert.match(stepPreview(systems[1], 70), /^recorded again, counted once · /);
  assert.doesNotMatch(stepPreview(systems[0], 70), /recorded again/);
  // The replay's prompts hold it once too.
  assert.ok(billRunAsHappened(run).billing.peak < 2 * tokensOf(systems[0].index));
  // `abort` (user_initiated) right after a turn started: the person stopped it.
  const stop = run.steps.find((s) => s.interruption);
  assert.ok(stop, 'the abort is a step');
  assert.equal(stop.kind, 'environment');
  assert.equal(stop.label, 'interrupted by the person');
  assert.match(run.steps[stop.index + 2]?.text ?? run.steps.slice(stop.index).find((s) => s.kind === 'user')!.text, /sorry wrong chat/);
});

test('gemini-cli: "System: Please continue." is what the CLI sends by itself, not the person\'s request (real session)', async () => {
  // Gemini CLI's client.ts sends it after a model turn that ended with nothing to show (entireio/cli, MIT).
  const run = await loadRun(fixture('gemini-cli/entire-please-continue.json'));
  assert.equal(run.format, 'gemini-cli');
  assert.deepEqual(run.steps.filter((s) => s.kind === 'user').map((s) => s.text), ['write to test-gemini.txt "hello, gemini" only']);
  const nudge = run.steps.find((s) => s.text === 'System: Please continue.')!;
  assert.equal(nudge.kind, 'environment');
  assert.match(nudge.label!, /sent by the CLI/);
});

test('a title skips a template\'s field marker: DSPy\'s "[[ ## user_query ## ]]" names nothing, the request on the next line does', () => {
  // The first message of a real Copilot CLI run driven by DSPy (EntityProcess/agentv, MIT).
  assert.equal(titleFromSteps([{ kind: 'user', text: '[[ ## user_query ## ]]\n\nReply with AGENTV_SDK_CHILD_RUNNER_READY only.' }], 'events.jsonl'), 'Reply with AGENTV_SDK_CHILD_RUNNER_READY only.');
});

test('cline: a call Cline did not run ("Tool [read_file] was not executed because …") is that call\'s failed outcome, not the person speaking', async () => {
  // Cline 3.51 with native tool_use (a real task folder, sweep 7; texts here are ours): four reads in
  // one message, the first answered, the other three refused by Cline in text blocks of the next
  // user message. They were one user turn, a "later request" and two "constraints", and the three
  // calls were reported as having no result.
  const dir = tempDir();
  const read = (id: string, file: string) => ({ type: 'tool_use', id, name: 'read_file', input: { path: file } });
  const refusal = 'Tool [read_file] was not executed because a tool has already been used in this message. Only one tool may be used per message. You must assess the first tool\'s result before proceeding to use the next tool.';
  const history = [
    { role: 'user', content: [{ type: 'text', text: '<task>\nFinish the turn system.\n</task>' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'Reading the systems.' }, read('r1', 'TurnSystem.cs'), read('r2', 'Deck.cs'), read('r3', 'Hand.cs')] },
    { role: 'user', content: [{ type: 'text', text: "[read_file for 'TurnSystem.cs'] Result:\npublic class TurnSystem {}" }, { type: 'text', text: refusal }, { type: 'text', text: refusal }] },
    { role: 'assistant', content: [{ type: 'text', text: 'Now the deck.' }, read('r4', 'Deck.cs')] },
    { role: 'user', content: [{ type: 'text', text: "[read_file for 'Deck.cs'] Result:\npublic class Deck {}" }] },
  ];
  fs.writeFileSync(path.join(dir, 'api_conversation_history.json'), JSON.stringify(history));
  const t = await loadRun(path.join(dir, 'api_conversation_history.json'));
  assert.equal(t.steps.filter((s) => s.kind === 'user').length, 1, 'Cline\'s notice is not a turn of the person\'s');
  const results = t.steps.filter((s) => s.kind === 'tool_result');
  const calls = t.steps.filter((s) => s.kind === 'tool_call');
  assert.deepEqual(results.map((r) => r.answers), calls.map((c) => c.index), 'each call answered, in the order Cline ran them');
  assert.deepEqual(results.map((r) => r.isError === true), [false, true, true, false]);
  const facts = extractFacts(t, t.steps.map((s) => s.index));
  assert.deepEqual(facts.requests.map((r) => r.text), ['Finish the turn system.']);
  assert.deepEqual(facts.constraints, []);
});

test('cline: ui_messages.json alone keeps the agent\'s replies Cline saved still marked partial, but not a partial copy its finished one follows', async () => {
  // Cline 3.51 (a real task folder, sweep 7; texts here are ours): 25 of the agent's 26 replies are
  // saved `partial: true` (Cline rewrites a streamed message in place; the text before a native tool
  // call is never marked finished). They were dropped as "of a kind the reader does not know".
  const dir = tempDir();
  const ui = [
    { ts: 1, type: 'say', say: 'text', text: 'Finish the turn system.' },
    { ts: 2, type: 'say', say: 'api_req_started', text: JSON.stringify({ tokensIn: 10, tokensOut: 5, cost: 0.001 }) },
    { ts: 3, type: 'say', say: 'text', text: 'Let me verify all files are in place by listing the directory:', partial: true },
    { ts: 4, type: 'say', say: 'tool', text: JSON.stringify({ tool: 'listFilesTopLevel', path: '.', content: 'Deck.cs\nHand.cs' }) },
    { ts: 5, type: 'say', say: 'text', text: 'Both files are th', partial: true },
    { ts: 5, type: 'say', say: 'text', text: 'Both files are there.' },
  ];
  fs.writeFileSync(path.join(dir, 'ui_messages.json'), JSON.stringify(ui));
  const t = await loadRun(path.join(dir, 'ui_messages.json'));
  assert.deepEqual(t.steps.filter((s) => s.kind === 'assistant').map((s) => s.text), ['Let me verify all files are in place by listing the directory:', 'Both files are there.']);
});
