// Token counts, compaction from the tree's context menu, the report panel and hostile content,
// in the real workbench. Expected numbers come from the bundled CLI (`stats`, `compact`) run on the
// same file with the same model, so a difference means the extension's wiring differs from the core's.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Dialog, Locator } from 'playwright-core';
import { compactCount, expectedBill, expectedCompaction, expectedFor, expectedSimulation, expectedTokens, percentText, settingValue, thousands, type ExpectedCompaction } from './expected';
import { percent, usd } from '../../src/webview/report/format';
import { HOSTILE_FILE, HOSTILE_STEPS, HOSTILE_TITLE, PAYLOADS } from './fixtures';
import { ReportView } from './reportView';
import { flat, subtreeOf, type Context, type Scenario } from './scenarios';
import type { Row, Workbench } from './workbench';

const PYDICOM = 'pydicom__pydicom-1458.traj';
const SPHINX = 'sphinx-doc__sphinx-9711.traj.json';
const SUMMARY = { id: 'openhands-summary', label: 'OpenHands LLM summarizing condenser' };
const MASKING = { id: 'observation-masking', label: 'SWE-agent observation masking (last N observations)' };
/** The strategies agents and APIs use in 2026: they must show wherever the others do. */
const STRATEGIES_2026 = [
  { id: 'anthropic-context-editing', label: 'Anthropic context editing (clear tool uses, clear thinking)' },
  { id: 'claude-code-compact', label: 'Claude Code compaction (micro-compact, then /compact)' },
  { id: 'codex-compact', label: 'Codex CLI compaction (hand-off summary)' },
  { id: 'langchain-summarization', label: 'LangChain SummarizationMiddleware' },
];
/** The steps the compaction scenarios select in the pydicom trajectory (thoughts, calls, observations). */
const PYDICOM_RANGE: [number, number] = [5, 20];

/** A step row's own count, e.g. "≈60 tok · First, I'll…" → { value: 60, approx: true }; k and M rounded. */
function stepCount(description: string): { low: number; high: number; approx: boolean } | undefined {
  const m = /^(≈?)(\d+(?:\.\d+)?)([kM]?) tok(?: · |$)/.exec(description);
  if (!m) return undefined;
  const n = Number(m[2]);
  const unit = m[3] === 'k' ? 1000 : m[3] === 'M' ? 1_000_000 : 1;
  // formatCount keeps one decimal below 10k and 10M, none above; the half-step bounds the rounding.
  const half = unit === 1 ? 0 : (m[2].includes('.') || n < 10 ? 0.05 : 0.5) * unit;
  return { low: n * unit - half, high: n * unit + half, approx: m[1] === '≈' };
}

/** The model the extension counts compaction tokens with (`agentTraceLens.llm.model`). */
function compactionModel(repo: string, settings: Record<string, unknown>): string {
  const model = settingValue(repo, settings, 'agentTraceLens.llm.model');
  assert.ok(typeof model === 'string' && model !== '', 'agentTraceLens.llm.model has no value');
  return model;
}

/**
 * Selects steps `from`–`to` of an open trajectory (click, shift-click), right-clicks the selection,
 * picks "Compact Range…", the strategy and "Run". Returns the steps the tree had selected.
 */
async function compactRangeFromTree(wb: Workbench, from: number, to: number, strategyLabel: string, shot?: (step: string) => Promise<void>): Promise<number[]> {
  const selected = await wb.selectStepRange(from, to);
  assert.ok(selected.includes(from) && selected.includes(to), `the tree selected steps ${JSON.stringify(selected)}, not ${from}–${to}`);
  await shot?.('selection');
  await wb.contextMenu(await wb.traceStepRow(to), 'Compact Range…');
  await wb.page.locator('.quick-input-widget .quick-input-list .monaco-list-row').first().waitFor({ timeout: 15_000 });
  await shot?.('strategy-pick');
  await wb.pickQuickItem(strategyLabel, strategyLabel);
  // Strategies with options ask "Run" or "Edit options…" next.
  await wb.pickQuickItem('Run');
  return selected;
}

/**
 * The open strategy quick pick lists each 2026 strategy: typed by id (the list is virtual, so only
 * what the filter leaves is on screen), its label shows.
 */
async function assertStrategiesListed(wb: Workbench, shot?: (step: string) => Promise<void>): Promise<void> {
  const input = wb.page.locator('.quick-input-widget input');
  assert.equal((await wb.page.locator('.quick-input-widget .quick-input-title').innerText()).trim(), 'Compact with which strategy?');
  for (const s of STRATEGIES_2026) {
    await input.fill(s.id);
    await wb.page.locator('.quick-input-list .monaco-list-row .label-name', { hasText: s.label }).first().waitFor({ timeout: 10_000 });
  }
  await input.fill('compact');
  await wb.page.locator('.quick-input-list .monaco-list-row .label-name', { hasText: STRATEGIES_2026[2].label }).first().waitFor({ timeout: 10_000 });
  await wb.parkMouse();
  await shot?.('strategy-pick-2026');
  await input.fill('');
}

/** The report shows the same numbers the CLI printed for the same file, range, strategy and model. */
async function assertHeadlineMatches(report: ReportView, want: ExpectedCompaction): Promise<void> {
  assert.equal(await report.headline('tokens'), `${thousands(want.tokensBefore)} → ${thousands(want.tokensAfter)}`, 'tokens before → after differ from `compact --json`');
  assert.equal(await report.headline('reduction'), percentText(want.reduction), 'the reduction differs from `compact --json`');
  assert.equal(await report.headlineDetail('reduction'), `${thousands(want.stepsBefore)} → ${thousands(want.stepsAfter)} steps`, 'steps before → after differ from `compact --json`');
  const saved = want.tokensBefore - want.tokensAfter;
  assert.equal(await report.headlineDetail('tokens'), `${thousands(Math.abs(saved))} ${saved >= 0 ? 'fewer' : 'more'} · tokenizer ${want.tokenizer}${want.imageNote ? ` · ${want.imageNote}` : ''}`);
  assert.match((await report.headline('mode')).toLowerCase(), new RegExp(want.mode));
  const rangeLine = await report.frame().locator('.range-line strong').innerText();
  assert.equal(rangeLine, `Steps ${want.range[0]}–${want.range[1]}`);
}

/** Waits until the panel's headline shows `mode`'s strategy (a new run replaces the shown one). */
/**
 * The run's one cost, labelled, where the status bar and the tree's tooltip showed it: in the
 * Survey of a folder that holds only this run, and in the report's Overview and Whole run tabs.
 */
