import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { findStrategy, runCompaction } from '../../src/core/compaction';
import { commandEffect } from '../../src/core/compaction/facts/calls';
import { extractFacts } from '../../src/core/compaction/extract';
import { constraintsOf, taskOf, userRefsOf } from '../../src/core/compaction/facts/requests';
import { loadTrajectory } from '../../src/core/open';
import type { Run } from '../../src/core/model';

import type { StepBuilder } from '../../src/core/steps';
import { charEstimateCounter } from '../../src/core/tokens/counter';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fixture, REPO_ROOT } from '../helpers/paths';
import { addCall, builtRun } from '../helpers/builtRuns';
import { allRealFiles } from '../helpers/realFiles';

// What a summary keeps of the person and the plan: answers to the agent's questions are requests,
// injected notifications are not; Claude Code 2.1's task tools make a plan; reads are not changes;
// CURRENT_STATE is what the agent said, never its thinking or a JSON payload.

const trajectory = (build: (b: StepBuilder) => void): Run => builtRun(build);
const call = addCall;

test("OpenCode's question: the person's answer is a later request every summary keeps", async () => {
  const t = (await loadTrajectory(fixture('opencode/all-tools.json'))).runs[0];
  const facts = extractFacts(t, t.steps.map((s) => s.index));
  assert.ok(facts.requests.some((r) => /^answered: figure it out sir/.test(r.text)), JSON.stringify(facts.requests));
  const r = await runCompaction(t, { strategy: findStrategy('openhands-summary')!, range: '1:-2' }, { counter: charEstimateCounter });
  assert.match(r.summary!, /later request: answered: figure it out sir/);
});

test('Codex request_user_input answers and Cline follow-up answers are requests; injected notifications are not', () => {
  const t = trajectory((b) => {
    b.add({ kind: 'user', text: 'Build the quarterly dashboard.' });
    call(b, 'request_user_input', { questions: [{ id: 'deadline', question: 'When is it due?' }] }, '{"answers":{"deadline":{"answers":["Friday 5pm"]},"kpis":{"answers":["churn, MRR"]}}}');
    call(b, 'ask_followup_question', { question: 'Which chart library?' }, '<answer>\nUse Vega-Lite\n</answer>');
    b.add({ kind: 'user', text: '<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n</task-notification>' });
    b.add({ kind: 'user', text: '<system-reminder>The TodoWrite tool has not been used recently.</system-reminder>' });
    b.add({ kind: 'user', text: 'Also add a CSV export.' });
  });
  const facts = extractFacts(t, t.steps.map((s) => s.index));
  const texts = facts.requests.map((r) => r.text);
  assert.ok(texts.some((x) => x.includes('Friday 5pm') && x.includes('MRR')), texts.join('\n'));
  assert.ok(texts.includes('answered: Use Vega-Lite'), texts.join('\n'));
  assert.ok(texts.includes('Also add a CSV export.'));
  assert.ok(!texts.some((x) => /task-notification|system-reminder|TodoWrite/.test(x)), 'a notification is not a request');
});

test("Claude Code 2.1's TaskCreate, TaskUpdate and TaskList make the plan, with ids and statuses", async () => {
  const t = trajectory((b) => {
    b.add({ kind: 'user', text: 'Port the parser to Rust.' });
    call(b, 'TaskCreate', { subject: 'Write the lexer', description: 'tokens', activeForm: 'Writing the lexer' }, 'Task #1 created successfully: Write the lexer');
    call(b, 'TaskCreate', { subject: 'Write the parser', description: 'AST' }, 'Task #2 created successfully: Write the parser');
    call(b, 'TaskCreate', { subject: 'Delete the old code', description: '' }, 'Task #3 created successfully: Delete the old code');
    call(b, 'TaskUpdate', { taskId: '1', status: 'completed' }, 'Updated task #1 status');
    call(b, 'TaskUpdate', { taskId: '2', status: 'in_progress' }, 'Updated task #2 status');
    call(b, 'TaskUpdate', { taskId: '3', status: 'deleted' }, 'Updated task #3 deleted');
    b.add({ kind: 'assistant', text: 'The lexer is done.' });
  });
  const facts = extractFacts(t, t.steps.map((s) => s.index));
  assert.deepEqual(facts.plan?.items.map((i) => `${i.id} ${i.text} ${i.status}`), ['1 Write the lexer completed', '2 Write the parser in_progress']);
  const r = await runCompaction(t, { strategy: findStrategy('openhands-summary')!, range: '1:-2' }, { counter: charEstimateCounter });
  assert.match(r.summary!, /TASK_TRACKING:\n {2}- 1\. Write the lexer \[completed\]\n {2}- 2\. Write the parser \[in_progress\]/);
});

