// Every format added since the first release, opened in the real workbench as a person would:
// the tree with its format and step count (from `stats --json`), exact token counts, Compact
// Range… on the first steps, Export as ATIF… from the tree, and Open as JSON for a file no
// format reads. Files are the real ones under test/fixtures, copied into the workspace.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkAtif } from '../../src/core/formats/atifRules';
import { expectedFor } from './expected';
import { REPORT_TAB_PREFIX, ReportView } from './reportView';
import { NOT_A_TRAJECTORY, subtreeOf, type Context, type Scenario } from './scenarios';
import type { Row } from './workbench';

interface FormatFile {
  format: string;
  /** Name in the workspace (under formats/), and its source under test/fixtures. */
  name: string;
  source: string;
  /** A folder (a Cline task) or an Aider history is opened from the Explorer; files from the palette. */
  open: 'palette' | 'explorer';
  /** Names its screenshots and messages where the format has more than one file (else the format). */
  tag?: string;
}

const DIR = 'formats';
export const FORMAT_FILES: FormatFile[] = [
  { format: 'atif', name: 'terminus-2.trajectory.json', source: 'atif/terminus-2-context-summarization.trajectory.json', open: 'palette' },
  { format: 'otel', name: 'any-agent.trace.json', source: 'otel/any-agent-openai.trace.json', open: 'palette' },
  { format: 'gemini-cli', name: 'session-hello-world.json', source: 'gemini-cli/session-hello-world.json', open: 'palette' },
  // JSON Lines: each message's steps are made as its line is read (a later line may rewind or replace it).
  { format: 'gemini-cli', name: 'session-2026-04-29T21-39-gemini.jsonl', source: 'gemini-cli/agent-sessions-v040.jsonl', open: 'palette', tag: 'gemini-cli-jsonl' },
  { format: 'copilot-cli', name: 'events.jsonl', source: 'copilot-cli/events.jsonl', open: 'palette' },
  { format: 'opencode', name: 'opencode-crud.json', source: 'opencode/crud.json', open: 'palette' },
  { format: 'cline', name: 'cline-task', source: 'cline/task-crud', open: 'explorer' },
  { format: 'aider', name: 'aider-caching.aider.chat.history.md', source: 'aider/aider-caching.aider.chat.history.md', open: 'explorer' },
  { format: 'runs', name: 'tau-bench.json', source: 'runs/tau-bench-gpt-4o-airline.json', open: 'palette' },
];

export function fillFormatFiles(workspace: string, repo: string): void {
  const dir = path.join(workspace, DIR);
  fs.mkdirSync(dir, { recursive: true });
  for (const f of FORMAT_FILES) fs.cpSync(path.join(repo, 'test', 'fixtures', f.source), path.join(dir, f.name), { recursive: true });
}

async function openFormatFile(ctx: Context, f: FormatFile): Promise<{ title: string; want: ReturnType<typeof expectedFor> }> {
  const { wb, repo, workspace } = ctx;
  const file = path.join(workspace, DIR, f.name);
  const want = expectedFor(repo, file);
  assert.equal(want.format, f.format, `stats --json reads ${f.name} as ${want.format}`);
  if (f.open === 'palette') {
    await wb.runCommand('Agent Trace Lens: Open Trajectory…');
    await wb.answerFileDialog(file);
  } else {
    await wb.expandExplorerFolder(DIR);
    await wb.explorerContextMenu(f.name, 'Open as Trajectory');
  }
  await wb.traceRow(want.title);
  return { title: want.title, want };
}

/** Waits until the root row shows exact token counts (no ≈), and returns it. */
export async function exactRoot(ctx: Context, title: string): Promise<Row> {
  for (const deadline = Date.now() + 90_000; ; await ctx.wb.page.waitForTimeout(250)) {
    const root = (await ctx.wb.visibleTraceRows()).find((r) => r.level === 1 && r.label === title);
    if (root && !root.description.includes('≈') && /\d[kM]? tok\b/.test(root.description)) return root;
    assert.ok(Date.now() < deadline, `the counts of ${title} never became exact: ${JSON.stringify(root?.description)}`);
  }
}

/** Expands the root (and, for a file of many runs, its first run) and its turns; returns the step rows. */
async function expandSteps(ctx: Context, title: string): Promise<Row[]> {
  const { wb } = ctx;
  await wb.expand(await wb.traceRow(title));
  const firstRun = subtreeOf(await wb.traceRows(), title).rows.find((r) => r.level === 2 && !/^Turn \d+$/.test(r.label) && !/warning/.test(r.label));
  if (firstRun && firstRun.expanded === false) await wb.expand(await wb.traceRowAt(firstRun.index));
  for (let n = 0; n < 3; n++) {
    const turn = subtreeOf(await wb.traceRows(), title).rows.find((r) => /^Turn \d+$/.test(r.label) && r.expanded === false);
    if (!turn) break;
    await wb.expand(await wb.traceRowAt(turn.index));
  }
  return subtreeOf(await wb.traceRows(), title).rows.filter((r) => /^(system|user|thought|assistant|tool call|observation|compaction|other)\b/.test(r.label));
}

