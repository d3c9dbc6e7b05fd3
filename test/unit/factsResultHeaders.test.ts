import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { findStrategy, runCompaction } from '../../src/core/compaction';
import { commandEffect, shellSegments } from '../../src/core/compaction/facts/calls';
import { extractFacts } from '../../src/core/compaction/extract';
import { bounded, filesChanged, filesRead, messageLine, taskLine } from '../../src/core/compaction/facts';
import { errorOf } from '../../src/core/compaction/facts/outcomes';
import { errorSteps } from '../../src/core/find';
import { extractEntities } from '../../src/core/report/entities';
import type { Run } from '../../src/core/model';
import type { StepBuilder } from '../../src/core/steps';
import { charEstimateCounter } from '../../src/core/tokens/counter';
import { addCall, builtRun } from '../helpers/builtRuns';
import { fixture } from '../helpers/paths';
import { loadRun } from '../helpers/runs';

// What a summary reads out of a tool result when the log wraps the output in a header of its own
// (Codex's `Exit code: 1 / Wall time / Output:`, Kimi CLI's `<system>…</system>` status line), a
// patch sent through the shell, a read tool no table names, and the reply that ends the agent's
// turn. The texts are cut from real runs of the wild-log set's development part.

const trajectory = (build: (b: StepBuilder) => void): Run => builtRun(build, 'codex');
const call = addCall;

const all = (t: Run) => extractFacts(t, t.steps.map((s) => s.index));

test("Codex's result header is not the output: the error and what the test run printed come from after `Output:`", () => {
  const t = trajectory((b) => {
    b.add({ kind: 'user', text: 'Add a GET /tickets/{ticket_id} endpoint.' });
    call(b, 'shell_command', { command: "sed -n '1,200p' app/repository.py" },
      "Exit code: 1\nWall time: 1.6 seconds\nOutput:\nsed: \nLine |\n   2 |  sed -n '1,200p' app/repository.py\n     |  ~~~\n     | The term 'sed' is not recognized as a name of a cmdlet, function, script file, or executable program.\n");
    call(b, 'shell_command', { command: 'uv run -q pytest -q -k get_ticket' }, 'Exit code: 1\nWall time: 2.6 seconds\nOutput:\n\n10 deselected in 0.50s\n');
  });
  const facts = all(t);
  assert.ok(facts.errors.some((e) => /The term 'sed' is not recognized/.test(e.text)), JSON.stringify(facts.errors));
  assert.ok(!facts.errors.some((e) => /^Exit code/.test(e.text)), JSON.stringify(facts.errors));
  assert.match(facts.tests[0]?.outcome ?? '', /10 deselected/);
  assert.ok(facts.commands.every((c) => !/Exit code: 1/.test(c.outcome)), JSON.stringify(facts.commands));
});

test("a verdict framed by rules is told without them: the room goes to what it says", () => {
  // pytest's summary line, as a Claude Code session printed it (wild/files/MQFacultyOfArts__PromptGrimoireTool).
  const t = trajectory((b) => {
    b.add({ kind: 'user', text: 'Run the e2e tests.' });
    call(b, 'shell_command', { command: 'uv run pytest tests/e2e/test_two_tab_sync.py -v 2>&1' },
      'Exit code: 0\nWall time: 8 seconds\nOutput:\ncollected 21 items\n\n============================== 21 passed in 7.11s ==============================\n');
  });
  const facts = all(t);
  assert.equal(facts.commands[0].outcome, 'exit 0 → 21 passed in 7.11s');
  assert.match(facts.tests[0].outcome, /^21 passed in 7\.11s$/);
});

