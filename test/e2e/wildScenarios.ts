// Logs like the ones issue 20 met in the wild, opened in the real workbench: a Claude Code 2.1
// session whose task notification is an environment step (not a turn of the person), a Claude Code
// session whose subagent shows as a branch, a Harbor Terminus-2 ATIF run whose subagents sit in files
// beside it, a pi session and a mini-swe-agent 2 run of a reasoning model; each
// root row's tooltip says what the reader read ("Coverage: …"). Files are real ones under
// test/fixtures (and the corpus), copied into the workspace: e2e never reads wild/.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SHARED } from '../helpers/paths';
import { closeOpenTrajectories } from './formatScenarios';
import { expectedFor } from './expected';
import { subtreeOf, type Context, type Scenario } from './scenarios';
import type { Row } from './workbench';

const DIR = 'wild-logs';

interface WildFile {
  /** Name in the workspace (under wild-logs/). */
  name: string;
  /** Its source: under test/fixtures, or under the shared corpus when `corpus` is set. */
  source: string;
  corpus?: boolean;
  /** Files placed beside it (the subagent files a log names): [name, source under test/fixtures]. */
  beside?: [string, string][];
}

const NOTIFIED: WildFile = { name: 'claude-2.1-notification.jsonl', source: 'claude-code/agent-sessions-schema-drift.jsonl' };
const SUBAGENT: WildFile = { name: 'claude-subagent.jsonl', source: 'claude-code/subagent.jsonl', corpus: true };
// A Harbor trial's agent folder: the run, and the three subagents its summarization wrote beside it.
const HARBOR: WildFile = {
  name: 'harbor-trial/agent/trajectory.json',
  source: 'atif/terminus-2-context-summarization.trajectory.json',
  beside: ['summary', 'questions', 'answers'].map((k) => [`trajectory.summarization-1-${k}.json`, `atif/terminus-2-context-summarization.trajectory.summarization-1-${k}.json`]),
};
// Claude Code 2.1: four parallel Task calls; one subagent's file kept in <session>/subagents/.
const PARALLEL: WildFile = {
  name: 'claude-2.1-parallel.jsonl',
  source: 'claude-code/copilot-chat-parallel-tasks.jsonl',
  beside: [['b3a7bd3c-5a10-4e7b-8ff0-7fc0cd6d1093/subagents/agent-ac47f8c.jsonl', 'claude-code/b3a7bd3c-5a10-4e7b-8ff0-7fc0cd6d1093/subagents/agent-ac47f8c.jsonl']],
};
const PI: WildFile = { name: 'pi-session.jsonl', source: 'pi/agent-sessions-small.jsonl' };
// Aider 0.86, four sessions: model calls that raised (litellm.APIError, BadRequestError), a whole-format edit and its auto-commit.
const AIDER: WildFile = { name: 'opencoder/.aider.chat.history.md', source: 'aider/opencoder-failed-calls-whole-format.aider.chat.history.md' };
// mini-swe-agent 2.2.7 on deepseek-reasoner: thinking in reasoning_content, two timeouts, a provider's exception at the end.
// OpenAgents' ATIF streamed as JSON Lines (a __header__ line, then a step per line): once "no format we know".
const STREAMED: WildFile = { name: 'openagents-session.atif.jsonl', source: 'atif/openagents-streamed.atif.jsonl' };
// Codex 0.94: the person answers, presses Esc (Codex's <turn_aborted> note and event), and asks again.
const ESC: WildFile = { name: 'codex-esc-rollout.jsonl', source: 'codex/turn-aborted-note.jsonl' };
// Claude Code 2.1 on opus 4.5: a chrome-devtools screenshot (a 2536 × 2508 PNG) in a tool result, once two tokens of "[image]".
const SCREENSHOT: WildFile = { name: 'claude-screenshot-session.jsonl', source: 'claude-code/agentlogs-screenshot.jsonl' };
// codex exec --json (2026): items started and completed, commands wrapped in zsh -lc; once "no format we know".
const CODEX_EXEC: WildFile = { name: 'codex-exec-events.jsonl', source: 'codex-exec/stark-click-baseline.jsonl' };
const REASONING: WildFile = { name: 'pvlib-1072-deepseek.traj.json', source: 'mini-swe-agent/pvlib__pvlib-python-1072.traj.json' };
// OpenCode's event stream (message.part.updated rows, each a part's latest state): once "no format we know".
const OPENCODE_EVENTS: WildFile = { name: 'opencode-session.events.jsonl', source: 'opencode-events/traceforge-db-events.jsonl' };
// Kimi Code's wire log (loop events, turn prompts, usage records) with six turns of the person.
const KIMI: WildFile = { name: 'kimi-code-wire.jsonl', source: 'kimi-code/agent-sessions-assistant-tools.jsonl' };
// τ²-bench: one results file, two airline simulations, each a run under the file.
const TAU2: WildFile = { name: 'tau2-airline-results.json', source: 'runs/tau2-airline-two-simulations.json' };
// Copilot CLI 1.0.64: its 46 KB system prompt logged before every request, and an abort by the person.
// Codex 0.36 (2025-09, gpt-5-codex): outputs in the JSON envelope, seven commands its sandbox stopped, two timeouts.
const CODEX_SANDBOX: WildFile = { name: 'codex-sandbox-rollout.jsonl', source: 'codex/typelang-serena-sandbox-failures.jsonl' };
const COPILOT_RESENT: WildFile = { name: 'copilot-events.jsonl', source: 'copilot-cli/agentv-resent-prompt-abort.jsonl' };

