import { pointerOf } from '../io/jsonScan';
import type { TrajectoryMeta } from '../model';
import { isRecord, StepBuilder } from '../steps';
import type { FormatAdapter, ParsedInput, ParsedTrajectory } from './adapter';
import { addUsage, addV0Events, usageOfMetrics, v0EventShare } from './openhandsEvents';
import { addV1Event, isV1Event } from './openhandsV1';
import { runMetadata } from './runMeta';
import { setExtra } from '../meta';
import { markClosingActions } from './closingAction';

// OpenHands evaluation output (`output.jsonl`): one benchmark instance per line, each with its own
// event `history` (V0 events, or SDK V1 events with a `kind` in newer evaluations), `metadata`
// (agent, llm_config) and `metrics` (accumulated cost and tokens).

interface EvalRecord {
  value: Record<string, unknown>;
  line?: number;
}

/** The OpenHands resolver's `output.jsonl` names its instance by the issue it resolved. */
function isResolverRecord(value: Record<string, unknown>): boolean {
  return isRecord(value.issue) && typeof value.instruction === 'string' && 'git_patch' in value;
}

function instanceIdOf(r: Record<string, unknown>): string {
  if (typeof r.instance_id === 'string' || typeof r.instance_id === 'number') return String(r.instance_id);
  const issue = isRecord(r.issue) ? r.issue : {};
  return `${String(issue.owner ?? '?')}/${String(issue.repo ?? '?')}#${String(issue.number ?? '?')}`;
}

function isEvalRecord(value: unknown): value is Record<string, unknown> {
  if (!isRecord(value) || (typeof value.instance_id !== 'string' && typeof value.instance_id !== 'number' && !isResolverRecord(value))) return false;
  if (!Array.isArray(value.history)) return false;
  const paired = pairShare(value.history) >= 0.8;
  const events = paired ? value.history.flat(1) : value.history;
  return value.history.length === 0 ? isRecord(value.metadata) : v0EventShare(events) >= 0.8 || v1EventShare(events) >= 0.8
    || ((isResolverRecord(value) || paired) && flatShare(events) >= 0.8);
}

/**
 * The 2024 evaluation output keeps its history as `[action, observation]` pairs of flat events
 * (OpenHands' own SWE-bench example, CodeActAgent on gpt-4-1106-preview): each pair is one call
 * and its answer.
 */
function pairShare(items: readonly unknown[]): number {
  const sample = items.slice(0, 20);
  return sample.length === 0 ? 0 : sample.filter((p) => Array.isArray(p) && p.length >= 1 && p.length <= 2 && p.every(isRecord)).length / sample.length;
}

/**
 * The resolver's 2024 output writes V0 events flat: no `source` or `id`, the arguments beside
 * `action` (`{action: 'run', command, thought}`), the extras beside `observation`.
 */
function isFlatEvent(v: unknown): boolean {
  return isRecord(v) && v.source === undefined && (typeof v.action === 'string') !== (typeof v.observation === 'string');
}

function flatShare(items: readonly unknown[]): number {
  const sample = items.slice(0, 20);
  return sample.length === 0 ? 0 : sample.filter(isFlatEvent).length / sample.length;
}

/**
 * Flat events as the V0 events they stand for: the first message is the task (with `taskFirst`),
 * later ones the agent's, and an observation answers the action just before it (the resolver ran
 * one at a time; each 2024 pair is an action and its observation).
 */
function fromFlatEvents(events: readonly unknown[], taskFirst = true): unknown[] {
  let lastAction: number | undefined;
  return events.map((e, i) => {
    if (!isFlatEvent(e)) return e;
    const { action, observation, content, ...rest } = e as Record<string, unknown>;
    if (typeof action === 'string') {
      lastAction = i;
      const source = taskFirst && action === 'message' && i === 0 ? 'user' : 'agent';
      // The resolver writes the arguments beside `action`; the 2024 pairs under `args`, as V0 events do.
      const fields = isRecord(rest.args) ? { ...rest.args, ...(rest.message !== undefined ? { message: rest.message } : {}) } : rest;
      return { id: i, source, action, args: content === undefined ? fields : { content, ...fields } };
    }
    return { id: i, source: 'environment', observation, content, extras: isRecord(rest.extras) ? rest.extras : rest, ...(lastAction !== undefined ? { cause: lastAction } : {}) };
  });
}

function v1EventShare(items: readonly unknown[]): number {
  const sample = items.slice(0, 20);
  return sample.length === 0 ? 0 : sample.filter(isV1Event).length / sample.length;
}

function recordsOf(input: ParsedInput): EvalRecord[] | undefined {
  // A file with a single instance is one JSON line, which the reader hands over as plain JSON.
  if (input.shape === 'json') return isEvalRecord(input.value) ? [{ value: input.value }] : undefined;
  if (input.shape !== 'jsonl') return undefined;
  return input.records.filter((r) => isRecord(r.value)).map((r) => ({ value: r.value as Record<string, unknown>, line: r.line }));
}

