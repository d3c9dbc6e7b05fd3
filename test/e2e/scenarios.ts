// What a user does with the extension in a real workbench, and what they should see.
// Expectations come from the CLI (`stats`) and from the raw corpus files, read at test time.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expectedFor, kindOfLabel, KIND_LABEL, type Expected } from './expected';
import { writeHostileTrajectory } from './fixtures';
import type { Row, Workbench } from './workbench';

export interface Context {
  wb: Workbench;
  repo: string;
  /** The workspace folder code-server has open (a temp copy of a few corpus files). */
  workspace: string;
  /** The user settings code-server was started with (run.sh seeds them). */
  settings: Record<string, unknown>;
  /** Saves a screenshot named after the scenario and this step. */
  shot(step: string): Promise<void>;
  /** What the extension has written to its log ("Agent Trace Lens" output channel) so far. */
  extensionLog(): string;
}

export interface Scenario {
  name: string;
  run(ctx: Context): Promise<void>;
}

/** Corpus files copied into the workspace, under these names. */
export const WORKSPACE_FILES: Record<string, string> = {
  'pydicom__pydicom-1458.traj': 'swe-agent/pydicom__pydicom-1458.traj',
  'basic_interactions.json': 'openhands-v0/basic_interactions.json',
  'basic.json': 'openhands-v0/basic.json',
  // Opened by no other scenario, so the token scenario sees its counts arrive.
  'sphinx-doc__sphinx-9711.traj.json': 'mini-swe-agent/sphinx-doc__sphinx-9711.traj.json',
};
export const NOT_A_TRAJECTORY = 'not-a-trajectory.json';

export function fillWorkspace(workspace: string, corpusDir: string): void {
  for (const [name, rel] of Object.entries(WORKSPACE_FILES)) fs.copyFileSync(path.join(corpusDir, rel), path.join(workspace, name));
  // Valid JSON that is no agent log in any format: a package manifest.
  fs.writeFileSync(path.join(workspace, NOT_A_TRAJECTORY), JSON.stringify({ name: 'left-pad', version: '1.3.0', main: 'index.js' }, null, 2));
  writeHostileTrajectory(workspace);
}

const OPEN_TITLE = 'Agent Trace Lens: Open Trajectory…';

/** The rows of one trajectory: its root row and everything below it up to the next root. */
export function subtreeOf(rows: Row[], title: string): { root: Row; rows: Row[] } {
  const start = rows.findIndex((r) => r.level === 1 && r.label === title);
  assert.ok(start >= 0, `no root row titled ${JSON.stringify(title)}; roots: ${JSON.stringify(rows.filter((r) => r.level === 1).map((r) => r.label))}`);
  let end = start + 1;
  while (end < rows.length && rows[end].level > 1) end++;
  return { root: rows[start], rows: rows.slice(start + 1, end) };
}

/** Expands the trajectory's root and every turn, then returns its rows. */
export async function expandedTrajectory(wb: Workbench, title: string): Promise<{ root: Row; rows: Row[] }> {
  await wb.expand(await wb.traceRow(title));
  for (let n = 1; ; n++) {
    const turns = subtreeOf(await wb.traceRows(), title).rows.filter((r) => /^Turn \d+$/.test(r.label));
    const closed = turns.find((r) => r.expanded === false);
    if (!closed) break;
    await wb.expand(await wb.traceRowAt(closed.index));
    assert.ok(n < 50, 'turns kept collapsing');
  }
  return subtreeOf(await wb.traceRows(), title);
}

