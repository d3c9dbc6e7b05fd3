// Runs test/electron/suite (the @vscode/test-electron checks) inside code-server's extension
// host, offline: code-server started with `--vscode-option enable-smoke-test-driver` loads a
// development extension and its tests from the page URL's `payload`. The suite's output arrives
// as browser console messages; its closing line decides the exit code.
//   node out/test/e2e/hostSuite.js --url URL --workspace DIR [--chromium PATH]
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { REPO_ROOT } from '../helpers/paths';

const RESULT = /(?:^|\s)((?:ok {3}|FAIL ).*|(\d+) passed, (\d+) failed)$/s;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      workspace: { type: 'string' },
      chromium: { type: 'string', default: '/usr/bin/chromium' },
      timeout: { type: 'string', default: '240' },
    },
  });
  if (!values.url || !values.workspace) throw new Error('--url and --workspace are required');
  const suite = path.join(REPO_ROOT, 'out', 'test', 'electron', 'suite', 'index.js');
  if (!fs.existsSync(suite)) throw new Error(`${suite} is missing: compile test/electron/tsconfig.json first`);
  // Paths in the payload are URIs on the server side of code-server: vscode-remote://HOST:PORT/path.
  const authority = new URL(values.url).host;
  const remote = (p: string) => `vscode-remote://${authority}${p}`;
  const payload = [['extensionDevelopmentPath', remote(REPO_ROOT)], ['extensionTestsPath', remote(suite)]];

  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'atl-chromium-host-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: values.chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    const closing = new Promise<{ passed: number; failed: number }>((resolve) => {
      page.on('console', (message) => {
        const m = RESULT.exec(message.text());
        if (!m) return;
        if (m[2] === undefined) console.log(m[1]);
        else resolve({ passed: Number(m[2]), failed: Number(m[3]) });
      });
    });
    await page.goto(`${values.url}/?folder=${encodeURIComponent(values.workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`);
    const timeoutMs = Number(values.timeout) * 1000;
    const result = await Promise.race([closing, new Promise<undefined>((r) => setTimeout(() => r(undefined), timeoutMs))]);
    if (!result) {
      console.log(`the extension-host suite printed no result within ${values.timeout} s`);
      console.log('0 passed, 1 failed (extension host)');
      return 1;
    }
    console.log(`${result.passed} passed, ${result.failed} failed (extension host)`);
    return result.failed === 0 && result.passed > 0 ? 0 : 1;
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
