import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { openHandsEvalAdapter } from '../../src/core/formats/openhandsEval';
import { openHandsV0Adapter } from '../../src/core/formats/openhandsV0';
import { openHandsV1Adapter } from '../../src/core/formats/openhandsV1';
import { lineAt, offsetOfPointer } from '../../src/core/io/jsonScan';
import { loadTrajectory } from '../../src/core/open';
import { readInput } from '../../src/core/io/readInput';
import type { Step, Run } from '../../src/core/model';
import { turnsOf } from '../../src/core/steps';
import { corpus, tempDir, writeTemp } from '../helpers/paths';
import { loadRun } from '../helpers/runs';

const turnCount = (t: Run) => turnsOf(t.steps).length;
const toolNames = (steps: Step[]) => steps.filter((s) => s.kind === 'tool_call').map((s) => s.tool?.name);
const bySourceId = (t: Run, id: string, kind: Step['kind']) => {
  const found = t.steps.find((s) => s.sourceId === id && s.kind === kind);
  assert.ok(found, `no ${kind} step for event ${id}`);
  return found;
};

test('openhands-v0 basic.json: task, thought before the edit call, result answering it, finish', async () => {
  const t = await loadRun(corpus('openhands-v0/basic.json'));
  assert.equal(t.format, 'openhands-v0');
  assert.equal(t.steps.length, 6);
  assert.equal(turnCount(t), 1);
  assert.deepEqual(t.steps.map((s) => s.kind), ['user', 'thought', 'tool_call', 'tool_result', 'thought', 'tool_call']);
  assert.match(t.steps[0].text, /^Please create a simple 2048 game/);
  const edit = t.steps[2];
  assert.equal(edit.tool?.name, 'str_replace_editor');
  assert.equal(edit.label, 'edit');
  assert.equal(JSON.parse(edit.tool!.args).command, 'create', 'args are the function arguments the model wrote');
  assert.equal(edit.location?.pointer, '/1');
  assert.equal(edit.usage?.inputTokens, 3486);
  assert.equal(t.steps[3].answers, 2);
  assert.equal(t.steps[3].toolName, 'str_replace_editor');
  assert.equal(t.steps[3].sourceId, '4');
  assert.equal(t.steps[5].tool?.name, 'finish');
  assert.equal(t.meta.model, 'claude-3-5-sonnet-20241022');
});