test("the shell's own complaint in a command that went through is told, and the command is still not an error", async () => {
  // A Codex session's `gh issue comment --body "… \`av-44n\` …"`: zsh ran the backquoted ids as
  // commands and the comment went up mangled, exit 0 (wild/files/EntityProcess__agentv/codex-full.jsonl).
  const t = trajectory((b) => {
    b.add({ kind: 'user', text: 'Update the issue with the new beads.' });
    call(b, 'shell_command', { command: 'gh issue comment 1263 --repo EntityProcess/agentv --body "Tracking is now in Beads: `av-44n`, `av-44n.1`"' },
      'Exit code: 0\nWall time: 1.2 seconds\nOutput:\nzsh:1: command not found: av-44n\nzsh:1: command not found: av-44n.1\nhttps://github.com/EntityProcess/agentv/issues/1263#issuecomment-1\n');
    call(b, 'shell_command', { command: 'ls' }, 'Exit code: 0\nWall time: 0.1 seconds\nOutput:\nREADME.md\n');
  });
  const facts = all(t);
  assert.match(facts.commands[0].outcome, /^exit 0 .*\(the shell said: zsh:1: command not found: av-44n \(and 1 more\)\)$/, facts.commands[0].outcome);
  assert.equal(facts.commands[0].ok, true, 'exit 0 and no error flag: the command went through');
  assert.deepEqual([...errorSteps(t.steps)], [], 'no step is an error');
  assert.equal(facts.commands[1].shellSaid, undefined);
  const r = await runCompaction(t, { strategy: findStrategy('langchain-summarization')!, range: '1:-1' }, { counter: charEstimateCounter });
  assert.match(r.summary!, /command not found: av-44n/);
});

test("a forge's rule violation is told with the reason listed under it", () => {
  // GitHub's push rules as a Codex session met them (wild/files/EntityProcess__agentv/codex-full.jsonl).
  const t = trajectory((b) => {
    b.add({ kind: 'user', text: 'Push the rewritten history.' });
    call(b, 'exec_command', { cmd: 'git push --force-with-lease origin main' }, [
      'Process exited with code 1', 'Output:',
      'remote: error: GH013: Repository rule violations found for refs/heads/main.        ',
      'remote: Review all repository rules at https://github.com/EntityProcess/agentv/rules?ref=refs%2Fheads%2Fmain        ',
      'remote: ', 'remote: - Cannot force-push to this branch        ', 'remote: ',
      'To https://github.com/EntityProcess/agentv.git', ' ! [remote rejected]   main -> main (push declined due to repository rule violations)',
      "error: failed to push some refs to 'https://github.com/EntityProcess/agentv.git'",
    ].join('\n'));
  });
  const facts = all(t);
  assert.equal(facts.errors[0]?.text, 'remote: error: GH013: Repository rule violations found for refs/heads/main: Cannot force-push to this branch');
  assert.equal(facts.commands[0].ok, false);
});

test("a failed call's message is its error even when it holds a word code uses", () => {
  // Claude Code's TaskOutput on an agent id it no longer knew (wild/files/moredip__session-share), flagged is_error.
  const result = { index: 28, turn: 1, kind: 'tool_result' as const, text: '<tool_use_error>No task found with ID: ac27727</tool_use_error>', isError: true };
  assert.equal(errorOf(result, true)?.text, 'No task found with ID: ac27727');
  // A line of code a failed call printed is still not its message.
  assert.equal(errorOf({ ...result, text: '    return self.cache[key]' }, true), undefined);
});

test("a diff a command printed is told by its file, its first hunk, its counts and its first added line", () => {
  // `git diff` in a Codex rollout (wild/files/EdofEngland__code_butler), after a docstring was added.
  const diff = ['Exit code: 0', 'Wall time: 0.1 seconds', 'Output:',
    'diff --git a/ai_clean/analyzers/advanced.py b/ai_clean/analyzers/advanced.py', 'index 1ba1796..e73b710 100644',
    '--- a/ai_clean/analyzers/advanced.py', '+++ b/ai_clean/analyzers/advanced.py', '@@ -50,6 +50,8 @@ def collect_advanced_cleanup_ideas(',
    '     runner: CodexPromptRunner,', ' ) -> list[Finding]:', '+    """Generate Codex-backed cleanup suggestions anchored to prior findings.', '+    """',
    '     advanced_config = config.analyzers.advanced'].join('\n');
  const t = trajectory((b) => {
    b.add({ kind: 'user', text: 'Execute the spec.' });
    call(b, 'shell_command', { command: 'git diff -- ai_clean/analyzers/advanced.py' }, diff);
  });
  assert.equal(all(t).commands[0].outcome, 'exit 0 → ai_clean/analyzers/advanced.py: @@ -50,6 +50,8 @@, +2 −0: Generate Codex-backed cleanup suggestions anchored to prior findings.');
});

