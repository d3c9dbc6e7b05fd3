// Issue 14, Restricted Mode, in a real workbench: code-server started WITH workspace trust (run.sh's
// third phase) on a folder whose .vscode/settings.json asks for a 1 MB file-size limit, for files to
// be opened as soon as they are looked at, and for a model endpoint of its own; the user settings
// say 4096 MB. The window must come up in Restricted Mode, opening trajectories in the editor must
// not load them into the Trajectories view, "Open Trajectory…" must load a 2.5 MB run (the
// user's limit, not the workspace's), and "Set API Key" must name the user's endpoint.
// Prints `N passed, M failed (restricted mode)` last.
//   node out/test/e2e/restrictedMode.js --url URL --workspace DIR --user-settings FILE
//     [--chromium PATH] [--profile DIR] [--artifacts DIR] [--screenshots DIR]
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { REPO_ROOT, SHARED } from '../helpers/paths';
import { expectedFor } from './expected';
import { Workbench } from './workbench';

/** What the untrusted folder asks for; none of it may apply. The endpoint is never contacted. */
export const WORKSPACE_SETTINGS = {
  'agentTraceLens.maxFileSizeMB': 1,
  'agentTraceLens.followActiveEditor': true,
  'agentTraceLens.llm.baseUrl': 'http://198.51.100.7/v1',
};
const SMALL = 'small-run.json';
const LARGE = 'large-run.traj.json';

/** A real mini-swe-agent run whose steps are repeated until the file passes 2.5 MB: over the workspace's 1 MB. */
function writeLargeRun(file: string): void {
  const run = JSON.parse(fs.readFileSync(path.join(SHARED, 'corpus', 'mini-swe-agent', 'astropy__astropy-12907.traj.json'), 'utf8')) as { messages: unknown[] };
  const [system, task, ...rest] = run.messages;
  for (let copies = 1; ; copies++) {
    const text = JSON.stringify({ ...run, messages: [system, task, ...Array.from({ length: copies }, () => rest).flat()] });
    if (text.length >= 2.5 * 1024 * 1024) {
      fs.writeFileSync(file, text);
      return;
    }
  }
}