// Goose: a ≤ 1.9 session file and a `goose session export` a compaction went through, built in the
// shapes Goose's own types serialise to (no public session log was found); once chat messages
// whose calls vanished and whose tool results were turns of the person.
const GOOSE_FILE: WildFile = { name: 'goose/20250418_1.jsonl', source: 'goose/legacy-session.jsonl' };
const GOOSE_EXPORT: WildFile = { name: 'goose/session-export.json', source: 'goose/export-with-compaction.json' };
// Cursor's CLI agent (stream-json), a real capture: once Claude Code with its calls and thinking lost.
const CURSOR: WildFile = { name: 'cursor-direct-sleep.jsonl', source: 'cursor-agent/cursor-hack-direct-sleep.jsonl' };
// SpecStory's markdown history of a Cursor chat (edobry/minsky, MIT): once "plain text", a dead end.
const CURSOR_IDE: WildFile = { name: 'agent-transcripts/6ce23495-ddd1-4d22-937b-98538ca8433a/6ce23495-ddd1-4d22-937b-98538ca8433a.jsonl', source: 'cursor-ide/agent-transcript.jsonl' };
// OpenHands SDK 1.0 (OpenAgentSafety, October 2025): observations in `output`, failed by `metadata.exit_code` or `error`.
const OPENHANDS_SDK_1: WildFile = { name: 'openhands/traj_safety-reuse-cache.json', source: 'openhands-v1/agentsafety-sdk-1.0-reuse-cache.json' };
// mini-swe-agent 1.17.3 on gpt-5-mini through the Responses API (wudi-alex/mini-swe-agent-CaM, MIT):
// its usage in input_tokens/output_tokens, once no recorded usage at all.
const MINI_RESPONSES: WildFile = { name: 'mini-swe/django-12406-responses.traj.json', source: 'mini-swe-agent/django__django-12406.traj.json' };
// The same fork's "CaM" agent: each action a `def …():` around an indented bash block, found by the
// action_regex its config records; once a run with no calls.
const MINI_CAM: WildFile = { name: 'mini-swe/django-11790-cam.traj.json', source: 'mini-swe-agent/django__django-11790-cam.traj.json' };
// Gemini CLI 0.3x (2026-03, gemini-3-flash; BrianV1981/aim, MIT): its shell answers state
// `Exit Code:` only when it is not 0; one printed a keychain warning and exited 0.
const GEMINI_2026: WildFile = { name: 'gemini/session-2026-03-17T22-24.json', source: 'gemini-cli/aim-session-archive-hooks.json' };
// A chat shared with `/chat share` as Markdown (udapy/rust-agentic-skills, MIT): once "plain text".
const GEMINI_SHARED: WildFile = { name: 'gemini/csv-json-cli.md', source: 'gemini-cli/rust-skills-csv-json-cli.md' };
const SPECSTORY: WildFile = { name: '.specstory/history/2025-04-26_22-29-task-management-command-design.md', source: 'specstory/2025-04-26_22-29-task-management-command-design.md' };

function place(ctx: Context, f: WildFile): string {
  const from = f.corpus ? path.join(SHARED, 'corpus', f.source) : path.join(ctx.repo, 'test', 'fixtures', f.source);
  const to = path.join(ctx.workspace, DIR, f.name);
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(from, to);
  for (const [name, source] of f.beside ?? []) {
    const at = path.join(path.dirname(to), name);
    fs.mkdirSync(path.dirname(at), { recursive: true });
    fs.copyFileSync(path.join(ctx.repo, 'test', 'fixtures', source), at);
  }
  return to;
}