test("a search for files says the few paths it found", () => {
  // The spec a Codex rollout had to find (wild/files/EdofEngland__code_butler).
  const t = trajectory((b) => {
    b.add({ kind: 'user', text: 'Execute a ButlerSpec.' });
    call(b, 'shell_command', { command: "find . -name '*.butler.yaml'" }, 'Exit code: 0\nWall time: 0.2 seconds\nOutput:\n./.ai-clean/specs/doc-missing_docstring-9f07755b-docstring-spec.butler.yaml\n');
    call(b, 'shell_command', { command: 'ls src' }, 'Exit code: 0\nWall time: 0.1 seconds\nOutput:\na.py\nb.py\nc.py\nd.py\n');
  });
  const [find, ls] = all(t).commands;
  assert.equal(find.outcome, 'exit 0 → ./.ai-clean/specs/doc-missing_docstring-9f07755b-docstring-spec.butler.yaml');
  assert.equal(ls.outcome, 'exit 0 → a.py, b.py, c.py and 1 more');
});

test("a result that opens with a bare status says the id it names on a later line", () => {
  // Claude Code's Task tool launching a background agent (wild/files/moredip__session-share).
  const t = trajectory((b) => {
    b.add({ kind: 'user', text: 'Spawn sub-agents to write poems.' });
    call(b, 'Task', { description: 'Poem about Thai green curry', prompt: 'Write a poem.' },
      'Async agent launched successfully.\nagentId: afbbf75 (internal ID - do not mention to user. Use to resume later if needed.)\nThe agent is working in the background.');
    call(b, 'Task', { description: 'Poem', prompt: 'Write.' }, 'Done.\nThe poem is in the file.');
  });
  const [launched, done] = all(t).outcomes;
  assert.equal(launched.said, 'Async agent launched successfully. agentId: afbbf75');
  assert.equal(done.said, 'Done.');
});

test("Kimi CLI's `<system>` status line is not the output: a command shows what it printed", () => {
  const t = trajectory((b) => {
    b.add({ kind: 'user', text: 'Fix the broken links.' });
    call(b, 'Shell', { command: "cd /repo && python3 - <<'PY'\nprint('x')\nPY" },
      '<system>Command executed successfully.</system>\nBROKEN: docs/e2e-ach.md -> [tasks/e2e.md](../tasks/e2e.md)\nBROKEN: docs/README.md -> [name](./other.md)\nTotal broken: 34\n');
    call(b, 'Shell', { command: 'cd /repo && ls tasks/ | grep -i e2e || echo "no specs/ppm dir"' }, '<system>Command executed successfully.</system>\nno specs/ppm dir\n');
    call(b, 'Shell', { command: 'ls -la /repo/data/xref/ 2>/dev/null' }, '<system>ERROR: Command failed with exit code: 1.</system>\ntotal 0\n');
  });
  const facts = all(t);
  assert.match(facts.commands[0].outcome, /Total broken: 34/);
  assert.match(facts.commands[1].outcome, /no specs\/ppm dir/);
  assert.equal(facts.commands[2].exitCode, 1);
  assert.equal(facts.commands[2].ok, false);
});

