import { runCompaction, findStrategy, STRATEGIES, type CompactionResult, type Strategy } from '../compaction';
import { errorSteps } from '../find';
import { loadTrajectory } from '../open';
import type { Run, TrajectoryFile } from '../model';
import type { CacheBehaviour } from '../pricing/promptCache';
import { forgottenEntities } from '../report/entities';
import { billRunAsHappened, replay } from '../simulate';
import { computeStats, fileOfRun } from '../stats';
import { messageStarts, overheadOf, piecesOf, stepTokensOf } from '../tokens';
import type { TokenCounter } from '../tokens';
import { summarizeTokens } from '../tokens';
import type { RunOutcome, StrategyRow, SurveyLine, SurveyRow } from './types';
import { shardOf, type SurveyEntry } from './enumerate';
import { stampOf } from './fingerprint';

// One file (or event folder) of the survey: load it, and for each of its runs the summary numbers
// only. Runs in a worker thread; what it returns is small whatever the size of the run.

export interface SurveyJob {
  /** `stats`: tokens, requests and cost per run; `simulate`: the same plus each strategy replayed. */
  mode: 'stats' | 'simulate';
  strategies?: string[];
  /** Price and tokenizer of this model instead of the one the log names. */
  model?: string;
  cache?: CacheBehaviour;
  summaryRatio?: number;
  tokenBudget?: number;
  maxBytes?: number;
  /** Measure only the runs of the file whose `file#run` hashes to this part (one file of many runs split over shards). */
  runShard?: { index: number; count: number };
}


export async function surveyEntry(entry: SurveyEntry, job: SurveyJob): Promise<SurveyLine[]> {
  // Taken before the load: a file that changes while it is measured no longer matches its lines.
  const source = await stampOf(entry.path);
  const lines = await measureEntry(entry, job);
  return source ? lines.map((line) => ({ ...line, source })) : lines;
}

async function measureEntry(entry: SurveyEntry, job: SurveyJob): Promise<SurveyLine[]> {
  if (entry.skip) return [{ file: entry.rel, skipped: entry.skip }];
  let loaded: TrajectoryFile;
  try {
    // Subagent files sit under the same folder and are rows of their own: read each file once.
    loaded = await loadTrajectory(entry.path, { maxBytes: job.maxBytes, subagentFiles: false });
  } catch (e) {
    const message = (e as Error).message;
    const reason = message.startsWith(entry.path + ': ') ? message.slice(entry.path.length + 2) : message;
    // One line per skipped file: the list of every format tried is the same for all of them.
    return [{ file: entry.rel, skipped: reason.replace(/\s*Formats tried: [^]*$/, '') }];
  }
  const runs = loaded.runs;
  const rows: SurveyLine[] = [];
  for (const [i, run] of runs.entries()) {
    if (job.runShard && shardOf(`${entry.rel}#${i}`, job.runShard.count) !== job.runShard.index) continue;
    try {
      rows.push(await surveyRun(run, entry.rel, i, runs.length, job));
    } catch (e) {
      rows.push({ file: runs.length > 1 ? `${entry.rel}#${i}` : entry.rel, skipped: `could not be measured: ${(e as Error).message}` });
    }
  }
  if (runs.length === 0) rows.push({ file: entry.rel, skipped: 'holds no run' });
  return rows;
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined;
}

function outcomeOf(meta: Run['meta']): RunOutcome {
  const o: RunOutcome = {};
  if (typeof meta.resolved === 'boolean') o.resolved = meta.resolved;
  if (typeof meta.reward === 'number') o.reward = meta.reward;
  else if (typeof meta.reward === 'boolean') o.reward = meta.reward ? 1 : 0;
  if (typeof meta.score === 'number') o.score = meta.score;
  const exit = text(meta.exitStatus);
  if (exit) o.exitStatus = exit;
  const error = text(meta.error);
  if (error) o.error = error.length > 200 ? error.slice(0, 199) + '…' : error;
  return o;
}