/** The tree shows the file the way `stats` reads it: title, format, turns, and every step by kind and tool. */
function assertTreeMatches(view: { root: Row; rows: Row[] }, want: Expected): void {
  assert.ok(view.root.description.includes(want.format), `root description ${JSON.stringify(view.root.description)} lacks the format ${want.format}`);
  assert.ok(view.root.description.includes(`${want.steps.toLocaleString('en-US')} steps`), `root description ${JSON.stringify(view.root.description)} lacks "${want.steps} steps"`);
  const turnRows = view.rows.filter((r) => /^Turn \d+$/.test(r.label));
  assert.deepEqual(turnRows.map((r) => r.label), Array.from({ length: want.turns }, (_, i) => `Turn ${i + 1}`));
  const stepRows = view.rows.filter((r) => kindOfLabel(r.label) !== undefined);
  const byKind: Record<string, number> = {};
  const tools: Record<string, number> = {};
  for (const row of stepRows) {
    const kind = kindOfLabel(row.label)!;
    byKind[kind] = (byKind[kind] ?? 0) + 1;
    if (kind === 'tool_call') {
      const name = row.label.slice(KIND_LABEL.tool_call.length).replace(/^\s*·\s*/, '');
      tools[name] = (tools[name] ?? 0) + 1;
    }
  }
  const nonZero = Object.fromEntries(Object.entries(want.byKind).filter(([, n]) => n > 0));
  assert.deepEqual(byKind, nonZero, 'step rows by kind differ from `stats`');
  assert.deepEqual(tools, want.tools, 'tool-call rows by tool differ from `stats`');
}

/** The first non-empty line of an observation in the raw SWE-agent file, for the step whose action starts with `command`. */
function rawObservation(file: string, command: string): string {
  const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as { trajectory: { action: string; observation: string }[] };
  const entry = raw.trajectory.find((t) => t.action.trim().split(/\s+/)[0] === command);
  assert.ok(entry, `the raw file has no ${command} action`);
  return entry.observation.split('\n').find((l) => l.trim() !== '')!.trim();
}

