import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { offsetOfPointer } from '../../src/core/io/jsonScan';
import type { Step, Run } from '../../src/core/model';
import { turnsOf } from '../../src/core/steps';
import { corpus, fixture, writeTemp } from '../helpers/paths';
import { loadTrajectory } from '../../src/core/open';
import { toAtif } from '../../src/core/formats/atifExport';
import { findStrategy, runCompaction } from '../../src/core/compaction';
import { charEstimateCounter } from '../../src/core/tokens/counter';
import { loadRun } from '../helpers/runs';

const PYDICOM = 'swe-agent/pydicom__pydicom-1458.traj';
const MARSHMALLOW = 'swe-agent/marshmallow-code__marshmallow-1867.traj';
const ASTROPY = 'mini-swe-agent/astropy__astropy-12907.traj.json';
const SPHINX = 'mini-swe-agent/sphinx-doc__sphinx-9711.traj.json';

const calls = (t: Run): Step[] => t.steps.filter((s) => s.kind === 'tool_call');
const ofKind = (t: Run, kind: Step['kind']): Step[] => t.steps.filter((s) => s.kind === kind);
const bySource = (t: Run, sourceId: string): Step[] => t.steps.filter((s) => s.sourceId === sourceId);

/** Every pointer must lead to a value in the file itself (Reveal in Source depends on it). */
function assertPointersResolve(t: Run, file: string): void {
  const text = fs.readFileSync(file, 'utf8');
  for (const step of t.steps) {
    const pointer = step.location?.pointer;
    assert.ok(pointer, `step ${step.index} has a pointer`);
    assert.notEqual(offsetOfPointer(text, pointer), undefined, `pointer ${pointer} resolves in ${file}`);
  }
}

test('swe-agent pre-1.0: demonstration is context, observations are results, the final submit output comes from trajectory', async () => {
  const file = corpus(PYDICOM);
  const t = await loadRun(file);
  assert.equal(t.format, 'swe-agent');
  assert.equal(t.steps.length, 39);
  assert.equal(turnsOf(t.steps).length, 1);
  assert.deepEqual(t.steps.slice(0, 3).map((s) => [s.kind, s.label]), [['system', 'system'], ['system', 'demonstration'], ['user', 'user']]);
  const users = ofKind(t, 'user');
  assert.equal(users.length, 1, 'only the task is a user message; observations fed back as user are results');
  assert.ok(users[0].text.startsWith("We're currently solving the following issue within our repository. Here's the issue text:\nISSUE:\nPixel Representation"));
  assert.equal(t.title, 'pydicom__pydicom-1458: Pixel Representation attribute should be optional for pixel data handler');

  assert.deepEqual(calls(t).map((s) => s.tool?.name),
    ['create', 'edit', 'python', 'find_file', 'open', 'edit', 'edit', 'edit', 'edit', 'python', 'rm', 'submit']);
  const open = calls(t)[4];
  assert.equal(open.tool?.args, 'pydicom/pixel_data_handlers/numpy_handler.py 293');
  assert.equal(open.text, 'open pydicom/pixel_data_handlers/numpy_handler.py 293');
  const firstEdit = calls(t)[1];
  assert.ok(firstEdit.tool?.args.startsWith('1:1\nimport numpy as np\n'));
  assert.ok(firstEdit.tool?.args.endsWith('end_of_edit'));
  const thought = t.steps[firstEdit.index - 1];
  assert.equal(thought.kind, 'thought');
  assert.ok(!thought.text.includes('```'), 'the thought holds the reasoning, not the command block');

  // The syntax-error observation at history[14] answers the edit issued at history[13].
  const [syntaxError] = bySource(t, 'history/14');
  assert.equal(syntaxError.kind, 'tool_result');
  assert.ok(syntaxError.text.startsWith('Your proposed edit has introduced new syntax error(s).'));
  assert.equal(syntaxError.answers, bySource(t, 'history/13').find((s) => s.kind === 'tool_call')?.index);
  assert.equal(syntaxError.toolName, 'edit');

  // history stops at `submit`; its output exists only in trajectory[11], and is taken from there once.
  const last = t.steps[t.steps.length - 1];
  assert.equal(last.location?.pointer, '/trajectory/11/observation');
  assert.equal(last.answers, calls(t)[11].index);
  assert.ok(last.text.startsWith('\ndiff --git a/pydicom/pixel_data_handlers/numpy_handler.py'));
  assert.equal(t.steps.filter((s) => s.sourceId?.startsWith('trajectory')).length, 1);

  assert.deepEqual(t.meta.recorded, { model: undefined, inputTokens: 122612, outputTokens: 1369, cost: 1.26719 });
  assert.equal(t.meta.apiCalls, 12);
  assert.equal(t.meta.exitStatus, 'submitted');
  assertPointersResolve(t, file);
});

