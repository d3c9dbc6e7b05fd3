import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { test } from 'node:test';
import { classifyCall } from '../../src/core/compaction/facts/calls';
import { extractFacts } from '../../src/core/compaction/facts/facts';
import { constraintsOf } from '../../src/core/compaction/facts/requests';
import { loadTrajectory } from '../../src/core/open';
import { extractEntities } from '../../src/core/report/entities';
import type { Step } from '../../src/core/model';
import { fixture, REPO_ROOT } from '../helpers/paths';
import { loadRun } from '../helpers/runs';

// What the loss report and the summaries read from four long sessions that joined the wild-log
// set's dev part in session 34 (issue 22): their first measurement found these gaps.

const wild = (rel: string) => path.join(REPO_ROOT, 'wild', 'files', rel);
const call = (command: string): Step => ({ index: 0, kind: 'tool_call', text: '', turn: 1, tool: { name: 'exec_command', args: JSON.stringify({ cmd: command }) } });

test('what `cat`, `head` or `sed -n` is given is a file read, extension or not; a count is not', () => {
  assert.deepEqual(classifyCall(call("sed -n '1,220p' .git/hooks/post-commit")).reads, ['.git/hooks/post-commit']);
  assert.deepEqual(classifyCall(call('cat ~/.config/entire/contexts.json.lock 2>/dev/null; echo "lock status: $?"')).reads, ['~/.config/entire/contexts.json.lock']);
  assert.deepEqual(classifyCall(call('git ls-files .entire/ && cat .gitignore')).reads, ['.gitignore']);
  assert.deepEqual(classifyCall(call('head -n 50 Makefile')).reads, ['Makefile']);
  assert.deepEqual(classifyCall(call('tail -n 20 2')).reads, []);
});

test('two scripts that begin alike are two commands in the loss report, each with its whole text', async () => {
  // mini-swe-agent (wild dev split): `cat <<'EOF' > patch.py … python3 patch.py`, twice, with different bodies.
  const run = (await loadTrajectory(wild('gruckion__mini-swe-agent/sphinx-doc__sphinx-9229.traj.json'))).runs[0];
  const patches = extractEntities(run, run.steps.map((s) => s.index)).filter((e) => e.kind === 'command' && e.text.startsWith("cat <<'EOF' > patch.py … python3 patch.py"));
  assert.equal(patches.length, 2);
  assert.notEqual(patches[0].whole, patches[1].whole);
  assert.ok(patches.every((p) => p.whole!.startsWith("cat <<'EOF' > patch.py ") && p.whole!.endsWith('python3 patch.py')));
  // Shown apart: each row says where its script differs from the other.
  assert.notEqual(patches[0].text, patches[1].text);
  assert.match(patches[0].text, /^cat <<'EOF' > patch\.py … python3 patch\.py \(…\S.*…\)$/);
});

test("a harness's refusal of a reply is an error; a client's tool-use refusal is read inside its wrapper and its JSON", async () => {
  const sphinx = (await loadTrajectory(wild('gruckion__mini-swe-agent/sphinx-doc__sphinx-9229.traj.json'))).runs[0];
  assert.equal(sphinx.steps[27].kind, 'other');
  assert.equal(sphinx.steps[27].isError, true);
  assert.ok(extractFacts(sphinx, [27]).errors.some((e) => e.text.startsWith('Please always provide EXACTLY ONE action in triple backticks, found 2 actions.')));
  // Claude Code 2.1 (wild dev split): `<tool_use_error>InputValidationError: [ {…, "message": "Too small: …"} ]</tool_use_error>`.
  const omp = (await loadTrajectory(wild('JanDeDobbeleer__oh-my-posh/full.jsonl'))).runs[0];
  const facts = extractFacts(omp, omp.steps.map((s) => s.index));
  const errors = [...facts.errors, ...facts.moreErrors].map((e) => e.text);
  assert.ok(errors.includes('InputValidationError: Read was called with input that could not be parsed as JSON.'), errors.join('\n'));
  assert.ok(errors.includes('InputValidationError: Too small: expected array to have >=1 items'), errors.join('\n'));
  // git: a rebase that stopped on conflicts, a push the remote refused.
  assert.ok(errors.includes('CONFLICT (content): Merge conflict in src/segments/path.go'), errors.join('\n'));
  const codex = (await loadTrajectory(wild('EntityProcess__agentv/codex-full.jsonl'))).runs[0];
  const pushed = extractFacts(codex, codex.steps.map((s) => s.index));
  assert.ok([...pushed.errors, ...pushed.moreErrors].some((e) => e.text === '! [remote rejected] main -> main (push declined due to repository rule violations)'));
});

