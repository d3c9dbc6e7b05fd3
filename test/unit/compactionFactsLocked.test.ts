import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { factFiles, FACTS_LOCKED_DIR, measureFacts } from '../helpers/factLabels';

// The locked third of issue 22 (test/fixtures/facts-locked): runs the fact layer was never developed
// on, labelled before any strategy ran on them and never tuned on. The facts kept are `npm run
// bench`'s to print (only the totals here: a test log is read often, and the locked misses are not
// to be read while working).

// Task drops found on the locked third and not fixed, because no run we develop on shows their
// cause (a miss found there is fixed only where the cause shows on a dev run). The test holds the
// list exactly: a new drop fails it, and so does one that goes away (then take it off the list).
// - summarizing-session, wild-openprintkit-codex.json (found 2026-11-27, session 34, the run's first
//   measurement): a resumed Codex session opens with "Can we continue from where we left off?"; the
//   labelled task is the first request that says what to do (step 46), one of 63 requests, and the
//   400-token summary keeps the opening as its Goal and only the latest requests.
// - hierarchical-summary, the same run and cause: its 500- and 1,000-character levels.
const KNOWN_TASK_DROPS: Record<string, string[]> = {
  'summarizing-session': ['wild-openprintkit-codex.json'],
  'hierarchical-summary': ['wild-openprintkit-codex.json'],
};

test('locked third: every summarising strategy keeps the task, but for the known drops listed here', async () => {
  const locked = factFiles(FACTS_LOCKED_DIR);
  assert.ok(locked.present.length >= 4, `${locked.present.length} locked runs`);
  const rows = await measureFacts(locked.present);
  console.log(`facts kept offline — locked (${locked.present.length} runs${locked.absent.length ? `; not on this machine: ${locked.absent.join(', ')}` : ''}): ${rows.map((r) => `${r.id} ${r.kept}/${r.facts}`).join(', ')}`);
  for (const r of rows) assert.deepEqual(r.taskLost, KNOWN_TASK_DROPS[r.id] ?? [], `${r.id}: task drops on the locked third`);
});
