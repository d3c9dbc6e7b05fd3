import type { ParsedTrajectory } from '../formats/adapter';
import { dropOddUsage } from '../io/hostileInput';
import type { Coverage, Run, TrajectoryFile, TrajectorySource, Warning } from '../model';
import { modelRunImages } from '../tokens';

// What an adapter parsed, with what the loader adds: the source, the format, the warnings, and
// (withReading) the records and coverage it counted; and the modelled tokens of the images the
// steps carry, once the run's models are known.

function toRun(parsed: ParsedTrajectory, format: string, source: TrajectorySource, warnings: Warning[]): Run {
  const run: Run = { records: parsed.steps.length, format: parsed.format ?? format, title: parsed.title, source, steps: parsed.steps, meta: parsed.meta ?? {}, warnings };
  if (parsed.subagentFiles && parsed.subagentFiles.length > 0) run.subagentFiles = parsed.subagentFiles;
  if (run.steps.some((s) => s.images)) modelRunImages(run);
  return run;
}

/** A file of many runs lists them; a file of one run is that run, its meta and warnings shared. */
export function toFile(parsed: ParsedTrajectory, format: string, source: TrajectorySource, warnings: Warning[]): TrajectoryFile {
  dropOddUsage(parsed, warnings);
  const head = { source, format: parsed.format ?? format, title: parsed.title, meta: parsed.meta ?? {}, warnings };
  if (parsed.runs && parsed.runs.length > 0) {
    const runs = parsed.runs.map((run) => toRun(run, format, source, []));
    return { ...head, holdsRuns: true, records: runs.length, runs };
  }
  const run = toRun(parsed, format, source, warnings);
  return { ...head, meta: run.meta, holdsRuns: false, records: run.records, runs: [run] };
}

/** What the reader counted of the whole file; a file of one run is that run, so the run says it too. */
export function withReading(file: TrajectoryFile, records: number, coverage: Coverage): TrajectoryFile {
  file.records = records;
  file.coverage = coverage;
  if (!file.holdsRuns) Object.assign(file.runs[0], { records, coverage });
  return file;
}