export function flat(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

export const SCENARIOS: Scenario[] = [
  {
    name: 'explorer-context-menu',
    async run({ wb, repo, workspace, shot }) {
      const file = path.join(workspace, 'pydicom__pydicom-1458.traj');
      const want = expectedFor(repo, file);
      await wb.explorerContextMenu('pydicom__pydicom-1458.traj', 'Open as Trajectory');
      await shot('after-menu');
      const view = await expandedTrajectory(wb, want.title);
      await wb.traceRow(want.title); // back to the top, for the picture
      await shot('tree');
      assertTreeMatches(view, want);
    },
  },
  {
    name: 'step-opens-read-only-document',
    async run({ wb, repo, workspace, shot }) {
      const file = path.join(workspace, 'pydicom__pydicom-1458.traj');
      const want = expectedFor(repo, file);
      // Opening an open file again is harmless; it keeps this scenario independent of the first.
      await wb.explorerContextMenu('pydicom__pydicom-1458.traj', 'Open as Trajectory');
      await wb.expand(await wb.traceRow(want.title));
      // An observation: its text is the tool's output, as the raw log recorded it.
      const row = await wb.traceRow('observation · python');
      await row.click();
      await wb.page.waitForFunction(() => /observation · python/.test(document.querySelector('.tabs-container .tab.active')?.textContent ?? ''), undefined, { timeout: 15_000 });
      await shot('observation');
      const text = await wb.activeEditorText();
      const line = rawObservation(file, 'python');
      assert.ok(flat(text).includes(flat(line)), `the step tab does not show the observation's first line ${JSON.stringify(line)}; it shows ${JSON.stringify(text.slice(0, 300))}`);
      // Typing into it changes nothing: the document is read-only.
      await wb.page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
      await wb.page.keyboard.type('ZZTYPEDZZ');
      await wb.page.waitForTimeout(300);
      assert.ok(!(await wb.activeEditorText()).includes('ZZTYPEDZZ'), 'the step document accepted typing');
      assert.ok(await wb.activeEditorIsReadOnly(), 'the step editor is not marked read-only');
      await shot('typed-into-read-only');
      // A tool call shows its arguments: the file the agent created.
      await (await wb.traceRow('tool call · create')).click();
      await wb.page.waitForFunction(() => /tool call · create/.test(document.querySelector('.tabs-container .tab.active')?.textContent ?? ''), undefined, { timeout: 15_000 });
      assert.match(await wb.activeEditorText(), /reproduce_bug\.py/);
      await shot('tool-call');
      await wb.closeAllEditors();
    },
  },
  {
    name: 'command-palette-open',
    async run({ wb, repo, workspace, shot }) {
      const file = path.join(workspace, 'basic_interactions.json');
      const want = expectedFor(repo, file);
      assert.ok(want.turns > 1, 'this scenario needs a multi-turn file');
      await wb.runCommand(OPEN_TITLE);
      await shot('file-dialog');
      await wb.answerFileDialog(file);
      await wb.traceRow(want.title);
      const view = await expandedTrajectory(wb, want.title);
      await shot('tree');
      assertTreeMatches(view, want);
    },
  },
  {
    name: 'view-follows-active-editor',
    async run({ wb, repo, workspace, shot }) {
      const want = expectedFor(repo, path.join(workspace, 'basic.json'));
      const before = (await wb.traceRows()).filter((r) => r.level === 1).map((r) => r.label);
      assert.ok(!before.includes(want.title), 'basic.json is in the view before it was opened');
      await wb.openInEditor('basic.json');
      await shot('editor');
      const row = await wb.traceRow(want.title);
      assert.ok((await row.getAttribute('aria-level')) === '1', 'basic.json should appear as a root of the view');
      await shot('followed');
      const view = subtreeOf(await wb.traceRows(), want.title);
      assert.ok(view.root.description.includes(want.format));
      await wb.closeAllEditors();
    },
  },
  {
    name: 'unrecognized-json-error',
    async run({ wb, workspace, shot }) {
      await wb.runCommand(OPEN_TITLE);
      await wb.answerFileDialog(path.join(workspace, NOT_A_TRAJECTORY));
      const message = await wb.waitForNotification(new RegExp(NOT_A_TRAJECTORY.replace('.', '\\.')));
      await shot('error');
      const toast = wb.page.locator('.notification-toast', { hasText: NOT_A_TRAJECTORY }).first();
      assert.ok(await toast.locator('.codicon-error').count() > 0, `the notification is not an error: ${message}`);
      const roots = (await wb.traceRows()).filter((r) => r.level === 1).map((r) => r.label);
      assert.ok(!roots.some((r) => r.includes(NOT_A_TRAJECTORY)), 'the unrecognized file was added to the view');
    },
  },
];

/** Runs last: it opens the log itself in an editor, which the other scenarios do not expect. */
export const LAST_SCENARIOS: Scenario[] = [
  {
    name: 'reveal-in-source-and-title-button',
    async run({ wb, repo, workspace, shot }) {
      const file = path.join(workspace, 'pydicom__pydicom-1458.traj');
      const want = expectedFor(repo, file);
      await wb.explorerContextMenu('pydicom__pydicom-1458.traj', 'Open as Trajectory');
      await wb.expand(await wb.traceRow(want.title));
      // "Reveal in Source" opens the log itself (a normal, editable file) at the step's record.
      await wb.contextMenu(await wb.traceRow('observation · python'), 'Reveal in Source');
      await wb.page.waitForFunction(() => /pydicom__pydicom-1458\.traj/.test(document.querySelector('.editor-group-container.active .tabs-container .tab.active')?.textContent ?? ''), undefined, { timeout: 15_000 });
      await shot('revealed');
      const first = rawObservation(file, 'python');
      const visible = flat((await wb.activeEditorText()).replace(/\\n/g, ' '));
      assert.ok(visible.includes(flat(first)), `the revealed part of the file does not show the observation ${JSON.stringify(first)}`);
      // The log itself, not one of our step documents (those tabs are named "step N — …").
      assert.doesNotMatch((await wb.activeTab().textContent()) ?? '', /^\s*step \d+/, 'Reveal in Source opened a step document, not the file');
      // With a trajectory as the active editor, its title bar offers "Open as Trajectory".
      const button = wb.page.locator('.editor-group-container.active .editor-actions [aria-label="Open as Trajectory"]').first();
      await button.waitFor({ timeout: 10_000 });
      await button.click();
      const root = await wb.traceRow(want.title);
      assert.equal(await root.getAttribute('aria-level'), '1');
      await shot('title-button');
      await wb.closeAllEditors();
    },
  },
];