test('openhands-v0 basic_gui_mode.json: bookkeeping events are kept as short "other" steps', async () => {
  const t = await loadRun(corpus('openhands-v0/basic_gui_mode.json'));
  assert.equal(t.format, 'openhands-v0');
  assert.equal(t.steps.length, 22);
  // The runtime's state changes before the task belong to the task's turn, not a turn of their own.
  assert.equal(turnCount(t), 1);
  assert.equal(t.steps.filter((s) => s.kind === 'other').length, 8);
  assert.match(bySourceId(t, '4', 'user').text, /^I want to create a VueJS app/);
  assert.equal(bySourceId(t, '17', 'other').text, 'agent state changed to awaiting_user_input');
  assert.equal(bySourceId(t, '2', 'other').text, 'no observation');
  const mkdir = bySourceId(t, '7', 'tool_call');
  assert.equal(mkdir.tool?.name, 'execute_bash');
  assert.match(mkdir.tool!.args, /mkdir -p \/workspace\/todo-app/);
  assert.equal(bySourceId(t, '8', 'tool_result').answers, mkdir.index);
  assert.equal(bySourceId(t, '14', 'tool_result').answers, bySourceId(t, '13', 'tool_call').index);
  assert.match(bySourceId(t, '15', 'assistant').text, /^I've created a complete Vue\.js todo application/);
  assert.deepEqual(toolNames(t.steps), ['execute_bash', 'str_replace_editor', 'str_replace_editor', 'execute_bash']);
});

test('openhands-v0 basic_interactions.json: three user messages make three turns', async () => {
  const t = await loadRun(corpus('openhands-v0/basic_interactions.json'));
  assert.equal(t.format, 'openhands-v0');
  assert.equal(t.steps.length, 6);
  assert.equal(turnCount(t), 3);
  assert.deepEqual(t.steps.map((s) => s.kind), ['user', 'assistant', 'user', 'assistant', 'user', 'tool_call']);
  assert.equal(t.steps[0].text, "what's 1+1?");
  assert.equal(t.title, "what's 1+1?");
  assert.equal(t.steps[4].text, 'Finish please');
  assert.equal(t.steps[5].tool?.name, 'finish');
  assert.deepEqual(t.steps.map((s) => s.turn), [0, 0, 1, 1, 2, 2]);
});

test('openhands-v0 wrong_initial_state.json: every result answers the call just before it', async () => {
  const t = await loadRun(corpus('openhands-v0/wrong_initial_state.json'));
  assert.equal(t.format, 'openhands-v0');
  assert.equal(t.steps.length, 12);
  assert.equal(turnCount(t), 1);
  assert.equal(t.steps[0].text, 'Please rename game_2048.py to 2048.py');
  assert.deepEqual(toolNames(t.steps), ['str_replace_editor', 'execute_bash', 'str_replace_editor', 'finish']);
  const mv = bySourceId(t, '5', 'tool_call');
  assert.match(mv.tool!.args, /mv \/workspace\/game_2048\.py \/workspace\/2048\.py/);
  assert.equal(bySourceId(t, '6', 'tool_result').answers, mv.index);
  for (const result of t.steps.filter((s) => s.kind === 'tool_result')) {
    assert.equal(t.steps[result.answers!].kind, 'tool_call');
    assert.equal(result.answers, result.index - 1);
  }
});

test('openhands-eval output.jsonl: one run per line with its history, model and recorded usage', async () => {
  const t = await loadTrajectory(corpus('openhands-eval/output.jsonl'));
  assert.equal(t.format, 'openhands-eval');
  assert.equal(t.holdsRuns, true);
  const runs = t.runs;
  assert.deepEqual(runs.map((r) => r.steps.length), [71, 103, 151]);
  assert.deepEqual(runs.map(turnCount), [1, 1, 1]);
  assert.deepEqual(runs.map((r) => r.meta.instanceId), ['ponylang__ponyc-4595', 'ponylang__ponyc-4593', 'ponylang__ponyc-4588']);
  assert.match(runs[0].title, /^ponylang__ponyc-4595: ponyc segfaults when trying to match/);
  assert.match(runs[2].title, /failed: RuntimeError: Agent reached maximum iteration/);
  assert.equal(runs[0].meta.model, 'openai/openrouter-llama-4-maverick');
  assert.equal(runs[0].meta.agent, 'CodeActAgent');
  assert.equal(runs[0].meta.recorded?.inputTokens, 565158);
  assert.equal(runs[0].meta.recorded?.outputTokens, 2558);
  assert.equal(t.meta.recorded?.inputTokens, 565158 + 410169 + 938015, 'the file total is the sum of its runs');

  const first = runs[0];
  assert.deepEqual(first.steps.slice(0, 4).map((s) => s.kind), ['system', 'user', 'other', 'other']);
  assert.match(first.steps[1].text, /^<uploaded_files>/);
  const ls = bySourceId(first, '5', 'tool_call');
  assert.equal(ls.tool?.name, 'execute_bash');
  assert.deepEqual(ls.location, { line: 1, pointer: '/history/4' });
  assert.equal(bySourceId(first, '6', 'tool_result').answers, ls.index);
  assert.equal(bySourceId(first, '47', 'thought').label, 'think');
  assert.equal(bySourceId(first, '49', 'tool_call').tool?.name, 'finish');

  // A malformed call the agent rejected: an error observation with no action to answer.
  const error = bySourceId(runs[1], '29', 'tool_result');
  assert.equal(error.isError, true);
  assert.equal(error.answers, undefined);
  assert.equal(runs[1].steps[error.index + 1].location?.line, 2);
});

test('openhands-v1 events.jsonl: actions, observations by call id, state updates kept short', async () => {
  const t = await loadRun(corpus('openhands-v1/events.jsonl'));
  assert.equal(t.format, 'openhands-v1');
  assert.equal(t.steps.length, 12);
  assert.equal(turnCount(t), 1);
  assert.equal(t.steps.filter((s) => s.kind === 'other').length, 5);
  assert.equal(t.steps[0].text, 'state update: execution_status = running');
  const first = bySourceId(t, 'e54cbba2-3be2-4494-aa13-83af6044c5a7', 'tool_call');
  assert.equal(first.tool?.name, 'terminal');
  assert.equal(first.tool?.callId, 'chatcmpl-tool-9d0341c7a033ae28');
  assert.equal(first.label, 'TerminalAction');
  assert.equal(JSON.parse(first.tool!.args).summary, 'Build session URL from environment');
  // The reasoning is repeated inside the thought; it shows once.
  assert.equal(t.steps.filter((s) => s.sourceId === first.sourceId && s.kind === 'thought').length, 1);
  const refused = bySourceId(t, 'd4f6dce6-2c6f-4559-8481-8b07ce1e775e', 'tool_result');
  assert.equal(refused.answers, first.index);
  assert.equal(refused.isError, true);
  assert.match(refused.text, /^Cannot execute multiple commands at once/);
  // This observation's action is not in the file: it answers nothing rather than the wrong call.
  const orphan = bySourceId(t, '8df85183-1da3-4677-ad2e-eb87d6f33809', 'tool_result');
  assert.equal(orphan.answers, undefined);
  assert.equal(orphan.toolName, 'terminal');
  const last = t.steps[11];
  assert.equal(last.answers, 10);
  assert.equal(last.isError, undefined);
  assert.equal(last.location?.line, 10);
  assert.equal(t.meta.recorded?.inputTokens, 107458);
  assert.equal(t.meta.model, 'litellm_proxy/minimax-m2.7');
});

test('openhands-v1: a folder of event-*.json files loads like the JSONL', async () => {
  const lines = fs.readFileSync(corpus('openhands-v1/events.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '');
  const dir = tempDir();
  lines.forEach((line, i) => {
    const event = JSON.parse(line) as { id: string };
    fs.writeFileSync(path.join(dir, `event-${String(i).padStart(5, '0')}-${event.id}.json`), JSON.stringify(event, null, 2));
  });
  fs.writeFileSync(path.join(dir, 'notes.json'), JSON.stringify({ note: 'not an event' }));
  const fromFolder = await loadRun(dir);
  const fromLines = await loadRun(corpus('openhands-v1/events.jsonl'));
  assert.equal(fromFolder.format, 'openhands-v1');
  const shape = (t: Run) => t.steps.map((s) => [s.kind, s.sourceId, s.text, s.answers, s.tool?.name]);
  assert.deepEqual(shape(fromFolder), shape(fromLines));
  assert.ok(fromFolder.warnings.some((w) => w.message.includes('notes.json')), 'the stray file is named in a warning');
});

test('openhands-v0: a file cut off mid-event loads every complete event and names the line', async () => {
  const text = fs.readFileSync(corpus('openhands-v0/basic_gui_mode.json'), 'utf8');
  const cutAt = offsetOfPointer(text, '/9')! + 300; // inside event 9's tool_call_metadata
  const t = await loadRun(writeTemp('cut.json', text.slice(0, cutAt)));
  const full = await loadRun(corpus('openhands-v0/basic_gui_mode.json'));
  assert.equal(t.format, 'openhands-v0');
  const before = full.steps.filter((s) => Number(s.sourceId) < 9);
  assert.deepEqual(t.steps.map((s) => [s.kind, s.sourceId, s.text]), before.map((s) => [s.kind, s.sourceId, s.text]));
  assert.equal(t.warnings.length, 1);
  const warning = t.warnings[0];
  assert.ok(warning.line !== undefined && warning.line <= lineAt(text, cutAt) && warning.line >= lineAt(text, cutAt - 300) - 1);
  assert.match(warning.message, new RegExp(`line ${warning.line}\\b`));
});

test('openhands-v0: condensation actions become compaction steps with their forgotten range', async () => {
  const run = (id: number, command: string, callId: string) => ({
    id, source: 'agent', message: `Running command: ${command}`, action: 'run',
    tool_call_metadata: { function_name: 'execute_bash', tool_call_id: callId },
    args: { command, thought: `I will run ${command}` },
  });
  const events = [
    { id: 0, source: 'agent', action: 'system', args: { content: 'You are a coding agent.', agent_class: 'CodeActAgent' } },
    { id: 1, source: 'user', action: 'message', args: { content: 'Fix the failing test' } },
    run(2, 'ls', 'c1'),
    { id: 3, source: 'agent', cause: 2, observation: 'run', content: 'a.py test_a.py', extras: {} },
    run(4, 'pytest', 'c2'),
    { id: 5, source: 'agent', cause: 4, observation: 'run', content: '1 failed', extras: {} },
    {
      id: 6, source: 'agent', action: 'condensation', message: 'Summary: USER_CONTEXT: fix the test',
      llm_metrics: { accumulated_cost: 0.02, accumulated_token_usage: { model: 'gpt-4o', prompt_tokens: 900, completion_tokens: 80 } },
      args: { forgotten_event_ids: null, forgotten_events_start_id: 2, forgotten_events_end_id: 5, summary: 'USER_CONTEXT: fix the test', summary_offset: 2 },
    },
    run(7, 'cat a.py', 'c3'),
    // No `cause`: linked by the call id it shares with its action.
    { id: 8, source: 'agent', observation: 'run', tool_call_metadata: { function_name: 'execute_bash', tool_call_id: 'c3' }, content: 'def a(): ...', extras: {} },
    {
      id: 9, source: 'agent', action: 'condensation', message: 'Condenser is dropping the events: [7, 8].',
      args: { forgotten_event_ids: [7, 8], forgotten_events_start_id: null, forgotten_events_end_id: null, summary: null, summary_offset: null },
    },
    { id: 10, source: 'agent', observation: 'error', content: 'Parameter "command" is missing.', extras: { error_id: '' } },
    { id: 11, source: 'agent', action: 'finish', tool_call_metadata: { function_name: 'finish', tool_call_id: 'c4' }, args: { final_thought: 'Fixed.', outputs: {}, thought: '' } },
  ];
  const t = await loadRun(writeTemp('condensed.json', JSON.stringify({ trajectory: events })));
  assert.equal(t.format, 'openhands-v0');
  const compactions = t.steps.filter((s) => s.kind === 'compaction');
  assert.equal(compactions.length, 2);
  assert.deepEqual(compactions[0].compaction?.forgottenRange, ['2', '5']);
  assert.equal(compactions[0].compaction?.summary, 'USER_CONTEXT: fix the test');
  assert.equal(compactions[0].text, 'USER_CONTEXT: fix the test');
  assert.equal(compactions[0].location?.pointer, '/trajectory/6');
  assert.equal(compactions[0].usage?.cost, 0.02, "the condenser's own LLM cost is kept on its step");
  assert.deepEqual(compactions[1].compaction?.forgottenIds, ['7', '8']);
  assert.equal(compactions[1].compaction?.summary, undefined);
  assert.match(compactions[1].text, /dropping the events: \[7, 8\]/);
  assert.equal(bySourceId(t, '8', 'tool_result').answers, bySourceId(t, '7', 'tool_call').index);
  const error = bySourceId(t, '10', 'tool_result');
  assert.equal(error.isError, true);
  assert.equal(error.answers, undefined);
  assert.equal(bySourceId(t, '2', 'thought').text, 'I will run ls');
  assert.equal(bySourceId(t, '11', 'tool_call').tool?.name, 'finish');
  assert.equal(t.meta.agent, 'CodeActAgent');
  assert.equal(t.meta.recorded?.cost, 0.02);
  assert.equal(turnCount(t), 1);
});

test('openhands-v1: Condensation events become compaction steps with the forgotten ids', async () => {
  const events = [
    { kind: 'SystemPromptEvent', id: 's', source: 'agent', system_prompt: { type: 'text', text: 'You are an SDK agent.' }, tools: [] },
    { kind: 'MessageEvent', id: 'u1', source: 'user', llm_message: { role: 'user', content: [{ type: 'text', text: 'List the files' }] } },
    { kind: 'ActionEvent', id: 'a1', source: 'agent', thought: [{ type: 'text', text: 'Listing.' }], tool_name: 'terminal', tool_call_id: 't1',
      tool_call: { id: 't1', name: 'terminal', arguments: '{"command":"ls"}' }, action: { command: 'ls', kind: 'TerminalAction' }, llm_response_id: 'r1' },
    { kind: 'ObservationEvent', id: 'o1', source: 'environment', tool_name: 'terminal', tool_call_id: 't1', action_id: 'a1',
      observation: { content: [{ type: 'text', text: 'README.md' }], is_error: false, kind: 'TerminalObservation' } },
    { kind: 'Condensation', id: 'c1', source: 'environment', forgotten_event_ids: ['a1', 'o1'], summary: 'Listed the files: README.md', summary_offset: 1, llm_response_id: 'r2' },
    { kind: 'ActionEvent', id: 'a2', source: 'agent', thought: [], tool_name: 'file_editor', tool_call_id: 't2',
      tool_call: { id: 't2', name: 'file_editor', arguments: '{"command":"view"}' }, action: { command: 'view', kind: 'FileEditorAction' }, llm_response_id: 'r3' },
    { kind: 'AgentErrorEvent', id: 'e1', source: 'agent', tool_name: 'file_editor', tool_call_id: 't2', error: 'path is required' },
    { kind: 'MessageEvent', id: 'm2', source: 'agent', llm_message: { role: 'assistant', content: [{ type: 'text', text: 'There is one file.' }] } },
    { kind: 'PauseEvent', id: 'p', source: 'user' },
  ];
  const t = await loadRun(writeTemp('events.jsonl', events.map((e) => JSON.stringify(e)).join('\n') + '\n'));
  assert.equal(t.format, 'openhands-v1');
  assert.deepEqual(t.steps.map((s) => s.kind), ['system', 'user', 'thought', 'tool_call', 'tool_result', 'compaction', 'tool_call', 'tool_result', 'assistant', 'other']);
  assert.equal(t.title, 'List the files');
  const compaction = t.steps[5];
  assert.deepEqual(compaction.compaction?.forgottenIds, ['a1', 'o1']);
  assert.equal(compaction.compaction?.summary, 'Listed the files: README.md');
  assert.equal(t.steps[4].answers, 3);
  assert.equal(t.steps[7].answers, 6);
  assert.equal(t.steps[7].isError, true);
  assert.equal(t.steps[7].text, 'path is required');
  assert.equal(t.steps[9].text, 'conversation paused');
  assert.equal(turnCount(t), 1);
});

test('openhands sniffers: each OpenHands file is claimed by exactly one of them, and other formats by none', () => {
  const adapters = [openHandsV0Adapter, openHandsEvalAdapter, openHandsV1Adapter];
  const claims = (file: string) => {
    const { input } = readInput(fs.readFileSync(file, 'utf8'), file);
    return adapters.filter((a) => a.sniff(input, path.basename(file)) > 0).map((a) => a.id);
  };
  assert.deepEqual(claims(corpus('openhands-v0/basic_gui_mode.json')), ['openhands-v0']);
  assert.deepEqual(claims(corpus('openhands-eval/output.jsonl')), ['openhands-eval']);
  assert.deepEqual(claims(corpus('openhands-v1/events.jsonl')), ['openhands-v1']);
  assert.deepEqual(claims(corpus('swe-agent/pydicom__pydicom-1458.traj')), [], 'SWE-agent steps carry both action and observation');
  assert.deepEqual(claims(corpus('swe-agent/marshmallow-code__marshmallow-1867.traj')), []);
  assert.deepEqual(claims(corpus('claude-code/crud.jsonl')), []);
  assert.deepEqual(claims(writeTemp('chat.json', JSON.stringify([{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }]))), []);
  // A single evaluation record is one JSON line, read as plain JSON: still an evaluation output.
  const firstRecord = fs.readFileSync(corpus('openhands-eval/output.jsonl'), 'utf8').split('\n')[0];
  assert.deepEqual(claims(writeTemp('one.jsonl', firstRecord)), ['openhands-eval']);
});

test("openhands-v1: a terminal's exit status is read from its metadata when the observation has no exit_code field", async () => {
  // The corpus's failed command records exit code 1 twice: as `exit_code` and in `metadata` (the PS1
  // the SDK read). Older SDK versions wrote only the second; the same event without the first.
  const lines = fs.readFileSync(corpus('openhands-v1/events.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '');
  const at = lines.findIndex((l) => l.includes('"exit_code":1,'));
  const both = await loadRun(corpus('openhands-v1/events.jsonl'));
  const failed = both.steps.find((s) => s.kind === 'tool_result' && s.exitCode === 1);
  assert.ok(failed, 'the corpus run has a command that exited 1');
  const event = JSON.parse(lines[at]) as { observation: Record<string, unknown> };
  assert.equal((event.observation.metadata as { exit_code: number }).exit_code, 1);
  delete event.observation.exit_code;
  const older = await loadRun(writeTemp('events.jsonl', [...lines.slice(0, at), JSON.stringify(event), ...lines.slice(at + 1)].join('\n')));
  assert.equal(older.steps[failed.index].exitCode, 1);
  // -1 (the command did not finish) is no exit status.
  assert.ok(older.steps.every((s) => s.exitCode === undefined || s.exitCode >= 0));
});

test('openhands-eval 2024: a history of [action, observation] pairs is read as calls and their answers, the task from the record\'s instruction', async () => {
  // The shape of OpenHands' own SWE-bench example output (evaluation/benchmarks/swe_bench/examples/
  // example_agent_output.jsonl, CodeActAgent on gpt-4-1106-preview, May 2024), its first two pairs
  // as written there; the record holds no user message in `history`.
  const run = (cmd: string, thought: string) => ({ action: 'run', args: { command: cmd, background: false, thought }, message: `Running command: ${cmd}` });
  const ran = (cmd: string, content: string, exit = 0) => ({ observation: 'run', content, extras: { command_id: -1, command: cmd, exit_code: exit }, message: `Command \`${cmd}\` executed with exit code ${exit}.` });
  const a = 'search_dir "viewcode_enable_epub" /workspace/sphinx-doc__sphinx__3.5/sphinx/ext/viewcode';
  const b = 'search_dir "viewcode_enable_epub" /workspace/sphinx-doc__sphinx__3.5';
  const record = {
    instance_id: 'sphinx-doc__sphinx-8721',
    instruction: 'Please fix the following issue for the repository in /workspace/sphinx-doc__sphinx__3.5.\nviewcode creates pages for epub even if `viewcode_enable_epub=False` on `make html epub`',
    metadata: { agent_class: 'CodeActAgent', model_name: 'gpt-4-1106-preview', max_iterations: 50 },
    history: [
      [run(a, 'First, I will need to locate the configuration.'), ran(a, 'Directory /workspace/sphinx-doc__sphinx__3.5/sphinx/ext/viewcode not found\n\nENVIRONMENT REMINDER: You have 49 turns left to complete the task.')],
      [run(b, 'I should instead search the entire Sphinx project.'), ran(b, 'Found 5 matches for "viewcode_enable_epub" in /workspace/sphinx-doc__sphinx__3.5:', 0)],
      [run('python reproduce.py', 'Run it.'), ran('python reproduce.py', 'Traceback (most recent call last):\nModuleNotFoundError: No module named \'sphinx_rtd\'', 1)],
    ],
  };
  const t = await loadTrajectory(writeTemp('output.jsonl', JSON.stringify(record) + '\n'));
  assert.equal(t.format, 'openhands-eval');
  const steps = t.runs[0].steps;
  assert.equal(steps[0].kind, 'user');
  assert.match(steps[0].text, /^Please fix the following issue/);
  const calls = steps.filter((s) => s.kind === 'tool_call');
  assert.deepEqual(calls.map((c) => JSON.parse(c.tool!.args).command), [a, b, 'python reproduce.py']);
  for (const c of calls) assert.ok(steps.some((s) => s.kind === 'tool_result' && s.answers === c.index), `call ${c.index} has its answer`);
  const last = steps.filter((s) => s.kind === 'tool_result').at(-1)!;
  assert.equal(last.exitCode, 1);
});