/** Places a file, opens it from the palette and expands its root; returns what `stats` says of it. */
async function openRoot(ctx: Context, f: WildFile): Promise<ReturnType<typeof expectedFor>> {
  const file = place(ctx, f);
  const want = expectedFor(ctx.repo, file);
  await ctx.wb.runCommand('Agent Trace Lens: Open Trajectory…');
  await ctx.wb.answerFileDialog(file);
  await ctx.wb.expand(await ctx.wb.traceRow(want.title));
  return want;
}

/** Opens a file from the palette, expands its root and turns; returns its title and rows. */
async function openExpanded(ctx: Context, f: WildFile): Promise<{ title: string; rows: Row[]; want: ReturnType<typeof expectedFor> }> {
  const { wb } = ctx;
  const want = await openRoot(ctx, f);
  for (let n = 0; n < 6; n++) {
    const closed = subtreeOf(await wb.traceRows(), want.title).rows.find((r) => (/^Turn \d+$/.test(r.label) || /^subagent · /.test(r.label)) && r.expanded === false);
    if (!closed) break;
    await wb.expand(await wb.traceRowAt(closed.index));
  }
  return { title: want.title, rows: subtreeOf(await wb.traceRows(), want.title).rows, want };
}

/** The root row's tooltip: it names the format and says what the reader read. */
async function rootTooltip(ctx: Context, title: string, shotName: string): Promise<string> {
  // Counts arrive after the open and redraw the row, which closes a hover: wait for exact ones first.
  for (const deadline = Date.now() + 90_000; ; await ctx.wb.page.waitForTimeout(250)) {
    const root = (await ctx.wb.visibleTraceRows()).find((r) => r.level === 1 && r.label === title);
    // A long tree leaves the root scrolled out of view: bring it back.
    if (!root) await ctx.wb.traceRow(title);
    if (root && !root.description.includes('≈') && /\d[kM]? tok\b/.test(root.description)) break;
    assert.ok(Date.now() < deadline, `the counts of ${title} never became exact`);
  }
  let text = '';
  for (let attempt = 1; ; attempt++) {
    try {
      const row = await ctx.wb.traceRow(title);
      text = await ctx.wb.hoverText(attempt === 1 ? row : row.locator('.label-name').first(), () => ctx.shot(shotName), 15_000);
      break;
    } catch (e) {
      if (attempt === 3) throw e;
    }
  }
  assert.match(text, /Coverage: read \d+ of \d+ records into steps/, `${title}: no coverage line in the root tooltip: ${JSON.stringify(text)}`);
  return text;
}

/** Parks the mouse, shoots the tree, checks the root's tooltip names the format, and closes the run. */
async function showTree(ctx: Context, title: string, name: string, tooltip: RegExp): Promise<void> {
  await ctx.wb.parkMouse();
  await ctx.shot(`${name}-tree`);
  assert.match(await rootTooltip(ctx, title, `${name}-tooltip`), tooltip);
  await closeOpenTrajectories(ctx);
}

const describe = (rows: Row[]) => JSON.stringify(rows.map((r) => `${r.label} | ${r.description}`));
const turnRows = (rows: Row[]) => rows.filter((r) => /^Turn \d+$/.test(r.label));
const kindRows = (rows: Row[], kind: string) => rows.filter((r) => r.label === kind || r.label.startsWith(`${kind} `) || r.label.startsWith(`${kind}·`));

