import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { findStrategy, runCompaction, type CompactionResult } from '../../src/core/compaction';
import type { Run } from '../../src/core/model';
import { StepBuilder } from '../../src/core/steps';
import { charEstimateCounter } from '../../src/core/tokens/counter';
import { resolveOptions } from '../../src/core/compaction/runner';
import { shareRoom } from '../../src/core/compaction/strategies/katalystTools';

// Small traces written for these tests; every strategy runs offline (deterministic or extractive).

type Item = ['system' | 'user' | 'assistant' | 'thought', string] | ['call', string, string] | ['result', string];

function trajectory(items: Item[]): Run {
  const b = new StepBuilder();
  let n = 0;
  for (const it of items) {
    if (it[0] === 'call') b.add({ kind: 'tool_call', text: it[2], tool: { name: it[1], args: it[2], callId: `c${++n}` } });
    else if (it[0] === 'result') b.add({ kind: 'tool_result', text: it[1], tool: { name: '', args: '', callId: `c${n}` } });
    else {
      if (it[0] === 'user') b.closeOpenCalls();
      b.add({ kind: it[0], text: it[1] });
    }
  }
  const steps = b.finish();
  return { format: 'openai-chat', title: 't', source: { path: '/tmp/t.json', size: 0 }, steps, meta: {}, warnings: [], records: steps.length };
}

function run(t: Run, id: string, opts: { range?: string; options?: Record<string, string | number> } = {}): Promise<CompactionResult> {
  return runCompaction(t, { strategy: findStrategy(id)!, range: opts.range, options: opts.options }, { counter: charEstimateCounter });
}

const lines = (k: number) => Array.from({ length: k }, (_, i) => `line ${i}`).join('\n');

test('observation-masking: the task and the last 5 observations stay; older ones say how many lines went', async () => {
  const items: Item[] = [['system', 'sys'], ['user', 'Fix the bug']];
  for (let i = 1; i <= 8; i++) items.push(['call', 'bash', `cmd ${i}`], ['result', lines(i + 1)]);
  const t = trajectory(items);
  const r = await run(t, 'observation-masking');
  assert.equal(r.mode, 'deterministic');
  const texts = r.condensed.steps.filter((s) => s.kind === 'tool_result').map((s) => s.text);
  assert.deepEqual(texts.slice(0, 3), [
    'Old environment output: (2 lines omitted)',
    'Old environment output: (3 lines omitted)',
    'Old environment output: (4 lines omitted)',
  ]);
  assert.deepEqual(texts.slice(3), [5, 6, 7, 8, 9].map(lines), 'the last five outputs are untouched');
  assert.equal(r.fates.filter((f) => f === 'masked').length, 3);
  assert.equal(r.condensed.steps.length, t.steps.length, 'masking removes nothing, so calls stay paired');
  assert.equal(r.widened, undefined);
  const again = await run(r.condensed, 'observation-masking');
  assert.deepEqual(again.condensed.steps.map((s) => s.text), r.condensed.steps.map((s) => s.text), 'a second run changes nothing');

  // polling 3 with 10 observations: floor(10/3)*3 - 5 = 4, so only 3 are masked, not 4.
  items.push(['call', 'bash', 'cmd 9'], ['result', 'x']);
  const t10 = trajectory(items);
  assert.equal((await run(t10, 'observation-masking')).fates.filter((f) => f === 'masked').length, 4);
  assert.equal((await run(t10, 'observation-masking', { options: { polling: 3 } })).fates.filter((f) => f === 'masked').length, 3);
});

