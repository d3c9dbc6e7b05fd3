// Facts picked by hand (test/fixtures/facts, in-sample; test/fixtures/facts-heldout, runs the
// fact layer was not developed on; test/fixtures/facts-fresh, wild-log dev runs labelled after the
// held-out set had been tuned on; test/fixtures/facts-locked, the locked third no change is tuned
// on) and how much of them each summarising strategy keeps offline.
// Shared by the unit tests and `npm run bench`.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { findStrategy, runCompaction } from '../../src/core/compaction';
import { loadTrajectory } from '../../src/core/open';

import { charEstimateCounter } from '../../src/core/tokens/counter';
import { labelSourcePath, type LabelSource } from './labelSources';
import { REPO_ROOT } from './paths';

export const SUMMARISING = [
  'openhands-summary', 'openhands-structured', 'katalyst-tools', 'katalyst-chat', 'summarizing-session', 'rolling-summary',
  'hierarchical-summary', 'budget-schema', 'claude-code-compact', 'codex-compact', 'langchain-summarization',
];

export const FACTS_DIR = path.join(REPO_ROOT, 'test', 'fixtures', 'facts');
export const FACTS_HELDOUT_DIR = path.join(REPO_ROOT, 'test', 'fixtures', 'facts-heldout');
export const FACTS_LOCKED_DIR = path.join(REPO_ROOT, 'test', 'fixtures', 'facts-locked');
/** A second held-out set of wild-log dev runs, labelled once the first had been tuned on. */
export const FACTS_FRESH_DIR = path.join(REPO_ROOT, 'test', 'fixtures', 'facts-fresh');
/** Runs another set has (facts-fresh), labelled again, blind, by a second labeller: how much the figure depends on who picks. */
export const FACTS_RELABELLED_DIR = path.join(REPO_ROOT, 'test', 'fixtures', 'facts-relabelled');
/** Four runs of the locked third labelled again, blind, under the written rule on lines of output: nothing is tuned on them either. */
export const FACTS_LOCKED_RELABELLED_DIR = path.join(REPO_ROOT, 'test', 'fixtures', 'facts-locked-relabelled');
/** Long wild-log dev runs (76–657 steps), labelled once the locked third showed that long sessions lose the middle. */
export const FACTS_LONG_DIR = path.join(REPO_ROOT, 'test', 'fixtures', 'facts-long');

export interface FactFile extends LabelSource { name: string; run: number; range: string; format: string; facts: { step: number; text: string }[] }

export function factFiles(dir: string): { present: FactFile[]; absent: string[] } {
  const all = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()
    .map((f) => ({ name: f, ...(JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Omit<FactFile, 'name'>) }));
  return { present: all.filter((f) => labelSourcePath(f) !== undefined), absent: all.filter((f) => labelSourcePath(f) === undefined).map((f) => f.name) };
}

const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ');
export const factKept = (summary: string, fact: string) => fact.split('|').some((alt) => norm(summary).includes(norm(alt)));

export interface StrategyFacts { id: string; facts: number; kept: number; median: number; misses: string[]; taskLost: string[] }

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Per strategy: the facts of the forgotten steps its offline summary keeps, the median reduction, and runs whose task it dropped. */
export async function measureFacts(files: readonly FactFile[]): Promise<StrategyFacts[]> {
  const out: StrategyFacts[] = [];
  for (const id of SUMMARISING) {
    const row: StrategyFacts = { id, facts: 0, kept: 0, median: 0, misses: [], taskLost: [] };
    const reductions: number[] = [];
    for (const f of files) {
      const t = (await loadTrajectory(labelSourcePath(f)!)).runs[f.run];
      const r = await runCompaction(t, { strategy: findStrategy(id)!, range: f.range }, { counter: charEstimateCounter });
      // The task's fact is the earliest one picked from a user step (labels need not be in step order).
      const taskFact = f.facts.filter((x) => t.steps[x.step]?.kind === 'user').sort((a, b) => a.step - b.step)[0];
      reductions.push(r.reduction);
      for (const fact of f.facts) {
        if ((r.fates[fact.step] ?? 'kept') === 'kept') continue;
        row.facts++;
        if (factKept(r.summary ?? '', fact.text)) row.kept++;
        else {
          row.misses.push(`${f.name} step ${fact.step} "${fact.text}"`);
          if (fact === taskFact) row.taskLost.push(f.name);
        }
      }
    }
    row.median = median(reductions);
    out.push(row);
  }
  return out;
}

export function factsReport(rows: readonly StrategyFacts[]): string {
  return rows.map((r) => `${r.id.padEnd(24)} ${r.kept}/${r.facts} facts (${((r.kept / Math.max(1, r.facts)) * 100).toFixed(0)}%), median reduction ${(r.median * 100).toFixed(0)}%${r.misses.length ? `\n    missed: ${r.misses.join('; ')}` : ''}`).join('\n');
}