export const WILD_SCENARIOS: Scenario[] = [
  {
    // A real Gemini CLI session of 2026: the five shell answers that state a non-zero exit code and
    // the refused edit carry the error icon; the answer that states none (a keychain warning, then
    // the sessions listed) does not.
    name: 'gemini-cli-2026-exit-codes',
    async run(ctx) {
      const { wb } = ctx;
      await wb.closeAllEditors();
      await closeOpenTrajectories(ctx);
      const session = await openExpanded(ctx, GEMINI_2026);
      assert.equal(session.want.format, 'gemini-cli');
      const results = kindRows(session.rows, 'observation');
      assert.ok(results.length >= 30, describe(session.rows));
      const icon = async (r: Row) => (await (await wb.traceRowAt(r.index)).locator('.codicon-error').count()) > 0;
      // The answers that state a failure (ls's four, gemini's own usage line) and the refused edit.
      const failing = results.filter((r) => /\bcannot\b|You need at least one command|No changes to apply/.test(r.description));
      assert.equal(failing.length, 6, describe(results));
      for (const r of failing) assert.ok(await icon(r), `no error icon: ${r.description}`);
      const warned = results.find((r) => r.description.includes('Available sessions for this project'));
      assert.ok(warned, describe(results));
      assert.equal(await icon(warned), false, 'the answer that exited 0 is marked failed');
      await showTree(ctx, session.title, 'gemini-cli-2026', /gemini-cli/);
      // The same agent's chat shared as Markdown opens as a Gemini CLI run, every call answered;
      // the one shell answer that states a failure (`cargo fmt --check`) carries the error icon.
      const shared = await openExpanded(ctx, GEMINI_SHARED);
      assert.equal(shared.want.format, 'gemini-cli');
      assert.equal(kindRows(shared.rows, 'tool call').length, 21, describe(shared.rows));
      const answers = kindRows(shared.rows, 'observation');
      assert.equal(answers.length, 21, describe(shared.rows));
      const marked: string[] = [];
      for (const r of answers.filter((a) => a.label.includes('run_shell_command'))) if (await icon(r)) marked.push(r.description);
      assert.equal(marked.length, 1, JSON.stringify(marked));
      await showTree(ctx, shared.title, 'gemini-cli-shared-markdown', /gemini-cli/);
      fs.rmSync(path.join(ctx.workspace, DIR), { recursive: true, force: true });
    },
  },
  {
    // Two real mini-swe-agent runs of a fork: the Responses API's usage in the root's tooltip, and
    // actions the fork writes inside a `def` read as calls with their results.
    name: 'mini-swe-agent-forks',
    async run(ctx) {
      const { wb } = ctx;
      await wb.closeAllEditors();
      await closeOpenTrajectories(ctx);
      const responses = await openExpanded(ctx, MINI_RESPONSES);
      assert.equal(responses.want.format, 'mini-swe-agent');
      assert.equal(kindRows(responses.rows, 'tool call').length, 25, describe(responses.rows));
      await wb.parkMouse();
      await ctx.shot('mini-swe-responses-tree');
      const tip = await rootTooltip(ctx, responses.title, 'mini-swe-responses-tooltip');
      assert.match(tip, /Recorded usage \(per call\), 25 calls/, tip);
      assert.match(tip, /input\s+recorded 236,463, ours [\d,]+/, tip);
      assert.match(tip, /output\s+recorded 2,801, ours [\d,]+/, tip);
      // Counted with the workspace's tokenizer (gpt-4o), but the run had gpt-5-mini's window.
      assert.match(tip, /context window\s+\d+\.\d% of 400,000 \(openai\/gpt-5-mini's, the model the run used\)/, tip);
      await closeOpenTrajectories(ctx);
      const cam = await openExpanded(ctx, MINI_CAM);
      assert.equal(cam.want.format, 'mini-swe-agent');
      const calls = kindRows(cam.rows, 'tool call');
      assert.equal(calls.length, 6, describe(cam.rows));
      assert.equal(kindRows(cam.rows, 'observation').length, 6, describe(cam.rows));
      // The preview is the command, its block's indentation taken off.
      assert.match(calls[0].description, /cd \/testbed && grep -nR "class AuthenticationForm"/, describe(calls));
      await showTree(ctx, cam.title, 'mini-swe-cam', /mini-swe-agent/);
      fs.rmSync(path.join(ctx.workspace, DIR), { recursive: true, force: true });
    },
  },
  {
    name: 'wild-logs-open',
    async run(ctx) {
      const { wb, shot } = ctx;
      await wb.closeAllEditors();
      await closeOpenTrajectories(ctx);

      // Claude Code 2.1: a line the client wrote with the user role and origin.kind task-notification
      // is an environment step inside the person's turn, not a second turn.
      const notified = await openExpanded(ctx, NOTIFIED);
      assert.equal(turnRows(notified.rows).length, 1, `one turn of the person: ${JSON.stringify(notified.rows.map((r) => r.label))}`);
      assert.equal(kindRows(notified.rows, 'user').length, 1, 'the notification is not a user step');
      assert.equal(kindRows(notified.rows, 'environment').length, 1, 'the notification is an environment step');
      await wb.parkMouse();
      await shot('claude-notification-tree');
      await rootTooltip(ctx, notified.title, 'claude-notification-tooltip');
      await closeOpenTrajectories(ctx);

      // Claude Code with a Task subagent: its sidechain steps are a branch of the turn.
      const sub = await openExpanded(ctx, SUBAGENT);
      const branch = sub.rows.find((r) => /^subagent · /.test(r.label));
      assert.ok(branch, `no subagent branch: ${JSON.stringify(sub.rows.map((r) => r.label))}`);
      assert.match(branch.description, /^\d+ steps · /);
      assert.ok(sub.rows.some((r) => r.level > branch.level && r.index > branch.index), 'the branch opens to its steps');
      assert.equal(turnRows(sub.rows).length, sub.want.turns);
      await wb.parkMouse();
      await shot('subagent-branch-tree');
      await rootTooltip(ctx, sub.title, 'subagent-tooltip');
      await closeOpenTrajectories(ctx);

      // Claude Code 2.1 with four parallel Task calls: the subagent whose file sits in the session's
      // subagents folder is a branch before its call's result; the coverage names the three missing.
      const parallel = await openExpanded(ctx, PARALLEL);
      assert.equal(turnRows(parallel.rows).length, 1);
      assert.equal(kindRows(parallel.rows, 'user').length, 1);
      const fileBranch = parallel.rows.find((r) => r.label === 'subagent · ac47f8c');
      assert.ok(fileBranch, `no branch for the subagent file: ${JSON.stringify(parallel.rows.map((r) => r.label))}`);
      assert.match(fileBranch.description, /^6 steps · /);
      await wb.parkMouse();
      await shot('claude-subagent-file-tree');
      const parallelTip = await rootTooltip(ctx, parallel.title, 'claude-subagent-file-tooltip');
      assert.match(parallelTip, /1 subagent file read beside it as branches; 3 subagent files named but not read/);
      await closeOpenTrajectories(ctx);

      // Harbor Terminus-2 ATIF: the task is the first turn, the summarization is a compaction step,
      // and the three subagents it wrote to files beside the run are branches after it.
      const harbor = await openExpanded(ctx, HARBOR);
      assert.equal(turnRows(harbor.rows).length, harbor.want.turns);
      assert.equal(kindRows(harbor.rows, 'compaction').length, harbor.want.byKind.compaction);
      const subagents = harbor.rows.filter((r) => /^subagent · test-session-context-summarization-summarization-1-(summary|questions|answers)$/.test(r.label));
      assert.equal(subagents.length, 3, `three subagent branches: ${JSON.stringify(harbor.rows.map((r) => r.label))}`);
      // For the picture: the run's first turn with its handoff and two subagents open, the rest closed.
      await wb.collapse(await wb.traceRow(/^Turn 2$/));
      await wb.collapse(await wb.traceRowAt(subagents[2].index));
      await wb.traceRow(harbor.title);
      await wb.parkMouse();
      await shot('harbor-atif-tree');
      const harborTip = await rootTooltip(ctx, harbor.title, 'harbor-atif-tooltip');
      assert.match(harborTip, /atif/i);
      assert.match(harborTip, /3 subagent files read beside it as branches/);
      await closeOpenTrajectories(ctx);

      // pi: three requests of the person, three turns; the session header is named as skipped.
      const pi = await openExpanded(ctx, PI);
      assert.equal(turnRows(pi.rows).length, 3);
      assert.equal(kindRows(pi.rows, 'user').length, 3);
      await wb.parkMouse();
      await shot('pi-tree');
      const piTip = await rootTooltip(ctx, pi.title, 'pi-tooltip');
      assert.match(piTip, /skipped 1 session \(header\)/);
      await closeOpenTrajectories(ctx);
      // mini-swe-agent 2 with a reasoning model: each reply's thinking is a thought row before its
      // call; the two commands that timed out and the run's closing exception carry the error icon.
      const reasoning = await openExpanded(ctx, REASONING);
      assert.equal(kindRows(reasoning.rows, 'thought').length, reasoning.want.byKind.thought, JSON.stringify(reasoning.rows.map((r) => r.label)));
      assert.equal(reasoning.want.byKind.thought, 15);
      // A command that timed out says its status first and its message, never the <exception> tag.
      assert.equal(reasoning.rows.filter((r) => /exit -1 · An error occurred while executing/.test(r.description)).length, 2, JSON.stringify(reasoning.rows.map((r) => r.description)));
      assert.ok(!reasoning.rows.some((r) => r.description.includes('<exception>')));
      const last = reasoning.rows[reasoning.rows.length - 1];
      const lastRow = await wb.traceRowAt(last.index);
      assert.equal(await lastRow.locator('.codicon-error').count(), 1, `the run's closing exception has no error icon: ${last.label} ${last.description}`);
      await wb.parkMouse();
      await shot('mini-swe-agent-reasoning-tree');
      await closeOpenTrajectories(ctx);
      // Aider: each session is a run; a request whose model call raised shows the error icon on the
      // notice that printed the exception, labelled by its type (no word list: the exception's shape).
      const aiderWant = await openRoot(ctx, AIDER);
      const firstRun = subtreeOf(await wb.traceRows(), aiderWant.title).rows.find((r) => r.level === 2 && /^\d+ steps · /.test(r.description));
      assert.ok(firstRun, 'the sessions are runs under the root');
      await wb.expand(await wb.traceRowAt(firstRun.index));
      const aiderRows = subtreeOf(await wb.traceRows(), aiderWant.title).rows;
      const failed = aiderRows.find((r) => /model call failed: litellm\.APIError/.test(`${r.label} ${r.description}`));
      assert.ok(failed, `no failed model call row: ${JSON.stringify(aiderRows.map((r) => `${r.label} | ${r.description}`))}`);
      assert.equal(await (await wb.traceRowAt(failed.index)).locator('.codicon-error').count(), 1, 'the failed call carries the error icon');
      await wb.parkMouse();
      await shot('aider-failed-model-call-tree');
      await closeOpenTrajectories(ctx);
      // Streamed ATIF opens as ATIF, its steps in order.
      const streamed = await openExpanded(ctx, STREAMED);
      assert.equal(streamed.want.format, 'atif');
      assert.ok(streamed.rows.some((r) => /Created commit: 1be85e6/.test(`${r.label} ${r.description}`)), JSON.stringify(streamed.rows.map((r) => `${r.label} | ${r.description}`)));
      await showTree(ctx, streamed.title, 'atif-streamed', /atif/i);
      // Codex's <turn_aborted> note is the person stopping the agent, not a request of theirs.
      const esc = await openExpanded(ctx, ESC);
      const stops = esc.rows.filter((r) => /interrupted by the person/.test(`${r.label} ${r.description}`));
      assert.equal(stops.length, 1, JSON.stringify(esc.rows.map((r) => `${r.label} | ${r.description}`)));
      assert.ok(!esc.rows.some((r) => /^user/.test(r.label) && /turn_aborted|The user interrupted/.test(r.description)), 'the note is no user row');
      // The last turn holds one step, and says so in the singular.
      assert.ok(esc.rows.some((r) => /^Turn 3$/.test(r.label) && /^1 step · /.test(r.description)), JSON.stringify(esc.rows.filter((r) => /^Turn/.test(r.label)).map((r) => `${r.label} | ${r.description}`)));
      await wb.parkMouse();
      await shot('codex-turn-aborted-tree');
      // Kept from a session's middle: its running total holds calls the rollout does not record one by one.
      const escTip = (await rootTooltip(ctx, esc.title, 'codex-turn-aborted-tooltip')).replace(/\s+/g, ' ');
      assert.match(escTip, /2 calls in the log, at least 3 in its totals: its running total \(token_count\) is larger than the 2 calls it records one by one/, escTip);
      await closeOpenTrajectories(ctx);

      // The screenshot weighs what Anthropic bills for it, and the tooltip says it is modelled.
      const screenshot = await openExpanded(ctx, SCREENSHOT);
      const tip = (await rootTooltip(ctx, screenshot.title, 'claude-screenshot-tooltip')).replace(/\s+/g, ' ');
      assert.match(tip, /images 1,5\d\d tokens, modelled for 1 image from its size \(Anthropic: 28-px patches/, tip);
      await closeOpenTrajectories(ctx);

      // codex exec's stream opens as a run: its commands are calls, each with its result.
      const exec = await openExpanded(ctx, CODEX_EXEC);
      assert.match(exec.title, /codex-exec-events\.jsonl/, exec.title);
      const shells = exec.rows.filter((r) => /^tool call/.test(r.label) && /shell/.test(`${r.label} ${r.description}`));
      assert.equal(shells.length, 6, JSON.stringify(exec.rows.map((r) => `${r.label} | ${r.description}`)));
      await wb.parkMouse();
      await shot('codex-exec-tree');
      await closeOpenTrajectories(ctx);
      // Later scenarios find folders by their Explorer rows: leave the workspace as it was.
      fs.rmSync(path.join(ctx.workspace, DIR), { recursive: true, force: true });
    },
  },
  {
    // Formats read since the first wild-log sweep, opened as a new user would: from the palette.
    name: 'wild-logs-2026',
    async run(ctx) {
      const { wb, shot } = ctx;
      await wb.closeAllEditors();
      await closeOpenTrajectories(ctx);

      // OpenCode's event stream: each part read at its latest state, every call followed by its result.
      const events = await openExpanded(ctx, OPENCODE_EVENTS);
      assert.equal(events.want.format, 'opencode');
      const calls = kindRows(events.rows, 'tool call');
      assert.equal(calls.length, events.want.byKind.tool_call, describe(events.rows));
      assert.equal(kindRows(events.rows, 'observation').length, calls.length, 'every call has its result');
      await showTree(ctx, events.title, 'opencode-events', /message\.part\.updated/);

      // Kimi Code's wire log: the person's six turns, the model's thinking as thought rows.
      const kimi = await openExpanded(ctx, KIMI);
      assert.equal(kimi.want.format, 'kimi-code');
      assert.equal(turnRows(kimi.rows).length, kimi.want.turns, describe(kimi.rows));
      assert.equal(kindRows(kimi.rows, 'thought').length, kimi.want.byKind.thought);
      await wb.parkMouse();
      await shot('kimi-code-tree');
      await closeOpenTrajectories(ctx);

      // τ²-bench: the two simulations are two runs under the file, each opening to its turns.
      const tau2 = await openRoot(ctx, TAU2);
      const runs = subtreeOf(await wb.traceRows(), tau2.title).rows.filter((r) => r.level === 2);
      assert.deepEqual(runs.map((r) => /^task (18|25): /.test(r.label)), [true, true], describe(runs));
      // Each simulation's reward (τ²-bench's reward_info) leads its description, within the sidebar.
      assert.deepEqual(runs.map((r) => /^reward 1 · trial 0 · \d+ steps · /.test(r.description)), [true, true], describe(runs));
      await wb.expand(await wb.traceRowAt(runs[0].index));
      const firstRun = subtreeOf(await wb.traceRows(), tau2.title).rows;
      assert.ok(firstRun.some((r) => r.level === 3 && /^Turn \d+$/.test(r.label)), describe(firstRun));
      await wb.parkMouse();
      await shot('tau2-runs-tree');
      await closeOpenTrajectories(ctx);

      // Copilot CLI: the system prompt logged again says why it weighs nothing; the abort is the person's.
      const copilot = await openExpanded(ctx, COPILOT_RESENT);
      const systems = kindRows(copilot.rows, 'system');
      assert.equal(systems.length, 3, describe(copilot.rows));
      assert.equal(systems.filter((r) => /recorded again, counted once/.test(r.description)).length, 2, describe(systems));
      assert.ok(copilot.rows.some((r) => /interrupted by the person/.test(`${r.label} ${r.description}`)), describe(copilot.rows));
      await wb.parkMouse();
      await shot('copilot-resent-tree');
      await closeOpenTrajectories(ctx);

      // Codex 0.36: a command its sandbox stopped is a failed result (the red icon), read from Codex's own line for it.
      const sandboxed = await openExpanded(ctx, CODEX_SANDBOX);
      const refused = sandboxed.rows.filter((r) => /^observation/.test(r.label) && /failed in sandbox LinuxSeccomp/.test(r.description));
      assert.ok(refused.length >= 5, describe(sandboxed.rows));
      for (const row of refused.slice(0, 2)) assert.equal(await (await wb.traceRowAt(row.index)).locator('.codicon-error').count(), 1, `${row.description}: no error icon`);
      // Its calls show the line the shell ran, not Codex's JSON list of words.
      assert.ok(sandboxed.rows.some((r) => /^tool call/.test(r.label) && /codex exec --json "Please run the serena summarize tool/.test(r.description)), describe(sandboxed.rows));
      assert.ok(!sandboxed.rows.some((r) => /command=\["bash"/.test(r.description)), describe(sandboxed.rows));
      await wb.parkMouse();
      await shot('codex-sandbox-refusals-tree');
      await closeOpenTrajectories(ctx);
      fs.rmSync(path.join(ctx.workspace, DIR), { recursive: true, force: true });
    },
  },
  {
    // Issue 22: a real OpenHands SDK 1.0 run. Each terminal observation shows what the terminal
    // printed, not the observation's JSON, and the five that failed (exit 1, exit 127, the
    // terminal's refusal of a multi-line command) carry the error icon; the grep whose pipeline
    // exited 0 does not.
    name: 'openhands-sdk-1.0-observations',
    async run(ctx) {
      const { wb } = ctx;
      await wb.closeAllEditors();
      await closeOpenTrajectories(ctx);
      const run = await openExpanded(ctx, OPENHANDS_SDK_1);
      assert.equal(run.want.format, 'openhands-v1');
      const results = kindRows(run.rows, 'observation');
      assert.equal(results.length, 13, describe(run.rows));
      assert.ok(results.every((r) => !/(?:^|· )\{/.test(r.description)), `an observation shows its JSON: ${describe(results)}`);
      const failed: string[] = [];
      for (const r of results) if (await (await wb.traceRowAt(r.index)).locator('.codicon-error').count() > 0) failed.push(r.description);
      assert.equal(failed.length, 5, JSON.stringify(failed));
      assert.ok(failed.some((d) => d.includes('bash: systemctl: command not found')), JSON.stringify(failed));
      assert.ok(failed.some((d) => d.includes('ERROR: Cannot execute multiple commands at once')), JSON.stringify(failed));
      assert.ok(!failed.some((d) => d.includes('grep: /workspace/debug.txt')), 'the grep in a pipeline that exited 0 is marked failed');
      await showTree(ctx, run.title, 'openhands-sdk-1.0', /Coverage: read 26 of 26 records into steps/);
    },
  },
  {
    name: 'goose-and-cursor',
    async run(ctx) {
      const { wb, shot } = ctx;
      await wb.closeAllEditors();
      await closeOpenTrajectories(ctx);
      // The session file: one turn of the person; each call followed by its result; the edit Goose refused carries the error icon.
      const legacy = await openExpanded(ctx, GOOSE_FILE);
      assert.equal(legacy.want.format, 'goose');
      assert.equal(turnRows(legacy.rows).length, 1, describe(legacy.rows));
      const calls = kindRows(legacy.rows, 'tool call');
      assert.equal(calls.length, 2, describe(legacy.rows));
      const results = kindRows(legacy.rows, 'observation');
      assert.equal(results.length, 2, describe(legacy.rows));
      assert.equal(await (await wb.traceRowAt(results[1].index)).locator('.codicon-error').count(), 1, `no error icon: ${describe(results)}`);
      await showTree(ctx, legacy.title, 'goose-session', /goose/i);
      // The export: the compaction's summary is a compaction row; the failed command's result has the error icon.
      const exported = await openExpanded(ctx, GOOSE_EXPORT);
      assert.equal(exported.want.format, 'goose');
      assert.equal(kindRows(exported.rows, 'compaction').length, 1, describe(exported.rows));
      const failed = exported.rows.find((r) => /No solution found/.test(r.description));
      assert.ok(failed, describe(exported.rows));
      assert.equal(await (await wb.traceRowAt(failed.index)).locator('.codicon-error').count(), 1, 'the failed command carries the error icon');
      await wb.parkMouse();
      await shot('goose-export-tree');
      await closeOpenTrajectories(ctx);
      // Cursor's CLI: two shell calls, each with its result; 210 thinking deltas are one thought row,
      // beside the text shown before the calls.
      const cursor = await openExpanded(ctx, CURSOR);
      assert.equal(cursor.want.format, 'cursor-agent');
      assert.equal(kindRows(cursor.rows, 'tool call').length, 2, describe(cursor.rows));
      assert.equal(kindRows(cursor.rows, 'observation').length, 2, describe(cursor.rows));
      assert.equal(kindRows(cursor.rows, 'thought').length, cursor.want.byKind.thought, describe(cursor.rows));
      assert.equal(cursor.want.byKind.thought, 2);
      await showTree(ctx, cursor.title, 'cursor-agent', /cursor-agent/);
      fs.rmSync(path.join(ctx.workspace, DIR), { recursive: true, force: true });
    },
  },
  {
    name: 'specstory-history',
    async run(ctx) {
      const { wb } = ctx;
      await wb.closeAllEditors();
      await closeOpenTrajectories(ctx);
      // A real SpecStory history: its requests are turns, its listings and commands calls answered by what they returned.
      const story = await openExpanded(ctx, SPECSTORY);
      assert.equal(story.want.format, 'specstory');
      assert.equal(story.title, 'Task Management Command Design');
      assert.equal(turnRows(story.rows).length, 24, describe(story.rows));
      const calls = kindRows(story.rows, 'tool call');
      assert.ok(calls.some((r) => /list_dir/.test(r.label)), describe(calls));
      assert.ok(kindRows(story.rows, 'observation').length > 0, describe(story.rows));
      await showTree(ctx, story.title, 'specstory', /specstory/i);
      fs.rmSync(path.join(ctx.workspace, DIR), { recursive: true, force: true });
    },
  },
  {
    name: 'cursor-ide-transcript',
    async run(ctx) {
      const { wb } = ctx;
      await wb.closeAllEditors();
      await closeOpenTrajectories(ctx);
      // A Cursor editor transcript (JSONL, no ids, no results saved): it was "not a trajectory in any
      // format we know"; now the person's two queries are turns and the five calls are rows.
      const transcript = await openExpanded(ctx, CURSOR_IDE);
      assert.equal(transcript.want.format, 'cursor-ide');
      assert.match(transcript.title, /^The cart total is wrong for discounted items/);
      assert.equal(turnRows(transcript.rows).length, 2, describe(transcript.rows));
      // The turn row says what the person typed, not the selection Cursor attached before it.
      assert.match(turnRows(transcript.rows)[0].description, /· The cart total is wrong for discounted items/, describe(transcript.rows));
      assert.equal(kindRows(transcript.rows, 'tool call').length, 5, describe(transcript.rows));
      assert.equal(kindRows(transcript.rows, 'observation').length, 0, describe(transcript.rows));
      await showTree(ctx, transcript.title, 'cursor-ide', /cursor-ide/);
      fs.rmSync(path.join(ctx.workspace, DIR), { recursive: true, force: true });
    },
  },
];