test('trim-last-turns: keeps the system prompt and the last max_turns user turns whole', async () => {
  const t = trajectory([
    ['system', 'sys'],
    ['user', 'one'], ['assistant', 'a1'],
    ['user', 'two'], ['assistant', 'a2'],
    ['user', 'three'], ['call', 'bash', 'ls'], ['result', 'x'], ['assistant', 'a3'],
    ['user', 'four'], ['assistant', 'a4'],
  ]);
  const r = await run(t, 'trim-last-turns', { options: { max_turns: 2 } });
  assert.deepEqual(r.condensed.steps.map((s) => s.text), ['sys', 'three', 'ls', 'x', 'a3', 'four', 'a4']);
  assert.deepEqual(r.range, [1, 4]);
  assert.deepEqual(r.fates, ['kept', 'dropped', 'dropped', 'dropped', 'dropped', 'kept', 'kept', 'kept', 'kept', 'kept', 'kept']);
  assert.equal(r.condensed.steps[3].answers, 2, 'the result is relinked to its call after renumbering');
  assert.equal(r.tokensAfter, r.stepTokensAfter.reduce((a, b) => a + b, 0));
  const none = await run(t, 'trim-last-turns');
  assert.equal(none.range, null);
  assert.match(none.warnings[0], /Nothing to compact: 4 user turns, fewer than max_turns 8/);
});

function actions(obs: (i: number) => string): Item[] {
  const items: Item[] = [['system', 'sys'], ['user', 'Build the app']];
  const tools: [string, string][] = [
    ['read_file', '{"path": "a.py"}'], ['bash', '{"command": "ls"}'], ['bash', '{"command": "pytest"}'],
    ['write_file', '{"path": "b.py", "content": "it\'s"}'], ['bash', '{"command": "git status"}'], ['bash', '{"command": "cat b.py"}'],
    ['read_file', '{"path": "c.py"}'],
  ];
  for (let i = 0; i < 12; i++) {
    const [name, args] = tools[i % tools.length];
    items.push(['thought', `step ${i}`], ['call', name, args], ['result', obs(i)]);
  }
  return items;
}

test('katalyst-tools: older actions grouped by tool in order of first use, last 3 per tool, recent 5 kept', async () => {
  const t = trajectory(actions((i) => `out${i} ` + 'x'.repeat(1500)));
  const r = await run(t, 'katalyst-tools');
  assert.equal(r.mode, 'extractive');
  const obs = (i: number) => (`out${i} ` + 'x'.repeat(1500)).slice(0, 200);
  // The grouping done in code goes to the model as Katalyst sends it.
  const grouped = [
    'read_file (2 calls):',
    `  {'path': 'a.py'} → ${obs(0)}`,
    `  {'path': 'c.py'} → ${obs(6)}`,
    'bash (4 calls):',
    `  {'command': 'pytest'} → ${obs(2)}`,
    `  {'command': 'git status'} → ${obs(4)}`,
    `  {'command': 'cat b.py'} → ${obs(5)}`,
    `write_file: {'path': 'b.py', 'content': "it's"} → ${obs(3)}`,
  ].join('\n');
  assert.ok(r.prompt![0].content.includes(`TOOL INTERACTIONS:\n${grouped}\n`));
  // Offline, each group says what it did, within the length the model would be allowed.
  const summaryStep = r.condensed.steps.find((s) => s.kind === 'compaction')!;
  const body = /^\[PREVIOUS ACTIONS SUMMARY\]\n([\s\S]*)\n\[END OF SUMMARY\]\n\nRecent actions and observations:$/.exec(summaryStep.text)![1];
  assert.deepEqual(body.split('\n').map((l) => l.split(':')[0]), ['read_file (2 calls)', 'bash (4 calls)', 'write_file']);
  assert.match(body, /read_file \(2 calls\): read a\.py, c\.py/);
  assert.match(body, /write_file: created b\.py/);
  assert.ok(body.length <= Math.floor(grouped.length * 0.5), `${body.length} characters`);
  assert.ok(r.summary!.startsWith(summaryStep.text + "\nPrevious Action: read_file\nPrevious Action Input: {'path': 'a.py'}\nObservation: out7 "));
  // Actions 7..11 stay; their observations are cut to 1,000 characters ending in "...".
  const kept = r.condensed.steps.filter((s) => s.kind === 'tool_result');
  assert.equal(kept.length, 5);
  for (const s of kept) assert.equal(s.text.length, 1000) ;
  assert.ok(kept[0].text.endsWith('...'));
  assert.equal(r.fates.filter((f) => f === 'trimmed').length, 5);
  assert.equal(r.fates.filter((f) => f === 'summarized').length, 14);
  assert.equal(r.fates.filter((f) => f === 'dropped').length, 7, 'thoughts between summarized actions are not part of the trace');
});

