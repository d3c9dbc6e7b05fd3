// "Survey many runs" as a person does it: a folder of real corpus runs in the workspace, Survey
// Folder… from its Explorer menu, the table of runs (sorted by a header, filtered), a row opening
// its run in the Trajectories tree. Expectations come from the CLI's `stats DIR --json`.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SHARED } from '../helpers/paths';
import { ReportView } from './reportView';
import type { Scenario } from './scenarios';

const FOLDER = 'survey-runs';
const FILES: Record<string, string> = {
  'swe/astropy__astropy-12907.traj.json': 'mini-swe-agent/astropy__astropy-12907.traj.json',
  'swe/sphinx-doc__sphinx-9711.traj.json': 'mini-swe-agent/sphinx-doc__sphinx-9711.traj.json',
  'swe/marshmallow-code__marshmallow-1867.traj': 'swe-agent/marshmallow-code__marshmallow-1867.traj',
  'evals/output.jsonl': 'openhands-eval/output.jsonl',
  'claude/crud.jsonl': 'claude-code/crud.jsonl',
};

interface ExpectedRow { file: string; run: number; runsInFile: number; steps: number; task?: string; name: string; cost?: number | null; costLabel?: string; costReason?: string }

/** The folder of runs, made before the workbench opens (a busy machine's file watcher can be slow to show a new one). */
export function fillSurveyFolder(workspace: string): string {
  const dir = path.join(workspace, FOLDER);
  for (const [rel, src] of Object.entries(FILES)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.copyFileSync(path.join(SHARED, 'corpus', src), path.join(dir, rel));
  }
  fs.writeFileSync(path.join(dir, 'broken.json'), '{"this is": "no agent log"}');
  return dir;
}