async function sameCostInSurveyAndReport({ wb, workspace, shot }: Context, file: string, title: string, want: { cost: string; costText: string }): Promise<void> {
  const label = want.costText.slice(want.cost.length + 1);
  const folder = `cost-of-${path.parse(file).name}`;
  fs.mkdirSync(path.join(workspace, folder), { recursive: true });
  fs.copyFileSync(file, path.join(workspace, folder, path.basename(file)));
  await wb.closeAllEditors();
  await wb.explorerContextMenu(folder, 'Survey Folder…');
  const survey = new ReportView(wb.page);
  await survey.frame().locator('.status', { hasText: /^1 run in 1 file/ }).waitFor({ timeout: 90_000 });
  const cells = await survey.frame().locator('tbody tr.run td').allInnerTexts();
  assert.equal(cells[7], want.costText, 'the Survey\'s Cost differs from the status bar and the tooltip');
  await wb.parkMouse();
  await shot('survey-cost');
  await wb.closeAllEditors();

  await wb.traceRow(title);
  await compactRangeFromTree(wb, 4, 19, MASKING.label);
  const report = new ReportView(wb.page);
  await report.tab(title).waitFor({ timeout: 30_000 });
  await waitForStrategy(report, MASKING.label);
  await report.openTab('overview');
  const card = report.frame().locator('#headline-cost');
  assert.equal((await card.locator('.card-value').innerText()).trim(), want.cost, 'the report\'s Run cost differs from the status bar');
  assert.ok((await card.innerText()).includes(label), `the report's Run cost card lacks the label ${label}: ${await card.innerText()}`);
  await wb.parkMouse();
  await shot('report-cost');
  await report.openTab('replay');
  const bill = await report.frame().locator('#replay-bill').innerText();
  assert.ok(bill.includes(`The run as it happened: ${want.cost}, ${label}`), bill);
  await report.frame().locator('#replay-bill').scrollIntoViewIfNeeded();
  await shot('report-whole-run-cost');
  await wb.closeAllEditors();
}

async function waitForStrategy(report: ReportView, label: string): Promise<void> {
  await report.waitForReport();
  await report.frame().locator('#headline-mode .card-detail', { hasText: label }).waitFor({ timeout: 30_000 });
}

const OPENHANDS_SUMMARY = { id: 'openhands-summary', label: 'OpenHands LLM summarizing condenser' };

/** Opens `file` (copied into the workspace), then compacts `range` of it from the palette with `strategy`; the report, once shown. */
async function compactFileFromPalette(wb: Workbench, file: string, title: string, strategy: { id: string; label: string }, range: string): Promise<ReportView> {
  await wb.runCommand('Agent Trace Lens: Open Trajectory…');
  await wb.answerFileDialog(file);
  await (await wb.traceRow(title)).click();
  await wb.runCommand('Agent Trace Lens: Compact Trajectory…');
  const quickTitle = wb.page.locator('.quick-input-widget .quick-input-title');
  await quickTitle.waitFor({ timeout: 15_000 });
  if ((await quickTitle.innerText()).trim() === 'Compact which trajectory?') await wb.pickQuickItem(title, title);
  await wb.pickQuickItem(strategy.label, strategy.id);
  await wb.pickQuickItem('Run');
  await wb.page.locator('.quick-input-widget .quick-input-title', { hasText: 'which steps?' }).waitFor({ timeout: 30_000 });
  await wb.page.locator('.quick-input-widget input').fill(range);
  await wb.page.keyboard.press('Enter');
  const report = new ReportView(wb.page);
  await report.tab(title).waitFor({ timeout: 60_000 });
  await waitForStrategy(report, strategy.label);
  return report;
}

/**
 * Copies a wild-log file into the workspace (`dest`, under it), compacts `range` of it from the
 * palette with `strategy`, and checks the panel's headline and summary against `compact --json`'s.
 */
async function compactWildFile(ctx: Context, wild: string, dest: string, strategy: { id: string; label: string }, range: [number, number]): Promise<{ report: ReportView; summary: string; want: ExpectedCompaction; title: string }> {
  const { wb, repo, workspace, settings } = ctx;
  const file = path.join(workspace, dest);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // A real log of the wild-log set (wild/files), or one copied into the fixtures (`test/fixtures/…`).
  fs.copyFileSync(wild.startsWith('test/fixtures/') ? path.join(repo, wild) : path.join(repo, 'wild', 'files', wild), file);
  const title = expectedFor(repo, file).title;
  const report = await compactFileFromPalette(wb, file, title, strategy, `${range[0]}-${range[1]}`);
  const want = expectedCompaction(repo, file, { strategy: strategy.id, range, model: compactionModel(repo, settings) });
  await assertHeadlineMatches(report, want);
  await report.openTab('range');
  const summary = await report.frame().locator('#summary-text').innerText();
  assert.equal(summary.trim(), want.summary!.trim(), 'the panel shows another summary than `compact --json`');
  return { report, summary, want, title };
}

/**
 * The loss report's rows for `range` of a real log compacted with a 2026 strategy from the palette
 * (compactWildFile), every entity shown, as many as `compact --json` lists.
 */
async function entityRowsOfWildFile(ctx: Context, wild: string, dest: string, strategyId: string, range: [number, number]): Promise<Locator> {
  const { report, want } = await compactWildFile(ctx, wild, dest, STRATEGIES_2026.find((x) => x.id === strategyId)!, range);
  await report.openTab('survival');
  await report.frame().locator('#entity-filter').selectOption('all');
  const rows = report.frame().locator('#panel-survival table.entities').last().locator('tbody tr');
  assert.equal(await rows.count(), want.entities.length, 'the panel lists another number of entities than compact --json');
  return rows;
}

/**
 * A scenario that compacts `range` of a real log (wild/files/`wild`) with openhands-summary from the
 * palette, checks the panel's summary against `compact --json` (compactWildFile) and with `check`,
 * and takes a screenshot named after it with `scrollTo` in the middle of the Summary side.
 */
function summaryScenario(name: string, wild: string, dest: string, range: [number, number], check: (summary: string) => void, scrollTo: string, options: { clearNotifications?: boolean; strategy?: { id: string; label: string } } = {}): Scenario {
  return {
    name,
    async run(ctx) {
      const { wb, shot } = ctx;
      await wb.closeAllEditors();
      const { report, summary } = await compactWildFile(ctx, wild, dest, options.strategy ?? OPENHANDS_SUMMARY, range);
      check(summary);
      await scrollSummaryTo(report, scrollTo);
      if (options.clearNotifications) await wb.clearNotifications();
      await wb.parkMouse();
      await shot(name);
      await wb.closeAllEditors();
    },
  };
}

/** Scrolls the Summary side (it scrolls on its own) so that `text` stands in its middle, for a screenshot. */
async function scrollSummaryTo(report: ReportView, text: string): Promise<void> {
  await report.frame().locator('#summary-text').evaluate((el: HTMLElement, wanted: string) => {
    const side = el.closest('section') as HTMLElement;
    const node = el.firstChild as Text;
    const at = node.data.indexOf(wanted);
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + 1);
    side.scrollTop += range.getBoundingClientRect().top - side.getBoundingClientRect().top - side.clientHeight / 2;
  }, text);
  await report.frame().locator('#panel-range').scrollIntoViewIfNeeded();
}

async function openPydicomReport({ wb, repo, workspace, settings }: Context, strategy: typeof SUMMARY, shot?: (step: string) => Promise<void>) {
  const file = path.join(workspace, PYDICOM);
  const title = expectedFor(repo, file).title;
  await wb.explorerContextMenu(PYDICOM, 'Open as Trajectory');
  await wb.traceRow(title);
  const selected = await compactRangeFromTree(wb, PYDICOM_RANGE[0], PYDICOM_RANGE[1], strategy.label, shot);
  const range: [number, number] = [Math.min(...selected), Math.max(...selected)];
  const report = new ReportView(wb.page);
  await report.tab(title).waitFor({ timeout: 30_000 });
  await waitForStrategy(report, strategy.label);
  const want = expectedCompaction(repo, file, { strategy: strategy.id, range, model: compactionModel(repo, settings) });
  return { report, title, want, file };
}

