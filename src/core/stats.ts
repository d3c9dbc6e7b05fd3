import type { Coverage, Run, Step, StepKind, TrajectoryFile } from './model';
import { coverageWarning } from './io/coverage';
import { STEP_KINDS } from './model';
import { turnsOf } from './steps';
import { nameTable, plainTable } from './names';

export interface TrajectoryStats {
  file: string;
  format: string;
  title: string;
  /** Records in the file: runs for multi-run files, else events, messages or lines. */
  records: number;
  steps: number;
  turns: number;
  byKind: Record<StepKind, number>;
  tools: Record<string, number>;
  chars: number;
  warnings: string[];
  /** When no format matched and a conversation was found inside the file: where (a JSON Pointer). */
  jsonPath?: string;
  /** What the reader made of the records (set when the file was read by the loader). */
  coverage?: Coverage;
  /** The session this one was forked from, by its id (`TrajectoryMeta.forkedFrom`). */
  forkedFrom?: string;
}

/** A run as a file of its own (a run of an evaluation output shown, counted or saved alone). */
export function fileOfRun(run: Run): TrajectoryFile {
  return { holdsRuns: false, source: run.source, format: run.format, title: run.title, records: run.records, coverage: run.coverage, warnings: run.warnings, meta: run.meta, runs: [run] };
}

export function allSteps(t: TrajectoryFile): Step[] {
  return t.runs.flatMap((run) => run.steps);
}

export function computeStats(t: TrajectoryFile): TrajectoryStats {
  const byKind = Object.fromEntries(STEP_KINDS.map((k) => [k, 0])) as Record<StepKind, number>;
  const tools = nameTable<number>();
  let chars = 0;
  let steps = 0;
  let turns = 0;
  for (const run of t.runs) {
    turns += turnsOf(run.steps).length;
    for (const step of run.steps) {
      steps++;
      byKind[step.kind]++;
      chars += step.text.length;
      if (step.kind === 'tool_call' && step.tool) tools[step.tool.name] = (tools[step.tool.name] ?? 0) + 1;
    }
  }
  return {
    file: t.source.path,
    format: t.format,
    title: t.title,
    records: t.records,
    steps,
    turns,
    byKind,
    tools: plainTable(tools),
    chars,
    warnings: [...t.warnings.map((w) => w.message), ...coverageWarnings(t)],
    ...(t.coverage ? { coverage: t.coverage } : {}),
    ...(typeof t.meta.jsonPath === 'string' ? { jsonPath: t.meta.jsonPath } : {}),
    ...(t.meta.forkedFrom ? { forkedFrom: t.meta.forkedFrom } : {}),
  };
}

/** The coverage warning joins the reading warnings wherever stats are shown (CLI, survey, JSON). */
function coverageWarnings(t: TrajectoryFile): string[] {
  const w = t.coverage && coverageWarning(t.coverage);
  return w ? [w] : [];
}
