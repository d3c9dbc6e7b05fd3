import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { test } from 'node:test';
import { findStrategy, runCompaction } from '../../src/core/compaction';
import { reportOpening } from '../../src/core/compaction/facts/outcomes';
import { isShownText } from '../../src/core/model';
import { loadTrajectory } from '../../src/core/open';
import { extractEntities } from '../../src/core/report/entities';
import { charEstimateCounter } from '../../src/core/tokens/counter';
import { REPO_ROOT, writeTemp } from '../helpers/paths';

// What the seventh batch of dev labels (wild/split.json: dev) showed summaries leaving out: the
// files `git status` named, ATIF's message beside tool calls, the agent's hedged diagnosis, and
// the finished items a to-do list dropped.

const wild = (rel: string) => path.join(REPO_ROOT, 'wild', 'files', rel);
const runOf = async (file: string) => (await loadTrajectory(file)).runs[0];
const summaryOf = async (file: string, strategy: string, range = '0:-2') =>
  (await runCompaction(await runOf(file), { strategy: findStrategy(strategy)!, range }, { counter: charEstimateCounter })).summary ?? '';

test('ATIF: a message beside tool calls is text the person saw, and the summary states it', async () => {
  // OpenAgentsInc/openagents: a Claude Code run written as ATIF; the closing message comes with a Write call.
  const run = await runOf(wild('OpenAgentsInc__openagents/trajectory.json'));
  const saved = run.steps.find((s) => s.text.startsWith('The regex has been saved'))!;
  assert.equal(saved.kind, 'thought');
  assert.ok(isShownText(saved));
  // A run whose every message comes with calls: its state is the last of them, not "(no agent message)";
  // reasoning_content stays hidden reasoning.
  const file = writeTemp('shown.atif.json', JSON.stringify({
    schema_version: 'ATIF-v1.6', session_id: 's', agent: { name: 'a', version: '1' },
    steps: [
      { step_id: 1, source: 'user', message: 'Fix the tokenizer bug in parser.py' },
      { step_id: 2, source: 'agent', message: 'The tokenizer drops the last byte of every chunk, so I will patch the loop bound.', reasoning_content: 'Hidden: maybe it is the loop.',
        tool_calls: [{ tool_call_id: 'c1', function_name: 'bash', arguments: { command: 'sed -n 1,40p parser.py' } }],
        observation: { results: [{ source_call_id: 'c1', content: 'def tokenize(b):\n    return b[:-1]' }] } },
      { step_id: 3, source: 'agent', message: 'Patched the bound; the tests pass now.',
        tool_calls: [{ tool_call_id: 'c2', function_name: 'bash', arguments: { command: 'pytest -q' } }],
        observation: { results: [{ source_call_id: 'c2', content: '3 passed in 0.1s' }] } },
      { step_id: 4, source: 'user', message: 'thanks' },
    ],
  }));
  const summary = await summaryOf(file, 'openhands-summary', '0:-1');
  assert.match(summary, /CURRENT_STATE: Patched the bound; the tests pass now\./);
  assert.doesNotMatch(summary, /Hidden: maybe/);
});