test('swe-agent 1.x: function calls keep their names and JSON arguments, results link by call id', async () => {
  const file = corpus(MARSHMALLOW);
  const t = await loadRun(file);
  const raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.equal(t.format, 'swe-agent');
  assert.equal(t.steps.length, 41);
  assert.equal(turnsOf(t.steps).length, 1);
  assert.equal(calls(t).length, raw.trajectory.length, 'one call per trajectory step: query/messages copies are not counted');
  assert.ok(t.steps.every((s) => s.sourceId?.startsWith('history/')));
  assert.ok(ofKind(t, 'user')[0].text.startsWith("We're currently solving the following issue within our repository. Here's the issue text:\nISSUE:\nTimeDelta serialization precision"));
  assert.equal(ofKind(t, 'user').length, 1);

  assert.deepEqual(calls(t).map((s) => s.tool?.name),
    ['bash', 'open', 'bash', 'create', 'insert', 'bash', 'bash', 'find_file', 'open', 'edit', 'bash', 'bash', 'submit']);
  const findFile = calls(t)[7];
  assert.equal(findFile.tool?.args, '{"file_name":"fields.py", "dir":"src"}');
  assert.equal(findFile.tool?.callId, 'call_ahToD2vM0aQWJPkRmy5cumru');
  assert.equal(calls(t)[12].tool?.args, '{}');

  // The log reuses one call id for several bash calls; each observation still answers the call just before it.
  const [rmResult] = bySource(t, 'history/25');
  assert.equal(rmResult.kind, 'tool_result');
  assert.equal(rmResult.answers, calls(t)[11].index);
  assert.equal(calls(t)[11].tool?.args, '{"command":"rm reproduce.py"}');
  const [openResult] = bySource(t, 'history/19');
  assert.equal(openResult.answers, calls(t)[8].index);
  assert.ok(openResult.text.startsWith('[File: src/marshmallow/fields.py (1997 lines total)]'));
  assert.ok(t.steps[t.steps.length - 1].text.includes('diff --git a/src/marshmallow/fields.py'));

  assert.equal(t.meta.model, 'replay');
  assert.deepEqual(t.meta.recorded, { model: 'replay', inputTokens: 0, outputTokens: 0, cost: 0 });
  assert.equal(t.meta.apiCalls, 13);
  assertPointersResolve(t, file);
});

test('mini-swe-agent 1.1: tool calls, tool results by id, and an exit step that says how the run ended', async () => {
  const file = corpus(ASTROPY);
  const t = await loadRun(file);
  const raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.equal(t.format, 'mini-swe-agent');
  assert.equal(t.steps.length, 157);
  assert.equal(turnsOf(t.steps).length, 1);
  assert.equal(calls(t).length, raw.info.model_stats.api_calls, 'one bash call per model reply');
  assert.ok(calls(t).every((s) => s.tool?.name === 'bash'));
  assert.ok(ofKind(t, 'user')[0].text.startsWith("<pr_description>\nConsider the following PR description:\nModeling's `separability_matrix`"));
  assert.equal(ofKind(t, 'user').length, 1);

  const first = calls(t)[0];
  assert.equal(JSON.parse(first.tool!.args).command, 'cd /testbed && find . -path "*/separable*" -type f | head -20');
  assert.equal(first.tool?.callId, 'call_00_KVNoGhlWmTJUowwDsUa74968');
  const [firstResult] = bySource(t, 'messages/3');
  assert.equal(firstResult.answers, first.index);
  assert.equal(firstResult.text, '<returncode>0</returncode>\n<output>\n./astropy/modeling/separable.py\n</output>');

  // A reply with text and a call: the text is a thought carrying the reply's recorded usage, once.
  const [thought, call] = bySource(t, 'messages/2').concat(bySource(t, 'messages/2/tool_calls/0'));
  assert.equal(thought.kind, 'thought');
  assert.equal(thought.text, 'Let me start by understanding the issue and finding the relevant code.');
  assert.deepEqual(thought.usage, { model: 'deepseek-v4-flash', inputTokens: 1689, outputTokens: 76, cachedInputTokens: 1664, cost: 0.00008551199999999999 });
  assert.equal(call.usage, undefined);

  // The run stops on the submit command's output, which the exit message records: it answers that call.
  const exit = t.steps[t.steps.length - 1];
  assert.equal(exit.kind, 'tool_result');
  assert.equal(exit.label, 'exit: Submitted');
  assert.ok(exit.text.startsWith('diff --git a/astropy/modeling/separable.py'));
  const submitCall = t.steps[exit.answers!];
  assert.ok(submitCall.tool?.args.includes('COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT'));

  assert.equal(t.meta.model, 'deepseek/deepseek-chat');
  assert.deepEqual(t.meta.recorded, { model: 'deepseek/deepseek-chat', inputTokens: undefined, outputTokens: undefined, cost: 0.04282165999999999 });
  assert.equal(t.meta.exitStatus, 'Submitted');
  assertPointersResolve(t, file);
});

