import { statSync, type Stats } from 'node:fs';
import * as path from 'node:path';
import { sumUsage } from '../formats/usage';
import type { Coverage, Run, Step, SubagentFileRef, TrajectoryFile } from '../model';
import { callsByResult, renumberSteps } from '../steps';

// Some logs keep a subagent's steps in a file of its own beside them (Claude Code 2.1's
// `<session>/subagents/agent-<id>.jsonl`, Harbor's `trajectory.summarization-1-summary.json`) and
// name it from the call that started it. The adapter says which file (`Run.subagentFiles`); here
// it is read through the same loader and its steps become a branch of the run, placed where the
// subagent ran, so the tree, stats, the replay and the ATIF export see one run, as they do for a
// log that keeps its subagents inline. Paths come from the log: only files inside the log's own
// folder are read, never written.

/** Subagents that start subagents: files are read this many levels down, no further. */
const MAX_DEPTH = 3;
/** A subagent file bigger than this is named in the coverage, not read. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

/**
 * Subagent files read lately, by path, size and time written: a followed session is parsed again
 * on every change, and its finished subagents' files are not (their steps are copied, never changed).
 */
const recent = new Map<string, { t: TrajectoryFile; bytes: number }>();
/** What the cache may hold, in bytes of the files read: the oldest go first. */
const RECENT_BYTES = 64 * 1024 * 1024;
let recentBytes = 0;

function readOnce(read: ReadSubagentFile, file: string, stat: Stats, depth: number): TrajectoryFile {
  const key = `${file}\u0000${stat.size}\u0000${stat.mtimeMs}\u0000${depth}`;
  const hit = recent.get(key);
  if (hit) return hit.t;
  const t = read(file, stat, depth);
  recent.set(key, { t, bytes: stat.size });
  recentBytes += stat.size;
  for (const [k, v] of recent) {
    if (recentBytes <= RECENT_BYTES || k === key) break;
    recent.delete(k);
    recentBytes -= v.bytes;
  }
  return t;
}

/** Reads one subagent file into a trajectory (the loader's own read, one level deeper). */
export type ReadSubagentFile = (file: string, stat: Stats, depth: number) => TrajectoryFile;

/** Reads the subagent files each run names into branches of it; a file read once is read again only when it changed. */
export function linkSubagentFiles(file: TrajectoryFile, read: ReadSubagentFile, depth = 0): TrajectoryFile {
  for (const run of file.runs) {
    const refs = run.subagentFiles;
    if (!refs) continue;
    delete run.subagentFiles;
    if (depth >= MAX_DEPTH) continue;
    linkRun(run, refs, read, depth);
    if (!file.holdsRuns) file.coverage = run.coverage;
  }
  return file;
}

function linkRun(run: Run, refs: SubagentFileRef[], read: ReadSubagentFile, depth: number): void {
  const folder = path.dirname(path.resolve(run.source.path));
  const inline = new Set(run.steps.map((s) => s.branch).filter((b): b is string => b !== undefined));
  const notRead: { path: string; why: string }[] = [];
  const grafts: { ref: SubagentFileRef; sub: Run; file: string }[] = [];
  const seen = new Set<string>();
  for (const ref of refs) {
    // The log keeps this subagent inline too (older Claude Code): its lines are already a branch.
    if (inline.has(ref.branch)) continue;
    const found = findFile(folder, ref.paths);
    if (!found || seen.has(found.file)) {
      if (!found) notRead.push({ path: ref.paths[0], why: 'not beside the log' });
      continue;
    }
    seen.add(found.file);
    if (found.stat.size > MAX_FILE_BYTES) { notRead.push({ path: ref.paths[0], why: 'over 64 MB' }); continue; }
    try {
      const sub = readOnce(read, found.file, found.stat, depth + 1);
      if (sub.holdsRuns || sub.runs.length !== 1) { notRead.push({ path: ref.paths[0], why: 'holds many runs' }); continue; }
      grafts.push({ ref, sub: sub.runs[0], file: found.file });
    } catch (e) {
      notRead.push({ path: ref.paths[0], why: (e as Error).message.split('\n', 1)[0] });
    }
  }
  if (grafts.length > 0) run.steps = graft(run.steps, grafts);
  for (const { ref, sub } of grafts) {
    if (!ref.usageInRun && sub.meta.recorded) run.meta.recorded = sumUsage([run.meta.recorded, sub.meta.recorded]);
  }
  if (run.coverage && (grafts.length > 0 || notRead.length > 0)) run.coverage = coverageWithSubagents(run.coverage, grafts.map((g) => g.sub.coverage), notRead);
}