test('a patch sent through the shell (`applypatch << PATCH`) changes the files it names, and is a change', () => {
  const patch = "applypatch << 'PATCH'\n*** Begin Patch\n*** Update File: app/service.py\n@@\n+    def get_ticket(self, ticket_id: int) -> Ticket | None:\n*** End Patch\nPATCH";
  const failedPatch = "applypatch << 'PATCH'\n*** Begin Patch\n*** Update File: app/main.py\n@@\n+@app.get(\"/tickets/{ticket_id}\")\n*** End Patch\nPATCH";
  const t = trajectory((b) => {
    b.add({ kind: 'user', text: 'Add TicketService.get_ticket.' });
    call(b, 'shell_command', { command: patch }, 'Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM app/service.py\n');
    call(b, 'shell_command', { command: failedPatch }, 'apply_patch verification failed: Failed to find expected lines in C:\\tmp\\app\\main.py:\n@app.post("/tickets")');
  });
  const facts = all(t);
  assert.deepEqual(filesChanged(facts).map((c) => c.file), ['app/service.py']);
  assert.equal(commandEffect(patch), 'change');
  assert.ok(facts.errors.some((e) => /apply_patch verification failed/.test(e.text)), JSON.stringify(facts.errors));
});

test('a patch heredoc that lost its closing word is still one patch, as bash reads it: its file changed, no command in the loss report', () => {
  // bash runs a here-document with no closing line to the end of the script ("here-document at
  // line 1 delimited by end-of-file (wanted `PATCH')") and apply_patch gets the envelope.
  const open = "apply_patch << 'PATCH'\n*** Begin Patch\n*** Update File: opk/gui/main.py\n@@\n-    x = 1\n+    x = 2\n+    print(x); echo not a command && rm -rf build\n*** End Patch";
  const t = trajectory((b) => {
    b.add({ kind: 'user', text: 'Set x to 2.' });
    call(b, 'shell', { command: ['bash', '-lc', open] }, "bash: line 9: warning: here-document at line 1 delimited by end-of-file (wanted `PATCH')\nSuccess. Updated the following files:\nM opk/gui/main.py\n");
    call(b, 'shell', { command: ['bash', '-lc', 'cat <<< "hello" && echo $((1 << 2))\nls build'] }, 'hello\n4\nmain.o\n');
  });
  const facts = all(t);
  assert.deepEqual(filesChanged(facts).map((c) => c.file), ['opk/gui/main.py']);
  assert.equal(shellSegments(open).length, 1);
  const commands = extractEntities(t, t.steps.map((s) => s.index)).filter((e) => e.kind === 'command').map((e) => e.text);
  // The patch is an edit; the here-string and the shift are not heredocs, so the script's second line is its own command.
  assert.deepEqual(commands.filter((c) => /apply_patch|rm -rf/.test(c)), []);
  assert.deepEqual(shellSegments('cat <<< "hello" && echo $((1 << 2))\nls build'), ['cat <<< "hello"', 'echo $((1 << 2))', 'ls build']);
});

test('a read tool no table names (Kimi `ReadFile {path}`) is a read of that file', () => {
  const t = trajectory((b) => {
    b.add({ kind: 'user', text: 'Execute the task file.' });
    call(b, 'ReadFile', { path: 'tasks/T-20260602-doc-link-audit.md' }, '<system>287 lines read from file starting from line 1.</system>\n1 ---\n2 id: T-20260602-doc-link-audit');
  });
  assert.deepEqual(filesRead(all(t)), ['tasks/T-20260602-doc-link-audit.md']);
});