test('commands are classed by effect: reads and searches are not CHANGES', async () => {
  for (const c of ['cat a.py', "sed -n '1,20p' a.py", 'rg -n foo src', 'grep -r foo .', 'ls -la', 'git show HEAD', 'git diff', 'head -5 a.py', 'find . -name "*.py"', 'cd /repo && git status && git log --oneline | head', 'git worktree list', 'git stash list', 'git submodule status']) {
    assert.equal(commandEffect(c), 'read', c);
  }
  for (const c of ["sed -i 's/a/b/' a.py", 'echo x > a.txt', 'git commit -m fix', 'pip install requests', 'rm -rf build', 'mkdir -p out', 'npm install', 'git checkout -b fix', 'python -m pip install -e .', 'find . -name "*.pyc" -delete', 'git worktree add -b x ../x develop', 'git stash', 'git submodule update --init']) {
    assert.equal(commandEffect(c), 'change', c);
  }
  for (const c of ['pytest -x', 'python reproduce.py', 'make', 'npm test']) assert.equal(commandEffect(c), 'run', c);
  // Stream editors told to rewrite their files, switches bundled or not; an include path is not -i.
  for (const c of ["perl -i -0777 -pe 's/a/b/' x_test.go", "perl -pi -e 's/a/b/' a.py", "ruby -pi -e 'gsub(/a/, \"b\")' a.rb", "sed -i '' 's/a/b/' f.go", 'gawk -i inplace "{print}" f.txt']) {
    assert.equal(commandEffect(c), 'change', c);
  }
  assert.equal(commandEffect('perl -Ilib t/basic.t'), 'run');
  assert.equal(commandEffect('ruby script.rb'), 'run');
  const t = trajectory((b) => {
    b.add({ kind: 'user', text: 'Fix the float parser.' });
    call(b, 'Bash', { command: "sed -n '1,40p' src/card.py" }, 'def parse(s):\n    return float(s)');
    call(b, 'Bash', { command: 'rg -n "float(" src' }, 'src/card.py:2:    return float(s)');
    call(b, 'Bash', { command: "sed -i 's/float(s)/float(s.replace(\",\", \".\"))/' src/card.py" }, '');
    call(b, 'Bash', { command: 'git commit -am "parse commas"' }, '[main 1a2b3c4] parse commas');
    b.add({ kind: 'assistant', text: 'Done.' });
  });
  const r = await runCompaction(t, { strategy: findStrategy('openhands-summary')!, range: '1:-2' }, { counter: charEstimateCounter });
  const changes = /CHANGES:[^\n]*\n((?: {2}- .*\n?)*)/.exec(r.summary!)![1];
  assert.match(changes, /sed -i/);
  assert.match(changes, /git commit/);
  assert.doesNotMatch(changes, /sed -n|rg -n/, changes);
});

test('CURRENT_STATE is what the agent said: never its raw thinking, never a JSON payload; PENDING holds no call whose result is in the log', async () => {
  const t = trajectory((b) => {
    b.add({ kind: 'user', text: 'Tidy the config loader.' });
    b.add({ kind: 'assistant', text: 'I moved the defaults into config/defaults.py.' });
    call(b, 'Bash', { command: 'pytest -q' }, '3 passed in 0.2s');
    b.add({ kind: 'thought', text: 'Hmm, maybe the env override is read twice? Let me think about it step by step...' });
    b.add({ kind: 'assistant', text: '{"type":"status","state":"running","progress":0.5}' });
    // A call whose result the reader could not pair (no call id on it): not pending.
    b.add({ kind: 'tool_call', text: '{"command":"ls"}', tool: { name: 'Bash', args: '{"command":"ls"}' } });
    b.add({ kind: 'tool_result', text: 'config\nREADME.md', tool: { name: '', args: '' } });
    b.add({ kind: 'assistant', text: 'All set.' });
  });
  const r = await runCompaction(t, { strategy: findStrategy('openhands-summary')!, range: '1:-2' }, { counter: charEstimateCounter });
  assert.match(r.summary!, /CURRENT_STATE: I moved the defaults into config\/defaults\.py\./, r.summary!);
  assert.doesNotMatch(r.summary!, /PENDING:[^\n]*\n(?: {2}- .*\n)*? {2}- no result yet/, 'the ls call has its result');
});