function expectedRows(repo: string, dir: string): ExpectedRow[] {
  const r = spawnSync(process.execPath, [path.join(repo, 'dist', 'cli.js'), 'stats', dir, '--json'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim().split('\n').map((l) => JSON.parse(l)).filter((v) => v.run !== undefined) as ExpectedRow[];
}

// Runs are named as the CLI names them (`FILE#N`, N from 0), so a row can be pasted into `diff`.
const label = (r: ExpectedRow) => (r.runsInFile > 1 ? `${r.file}#${r.run}` : r.file);

export const SURVEY_SCENARIOS: Scenario[] = [
  {
    name: 'survey-folder',
    async run({ wb, repo, workspace, shot }) {
      const dir = path.join(workspace, FOLDER);
      if (!fs.existsSync(dir)) fillSurveyFolder(workspace);
      const expected = expectedRows(repo, dir);
      assert.equal(expected.length, 7, 'four single runs and the three of the eval output');
      await wb.closeAllEditors();
      await wb.explorerContextMenu(FOLDER, 'Survey Folder…');
      const view = new ReportView(wb.page);
      const frame = () => view.frame();
      await frame().locator('.status', { hasText: /7 runs in 5 files, 1 not read/ }).waitFor({ timeout: 90_000 });
      const firstColumn = async () => frame().locator('tbody tr.run td:first-child').allInnerTexts();

      // Every run is a row, in file order, with the steps the CLI counts.
      const rows = await firstColumn();
      assert.deepEqual(rows, [...expected].sort((a, b) => (a.file === b.file ? a.run - b.run : a.file < b.file ? -1 : 1)).map(label));
      for (const e of expected) {
        const row = frame().locator(`tbody tr.run[data-file="${e.file}"][data-run="${e.run}"]`);
        const cells = await row.locator('td').allInnerTexts();
        assert.equal(cells[4], e.steps.toLocaleString('en-US'), `steps of ${label(e)}`);
        if (e.task) assert.equal(cells[2], e.task);
        // The run's one cost, as `stats` (and the tooltip, status bar and report) give it.
        const usd = (x: number) => `$${x.toFixed(x !== 0 && Math.abs(x) < 0.01 ? 4 : 2)}`;
        assert.equal(cells[7], e.cost === null || e.cost === undefined ? e.costReason ?? 'unknown' : `${usd(e.cost)} ${e.costLabel}`, `cost of ${label(e)}`);
      }
      const headers = (await frame().locator('thead th').allInnerTexts()).map((h) => h.replace(/[▲▼]/g, '').trim());
      assert.deepEqual(headers, ['Run', 'Format', 'Task', 'Model', 'Steps', 'Tokens', 'Requests', 'Cost', 'Cost (modelled, with caching)', 'Cost (recorded)', 'Outcome']);
      const totals = await frame().locator('tfoot tr.totals td').allInnerTexts();
      assert.equal(totals[0], 'Total: 7 runs');
      assert.equal(totals[4], expected.reduce((n, e) => n + e.steps, 0).toLocaleString('en-US'));
      assert.match(await frame().locator('.skipped summary').innerText(), /1 file not read/);

      // A click on "Steps" sorts by steps, most first; a second click, fewest first.
      await frame().locator('button.sort[data-column="steps"]').click();
      await frame().locator('th[aria-sort="descending"] button[data-column="steps"]').waitFor();
      const bySteps = [...expected].sort((a, b) => b.steps - a.steps || label(a).localeCompare(label(b)));
      assert.deepEqual(await firstColumn(), bySteps.map(label));
      assert.notDeepEqual(await firstColumn(), rows, 'the order changed');
      await wb.parkMouse();
      // The picture for the README: the panel with room, the side bar closed for it.
      await wb.runCommand('View: Toggle Primary Side Bar Visibility');
      await wb.page.waitForTimeout(500);
      await shot('table');
      await wb.runCommand('View: Toggle Primary Side Bar Visibility');
      await frame().locator('button.sort[data-column="steps"]').click();
      await frame().locator('th[aria-sort="ascending"] button[data-column="steps"]').waitFor();
      assert.equal((await firstColumn())[0], label(bySteps[bySteps.length - 1]));

      // The filter keeps the rows that match, and the totals follow it.
      await frame().locator('input.filter').fill('ponyc');
      await frame().locator('caption', { hasText: '3 of 7 runs match the filter' }).waitFor();
      assert.equal((await frame().locator('tfoot tr.totals td').first().innerText()), 'Total: 3 runs');
      await shot('filtered');
      // The tree's query language, with the fields of a run.
      await frame().locator('input.filter').fill('format:openhands-eval steps>0');
      await frame().locator('caption', { hasText: '3 of 7 runs match the filter' }).waitFor();
      await frame().locator('input.filter').fill('format:claude-code');
      await frame().locator('caption', { hasText: '1 of 7 runs match the filter' }).waitFor();
      await frame().locator('input.filter').fill('kind:tool_call');
      await frame().locator('caption', { hasText: /Filter not applied: .*picks steps/ }).waitFor();
      await shot('filter-fields');
      await frame().locator('input.filter').fill('ponyc');
      await frame().locator('caption', { hasText: '3 of 7 runs match the filter' }).waitFor();

      // A click on a run opens its file in the Trajectories tree with that run selected.
      const target = expected.find((e) => e.file === 'evals/output.jsonl' && e.run === 1)!;
      await frame().locator(`tbody tr.run[data-file="${target.file}"][data-run="1"]`).click();
      const selected = wb.page.locator('.monaco-list[aria-label^="Trajectories"] .monaco-list-row.selected');
      // Opening selects the file's row first, then the run's.
      const run = selected.filter({ hasText: target.task! });
      await run.first().waitFor({ timeout: 30_000 }).catch(async () => {
        throw new Error(`the selected tree rows are not the run clicked: ${JSON.stringify(await selected.allInnerTexts())}`);
      });
      assert.equal(await selected.count(), 1, 'only the run is selected');
      await shot('opened-run');

      // The file of many runs now in the tree offers "Survey Runs": a panel of its three runs.
      await wb.contextMenu(await wb.traceRow(/^OpenHands evaluation: 3 runs/), 'Survey Runs');
      await wb.page.locator('.tabs-container .tab', { hasText: 'Survey: output.jsonl' }).first().waitFor({ timeout: 30_000 });
      await frame().locator('.status', { hasText: /3 runs in 1 file\b/ }).waitFor({ timeout: 60_000 });
      assert.deepEqual(await firstColumn(), [0, 1, 2].map((n) => `output.jsonl#${n}`));
    },
  },
];
