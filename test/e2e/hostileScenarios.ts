// Issue 23 in the real workbench: a hostile log must not freeze VS Code. The ATIF subagent fan-out
// is opened and a catastrophic-backtracking pattern typed into the tree's filter, and the workbench
// still answers (the command palette opens, the Explorer lists the folder). A file over the parse
// budget is stopped in its worker with a message naming the file, the budget and the setting, whether
// it is opened (parse worker) or followed as it grows (follow worker). The 6 MB payloads of tiny
// records (Gemini CLI rewinds, OpenCode summary messages) open, counted as the CLI counts them.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { atifFanout, geminiRewinds, opencodeSummaries, sized } from '../helpers/hostilePayloads';
import { expectedFor } from './expected';
import { closeOpenTrajectories, exactRoot } from './formatScenarios';
import type { Context, Scenario } from './scenarios';
import type { Workbench } from './workbench';

const FANOUT = 'hostile-fanout.json';
const OVER_BUDGET = 'over-budget.jsonl';
const FOLLOWED_OVER_BUDGET = 'followed-over-budget.jsonl';
const PATTERN = '/(a+)+$/';
/** How long the workbench may take to answer while the hostile work runs. */
const RESPONSIVE_MS = 5_000;

/**
 * Opens `file` once the 64 MB setting is in effect and returns the message that stopped it. VS Code
 * picks a workspace settings file up on its own time: in CI run 48, and once locally with this
 * scenario alone, 3 s after writing it, it had not, and the file opened whole (a 64 MB worker stops
 * this file every time; workers.parseBudget.test.ts). Only then (the tree shows the file opened in
 * full) is it tried again, twice at most, after a longer wait; a budget that never stops it fails.
 */
async function openOverBudget(ctx: Context, file: string): Promise<string> {
  const { wb } = ctx;
  for (let attempt = 1; ; attempt++) {
    await wb.page.waitForTimeout(3_000 * attempt); // the settings file is picked up
    await wb.clearNotifications();
    await wb.runCommand('Agent Trace Lens: Open Trajectory…');
    await wb.answerFileDialog(file);
    try {
      return await wb.waitForNotification(/over-budget\.jsonl.*64 MB/, 60_000);
    } catch (e) {
      const openedWhole = (await wb.onScreen()).traceRows.some((row) => /^0:.* · [\d,]+ steps · /.test(row));
      if (!openedWhole || attempt === 3) throw e;
      console.log(`     the 64 MB setting was not yet in effect (the file opened whole); trying again (${attempt + 1} of 3)`);
      await closeOpenTrajectories(ctx);
    }
  }
}

/** The command palette opens and takes text within `RESPONSIVE_MS`; returns how long it took. */
async function paletteAnswers(wb: Workbench): Promise<number> {
  const started = Date.now();
  await wb.page.keyboard.press('F1');
  const input = wb.page.locator('.quick-input-widget input');
  await input.waitFor({ timeout: RESPONSIVE_MS });
  await input.fill('>Agent Trace Lens', { timeout: RESPONSIVE_MS });
  await wb.page.locator('.quick-input-list .monaco-list-row').first().waitFor({ timeout: RESPONSIVE_MS });
  return Date.now() - started;
}

/** The Explorer (another tree) shows the workspace's files within `RESPONSIVE_MS`; returns how long it took. */
async function explorerAnswers(wb: Workbench, fileName: string): Promise<number> {
  const started = Date.now();
  await wb.page.keyboard.press('Control+Shift+E');
  await wb.page.locator('.explorer-folders-view .monaco-list-row', { hasText: fileName }).first().waitFor({ timeout: RESPONSIVE_MS });
  return Date.now() - started;
}

