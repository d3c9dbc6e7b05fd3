import { recordsTokens, type RecordedUsage, type Step, type TrajectoryFile } from '../model';

import type { StepTokens } from './chatFormat';
import { modelCalls, type ModelCall } from './summary';

// The provider's own usage, where the log records it, beside our count of the same calls.
// Adapters put per-call usage on steps (`step.usage`) and run totals in `meta.recorded`.

export interface UsageComparison {
  /** How many model calls the figures cover. */
  calls: number;
  recorded: RecordedUsage;
  /** Our count of the same calls: input is the context each call read, output what it wrote. */
  ours: { inputTokens: number; outputTokens: number };
  /** Ours minus recorded, for the fields the log has. */
  difference: { inputTokens?: number; outputTokens?: number };
  /** The totals cover only the calls before the run's last record of them (`TrajectoryMeta.recordedPart`). */
  part?: boolean;
  /** The fewest calls the recorded totals hold, where the log shows they hold more than `calls`, and how it shows it. */
  callsAtLeast?: { calls: number; why: string };
}

export interface RecordedReport {
  /** From the log's run totals (SWE-agent `model_stats`, OpenHands `llm_metrics`, …). */
  totals?: UsageComparison;
  /** From usage recorded per call (Claude Code `usage`, Codex `token_count`, …). */
  perCall?: UsageComparison;
}

/**
 * Compares recorded usage with our counts. `tokens` is parallel to `allSteps(t)`.
 * Undefined when the log records no usage at all.
 */
export function compareRecorded(t: TrajectoryFile, tokens: readonly StepTokens[]): RecordedReport | undefined {
  const runs = t.runs;
  const perCall: RecordedUsage[] = [];
  const allCalls: ModelCall[] = [];
  const callsWithUsage: ModelCall[] = [];
  let offset = 0;
  let part = false;
  let floor = 0; // the calls the totals hold at least, run by run
  let floorWhy: string | undefined;
  for (const run of runs) {
    const runTokens = tokens.slice(offset, offset + run.steps.length);
    offset += run.steps.length;
    const calls = modelCalls(run.steps, runTokens);
    // Totals that stop before the run does are compared with the calls they cover.
    const covered = run.meta.recordedPart?.steps;
    if (covered !== undefined) part = true;
    const coveredCalls = covered === undefined ? calls : calls.filter((c) => c.start < covered);
    allCalls.push(...coveredCalls);
    const atLeast = run.meta.recordedCallsAtLeast ?? (runs.length === 1 ? t.meta.recordedCallsAtLeast : undefined);
    floor += Math.max(coveredCalls.length, atLeast?.calls ?? 0);
    floorWhy ??= atLeast?.why;
    for (const [call, usage] of usageByCall(run.steps, calls)) {
      callsWithUsage.push(call);
      perCall.push(usage);
    }
  }
  // Per-run totals where runs have them (a single-run file is its own run), else the file's.
  // Totals of all zeros (a writer that fills final_metrics with 0) record nothing: as the bill says.
  const runTotals = runs.map((r) => r.meta.recorded).filter((u): u is RecordedUsage => u !== undefined && recordsSomething(u));
  const totals = runTotals.length > 0 ? runTotals : t.meta.recorded && recordsSomething(t.meta.recorded) ? [t.meta.recorded] : [];
  const report: RecordedReport = {};
  if (totals.length > 0) {
    report.totals = { ...comparison(sumUsage(totals), allCalls), ...(part ? { part: true } : {}) };
    if (floor > allCalls.length && floorWhy) report.totals.callsAtLeast = { calls: floor, why: floorWhy };
  }
  if (perCall.length > 0) report.perCall = comparison(sumUsage(perCall), callsWithUsage);
  return report.totals || report.perCall ? report : undefined;
}

/**
 * The first usage recorded within each call (logs such as Claude Code repeat one message's usage
 * on every content block). Usage on a step outside any call belongs to the latest call before it.
 */
function usageByCall(steps: readonly Step[], calls: readonly ModelCall[]): Map<ModelCall, RecordedUsage> {
  const found = new Map<ModelCall, RecordedUsage>();
  let c = -1;
  steps.forEach((step, i) => {
    while (c + 1 < calls.length && calls[c + 1].start <= i) c++;
    if (!step.usage || c < 0) return;
    const call = calls[c];
    if (!found.has(call)) found.set(call, step.usage);
  });
  return found;
}

/** Totals that say something: tokens, or a cost alone. */
function recordsSomething(u: RecordedUsage): boolean {
  return recordsTokens(u) || (u.cost ?? 0) > 0;
}

function sumUsage(list: readonly RecordedUsage[]): RecordedUsage {
  const sum: RecordedUsage = {};
  const fields = ['inputTokens', 'outputTokens', 'cachedInputTokens', 'cacheWriteTokens', 'cost'] as const;
  for (const u of list) {
    for (const f of fields) if (typeof u[f] === 'number') sum[f] = (sum[f] ?? 0) + u[f]!;
    if (u.model && !sum.model) sum.model = u.model;
  }
  return sum;
}

function comparison(recorded: RecordedUsage, calls: readonly ModelCall[]): UsageComparison {
  const ours = {
    inputTokens: calls.reduce((n, c) => n + c.input, 0),
    outputTokens: calls.reduce((n, c) => n + c.output, 0),
  };
  const difference: UsageComparison['difference'] = {};
  if (recorded.inputTokens !== undefined) difference.inputTokens = ours.inputTokens - recorded.inputTokens;
  if (recorded.outputTokens !== undefined) difference.outputTokens = ours.outputTokens - recorded.outputTokens;
  return { calls: calls.length, recorded, ours, difference };
}
