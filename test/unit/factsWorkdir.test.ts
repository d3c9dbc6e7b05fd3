import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { test } from 'node:test';
import { findStrategy, runCompaction } from '../../src/core/compaction';
import { extractFacts, filesNotRead, filesRead } from '../../src/core/compaction/facts/facts';
import { constraintsOf, userRefsOf } from '../../src/core/compaction/facts/requests';
import { loadTrajectory } from '../../src/core/open';
import { extractEntities } from '../../src/core/report/entities';
import { charEstimateCounter } from '../../src/core/tokens/counter';
import { addCall, builtRun } from '../helpers/builtRuns';
import { REPO_ROOT } from '../helpers/paths';

// What four runs labelled blind in session 36 showed at their first measurement (issue 22): an
// agent that runs every command in a worktree (`cd /Users/…/phase8-integration-tests && …`), Go's
// test output, and a three-word rule.

const wild = (rel: string) => path.join(REPO_ROOT, 'wild', 'files', rel);
const WORKTREE = 'randlee__claude-history/agents/agent-aae161c.jsonl';

test('a command run in a long absolute folder is told by what ran there: the folder by its last two parts', async () => {
  const run = (await loadTrajectory(wild(WORKTREE))).runs[0];
  const summary = (await runCompaction(run, { strategy: findStrategy('langchain-summarization')!, range: '0:-2' }, { counter: charEstimateCounter })).summary ?? '';
  // Before, the folder took the line's room: `cd /Users/randlee/…/phase8-integration-tests && sed -n '180,200p' […]`.
  assert.match(summary, /cd …\/feature\/phase8-integration-tests && sed -n '180,200p' src\/internal\/export\/export_testhelpers_test\.go \(exit 1: sed: /);
  assert.match(summary, /cd …\/phase8-integration-tests\/src && golangci-lint run \.\/\.\.\. \(→ 0 issues\.\)/);
  assert.ok(!summary.includes('cd /Users/randlee/Documents/github/claude-history-worktrees/feature/phase8-integration-tests &&'));
});

test('the loss report lists each worktree command by what it ran, and the whole command stays with it', async () => {
  const run = (await loadTrajectory(wild(WORKTREE))).runs[0];
  const commands = extractEntities(run, run.steps.map((s) => s.index)).filter((e) => e.kind === 'command');
  const texts = commands.map((c) => c.text);
  for (const t of ['git push', 'git status', 'golangci-lint run ./...', "sed -n '180,200p' src/internal/export/export_testhelpers_test.go"]) assert.ok(texts.includes(t), `${t} in ${JSON.stringify(texts)}`);
  // Rows a reader can tell apart: none begins with the worktree's path any more.
  assert.ok(texts.every((t) => !t.startsWith('cd /Users/')), JSON.stringify(texts));
  const push = commands.find((c) => c.text === 'git push')!;
  assert.equal(push.whole, 'cd /Users/randlee/Documents/github/claude-history-worktrees/feature/phase8-integration-tests && git push');
  // The same command in two folders is two rows, told apart by the folder.
  const runs = (cmd: string) => extractEntities(builtRun((b) => {
    addCall(b, 'Bash', { command: `cd /home/u/projects/alpha/service && ${cmd}` }, 'ok');
    addCall(b, 'Bash', { command: `cd /home/u/projects/beta/service && ${cmd}` }, 'ok');
  }, 'claude-code'), [0, 1, 2, 3]).filter((e) => e.kind === 'command');
  const both = runs('make test');
  assert.equal(both.length, 2);
  assert.notEqual(both[0].text, both[1].text);
  // A short relative folder is part of the command (`cd myapp && python hoge.py`).
  const relative = extractEntities(builtRun((b) => { addCall(b, 'Bash', { command: 'cd myapp && python hoge.py' }, 'hi'); }, 'claude-code'), [0, 1]);
  assert.equal(relative.find((e) => e.kind === 'command')?.text, 'cd myapp && python hoge.py');
});

test("`go test ./...` is told by its packages: all ok, or which failed", () => {
  const t = builtRun((b) => {
    addCall(b, 'Bash', { command: 'cd src && go test ./...' }, 'ok  \tgithub.com/u/h/cmd\t0.412s\n?   \tgithub.com/u/h/internal/x\t[no test files]\nok  \tgithub.com/u/h/test_integration\t0.635s\n');
    addCall(b, 'Bash', { command: 'go test ./...' }, '--- FAIL: TestExport (0.00s)\n    export_test.go:12: bad\nFAIL\nFAIL\tgithub.com/u/h/cmd\t0.210s\nok  \tgithub.com/u/h/internal/y\t(cached)\nFAIL\n');
  }, 'claude-code');
  const tests = extractFacts(t, t.steps.map((s) => s.index)).tests;
  assert.equal(tests[0].outcome, '2 packages ok');
  assert.equal(tests[0].ok, true);
  assert.equal(tests[1].outcome, '1 of 2 packages failed: github.com/u/h/cmd');
  assert.equal(tests[1].ok, false);
  assert.deepEqual(tests[1].failing, ['TestExport']);
});

test('a three-word sentence is a rule when it binds the work', () => {
  // The task of two wild-log runs (dfinson/traceforge): "… Keep changes minimal."
  assert.deepEqual(constraintsOf('Add a `GET /tickets/{ticket_id}` endpoint to this FastAPI app.\n\nKeep changes minimal.'), ['Keep changes minimal.']);
  assert.deepEqual(constraintsOf('should be minimal'), []);
});

test('a command cut short says what the agent said it does, from the call itself', async () => {
  const run = (await loadTrajectory(wild(WORKTREE))).runs[0];
  const commands = extractFacts(run, run.steps.map((s) => s.index)).commands.map((c) => c.command);
  // Claude Code's Bash `description` beside a perl one-liner that no line can show whole.
  assert.ok(commands.some((c) => /^cd …\/feature\/phase8-integration-tests && perl -i -0777 -pe .*\[…\] \("Replace if\/else with switch using perl"\)$/.test(c)), JSON.stringify(commands));
  // A command shown whole needs no description ("Check git status" is not repeated).
  assert.ok(commands.includes('cd …/feature/phase8-integration-tests && git status'), JSON.stringify(commands));
});

test('a place in a file the person points at is an identifier the loss report checks', () => {
  // The sub-agent's task (randlee/claude-history): "1. **export_manifest_test.go:224** - staticcheck QF1003 …".
  const refs = userRefsOf('Lint errors to fix: 1. **export_manifest_test.go:224** - staticcheck QF1003 2. **export_testhelpers_test.go:189** - unused. See src/cmd/a.py:12, http://localhost:8080/x and 10:30.').map((r) => r.text);
  for (const id of ['export_manifest_test.go:224', 'export_testhelpers_test.go:189', 'src/cmd/a.py:12']) assert.ok(refs.includes(id), `${id} in ${JSON.stringify(refs)}`);
  // A port in a link is the link's; a time of day is no place in a file.
  assert.ok(!refs.some((r) => r === 'localhost:8080' || r.includes('10:30')), JSON.stringify(refs));
});

test("a sub-agent's run with no message of its own: the summary's current state is what it last stated between calls", async () => {
  const run = (await loadTrajectory(wild(WORKTREE))).runs[0];
  const summary = (await runCompaction(run, { strategy: findStrategy('openhands-summary')!, range: '0:-2' }, { counter: charEstimateCounter })).summary ?? '';
  // Before: "CURRENT_STATE: (no agent message in these steps)" over thirteen messages the agent wrote.
  assert.match(summary, /^CURRENT_STATE: The changes look correct\. Now let me stage and commit\.$/m);
  // Text that only says what comes next does not stand in ("Now let me use a Perl one-liner…").
  const facts = extractFacts(run, run.steps.slice(0, 31).map((s) => s.index));
  assert.equal(facts.lastAgentMessage?.text.startsWith('The sed command duplicated content.'), true, facts.lastAgentMessage?.text);
});

test('a commit is told by its hash, its message and what it holds', async () => {
  const run = (await loadTrajectory(wild(WORKTREE))).runs[0];
  const summary = (await runCompaction(run, { strategy: findStrategy('langchain-summarization')!, range: '0:-2' }, { counter: charEstimateCounter })).summary ?? '';
  assert.ok(summary.includes('[feature/phase8-integration-tests acf6ebb] fix(lint): resolve staticcheck and unused function warnings · 2 files changed, 3 insertions(+), 20 deletions(-)'), summary);
  // A push's record is one line; a commit's message is cut before its stat is.
  const long = `[main 1a2b3c4] ${'word '.repeat(60)}\n 1 file changed, 1 insertion(+)\n`;
  const t = builtRun((b) => { addCall(b, 'Bash', { command: 'git commit -am wip' }, long); }, 'claude-code');
  const outcome = extractFacts(t, [0, 1]).commands[0].outcome;
  assert.match(outcome, /^(?:exit 0 )?→ \[main 1a2b3c4\] (?:word ){20,}\[…\] · 1 file changed, 1 insertion\(\+\)$/);
});

test('a read the tool refused read nothing: the loss report lists no file for it, and a digest says it could not be read', async () => {
  // dfinson/traceforge: Claude Code's Read refused with `Tool permission request failed: ZodError` (is_error).
  const run = (await loadTrajectory(wild('dfinson__traceforge/claude/demo_issue_tracker_contributing.jsonl'))).runs[0];
  const files = extractEntities(run, run.steps.map((s) => s.index)).filter((e) => e.kind === 'file').map((e) => e.text);
  assert.ok(!files.some((f) => /README\.md$|app\/main\.py$/.test(f)), JSON.stringify(files));
  assert.ok(files.some((f) => f.endsWith('CONTRIBUTING.md')), JSON.stringify(files));
  const summary = (await runCompaction(run, { strategy: findStrategy('rolling-summary')!, range: '0:-2' }, { counter: charEstimateCounter })).summary ?? '';
  assert.match(summary, /could not read \/home\/dave01\/wsl-repos\/codeplane-demos\/demo-issue-tracker-api\/README\.md/);
  assert.ok(!/(?<!not )read \/home\/dave01\/wsl-repos\/codeplane-demos\/demo-issue-tracker-api\/README\.md/.test(summary), summary);
});

test('a shell read that failed read nothing; one whose status is a later stage\'s may have', () => {
  // Codex records the exit status in the output's header (`Exit code: 1`).
  const t = builtRun((b) => {
    addCall(b, 'shell', { command: 'cat notes/missing.md' }, 'Exit code: 1\nOutput:\ncat: notes/missing.md: No such file or directory\n');
    addCall(b, 'shell', { command: 'cat app/config.py | grep DEBUG' }, 'Exit code: 1\nOutput:\n');
  }, 'codex');
  const facts = extractFacts(t, t.steps.map((s) => s.index));
  assert.deepEqual(filesRead(facts), ['app/config.py']);
  assert.deepEqual(filesNotRead(facts), ['notes/missing.md']);
});

test('a Codex run on Windows: PowerShell reads are reads, a file read after a failed read was read, and its patches are edits, not commands', async () => {
  // dfinson/traceforge's Codex rollout: `sed -n '1,200p' app/repository.py` fails (no sed), then
  // `Get-Content app\repository.py -Raw` reads it; four `applypatch << 'PATCH'` envelopes edit.
  const run = (await loadTrajectory(wild('dfinson__traceforge/codex/demo_issue_tracker_get_endpoint.jsonl'))).runs[0];
  const facts = extractFacts(run, run.steps.map((s) => s.index));
  for (const f of ['app/repository.py', 'app/service.py', 'app/main.py']) assert.ok(filesRead(facts).includes(f) || facts.edits.some((e) => e.file === f), `${f}: ${JSON.stringify(facts.reads)}`);
  assert.deepEqual(filesNotRead(facts), []);
  assert.equal(facts.commands.find((c) => c.command.startsWith('Get-Content'))?.effect, 'read');
  const entities = extractEntities(run, run.steps.map((s) => s.index));
  assert.ok(entities.some((e) => e.kind === 'file' && e.text === 'app/repository.py' && e.detail === 'read'), JSON.stringify(entities.filter((e) => e.kind === 'file')));
  assert.ok(!entities.some((e) => e.kind === 'command' && e.text.startsWith('applypatch')), 'a patch is told by the files it changed');
  assert.ok(entities.some((e) => e.kind === 'file' && e.text === 'app/service.py' && /edited/.test(e.detail ?? '')));
});

test("an editor's failure that records no error flag is told by its own message, even where a word of it reads like code", async () => {
  // OpenHands software-agent-sdk's litellm run (wild dev split): `create /workspace/hello.py` and
  // `view hello.py` fail in words only. The loss report said "edit of /workspace/hello.py failed".
  const run = (await loadTrajectory(wild('OpenHands__software-agent-sdk/litellm_proxy__anthropic__claude-sonnet-4-20250514-1757015046.707.json'))).runs[0];
  const errors = extractEntities(run, run.steps.map((s) => s.index)).filter((e) => e.kind === 'error').map((e) => e.text);
  assert.ok(errors.some((e) => e.startsWith("Ran into [Errno 2] No such file or directory: '/workspace/hello.py'")), errors.join('\n'));
  assert.ok(errors.some((e) => e.startsWith('Invalid `path` parameter: hello.py. The path should be an absolute path')), errors.join('\n'));
  assert.ok(!errors.includes('edit of /workspace/hello.py failed'), errors.join('\n'));
});