/** Evaluates in the webview page: did any payload run, did any markup become elements? */
async function webviewDamage(report: ReportView) {
  const frame = await report.pageFrame();
  return frame.evaluate(() => ({
    pwned: (window as unknown as { __pwned?: unknown }).__pwned,
    images: document.querySelectorAll('img').length,
    bold: document.querySelectorAll('b').length,
    // VS Code adds an inline script of its own to every webview; none may carry a payload.
    payloadScripts: Array.from(document.scripts).filter((s) => /__pwned|alert\(/.test(s.textContent ?? '')).length,
    bundle: Array.from(document.scripts).some((s) => s.src.endsWith('/report.main.js')),
  }));
}

export const COMPACTION_SCENARIOS: Scenario[] = [
  {
    name: 'token-counts',
    async run(ctx) {
      const { wb, repo, workspace, settings, shot } = ctx;
      const file = path.join(workspace, SPHINX);
      const model = settingValue(repo, settings, 'agentTraceLens.tokens.model');
      assert.ok(typeof model === 'string' && model !== '', 'run.sh should seed agentTraceLens.tokens.model, so the counts can be compared exactly');
      const want = expectedFor(repo, file);
      const tokens = expectedTokens(repo, file, model);
      await wb.explorerContextMenu(SPHINX, 'Open as Trajectory');
      await wb.traceRow(want.title);
      // Estimates (≈) first, exact counts as the workers deliver them: watch the rows on screen settle.
      let sawEstimate = false;
      let root: Row | undefined;
      for (const deadline = Date.now() + 60_000; ; await wb.page.waitForTimeout(200)) {
        const rows = await wb.visibleTraceRows();
        root = rows.find((r) => r.level === 1 && r.label === want.title);
        if (rows.some((r) => r.description.includes('≈'))) sawEstimate = true;
        if (root && !root.description.includes('≈') && /\d[kM]? tok\b/.test(root.description)) break;
        assert.ok(Date.now() < deadline, `the counts never became exact: ${JSON.stringify(root?.description)}`);
      }
      console.log(`     (${sawEstimate ? 'saw estimates become exact' : 'counts were exact by the first look'})`);
      await shot('tree');
      // e.g. "mini-swe-agent · 113 steps · 22k tok (o200k_base)"
      assert.ok(root.description.includes(` · ${compactCount(tokens.total)} tok`), `the trajectory row says ${JSON.stringify(root.description)}; stats --model ${model} counts ${tokens.total}`);
      assert.ok(root.description.includes(tokens.tokenizer), `the trajectory row does not name the tokenizer ${tokens.tokenizer}: ${JSON.stringify(root.description)}`);

      // Every step row carries its own exact count, and together they make the trajectory's total.
      const steps = subtreeOf(await wb.traceRows(), want.title).rows.filter((r) => /^(system|user|thought|assistant|tool call|observation|compaction|other)\b/.test(r.label));
      assert.equal(steps.length, want.steps, 'not every step has a row');
      let low = 0;
      let high = 0;
      for (const row of steps) {
        const count = stepCount(row.description);
        assert.ok(count, `step row ${JSON.stringify(row.label)} shows no token count: ${JSON.stringify(row.description)}`);
        assert.ok(!count.approx, `step row ${JSON.stringify(row.label)} is still an estimate: ${JSON.stringify(row.description)}`);
        low += count.low;
        high += count.high;
      }
      assert.ok(tokens.total >= low && tokens.total <= high, `the step rows add up to ${low}–${high}, not the ${tokens.total} stats counts`);

      // The exact figures are in the trajectory row's tooltip, worded as `stats` words them.
      const tooltip = flat(await wb.hoverText(await wb.traceRow(want.title)));
      assert.ok(tooltip.includes(flat(tokens.section)), `the trajectory tooltip lacks the CLI's token section ${JSON.stringify(flat(tokens.section))}: ${tooltip}`);

      // The status bar: the log's total (the context entry beside it says what is in use); the
      // tooltip holds the share of the model's context window.
      assert.ok(tokens.contextWindow && tokens.contextShare !== undefined, `stats knows no context window for ${model}`);
      const entry = wb.statusBarEntry('agentTraceLens.tokens');
      await entry.waitFor({ timeout: 10_000 });
      // The run's cost joins a moment after the counts (it is priced off the paint): the same figure as `stats`.
      const want_ = `${compactCount(tokens.total)} tok in log${tokens.cost ? ` · ${tokens.cost}` : ''}`;
      let text = '';
      for (const deadline = Date.now() + 15_000; Date.now() < deadline; await wb.page.waitForTimeout(200)) {
        text = (await entry.innerText()).trim();
        if (text === want_) break;
      }
      assert.equal(text, want_, 'the status bar item differs from stats');
      const context = wb.statusBarEntry('agentTraceLens.context');
      if (await context.isVisible()) assert.match((await context.innerText()).trim(), /^context /, 'the two entries must read differently');
      await wb.traceRow(want.title);
      const detail = flat(await wb.hoverText(entry, () => shot('status-bar')));
      assert.ok(detail.includes(`${thousands(tokens.total)} tokens, counted with ${tokens.tokenizer}`), `status bar tooltip: ${detail}`);
      assert.ok(detail.includes(`${(tokens.contextShare * 100).toFixed(1)}% of a context window of ${thousands(tokens.contextWindow)} (`), `status bar tooltip: ${detail}`);
      if (tokens.costText) {
        assert.ok(detail.includes(`Cost: ${tokens.costText}`), `status bar tooltip lacks the run's cost ${tokens.costText}: ${detail}`);
        // The trajectory row's tooltip names the same figure.
        const again = flat(await wb.hoverText(await wb.traceRow(want.title), () => shot('tooltip-cost')));
        assert.ok(again.includes(tokens.costText), `the trajectory tooltip lacks the run's cost ${tokens.costText}: ${again}`);
        // And so do the Survey and the report, with the same label (issue 21).
        await sameCostInSurveyAndReport(ctx, file, want.title, { cost: tokens.cost!, costText: tokens.costText });
      }
    },
  },
  {
    name: 'compact-range-from-tree',
    async run(ctx) {
      const { wb, shot } = ctx;
      await wb.closeAllEditors();
      const { report, title, want } = await openPydicomReport(ctx, SUMMARY, shot);
      // The panel opens in an editor beside the tree, which stays in view.
      assert.ok(await wb.traceTree().isVisible(), 'the Trajectories view closed when the report opened');
      assert.ok(await report.tab(title).isVisible(), 'no report tab');
      assert.equal(want.mode, 'extractive', 'with no API key the summary should be extractive');
      await wb.parkMouse();
      await shot('report-summary');
      await assertHeadlineMatches(report, want);

      // A deterministic strategy on the same selection updates the same panel.
      const file = path.join(ctx.workspace, PYDICOM);
      const selected = await compactRangeFromTree(wb, PYDICOM_RANGE[0], PYDICOM_RANGE[1], MASKING.label);
      await waitForStrategy(report, MASKING.label);
      assert.equal(await wb.page.locator('.tabs-container .tab', { hasText: 'Compaction: ' }).count(), 1, 'a second compaction of the same trajectory opened a second panel');
      const masked = expectedCompaction(ctx.repo, file, { strategy: MASKING.id, range: [Math.min(...selected), Math.max(...selected)], model: compactionModel(ctx.repo, ctx.settings) });
      await wb.parkMouse();
      await shot('report-masking');
      await assertHeadlineMatches(report, masked);
      await wb.closeAllEditors();
    },
  },
  {
    name: 'strategies-2026-everywhere',
    async run(ctx) {
      const { wb, repo, workspace, settings, shot } = ctx;
      await wb.closeAllEditors();
      const file = path.join(workspace, PYDICOM);
      const title = expectedFor(repo, file).title;
      await wb.explorerContextMenu(PYDICOM, 'Open as Trajectory');
      await wb.traceRow(title);

      // The palette's "Compact Trajectory…" lists them.
      await wb.runCommand('Agent Trace Lens: Compact Trajectory…');
      const quickTitle = wb.page.locator('.quick-input-widget .quick-input-title');
      await quickTitle.waitFor({ timeout: 15_000 });
      if ((await quickTitle.innerText()).trim() === 'Compact which trajectory?') await wb.pickQuickItem(title, title);
      await wb.page.locator('.quick-input-widget .quick-input-title', { hasText: 'Compact with which strategy?' }).waitFor({ timeout: 15_000 });
      await assertStrategiesListed(wb, (step) => shot(`palette-${step}`));
      await wb.dismissQuickInput();

      // The tree's "Compact Range…" lists them, and their options are checked as they are typed.
      await wb.selectStepRange(PYDICOM_RANGE[0], PYDICOM_RANGE[1]);
      await wb.contextMenu(await wb.traceStepRow(PYDICOM_RANGE[1]), 'Compact Range…');
      await wb.page.locator('.quick-input-widget .quick-input-list .monaco-list-row').first().waitFor({ timeout: 15_000 });
      await assertStrategiesListed(wb, (step) => shot(`tree-${step}`));
      await wb.pickQuickItem(STRATEGIES_2026[0].label, STRATEGIES_2026[0].id);
      await wb.pickQuickItem('Edit options for this run…');
      const input = wb.page.locator('.quick-input-widget input');
      await wb.page.locator('.quick-input-widget .quick-input-title', { hasText: 'trigger_input_tokens' }).waitFor({ timeout: 15_000 });
      await input.fill('0');
      const message = wb.page.locator('.quick-input-widget .quick-input-message');
      await message.filter({ hasText: 'trigger_input_tokens' }).waitFor({ timeout: 10_000 });
      const said = (await message.innerText()).trim();
      assert.match(said, /trigger_input_tokens/, `the option's message: ${said}`);
      assert.match(said, /from 1 to 10,000,000/, `the option's message does not give its range: ${said}`);
      await wb.parkMouse();
      await shot('option-out-of-range');
      await wb.dismissQuickInput();

      // Run one from the tree: the report shows what the CLI prints for it.
      const codex = STRATEGIES_2026[2];
      const selected = await compactRangeFromTree(wb, PYDICOM_RANGE[0], PYDICOM_RANGE[1], codex.label);
      const range: [number, number] = [Math.min(...selected), Math.max(...selected)];
      const report = new ReportView(wb.page);
      await report.tab(title).waitFor({ timeout: 30_000 });
      await waitForStrategy(report, codex.label);
      await report.tab(title).click();
      await wb.runCommand('View: Close Editors in Other Groups');
      await report.waitForReport();
      const model = compactionModel(repo, settings);
      const want = expectedCompaction(repo, file, { strategy: codex.id, range, model });
      await assertHeadlineMatches(report, want);
      // The headline loss: what the CLI counts as lost and needed after the range.
      const lostNeeded = want.entities.filter((e) => !e.kept && e.neededLater).length;
      assert.equal(await report.frame().locator('#headline-loss .card-value').innerText(), String(lostNeeded));

      // The report's "Run again" offers every one of them; each run joins the comparison.
      const options = await report.frame().locator('#rerun-strategy option').evaluateAll((els) => els.map((el) => (el as HTMLOptionElement).value));
      for (const s of STRATEGIES_2026) assert.ok(options.includes(s.id), `"Run again" does not offer ${s.id}: ${options.join(', ')}`);
      const compared = report.frame().locator('table.compare tbody tr');
      // "Run again" offers the range the report shows (widened, when the strategy had to).
      const rerunRange: [number, number] = [want.range[0], want.range[1]];
      for (const s of STRATEGIES_2026.filter((x) => x.id !== codex.id)) {
        await report.frame().locator('#rerun-strategy').selectOption(s.id);
        assert.equal(await report.frame().locator('#rerun-range').inputValue(), `${rerunRange[0]}-${rerunRange[1]}`);
        await report.click('action-rerun');
        // The panel keeps showing the result picked before; the new run joins the comparison.
        await compared.filter({ hasText: s.id }).first().waitFor({ timeout: 60_000 });
      }
      assert.equal(await compared.count(), STRATEGIES_2026.length, 'the comparison does not list the four runs');
      const rows = await compared.allInnerTexts();
      for (const s of STRATEGIES_2026) {
        const row = rows.find((r) => r.startsWith(s.id));
        assert.ok(row, `the comparison has no row for ${s.id}: ${rows.join(' | ')}`);
        const cli = expectedCompaction(repo, file, { strategy: s.id, range: s.id === codex.id ? range : rerunRange, model });
        assert.ok(row.includes(percentText(cli.reduction)), `${s.id}: the comparison's reduction differs from the CLI's ${percentText(cli.reduction)}: ${row}`);
        assert.ok(row.includes(`${cli.entities.filter((e) => !e.kept && e.neededLater).length} (${cli.entities.filter((e) => !e.kept).length} lost`), `${s.id}: the comparison's loss differs from the CLI's: ${row}`);
      }
      await report.frame().locator('section[aria-label="Comparison"]').scrollIntoViewIfNeeded();
      await wb.parkMouse();
      await shot('comparison');

      // The survival tab opens on the headline loss.
      await report.openTab('survival');
      await report.frame().locator('#lost-needed-title').waitFor({ timeout: 10_000 });
      await wb.parkMouse();
      await shot('survival');
      await wb.closeAllEditors();
    },
  },
  {
    name: 'report-diff-prompt-themes',
    async run(ctx) {
      const { wb, shot } = ctx;
      await wb.closeAllEditors();
      const { report, title, want } = await openPydicomReport(ctx, SUMMARY);
      // Only the report in the editor area, for a readable picture and a roomy diff.
      await report.tab(title).click();
      await wb.runCommand('View: Close Editors in Other Groups');
      await report.waitForReport();
      await assertHeadlineMatches(report, want);
      assert.equal(await report.themeKind(), 'vscode-dark');
      await wb.parkMouse();
      await shot('dark');

      // "Open diff": VS Code's own diff editor, the touched steps before and after.
      await report.click('action-diff');
      const diffTab = wb.page.locator(`.tabs-container .tab.active[aria-label*=${JSON.stringify(`before ↔ ${SUMMARY.id}`)}]`);
      await diffTab.waitFor({ timeout: 20_000 });
      const diff = wb.page.locator('.editor-group-container .monaco-diff-editor').filter({ visible: true }).first();
      await diff.waitFor({ timeout: 20_000 });
      // Side by side or inline (the editor picks by its width), both texts are on screen at the top.
      const shown = async () => (await diff.innerText()).replace(/\u00a0/g, ' ');
      // Both sides render on their own schedule on a busy machine: wait for both headings.
      const afterHeading = new RegExp(`After ${SUMMARY.id} \\(extractive\\)`);
      for (let i = 0; i < 100 && !(/Before compaction/.test(await shown()) && afterHeading.test(await shown())); i++) await wb.page.waitForTimeout(200);
      assert.match(await shown(), /Before compaction \(o200k_base\)/);
      assert.match(await shown(), new RegExp(`After ${SUMMARY.id} \\(extractive\\)`));
      await wb.parkMouse();
      await shot('diff');

      // "Show prompt (not sent)": an untitled Markdown editor with the OpenHands sections.
      await report.tab(title).click();
      await report.waitForReport();
      assert.equal((await report.frame().locator('#action-prompt').innerText()).trim(), 'Show prompt (not sent)');
      await report.click('action-prompt');
      // An untitled document: VS Code names its tab after the first line and adds "Untitled-N".
      await wb.page.locator('.editor-group-container.active .tabs-container .tab.active[aria-label*="Untitled-"]').waitFor({ timeout: 15_000 });
      const language = wb.page.locator('#workbench\\.parts\\.statusbar .statusbar-item[id="status.editor.mode"]');
      assert.equal((await language.innerText()).trim(), 'Markdown');
      assert.match(await wb.activeEditorText(), new RegExp(`# Prompt ${SUMMARY.id} would send to a model`));
      // The sections sit further down than the screen shows: let the editor's search find them.
      await wb.page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
      await wb.page.keyboard.press('Control+F');
      const find = wb.page.locator('.editor-group-container.active .find-widget textarea, .editor-group-container.active .find-widget input').first();
      await find.fill('USER_CONTEXT');
      const matches = wb.page.locator('.editor-group-container.active .find-widget .matchesCount');
      await wb.page.waitForFunction((el) => /\bof\b/.test(el?.textContent ?? ''), await matches.elementHandle(), { timeout: 10_000 });
      await wb.parkMouse();
      await shot('prompt');
      await wb.page.keyboard.press('Escape');
      // The prompt is an unsaved document: close it without the save question.
      await wb.runCommand('View: Revert and Close Editor');

      // The same panel in a light theme: VS Code re-themes the open webview.
      await report.tab(title).click();
      await report.waitForReport();
      try {
        await wb.setColorTheme('Light Modern', 'light');
        assert.equal(await report.themeKindBecoming('vscode-light'), 'vscode-light');
        await wb.parkMouse();
        await shot('light');
        // What survived, on white: a loss of zero is not framed in the error colour, and the kept
        // text reads (4.5:1 or more against the page).
        await report.openTab('survival');
        const look = await (await report.pageFrame()).evaluate(() => {
          const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
          const lum = (c: number[]) => { const f = (v: number) => { const s = v / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
          const headline = document.querySelector('.loss-headline')!;
          const kept = document.querySelector('.survival-summary .kept');
          const bg = rgb(getComputedStyle(document.body).backgroundColor);
          const keptColour = kept ? rgb(getComputedStyle(kept).color) : null;
          const [hi, lo] = keptColour ? [lum(keptColour), lum(bg)].sort((a, b) => b - a) : [0, 0];
          return {
            title: document.querySelector('#lost-needed-title')?.textContent ?? '',
            border: getComputedStyle(headline).borderLeftColor,
            error: (() => { const probe = document.createElement('span'); probe.style.color = 'var(--vscode-errorForeground)'; document.body.append(probe); const c = getComputedStyle(probe).color; probe.remove(); return c; })(),
            keptContrast: keptColour ? (hi + 0.05) / (lo + 0.05) : null,
          };
        });
        await shot('light-survival');
        if (look.title.endsWith(': 0')) assert.notEqual(look.border.replace(/\s/g, ''), look.error.replace(/\s/g, ''), 'a loss of zero framed in the error colour');
        if (look.keptContrast !== null) assert.ok(look.keptContrast >= 4.5, `"✓ in the summary" is ${look.keptContrast.toFixed(2)}:1 on the light page`);
        await report.openTab('overview');

        // High contrast: the cards are outlined in the theme's contrast border, not told apart by fill.
        await wb.setColorTheme('Dark High Contrast', 'high-contrast');
        assert.equal(await report.themeKindBecoming('vscode-high-contrast'), 'vscode-high-contrast');
        const borders = await (await report.pageFrame()).evaluate(() => {
          const card = document.querySelector('.card');
          const probe = document.createElement('div');
          probe.style.color = 'var(--vscode-contrastBorder)';
          document.body.append(probe);
          const contrast = getComputedStyle(probe).color;
          probe.remove();
          return { card: card ? getComputedStyle(card).borderTopColor : '', contrast };
        });
        assert.ok(borders.card && borders.card === borders.contrast, `a card's border is ${borders.card}, not the contrast border ${borders.contrast}`);
        await wb.parkMouse();
        await shot('high-contrast');
      } finally {
        await wb.setColorTheme('Dark Modern', 'dark');
      }
      await wb.closeAllEditors();
    },
  },
  {
    name: 'hostile-html-stays-text',
    async run({ wb, repo, workspace, settings, shot }) {
      const want = expectedFor(repo, path.join(workspace, HOSTILE_FILE));
      assert.equal(want.title, HOSTILE_TITLE, 'the loader titles the file by its first user message');
      const dialogs: string[] = [];
      const onDialog = (d: Dialog) => { dialogs.push(d.message()); void d.dismiss().catch(() => undefined); };
      wb.page.on('dialog', onDialog);
      try {
        await wb.closeAllEditors();
        await wb.explorerContextMenu(HOSTILE_FILE, 'Open as Trajectory');
        await shot('after-open');
        // The tree: the title and previews read as the characters in the log; no markup rendered.
        const root = await wb.traceRow(HOSTILE_TITLE);
        assert.equal((await root.locator('.label-name').innerText()).trim(), HOSTILE_TITLE);
        for (const [step, payload] of [[HOSTILE_STEPS.user, PAYLOADS.bold], [HOSTILE_STEPS.script, PAYLOADS.script], [HOSTILE_STEPS.img, PAYLOADS.img], [HOSTILE_STEPS.breakout, PAYLOADS.breakout]] as const) {
          const description = await (await wb.traceStepRow(step)).locator('.label-description').innerText();
          assert.ok(description.includes(payload), `step ${step}'s row shows ${JSON.stringify(description)}, not ${payload}`);
        }
        assert.equal(await wb.traceTree().locator('img, b, script').count(), 0, 'markup from the log became elements in the tree');
        // The step document shows the observation verbatim.
        await (await wb.traceStepRow(HOSTILE_STEPS.img)).click();
        await wb.page.waitForFunction(() => /observation/.test(document.querySelector('.tabs-container .tab.active')?.textContent ?? ''), undefined, { timeout: 15_000 });
        assert.ok((await wb.activeEditorText()).includes(PAYLOADS.img), 'the step document does not show the <img> payload as text');
        await shot('tree-and-document');

        // Compact the range that holds every payload, then read the report's detail tabs.
        await compactRangeFromTree(wb, HOSTILE_STEPS.user, HOSTILE_STEPS.breakout, SUMMARY.label);
        const report = new ReportView(wb.page);
        await report.tab(HOSTILE_TITLE).waitFor({ timeout: 30_000 });
        await waitForStrategy(report, SUMMARY.label);
        await report.tab(HOSTILE_TITLE).click();
        await wb.runCommand('View: Close Editors in Other Groups');
        await report.waitForReport();
        assert.ok((await report.frame().locator('h1').innerText()).includes(HOSTILE_TITLE), 'the report title is not the literal title');

        // The same numbers as the CLI, even when the summary outweighs what it replaced.
        await assertHeadlineMatches(report, expectedCompaction(repo, path.join(workspace, HOSTILE_FILE), { strategy: SUMMARY.id, range: [HOSTILE_STEPS.user, HOSTILE_STEPS.breakout], model: compactionModel(repo, settings) }));

        await report.openTab('range');
        // The observations and the reply are forgotten (the user's request is kept and quoted in the summary).
        const forgotten = (await report.frame().locator('.forgotten pre').allInnerTexts()).join('\n');
        for (const payload of [PAYLOADS.script, PAYLOADS.img, PAYLOADS.breakout]) assert.ok(forgotten.includes(payload), `"Forgotten range" does not show ${payload} as text`);
        await report.frame().locator('#panel-range').scrollIntoViewIfNeeded();
        assert.ok((await report.frame().locator('#summary-text').innerText()).includes(HOSTILE_TITLE), 'the summary does not quote the request, <b> and all, as text');
        await wb.parkMouse();
        await shot('forgotten-range');

        await report.openTab('steps');
        await report.frame().locator('#step-list').scrollIntoViewIfNeeded();
        const list = await report.frame().locator('#step-list').innerText();
        for (const payload of [PAYLOADS.script, PAYLOADS.img, PAYLOADS.breakout]) assert.ok(list.includes(payload), `the step list does not show ${payload} as text`);
        await shot('steps');

        const damage = await webviewDamage(report);
        assert.equal(damage.pwned, undefined, 'a payload ran inside the report');
        assert.equal(damage.images, 0, 'an <img> element exists in the report');
        assert.equal(damage.bold, 0, 'a <b> element exists in the report');
        assert.equal(damage.payloadScripts, 0, 'a payload became a <script> element in the report');
        assert.ok(damage.bundle, 'checked the wrong frame: it lacks the report bundle');
        assert.equal(await wb.page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned), undefined, 'a payload ran in the workbench');
        assert.deepEqual(dialogs, [], 'a payload opened a dialog');
        await wb.closeAllEditors();
      } finally {
        wb.page.off('dialog', onDialog);
      }
    },
  },
  {
    // The README's whole-run picture: a real run whose log records usage per call, replayed under
    // observation masking, with the recorded prompt of each call over the modelled curve.
    name: 'whole-run-recorded',
    async run({ wb, repo, workspace, shot, settings }) {
      await wb.closeAllEditors();
      const file = path.join(workspace, SPHINX);
      const title = expectedFor(repo, file).title;
      await wb.explorerContextMenu(SPHINX, 'Open as Trajectory');
      await wb.traceRow(title);
      await compactRangeFromTree(wb, 4, 19, MASKING.label);
      const report = new ReportView(wb.page);
      await report.tab(title).waitFor({ timeout: 30_000 });
      await waitForStrategy(report, MASKING.label);
      await report.tab(title).click();
      await wb.runCommand('View: Close Editors in Other Groups');
      // The run's one cost, the same figure as the status bar, the tooltip and the Survey (`stats` gives it).
      const bill = expectedTokens(repo, file, settingValue(repo, settings, 'agentTraceLens.tokens.model') as string);
      assert.ok(bill.cost, 'the sphinx run records its cost');
      await report.openTab('overview');
      assert.equal((await report.frame().locator('#headline-cost .card-value').innerText()).trim(), bill.cost);
      await wb.parkMouse();
      await shot('overview-cost');
      await report.openTab('replay');
      assert.ok((await report.frame().locator('#replay-bill').innerText()).includes(`The run as it happened: ${bill.cost}, recorded`));
      // The check against the recorded calls concerns the run as it happened, whatever the range: the CLI must agree.
      const want = expectedSimulation(repo, file, MASKING.id);
      const recorded = await report.frame().locator('#replay-recorded').innerText();
      assert.ok(want.recorded, 'the CLI finds usage per call in the sphinx run');
      assert.match(recorded, new RegExp(`Checked against the ${want.recorded.calls} calls`));
      assert.ok(recorded.includes(`within ${percent(want.recorded.medianPromptDeviation!)} of the recorded one`), recorded);
      assert.ok(recorded.includes(`recorded cost ${usd(want.recorded.cost!)} (as the log says), modelled ${usd(want.recorded.modelledCost!)}`), recorded);
      // The cache checked against the reads the calls record, as simulate --json says.
      const reads = want.recorded.cacheReads;
      assert.ok(reads, 'the sphinx run records cache reads per call');
      assert.ok(recorded.includes(`Cache reads over the ${reads.calls} calls that record them: ${reads.recorded.toLocaleString('en-US')} recorded, ${reads.modelled.toLocaleString('en-US')} modelled`), recorded);
      const rows = await report.frame().locator('#replay-totals tbody tr').allInnerTexts();
      assert.ok(rows.some((r) => /^Model requests\s+37\b/.test(r)), rows.join(' | '));
      assert.ok(rows.some((r) => /of which cache reads/.test(r)));
      assert.equal(await report.frame().locator('.sawtooth circle.recorded-point').count(), want.recorded.calls, 'a dot per recorded call');
      assert.ok(await report.frame().locator('.sawtooth .cache-break').count() > 0, 'masking breaks the prompt cache, and the chart says where');
      assert.match(await report.frame().locator('#replay-notes').innerText(), /Gemini implicit caching/);
      try {
        await wb.setColorTheme('Light Modern', 'light');
        assert.equal(await report.themeKindBecoming('vscode-light'), 'vscode-light');
        await report.frame().locator('#replay-recorded').scrollIntoViewIfNeeded();
        await wb.parkMouse();
        await shot('light');
      } finally {
        await wb.setColorTheme('Dark Modern', 'dark');
      }
      await wb.closeAllEditors();
    },
  },
  {
    // A real Claude Code 2.1 session (moredip/session-share, MIT) whose calls after idle gaps record
    // the cache still serving part of the prompt: its one cost, priced from recorded usage per call
    // at each call's model, is the same figure in the status bar, the tooltip, the Survey and the report.
    name: 'one-cost-real-session',
    async run(ctx) {
      const { wb, repo, workspace, settings, shot } = ctx;
      const file = path.join(workspace, 'real-gaps', 'moredip-warm-after-gaps.jsonl');
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.copyFileSync(path.join(repo, 'test', 'fixtures', 'claude-code', 'moredip-warm-after-gaps.jsonl'), file);
      const model = settingValue(repo, settings, 'agentTraceLens.tokens.model') as string;
      const want = expectedFor(repo, file);
      const tokens = expectedTokens(repo, file, model);
      const bill = expectedBill(repo, file);
      assert.ok(bill && bill.costText.endsWith('priced from recorded usage'), `stats prices the session from its recorded usage: ${bill?.costText}`);
      await wb.runCommand('Agent Trace Lens: Open Trajectory…');
      await wb.answerFileDialog(file);
      await wb.traceRow(want.title);
      const entry = wb.statusBarEntry('agentTraceLens.tokens');
      await entry.waitFor({ timeout: 10_000 });
      const line = `${compactCount(tokens.total)} tok in log · ${bill.cost}`;
      let text = '';
      for (const deadline = Date.now() + 60_000; Date.now() < deadline; await wb.page.waitForTimeout(200)) {
        text = (await entry.innerText()).trim();
        if (text === line) break;
      }
      assert.equal(text, line, 'the status bar differs from stats');
      const detail = flat(await wb.hoverText(entry, () => shot('status-bar-cost')));
      assert.ok(detail.includes(`Cost: ${bill.costText}`), `status bar tooltip lacks ${bill.costText}: ${detail}`);
      const tip = flat(await wb.hoverText(await wb.traceRow(want.title), () => shot('tooltip-cost')));
      assert.ok(tip.includes(bill.costText), `the trajectory tooltip lacks ${bill.costText}: ${tip}`);
      await sameCostInSurveyAndReport(ctx, file, want.title, bill);
    },
  },
  {
    // Issue 22: a real 657-step Claude Code session (wild dev split), compacted but for its last two
    // steps from the palette. The hand-over grows with the range and holds a commit from its middle.
    name: 'long-session-summary',
    async run(ctx) {
      const { wb, shot } = ctx;
      await wb.closeAllEditors();
      const strategy = STRATEGIES_2026.find((x) => x.id === 'langchain-summarization')!;
      // The CLI widens the range the same way (call 654's result is step 655).
      const { report, summary, want, title } = await compactWildFile(ctx, 'marot__spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl', 'long/spotter-4te-session.jsonl', strategy, [0, 654]);
      assert.match(title, /^Work on bead spotter-4te/);
      assert.ok(summary.length > 8000, `a 657-step session's hand-over is held to ${summary.length} characters`);
      assert.equal(await report.frame().locator('#summary-size').innerText(), want.summarySize, 'the panel does not say how the summary was sized, as compact --json does');
      assert.match(want.summarySize!, /summary_share 0\.1 of the [\d,]+ characters it replaces/);
      assert.match(summary, /\[spotter-4te 12e2d10\] feat: add OTEL dependencies/, 'the commit from the middle of the session is not in the summary');
      await scrollSummaryTo(report, '[spotter-4te 12e2d10]');
      await wb.parkMouse();
      await shot('long-session-summary');
      // And the top of the Summary side: its size in tokens, and how that size was set.
      await report.frame().locator('#summary-size').evaluate((el: HTMLElement) => { (el.closest('section') as HTMLElement).scrollTop = 0; });
      await shot('long-session-summary-size');
      await wb.closeAllEditors();
    },
  },
  // Issue 22: a short real OpenHands run (wild dev split). Its summary has room left, and fills it
  // with what the files the agent read show of the request: the route and the method it asked for.
  summaryScenario('summary-fills-room', 'dfinson__traceforge/openhands/demo_issue_tracker_get_endpoint.jsonl', 'short/traceforge-get-endpoint.jsonl', [0, 21], (summary) => {
    assert.match(summary, /app\/main\.py shows: @app\.get\("\/tickets\/\{ticket_id\}", response_model=Ticket\)/, 'the room left is not filled with what the files read show of the request');
  }, 'app/main.py shows:'),
  // Issue 22: a real Codex session (tomjnsn/agentlogs, wild dev split) whose summary stopped at its
  // lists, a third of its room used; the rest now quotes what the steps said, the agent's finding too.
  summaryScenario('summary-quotes-findings', 'tomjnsn__agentlogs/images.jsonl', 'short/agentlogs-images-codex.jsonl', [0, 37], (summary) => {
    assert.match(summary, /^ {2}- step 23: "Recharts wraps SVG text to fit that width/m, 'the agent\'s finding is not quoted');
  }, 'step 23: "Recharts'),
  {
    // Issue 22: a real Codex coordinator's session (EntityProcess/agentv, wild dev split) polls its
    // workers with `workmux capture prepare-cli -n 80`, then -n 120, -n 200…. The loss report lists
    // that check once, says how often it ran, and still lists each issue it read on its own row,
    // and the shell's complaint in a script that went on as an error.
    name: 'loss-report-one-row-per-check',
    async run(ctx) {
      const { wb, shot } = ctx;
      await wb.closeAllEditors();
      const rows = await entityRowsOfWildFile(ctx, 'EntityProcess__agentv/codex-full.jsonl', 'long/agentv-codex-triage.jsonl', 'codex-compact', [0, 699]);
      const polls = rows.filter({ hasText: 'workmux capture prepare-cli -n' });
      assert.equal(await polls.count(), 1, `the same check run with other counts is more than one row: ${(await polls.allInnerTexts()).join(' | ')}`);
      assert.match(await polls.innerText(), /run \d+ times, with other counts/);
      for (const issue of ['1391', '1368', '1263']) assert.ok(await rows.filter({ hasText: `gh issue view ${issue} ` }).count() >= 1, `gh issue view ${issue} has no row of its own`);
      await polls.scrollIntoViewIfNeeded();
      await wb.parkMouse();
      await shot('loss-report-one-row-per-check');
      // The shell's own complaint in a script that went on (a backquoted issue id run as a command) is an error row.
      const complaint = rows.filter({ hasText: 'zsh:1: command not found: av-44n' });
      assert.equal(await complaint.count(), 1, 'the shell complaint is not an error row of the loss report');
      await complaint.scrollIntoViewIfNeeded();
      await shot('loss-report-shell-complaint');
      await wb.closeAllEditors();
    },
  },
  {
    // Issue 22: a real Codex rollout (Prometheus-AGS/prometheus-parking-lot-rs, wild dev split)
    // driven by spec-kit's saved prompts, which arrive expanded around what the person typed. The
    // loss report's constraints are the person's ("We want to reuse postgres…"), not the prompt's.
    name: 'loss-report-typed-rules',
    async run(ctx) {
      const { wb, shot } = ctx;
      await wb.closeAllEditors();
      const rows = await entityRowsOfWildFile(ctx, 'Prometheus-AGS__prometheus-parking-lot-rs/rollout-2025-12-06T15-11-37-019af581-86ce-7d23-b9c6-0f99353d36af.jsonl', 'long/prometheus-speckit-rollout.jsonl', 'langchain-summarization', [0, 420]);
      const theirs = rows.filter({ hasText: 'We want to reuse postgres for audit persistence.' });
      assert.equal(await theirs.count(), 1, 'the rule the person typed is not a row');
      assert.match(await theirs.innerText(), /in the summary/);
      for (const template of ['All paths must be absolute.', 'Never exceed 5 total asked questions']) {
        assert.equal(await rows.filter({ hasText: template }).count(), 0, `the saved prompt's rule "${template}" is listed as the person's`);
      }
      await theirs.scrollIntoViewIfNeeded();
      await wb.parkMouse();
      await shot('loss-report-typed-rules');
      await wb.closeAllEditors();
    },
  },
  {
    // Issue 22: a real Codex rollout written on Windows from the VS Code extension
    // (Python-AI-Solutions/agentic-neurodata-conversion, wild dev split, labelled blind in session
    // 53). Codex ran its commands through `powershell.exe -NoLogo -NoProfile -Command …`, and the
    // person declined three of them. The loss report lists the commands as the agent wrote them, and
    // the refusal as an error, not the declined clone as a command that ran.
    name: 'loss-report-windows-codex',
    async run(ctx) {
      const { wb, shot } = ctx;
      await wb.closeAllEditors();
      const rows = await entityRowsOfWildFile(ctx, 'Python-AI-Solutions__agentic-neurodata-conversion/rollout-2025-09-29T13-09-19-01999469-65fd-7fa2-ab93-d24bb4c714cb.jsonl', 'windows/neurodata-rollout.jsonl', 'codex-compact', [0, 75]);
      assert.equal(await rows.filter({ hasText: 'powershell.exe -NoLogo' }).count(), 0, 'a command is listed with the harness\'s PowerShell wrapper');
      const listing = rows.filter({ hasText: 'Get-ChildItem' });
      assert.ok(await listing.count() >= 1, 'Get-ChildItem, run through PowerShell, is not a command row');
      const refusal = rows.filter({ hasText: 'exec command rejected by user' });
      assert.equal(await refusal.count(), 1, 'the person declining a command is not one error row');
      assert.match(await refusal.innerText(), /error/);
      assert.equal(await rows.filter({ hasText: 'git clone https://github.com/openai/codex' }).count(), 0, 'the declined clone is listed as a command that ran');
      await refusal.scrollIntoViewIfNeeded();
      await wb.parkMouse();
      await shot('loss-report-windows-codex');
      await wb.closeAllEditors();
    },
  },
  {
    // Issue 22: a real Codex 0.36 rollout (sin4auto/typelang-hm-rs, fixture) whose sandbox stopped
    // seven commands: the refusal is an error row, with what the command logged at the error level.
    name: 'loss-report-codex-sandbox',
    async run(ctx) {
      const { wb, shot } = ctx;
      await wb.closeAllEditors();
      const rows = await entityRowsOfWildFile(ctx, 'test/fixtures/codex/typelang-serena-sandbox-failures.jsonl', 'sandbox/typelang-rollout.jsonl', 'codex-compact', [0, 100]);
      const refusal = rows.filter({ hasText: 'failed in sandbox LinuxSeccomp with execution error: sandbox denied exec error, exit code: 1' });
      assert.equal(await refusal.count(), 1, 'the sandbox refusal is not one error row');
      assert.match(await refusal.innerText(), /error/);
      assert.ok(await rows.filter({ hasText: 'ERROR codex_core::codex: failed to initialize rollout recorder' }).count() >= 1, 'what the command logged at the error level is not listed');
      assert.ok(await rows.filter({ hasText: 'command timed out after 19904 milliseconds' }).count() >= 1, 'the timeout is not listed');
      await refusal.scrollIntoViewIfNeeded();
      await wb.parkMouse();
      await shot('loss-report-codex-sandbox');
      await wb.closeAllEditors();
    },
  },
  // Issue 22: a real Codex rollout (EdouardZemb/test-framework, wild dev split) that reads its
  // agent's config and sprint status, then answers in French and picks the story in review. The
  // summary's room left says what those files set, not their comment lines.
  summaryScenario('summary-says-settings', 'EdouardZemb__test-framework/rollout-2026-02-04T20-56-42-019c2a3a-7de1-7c11-8099-326909cfa51a.jsonl', 'short/test-framework-rollout.jsonl', [0, 31], (summary) => {
    assert.match(summary, /_bmad\/bmm\/config\.yaml sets: .*communication_language: French/, 'the config the agent read is not told by what it sets');
    assert.match(summary, /sprint-status\.yaml sets: .*0-1-configurer-un-projet-via-config-yaml: review/, 'the story in review is not told');
  }, 'config.yaml sets:'),
  // Issue 22: a real Claude Code session (codemie-ai/codemie-code, wild dev split) in which the
  // person refused a write, interrupted, and asked for an exploration by two sub-agents. The
  // summary says the person stopped the agent, and which sub-agent was asked what.
  summaryScenario('summary-keeps-interruption', 'codemie-ai__codemie-code/session-9eda1058.jsonl', 'short/codemie-session.jsonl', [0, 16], (summary) => {
    assert.match(summary, /later request: interrupted: \[Request interrupted by user for tool use\]/, 'the person stopping the agent is not in the summary');
    assert.match(summary, /Task \("Explore codemie-code repository structure"\) → /, 'a sub-agent call is not named by its task');
    assert.match(summary, /Task \("Deep dive into uncovered areas"\) → /, 'the second sub-agent call is not named by its task');
  }, 'interrupted:'),
  // Issue 22: a real Claude Code `/init` session (d-kimuson/claude-code-viewer, wild dev split)
  // whose last TodoWrite keeps one item after four were checked off. The summary counts the four
  // as done; TASK_TRACKING stays the list as the tool holds it.
  summaryScenario('summary-keeps-finished-todos', 'd-kimuson__claude-code-viewer/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl', 'short/claude-viewer-init.jsonl', [0, 26], (summary) => {
    assert.match(summary, /COMPLETED:\n(?:  - .*\n)*  - task Analyze codebase structure and files \[completed\]/, 'a finished item the last list dropped is not counted done');
    assert.match(summary, /TASK_TRACKING:\n  - Create CLAUDE\.md with essential information \[completed\]\nCOMPLETED:/, 'TASK_TRACKING is not the list as the tool holds it');
  }, 'TASK_TRACKING:'),
  // randlee/claude-history's worktree sub-agent (wild dev split): the command that made the
  // worktree is named whole, with both lines git printed; `git worktree list` is a read.
  summaryScenario('summary-names-the-change-whole', 'randlee__claude-history/subagents/agent-a53b173.jsonl', 'short/worktree-subagent.jsonl', [0, 19], (summary) => {
    const changes = /CHANGES:\n((?: {2}- .*\n)*)/.exec(summary)?.[1] ?? '';
    assert.match(changes, /git worktree add -b feature\/phase10-chrome \/Users\/randlee\/Documents\/github\/claude-history-worktrees\/feature\/phase10-chrome develop \(→ HEAD is now at 38a1d24 .* · Preparing worktree \(new branch 'feature\/phase10-chrome'\)\)/, 'the worktree command or what git printed is cut');
    assert.doesNotMatch(changes, /git worktree list/, 'a listing of worktrees is not a change');
  }, 'develop (→ HEAD is now at', { clearNotifications: true }),
  // JanDeDobbeleer/oh-my-posh triage (wild dev split): 720 steps, 112 files changed in agent
  // worktrees, seven commits. The Agents SDK's 400-token hand-over names the latest commits, with
  // their subjects and file counts, where it named six of the files they hold.
  summaryScenario('small-summary-names-commits', 'JanDeDobbeleer__oh-my-posh/full.jsonl', 'long/oh-my-posh-triage.jsonl', [0, 717], (summary) => {
    const milestones = /• Milestones:\n((?: {2}- .*\n)*)/.exec(summary)?.[1] ?? '';
    assert.match(milestones, /committed \[next 5b5097af\] test\(segments\): stub IsWsl in the mapped-locations path test harness · 1 file changed/, 'the latest commit is not among the milestones');
    assert.ok(milestones.split('\n').filter((l) => l.startsWith('  - committed [')).length >= 2, milestones);
  }, '• Milestones:', { strategy: { id: 'summarizing-session', label: 'Agents SDK summarizing session' } }),
];
