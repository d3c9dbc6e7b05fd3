import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { test } from 'node:test';
import { extractFacts, filesChanged, findStrategy, runCompaction } from '../../src/core/compaction';
import { constraintsOf, userRefsOf } from '../../src/core/compaction/facts/requests';
import { loadTrajectory } from '../../src/core/open';
import { extractEntities } from '../../src/core/report/entities';
import { charEstimateCounter } from '../../src/core/tokens/counter';
import { REPO_ROOT } from '../helpers/paths';

// What the eighth batch of dev labels showed (session 42: four runs new to the wild-log set, four
// dev runs labelled for entities for the first time): a reasoning model's thinking lost by the
// mini-swe-agent reader, Codex's image wrapper read as a second request, paths with escaped
// spaces cut at the space, folders taken for files, Chinese rules unread, a write counted failed
// because its file is called `reproduce_error.py`, and budget-schema dropping files changed to fit.

const wild = (rel: string) => path.join(REPO_ROOT, 'wild', 'files', rel);
const runOf = async (file: string) => (await loadTrajectory(file)).runs[0];
const entitiesOf = async (file: string) => {
  const run = await runOf(file);
  return extractEntities(run, run.steps.map((s) => s.index));
};

const PVLIB = wild('SWE-agent__mini-swe-agent/pvlib__pvlib-python-1072.traj.json');

