import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { findStrategy, runCompaction } from '../../src/core/compaction';
import { redactTrajectory } from '../../src/core/compaction/redactTrajectory';
import { resolveOptions } from '../../src/core/compaction/runner';
import { taskOf, typedFirst } from '../../src/core/compaction/facts/requests';
import { loadTrajectory } from '../../src/core/open';
import type { Run } from '../../src/core/model';

import { charEstimateCounter } from '../../src/core/tokens/counter';
import { allRealFiles, wildSplitFiles } from '../helpers/realFiles';
import { REPO_ROOT } from '../helpers/paths';

const SUMMARISING = [
  'openhands-summary', 'openhands-structured', 'katalyst-tools', 'katalyst-chat', 'summarizing-session', 'rolling-summary',
  'hierarchical-summary', 'budget-schema', 'claude-code-compact', 'codex-compact', 'langchain-summarization',
];

// Every summarising strategy has a size: offline, its summary stays within the budget it
// publishes (`Strategy.summaryBudget`), on every corpus file, fixture and wild-log file.

/** The wild-log set (wild/files), when this checkout has it. */
function wildFiles(): string[] {
  const dir = path.join(REPO_ROOT, 'wild', 'files');
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => path.join(dir, f)).filter((f) => fs.statSync(f).isFile() && !f.endsWith('.md'));
}

async function runsIn(file: string): Promise<Run[]> {
  try { return (await loadTrajectory(file)).runs; } catch { return []; }
}

const proper = (summary: string) => summary.split('\nRecent actions and observations:')[0];
const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();

test('every summarising strategy publishes a summary size, and its offline summaries keep to it on every real file', async () => {
  const over: string[] = [];
  let summaries = 0;
  for (const file of [...allRealFiles(), ...wildFiles()]) {
    for (const [ri, run] of (await runsIn(file)).entries()) {
      // A strategy sizes its summary on what it is given, the run with its secrets redacted
      // (runner.ts), and the report says that size: a redacted key can change it by a character or two.
      const given = redactTrajectory(run).trajectory;
      for (const id of SUMMARISING) {
        const strategy = findStrategy(id)!;
        assert.ok(strategy.summaryBudget, `${id} publishes no summary size`);
        for (const range of ['1:', undefined]) {
          const r = await runCompaction(run, { strategy, ...(range ? { range } : {}) }, { counter: charEstimateCounter }).catch(() => undefined);
          if (!r?.summary || r.mode !== 'extractive' || !r.range) continue;
          summaries++;
          const budget = strategy.summaryBudget!(resolveOptions(strategy, {}), given, r.range);
          const text = proper(r.summary);
          const size = 'chars' in budget ? text.length : charEstimateCounter.count(text);
          const limit = 'chars' in budget ? budget.chars : budget.tokens;
          if (size > limit) over.push(`${id} on ${path.basename(file)}#${ri} ${range ?? 'policy'}: ${size} > ${limit} ${'chars' in budget ? 'characters' : 'tokens'}`);
        }
      }
    }
  }
  assert.ok(summaries > 200, `${summaries} summaries`);
  assert.deepEqual(over, []);
});

test('a small summary_max_chars is kept to, and the task, the files changed and the last error survive it', async () => {
  const run = (await loadTrajectory(path.join(REPO_ROOT, 'samples', 'demo-trajectory.json'))).runs[0];
  for (const id of ['openhands-summary', 'openhands-structured', 'katalyst-chat', 'claude-code-compact', 'codex-compact', 'langchain-summarization', 'rolling-summary', 'budget-schema']) {
    const r = await runCompaction(run, { strategy: findStrategy(id)!, range: '1:-3', options: { summary_max_chars: 1500 } }, { counter: charEstimateCounter });
    assert.ok(r.summary!.length <= 1500, `${id}: ${r.summary!.length} characters\n${r.summary}`);
  }
  const full = await runCompaction(run, { strategy: findStrategy('openhands-summary')!, range: '1:-3', options: { summary_max_chars: 2500 } }, { counter: charEstimateCounter });
  assert.match(full.summary!, /USER_CONTEXT: Ticket ABC-123/, 'the task');
  assert.match(full.summary!, /edited \S*tinyfits\/card\.py/, 'a file changed');
});

test('hierarchical-summary and rolling-summary keep the task on every real file', async () => {
  const lost: string[] = [];
  for (const file of [...allRealFiles(), ...wildFiles()]) {
    for (const [ri, run] of (await runsIn(file)).entries()) {
      const task = taskOf(run.steps);
      if (!task) continue;
      for (const id of ['hierarchical-summary', 'rolling-summary']) {
        const r = await runCompaction(run, { strategy: findStrategy(id)!, range: '0:-2' }, { counter: charEstimateCounter }).catch(() => undefined);
        if (!r?.summary || (r.fates[task.step] ?? 'kept') === 'kept') continue;
        const opening = norm(typedFirst(task.text)).slice(0, 60).replace(/\s\S*$/, '');
        if (!norm(r.summary).includes(opening)) lost.push(`${id} on ${path.basename(file)}#${ri}: "${opening}"`);
      }
    }
  }
  assert.deepEqual(lost, []);
});

test('no summarising strategy drops the task on any corpus file, fixture or dev wild-log file: it is kept as a step or said in the summary', async () => {
  const lost: string[] = [];
  let checked = 0;
  for (const file of [...allRealFiles(), ...wildSplitFiles('dev')]) {
    for (const [ri, run] of (await runsIn(file)).entries()) {
      const task = taskOf(run.steps);
      if (!task) continue;
      // As summaries tell it: a task typed into a saved prompt opens with what was typed (typedFirst).
      const opening = norm(typedFirst(task.text)).slice(0, 60).replace(/\s\S*$/, '');
      for (const id of SUMMARISING) {
        const r = await runCompaction(run, { strategy: findStrategy(id)!, range: '0:-2' }, { counter: charEstimateCounter }).catch(() => undefined);
        if (!r?.summary || (r.fates[task.step] ?? 'kept') === 'kept') continue;
        checked++;
        if (!norm(r.summary).includes(opening)) lost.push(`${id} on ${path.basename(file)}#${ri}: "${opening}"`);
      }
    }
  }
  assert.ok(checked > 500, `${checked} summaries that replace the task`);
  assert.deepEqual(lost, []);
});

