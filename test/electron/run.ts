// Runs test/electron/suite inside a real desktop VS Code, downloaded by @vscode/test-electron.
// Needs internet the first time (update.code.visualstudio.com); CI uses the offline
// code-server suite in test/e2e instead. `npm run test:electron`.
//   ATL_VSCODE_VERSION=1.95.0   pin the VS Code version (default: newest matching engines.vscode)
//   ATL_VSCODE_PATH=/path/code  use an installed VS Code; nothing is downloaded
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runTests } from '@vscode/test-electron';
import { REPO_ROOT } from '../helpers/paths';

async function main(): Promise<void> {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'atl-electron-'));
  // Launched from a VS Code terminal, this variable would make Electron start as plain Node.
  delete process.env.ELECTRON_RUN_AS_NODE;
  try {
    await runTests({
      extensionDevelopmentPath: REPO_ROOT,
      extensionTestsPath: path.join(__dirname, 'suite', 'index.js'),
      version: process.env.ATL_VSCODE_VERSION,
      vscodeExecutablePath: process.env.ATL_VSCODE_PATH,
      launchArgs: [workspace, '--disable-extensions', '--no-sandbox', '--disable-gpu'],
    });
  } finally {
    fs.rmSync(workspace, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error('The VS Code test run failed:', e instanceof Error ? e.message : e);
  process.exit(1);
});