test("a message's numbered list is no sentence end: the line that introduces it goes on with its first item", async () => {
  // OpenAgentsInc/openagents: "you'll need to either:" then "1. Create the `/app` directory …".
  const summary = await summaryOf(wild('OpenAgentsInc__openagents/trajectory.json'), 'rolling-summary');
  assert.match(summary, /you'll need to either: Create the `\/app` directory with write permissions first/, summary);
  assert.doesNotMatch(summary, /either: 1\./);
});

test('a command that changed the repository keeps its whole path: it is what a person would run again', async () => {
  // randlee/claude-history's worktree sub-agent: a 131-character `git worktree add`.
  const summary = await summaryOf(wild('randlee__claude-history/subagents/agent-a53b173.jsonl'), 'openhands-summary');
  assert.match(summary, /git worktree add -b feature\/phase10-chrome \/Users\/randlee\/Documents\/github\/claude-history-worktrees\/feature\/phase10-chrome develop/, summary);
  // A read keeps the short form: `cd …/feature/phase10-chrome && git status --short`.
  assert.match(summary, /checked: cd …\/feature\/phase10-chrome && git status --short/);
});

test("a file rewritten by `perl -i` is a file the run changed", async () => {
  // randlee/claude-history's lint sub-agent removes a helper with `perl -i -0777 -pe …
  // src/cmd/export_testhelpers_test.go`; its `git status` then lists both files as modified.
  const summary = await summaryOf(wild('randlee__claude-history/agents/agent-aae161c.jsonl'), 'katalyst-chat');
  const completed = /3\. Completed tasks:\n((?: {2}- .*\n)*)/.exec(summary)?.[1] ?? '';
  assert.match(completed, /edited src\/cmd\/export_testhelpers_test\.go/, summary);
  assert.match(completed, /edited src\/cmd\/export_manifest_test\.go/);
});

test('a file changed is said with the first line its latest edit put in, when that line is short', async () => {
  // JayFarei/opentraces: one Edit adds `def farewell(name: str) -> str:` under the greet helper.
  const summary = await summaryOf(wild('JayFarei__opentraces/claude-linear-edit-real-session.jsonl'), 'openhands-summary');
  assert.match(summary, /COMPLETED:\n {2}- edited \/workspace\/claude-real-edit-box\/project\/src\/app\.py \(adds def farewell\(name: str\) -> str:\)\n/, summary);
  // summarizing-session's 400 tokens keep the bare line: more files named beats one file's line.
  const session = await summaryOf(wild('JayFarei__opentraces/claude-linear-edit-real-session.jsonl'), 'summarizing-session');
  assert.match(session, /edited \/workspace\/claude-real-edit-box\/project\/src\/app\.py(?! \(adds)/);
});

test("git status's few changed files are named, many are counted", async () => {
  // chiphuyen/sniffly: "push to github"; git status shows README.md modified and 13 untracked files.
  const summary = await summaryOf(wild('chiphuyen__sniffly/fed8ce56-bc79-401f-a83e-af084253362f.jsonl'), 'openhands-summary');
  assert.match(summary, /git status \(→ On branch main · up to date · modified: README\.md; 13 untracked\)/);
});

test("the agent's hedged diagnosis is a decision the summaries keep", async () => {
  // dfinson/traceforge: writes are refused; the agent's thinking says why it thinks so.
  const file = wild('dfinson__traceforge/claude/demo_issue_tracker_contributing.jsonl');
  for (const id of ['openhands-summary', 'langchain-summarization']) {
    assert.match(await summaryOf(file, id), /This is likely a CodePlane orchestration issue\./, id);
  }
});

test('a to-do list that drops its finished items still counts them done; TASK_TRACKING is the list as the tool holds it', async () => {
  // d-kimuson/claude-code-viewer: `/init` on an empty folder; TodoWrite checks off four of five
  // items at step 21, then writes a list of the fifth alone at step 26.
  const file = wild('d-kimuson__claude-code-viewer/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl');
  const summary = await summaryOf(file, 'openhands-summary');
  const section = (name: string) => new RegExp(`${name}:\\n((?:  - .*\\n)*)`).exec(summary)?.[1] ?? '';
  assert.match(section('COMPLETED'), /task Analyze codebase structure and files \[completed\]/, summary);
  assert.match(section('COMPLETED'), /task Check for existing CLAUDE\.md, README\.md, or rule files \[completed\]/);
  assert.equal(section('TASK_TRACKING').trim(), '- Create CLAUDE.md with essential information [completed]');
  // The loss report's to-do items are the list as it stands.
  const run = await runOf(file);
  const todos = extractEntities(run, run.steps.map((s) => s.index)).filter((e) => e.kind === 'todo').map((e) => e.text);
  assert.deepEqual(todos, ['Create CLAUDE.md with essential information']);
});

test('openhands-structured counts finished items an earlier list dropped, even when the current list has none done', async () => {
  // The same run seen before its last item was done: its last TodoWrite (line 27) holds the fifth
  // item still pending, and the run changed no file (the write was refused).
  const lines = (await import('node:fs')).readFileSync(wild('d-kimuson__claude-code-viewer/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl'), 'utf8').split('\n');
  lines[26] = lines[26].replace(/"status":"completed"/g, '"status":"pending"');
  const file = writeTemp('ccviewer-last-list-pending.jsonl', lines.join('\n'));
  const summary = await summaryOf(file, 'openhands-structured');
  const completed = /\*\*Completed Tasks\*\*: (.*)/.exec(summary)?.[1] ?? '';
  assert.doesNotMatch(completed, /nothing finished/, summary);
  assert.match(completed, /Analyze codebase structure and files \[completed\]/);
  assert.doesNotMatch(completed, /Create CLAUDE\.md/, 'the pending item is not finished work');
});

test("a sub-agent's report is told by its heading, not the preamble about how it got there", async () => {
  // codemie-ai/codemie-code: both reports open "Perfect! Now I have a comprehensive …".
  const codemie = await summaryOf(wild('codemie-ai__codemie-code/session-9eda1058.jsonl'), 'openhands-summary');
  assert.match(codemie, /Task \("Explore codemie-code repository structure"\) → CodeMie Code Repository - Comprehensive Architectural Overview/);
  assert.doesNotMatch(codemie, /→ Perfect!/);
  // A heading of a word or two names no finding: the line under it is said with it.
  assert.equal(reportOpening('Perfect! Now I understand the full pipeline.\n\n---\n\n## Summary\n\nThe SessionEnd hook never fires on exit.'), 'Summary: The SessionEnd hook never fires on exit.');
  // A result without such a preamble is told as before (by its first line).
  assert.equal(reportOpening('# Findings\nThe hook never fires.'), undefined);
  assert.equal(reportOpening('Let me check the file.'), undefined);
});

test('a web search is told by what it looked for and what its digest found, not by the echo of its query', async () => {
  // moredip/session-share: Claude Code's WebSearch result opens with
  // `Web search results for query: "…"`, a line of links as JSON, then the digest.
  const summary = await summaryOf(wild('moredip__session-share/0ccf1a04-1b4c-43b6-8aa5-79e41db43a68.jsonl'), 'openhands-summary', '0:-2');
  assert.match(summary, /WebSearch for "Thai yellow curry flavor profile description adjectives" → Flavor Profile: Thai yellow curry is mild and slightly sweet/, summary);
  assert.doesNotMatch(summary, /→ Web search results for query/);
  // The echo counts only as the call's own input: a line that merely mentions it further on is a finding.
  assert.equal(reportOpening('Web search results for query: "tokio runtime"\n\nLinks: [{"title":"x","url":"https://x"}]\n\nThe tokio runtime is multi-threaded by default.', ['tokio runtime']), 'The tokio runtime is multi-threaded by default.');
  assert.equal(reportOpening('The tokio runtime is multi-threaded by default.', ['tokio runtime']), undefined);
});