test("the reply that ends the agent's turn is kept as what the person was told, not only the run's last message", () => {
  const t = trajectory((b) => {
    b.add({ kind: 'user', text: 'analyze the transcript and summarise action items' });
    call(b, 'exec_command', { cmd: 'wc -l notes.vtt' }, 'Process exited with code 0\nOutput:\n8803 notes.vtt');
    b.add({ kind: 'assistant', text: 'I analyzed `notes.vtt`. The action items are: **Demo** - Send links to existing SDLC demo scenarios, including the recorded flow.' });
    b.add({ kind: 'user', text: 'there is a need to draft a demo scenario around governance' });
    b.add({ kind: 'assistant', text: 'Yes. The transcript assigns the governance section.' });
    b.add({ kind: 'user', text: 'prepare a focused max 8 min demo scenario' });
    b.add({ kind: 'assistant', text: 'Here is the scenario.' });
  });
  const facts = all(t);
  assert.ok(facts.replies.some((r) => /Send links to existing SDLC demo scenarios/.test(r.text)), JSON.stringify(facts.replies));
  assert.equal(facts.replies.length, 2, 'the run\'s last message is lastAgentMessage, not a reply twice');
});

test('a search or listing that returns paths is summarised by the paths it found, not its first line', () => {
  const t = trajectory((b) => {
    b.add({ kind: 'user', text: 'Investigate doc tools for this Rust project.' });
    call(b, 'glob', { pattern: '**/*.rs' }, 'src/main.rs\nsrc/lib.rs\nsrc/session/copilot.rs');
  });
  const said = all(t).outcomes[0]?.said ?? '';
  assert.match(said, /src\/session\/copilot\.rs/);
});

test("a result wrapped in content parts (`[{\"type\":\"text\",\"text\":…}]`) is read by its text", () => {
  const t = trajectory((b) => {
    b.add({ kind: 'user', text: 'Open the Analytics tab.' });
    call(b, 'js', { title: 'Open local Codemie UI', code: "await tab.goto('http://localhost:5173');" },
      'Wall time: 1017.0997 seconds\nOutput:\n[{"type":"text","text":"Browser Use rejected this action due to browser security policy. Reason: The user has requested that http://localhost:5173 should not be used."}]');
  });
  assert.match(all(t).outcomes[0]?.said ?? '', /^Browser Use rejected this action due to browser security policy/);
});

test('an edit names its file as its result spells it in full (Gemini CLI: `Successfully overwrote file: /abs/path`)', () => {
  const t = trajectory((b) => {
    b.add({ kind: 'user', text: 'Generate GEMINI.md.' });
    call(b, 'write_file', { file_path: 'GEMINI.md', content: '# GEMINI.md' }, 'Successfully overwrote file: /home/wei/repo/discordbot/GEMINI.md. Here is the updated code:\n# GEMINI.md');
  });
  assert.deepEqual(filesChanged(all(t)).map((c) => c.file), ['/home/wei/repo/discordbot/GEMINI.md']);
});

test('a summary with little room says the workspace folder once and lists every file read under it', async () => {
  const root = '/home/USER/projects/spotter-worktrees/spotter-a0y';
  const files = ['lib/spotter_web/controllers/session_hook_controller.ex', 'lib/spotter_web/controllers/hooks_controller.ex', 'lib/spotter_web/router.ex',
    'lib/spotter/application.ex', 'spotter-plugin/hooks/hooks.json', 'spotter-plugin/scripts/notify-session.sh', 'lib/spotter_web/endpoint.ex',
    'lib/spotter/services/session_registry.ex', 'lib/spotter/services/review_session_registry.ex', 'test/spotter_web/controllers/hooks_controller_test.exs',
    'lib/spotter_web/live/session_live.ex', 'lib/spotter/services/review_token_store.ex', 'lib/spotter_web/channels/user_socket.ex',
    'lib/spotter_web/channels/terminal_channel.ex', 'spotter-plugin/scripts/post-tool-capture.sh', 'spotter-plugin/scripts/lib/trace_context.sh'];
  const t = trajectory((b) => {
    b.add({ kind: 'user', text: 'Explore the codebase for lifecycle hooks and an active session registry.' });
    for (const f of files) call(b, 'Read', { file_path: `${root}/${f}` }, `     1→defmodule X do\n     2→  use GenServer\n${'     3→  # body\n'.repeat(40)}`);
    b.add({ kind: 'assistant', text: 'Here is what I found.' });
  });
  const r = await runCompaction(t, { strategy: findStrategy('summarizing-session')!, range: '1:-1' }, { counter: charEstimateCounter });
  for (const f of files) assert.ok(r.summary!.includes(f), `${f} missing from\n${r.summary}`);
  assert.ok(r.summary!.includes(root));
});