/** Expands a trajectory and its turns; returns all its rows. */
async function expandAll(ctx: Context, title: string): Promise<Row[]> {
  await expandSteps(ctx, title);
  return subtreeOf(await ctx.wb.traceRows(), title).rows;
}

/** The step rows of the first turn (the rows one level below its "Turn 1" row). */
function firstTurnSteps(rows: Row[]): Row[] {
  const at = rows.findIndex((r) => /^Turn \d+$/.test(r.label));
  assert.ok(at >= 0, 'no turn row');
  const out: Row[] = [];
  for (let i = at + 1; i < rows.length && rows[i].level > rows[at].level; i++) if (rows[i].level === rows[at].level + 1) out.push(rows[i]);
  assert.ok(out.length > 0, 'the first turn shows no steps');
  return out;
}

async function closeTrajectory(ctx: Context, title: string): Promise<void> {
  const row = await ctx.wb.traceRow(title);
  await row.hover();
  await row.locator('.action-label[aria-label="Close Trajectory"]').click();
  await ctx.wb.page.waitForFunction((t) => !Array.from(document.querySelectorAll('.monaco-list[aria-label^="Trajectories"] .monaco-list-row[aria-level="1"] .label-name')).some((e) => e.textContent === t), title, { timeout: 10_000 });
}

/**
 * Closes what earlier scenarios left in the view. A long expanded run (the sphinx run of
 * whole-run-recorded) makes every full walk of the tree scroll through its rows: in the whole
 * suite this scenario took 779 s with it open and 91 s without.
 */
export async function closeOpenTrajectories(ctx: Context): Promise<void> {
  if (!(await ctx.wb.traceViewHasTrajectories())) return;
  // As a person clears a crowded view: the view's own Close All, not a walk of every root.
  await ctx.wb.runCommand('Agent Trace Lens: Close All Trajectories');
  await ctx.wb.page.waitForFunction(() => document.querySelectorAll('.monaco-list[aria-label^="Trajectories"] .monaco-list-row[aria-level="1"]').length === 0, undefined, { timeout: 10_000 });
}