export async function surveyRun(run: Run, file: string, index: number, runsInFile: number, job: SurveyJob): Promise<SurveyRow> {
  const stats = computeStats(fileOfRun(run));
  // The same billing `billRun` makes (no strategy), so the Survey's cost is the one every other view shows.
  const billOptions = { ...(job.model !== undefined ? { model: job.model } : {}), ...(job.cache !== undefined ? { cache: job.cache } : {}) };
  const { bill, billing, model, price, fixedModel, counter, stepTokens } = billRunAsHappened(run, billOptions);
  const common = { counter, stepTokens, price, model, fixedModel, cache: job.cache, summaryRatio: job.summaryRatio, tokenBudget: job.tokenBudget };
  const raw = billing.totals;
  const row: SurveyRow = {
    file, run: index, runsInFile, name: run.title, format: run.format,
    ...(text(run.meta.instanceId ?? run.meta.taskId) ? { task: text(run.meta.instanceId ?? run.meta.taskId) } : {}),
    ...(model ? { model } : {}),
    records: stats.records, steps: stats.steps, turns: stats.turns, byKind: stats.byKind, tools: stats.tools, chars: stats.chars,
    warnings: stats.warnings.slice(0, 10),
    tokens: chatTokens(run, counter), tokenizer: counter.tokenizer, approximateTokens: counter.approximate,
    requests: billing.modelCalls, inputTokens: Math.round(raw.input), cachedInputTokens: Math.round(raw.cachedInput), outputTokens: Math.round(raw.output),
    costModelled: raw.cost, cache: billing.cache,
    costRecorded: bill.label === 'modelled' ? null : bill.cost,
    cost: bill.cost, costLabel: bill.label, costSource: bill.source,
    ...(bill.reason ? { costReason: bill.reason } : {}),
    outcome: outcomeOf(run.meta),
    errors: errorSteps(run.steps).size,
  };
  if (job.mode === 'simulate') {
    row.strategies = [];
    for (const id of job.strategies ?? []) {
      const strategy = id === 'all' ? undefined : findStrategy(id);
      for (const s of strategy ? [strategy] : id === 'all' ? STRATEGIES : []) row.strategies.push(await simulateOne(run, s, common));
    }
  }
  return row;
}

/** The run's tokens as `stats --tokens`, `diff` and the tree count them: content, chat framing and images. */
function chatTokens(run: Run, counter: TokenCounter): number {
  const starts = messageStarts(run.steps);
  const counts = run.steps.map((step, i) => stepTokensOf(step, piecesOf(step).reduce((n, piece) => n + counter.count(piece), 0), overheadOf(step, starts[i]), true));
  return summarizeTokens(run.steps, counts).total;
}

type Common = Parameters<typeof replay>[1] & object;

async function simulateOne(run: Run, strategy: Strategy, common: Omit<Common, 'strategy' | 'options'>): Promise<StrategyRow> {
  let sample: CompactionResult;
  try {
    // Offline, as `simulate FILE` does: the replay needs the strategy's shape and a size ratio, not a model's words.
    sample = await runCompaction(run, { strategy, options: {} }, { counter: common.counter });
  } catch (e) {
    return emptyStrategyRow(strategy.id, (e as Error).message);
  }
  const r = replay(run, { ...common, strategy, options: sample.options, sample, stepTokens: sample.stepTokensBefore });
  const entities = forgottenEntities(run, sample);
  const lost = entities.filter((e) => !e.kept);
  return {
    strategy: strategy.id,
    requestsRaw: r.totals.raw.requests, requestsCompacted: r.totals.compacted.requests,
    inputRaw: Math.round(r.totals.raw.input), inputCompacted: Math.round(r.totals.compacted.input),
    cachedRaw: Math.round(r.totals.raw.cachedInput), cachedCompacted: Math.round(r.totals.compacted.cachedInput),
    output: Math.round(r.totals.raw.output),
    costRaw: r.totals.raw.cost, costCompacted: r.totals.compacted.cost,
    compactions: r.events.length, peakRaw: r.peakRaw, peakCompacted: r.peakCompacted,
    entitiesLost: lost.length, entitiesLostNeededLater: lost.filter((e) => e.neededLater).length,
  };
}

function emptyStrategyRow(strategy: string, error: string): StrategyRow {
  return {
    strategy, requestsRaw: 0, requestsCompacted: 0, inputRaw: 0, inputCompacted: 0, cachedRaw: 0, cachedCompacted: 0, output: 0,
    costRaw: null, costCompacted: null, compactions: 0, peakRaw: 0, peakCompacted: 0, entitiesLost: 0, entitiesLostNeededLater: 0, error,
  };
}