/** The first of `paths` that is a file inside `folder`; a path that leads out of it is never read. */
function findFile(folder: string, paths: readonly string[]): { file: string; stat: Stats } | undefined {
  for (const p of paths) {
    if (p === '' || path.isAbsolute(p) || p.includes('\0')) continue;
    const file = path.resolve(folder, p);
    if (!file.startsWith(folder + path.sep)) continue;
    try {
      const stat = statSync(file);
      if (stat.isFile()) return { file, stat };
    } catch {
      // not there: try the next name
    }
  }
  return undefined;
}

/**
 * The run's steps with each subagent's steps in place: right before the result of the call that
 * started it (the subagent ran while the call waited), or right after the step that names it.
 * Steps are numbered again, and each result points at its call's new number.
 */
function graft(steps: Step[], grafts: { ref: SubagentFileRef; sub: Run; file: string }[]): Step[] {
  // Which call each result answers, by object: numbers change below.
  const callOf = callsByResult(steps);
  const resultOf = new Map<Step, Step>();
  const callAt = new Map<string, Step>();
  for (const s of steps) {
    if (s.kind === 'tool_call' && s.tool?.callId) callAt.set(s.tool.callId, s);
    const call = callOf.get(s);
    if (call && !resultOf.has(call)) resultOf.set(call, s);
  }
  const before = new Map<Step, Step[]>();
  const after = new Map<Step, Step[]>();
  const atEnd: Step[] = [];
  for (const { ref, sub, file } of grafts) {
    const copies = asBranch(sub.steps, ref.branch, file);
    copies.forEach((c) => {
      const call = c.answers === undefined ? undefined : copies[c.answers];
      if (call) callOf.set(c, call);
    });
    const call = ref.callId === undefined ? undefined : callAt.get(ref.callId);
    const result = call && resultOf.get(call);
    const at = call ?? ref.after;
    if (result) before.set(result, [...(before.get(result) ?? []), ...copies]);
    else if (at) after.set(at, [...(after.get(at) ?? []), ...copies]);
    else atEnd.push(...copies);
  }
  const out: Step[] = [];
  for (const s of steps) out.push(...(before.get(s) ?? []), s, ...(after.get(s) ?? []));
  out.push(...atEnd);
  return renumberSteps(out, callOf);
}

/**
 * A subagent's steps as a branch: copies (the file's trajectory may be cached and grafted again),
 * on a branch under `branch`, their records in `file`. The prompt that opens a subagent is the
 * parent agent's, not the person's, so its user steps open no turn.
 */
function asBranch(steps: readonly Step[], branch: string, file: string): Step[] {
  return steps.map((s) => {
    const copy: Step = { ...s, branch: s.branch ? `${branch}/${s.branch}` : branch, location: { ...s.location, file: s.location?.file ?? file } };
    // Ids are the subagent file's own: named under its branch so they never meet the run's.
    if (s.sourceId !== undefined) copy.sourceId = `${branch}:${s.sourceId}`;
    if (copy.kind === 'user') Object.assign(copy, { kind: 'other', label: 'subagent prompt' });
    return copy;
  });
}

/** The run's coverage with what its subagent files add: their unpaired calls and results, and the files not read. */
function coverageWithSubagents(c: Coverage, subs: (Coverage | undefined)[], notRead: { path: string; why: string }[]): Coverage {
  const out: Coverage = { ...c, skipped: { ...c.skipped }, subagentFiles: { read: subs.length, notRead } };
  for (const s of subs) {
    if (!s) continue;
    out.unpairedCalls += s.unpairedCalls;
    out.unpairedResults += s.unpairedResults;
    if (s.pendingCalls) out.pendingCalls = (out.pendingCalls ?? 0) + s.pendingCalls;
    if (s.interruptedCalls) out.interruptedCalls = (out.interruptedCalls ?? 0) + s.interruptedCalls;
  }
  return out;
}
