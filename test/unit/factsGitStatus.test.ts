import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { test } from 'node:test';
import { findStrategy, runCompaction } from '../../src/core/compaction';
import { extractFacts } from '../../src/core/compaction/facts/facts';
import { gitStatusGist } from '../../src/core/compaction/facts/gitStatus';
import { loadTrajectory } from '../../src/core/open';
import { charEstimateCounter } from '../../src/core/tokens/counter';
import { REPO_ROOT } from '../helpers/paths';

// A person taking over a run asks of `git status` what branch, where it stands against its
// upstream, and what is changed; its first line alone ("On branch …") said only the first. A few
// changed files are named (which file is what the person checks next); more are counted.

test('a summary tells `git status` by branch, upstream and what is changed', async () => {
  const file = path.join(REPO_ROOT, 'wild', 'files', 'randlee__claude-history', 'agents', 'agent-aae161c.jsonl');
  const run = (await loadTrajectory(file)).runs[0];
  const summary = (await runCompaction(run, { strategy: findStrategy('openhands-summary')!, range: '0:-2' }, { counter: charEstimateCounter })).summary ?? '';
  assert.match(summary, /git status \(→ On branch feature\/phase8-integration-tests · up to date · modified: src\/cmd\/export_manifest_test\.go, src\/cmd\/export_testhelpers_test\.go; untracked: src\/full-test-results\.txt\)/);
});

test('git status, long and short, and what a checkout says of the branch', () => {
  const diverged = "On branch next\nYour branch and 'origin/next' have diverged,\nand have 2 and 5 different commits each, respectively.\n  (use \"git pull\" to merge the remote branch into yours)\n\nChanges to be committed:\n\tnew file:   a.go\n\nChanges not staged for commit:\n  (use \"git add <file>...\" to update what will be committed)\n\tmodified:   b.go\n\tdeleted:    c.go\n\nUntracked files:\n  (use \"git add <file>...\" to include in what will be committed)\n\tnotes.txt\n\nno changes added to commit (use \"git add\" and/or \"git commit -a\")\n";
  assert.equal(gitStatusGist(diverged), "On branch next · Your branch and 'origin/next' have diverged and have 2 and 5 different commits each · added: a.go; modified: b.go; deleted: c.go; untracked: notes.txt");
  assert.equal(gitStatusGist("On branch main\nYour branch is ahead of 'origin/main' by 3 commits.\n  (use \"git push\" to publish your local commits)\n\nnothing to commit, working tree clean\n"), "On branch main · Your branch is ahead of 'origin/main' by 3 commits · nothing to commit, working tree clean");
  assert.equal(gitStatusGist(' M src/a.ts\n?? b.txt\nA  c.ts\nD  d.ts\n'), 'modified: src/a.ts; untracked: b.txt; added: c.ts; deleted: d.ts');
  // `-sb` heads the short format with the branch and its upstream.
  assert.equal(gitStatusGist('## main...origin/main [ahead 2]\n M src/a.ts\n'), '## main...origin/main [ahead 2] · modified: src/a.ts');
  assert.equal(gitStatusGist('## main\n'), '## main');
  assert.equal(gitStatusGist('## No commits yet on main\n?? a.txt\n'), '## No commits yet on main · untracked: a.txt');
  // A markdown heading is not a branch.
  assert.equal(gitStatusGist('## Usage notes\n'), undefined);
  // Four of a kind are counted, not named.
  assert.equal(gitStatusGist('?? a\n?? b\n?? c\n?? d\n M e.ts\n'), '4 untracked; modified: e.ts');
  assert.equal(gitStatusGist("Switched to branch 'next'\nYour branch is up to date with 'origin/next'.\n"), "Switched to branch 'next' · up to date");
  assert.equal(gitStatusGist('fatal: not a git repository (or any of the parent directories): .git\n'), undefined);
});

test('a script that checks out a branch among other commands says where the branch stands; one that logs first keeps the commit', async () => {
  const wild = (rel: string) => path.join(REPO_ROOT, 'wild', 'files', rel);
  // JanDeDobbeleer/oh-my-posh: `git branch -f next tmp-fixup`, `git checkout next`, `git branch -D …`, `git log` in one call.
  const posh = (await loadTrajectory(wild('JanDeDobbeleer__oh-my-posh/full.jsonl'))).runs[0];
  const fixup = extractFacts(posh, [716]).commands[0];
  assert.match(fixup.outcome, /→ Switched to branch 'next' · Your branch and 'origin\/next' have diverged and have 4 and 4 different commits each/, fixup.outcome);
  // google-gemini/gemini-cli: `git log -n 1 && git status` says the commit, then the tree.
  const gemini = (await loadTrajectory(wild('google-gemini__gemini-cli/trajectory.json'))).runs[0];
  const verify = extractFacts(gemini, [142]).commands[0];
  assert.match(verify.outcome, /commit 59153cc1c528e5b393cad0bf13f69d59aa9daa0c .* · On branch ntm\/agentteamscli · nothing to commit, working tree clean/, verify.outcome);
});
