import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { strToU8, zipSync } from 'fflate';
import { loadTrajectory } from '../../src/core/open';
import type { Step, Run } from '../../src/core/model';
import { turnsOf } from '../../src/core/steps';
import { corpus, fixture, writeTemp } from '../helpers/paths';
import { loadRun, parseRunText } from '../helpers/runs';

const kinds = (t: { steps: Step[] }) => t.steps.map((s) => s.kind);
const turnCount = (t: { steps: Step[] }) => turnsOf(t.steps).length;
const callNames = (t: { steps: Step[] }) => t.steps.filter((s) => s.kind === 'tool_call').map((s) => s.tool?.name);
const jsonl = (lines: unknown[]) => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';

// ---- Claude Code -------------------------------------------------------------------------------

test('claude-code: crud.jsonl merges block lines into messages and links every tool_result to its tool_use', async () => {
  const t = await loadRun(corpus('claude-code/crud.jsonl'));
  assert.equal(t.format, 'claude-code');
  assert.equal(t.steps.length, 25);
  assert.equal(turnCount(t), 1, 'tool results fed back as user lines do not open turns');
  assert.equal(t.steps.filter((s) => s.kind === 'user').length, 1);
  assert.match(t.steps[0].text, /^create a file `JOKE.md`/);
  assert.deepEqual(callNames(t), ['TodoWrite', 'Write', 'TodoWrite', 'Read', 'TodoWrite', 'Edit', 'TodoWrite', 'Bash', 'TodoWrite']);
  const read = t.steps.find((s) => s.tool?.name === 'Read')!;
  const readResult = t.steps.find((s) => s.kind === 'tool_result' && s.answers === read.index)!;
  assert.equal(readResult.toolName, 'Read');
  assert.match(readResult.text, /Why Don't Programmers Like Nature/);
  // The first message's two lines (text, then tool_use) carry the same usage; it is recorded once.
  const firstCall = t.steps[2];
  assert.deepEqual(firstCall.usage, { model: 'claude-sonnet-4-5-20250929', inputTokens: 4 + 8976 + 5302, outputTokens: 276, cachedInputTokens: 5302, cacheWriteTokens: 8976 });
  assert.equal(t.steps[1].usage, undefined);
  assert.equal(t.steps[1].kind, 'thought', 'narration before a tool call reads as a thought');
  assert.equal(t.meta.model, 'claude-sonnet-4-5-20250929');
  assert.equal(t.meta.recorded?.outputTokens, t.steps.reduce((n, s) => n + (s.usage?.outputTokens ?? 0), 0));
});

test('claude-code: compact.jsonl turns /compact into one compaction step holding trigger, token count and summary', async () => {
  const t = await loadRun(corpus('claude-code/compact.jsonl'));
  assert.equal(t.format, 'claude-code');
  assert.equal(t.steps.length, 10);
  // Local commands (/clear, /compact) and their output are the client's wrappers: environment
  // steps named by the command, not turns of the person's conversation.
  assert.equal(turnCount(t), 1);
  assert.deepEqual(t.steps.filter((s) => s.kind === 'environment').map((s) => s.label), ['/clear', 'command output', '/compact', 'command output']);
  assert.ok(!t.steps.some((s) => /<command-name>/.test(s.label ?? '')), 'no label shows the wrapper tags');
  const compactions = t.steps.filter((s) => s.kind === 'compaction');
  assert.equal(compactions.length, 1);
  const c = compactions[0];
  assert.equal(c.compaction?.trigger, 'manual');
  assert.equal(c.compaction?.tokensBefore, 15808);
  assert.match(c.compaction?.summary ?? '', /^This session is being continued from a previous conversation/);
  assert.equal(c.text, c.compaction?.summary);
  assert.ok(!t.steps.some((s) => s.kind === 'user' && s.text.startsWith('This session is being continued')), 'the summary is not a user turn');
  assert.equal(t.title, 'how are you doing', 'the title skips the /clear command');
  assert.equal(t.steps.find((s) => s.kind === 'thought')?.label, 'thinking');
  assert.equal(t.steps.filter((s) => s.kind === 'system').length, 2, 'the "Caveat" meta lines are harness notes');
});

test('claude-code: subagent.jsonl takes its title from its request, not another session\'s summary line, and puts sidechain lines on a branch', async () => {
  const t = await loadRun(corpus('claude-code/subagent.jsonl'));
  assert.equal(t.format, 'claude-code');
  // Its one summary line ("Tailwind Studio: Component Catalog Architecture Design") names a leafUuid of another session.
  assert.equal(t.title, "ask a subagent how he's doing");
  assert.equal(t.steps.length, 9);
  assert.equal(turnCount(t), 1, 'the Task prompt does not open a turn of the main conversation');
  const branch = t.steps.filter((s) => s.branch);
  assert.deepEqual(branch.map((s) => [s.branch, s.kind]), [['subagent', 'other'], ['subagent', 'assistant']]);
  assert.match(branch[0].text, /^Hey there! Just checking in/);
  const task = t.steps.find((s) => s.tool?.name === 'Task')!;
  const result = t.steps.find((s) => s.kind === 'tool_result')!;
  assert.equal(result.answers, task.index);
  assert.equal(result.branch, undefined, 'the result comes back on the main line');
  assert.equal(t.steps.filter((s) => s.label === 'thinking').length, 2);
  // Three messages; the first spans three lines but counts once (8 + 117 + 151).
  assert.equal(t.meta.recorded?.outputTokens, 276);
});

// ---- Codex -------------------------------------------------------------------------------------

test('codex: crud.jsonl drops event echoes, maps custom_tool_call apply_patch and records token counts', async () => {
  const t = await loadRun(corpus('codex/crud.jsonl'));
  assert.equal(t.format, 'codex');
  assert.equal(t.steps.length, 17);
  assert.equal(turnCount(t), 1);
  assert.equal(t.steps.filter((s) => s.kind === 'user').length, 1, 'the user_message event copy is not a second step');
  assert.equal(t.steps.filter((s) => s.kind === 'assistant').length, 1, 'the agent_message event copy is not a second step');
  const user = t.steps.find((s) => s.kind === 'user')!;
  assert.match(user.text, /^create a file `JOKE.md` with a random joke/);
  assert.ok(t.steps.some((s) => s.kind === 'environment' && s.label === 'AGENTS.md instructions' && s.text.startsWith('# AGENTS.md instructions')), 'AGENTS.md context is not a user turn');
  assert.deepEqual(callNames(t), ['exec_command', 'exec_command', 'apply_patch', 'exec_command']);
  const patch = t.steps.find((s) => s.tool?.name === 'apply_patch')!;
  assert.equal(patch.label, 'custom_tool_call');
  assert.match(patch.tool!.args, /^\*\*\* Begin Patch/);
  const patchResult = t.steps.find((s) => s.answers === patch.index)!;
  assert.match(patchResult.text, /Success\. Updated the following files/);
  assert.deepEqual(patch.usage, { model: 'gpt-5.2-codex', inputTokens: 9467, outputTokens: 65, cachedInputTokens: 9344 });
  assert.equal(t.steps.filter((s) => s.usage).length, 5, 'repeated token_count lines do not add usage twice');
  assert.deepEqual(t.meta.recorded, { model: 'gpt-5.2-codex', inputTokens: 47257, outputTokens: 300, cachedInputTokens: 44160 });
  assert.equal(t.meta.sessionId, '019bf4b5-e7b0-75a0-8bf2-05fbf1b13c9b');
  assert.equal(t.steps.filter((s) => s.kind === 'thought').length, 3, 'reasoning with an empty summary adds no step');
});

test('codex: compacted lines become compaction steps (inline message or remote replacement history)', async () => {
  const ts = '2026-02-01T10:00:00.000Z';
  const line = (type: string, payload: unknown) => ({ timestamp: ts, type, payload });
  const msg = (role: string, text: string) => line('response_item', { type: 'message', role, content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text }] });
  const file = writeTemp('rollout.jsonl', jsonl([
    line('session_meta', { id: 'sess-1', cwd: '/w', cli_version: '0.99.0', base_instructions: { text: 'You are Codex.' } }),
    msg('user', 'Rename the helper in utils.py'),
    line('response_item', { type: 'function_call', name: 'shell', arguments: '{"command":["rg","helper"]}', call_id: 'c1' }),
    line('response_item', { type: 'function_call_output', call_id: 'c1', output: 'utils.py:3:def helper():' }),
    line('compacted', { message: 'Summary: the user wants helper renamed; it lives in utils.py.' }),
    line('event_msg', { type: 'context_compacted' }),
    line('event_msg', { type: 'user_message', message: 'Also update the tests' }),
    msg('assistant', 'Done.'),
    line('compacted', { message: '', replacement_history: [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Rename the helper in utils.py' }] },
      { type: 'compaction', encrypted_content: 'gAAAA…' },
    ] }),
  ]));
  const t = await loadRun(file);
  assert.equal(t.format, 'codex');
  assert.deepEqual(kinds(t), ['system', 'user', 'tool_call', 'tool_result', 'compaction', 'user', 'assistant', 'compaction']);
  assert.equal(t.steps[3].answers, 2);
  assert.equal(t.steps[4].compaction?.summary, 'Summary: the user wants helper renamed; it lives in utils.py.');
  assert.equal(t.steps[5].text, 'Also update the tests', 'a user_message event with no response_item twin is kept');
  assert.match(t.steps[7].compaction?.summary ?? '', /user: Rename the helper in utils\.py/);
  assert.match(t.steps[7].compaction?.summary ?? '', /\[encrypted compaction summary\]/);
  assert.equal(turnCount(t), 2);
  assert.equal(t.title, 'Rename the helper in utils.py');
});