test("a skill Codex sends as a user message is not the person's request, and its rules are not the person's constraints", async () => {
  const run = (await loadTrajectory(wild('EntityProcess__agentv/codex-full.jsonl'))).runs[0];
  const skill = run.steps.find((s) => s.label === 'skill: coordinator');
  assert.equal(skill?.kind, 'environment');
  const facts = extractFacts(run, run.steps.map((s) => s.index));
  assert.ok(!facts.constraints.some((c) => /Never edit source files directly/.test(c.text)), facts.constraints.map((c) => c.text).join('\n'));
});

test("a constraint is read in a list item, after a clause, under a condition, and in the person's decisions", () => {
  // A Codex slash-command prompt (wild/files/EdofEngland__code_butler) and a Claude Code session's
  // answers (wild/files/Durban-Designer__vsla), both labelled blind in session 35.
  const spec = [
    'Purpose: run a single ButlerSpec file with strict guardrails; never replan or modify other files.',
    '- If the file is missing or unreadable, respond with `Error: spec file not found or unreadable` and stop.',
    '- Apply only the specified actions to the `target_file`.',
    '- No speculative edits, no formatting sweeps, no new files, no code fences.',
    '- Never rewrite the spec file.',
  ].join('\n');
  assert.deepEqual(constraintsOf(spec), [
    'Purpose: run a single ButlerSpec file with strict guardrails; never replan or modify other files.',
    'If the file is missing or unreadable, respond with `Error: spec file not found or unreadable` and stop.',
    'Apply only the specified actions to the `target_file`.',
    'No speculative edits, no formatting sweeps, no new files, no code fences.',
    'Never rewrite the spec file.',
  ]);
  assert.deepEqual(constraintsOf('1. CPU and CUDA are mandatory, AMD is high priority. 2. I would much prefer MIT license alternatives where possible.'),
    ['CPU and CUDA are mandatory, AMD is high priority.', 'I would much prefer MIT license alternatives where possible.']);
  assert.deepEqual(constraintsOf('And lets go with the latest C release that works everywhere'), ['And lets go with the latest C release that works everywhere']);
  // A description is not a rule: no errors found, a tentative thought, a condition without an instruction.
  assert.deepEqual(constraintsOf('No errors were found in the log.'), []);
  assert.deepEqual(constraintsOf('If the issue is only with the tests perhaps we need to simply remove a bunch of the old ones.'), []);
  assert.deepEqual(constraintsOf('If you run it twice, the cache is warm.'), []);
});

test('a constraint is a rule in the request: not a question without its mark, not code in a fence', () => {
  assert.deepEqual(constraintsOf('so then should agentv evaluate using the transcript / session. also should agentv prepare send the import prompt.'), []);
  assert.deepEqual(constraintsOf("shouldn't this be added to an existing commit?"), []);
  assert.deepEqual(constraintsOf('review them for whether they align with agentv guidelines and we should work on them.'), []);
  assert.deepEqual(constraintsOf('Should not touch the tests at all.'), ['Should not touch the tests at all.']);
  assert.deepEqual(constraintsOf('```python\n"""Should be treated as immutable (if required, copy before changing)."""\n```\nYou must keep the public API stable.'), ['You must keep the public API stable.']);
});

test("a rejected push's errors are each told once: the rule with its reason, the rejected ref, git's own verdict", async () => {
  // Codex (wild dev split, agentv): `git push --force-with-lease` against a protected branch.
  const run = (await loadTrajectory(wild('EntityProcess__agentv/codex-full.jsonl'))).runs[0];
  const push = run.steps.find((s) => s.kind === 'tool_result' && s.text.includes('failed to push some refs'))!;
  const errors = extractEntities(run, run.steps.map((s) => s.index)).filter((e) => e.kind === 'error' && e.firstStep === push.index).map((e) => e.text);
  assert.equal(errors.filter((e) => e.includes("GH013")).length, 1, errors.join("\n"));
  assert.ok(errors.some((e) => e.includes('GH013') && e.endsWith('Cannot force-push to this branch')), errors.join('\n'));
  assert.ok(errors.some((e) => e.startsWith('! [remote rejected] main -> main')), errors.join('\n'));
  assert.ok(errors.includes("error: failed to push some refs to 'https://github.com/EntityProcess/agentv.git'"), errors.join('\n'));
});