export const openHandsEvalAdapter: FormatAdapter = {
  id: 'openhands-eval',
  label: 'OpenHands evaluation output',
  fileNames: ['*.jsonl', '*.json'],
  tools: { command: ['execute_bash', 'execute_ipython_cell'] },
  compactionTrigger: { agent: 'OpenHands', unit: 'events', maxSize: 100, where: 'the headless default (LLM summarizing condenser config, max_size 100)' },
  sniff(input) {
    const records = recordsOf(input);
    if (!records || records.length === 0) return 0;
    const sample = records.slice(0, 5);
    const share = sample.filter((r) => isEvalRecord(r.value)).length / sample.length;
    return share >= 0.6 ? 0.95 : 0;
  },
  parse(input, ctx) {
    const runs: ParsedTrajectory[] = [];
    for (const record of recordsOf(input)!) {
      if (!isEvalRecord(record.value)) {
        ctx.warnings.push({ message: `line ${record.line ?? 1} is not an evaluation record (no instance_id and event history) and was skipped.`, line: record.line });
        continue;
      }
      runs.push(parseRun(record));
    }
    const models = new Set(runs.map((r) => r.meta?.model).filter((m) => m !== undefined));
    const recorded = runs.reduce((sum, r) => addUsage(sum, r.meta?.recorded), undefined as TrajectoryMeta['recorded']);
    const model = models.size === 1 ? [...models][0] : undefined;
    const title = `OpenHands evaluation: ${runs.length} run${runs.length === 1 ? '' : 's'}${model ? ` with ${model}` : ''}`;
    return { title, steps: [], runs, meta: { agent: runs[0]?.meta?.agent, model, recorded } };
  },
};

function parseRun({ value: r, line }: EvalRecord): ParsedTrajectory {
  const b = new StepBuilder();
  const paired = pairShare(r.history as unknown[]) >= 0.8;
  const events = paired ? (r.history as unknown[][]).flat(1) : r.history as unknown[];
  // A pair list does not hold the task: the record's `instruction`, which the agent was sent first, is.
  if (paired && typeof r.instruction === 'string' && r.instruction.trim()) b.add({ kind: 'user', text: r.instruction, label: 'instruction', location: { line, pointer: pointerOf('instruction') } });
  const history = flatShare(events) >= 0.8 ? fromFlatEvents(events, !paired) : events;
  // Each pair's place in the file: event k is item k/2 of `history`, its action or its observation.
  const pairAt = (i: number) => pointerOf('history', Math.floor(i / 2), i % 2);
  const locate = (i: number) => ({ line, pointer: paired ? pairAt(i) : pointerOf('history', i) });
  const fromEvents: TrajectoryMeta = v1EventShare(history) >= 0.8 ? addV1History(b, history, locate) : addV0Events(b, history, locate);
  const steps = b.finish();
  markClosingActions(steps);
  const metadata = isRecord(r.metadata) ? r.metadata : {};
  const llmConfig = isRecord(metadata.llm_config) ? metadata.llm_config : {};
  const model = typeof llmConfig.model === 'string' ? llmConfig.model : fromEvents.model;
  const recorded = isRecord(r.metrics) ? { ...usageOfMetrics(r.metrics) } : fromEvents.recorded;
  // The run totals name the model "default"; the configured model is the useful name.
  if (recorded && !recorded.model && model) recorded.model = model;
  const error = typeof r.error === 'string' && r.error ? r.error : undefined;
  const meta: TrajectoryMeta = {
    agent: typeof metadata.agent_class === 'string' ? metadata.agent_class : fromEvents.agent,
    model,
    instanceId: instanceIdOf(r),
    recorded,
    error,
  };
  if (isRecord(metadata.condenser_config)) setExtra(meta, 'condenser', metadata.condenser_config.type);
  // How the instance went, when the output records it (report.resolved, reward).
  const outcome = runMetadata(r, 'history', 0);
  if (outcome.resolved !== undefined) meta.resolved = outcome.resolved;
  if (outcome.reward !== undefined) meta.reward = outcome.reward;
  if (outcome.score !== undefined) meta.score = outcome.score;
  const report = isRecord(r.test_result) && isRecord(r.test_result.report) ? r.test_result.report : undefined;
  if (typeof report?.resolved === 'boolean') meta.resolved = report.resolved;
  // The resolver says whether its patch resolved the issue.
  if (isResolverRecord(r) && typeof r.success === 'boolean') meta.resolved = r.success;
  return { title: `${instanceIdOf(r)}: ${describe(r, error)}`, steps, meta };
}

/** SDK (V1) events: the same steps the openhands-v1 adapter makes, totals from the last stats update. */
function addV1History(b: StepBuilder, history: unknown[], locate: (i: number) => { line?: number; pointer: string }): TrajectoryMeta {
  let recorded: TrajectoryMeta['recorded'];
  history.forEach((e, i) => {
    if (!isV1Event(e)) return;
    const base = { sourceId: typeof e.id === 'string' ? e.id : undefined, timestamp: typeof e.timestamp === 'string' ? e.timestamp : undefined, location: locate(i), label: String(e.kind) };
    recorded = addV1Event(b, e, base) ?? recorded;
  });
  return { agent: 'OpenHands', recorded, model: recorded?.model };
}

/** The first line of the task, or how the run ended when it failed. */
function describe(r: Record<string, unknown>, error: string | undefined): string {
  const instance = isRecord(r.instance) ? r.instance : {};
  const issue = isRecord(r.issue) ? r.issue : {};
  const task = typeof instance.problem_statement === 'string' ? instance.problem_statement : typeof issue.title === 'string' ? issue.title : '';
  let text = task.trim().split('\n')[0] || `${(r.history as unknown[]).length} events`;
  if (text.length > 70) text = text.slice(0, 69) + '…';
  return error ? `${text} (failed: ${error.split('\n')[0].slice(0, 60)})` : text;
}