test('codex: a pre-0.44 rollout (bare meta line, bare items, state lines) is codex, not openai-responses', async () => {
  const t = await loadRun(writeTemp('rollout-old.jsonl', jsonl([
    { id: 'old-1', timestamp: '2025-08-01T09:00:00.000Z', instructions: 'Be brief.', git: { branch: 'dev' } },
    { record_type: 'state' },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Print the date' }] },
    { type: 'local_shell_call', call_id: 'ls1', status: 'completed', action: { type: 'exec', command: ['date'] } },
    { type: 'function_call_output', call_id: 'ls1', output: { content: 'Fri Aug  1', success: true } },
    { record_type: 'state' },
  ])));
  assert.equal(t.format, 'codex');
  assert.deepEqual(kinds(t), ['system', 'user', 'tool_call', 'tool_result']);
  assert.equal(t.steps[2].tool?.name, 'local_shell');
  assert.equal(t.steps[3].answers, 2);
  assert.equal(t.steps[3].text, 'Fri Aug  1');
  assert.equal(t.meta.extra?.gitBranch, 'dev');
});

// ---- Inspect -----------------------------------------------------------------------------------

const INSPECT_LOG = '2025-05-12T20-27-36-04-00_browser.json';

function assertBrowserSample(run: Run): void {
  assert.equal(run.steps.length, 10);
  assert.equal(turnCount(run), 1);
  assert.match(run.steps[0].text, /^Use the web browser tool to navigate to https:\/\/www\.aisi\.gov\.uk\//);
  assert.deepEqual(callNames(run), ['web_browser_go', 'web_browser_click', 'web_browser_click', 'web_browser_click']);
  const go = run.steps[1];
  assert.equal(go.tool?.args, '{"url":"https://www.aisi.gov.uk/"}');
  assert.equal(run.steps[2].answers, go.index);
  assert.equal(run.steps[2].toolName, 'web_browser_go');
  assert.equal(run.steps[9].kind, 'assistant');
  assert.deepEqual(run.meta.recorded, { model: 'openai/gpt-4o-mini', inputTokens: 15235, outputTokens: 281, cachedInputTokens: 9088 });
}

test('inspect: a .json eval log makes one run per sample, with chat messages mapped and usage recorded', async () => {
  const t = await loadTrajectory(corpus(`inspect/${INSPECT_LOG}`));
  assert.equal(t.format, 'inspect');
  assert.equal(t.runs?.length, 1);
  const run = t.runs![0];
  assertBrowserSample(run);
  assert.match(run.title, /^Sample 1, epoch 1: Use the web browser tool/);
  assert.equal(run.steps[1].location?.pointer, '/samples/0/messages/1');
  assert.equal(t.title, 'browser (openai/gpt-4o-mini)');
  assert.equal(t.meta.recorded?.inputTokens, 15235);
});

test('inspect: a .eval zip reads like the .json log, one run per samples/*.json entry', async () => {
  const log = JSON.parse(fs.readFileSync(corpus(`inspect/${INSPECT_LOG}`), 'utf8'));
  const { samples, ...header } = log;
  const second = {
    id: 'two', epoch: 2, input: 'List the files', attachments: { abc: 'file-a\nfile-b' },
    messages: [
      { role: 'user', content: 'List the files' },
      { role: 'assistant', content: [{ type: 'reasoning', reasoning: 'Use ls.' }, { type: 'text', text: '' }], tool_calls: [{ id: 't1', function: 'bash', arguments: { cmd: 'ls' } }] },
      { role: 'tool', tool_call_id: 't1', function: 'bash', content: '', error: { type: 'timeout', message: 'Command timed out' } },
      { role: 'user', content: 'The following is a summary of work completed on this task so far:\n\n<summary>\nls timed out\n</summary>', metadata: { summary: true } },
      { role: 'assistant', content: 'attachment://abc' },
    ],
    model_usage: { 'anthropic/claude-x': { input_tokens: 10, output_tokens: 5, total_tokens: 15 } },
  };
  const zip = zipSync({
    'header.json': strToU8(JSON.stringify(header)),
    'samples/1_epoch_1.json': strToU8(JSON.stringify(samples[0])),
    'samples/two_epoch_2.json': strToU8(JSON.stringify(second)),
    'summaries.json': strToU8('[]'),
  });
  const t = await loadTrajectory(writeTemp('browser.eval', zip));
  assert.equal(t.format, 'inspect');
  assert.equal(t.title, 'browser (openai/gpt-4o-mini)');
  assert.equal(t.runs?.length, 2);
  assertBrowserSample(t.runs![0]);
  assert.equal(t.runs![0].steps[1].location, undefined, 'no JSON pointer into a zip entry');
  const run = t.runs![1];
  assert.equal(run.title, 'Sample two, epoch 2: List the files');
  assert.deepEqual(kinds(run), ['user', 'thought', 'tool_call', 'tool_result', 'compaction', 'assistant']);
  assert.equal(run.steps[3].isError, true);
  assert.equal(run.steps[3].text, 'Command timed out');
  assert.match(run.steps[4].compaction?.summary ?? '', /ls timed out/);
  assert.equal(run.steps[5].text, 'file-a\nfile-b', 'attachment references are resolved');
});

// ---- OpenAI Responses / Agents SDK -------------------------------------------------------------

const sessionItems = [
  { role: 'user', content: 'What is the weather in Lisbon and in Porto?' },
  { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Two cities: call the tool twice.' }] },
  { type: 'function_call', id: 'fc_1', call_id: 'call_a', name: 'get_weather', arguments: '{"city":"Lisbon"}' },
  { type: 'function_call', id: 'fc_2', call_id: 'call_b', name: 'get_weather', arguments: '{"city":"Porto"}' },
  { type: 'function_call_output', call_id: 'call_b', output: '17°C, rain' },
  { type: 'function_call_output', call_id: 'call_a', output: '22°C, sunny' },
  { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Lisbon is sunny (22°C); Porto has rain (17°C).', annotations: [] }] },
  { type: 'compaction', id: 'cmp_1', encrypted_content: 'gAAAAB…' },
  { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'And tomorrow?' }, { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=' }] },
];

test('openai-responses: Agents SDK session items map to steps, with outputs linked by call_id', async () => {
  const t = await loadRun(writeTemp('session.json', JSON.stringify(sessionItems)));
  assert.equal(t.format, 'openai-responses');
  assert.deepEqual(kinds(t), ['user', 'thought', 'tool_call', 'tool_call', 'tool_result', 'tool_result', 'assistant', 'compaction', 'user']);
  assert.equal(t.steps[4].answers, 3, 'the Porto output answers the Porto call');
  assert.equal(t.steps[5].answers, 2);
  assert.equal(t.steps[5].toolName, 'get_weather');
  assert.equal(t.steps[2].tool?.args, '{"city":"Lisbon"}');
  assert.equal(t.steps[1].text, 'Two cities: call the tool twice.');
  assert.equal(t.steps[8].text, 'And tomorrow?\n[image]', 'image data never lands in step text');
  assert.equal(turnCount(t), 2);
  assert.equal(t.title, 'What is the weather in Lisbon and in Porto?');
  assert.equal(t.steps[2].location?.pointer, '/2');
});

test('openai-responses: a saved response ({output, usage}) and a JSONL session are recognized too', async () => {
  const response = { id: 'resp_1', object: 'response', model: 'gpt-5', output: sessionItems.slice(1, 4), usage: { input_tokens: 812, output_tokens: 64, input_tokens_details: { cached_tokens: 512 } } };
  const r = await loadRun(writeTemp('response.json', JSON.stringify(response)));
  assert.equal(r.format, 'openai-responses');
  assert.deepEqual(r.meta.recorded, { model: 'gpt-5', inputTokens: 812, outputTokens: 64, cachedInputTokens: 512 });
  assert.equal(r.steps[1].location?.pointer, '/output/1');
  const lines = await loadRun(writeTemp('session.jsonl', jsonl(sessionItems)));
  assert.equal(lines.format, 'openai-responses');
  assert.equal(lines.steps.length, 9);
  assert.equal(lines.steps[4].location?.line, 5);
});

test('openai-responses: plain role/content messages with no typed items stay openai-chat', async () => {
  const t = await loadRun(writeTemp('plain.json', JSON.stringify([
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: 'hello' },
  ])));
  assert.equal(t.format, 'openai-chat');
});

// ---- Anthropic Messages ------------------------------------------------------------------------

const anthropicConversation = {
  model: 'claude-sonnet-4-5',
  max_tokens: 4096,
  system: [{ type: 'text', text: 'You are a careful coding agent.', cache_control: { type: 'ephemeral' } }],
  messages: [
    { role: 'user', content: 'Why does `npm test` fail?' },
    { role: 'assistant', content: [
      { type: 'thinking', thinking: 'Run the tests first.', signature: 'sig' },
      { type: 'text', text: 'Let me run them.' },
      { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'npm test' } },
    ], usage: { input_tokens: 20, cache_creation_input_tokens: 100, cache_read_input_tokens: 300, output_tokens: 40 } },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'Error: Cannot find module lodash' }], is_error: true }] },
    { role: 'assistant', content: [{ type: 'text', text: 'lodash is missing from package.json.' }] },
    { role: 'user', content: [{ type: 'text', text: 'Add it, please.' }] },
    { role: 'assistant', content: 'Added lodash to dependencies.' },
  ],
};