test('katalyst-tools offline: a group that says all it has in less than its listing leaves the room to the groups with more to say', async () => {
  // One file written with a long content (its listing is long, its digest one line) and twenty
  // failing commands (their listing shows only the last three, their digest has twenty errors).
  const items: Item[] = [['system', 'sys'], ['user', 'Build the app'],
    ['call', 'write_file', JSON.stringify({ path: 'big.py', content: 'x = 1\n'.repeat(600) })], ['result', 'File written.']];
  for (let i = 1; i <= 20; i++) items.push(['call', 'bash', JSON.stringify({ command: `make target${i}` })], ['result', `make: *** [target${i}] Error ${i}\nexit code: 2`]);
  for (let i = 0; i < 5; i++) items.push(['call', 'bash', JSON.stringify({ command: `echo ${i}` })], ['result', `${i}`]);
  const r = await run(trajectory(items), 'katalyst-tools');
  const body = r.summary!.split('\n[END OF SUMMARY]')[0];
  const budget = findStrategy('katalyst-tools')!.summaryBudget!(resolveOptions(findStrategy('katalyst-tools')!, {}), trajectory(items), r.range!);
  assert.ok(body.length + '\n[END OF SUMMARY]'.length <= (budget as { chars: number }).chars, `${body.length} characters`);
  assert.match(body, /write_file: created big\.py/);
  // The early failures survive, not only the three the listing shows.
  for (const i of [1, 5, 10]) assert.ok(body.includes(`target${i}`), `target${i} in:\n${body}`);
  assert.deepEqual(shareRoom([10, 500, 30], [400, 100, 30]), [10, 490, 30], 'what one part leaves, another that needs it gets');
  assert.deepEqual(shareRoom([1000, 1000], [300, 100]), [300, 100], 'no part gets more than the rooms hold together');
});

test("katalyst-tools offline: a failed build's further errors are told where the group has room", async () => {
  // gcc's errors as a Claude Code session's `make` printed them (wild/files/Durban-Designer__vsla).
  const build = [
    "/home/u/vsla/src/vsla_unified.c:79:5: error: unknown type name 'vsla_stats_t'",
    "/home/u/vsla/include/vsla/vsla_unified.h:20:38: error: redefinition of typedef 'vsla_context_t'",
    'make[2]: *** [CMakeFiles/vsla_static.dir/build.make:76: CMakeFiles/vsla_static.dir/src/vsla_unified.c.o] Error 1',
    'exit code: 2',
  ].join('\n');
  const items: Item[] = [['system', 'sys'], ['user', 'Build the library'],
    ['call', 'write_file', JSON.stringify({ path: 'src/vsla_unified.c', content: 'int x;\n'.repeat(200) })], ['result', 'File written.'],
    ['call', 'bash', JSON.stringify({ command: 'cd build && make -j4' })], ['result', build]];
  for (let i = 0; i < 12; i++) items.push(['call', 'bash', JSON.stringify({ command: `echo ${i}` })], ['result', `${i}`]);
  const r = await run(trajectory(items), 'katalyst-tools');
  const body = r.summary!.split('\n[END OF SUMMARY]')[0];
  assert.match(body, /unknown type name 'vsla_stats_t'/);
  assert.match(body, /redefinition of typedef 'vsla_context_t'/, body);
});

test('katalyst-tools: when grouping saves less than 10%, it falls back to plain truncation', async () => {
  // Summarizing one short action costs more (markers included) than it saves.
  const t = trajectory(actions(() => 'ok'));
  const r = await run(t, 'katalyst-tools', { options: { keep_last: 11 } });
  assert.equal(r.mode, 'deterministic');
  assert.equal(r.summary, null);
  assert.ok(!r.condensed.steps.some((s) => s.kind === 'compaction'));
  assert.match(r.warnings.join('\n'), /Summary not effective/);
  assert.equal(r.condensed.steps.filter((s) => s.kind === 'tool_call').length, 11, 'only the last 11 actions remain');
  assert.deepEqual(r.fates.filter((f) => f === 'dropped').length, 3, 'the oldest call, its result and its thought');
});