/** The extension's log in code-server's user-data folder, or '' before the extension made it. */
function extensionLog(settingsFile: string): string {
  const logs = path.join(path.dirname(settingsFile), '..', 'logs');
  if (!fs.existsSync(logs)) return '';
  return fs.readdirSync(logs, { recursive: true, encoding: 'utf8' })
    .filter((file) => path.basename(file) === 'Agent Trace Lens.log')
    .map((file) => fs.readFileSync(path.join(logs, file), 'utf8'))
    .join('\n');
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      workspace: { type: 'string' },
      'user-settings': { type: 'string' },
      chromium: { type: 'string', default: '/usr/bin/chromium' },
      profile: { type: 'string' },
      artifacts: { type: 'string', default: path.join(REPO_ROOT, 'test', 'e2e', 'artifacts') },
      screenshots: { type: 'string' },
    },
  });
  if (!values.url || !values.workspace || !values['user-settings']) throw new Error('--url, --workspace and --user-settings are required');
  const workspace = values.workspace;
  const settingsFile = values['user-settings'];
  const artifacts = values.artifacts!;
  // The UI suite empties the folder before its run; this phase only adds its own pictures.
  fs.mkdirSync(artifacts, { recursive: true });
  const userSettings = JSON.parse(fs.readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
  assert.equal(userSettings['security.workspace.trust.enabled'], true, 'run.sh starts this phase with workspace trust on');
  assert.equal(userSettings['agentTraceLens.maxFileSizeMB'], 4096, "the user's own limit");
  fs.mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
  fs.writeFileSync(path.join(workspace, '.vscode', 'settings.json'), JSON.stringify(WORKSPACE_SETTINGS, null, 2));
  fs.copyFileSync(path.join(SHARED, 'corpus', 'openhands-v0', 'basic.json'), path.join(workspace, SMALL));
  const large = path.join(workspace, LARGE);
  writeLargeRun(large);
  const largeMB = fs.statSync(large).size / 1024 / 1024;
  assert.ok(largeMB > WORKSPACE_SETTINGS['agentTraceLens.maxFileSizeMB'], 'the file is over the limit the workspace asks for');
  const want = expectedFor(REPO_ROOT, large);

  const profile = values.profile ?? fs.mkdtempSync(path.join(os.tmpdir(), 'atl-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: values.chromium,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  let passed = 0;
  let failed = 0;
  let readmeShot: string | undefined;
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(20_000);
    const wb = new Workbench(page);
    const t0 = Date.now();
    await wb.open(values.url, workspace, 120_000);
    console.log(`workbench ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    const check = async (name: string, body: (shot: (step: string) => Promise<string>) => Promise<void>) => {
      const started = Date.now();
      const shot = async (step: string) => {
        const file = path.join(artifacts, `${name}-${step}.png`);
        await page.screenshot({ path: file });
        return file;
      };
      try {
        await body(shot);
        passed++;
        console.log(`ok   ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      } catch (e) {
        failed++;
        await shot('FAILED').catch(() => undefined);
        console.log(`FAIL ${name}: ${(e as Error).stack ?? e}`);
        console.log(`     on screen: ${JSON.stringify(await wb.onScreen().catch((err) => String(err)))}`);
        await page.keyboard.press('Escape').catch(() => undefined);
      }
    };

    await check('restricted-mode-window', async (shot) => {
      // The status bar's trust indicator and the banner across the top both name Restricted Mode.
      const indicator = page.locator('#workbench\\.parts\\.statusbar .statusbar-item', { hasText: /Restricted Mode/ }).first();
      await indicator.waitFor({ timeout: 30_000 });
      const banner = page.locator('.monaco-workbench .part.banner', { hasText: /Restricted Mode/ }).first();
      const bannerText = await banner.waitFor({ timeout: 10_000 }).then(() => banner.innerText(), () => '(no banner)');
      console.log(`     status bar: "${(await indicator.innerText()).trim()}"; banner: "${bannerText.replace(/\s+/g, ' ').trim()}"`);
      await shot('window');
    });

    await check('restricted-mode-no-auto-open', async (shot) => {
      // The extension must be running, or "nothing opened" would prove nothing.
      const deadline = Date.now() + 60_000;
      while (!extensionLog(settingsFile).includes('Agent Trace Lens activated')) {
        assert.ok(Date.now() < deadline, 'the extension did not activate in Restricted Mode within 60 s');
        await page.waitForTimeout(500);
      }
      // A small run (under even the workspace's 1 MB) and the large one, opened as text, as a person looks at them.
      for (const file of [SMALL, LARGE]) {
        await wb.openInEditor(file);
        await page.waitForTimeout(4_000);
      }
      assert.equal(await wb.traceViewHasTrajectories(), false, 'the Trajectories view loaded a file merely opened in the editor');
      await page.locator('.pane-body', { hasText: 'No trajectory is open.' }).first().waitFor({ timeout: 5_000 });
      const opened = extensionLog(settingsFile).match(/Opened .*/g) ?? [];
      assert.deepEqual(opened, [], 'the extension read a trajectory by itself');
      await wb.parkMouse();
      await shot('nothing-opened');
    });

    await check('restricted-mode-user-limit', async (shot) => {
      await wb.clearNotifications();
      await wb.runCommand('Agent Trace Lens: Open Trajectory…');
      await wb.answerFileDialog(large);
      // Either the tree shows the run, or a message says why not (the workspace's 1 MB limit, say).
      const refused = wb.waitForNotification(new RegExp(`${LARGE.replace(/\./g, '\\.')}.*(MB|large|limit)`, 'i'), 30_000).then((t) => t, () => undefined);
      const row = await Promise.race([wb.traceRow(want.title), refused.then((t) => {
        if (t) throw new Error(`Open Trajectory… refused the file: ${t}`);
        return wb.traceRow(want.title);
      })]);
      const description = (await row.locator('.label-description').textContent()) ?? '';
      assert.ok(description.includes(`${want.steps.toLocaleString('en-US')} steps`), `the root says "${description}", not ${want.steps} steps`);
      const refusals = (await wb.notifications()).filter((t) => /MB|too large|limit/i.test(t));
      assert.deepEqual(refusals, [], 'no size-limit message');
      assert.match(extensionLog(settingsFile), new RegExp(`Opened \\S*${LARGE.replace(/\./g, '\\.')} as `), 'the extension log records the load');
      // The progress toast ("Opening …: Done") goes by itself; the picture should show the tree, not it.
      await page.locator('.notification-toast', { hasText: /Opening / }).first().waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => wb.clearNotifications());
      await wb.parkMouse();
      console.log(`     ${largeMB.toFixed(2)} MB (${want.steps} steps) opened over the workspace's 1 MB limit: "${description}"`);
      readmeShot = await shot('opened');
    });

    await check('restricted-mode-endpoint', async (shot) => {
      // "Set API Key" names the endpoint the key would be for: the user's (here the default), not the folder's.
      await wb.runCommand('Agent Trace Lens: Set API Key');
      const title = page.locator('.quick-input-widget .quick-input-title').filter({ visible: true }).first();
      await title.waitFor({ timeout: 15_000 });
      const text = (await title.innerText()).trim();
      await page.waitForTimeout(500); // the quick input fades in
      await shot('api-key-prompt');
      await page.keyboard.press('Escape');
      assert.ok(!text.includes('198.51.100.7'), `the key prompt is for the folder's endpoint: "${text}"`);
      assert.equal(text, 'API key for https://api.openai.com/v1');
    });
  } finally {
    await context.close();
    if (!values.profile) fs.rmSync(profile, { recursive: true, force: true });
  }
  if (failed === 0 && values.screenshots && readmeShot) {
    fs.mkdirSync(values.screenshots, { recursive: true });
    fs.copyFileSync(readmeShot, path.join(values.screenshots, 'restricted-mode.png'));
  }
  console.log(`${passed} passed, ${failed} failed (restricted mode)`);
  return failed === 0 && passed > 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(e);
    console.log('0 passed, 1 failed (restricted mode)');
    process.exit(1);
  },
);