test('mini-swe-agent 1: bash blocks become bash calls, user-role outputs become results, including "output too long"', async () => {
  const file = corpus(SPHINX);
  const t = await loadRun(file);
  assert.equal(t.format, 'mini-swe-agent');
  assert.equal(t.steps.length, 113);
  assert.equal(turnsOf(t.steps).length, 1);
  assert.equal(ofKind(t, 'user').length, 1);
  assert.ok(ofKind(t, 'user')[0].text.startsWith('<pr_description>\nConsider the following PR description:\nneeds_extensions checks versions using strings'));
  assert.equal(t.title, 'sphinx-doc__sphinx-9711: needs_extensions checks versions using strings');
  assert.equal(calls(t).length, 37);

  const ls = calls(t)[0];
  assert.deepEqual(ls.tool, { name: 'bash', args: 'ls -R' });
  const thought = t.steps[ls.index - 1];
  assert.equal(thought.text, "THOUGHT: I need to explore the codebase to locate the `needs_extensions` check. I'll start by listing the files in the repository to get an overview of the project structure.");
  const tooLong = t.steps[ls.index + 1];
  assert.equal(tooLong.kind, 'tool_result');
  assert.equal(tooLong.answers, ls.index);
  assert.equal(tooLong.toolName, 'bash');
  assert.ok(tooLong.text.includes('The output of your last command was too long.'));
  assert.ok(tooLong.text.includes('<output_head>'));

  assert.equal(calls(t)[1].tool?.args, 'grep -r "needs_extensions" sphinx');
  // The final user message carries the patch: it is the output of the submitting command.
  const last = t.steps[t.steps.length - 1];
  assert.equal(last.kind, 'tool_result');
  assert.ok(t.steps[last.answers!].tool?.args.startsWith('echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A'));
  assert.ok(last.text.startsWith('diff --git a/setup.py b/setup.py'));

  assert.deepEqual(t.meta.recorded, { model: 'google/gemini-3-pro-preview', inputTokens: undefined, outputTokens: undefined, cost: 0.4292064 });
  assert.equal(t.meta.apiCalls, 37);
  assertPointersResolve(t, file);
});

test('sniffing: a plain message list stays openai-chat; a mini-swe-agent file cut off mid-write is still mini-swe-agent', async () => {
  const messages = [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }];
  const plain = await loadRun(writeTemp('plain.json', JSON.stringify({ messages })));
  assert.equal(plain.format, 'openai-chat');
  const withInfo = await loadRun(writeTemp('x.json', JSON.stringify({ messages, info: { note: 1 } })));
  assert.equal(withInfo.format, 'openai-chat');

  const text = fs.readFileSync(corpus(SPHINX), 'utf8');
  // Cut inside `messages`: `trajectory_format` (written after it) is lost, `info.mini_version` (written first) is kept.
  const cut = writeTemp('cut.traj.json', text.slice(0, Math.floor(text.length * 0.6)));
  const t = await loadRun(cut);
  assert.equal(t.format, 'mini-swe-agent');
  assert.ok(t.warnings.some((w) => /truncated/.test(w.message)));
  assert.ok(calls(t).length > 5 && calls(t).length < 37);
  assert.equal(t.steps[3].tool?.args, 'ls -R');
});