test('openhands-summary: 101 events with max_size 100 / keep_first 1 forget 52 and leave 50', async () => {
  const items: Item[] = [['system', 'sys']];
  for (let i = 0; i < 100; i++) items.push(['assistant', i === 10 ? 'A'.repeat(30_000) : `message ${i}`]);
  const t = trajectory(items);
  const r = await run(t, 'openhands-summary');
  assert.deepEqual(r.range, [1, 52]);
  assert.equal(r.fates.filter((f) => f === 'summarized').length, 52);
  assert.equal(r.condensed.steps.length, 50);
  assert.equal(r.condensed.steps[1].kind, 'compaction', 'the summary sits at summary_offset = keep_first');
  const prompt = r.prompt![0].content;
  for (const section of ['USER_CONTEXT:', 'TASK_TRACKING:', 'COMPLETED:', 'PENDING:', 'CURRENT_STATE:', 'CODE_STATE:', 'TESTS:', 'CHANGES:', 'DEPS:', 'VERSION_CONTROL_STATUS:']) {
    assert.ok(prompt.includes(section), section);
  }
  assert.ok(prompt.includes('<PREVIOUS SUMMARY>\nNo events summarized\n</PREVIOUS SUMMARY>'));
  assert.ok(prompt.includes('<EVENT id=1>\nASSISTANT MESSAGE\nmessage 0\n</EVENT>'));
  assert.ok(!prompt.includes('<EVENT id=53>'), 'the tail is not sent');
  const long = /<EVENT id=11>\n([\s\S]*?)\n<\/EVENT>/.exec(prompt)![1];
  assert.ok(long.includes('\n[... Observation truncated due to length ...]\n'));
  assert.equal(long.length, 10_000 + '\n[... Observation truncated due to length ...]\n'.length);
  assert.match(r.summary!, /^\[Extractive summary/);

  // Run again on the result: the earlier summary becomes the previous summary, not an event.
  const again = await run(r.condensed, 'openhands-summary', { range: '1-20' });
  assert.ok(again.prompt![0].content.includes(`<PREVIOUS SUMMARY>\n${r.summary}\n</PREVIOUS SUMMARY>`));
});

test('openhands-structured: extractive mode fills the state-summary schema and renders it', async () => {
  const t = trajectory([
    ['system', 'sys'], ['user', 'Add a --verbose flag to the CLI'],
    ['call', 'str_replace_editor', '{"command": "str_replace", "path": "/repo/cli.py", "old_str": "a", "new_str": "b"}'], ['result', 'edited'],
    ['call', 'execute_bash', '{"command": "git checkout -b verbose-flag"}'], ['result', "Switched to a new branch 'verbose-flag'\n[The command completed with exit code 0.]"],
    ['call', 'execute_bash', '{"command": "python -m pytest -q"}'], ['result', '2 failed, 10 passed in 0.5s\n[The command completed with exit code 1.]'],
    ['assistant', 'Two tests fail.'], ['assistant', 'Fixing.'], ['assistant', 'Done.'],
  ]);
  const r = await run(t, 'openhands-structured', { range: '2-8' });
  assert.equal(r.promptTool?.name, 'create_state_summary');
  const s = r.summary!;
  assert.ok(s.startsWith('# State Summary\n\n## Core Information\n**User Context**: Add a --verbose flag to the CLI'));
  for (const header of ['## Code Changes', '## Testing Status', '## Version Control', '## Additional Context']) assert.ok(s.includes(header));
  assert.ok(s.includes('**Files Modified**: /repo/cli.py'));
  assert.ok(s.includes('**Tests Passing**: false'));
  assert.ok(s.includes('**Branch Name**: verbose-flag'));
  assert.ok(s.includes('**Branch Created**: true'));
  assert.equal(r.condensed.steps[1].text, 'Add a --verbose flag to the CLI', 'the first user message is never forgotten');
});

test('katalyst-chat: system messages and the last 10 stay, one assistant summary between the markers', async () => {
  const items: Item[] = [['system', 'sys']];
  for (let i = 0; i < 27; i++) items.push(['user', `question ${i}`], ['assistant', `answer ${i}`]);
  const r = await run(trajectory(items), 'katalyst-chat');
  assert.deepEqual(r.range, [1, 44]);
  const steps = r.condensed.steps;
  assert.equal(steps.length, 12);
  assert.equal(steps[0].kind, 'system');
  assert.equal(steps[1].kind, 'compaction');
  assert.equal(steps[1].label, 'condensation:assistant');
  assert.match(steps[1].text, /^\[CONVERSATION SUMMARY\]\n[\s\S]*\n\[END OF SUMMARY\]$/);
  assert.equal(steps[2].text, 'question 22');
  assert.ok(r.prompt![0].content.includes('USER: question 0\n\nASSISTANT: answer 0'));
});

test('summarizing-session: older turns become a synthetic user → assistant pair', async () => {
  const items: Item[] = [['system', 'sys']];
  for (let i = 0; i < 5; i++) items.push(['user', `ask ${i}`], ['call', 'bash', `run ${i}`], ['result', 'r'.repeat(700)], ['assistant', `done ${i}`]);
  const r = await run(trajectory(items), 'summarizing-session');
  const steps = r.condensed.steps;
  assert.deepEqual(steps.slice(0, 3).map((s) => s.kind), ['system', 'user', 'compaction']);
  assert.equal(steps[2].label, 'condensation:assistant');
  assert.equal(steps[3].text, 'ask 2', 'the last 3 turns follow verbatim');
  assert.equal(steps.length, 3 + 12);
  assert.equal(r.prompt![0].role, 'system');
  assert.ok(r.prompt![1].content.includes('TOOL: ' + 'r'.repeat(600) + ' …'), 'long tool output is cut at 600 characters');
});

test('rolling-summary and hierarchical-summary: old messages move into summaries, recent ones stay', async () => {
  const items: Item[] = [['system', 'sys']];
  for (let i = 0; i < 25; i++) items.push([i % 2 ? 'assistant' : 'user', `m${i}`]);
  const t = trajectory(items);
  const rolling = await run(t, 'rolling-summary');
  assert.deepEqual(rolling.range, [1, 10], '25 messages: one chunk of 10 is summarized, 15 stay');
  assert.match(rolling.summary!, /^Conversation summary so far:\n/);
  assert.equal(rolling.condensed.steps[1].label, 'condensation:system');
  const hier = await run(t, 'hierarchical-summary');
  assert.equal(hier.condensed.steps.filter((s) => s.kind !== 'system' && s.kind !== 'compaction').length, 7);
  assert.match(hier.summary!, /Recent context: /);
});

test('budget-schema: over the share of the window, old rounds become the fixed schema and the result fits', async () => {
  const items: Item[] = [['system', 'sys'], ['user', 'Port the parser']];
  for (let i = 0; i < 12; i++) items.push(['thought', `round ${i}`], ['call', 'bash', `{"command": "make test${i}"}`], ['result', `output ${i} `.repeat(40)]);
  const t = trajectory(items);
  const total = t.steps.reduce((n, s) => n + charEstimateCounter.count(s.kind === 'tool_call' ? `${s.tool!.name} ${s.text}` : s.text), 0);
  const r = await run(t, 'budget-schema', { options: { context_window: Math.ceil(total / 0.7), tail_turns: 3 } });
  assert.ok(r.range);
  for (const h of ['Decisions:', 'Facts:', 'Open questions:', 'Pending tool calls:', 'Recent tool results:']) assert.ok(r.summary!.includes(h), h);
  assert.ok(r.tokensAfter <= Math.floor(Math.ceil(total / 0.7) * 0.65), 'summary plus tail fit the budget');
  assert.equal(r.condensed.steps.filter((s) => s.kind === 'tool_call').length, 3, 'the last 3 rounds stay');
});