export const FORMAT_SCENARIOS: Scenario[] = [
  {
    name: 'formats-open-count-compact',
    async run(ctx) {
      const { wb, shot } = ctx;
      const report = new ReportView(wb.page);
      await wb.closeAllEditors();
      await closeOpenTrajectories(ctx);
      for (const f of FORMAT_FILES) {
        await wb.closeAllEditors();
        const tag = f.tag ?? f.format;
        const { title, want } = await openFormatFile(ctx, f);
        const root = await exactRoot(ctx, title);
        // e.g. "atif · openai/gpt-4o · 24 steps · 9.1k tok (o200k_base)": the format id, then the model
        // and day where the log names them (so many open files can be told apart), then the step count of `stats --json`.
        assert.ok(new RegExp(`^${want.format} · (?:[^·]+ · )*${want.steps.toLocaleString('en-US')} steps · `).test(root.description), `${tag}: root row ${JSON.stringify(root.description)}; stats: ${want.format}, ${want.steps} steps`);
        const steps = await expandSteps(ctx, title);
        assert.ok(steps.length >= 2, `${tag}: fewer than two step rows`);
        assert.ok(steps.every((r) => /\d[kM]? tok\b/.test(r.description) && !r.description.includes('≈')), `${tag}: a step row lacks an exact count`);
        await wb.traceRow(title);
        await shot(`${tag}-tree`);
        // Compact Range… on the first turn's first steps, with a deterministic strategy: the report opens.
        const turn = firstTurnSteps(subtreeOf(await wb.traceRows(), title).rows).slice(0, 4);
        const stepOf = async (row: Row) => Number(/, step (\d+),/.exec((await (await wb.traceRowAt(row.index)).getAttribute('aria-label')) ?? '')?.[1]);
        const first = await stepOf(turn[0]);
        const second = await stepOf(turn[turn.length - 1]);
        await wb.selectStepRange(first, second);
        await wb.contextMenu(await wb.traceStepRow(second), 'Compact Range…');
        await wb.pickQuickItem('SWE-agent observation masking (last N observations)', 'observation masking');
        await wb.pickQuickItem('Run');
        // A file of many runs compacts its run: the tab is named after the run, not the file.
        await wb.page.locator('.tabs-container .tab', { hasText: REPORT_TAB_PREFIX }).first().waitFor({ timeout: 30_000 });
        await report.waitForReport(60_000);
        assert.match(await report.headline('tokens'), /^[\d,]+ → [\d,]+$/, `${tag}: no tokens headline`);
        await wb.parkMouse();
        await shot(`${tag}-report`);
        await wb.closeAllEditors();
        await closeTrajectory(ctx, title);
      }
    },
  },
  {
    name: 'formats-export-atif',
    async run(ctx) {
      const { wb, workspace, shot } = ctx;
      await closeOpenTrajectories(ctx);
      const f = FORMAT_FILES.find((x) => x.format === 'runs')!;
      const { title } = await openFormatFile(ctx, f);
      await wb.expand(await wb.traceRow(title));
      const run = subtreeOf(await wb.traceRows(), title).rows.find((r) => r.level === 2 && /^task 1:/.test(r.label));
      assert.ok(run, 'no row for task 1');
      // The run's node says how it went, from its record.
      assert.match(run.description, /^reward 0 · trial 0 · \d+ steps/);
      await shot('run-outcome');
      await wb.contextMenu(await wb.traceRowAt(run.index), 'Export as ATIF…');
      const target = path.join(workspace, DIR, 'task-1.atif.json');
      await wb.answerFileDialog(target);
      await wb.waitForNotification(/Exported as ATIF/);
      await shot('exported');
      const doc = JSON.parse(fs.readFileSync(target, 'utf8')) as { steps: unknown[]; extra: { taskId: string } };
      assert.deepEqual(checkAtif(doc), []);
      assert.equal(doc.extra.taskId, '1');
      await closeTrajectory(ctx, title);

      // A compacted run saved from the report as ATIF: the summary is a context-management step.
      await wb.clearNotifications();
      const atif = FORMAT_FILES.find((x) => x.format === 'atif')!;
      const opened = await openFormatFile(ctx, atif);
      const steps = firstTurnSteps((await expandAll(ctx, opened.title)));
      const stepOf = async (row: Row) => Number(/, step (\d+),/.exec((await (await wb.traceRowAt(row.index)).getAttribute('aria-label')) ?? '')?.[1]);
      await wb.selectStepRange(await stepOf(steps[1]), await stepOf(steps[6]));
      await wb.contextMenu(await wb.traceStepRow(await stepOf(steps[6])), 'Compact Range…');
      await wb.pickQuickItem('OpenHands LLM summarizing condenser', 'summarizing condenser');
      await wb.pickQuickItem('Run');
      const report = new ReportView(wb.page);
      await report.waitForReport(60_000);
      await report.click('action-save');
      await wb.pickQuickItem('ATIF');
      const saved = path.join(workspace, DIR, 'terminus-2.compacted.atif.json');
      await wb.answerFileDialog(saved);
      await wb.page.waitForTimeout(1_000);
      await shot('compacted-saved');
      const compacted = JSON.parse(fs.readFileSync(saved, 'utf8')) as { steps: { source: string; extra?: { context_management?: { type: string } } }[] };
      assert.deepEqual(checkAtif(compacted), []);
      assert.ok(compacted.steps.filter((s) => s.source === 'system' && s.extra?.context_management).length >= 1, 'no context-management step for the summary');
      await wb.closeAllEditors();
      await closeTrajectory(ctx, opened.title);
    },
  },
  {
    name: 'unknown-file-open-as-json',
    async run({ wb, workspace, shot }) {
      await wb.clearNotifications();
      await wb.runCommand('Agent Trace Lens: Open Trajectory…');
      await wb.answerFileDialog(path.join(workspace, NOT_A_TRAJECTORY));
      await wb.waitForNotification(/it is a JSON object with keys name, version, main/);
      const toast = wb.page.locator('.notification-toast', { hasText: NOT_A_TRAJECTORY }).first();
      await shot('error');
      await toast.locator('.monaco-button', { hasText: 'Open as JSON' }).click();
      await wb.editorTab(NOT_A_TRAJECTORY).waitFor({ timeout: 15_000 });
      assert.match(await wb.activeEditorText(), /"left-pad"/);
      const language = await wb.page.locator('#status\\.editor\\.mode').innerText();
      assert.match(language, /JSON/);
      await shot('opened-as-json');
      // A plain JSON file in the editor: no run's tokens stay in the status bar.
      await wb.statusBarEntry('agentTraceLens.tokens').waitFor({ state: 'hidden', timeout: 10_000 });
      await wb.statusBarEntry('agentTraceLens.context').waitFor({ state: 'hidden', timeout: 10_000 });
      // Asked again while it is open as JSON: the error says why, without offering what is done.
      await wb.clearNotifications();
      await wb.runCommand('Agent Trace Lens: Open Trajectory…');
      await wb.answerFileDialog(path.join(workspace, NOT_A_TRAJECTORY));
      await wb.waitForNotification(/it is a JSON object with keys name, version, main/);
      const again = wb.page.locator('.notification-toast', { hasText: NOT_A_TRAJECTORY }).first();
      await wb.parkMouse();
      await shot('already-open-as-json');
      assert.equal(await again.locator('.monaco-button', { hasText: 'Open as JSON' }).count(), 0, 'offers to open as JSON a file open as JSON');
      await wb.clearNotifications();
      await wb.closeAllEditors();
    },
  },
];
