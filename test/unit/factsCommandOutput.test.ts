import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { test } from 'node:test';
import { findStrategy, runCompaction } from '../../src/core/compaction';
import { listingOf, recordLineOf, tellingOutputLine, twoLineOutput } from '../../src/core/compaction/facts/outcomes';
import { loadTrajectory } from '../../src/core/open';
import { charEstimateCounter } from '../../src/core/tokens/counter';
import { REPO_ROOT } from '../helpers/paths';

// `ls -la` opens with `total 8`: a summary that told a listing by its first line said nothing of
// what the folder held (randlee/claude-history's worktree sub-agent, labelled blind in session 37).

test('a long listing is told by the names it holds, folders marked, not by `total 8`', async () => {
  const file = path.join(REPO_ROOT, 'wild', 'files', 'randlee__claude-history', 'subagents', 'agent-a53b173.jsonl');
  const run = (await loadTrajectory(file)).runs[0];
  const summary = (await runCompaction(run, { strategy: findStrategy('langchain-summarization')!, range: '0:-2' }, { counter: charEstimateCounter })).summary ?? '';
  // The mkdir changed the environment: it is written whole, with what the listing after it showed.
  assert.match(summary, /mkdir -p \/Users\/randlee\/Documents\/github\/claude-history-worktrees && ls -la \/Users\/randlee\/Documents\/github\/claude-history-worktrees \(→ feature\/, worktree-tracking\.md\)/);
  assert.match(summary, /ls -la \/Users\/randlee\/Documents\/github\/claude-history-worktrees\/feature\/phase10-chrome \| head -20 \(→ \.git, \.github\/, \.gitignore, \.golangci\.yml and 7 more\)/);
  assert.ok(!/\(→ total \d+\)/.test(summary), summary);
});

test('listing names after the date as macOS, GNU (--full-time) and BSD print it; not a listing, no names', () => {
  const mac = 'total 16\ndrwxr-xr-x  4 u staff 1024 Feb  1 14:24 .\ndrwxr-xr-x  3 u staff   96 Feb  1 14:24 ..\n-rw-r--r--  1 u staff 2048 Jan  3  2025 notes with space.md\nlrwxr-xr-x  1 u staff   10 Feb  2 10:00 link -> target\n';
  assert.equal(listingOf(mac), 'notes with space.md, link');
  assert.equal(listingOf('total 8\ndrwxr-xr-x 2 root root 4096 2026-02-01 14:24:05.123456789 +0000 src\n-rw-r--r-- 1 root root 12 2026-02-01 14:24:05.123456789 +0000 a.txt\n'), 'src/, a.txt');
  assert.equal(listingOf('total 0\n'), 'empty');
  assert.equal(listingOf('ls: cannot access foo: No such file or directory\n'), undefined);
});

test("a script that ran through is told by the error it reported, not by its last line; a report of no error is none", () => {
  // MQFacultyOfArts/PromptGrimoireTool: a Playwright check run with `uv run python`, exit 0.
  const printed = "Page error: Cannot read properties of undefined (reading 'addEventListener')\nLabel text: No selection\nConsole messages:\n  Selection made: This is a sample conversation\n  Mouseup dispatched\n";
  assert.equal(tellingOutputLine(printed), "Page error: Cannot read properties of undefined (reading 'addEventListener')");
  assert.equal(tellingOutputLine('Build errors: none\nwrote dist/app.js\n'), 'wrote dist/app.js');
  // A verdict line still says more than an error met on the way.
  assert.equal(tellingOutputLine('Request error: timeout, retrying\nAll tests passed\n'), 'All tests passed');
});

test('a tracker command that closed two things records both', () => {
  // marot/spotter: `bd close spotter-4te.6 && bd close spotter-4te` closes a task and its epic.
  assert.equal(recordLineOf('✓ Closed spotter-4te.6: Closed\n✓ Closed spotter-4te: Closed\n'), '✓ Closed spotter-4te.6: Closed · ✓ Closed spotter-4te: Closed');
  assert.equal(recordLineOf('✓ Created issue owner/repo#12\nhttps://github.com/owner/repo/issues/12\n'), '✓ Created issue owner/repo#12');
});

test("a command's output of two short lines is told whole; katalyst-tools keeps what changed the repository before what reads showed", async () => {
  // randlee/claude-history's worktree sub-agent: `git worktree add -b …` prints "HEAD is now at …"
  // and "Preparing worktree (new branch 'feature/phase10-chrome')": the second names the branch made.
  const file = path.join(REPO_ROOT, 'wild', 'files', 'randlee__claude-history', 'subagents', 'agent-a53b173.jsonl');
  const run = (await loadTrajectory(file)).runs[0];
  const summary = (await runCompaction(run, { strategy: findStrategy('openhands-summary')!, range: '0:-2' }, { counter: charEstimateCounter })).summary ?? '';
  assert.match(summary, /develop \(→ HEAD is now at 38a1d24 docs: update Phase 10 Wave 2 completion status · Preparing worktree \(new branch 'feature\/phase10-chrome'\)\)/, summary);
  // Katalyst's group has the room of its last three calls: the worktree it made stays, a date it printed may go.
  const katalyst = (await runCompaction(run, { strategy: findStrategy('katalyst-tools')!, range: '0:-2' }, { counter: charEstimateCounter })).summary ?? '';
  assert.match(katalyst, /git worktree add -b feature\/phase10-chrome/, katalyst);
  assert.equal(twoLineOutput('one\ntwo\n'), 'one · two');
  assert.equal(twoLineOutput('one\n'), undefined);
  assert.equal(twoLineOutput('one\ntwo\nthree\n'), undefined);
  assert.equal(twoLineOutput(`${'a'.repeat(100)}\n${'b'.repeat(100)}`), undefined);
});

test('a test run that failed is told by its tally before its first error', async () => {
  // As a Claude Code session on PromptGrimoire had it (wild dev split, labelled in the long set): 19 of 21 passed.
  const { extractFacts } = await import('../../src/core/compaction/extract');
  const { builtRun, addCall } = await import('../helpers/builtRuns');
  const run = builtRun((b) => {
    b.add({ kind: 'user', text: 'Run the e2e tests.' });
    addCall(b, 'Bash', { command: 'uv run pytest tests/e2e/test_two_tab_sync.py -v 2>&1' }, [
      'Exit code 1', '============================= test session starts ==============================',
      'tests/e2e/test_two_tab_sync.py::test_typing FAILED', 'E   AssertionError: Locator expected to have text \'Hello\'',
      '=========================== short test summary info ============================',
      'FAILED tests/e2e/test_two_tab_sync.py::test_typing - AssertionError: Locator expected to have text \'Hello\'',
      '======================== 2 failed, 19 passed in 17.24s =========================',
    ].join('\n'));
    addCall(b, 'Bash', { command: 'python build.py' }, 'Exit code 1\nTraceback (most recent call last):\nValueError: bad config');
  });
  const facts = extractFacts(run, run.steps.map((s) => s.index));
  assert.match(facts.commands[0].outcome, /^exit 1: 2 failed, 19 passed in 17\.24s; .*AssertionError/, facts.commands[0].outcome);
  assert.match(facts.commands[1].outcome, /^exit 1: ValueError: bad config$/, 'a command that runs no tests has no tally');
});