test('an opener the agent only answered ("shell", "hi") is not the task: the request that followed is', async () => {
  // EdofEngland/code_butler (wild dev split): the person types "shell", the agent asks what to do,
  // and the next message is the /butler-exec prompt.
  const file = path.join(REPO_ROOT, 'wild', 'files', 'EdofEngland__code_butler', 'rollout-2025-11-24T13-02-00-019ab73e-8c11-7ad2-b604-5987891db560.jsonl');
  const run = (await loadTrajectory(file)).runs[0];
  const facts = extractFacts(run, run.steps.map((s) => s.index));
  assert.equal(facts.task?.step, 6);
  assert.match(facts.task!.text, /^# \/butler-exec — Execute a ButlerSpec/);
  const summary = (await runCompaction(run, { strategy: findStrategy('openhands-summary')!, range: '0:-2' }, { counter: charEstimateCounter })).summary!;
  assert.match(summary, /USER_CONTEXT: # \/butler-exec — Execute a ButlerSpec/);
  assert.doesNotMatch(summary, /Later request: shell/);
  // A short request the agent acted on is the task: chiphuyen/sniffly's "push to github".
  const sniffly = (await loadTrajectory(path.join(REPO_ROOT, 'wild', 'files', 'chiphuyen__sniffly', 'fed8ce56-bc79-401f-a83e-af084253362f.jsonl'))).runs[0];
  assert.equal(extractFacts(sniffly, sniffly.steps.map((s) => s.index)).task?.text, 'push to github');
  // A greeting answered in words, then the work.
  const t = trajectory((b) => {
    b.add({ kind: 'user', text: 'hi' });
    b.add({ kind: 'assistant', text: 'Hello! What would you like to work on?' });
    b.add({ kind: 'user', text: 'Fix the float parser in src/card.py.' });
    call(b, 'Bash', { command: "sed -n '1,40p' src/card.py" }, 'def parse(s):\n    return float(s)');
  });
  assert.equal(extractFacts(t, t.steps.map((s) => s.index)).task?.text, 'Fix the float parser in src/card.py.');
  // With nothing after it, the opener is all the person asked.
  const alone = trajectory((b) => {
    b.add({ kind: 'user', text: 'hi' });
    b.add({ kind: 'assistant', text: 'Hello!' });
  });
  assert.equal(extractFacts(alone, alone.steps.map((s) => s.index)).task?.text, 'hi');
});

test('rules the loss report reads: "ensure" opening a request after a Codex skill, and "be sure to"', () => {
  // Codex (wild dev run, agentv): the request names a skill first, then the rule.
  assert.deepEqual(constraintsOf('$coordinator  ensure beads are clear enough for hand off then spawn agents to implement agentv prepare'),
    ['ensure beads are clear enough for hand off then spawn agents to implement agentv prepare']);
  assert.deepEqual(constraintsOf('Be sure to prefix the file with the following text:'), ['Be sure to prefix the file with the following text:']);
  assert.deepEqual(constraintsOf('I made sure the build passes. Is it ready?'), []);
});

test('a saved prompt sent again (a Codex custom prompt, /speckit.implement Phase 2) is said by what the person changed in it, on a real rollout', async (t) => {
  // Wild-log dev file (wild/SOURCES.md): 20 requests, 9 of them spec-kit's implement prompt around "Phase 1"…"T026-T030".
  const file = path.join(REPO_ROOT, 'wild', 'files', 'Prometheus-AGS__prometheus-parking-lot-rs', 'rollout-2025-12-06T15-11-37-019af581-86ce-7d23-b9c6-0f99353d36af.jsonl');
  if (!fs.existsSync(file)) return t.skip('wild/files is not in this checkout');
  const run = (await loadTrajectory(file)).runs[0];
  const r = await runCompaction(run, { strategy: findStrategy('openhands-summary')!, range: '0:-2' }, { counter: charEstimateCounter });
  const later = r.summary!.split('\n').filter((l) => l.startsWith('  - later request:'));
  for (const words of ['Phase 2', 'next steps and remove unused code and make sure it all builds', 'T026-T030']) {
    assert.ok(later.some((l) => l === `  - later request: ${words} (in the prompt of step 175 again)`), `${words}: ${later.join('\n')}`);
  }
  assert.equal(later.filter((l) => l.includes('You **MUST** consider the user input')).length, 4, 'each prompt is quoted once, when it is first sent');
  assert.ok(later.some((l) => l === '  - later request: I am on a mac'), 'a short request is the person\'s own');
  const cc = await runCompaction(run, { strategy: findStrategy('claude-code-compact')!, range: '0:-2' }, { counter: charEstimateCounter });
  assert.match(cc.summary!, /T026-T030 \(in the prompt of step 175 again\)/);
});

test('a task typed into a saved prompt is told by what was typed: the summary\'s goal opens with it, and the prompt\'s own examples are not the person\'s wants', async (t) => {
  // Wild-log dev file: the session opens with spec-kit's specify prompt around "I want to build everything…".
  const file = path.join(REPO_ROOT, 'wild', 'files', 'Prometheus-AGS__prometheus-parking-lot-rs', 'rollout-2025-12-06T15-11-37-019af581-86ce-7d23-b9c6-0f99353d36af.jsonl');
  if (!fs.existsSync(file)) return t.skip('wild/files is not in this checkout');
  const run = (await loadTrajectory(file)).runs[0];
  const r = await runCompaction(run, { strategy: findStrategy('summarizing-session')!, range: '0:-2' }, { counter: charEstimateCounter });
  assert.match(r.summary!, /^• Goal: I want to build everything that has been discussed in README\.md /m, 'was: "## User Input ```text I want…"');
  assert.doesNotMatch(r.summary!, /the task also says: .*"I want to add user authentication"/, 'an example of the prompt\'s is no want of the person\'s');
  const hier = await runCompaction(run, { strategy: findStrategy('hierarchical-summary')!, range: '0:-2' }, { counter: charEstimateCounter });
  assert.match(hier.summary!, /^Task: I want to build everything that has been discussed in README\.md /m);
});

test('only most of a prompt said again is a repeat: a short request twice, or two prompts that share a heading, are said whole', () => {
  const template = (args: string, steps: string) => `## User Input\n\n\`\`\`text\n${args}\n\`\`\`\n\nYou MUST consider the user input before proceeding.\n\n${steps}`;
  const implement = Array.from({ length: 12 }, (_, i) => `${i + 1}. Run the step ${i + 1} of the implementation plan and mark it done in tasks.md.`).join('\n');
  const clarify = Array.from({ length: 12 }, (_, i) => `${i + 1}. Ask clarifying question ${i + 1} and record the answer in the spec file.`).join('\n');
  const run = trajectory((b) => {
    b.add({ kind: 'user', text: template('', implement) });
    b.add({ kind: 'assistant', text: 'Done.' });
    b.add({ kind: 'user', text: template('Phase 2', implement) });
    b.add({ kind: 'assistant', text: 'Done.' });
    b.add({ kind: 'user', text: template('', clarify) });
    b.add({ kind: 'assistant', text: 'Done.' });
    b.add({ kind: 'user', text: 'continue' });
    b.add({ kind: 'assistant', text: 'Done.' });
    b.add({ kind: 'user', text: 'continue' });
  });
  const facts = extractFacts(run, run.steps.map((s) => s.index));
  assert.deepEqual(facts.requests.map((r) => r.text.slice(0, 40)), [
    template('', implement).slice(0, 40), 'Phase 2 (in the prompt of step 0 again)', template('', clarify).slice(0, 40), 'continue', 'continue',
  ]);
});

test('openhands-summary says each file change and each failed edit once (COMPLETED and PENDING), on every corpus file and fixture', async () => {
  let changed = 0;
  for (const file of allRealFiles()) {
    let run: Run | undefined;
    try { run = (await loadTrajectory(file)).runs[0]; } catch { continue; }
    if (!run || run.steps.length < 4) continue;
    const r = await runCompaction(run, { strategy: findStrategy('openhands-summary')!, range: '0:-2' }, { counter: charEstimateCounter });
    const lines = r.summary!.split('\n').filter((l) => /^ {2}- (?:(?:created|edited|deleted|renamed)(?: and \w+)* |edit of )/.test(l));
    changed += lines.length;
    const twice = lines.filter((l, i) => lines.indexOf(l) !== i);
    assert.deepEqual(twice, [], `${file}: said twice`);
    if (/\nCOMPLETED:\n {2}- (?:created|edited) /.test(r.summary!)) assert.match(r.summary!, /CHANGES:\n(?: {2}- .*\n)*? {2}- files: the (?:one|\d+) under COMPLETED\n/, file);
  }
  assert.ok(changed > 20, `the corpus has file changes to say (${changed})`);
});

test("claude-code-compact: the plan's finished items are work done (5), not Pending Tasks (7)", async () => {
  const t = trajectory((b) => {
    b.add({ kind: 'user', text: 'Port the invoice and refund jobs.' });
    call(b, 'TodoWrite', { todos: [{ content: 'Port the invoice job', status: 'completed', activeForm: 'Porting' }, { content: 'Port the refund job', status: 'in_progress', activeForm: 'Porting' }] }, 'Todos have been modified successfully.');
    b.add({ kind: 'assistant', text: 'Invoice job ported; refund next.' });
  });
  const r = await runCompaction(t, { strategy: findStrategy('claude-code-compact')!, range: '1:-2' }, { counter: charEstimateCounter });
  const section = (n: number) => new RegExp(`\\n${n}\\. [^\\n]*\\n((?: {2}- .*\\n?)*)`).exec(r.summary!)?.[1] ?? '';
  assert.match(section(7), /Port the refund job \[in_progress\]/, r.summary!);
  assert.doesNotMatch(section(7), /invoice/, r.summary!);
  assert.match(section(5), /Port the invoice job \[completed\]/, r.summary!);
});

test("katalyst-chat's Technical setup holds what changed the setup: a commit, not git status or git diff", async () => {
  const t = trajectory((b) => {
    b.add({ kind: 'user', text: 'Commit the parser fix.' });
    call(b, 'Bash', { command: 'git status --short' }, ' M src/parse.py');
    call(b, 'Bash', { command: 'git diff --stat' }, ' src/parse.py | 2 +-');
    call(b, 'Bash', { command: 'git commit -am "parse commas"' }, '[main 1a2b3c4] parse commas');
    b.add({ kind: 'assistant', text: 'Committed.' });
  });
  const r = await runCompaction(t, { strategy: findStrategy('katalyst-chat')!, range: '1:-2' }, { counter: charEstimateCounter });
  const setup = /\n6\. Technical setup:[^\n]*\n((?: {2}- .*\n?)*)/.exec(r.summary!)?.[1] ?? '';
  assert.match(setup, /git commit -am/, r.summary!);
  assert.doesNotMatch(setup, /git status|git diff/, r.summary!);
});

test('the OpenHands resolver\'s wrapper around an issue is the harness\'s: the task is the issue, and its rules are not the person\'s', async () => {
  // Real output.jsonl of the 2024 resolver (test/fixtures/SOURCES.md): "Please fix the following
  // issue… # Problem Statement <issue body> IMPORTANT: You should ONLY interact… NEVER ASK FOR HUMAN HELP."
  const run = (await loadTrajectory(fixture('openhands-eval/resolver-output.jsonl'))).runs[0];
  assert.equal(taskOf(run.steps)?.text, 'We can license this repo under the MIT license.');
  const facts = extractFacts(run, run.steps.map((s) => s.index));
  assert.deepEqual(facts.constraints.map((c) => c.text), [], 'the suffix every task gets binds no one');
});

test('a Python test class is no Go test: "ERROR at setup of TestIntegration.test_flow" names one test, not two', () => {
  const pasted = [
    '_____________ ERROR at setup of TestIntegration.test_basic_nl_flow _____________',
    'ERROR tests/test_integration.py::TestIntegration::test_basic_nl_flow - Module...',
    '--- FAIL: TestParse/empty (0.00s)',
  ].join('\n');
  const tests = userRefsOf(pasted).filter((r) => (r.kind as string) === 'test').map((r) => r.text);
  assert.deepEqual(tests, ['tests/test_integration.py::TestIntegration::test_basic_nl_flow', 'TestParse/empty']);
});

test('Terminus 2\'s prompt around the task is the harness\'s: the task is its "Task Description", its rules bind no one', () => {
  const prompt = [
    'You are an AI assistant tasked with solving command-line tasks in a Linux environment. You will be given a task description and the output from previously executed commands.',
    '', 'IMPORTANT: The text inside "keystrokes" will be used completely verbatim as keystrokes.',
    '- You must end every command with a newline (\\n) or it will not execute.',
    'Never wait longer than 60 seconds; prefer to poll to see intermediate result status.',
    '', 'Task Description:', 'Create a file called hello.txt with "Hello, world!" as the content. Do not use sudo.',
    '', 'Current terminal state:', 'Current Terminal Screen:', 'root@box:/app# ',
  ].join('\n');
  const run = builtRun((b) => { b.add({ kind: 'user', text: prompt }); b.add({ kind: 'assistant', text: 'On it.' }); }, 'atif');
  assert.equal(taskOf(run.steps)?.text, 'Create a file called hello.txt with "Hello, world!" as the content. Do not use sudo.');
  const facts = extractFacts(run, run.steps.map((s) => s.index));
  assert.deepEqual(facts.constraints.map((c) => c.text), ['Do not use sudo.'], 'the task\'s own rule, not the harness\'s');
});
