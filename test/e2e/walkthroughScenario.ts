// The first-run walkthrough as a new user meets it: Welcome: Open Walkthrough…, then each step's
// button in turn. A step is ticked by VS Code when its completion event (the real command) fires.
// Run alone (ATL_E2E_ONLY=walkthrough) it starts on a fresh profile; in the full suite it first
// resets the walkthrough's progress so the ticks it checks are its own.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { ReportView } from './reportView';
import type { Scenario } from './scenarios';
import type { Workbench } from './workbench';

const WALKTHROUGH = 'Get started with Agent Trace Lens';
const SAMPLE_TITLE = /^Ticket ABC-123/;

function step(wb: Workbench, title: string) {
  return wb.page.locator('.getting-started-step', { hasText: title }).first();
}

async function isDone(wb: Workbench, title: string): Promise<boolean> {
  // The step's check mark is a checkbox codicon: aria-checked and `.complete` once done.
  const box = step(wb, title).locator('[role="checkbox"]').first();
  return (await box.getAttribute('aria-checked')) === 'true';
}

/**
 * Brings the walkthrough back to the front: its Welcome tab, and on the Welcome page's home (where
 * VS Code returns when an editor opens beside it) our walkthrough's entry.
 */
async function showWalkthrough(wb: Workbench, title: string): Promise<void> {
  if (await step(wb, title).isVisible()) return;
  const welcome = wb.page.locator('.tabs-container .tab', { hasText: 'Welcome' }).first();
  if (await welcome.isVisible()) await welcome.click();
  const entry = wb.page.locator('.getting-started-category, button', { hasText: /Get started with Agent/ }).first();
  if (!(await step(wb, title).isVisible({ timeout: 2_000 }).catch(() => false)) && (await entry.isVisible())) await entry.click();
  if (!(await step(wb, title).isVisible())) {
    await wb.runCommand('Welcome: Open Walkthrough...');
    await wb.pickQuickItem(WALKTHROUGH, 'Agent Trace Lens');
  }
  await step(wb, title).waitFor({ timeout: 15_000 });
}

/** Opens a step (its title button) and presses the button its description holds. */
async function pressStepButton(wb: Workbench, title: string, button: string): Promise<void> {
  await showWalkthrough(wb, title);
  await step(wb, title).click();
  const press = step(wb, title).locator('.monaco-button, a', { hasText: button }).first();
  await press.waitFor({ timeout: 15_000 });
  await press.click();
}

/**
 * Types into the open quick input. Opened by a button on the Welcome page, it can stay inert for a
 * moment while the workbench takes the focus back: try again until it takes the text.
 */
async function typeQuick(wb: Workbench, text: string): Promise<void> {
  const input = wb.page.locator('.quick-input-widget input');
  for (let attempt = 1; ; attempt++) {
    try {
      await input.fill(text, { timeout: 2_000 });
      return;
    } catch (e) {
      if (attempt >= 15) throw e;
      await wb.page.waitForTimeout(1_000);
    }
  }
}

async function waitDone(wb: Workbench, title: string): Promise<void> {
  await showWalkthrough(wb, title);
  for (let i = 0; i < 30 && !(await isDone(wb, title)); i++) await wb.page.waitForTimeout(500);
  assert.ok(await isDone(wb, title), `the walkthrough step "${title}" is not ticked after its command ran`);
}

export const WALKTHROUGH_SCENARIOS: Scenario[] = [
  {
    name: 'walkthrough-first-run',
    async run({ wb, workspace, settings, shot }) {
      await wb.closeAllEditors();
      await wb.runCommand('Developer: Reset Welcome Page Walkthrough Progress').catch(() => wb.dismissQuickInput());
      await wb.runCommand('Welcome: Open Walkthrough...');
      await wb.pickQuickItem(WALKTHROUGH, 'Agent Trace Lens');
      const titles = ['Open the sample run', 'Compact a range', 'Read the report', 'Open your own logs', 'Set a model'];
      for (const t of titles) await step(wb, t).waitFor({ timeout: 30_000 });
      for (const t of titles) assert.equal(await isDone(wb, t), false, `"${t}" is ticked before anything was done`);
      await wb.parkMouse();
      await shot('opened');

      // 1. The bundled sample opens in the tree.
      await pressStepButton(wb, titles[0], 'Open Sample Run');
      await wb.traceRow(SAMPLE_TITLE);
      await waitDone(wb, titles[0]);
      await shot('sample-open');

      // 2. Compact Trajectory… takes the sample (selected in the tree) without asking which file.
      await pressStepButton(wb, titles[1], 'Compact Trajectory…');
      const quickTitle = wb.page.locator('.quick-input-widget .quick-input-title');
      await quickTitle.filter({ hasText: 'Compact with which strategy?' }).waitFor({ timeout: 15_000 });
      const masking = 'SWE-agent observation masking (last N observations)';
      await typeQuick(wb, 'observation-masking');
      await wb.pickQuickItem(masking);
      await wb.pickQuickItem('Run');
      await quickTitle.filter({ hasText: 'which steps?' }).waitFor({ timeout: 30_000 });
      const input = wb.page.locator('.quick-input-widget input');
      await typeQuick(wb, '1-60');
      await input.press('Enter');
      const report = new ReportView(wb.page);
      await report.tab('Ticket ABC-123').waitFor({ timeout: 60_000 });
      await waitDone(wb, titles[1]);

      // 3. The report comes to the front.
      await pressStepButton(wb, titles[2], 'Show Latest Report');
      await report.waitForReport(60_000);
      await waitDone(wb, titles[2]);
      await report.tab('Ticket ABC-123').click();
      await report.waitForReport();
      await wb.parkMouse();
      await shot('report');

      // 4. A folder of runs: the agents' folders found here, or straight to the folder dialog.
      await pressStepButton(wb, titles[3], 'Open Folder of Runs…');
      const quick = wb.page.locator('.quick-input-widget');
      await quick.waitFor({ timeout: 15_000 });
      if (await quickTitle.filter({ hasText: 'Open a folder of runs' }).isVisible()) await wb.pickQuickItem('$(folder-opened) Another folder…'.replace('$(folder-opened) ', ''));
      // The simple folder dialog: type the folder, then its "Survey" button (Enter would open the folder).
      const dir = path.join(workspace, 'survey-runs') + '/';
      await wb.page.locator('.quick-input-list .monaco-list-row').first().waitFor({ timeout: 15_000 });
      for (let attempt = 0; attempt < 5; attempt++) {
        await typeQuick(wb, dir);
        await wb.page.waitForTimeout(500);
        if ((await input.inputValue()) === dir) break;
      }
      await quick.locator('.monaco-button', { hasText: 'Survey' }).first().click();
      await wb.page.locator('.tabs-container .tab', { hasText: 'Survey: survey-runs' }).first().waitFor({ timeout: 60_000 });
      await waitDone(wb, titles[3]);

      // 5. The model: the value the suite already uses, so nothing after this changes.
      await pressStepButton(wb, titles[4], 'Set Model…');
      const model = String(settings['agentTraceLens.llm.model'] ?? 'gpt-4o-mini');
      await input.waitFor({ timeout: 15_000 });
      await typeQuick(wb, model);
      await input.press('Enter');
      await waitDone(wb, titles[4]);
      await wb.parkMouse();
      await shot('all-done');
      await wb.closeAllEditors();
      const row = await wb.traceRow(SAMPLE_TITLE);
      await row.hover();
      await row.locator('.action-label[aria-label="Close Trajectory"]').click();
    },
  },
];