test('mini-swe-agent 2: the thinking a reasoning model sends beside its tool calls is a thought step, not lost', async () => {
  // deepseek-reasoner through litellm: every assistant message has empty `content` and its text in `reasoning_content`.
  const run = await runOf(PVLIB);
  const thoughts = run.steps.filter((s) => s.kind === 'thought');
  assert.equal(thoughts.length, 15);
  assert.match(thoughts[0].text, /^I'll start by exploring the codebase/);
  assert.ok(thoughts.every((s) => s.label === 'reasoning'));
  // No empty assistant step stands in for a reply that only thought and called a tool.
  assert.equal(run.steps.filter((s) => s.kind === 'assistant' && s.text.trim() === '').length, 0);
});

test('mini-swe-agent 2: a command that timed out and a run that ended on an exception are errors, each told by its own message', async () => {
  const run = await runOf(PVLIB);
  // The log keeps `returncode: -1` and `exception_info` beside the output: the status is read from them.
  const timedOut = run.steps.filter((s) => s.kind === 'tool_result' && s.exitCode === -1);
  assert.equal(timedOut.length, 2);
  assert.ok(timedOut.every((s) => s.isError));
  const exit = run.steps[run.steps.length - 1];
  assert.equal(exit.isError, true);
  const errors = (await entitiesOf(PVLIB)).filter((e) => e.kind === 'error').map((e) => e.text);
  // Two timeouts whose messages differ only at the end stay two: the middle (the docker command) is cut, not the end.
  assert.ok(errors.some((e) => /^An error occurred while executing the command: .* … .*pip install numpy pandas.*timed out after 60 seconds$/.test(e)), errors.join('\n'));
  assert.ok(errors.some((e) => /conda install -y numpy pandas.*timed out after 60 seconds$/.test(e)), errors.join('\n'));
  // The exception named with its message, not the harness's "Run ended: InternalServerError".
  assert.ok(errors.some((e) => e.startsWith('InternalServerError: InternalServerError: DeepseekException - [SSL: UNEXPECTED_EOF_WHILE_READING]')), errors.join('\n'));
  assert.ok(!errors.includes('Run ended: InternalServerError'));
});

test("a file written through the shell stays written when a later command fails in a file called `…_error.py`", async () => {
  // `cat > reproduce_error.py << 'EOF' … EOF` then `python reproduce_error.py`, which fails on a missing numpy:
  // the traceback names reproduce_error.py, and the word "error" in its name is not a complaint about the write.
  const run = await runOf(PVLIB);
  const facts = extractFacts(run, run.steps.map((s) => s.index));
  assert.ok(filesChanged(facts).some((c) => c.file === '/testbed/reproduce_error.py'), JSON.stringify(filesChanged(facts)));
  const entities = await entitiesOf(PVLIB);
  assert.ok(entities.some((e) => e.kind === 'file' && e.text === '/testbed/reproduce_error.py'));
  // A traceback's line in code that has no file is nowhere to look; the library's own line is.
  const ids = entities.filter((e) => e.kind === 'identifier').map((e) => e.text);
  assert.ok(ids.includes('line 602'));
  assert.ok(!ids.includes('line 2'), ids.join(', '));
});

test("Codex: an attached image is one request, named as the person's text names it, and its number is no issue id", async () => {
  // tomjnsn/agentlogs: `<image name=[Image #1]>`, the image, `</image>` and the text, then the event copy without the image.
  const file = wild('tomjnsn__agentlogs/images.jsonl');
  const run = await runOf(file);
  const users = run.steps.filter((s) => s.kind === 'user');
  assert.deepEqual(users.map((s) => s.text.split('\n').pop()), ['why does the claude code label break here on the /team dashboard? [Image #1]', 'lets increase the width', 'commit']);
  assert.equal(users[0].text, '[Image #1]\nwhy does the claude code label break here on the /team dashboard? [Image #1]');
  assert.ok(!(await entitiesOf(file)).some((e) => e.text === '#1'));
  assert.deepEqual(userRefsOf('see [Pasted text #2 +31 lines] and #42').map((r) => r.text), ['#42']);
  // Codex's freeform apply_patch carries its patch as text: the line it put in is said.
  const r = await runCompaction(run, { strategy: findStrategy('openhands-summary')!, range: '0:-2' }, { counter: charEstimateCounter });
  assert.match(r.summary!, /edited packages\/web\/src\/routes\/_app\/app\/team\/index\.tsx \(adds width=\{120\}\)/);
  assert.doesNotMatch(r.summary!, /<image name=/);
  assert.equal((r.summary!.match(/why does the claude code label break/g) ?? []).length, 1, 'the request once, not again as a later request');
});

test('a path with escaped spaces is one file, and a browser REPL\'s code is no shell command', async () => {
  // codemie-ai/codemie-code: `sed -n '40,180p' /Users/…/Sample\ BiS\ SampleProject.ai\ Demo\ Prep.vtt`, and Codex's `js` tool.
  const entities = await entitiesOf(wild('codemie-ai__codemie-code/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl'));
  const files = entities.filter((e) => e.kind === 'file').map((e) => e.text);
  assert.ok(files.includes('/Users/Sample_User/Downloads/Sample BiS SampleProject.ai Demo Prep.vtt'), files.join('\n'));
  assert.ok(!files.includes('Prep.vtt'));
  const commands = entities.filter((e) => e.kind === 'command').map((e) => e.text);
  assert.ok(!commands.some((c) => /globalThis|tab\.goto/.test(c)), commands.join('\n'));
});

test("Copilot CLI's view of a folder is a listing, not a file read; Chinese rules are read as rules", async () => {
  // Mai0313/VibeCodingTracker: `view` of the repository, `src` and `.github` prints their entries, one name a line.
  const entities = await entitiesOf(wild('Mai0313__VibeCodingTracker/copilot.jsonl'));
  assert.deepEqual(entities.filter((e) => e.kind === 'file').map((e) => e.text), ['/home/wei/repo/VibeCodingTracker/Cargo.toml']);
  // The person's two rules, typed with spaces for pauses and no full stops.
  assert.deepEqual(entities.filter((e) => e.kind === 'constraint').map((e) => e.text), ['請不要修改任何代碼', '不要產生代碼或編輯代碼']);
  // A rule and its reason with only a pause between them are one rule; a question is none.
  assert.deepEqual(constraintsOf('請幫我將上面確保執行時要透過 uv run 來執行 避免環境有問題'), ['請幫我將上面確保執行時要透過 uv run 來執行 避免環境有問題']);
  assert.deepEqual(constraintsOf('必須要改這個檔案嗎？'), []);
  assert.deepEqual(constraintsOf('Do not edit the tests. 不要修改測試'), ['Do not edit the tests.', '不要修改測試']);
});

test('budget-schema keeps every file changed when it must drop lines to fit: the oldest other items go first', async () => {
  // superelastic/claude-session-memory-template: a Claude Code session that changed nine files.
  const run = await runOf(wild('superelastic__claude-session-memory-template/20260208_0009_10ba45e7.jsonl'));
  const changed = filesChanged(extractFacts(run, run.steps.slice(0, -2).map((s) => s.index)));
  assert.ok(changed.length >= 8);
  // At 3,500 characters the oldest items of the longest list went first, and those were the files changed.
  const r = await runCompaction(run, { strategy: findStrategy('budget-schema')!, range: '0:-2', options: { summary_max_chars: 3500 } }, { counter: charEstimateCounter });
  assert.ok(r.summary!.length <= 3500, `${r.summary!.length} characters`);
  assert.match(r.summary!, /later request: commit this/);
  for (const c of changed) assert.ok(r.summary!.includes(c.file), `${c.file} missing:\n${r.summary}`);
});