test('mini-swe-agent 1: a reply without exactly one bash block runs nothing, and its feedback is not a user turn', async () => {
  const file = writeTemp('fmt.traj.json', JSON.stringify({
    info: { mini_version: '1.15.0', exit_status: 'Submitted', model_stats: { instance_cost: 0.5, api_calls: 3 } },
    messages: [
      { role: 'system', content: 'You run bash.' },
      { role: 'user', content: 'Fix the bug.' },
      { role: 'assistant', content: 'THOUGHT: two at once\n```bash\nls\n```\n```bash\npwd\n```' },
      { role: 'user', content: 'Please always provide EXACTLY ONE action in triple backticks.' },
      { role: 'assistant', content: 'THOUGHT: one\n```bash\nls\n```' },
      { role: 'user', content: '<returncode>0</returncode>\n<output>\na.py\n</output>' },
    ],
    trajectory_format: 'mini-swe-agent-1',
  }));
  const t = await loadRun(file);
  assert.deepEqual(t.steps.map((s) => s.kind), ['system', 'user', 'assistant', 'other', 'thought', 'tool_call', 'tool_result']);
  assert.equal(t.steps[6].answers, 5);
  assert.equal(turnsOf(t.steps).length, 1);
  assert.equal(t.meta.instanceId, 'fmt');
});

test('swe-agent: a file without history is read from trajectory, its system prompt and task from the first query', async () => {
  const file = writeTemp('inst-1.traj', JSON.stringify({
    trajectory: [
      {
        action: 'open src/app.py\n', observation: '[File: src/app.py (3 lines total)]', thought: 'Look first.', response: '',
        query: [{ role: 'system', content: 'You are SWE-agent.' }, { role: 'user', content: 'ISSUE:\nCrash on start\nmore' }],
      },
      { action: 'submit\n', observation: 'diff --git a/src/app.py', thought: 'Done.', response: '' },
    ],
    info: { model_stats: { instance_cost: 0.2, tokens_sent: 10, tokens_received: 2, api_calls: 2 } },
  }));
  const t = await loadRun(file);
  assert.equal(t.format, 'swe-agent');
  assert.deepEqual(t.steps.map((s) => s.kind), ['system', 'user', 'thought', 'tool_call', 'tool_result', 'thought', 'tool_call', 'tool_result']);
  assert.deepEqual(t.steps[3].tool, { name: 'open', args: 'src/app.py' });
  assert.equal(t.steps[7].answers, 6);
  assert.equal(t.steps[1].location?.pointer, '/trajectory/0/query/1');
  assert.equal(t.title, 'inst-1: Crash on start');
  assert.deepEqual(t.meta.recorded, { model: undefined, inputTokens: 10, outputTokens: 2, cost: 0.2 });
});

