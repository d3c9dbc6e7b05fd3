// Issue 14, "nothing is overwritten", in the real workbench: "Export as ATIF…" and the report's
// "Save condensed…" aimed (by typing the path into the save dialog) at a symbolic link to the open
// trajectory. The save dialog asks whether to replace the existing file and is told yes; the
// extension still refuses, with a message naming the file, and the trajectory's bytes are the same.
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expectedFor } from './expected';
import { ReportView } from './reportView';
import type { Scenario } from './scenarios';
import type { Workbench } from './workbench';

const DIR = 'security';
const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/**
 * Types `absPath` into code-server's save dialog and presses Enter; when the dialog asks whether
 * to replace the existing file, answers OK (the dialog's own overwrite confirmation). Returns
 * whether it asked.
 */
async function saveDialogTo(wb: Workbench, absPath: string): Promise<boolean> {
  const page = wb.page;
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ timeout: 15_000 });
  await page.locator('.quick-input-list .monaco-list-row').first().waitFor({ timeout: 15_000 });
  for (let attempt = 0; attempt < 5; attempt++) {
    await input.fill(absPath);
    await page.waitForTimeout(500);
    if ((await input.inputValue()) === absPath) break;
  }
  await input.press('Enter');
  // code-server's dialog asks "X already exists. Are you sure you want to overwrite it?" with an OK button.
  const question = page.locator('.quick-input-widget', { hasText: /already exists/ }).filter({ visible: true }).first();
  const asked = await question.waitFor({ timeout: 5_000 }).then(() => true, () => false);
  if (asked) await question.locator('.monaco-button', { hasText: /^\s*OK\s*$/ }).first().click();
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 15_000 });
  return asked;
}

export const SECURITY_SCENARIOS: Scenario[] = [
  {
    name: 'save-never-over-original',
    async run({ wb, repo, workspace, shot }) {
      const dir = path.join(workspace, DIR);
      fs.mkdirSync(dir, { recursive: true });
      const trajectory = path.join(dir, 'trajectory.json');
      fs.copyFileSync(path.join(workspace, 'basic_interactions.json'), trajectory);
      const link = path.join(dir, 'link.json');
      fs.rmSync(link, { force: true });
      fs.symlinkSync('trajectory.json', link);
      const before = sha(trajectory);
      const { title } = expectedFor(repo, trajectory);

      await wb.clearNotifications();
      // Run on its own, this scenario may start before the extension's commands are registered.
      for (let attempt = 1; ; attempt++) {
        try {
          await wb.runCommand('Agent Trace Lens: Open Trajectory…');
          break;
        } catch (e) {
          if (attempt >= 4) throw e;
          await wb.dismissQuickInput();
          await wb.page.waitForTimeout(5_000);
        }
      }
      await wb.answerFileDialog(trajectory);
      const root = await wb.traceRow(title);

      // Export as ATIF… to the link: refused in a notification that names the link.
      await wb.contextMenu(root, 'Export as ATIF…');
      const askedExport = await saveDialogTo(wb, link);
      const refusal = await wb.waitForNotification(/^link\.json is the trajectory .*never overwritten/);
      assert.match(refusal, /is the trajectory .*trajectory\.json.*through a link/, refusal);
      await shot('export-refused');
      assert.equal(sha(trajectory), before, 'Export as ATIF left the trajectory as it was');
      assert.ok(fs.lstatSync(link).isSymbolicLink(), 'the link is still a link');

      // Save condensed… from the report to the link: refused in the report's status line.
      await wb.clearNotifications();
      await wb.runCommand('Agent Trace Lens: Compact Trajectory…');
      const quickTitle = wb.page.locator('.quick-input-widget .quick-input-title');
      await quickTitle.waitFor({ timeout: 15_000 });
      if ((await quickTitle.innerText()).trim() === 'Compact which trajectory?') await wb.pickQuickItem(title, title);
      await wb.pickQuickItem('OpenHands LLM summarizing condenser', 'summarizing condenser');
      const run = wb.page.locator('.quick-input-list .monaco-list-row').filter({ has: wb.page.locator('.label-name', { hasText: /^\s*Run\s*$/ }) }).first();
      if (await run.waitFor({ timeout: 5_000 }).then(() => true, () => false)) await run.click();
      // Then "which steps?": steps 1–4 (the first answer to the second question).
      const steps = wb.page.locator('.quick-input-widget', { hasText: /which steps\?/ }).filter({ visible: true }).first();
      await steps.waitFor({ timeout: 15_000 });
      await steps.locator('input').fill('1-4');
      await steps.locator('input').press('Enter');
      const report = new ReportView(wb.page);
      await report.waitForReport(60_000);
      await report.click('action-save');
      await wb.pickQuickItem('Chat-completions messages');
      const askedSave = await saveDialogTo(wb, link);
      const status = report.frame().locator('.status.error');
      await status.waitFor({ timeout: 15_000 });
      const text = await status.innerText();
      assert.match(text, /^link\.json is the trajectory .*trajectory\.json.*never overwritten.*\(.*security\/link\.json\)$/, text);
      await shot('save-refused');
      assert.equal(sha(trajectory), before, 'Save condensed left the trajectory as it was');
      assert.ok(fs.lstatSync(link).isSymbolicLink(), 'the link is still a link');
      console.log(`     save dialog asked to replace: export ${askedExport}, save ${askedSave}`);

      await wb.closeAllEditors();
      const row = await wb.traceRow(title);
      await row.hover();
      await row.locator('.action-label[aria-label="Close Trajectory"]').click();
    },
  },
];