/** Writes chat lines numbered from `from` to `file` until about `bytes` ('a': appended). */
function writeChat(file: string, from: number, bytes: number, flags = 'w'): void {
  const line = (i: number) => JSON.stringify({ role: i % 2 ? 'assistant' : 'user', content: `${i} ${'The agent reads the file and reports what it found. '.repeat(40)}` }) + '\n';
  const fd = fs.openSync(file, flags);
  try {
    for (let i = from, size = 0; size < bytes; i++) size += fs.writeSync(fd, line(i));
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes workspace settings; the extension reads them at the next open. */
function workspaceSettings(workspace: string, settings: Record<string, unknown> | undefined): void {
  const file = path.join(workspace, '.vscode', 'settings.json');
  if (!settings) { fs.rmSync(file, { force: true }); return; }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(settings, null, 2));
}

export const HOSTILE_SCENARIOS: Scenario[] = [
  {
    name: 'hostile-fanout-filter',
    async run(ctx) {
      const { wb, repo, workspace, shot } = ctx;
      await closeOpenTrajectories(ctx);
      const file = path.join(workspace, FANOUT);
      // The red team's size: about 9.8 KB of ATIF whose subagents are referenced over and over, four deep.
      let fanout = 2;
      while (atifFanout(fanout + 1).length <= 9.8 * 1024) fanout++;
      fs.writeFileSync(file, atifFanout(fanout));
      const want = expectedFor(repo, file);

      await wb.runCommand('Agent Trace Lens: Open Trajectory…');
      await wb.answerFileDialog(file);
      await wb.traceRow(want.title);
      await shot('opened');

      await wb.runCommand('Agent Trace Lens: Filter Steps…');
      const input = wb.page.locator('.quick-input-widget input');
      await input.waitFor();
      // Keys typed while the box is still taking focus are lost: type once it has it, as a person would.
      await wb.page.locator('.quick-input-widget input[placeholder^="text or /regex/"]').waitFor();
      await wb.page.waitForFunction(() => (document.activeElement as HTMLInputElement | null)?.placeholder?.startsWith('text or /regex/') === true);
      await input.pressSequentially(PATTERN, { delay: 40 });
      await wb.page.waitForTimeout(500);
      assert.equal(await input.inputValue(), PATTERN, 'the whole pattern was typed into the filter box');
      await shot('filter-typed');
      await input.press('Enter');
      await wb.page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: RESPONSIVE_MS });

      const palette = await paletteAnswers(wb);
      await shot('palette-open');
      await wb.page.keyboard.press('Escape');
      const explorer = await explorerAnswers(wb, FANOUT);
      await shot('explorer-answers');
      console.log(`     ${fanout}-way fan-out (${fs.statSync(file).size} bytes): palette answered in ${palette} ms, the Explorer in ${explorer} ms`);

      await wb.runCommand('Agent Trace Lens: Clear Filter').catch(() => undefined);
      await closeOpenTrajectories(ctx);
      fs.rmSync(file, { force: true });
    },
  },
  {
    name: 'hostile-parse-budget',
    async run(ctx) {
      const { wb, workspace, shot } = ctx;
      await closeOpenTrajectories(ctx);
      const file = path.join(workspace, OVER_BUDGET);
      // The settings first: VS Code picks the file up on its own time, and once, after a scenario that
      // opened two 6 MB files, 1.5 s after writing it was not enough (the 120 MB file opened whole).
      workspaceSettings(workspace, { 'agentTraceLens.parse.maxHeapMB': 64, 'agentTraceLens.liveFollow': false });
      // 120 MB of chat lines: its records alone need more than the 64 MB heap the settings allow.
      writeChat(file, 0, 120 * 1024 * 1024);
      try {
        const message = await openOverBudget(ctx, file);
        assert.match(message, /over-budget\.jsonl: reading it was stopped at 64 MB of memory.*Raise agentTraceLens\.parse\.maxHeapMB/, message);
        await shot('over-budget-message');
        const palette = await paletteAnswers(wb);
        await wb.page.keyboard.press('Escape');
        console.log(`     over-budget message: ${message}; palette answered in ${palette} ms`);
      } finally {
        fs.rmSync(file, { force: true });
      }

      // Followed (live follow on): the follow worker reads it with the same budget. It opens small,
      // then grows past what 64 MB of heap can read: the read is stopped, the tree keeps what it had.
      const followed = path.join(workspace, FOLLOWED_OVER_BUDGET);
      writeChat(followed, 0, 4 * 1024);
      workspaceSettings(workspace, { 'agentTraceLens.parse.maxHeapMB': 64, 'agentTraceLens.liveFollow': true });
      try {
        await wb.page.waitForTimeout(1_500);
        await wb.clearNotifications();
        await wb.runCommand('Agent Trace Lens: Open Trajectory…');
        await wb.answerFileDialog(followed);
        const opened = expectedFor(ctx.repo, followed);
        const root = await wb.traceRow(opened.title);
        await root.locator('.label-description', { hasText: `${opened.steps.toLocaleString('en-US')} steps` }).waitFor({ timeout: 20_000 });
        writeChat(followed, 1_000, 120 * 1024 * 1024, 'a');
        const message = await wb.waitForNotification(/followed-over-budget\.jsonl.*64 MB/, 90_000);
        assert.match(message, /followed-over-budget\.jsonl: reading it was stopped at 64 MB of memory.*Raise agentTraceLens\.parse\.maxHeapMB.*no longer followed/, message);
        const after = (await (await wb.traceRow(opened.title)).locator('.label-description').textContent()) ?? '';
        // The tree keeps what it showed: the file as opened, or (on a slow disk, read while it was
        // being written) the part read before the budget stopped it; never nothing, never all of it.
        const kept = Number(/([\d,]+) steps/.exec(after)?.[1].replace(/,/g, '') ?? NaN);
        assert.ok(kept >= opened.steps, `the tree keeps what it showed: "${after}", opened with ${opened.steps} steps`);
        await shot('followed-over-budget-message');
        const palette = await paletteAnswers(wb);
        await wb.page.keyboard.press('Escape');
        const explorer = await explorerAnswers(wb, FOLLOWED_OVER_BUDGET);
        console.log(`     followed over-budget message: ${message}; tree kept "${after}"; palette answered in ${palette} ms, Explorer in ${explorer} ms`);
      } finally {
        workspaceSettings(workspace, undefined);
        await closeOpenTrajectories(ctx);
        fs.rmSync(followed, { force: true });
      }
    },
  },
  {
    // Last of these: in CI, run before `hostile-parse-budget` (runs 19 and 20), that scenario's 64 MB
    // workspace setting had not taken effect when it opened its file; in that order locally it had.
    name: 'hostile-small-records',
    async run(ctx) {
      const { wb, repo, workspace, shot } = ctx;
      await closeOpenTrajectories(ctx);
      const payloads: [string, string, string][] = [
        ['gemini-rewinds', 'session-2026-01-01T00-00-rewinds.jsonl', sized(geminiRewinds, 6 * 1024 * 1024)],
        ['opencode-summaries', 'opencode-summaries.json', sized(opencodeSummaries, 6 * 1024 * 1024)],
      ];
      for (const [tag, name, text] of payloads) {
        const file = path.join(workspace, name);
        fs.writeFileSync(file, text);
        const want = expectedFor(repo, file);
        await wb.runCommand('Agent Trace Lens: Open Trajectory…');
        await wb.answerFileDialog(file);
        const root = await exactRoot(ctx, want.title);
        assert.ok(root.description.includes(` ${want.steps.toLocaleString('en-US')} steps · `), `${tag}: root row ${JSON.stringify(root.description)}; stats: ${want.steps} steps`);
        await shot(tag);
        const palette = await paletteAnswers(wb);
        await wb.page.keyboard.press('Escape');
        console.log(`     ${tag} (${(fs.statSync(file).size / 1024 / 1024).toFixed(1)} MB, ${want.steps} steps): opened, palette answered in ${palette} ms`);
        await closeOpenTrajectories(ctx);
        fs.rmSync(file, { force: true });
      }
    },
  },
];
