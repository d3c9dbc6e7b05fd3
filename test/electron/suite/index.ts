// Runs inside VS Code's extension host (loaded by @vscode/test-electron's runTests).
// A tiny runner on node:assert, so the suite needs no mocha: each check runs in order,
// failures are collected, and `run` rejects when any failed, which fails the VS Code run.
import { CHECKS } from './checks';

export async function run(): Promise<void> {
  let passed = 0;
  const failures: string[] = [];
  for (const check of CHECKS) {
    try {
      await check.run();
      passed++;
      console.log(`ok   ${check.name}`);
    } catch (e) {
      failures.push(check.name);
      console.log(`FAIL ${check.name}: ${e instanceof Error ? e.stack : String(e)}`);
    }
  }
  console.log(`${passed} passed, ${failures.length} failed`);
  if (failures.length > 0) throw new Error(`${failures.length} check(s) failed: ${failures.join(', ')}`);
}