test('swe-agent 1.1: a history written one entry per line is SWE-agent, its results paired by id, and "OBSERVATION:" is no outcome', async () => {
  // dfinson/traceforge's capture of a SWE-agent 1.1 run: it was read as a plain chat, and summaries said `ls -la (→ OBSERVATION:)`.
  const file = fixture('swe-agent/traceforge-history.jsonl');
  const loaded = await loadTrajectory(file);
  assert.equal(loaded.format, 'swe-agent');
  const run = loaded.runs[0];
  const calls = run.steps.filter((s) => s.kind === 'tool_call');
  const results = run.steps.filter((s) => s.kind === 'tool_result');
  assert.equal(calls.length, 18);
  assert.deepEqual(results.map((r) => r.answers), calls.map((c) => c.index), 'every result answers the call its tool_call_ids name');
  assert.equal(run.steps[2].location?.line, 3, 'each step at its own line');
  const summary = (await runCompaction(run, { strategy: findStrategy('openhands-summary')!, range: '0:-2' }, { counter: charEstimateCounter })).summary ?? '';
  assert.doesNotMatch(summary, /→ OBSERVATION:/);
  assert.match(summary, /ls -la \(→ \.git\/, \.gitignore/);
});

test('mini-swe-agent: the version the run records (info.mini_version) is the agent\'s version, and ATIF says it', async () => {
  const run = await loadRun(fixture('mini-swe-agent/pvlib__pvlib-python-1072.traj.json'));
  assert.equal(run.meta.version, '2.2.7');
  assert.equal((toAtif(run).agent as { version: string }).version, '2.2.7', 'was "unknown"');
});

test('mini-swe-agent through the Responses API: each reply\'s usage is read from input_tokens/output_tokens, its cache reads from input_tokens_details', async () => {
  // A real mini-swe-agent 1.17.3 run of gpt-5-mini (wudi-alex/mini-swe-agent-CaM): its 25 replies
  // keep the Responses API's usage, where chat-completions runs keep prompt_tokens.
  const run = (await loadTrajectory(fixture('mini-swe-agent/django__django-12406.traj.json'))).runs[0];
  const usages = run.steps.map((s) => s.usage).filter((u) => u !== undefined);
  assert.equal(usages.length, 25, 'one recorded usage per reply');
  const sum = (k: 'inputTokens' | 'outputTokens' | 'cachedInputTokens') => usages.reduce((n, u) => n + (u[k] ?? 0), 0);
  assert.deepEqual([sum('inputTokens'), sum('outputTokens'), sum('cachedInputTokens')], [236_463, 2_801, 191_104]);
  assert.equal(usages[0].model, 'gpt-5-mini-2025-08-07');
});

test('mini-swe-agent: commands are read by the action_regex the run\'s own config records, not only from bash blocks', async () => {
  // A fork that asks its model for ```python blocks records so in info.config.agent.action_regex.
  const doc = {
    trajectory_format: 'mini-swe-agent-1',
    info: { mini_version: '1.17.3', config: { agent: { action_regex: '```python\\s*\\n(?P<code>.*?)\\n```' } } },
    messages: [
      { role: 'system', content: 'You act by writing one python block.' },
      { role: 'user', content: 'Fix the bug.' },
      { role: 'assistant', content: 'THOUGHT: look first.\n\n```python\nrun("ls -la")\n```' },
      { role: 'user', content: '<returncode>0</returncode>\n<output>\nsetup.py\n</output>' },
      // A bash block is no command in this run.
      { role: 'assistant', content: 'Then:\n\n```bash\nrm -rf /\n```' },
    ],
  };
  const t = await loadTrajectory(writeTemp('fork.traj.json', JSON.stringify(doc)));
  const calls = t.runs[0].steps.filter((s) => s.kind === 'tool_call').map((s) => s.tool?.args);
  assert.deepEqual(calls, ['run("ls -la")']);
  // A pattern JavaScript cannot run is said, and the bash blocks are read instead.
  const bad = { ...doc, info: { ...doc.info, config: { agent: { action_regex: '(?<=```)(?' } } } };
  const t2 = await loadTrajectory(writeTemp('bad.traj.json', JSON.stringify(bad)));
  assert.deepEqual(t2.runs[0].steps.filter((s) => s.kind === 'tool_call').map((s) => s.tool?.args), ['rm -rf /']);
  assert.ok(t2.warnings.some((w) => /action_regex/.test(w.message)), JSON.stringify(t2.warnings));
});

test('mini-swe-agent: a fork that writes its bash block indented inside a `def` is read by the action_regex its config records', async () => {
  // A real run of the CaM fork (wudi-alex/mini-swe-agent-CaM): `@bug_localization\ndef find_…():\n    ```bash\n    cmd\n    ```.
  const run = (await loadTrajectory(fixture('mini-swe-agent/django__django-11790-cam.traj.json'))).runs[0];
  const calls = run.steps.filter((s) => s.kind === 'tool_call');
  assert.equal(calls.length, 6, 'one call per API call the run records');
  assert.equal(run.steps.filter((s) => s.kind === 'tool_result').length, 6);
  // The block's indentation is the fork's layout, not the command's.
  assert.equal(calls[0].tool?.args, 'cd /testbed && grep -nR "class AuthenticationForm" || true');
  assert.match(calls[3].tool?.args ?? '', /^cd \/testbed && python - <<'PY'\nfrom pathlib import Path\n/);
});
