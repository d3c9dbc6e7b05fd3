// Search and filter in a real workbench: "Filter Steps…" narrows a large run as the user types and
// says how many steps matched; F8 / Shift+F8 walk a real run's failed steps. What should match is
// asked of the bundled CLI (`search --json`), which shares the query language with the extension.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SHARED } from '../helpers/paths';
import { expectedFor, kindOfLabel } from './expected';
import { closeOpenTrajectories } from './formatScenarios';
import { subtreeOf, type Scenario } from './scenarios';
import type { Workbench } from './workbench';

const LARGE_RUN = 'find-large-run.jsonl';
/** Copies of the real run in the large file. */
const REPEATS = 64;
const QUERY = 'git diff';
/** The OpenHands evaluation output (three runs), copied into the workspace under this name. */
const EVAL_COPY = 'find-eval-output.jsonl';

interface SearchResult { matches: { run?: number; step: number; kind: string; tool: string | null; text: string }[]; total: number }

function search(repo: string, file: string, ...args: string[]): SearchResult {
  const out = execFileSync(process.execPath, [path.join(repo, 'dist', 'cli.js'), 'search', file, ...args, '--json'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(out) as SearchResult;
}

/** A mini-swe-agent run (astropy) as chat-messages JSONL, its messages repeated: one long run of many turns. */
function writeLargeRun(file: string): void {
  const raw = JSON.parse(fs.readFileSync(path.join(SHARED, 'corpus', 'mini-swe-agent', 'astropy__astropy-12907.traj.json'), 'utf8')) as { messages: unknown[] };
  const block = raw.messages.map((m) => JSON.stringify(m)).join('\n') + '\n';
  const fd = fs.openSync(file, 'w');
  try {
    for (let i = 0; i < REPEATS; i++) fs.writeSync(fd, block);
  } finally {
    fs.closeSync(fd);
  }
}

/** Clicks a button of the Trajectories view's title bar by its name; the palette when it is not shown. */
async function titleButton(wb: Workbench, title: string): Promise<void> {
  // Title-bar actions show while the mouse is over the side bar.
  await wb.page.locator('#workbench\\.parts\\.sidebar .composite.title').first().hover().catch(() => undefined);
  const button = wb.page.locator(`#workbench\\.parts\\.sidebar .action-label[aria-label^="${title}"]`).filter({ visible: true }).first();
  if (await button.waitFor({ timeout: 3_000 }).then(() => true, () => false)) await button.click();
  else await wb.runCommand(`Agent Trace Lens: ${title}`);
}

/**
 * Selects a trajectory's row with the keyboard in the tree, as a person does before pressing F8. A
 * click on a row also folds it; the row is opened again with the arrow key, and only then is F8 sent.
 */
async function selectRoot(wb: Workbench, title: string): Promise<void> {
  const row = await wb.traceRow(title);
  await row.click();
  await wb.page.waitForTimeout(300);
  if ((await row.getAttribute('aria-expanded')) === 'false') await wb.page.keyboard.press('ArrowRight');
  await wb.page.waitForFunction((el) => el?.getAttribute('aria-expanded') === 'true' && el.classList.contains('selected'), await row.elementHandle(), { timeout: 5_000 });
}

/** Closes an open trajectory with its row's inline button, so later scenarios do not scroll past it. */
async function closeTrajectory(wb: Workbench, title: string): Promise<void> {
  const row = await wb.traceRow(title);
  await row.hover();
  await row.locator('.action-label[aria-label="Close Trajectory"]').click();
  await row.waitFor({ state: 'detached', timeout: 10_000 }).catch(() => undefined);
  await wb.parkMouse();
}

/** The step numbers of the trace-tree rows on screen, from their accessible labels ("…, step 7, …"). */
async function visibleStepNumbers(wb: Workbench): Promise<number[]> {
  const labels = await wb.traceTree().locator('.monaco-list-rows > .monaco-list-row').evaluateAll((els) => els.map((el) => el.getAttribute('aria-label') ?? ''));
  return labels.map((l) => /, step (\d+),/.exec(l)).filter((m): m is RegExpExecArray => m !== null).map((m) => Number(m[1]));
}

async function waitForSelectedStep(wb: Workbench, step: number): Promise<void> {
  await wb.page.waitForFunction((n) => Array.from(document.querySelectorAll('.monaco-list[aria-label^="Trajectories"] .monaco-list-rows > .monaco-list-row.selected'))
    .some((el) => (el.getAttribute('aria-label') ?? '').includes(`, step ${n},`)), step, { timeout: 20_000 });
  await wb.page.waitForFunction((n) => new RegExp(`^\\s*step ${n} —`).test(document.querySelector('.editor-group-container.active .tabs-container .tab.active')?.textContent ?? ''), step, { timeout: 20_000 });
}

export const FIND_SCENARIOS: Scenario[] = [
  {
    name: 'find-filter-large-run',
    async run(ctx) {
      const { wb, repo, workspace, shot } = ctx;
      // The view's match count covers every open trajectory: start from an empty view.
      await closeOpenTrajectories(ctx);
      const file = path.join(workspace, LARGE_RUN);
      writeLargeRun(file);
      const want = expectedFor(repo, file);
      const expected = search(repo, file, QUERY);
      const perCopy = want.steps / REPEATS;
      assert.ok(Number.isInteger(perCopy), `${want.steps} steps are not ${REPEATS} copies`);
      const inFirstTurn = expected.matches.filter((m) => m.step < perCopy).map((m) => m.step);
      assert.ok(expected.total > 50 && inFirstTurn.length > 0, `the query should match often: ${expected.total}`);

      await wb.runCommand('Agent Trace Lens: Open Trajectory…');
      await wb.answerFileDialog(file);
      await wb.traceRow(want.title);
      const before = subtreeOf(await wb.traceRows(), want.title);
      const stepRowsBefore = before.rows.filter((r) => kindOfLabel(r.label) !== undefined).length;
      assert.ok(stepRowsBefore >= perCopy - 1, `turn 1 lists ${stepRowsBefore} steps before filtering`);

      await wb.traceRow(want.title); // back to the top, for the pictures
      // Typed into the box, not pasted: the tree narrows while the box is still open.
      await titleButton(wb, 'Filter Steps…');
      const input = wb.page.locator('.quick-input-widget input');
      await input.waitFor();
      await input.pressSequentially(QUERY, { delay: 40 });
      const count = `${expected.total} matches`;
      // The box counts the matches, and the tree behind it is already narrowed, while it is still open.
      await wb.page.locator('.quick-input-widget', { hasText: `${count} for '${QUERY}'` }).waitFor({ timeout: 20_000 });
      await wb.page.waitForFunction(() => Array.from(document.querySelectorAll('.monaco-list[aria-label^="Trajectories"] .monaco-list-row .label-description'))
        .some((el) => / matches? /.test(el.textContent ?? '')), undefined, { timeout: 20_000 });
      await shot('typing');
      await input.press('Enter');
      await wb.page.locator('.quick-input-widget').waitFor({ state: 'hidden' });

      const after = subtreeOf(await wb.traceRows(), want.title);
      await wb.traceRow(want.title);
      await shot('filtered');
      assert.ok(after.root.description.includes(count), `the root row says ${JSON.stringify(after.root.description)}, not ${count}`);
      assert.ok(after.rows.length < before.rows.length, `the tree lists ${after.rows.length} rows filtered, ${before.rows.length} before`);
      const message = wb.page.locator('.pane-body, .split-view-view').getByText(`${count} for '${QUERY}'`).first();
      await message.waitFor({ timeout: 10_000 });
      // Turn 1 lists exactly its matching steps; every turn that is kept says how many it holds.
      const stepRows = after.rows.filter((r) => kindOfLabel(r.label) !== undefined);
      assert.equal(stepRows.length, inFirstTurn.length, `turn 1 shows ${stepRows.length} steps, the CLI finds ${inFirstTurn.length} in it`);
      await wb.traceRow('Turn 1');
      assert.deepEqual((await visibleStepNumbers(wb)).filter((n) => n < perCopy).sort((a, b) => a - b), inFirstTurn);
      const turns = after.rows.filter((r) => /^Turn \d+$/.test(r.label));
      assert.equal(turns.length, REPEATS);
      assert.ok(turns.every((t) => / matches? /.test(t.description + ' ')), 'a turn row does not say how many of its steps match');

      // A matching step opens with the matches marked, as the editor's own find marks them.
      await (await wb.traceStepRow(inFirstTurn[0])).click();
      await wb.page.waitForFunction((n) => new RegExp(`^\\s*step ${n} —`).test(document.querySelector('.editor-group-container.active .tabs-container .tab.active')?.textContent ?? ''), inFirstTurn[0], { timeout: 15_000 });
      const marks = wb.page.locator('.editor-group-container.active .monaco-editor .view-overlays [class*="ced-"], .editor-group-container.active .monaco-editor .view-lines [class*="ced-"]');
      await marks.first().waitFor({ timeout: 10_000 });
      assert.ok((await wb.activeEditorText()).toLowerCase().includes(QUERY));
      await wb.parkMouse();
      await shot('highlighted');

      await titleButton(wb, 'Clear Filter');
      await wb.page.waitForFunction((title) => Array.from(document.querySelectorAll('.monaco-list-row')).some((row) =>
        (row.querySelector('.label-name')?.textContent ?? '').trim().startsWith(title) && !/matches?\b/.test(row.querySelector('.label-description')?.textContent ?? '')),
      want.title, { timeout: 20_000 });
      const cleared = subtreeOf(await wb.traceRows(), want.title);
      assert.ok(cleared.rows.filter((r) => kindOfLabel(r.label) !== undefined).length >= stepRowsBefore, 'clearing the filter did not bring the steps back');
      await wb.closeAllEditors();
      await closeTrajectory(wb, want.title);
      fs.rmSync(file, { force: true });
    },
  },
  {
    name: 'find-next-error',
    async run(ctx) {
      const { wb, repo, workspace, shot } = ctx;
      // Next Error walks every open trajectory: start from an empty view.
      await closeOpenTrajectories(ctx);
      const file = path.join(workspace, 'pydicom__pydicom-1458.traj');
      const want = expectedFor(repo, file);
      const errors = search(repo, file, '--errors').matches.map((m) => m.step);
      assert.ok(errors.length >= 2, `the run has ${errors.length} failed steps`);
      await wb.explorerContextMenu('pydicom__pydicom-1458.traj', 'Open as Trajectory');
      // Selecting the file's row puts the keyboard in the tree, where F8 means Next Error.
      await selectRoot(wb, want.title);
      await wb.page.keyboard.press('F8');
      await waitForSelectedStep(wb, errors[0]);
      await wb.page.keyboard.press('F8');
      await waitForSelectedStep(wb, errors[1]);
      await wb.parkMouse();
      await shot('second-error');
      // The step really failed: its document shows the failure the log recorded.
      const text = await wb.activeEditorText();
      assert.match(text, /Error|error|Traceback/, `step ${errors[1]} shows no error: ${text.slice(0, 200)}`);
      await wb.page.keyboard.press('Shift+F8');
      await waitForSelectedStep(wb, errors[0]);
      await shot('previous-error');
      // Go to Step… takes a step number.
      const target = errors[errors.length - 1];
      await wb.runCommand('Agent Trace Lens: Go to Step…');
      const input = wb.page.locator('.quick-input-widget input');
      await input.fill(String(target));
      await input.press('Enter');
      await waitForSelectedStep(wb, target);
      await shot('go-to-step');
      await wb.closeAllEditors();

      // A file of many runs: F8 crosses into the run of the first failure; Go to Step takes RUN:STEP.
      const evalFile = path.join(workspace, EVAL_COPY);
      fs.copyFileSync(path.join(SHARED, 'corpus', 'openhands-eval', 'output.jsonl'), evalFile);
      const evalWant = expectedFor(repo, evalFile);
      const evalErrors = search(repo, evalFile, '--errors').matches;
      assert.ok(new Set(evalErrors.map((m) => m.run)).size > 1, 'the evaluation output has failures in more than one run');
      await wb.runCommand('Agent Trace Lens: Open Trajectory…');
      await wb.answerFileDialog(evalFile);
      await selectRoot(wb, evalWant.title);
      await wb.page.keyboard.press('F8');
      await waitForSelectedStep(wb, evalErrors[0].step);
      const lastError = evalErrors[evalErrors.length - 1];
      await wb.runCommand('Agent Trace Lens: Go to Step…');
      await input.fill(`${lastError.run}:${lastError.step}`);
      await input.press('Enter');
      await waitForSelectedStep(wb, lastError.step);
      // Under its run: file, run, turn, step.
      const level = await wb.traceTree().locator('.monaco-list-rows > .monaco-list-row.selected').first().getAttribute('aria-level');
      assert.equal(level, '4', 'the step is not shown inside its run');
      await shot('go-to-run-step');
      await wb.closeAllEditors();
      await closeTrajectory(wb, evalWant.title);
      fs.rmSync(evalFile, { force: true });
    },
  },
];