test('anthropic: {system, messages} with tool_use/tool_result/thinking blocks; tool results are not user turns', async () => {
  const t = await loadRun(writeTemp('conversation.json', JSON.stringify(anthropicConversation)));
  assert.equal(t.format, 'anthropic');
  assert.deepEqual(kinds(t), ['system', 'user', 'thought', 'thought', 'tool_call', 'tool_result', 'assistant', 'user', 'assistant']);
  assert.equal(turnCount(t), 2);
  const result = t.steps[5];
  assert.equal(result.answers, 4);
  assert.equal(result.toolName, 'bash');
  assert.equal(result.isError, true);
  assert.equal(result.text, 'Error: Cannot find module lodash');
  assert.equal(t.steps[4].tool?.args, '{"command":"npm test"}');
  assert.deepEqual(t.steps[4].usage, { model: 'claude-sonnet-4-5', inputTokens: 420, outputTokens: 40, cachedInputTokens: 300, cacheWriteTokens: 100 });
  assert.equal(t.steps[0].text, 'You are a careful coding agent.');
  assert.equal(t.meta.model, 'claude-sonnet-4-5');
  assert.equal(t.title, 'Why does `npm test` fail?');
});

test('anthropic: a bare message list with Anthropic blocks is not mistaken for openai-chat', async () => {
  const t = await loadRun(writeTemp('messages.json', JSON.stringify(anthropicConversation.messages)));
  assert.equal(t.format, 'anthropic');
  assert.equal(t.steps.length, 8);
  assert.equal(t.steps[4].answers, 3);
  assert.equal(t.steps[1].location?.pointer, '/1');
});

