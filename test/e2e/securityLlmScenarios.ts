// Redaction in the real workbench (issue 14): a log full of secrets is compacted from the tree; the
// summary the report shows, and the one it would copy or save, holds [REDACTED:…] markers where the
// secrets were, and none of the secrets.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ReportView } from './reportView';
import type { Scenario } from './scenarios';

export const SECRETS_FILE = 'deploy-with-secrets.json';
const SUMMARY = { id: 'openhands-summary', label: 'OpenHands LLM summarizing condenser' };

// Made-up secrets, assembled at run time so this file does not look like a leaked key.
const SECRETS = {
  github: 'ghp_' + 'Zy8xW7vU6tS5rQ4pO3nM2lK1jI0hG9fE8dC7',
  password: 'corvid&Lantern7',
  aws: 'AKIA' + 'Q3EXAMPLE7KEYID7',
  pgp: 'lQOYBGXq' + 'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJz',
} as const;
const TITLE = 'Deploy the billing service; the credentials are in config/ and ~/.aws';

function writeSecretsTrajectory(workspace: string): void {
  const call = (id: string, command: string) => ({ id, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command }) } });
  const messages = [
    { role: 'system', content: 'You are a careful coding agent.' },
    { role: 'user', content: TITLE },
    { role: 'assistant', content: 'Reading the settings first.', tool_calls: [call('c1', 'cat config/app.json')] },
    { role: 'tool', tool_call_id: 'c1', content: `{"dbPassword": "${SECRETS.password}", "region": "eu-west-1"}` },
    { role: 'assistant', content: 'Now the credentials.', tool_calls: [call('c2', 'cat ~/.aws/credentials keys/deploy.asc')] },
    { role: 'tool', tool_call_id: 'c2', content: `aws_access_key_id = ${SECRETS.aws}\n-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${SECRETS.pgp}\n=a1B2\n-----END PGP PRIVATE KEY BLOCK-----` },
    { role: 'assistant', content: 'Deploying.', tool_calls: [call('c3', `GITHUB_TOKEN=${SECRETS.github} ./deploy.sh`)] },
    { role: 'tool', tool_call_id: 'c3', content: 'deployed billing v2\nexit code 0' },
    { role: 'user', content: 'Is it live?' },
    { role: 'assistant', content: 'Yes.' },
  ];
  fs.writeFileSync(path.join(workspace, SECRETS_FILE), JSON.stringify({ model: 'gpt-4o', messages }, null, 2));
}

export const SECURITY_LLM_SCENARIOS: Scenario[] = [
  {
    name: 'security-llm-redacted-summary',
    async run({ wb, workspace, shot }) {
      writeSecretsTrajectory(workspace);
      await wb.closeAllEditors();
      // Written now, not with the workspace: opened through the command's file dialog.
      // Run alone, this scenario can come before the extension's commands are registered: try again.
      for (let attempt = 1; ; attempt++) {
        try {
          await wb.runCommand('Agent Trace Lens: Open Trajectory…');
          break;
        } catch (e) {
          if (attempt >= 4) throw e;
          await wb.page.waitForTimeout(5000);
        }
      }
      await wb.answerFileDialog(path.join(workspace, SECRETS_FILE));
      // The view reveals itself once the file is read; on a busy machine that takes a while.
      await wb.traceTree().waitFor({ timeout: 30_000 });
      await wb.traceRow(/^Deploy the billing service/);
      // Let the token counts land first: they redraw the tree, and a selection made before points at old rows.
      await wb.page.waitForTimeout(3000);
      // Steps: 0 system, 1 user, 2 thought, 3 call, 4 result, 5 thought, 6 call, 7 result, 8 thought, 9 call, 10 result…
      const selected = await wb.selectStepRange(1, 10);
      assert.ok(selected.includes(1) && selected.includes(10), `the tree selected steps ${JSON.stringify(selected)}`);
      await wb.contextMenu(await wb.traceStepRow(10), 'Compact Range…');
      await wb.page.locator('.quick-input-widget .quick-input-list .monaco-list-row').first().waitFor({ timeout: 15_000 });
      await wb.pickQuickItem(SUMMARY.label, SUMMARY.label);
      await wb.pickQuickItem('Run');
      const report = new ReportView(wb.page);
      // The tab names the trajectory, cut to fit: match its start.
      await report.tab('Deploy the billing service').waitFor({ timeout: 60_000 });
      await report.tab('Deploy the billing service').click();
      await wb.runCommand('View: Close Editors in Other Groups');
      await report.waitForReport();
      await report.openTab('range');
      const summary = report.frame().locator('#summary-text');
      await summary.scrollIntoViewIfNeeded();
      const text = await summary.innerText();
      assert.match(text, /\[REDACTED:[a-z-]+\]/, `the summary shows no redaction marker:\n${text}`);
      for (const [name, secret] of Object.entries(SECRETS)) assert.ok(!text.includes(secret), `the summary shows the ${name} secret:\n${text}`);
      await wb.parkMouse();
      await shot('summary');
      await wb.closeAllEditors();
    },
  },
];