test("the shell's own complaint in a command that went through is an error of the loss report", async () => {
  // Codex (wild dev split, agentv): a backquoted id in a message run as a command; the script went on.
  const run = (await loadTrajectory(wild('EntityProcess__agentv/codex-full.jsonl'))).runs[0];
  const errors = extractEntities(run, run.steps.map((s) => s.index)).filter((e) => e.kind === 'error').map((e) => e.text);
  assert.ok(errors.some((e) => e.startsWith('zsh:1: command not found: av-44n')), errors.filter((e) => e.startsWith('zsh')).join('\n'));
});

test('Windows paths: a Grep in one named file reads it, a shell command given `D:/…` reads it, and either slash names one file', async () => {
  // Claude Code on Windows (wild dev split, oh-my-posh): `Grep {path: "D:\\oh-my-posh\\src\\color\\palette.go"}`,
  // `grep -n "func FindStringMatch" -A 30 D:/oh-my-posh/src/regex/regex.go`, and a worktree's
  // load_test.go read as `D:/…/load_test.go` and written as `D:\…\load_test.go`.
  const run = (await loadTrajectory(wild('JanDeDobbeleer__oh-my-posh/full.jsonl'))).runs[0];
  const files = extractEntities(run, run.steps.map((s) => s.index)).filter((e) => e.kind === 'file').map((e) => e.text.replace(/\\/g, '/'));
  assert.ok(files.includes('D:/oh-my-posh/src/color/palette.go'), files.join('\n'));
  assert.ok(files.includes('D:/oh-my-posh/src/regex/regex.go'), files.join('\n'));
  const worktree = files.filter((f) => f.endsWith('agent-a407974e3874000da/src/config/load_test.go'));
  assert.equal(worktree.length, 1, worktree.join('\n'));
  assert.deepEqual(classifyCall(call('grep -n x src/**/*.go')).reads, []);
});

test("a script whose first line is `cd` into the workdir is listed by what it ran there, as `cd x && …` is", async () => {
  // oh-my-posh (wild dev split): "cd /d/oh-my-posh\ngit branch backup-before-fixup next\ngit rev-parse next backup-before-fixup".
  const run = (await loadTrajectory(wild('JanDeDobbeleer__oh-my-posh/full.jsonl'))).runs[0];
  const commands = extractEntities(run, run.steps.map((s) => s.index)).filter((e) => e.kind === 'command').map((e) => e.text);
  assert.ok(commands.some((c) => c.startsWith('git branch backup-before-fixup next')), commands.filter((c) => c.includes('backup-before-fixup')).join('\n'));
  assert.ok(!commands.some((c) => c.startsWith('cd /d/oh-my-posh git branch')), 'the cd line is not part of the command');
});

test('a read whose program could not open its file read nothing, and its complaint is an error, whatever the pipeline exits with', async () => {
  // Claude Code (wild dev split, randlee aae161c): `head -250 src/…/export_manifest_test.go | tail -50`
  // exits 0 (tail's status) and prints only head's complaint.
  const run = (await loadTrajectory(wild('randlee__claude-history/agents/agent-aae161c.jsonl'))).runs[0];
  const entities = extractEntities(run, run.steps.map((s) => s.index));
  assert.ok(entities.some((e) => e.kind === 'error' && e.text === 'head: src/internal/export/export_manifest_test.go: No such file or directory'), entities.filter((e) => e.kind === 'error').map((e) => e.text).join('\n'));
  assert.ok(!entities.some((e) => e.kind === 'file' && e.text.endsWith('src/internal/export/export_manifest_test.go')), 'a file that could not be opened was not read');
});

test('a command run many times keeps its first outcomes and its latest: the script that finally printed the flag says so', async () => {
  // EnIGMA (SWE-agent's CTF mode) ran `python decrypt.py` until it printed the flag.
  const run = await loadRun(fixture('swe-agent/enigma-babyencryption.traj'));
  const decrypt = extractEntities(run, run.steps.slice(0, -1).map((s) => s.index)).find((e) => e.kind === 'command' && e.text === 'python decrypt.py')!;
  assert.equal(decrypt.mentions, 4, 'four runs before the last, which printed the flag');
  assert.match(decrypt.detail!, /, → HTB\{l00k_47_y0u_r3v3rs1ng_3qu4710n5_c0ngr475\}$/, decrypt.detail);
  // An outcome holding a comma is one outcome, not two.
  assert.match(decrypt.detail!, /^failed: TypeError: integer argument expected, got float, /);
});
