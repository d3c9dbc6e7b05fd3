import { promises as fs } from 'node:fs';
import { enumerateTrajectories, inShard, type SurveyEntry } from './enumerate';
import type { SurveyJob } from './measure';
import { measureAll, type PoolOptions } from './pool';
import { runKey, type Resumed } from './resume';
import { SurveyTotals } from './totals';
import { isSkipped, type SurveyLine, type SurveyTotal } from './types';

export * from './types';
export { enumerateTrajectories, parseShard, shardOf, inShard, isEventFolder, isOneRunFolder, type SurveyEntry } from './enumerate';
import { shardOf } from './enumerate';
export { surveyEntry, type SurveyJob } from './measure';
export { parseResumed, readResumed, type Resumed } from './resume';
export { SurveyTotals } from './totals';
export { defaultParallelism } from './pool';

export interface SurveyOptions extends PoolOptions {
  shard?: { index: number; count: number };
  resume?: Resumed;
  /** Each new line (a run, or a file that could not be read), as soon as its file is measured. */
  onLine: (line: SurveyLine) => void;
  /** Files found (after sharding and resuming), before any is measured. */
  onPlan?: (entries: readonly SurveyEntry[], skippedByResume: number) => void;
  onFileDone?: (entry: SurveyEntry, done: number, of: number) => void;
}

/**
 * Surveys every run under `root` (a folder, or a file of many runs): each file is measured in a
 * worker, and its new lines handed to `onLine`. Returns the total over the resumed lines and the new.
 */
export async function survey(root: string, job: SurveyJob, options: SurveyOptions): Promise<SurveyTotal> {
  const found = await enumerateTrajectories(root);
  // One file of many runs is split by run (each shard loads the file and measures its own runs);
  // a folder is split by file.
  const byRun = options.shard !== undefined && !(await fs.stat(root)).isDirectory();
  if (byRun) job = { ...job, runShard: options.shard };
  const all = byRun ? found : inShard(found, options.shard);
  const resume = options.resume;
  const todo = resume ? all.filter((e) => !resume.done.has(e.rel)) : all;
  options.onPlan?.(todo, all.length - todo.length);
  const totals = new SurveyTotals();
  const wanted = new Set(all.map((e) => e.rel));
  // Only the earlier lines of this shard count (an earlier output of another shard is not ours).
  for (const line of resume?.lines ?? []) {
    if (!wanted.has(line.file) && !wanted.has(line.file.replace(/#\d+$/, ''))) continue;
    if (byRun && !isSkipped(line) && shardOf(`${line.file}#${line.run}`, options.shard!.count) !== options.shard!.index) continue;
    totals.add(line);
  }
  let done = 0;
  await measureAll(todo, job, (entry, lines) => {
    for (const line of lines) {
      if (!isSkipped(line) && resume?.printed.has(runKey(line.file, line.run))) continue;
      totals.add(line);
      options.onLine(line);
    }
    options.onFileDone?.(entry, ++done, todo.length);
  }, options);
  return totals.result();
}