test('inspect: a tool message\'s error object (ToolCallError) is the result\'s failure, with or without the call before it', async () => {
  // Inspect's own test log (UKGovernmentBEIS/inspect_ai, MIT): 11 tool messages, each with `error: {type, message}`.
  const t = await loadTrajectory(fixture('inspect/inspect-test-log-tool-call-error.json'));
  const results = t.runs[0].steps.filter((s) => s.kind === 'tool_result');
  assert.equal(results.length, 11);
  assert.ok(results.every((r) => r.isError === true), 'every one failed, by its error object');
});

test('openai-responses: the Agents SDK\'s saved RunState reads as its input, its calls and their outputs, with the totals it kept', () => {
  // `RunState.to_json()` (schema 1.9, as openai/openai-agents-python's fixtures write it): it was
  // "not a trajectory in any format we know" because its items are wrapped as `raw_item`.
  const state = {
    $schemaVersion: '1.9',
    current_agent: { name: 'refunds-agent' },
    original_input: 'Refund order 4471-B for Mia Li.',
    generated_items: [
      { type: 'tool_call_item', agent: { name: 'refunds-agent' }, raw_item: { type: 'function_call', call_id: 'call-1', name: 'lookup_order', arguments: '{"order":"4471-B"}' } },
      { type: 'tool_call_output_item', agent: { name: 'refunds-agent' }, output: 'paid, $42.00', raw_item: { type: 'function_call_output', call_id: 'call-1', output: 'paid, $42.00' } },
      { type: 'tool_approval_item', agent: { name: 'refunds-agent' }, raw_item: { type: 'function_call', call_id: 'call-2', name: 'issue_refund', arguments: '{"order":"4471-B","amount":42}' } },
    ],
    model_responses: [],
    context: { usage: { requests: 2, input_tokens: 1800, input_tokens_details: [{ cached_tokens: 1024 }], output_tokens: 120, total_tokens: 1920 } },
  };
  const run = parseRunText(JSON.stringify(state), { path: 'run_state.json', size: 0 });
  assert.equal(run.format, 'openai-responses');
  assert.deepEqual(run.steps.map((s) => [s.kind, s.tool?.name ?? '']), [['user', ''], ['tool_call', 'lookup_order'], ['tool_result', ''], ['tool_call', 'issue_refund']]);
  assert.equal(run.steps[2].answers, 1, 'the output answers its call by call_id');
  assert.equal(run.title, 'Refund order 4471-B for Mia Li.');
  assert.equal(run.meta.agent, 'refunds-agent');
  assert.equal(run.meta.recorded?.inputTokens, 1800);
  assert.equal(run.meta.recorded?.outputTokens, 120);
  assert.equal(run.meta.recorded?.cachedInputTokens, 1024, 'the details, written as a list of one');
});