test('a system prompt the log records again word for word stays once in the compacted context', async () => {
  const prompt = `You are the GitHub Copilot CLI, a terminal assistant built by GitHub. ${'Be concise in routine responses. '.repeat(200)}`;
  const t = trajectory((b) => {
    b.add({ kind: 'system', text: prompt });
    b.add({ kind: 'user', text: 'Investigate documentation tools for this Rust project; do not edit any code.' });
    for (let i = 0; i < 6; i++) call(b, 'bash', { command: `ls src/mod${i}` }, `mod${i}.rs\nlib${i}.rs`);
    b.add({ kind: 'assistant', text: 'cargo doc --no-deps is the most direct option.' });
    b.add({ kind: 'system', text: prompt });
    b.add({ kind: 'user', text: 'Thanks.' });
  });
  for (const id of ['budget-schema', 'katalyst-chat', 'summarizing-session']) {
    const r = await runCompaction(t, { strategy: findStrategy(id)!, range: '1:-1' }, { counter: charEstimateCounter });
    assert.equal(r.condensed.steps.filter((s) => s.text === prompt).length, 1, id);
  }
});

test("openhands-structured names the test run behind 'Tests Passing' and the scripts a run that changed nothing ran", async () => {
  const t = trajectory((b) => {
    b.add({ kind: 'user', text: 'Run the test suite to confirm everything passes. Keep changes minimal.' });
    call(b, 'terminal', { command: 'sed -n 1,200p app/service.py' }, '"""Business logic layer."""');
    call(b, 'terminal', { command: "python3 - <<'PY'\nprint(1)\nPY" }, 'BROKEN: docs/README.md -> [name](./other.md)\nTotal broken: 34');
    call(b, 'terminal', { command: 'pytest -q' }, '..........                [100%]\n10 passed, 1 warning in 0.38s\n[The command completed with exit code 0.]');
    b.add({ kind: 'assistant', text: 'All tests pass; no change was needed.' });
  });
  const r = await runCompaction(t, { strategy: findStrategy('openhands-structured')!, range: '1:-1' }, { counter: charEstimateCounter });
  assert.match(r.summary!, /\*\*Tests Passing\*\*: true \(pytest -q: 10 passed/);
  assert.match(r.summary!, /Total broken: 34/);
});

test('a file read says what the file is (its first lines), a folder listing does not, and the summary shows it beside the path', async () => {
  const t = trajectory((b) => {
    b.add({ kind: 'user', text: 'Investigate doc tools for this Rust project. Do not edit code.' });
    // Copilot CLI's `view` numbers lines `1. `; of a folder it lists the entries (real outputs).
    call(b, 'view', { path: '/home/wei/repo/VibeCodingTracker' }, '.claude\n.devcontainer\n.git\nCargo.toml\nsrc\ntests');
    call(b, 'view', { path: '/home/wei/repo/VibeCodingTracker/Cargo.toml' }, '1. [package]\n2. name = "vibe_coding_tracker"\n3. version = "0.0.0"\n4. edition = "2024"');
    // Claude Code's Read numbers lines `     1→`.
    call(b, 'Read', { file_path: '/home/USER/spotter/lib/spotter/services/session_registry.ex' }, '     1→defmodule Spotter.Services.SessionRegistry do\n     2→  @moduledoc false\n     3→  use GenServer\n');
    b.add({ kind: 'assistant', text: 'Use cargo doc.' });
  });
  const facts = all(t);
  // The folder's entries, one bare name a line, say it is a folder: a listing, not a file read.
  assert.deepEqual(facts.reads.map((r) => r.text), ['/home/wei/repo/VibeCodingTracker/Cargo.toml', '/home/USER/spotter/lib/spotter/services/session_registry.ex']);
  const gists = facts.reads.map((r) => r.gist);
  assert.deepEqual(gists, ['[package] · name = "vibe_coding_tracker"', 'defmodule Spotter.Services.SessionRegistry do · @moduledoc false']);
  const r = await runCompaction(t, { strategy: findStrategy('openhands-summary')!, range: '1:-1' }, { counter: charEstimateCounter });
  assert.match(r.summary!, /Cargo\.toml \(read\): \[package\] · name = "vibe_coding_tracker"/);
  assert.match(r.summary!, /session_registry\.ex \(read\): defmodule Spotter\.Services\.SessionRegistry do/);
});

test('a tool that refused the call and records no status is a failure: the refusal is an error in every summary and in is:error', async () => {
  // Codex Desktop's browser tool, from a real rollout of the wild-log set's development part: no exit code, no error flag.
  const refusal = (url: string) => `Wall time: 2.4099 seconds\nOutput:\n[{"type":"text","text":"Browser Use rejected this action due to browser security policy. Reason: Browser Use cannot determine if ${url} is allowed. The agent must not attempt to achieve the same outcome via workaround."}]`;
  const t = trajectory((b) => {
    b.add({ kind: 'user', text: 'Open the Analytics tab of the platform in Chrome.' });
    call(b, 'js', { title: 'Open local UI', code: "await tab.goto('http://localhost:5173');" }, refusal('http://localhost:5173'));
    call(b, 'js', { title: 'Open deployed UI', code: "await tab.goto('https://example.internal');" }, refusal('https://example.internal'));
    call(b, 'js', { title: 'Read title', code: 'nodeRepl.write(await tab.title())' }, 'Wall time: 0.5 seconds\nOutput:\n[{"type":"text","text":"Analytics — the call was not rejected by any policy"}]');
    b.add({ kind: 'assistant', text: 'The browser policy blocks both addresses.' });
  });
  assert.deepEqual(all(t).errors.map((e) => e.type), ['refusal', 'refusal']);
  assert.deepEqual([...errorSteps(t.steps)], [2, 4]);
  for (const id of ['katalyst-tools', 'openhands-summary', 'rolling-summary']) {
    const r = await runCompaction(t, { strategy: findStrategy(id)!, range: '1:-1' }, { counter: charEstimateCounter });
    assert.match(r.summary!, /Browser Use rejected this action due to browser security policy/, `${id}:\n${r.summary}`);
  }
});

test("an agent's answer keeps the commands and paths it quoted in code, even past the room its line has", () => {
  const answer = `以下是我的調查結果，針對你的專案特性整理：${'專案已有完整註解，這些條件讓你有多個現成的好選擇。'.repeat(8)} ### 1. \`cargo doc\` → GitHub Pages **最適合你** — \`cargo doc --no-deps\` 就能直接產生 API 文件網站。 ### 2. \`mdBook\` 與 \`clap\``;
  const line = messageLine(answer, 120);
  assert.match(line, /\(names `cargo doc`, `cargo doc --no-deps`\)$/, line);
  assert.ok(!line.includes('`clap`') && !line.includes('`mdBook`'), 'a quoted single word names little and is left out');
  assert.equal(messageLine('Done: ran `npm test`.', 120), 'Done: ran `npm test`.', 'spans already in the line are not said twice');
});

test("a long answer keeps its own outline past its room: its headings, and the identifiers it set in bold", () => {
  // After a real Codex triage reply (wild/files/EntityProcess__agentv/codex-full.jsonl) and a spec-kit one.
  const answer = [
    'I reviewed the 25 newest open GitHub issues by creation date and checked Beads read-only. I did not create or mutate Beads.',
    '', '**Already Covered**', '| GitHub issue | Bead coverage | Decision |', '|---|---|---|', '| #1392 Harbor boundary | `av-2o8` | Covered. |',
    '', '**Missing Beads I Recommend Creating**', '| #1391 target hooks | Strong. | Create focused core/docs bead. |',
    '', '### Do Not Create Beads Yet', '- Updated requirements with **FR-013** to codify the boundary; this is **really important** to us.',
  ].join('\n');
  const line = messageLine(answer, 120);
  assert.match(line, /\(sections: Already Covered; Missing Beads I Recommend Creating; Do Not Create Beads Yet\)/, line);
  assert.match(line, /`FR-013`/, 'a bold identifier is named');
  assert.ok(!line.includes('really important'), 'bold emphasis is not a name');
  assert.equal(messageLine('**Done.** All tests pass.', 120), '**Done.** All tests pass.', 'a short message says it all itself');
});

test("the person's task is cut at a word within its room, not at the first sentence end that fits", () => {
  // The task of a real OpenHands SDK run (dfinson/traceforge): its second sentence binds the work as much as the first.
  const task = 'Add a `GET /tickets/{ticket_id}` endpoint to this FastAPI app that returns the matching ticket, or HTTP 404 if no ticket has that id. The repository layer already exposes `TicketRepository.get_ticket`; add a `get_ticket` method to `TicketService` that delegates to it, then wire the route in `app/main.py`. Read the relevant files first, make the edits, and run the test suite to confirm everything passes. Keep changes minimal.';
  const t = trajectory((b) => { b.add({ kind: 'user', text: task }); b.add({ kind: 'assistant', text: 'On it.' }); });
  const line = taskLine(all(t), 250)!;
  assert.match(line, /The repository layer already exposes `TicketRepository\.get_ticket`/, line);
  assert.ok(line.length <= 250 && line.endsWith('[…]'), line);
  assert.match(bounded(task, 250), /has that id\. \[…\]$/, 'a summary of other text still ends at a sentence');
});

test('an output that opens a JSON document is told as one (`{…}`, `[…]`), not by its opening bracket', async () => {
  // OpenCode's todoread returns the list as pretty JSON: its first line is `[`.
  const run = await loadRun(fixture('opencode/all-tools.json'));
  const summary = (await runCompaction(run, { strategy: findStrategy('openhands-summary')!, range: '0:-1' }, { counter: charEstimateCounter })).summary!;
  assert.match(summary, /todoread → \[…\]/);
  assert.doesNotMatch(summary, /→ [[{]$/m, 'no outcome is a bare bracket');
});

test('a build that failed is told by its errors, not by the warnings it printed first', () => {
  // Durban-Designer/vsla (wild dev): gcc's -Wpedantic warning, then the error the build failed on.
  const output = [
    'In file included from /home/dev/vsla/include/vsla/vsla.h:13,',
    '/home/dev/vsla/include/vsla/vsla_unified.h:17:29: warning: redefinition of typedef ‘vsla_context_t’ [-Wpedantic]',
    '   17 | typedef struct vsla_context vsla_context_t;',
    '/home/dev/vsla/src/backends/cpu.c:26:20: error: ‘VSLA_ERROR_OUT_OF_MEMORY’ undeclared (first use in this function)',
    '/home/dev/vsla/src/backends/cpu.c:31:9: error: ‘vsla_tensor_t’ has no member named ‘ctx’',
    'make[2]: *** [CMakeFiles/vsla.dir/build.make:174: cpu.c.o] Error 1',
    'make: *** [Makefile:146: all] Error 2',
  ].join('\n');
  const run = builtRun((b) => addCall(b, 'Bash', { command: 'cd build && make -j4' }, `${output}\nExit code 2`));
  const errors = extractEntities(run, run.steps.map((s) => s.index)).filter((e) => e.kind === 'error').map((e) => e.text);
  assert.match(errors[0], /error: ‘VSLA_ERROR_OUT_OF_MEMORY’ undeclared/, errors.join(' | '));
  assert.ok(!errors.some((e) => /warning: redefinition/.test(e)), `a warning is not among the errors the build failed on: ${errors.join(' | ')}`);
});
