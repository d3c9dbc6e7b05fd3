import type { RecordedUsage, SourceLocation, Step, TrajectoryMeta } from '../model';
import { argsOf, isRecord, StepBuilder, textOf } from '../steps';
import { stringOrUndefined } from './chatMessages';
import { openaiUsageParts, recordedUsage } from './usage';

// OpenHands V0 events (`{id, source, action|observation, args|content+extras, cause, ...}`), shared by
// the plain event array (openhandsV0) and the evaluation output.jsonl (openhandsEval).

type Event = Record<string, unknown>;

const SOURCES = new Set(['agent', 'user', 'environment']);

/** One V0 event: a source and exactly one of `action` / `observation`. SWE-agent steps carry both. */
function isV0Event(value: unknown): value is Event {
  if (!isRecord(value) || typeof value.source !== 'string' || !SOURCES.has(value.source)) return false;
  const isAction = typeof value.action === 'string';
  const isObservation = typeof value.observation === 'string';
  return isAction !== isObservation;
}

/** Share of the first events of a list that look like V0 events. */
export function v0EventShare(items: readonly unknown[]): number {
  const sample = items.slice(0, 20);
  if (sample.length === 0) return 0;
  return sample.filter(isV0Event).length / sample.length;
}

/** Actions that are bookkeeping rather than something the model asked a tool to do. */
const BOOKKEEPING_ACTIONS = new Set(['change_agent_state', 'null', 'recall', 'condensation_request', 'start', 'pause', 'resume', 'stop']);
/** Observations that only report the runtime's state; they answer no tool call. */
const BOOKKEEPING_OBSERVATIONS = new Set(['agent_state_changed', 'null', 'recall']);

/**
 * Adds the steps of a V0 event list. `locate(i)` says where event `i` sits in the file.
 * Returns the run's meta (agent, model, recorded totals) found along the way.
 */
export function addV0Events(b: StepBuilder, events: readonly unknown[], locate: (i: number) => SourceLocation): TrajectoryMeta {
  const stepOfEvent = new Map<string, number>();
  const usage = new UsageTracker();
  const meta: TrajectoryMeta = {};
  events.forEach((event, i) => {
    if (!isV0Event(event)) {
      b.add({ kind: 'other', text: 'not an OpenHands event', label: 'unknown', location: locate(i) });
      return;
    }
    const base: Base = {
      sourceId: stringOrUndefined(event.id),
      timestamp: stringOrUndefined(event.timestamp),
      location: locate(i),
    };
    const step = typeof event.action === 'string'
      ? addAction(b, event, event.action, base, usage, meta)
      : addObservation(b, event, String(event.observation), base, stepOfEvent);
    if (step && base.sourceId !== undefined) stepOfEvent.set(base.sourceId, step.index);
  });
  if (usage.total) meta.recorded = usage.total;
  if (!meta.model && usage.total?.model) meta.model = usage.total.model;
  return meta;
}

type Base = Omit<Step, 'index' | 'turn' | 'kind' | 'text'>;

/**
 * `{ ...base, ...fields }` through Object.assign: V8 (Node 20) runs a spread followed by more
 * properties several times slower, and a big evaluation output has millions of events.
 */
function withBase(base: Base, fields: Pick<Step, 'kind' | 'text'> & Base): Omit<Step, 'index' | 'turn'> {
  return Object.assign({}, base, fields);
}

/**
 * An action's arguments. Shared sessions (the openhands-feedback dataset) store every event with
 * one set of keys: an action's arguments sit in `extras` (sometimes as a JSON string) and a
 * message's text in `content`, where other V0 files have `args`.
 */
function actionArgs(e: Event): Record<string, unknown> {
  const extras = extrasOf(e);
  if (Object.keys(extras).length === 0) return isRecord(e.args) ? e.args : {};
  // The dataset's one schema gives every event every key: null ones say nothing.
  const merged: Record<string, unknown> = isRecord(e.args) ? { ...e.args } : {};
  for (const [k, v] of Object.entries(extras)) if (v !== null && v !== undefined) merged[k] = v;
  return merged;
}

/** `extras` as an object: shared sessions may keep it as a JSON string. */
function extrasOf(e: Event): Record<string, unknown> {
  if (isRecord(e.extras)) return e.extras;
  if (typeof e.extras === 'string' && e.extras.trimStart().startsWith('{')) {
    try {
      const parsed = JSON.parse(e.extras) as unknown;
      if (isRecord(parsed)) return parsed;
    } catch {
      // not JSON after all: no extras
    }
  }
  return {};
}

/** The first of the values that has text: `args.content ?? e.message` would stop at an empty message. */
function firstText(...values: unknown[]): string {
  for (const v of values) {
    const text = v === undefined || v === null ? '' : textOf(v);
    if (text.trim() !== '') return text;
  }
  return '';
}

function addAction(b: StepBuilder, e: Event, action: string, where: Base, usage: UsageTracker, meta: TrajectoryMeta): Step {
  const args = actionArgs(e);
  const label = action;
  const stepUsage = usage.next(e);
  if (stepUsage?.model && !meta.model) meta.model = stepUsage.model;
  // The LLM call's usage goes on the step the action itself makes, never on its thought.
  const base: Base = stepUsage ? Object.assign({}, where, { usage: stepUsage }) : where;
  switch (action) {
    case 'system':
      if (typeof args.agent_class === 'string') meta.agent = args.agent_class;
      return b.add(withBase(base, { label, kind: 'system', text: textOf(args.content ?? e.message) }));
    case 'message': {
      const text = firstText(args.content, e.content, e.message);
      if (e.source === 'user') {
        b.closeOpenCalls();
        return b.add(withBase(base, { label, kind: 'user', text }));
      }
      if (e.source === 'agent') return b.add(withBase(base, { label, kind: 'assistant', text }));
      return b.add(withBase(base, { label, kind: 'other', text: `environment message: ${text}` }));
    }
    case 'think':
      return b.add(withBase(base, { label, kind: 'thought', text: firstText(args.thought, e.content, e.message) }));
    case 'condensation':
      return b.add(withBase(base, { label, kind: 'compaction', text: textOf(args.summary ?? e.message), compaction: compactionOf(args) }));
  }
  if (BOOKKEEPING_ACTIONS.has(action)) return b.add(withBase(base, { label, kind: 'other', text: describeBookkeepingAction(action, args) }));
  // Everything else is the model calling a tool: run, read, edit, browse, finish, MCP, delegate, ...
  const thought = typeof args.thought === 'string' ? args.thought.trim() : '';
  if (thought) b.add(withBase(where, { label: 'thought', kind: 'thought', text: thought }));
  const tcm = isRecord(e.tool_call_metadata) ? e.tool_call_metadata : undefined;
  const callId = stringOrUndefined(tcm?.tool_call_id);
  const name = stringOrUndefined(tcm?.function_name) ?? action;
  const written = tcm && callId ? argumentsFromResponse(tcm.model_response, callId) : undefined;
  const toolArgs = written ?? argsOf(withoutThought(args));
  return b.add(withBase(base, { label, kind: 'tool_call', text: toolArgs, tool: { name, args: toolArgs, callId } }));
}

function addObservation(b: StepBuilder, e: Event, observation: string, base: Base, stepOfEvent: Map<string, number>): Step {
  const extras = extrasOf(e);
  const label = observation;
  const content = textOf(e.content ?? e.message);
  if (observation === 'condense') {
    return b.add(withBase(base, { label, kind: 'compaction', text: content, compaction: { summary: content } }));
  }
  if (BOOKKEEPING_OBSERVATIONS.has(observation)) {
    return b.add(withBase(base, { label, kind: 'other', text: describeBookkeepingObservation(observation, content, extras) }));
  }
  const cause = stringOrUndefined(e.cause);
  const causeStep = cause !== undefined ? stepOfEvent.get(cause) : undefined;
  const causedBy = causeStep !== undefined ? b.steps[causeStep] : undefined;
  // `think` is a thought step, so its "logged" acknowledgement has no call to answer.
  if (causedBy && causedBy.kind !== 'tool_call') return b.add(withBase(base, { label, kind: 'other', text: content }));
  const isError = observation === 'error' ? true : undefined;
  // The exit status sits in `extras.metadata`, not in the text (the fact layer reads it); in 2024's
  // events, in `extras` itself (`{command_id: -1, command, exit_code: 0}`).
  const meta = isRecord(extras.metadata) ? extras.metadata : extras;
  const exit = typeof meta.exit_code === 'number' && meta.exit_code >= 0 ? { exitCode: meta.exit_code } : {};
  if (causedBy?.tool) {
    return b.add(withBase(base, { label, kind: 'tool_result', text: content, answers: causedBy.index, toolName: causedBy.tool.name, isError, ...exit }));
  }
  const tcm = isRecord(e.tool_call_metadata) ? e.tool_call_metadata : undefined;
  // Without a cause or a call id (a malformed call the agent rejected) the result answers nothing.
  const callId = stringOrUndefined(tcm?.tool_call_id) ?? '';
  return addResult(b, withBase(base, { label, kind: 'tool_result', text: content, isError, ...exit }), callId);
}

/** Adds a result linked by call id; one whose call is not in the log stays unlinked, without a stray `tool`. */
export function addResult(b: StepBuilder, step: Omit<Step, 'index' | 'turn' | 'tool'>, callId: string): Step {
  const added = b.add(Object.assign({}, step, { tool: { name: '', args: '', callId } }));
  delete added.tool;
  return added;
}

function compactionOf(args: Record<string, unknown>): Step['compaction'] {
  const ids = Array.isArray(args.forgotten_event_ids) ? args.forgotten_event_ids.map(String) : undefined;
  const start = stringOrUndefined(args.forgotten_events_start_id);
  const end = stringOrUndefined(args.forgotten_events_end_id);
  return {
    forgottenIds: ids,
    forgottenRange: start !== undefined && end !== undefined ? [start, end] : undefined,
    summary: typeof args.summary === 'string' ? args.summary : undefined,
  };
}

function describeBookkeepingAction(action: string, args: Record<string, unknown>): string {
  switch (action) {
    case 'change_agent_state': return `change agent state to ${String(args.agent_state ?? '?')}`;
    case 'recall': return `recall ${String(args.recall_type ?? 'context')}`;
    case 'condensation_request': return 'condensation requested';
    case 'null': return 'no action';
    default: return action;
  }
}

function describeBookkeepingObservation(observation: string, content: string, extras: Record<string, unknown>): string {
  switch (observation) {
    case 'agent_state_changed': {
      const reason = typeof extras.reason === 'string' && extras.reason ? ` (${extras.reason})` : '';
      return `agent state changed to ${String(extras.agent_state ?? '?')}${reason}`;
    }
    case 'recall': {
      const knowledge = Array.isArray(extras.microagent_knowledge) ? extras.microagent_knowledge.filter(isRecord) : [];
      const names = knowledge.map((k) => String(k.name ?? '?'));
      const agents = names.length > 0 ? `; microagents: ${names.join(', ')}` : '';
      return `recall result (${String(extras.recall_type ?? 'context')}): ${content || 'nothing'}${agents}`;
    }
    case 'null': return 'no observation';
    default: return content || observation;
  }
}

function withoutThought(args: Record<string, unknown>): Record<string, unknown> {
  const { thought: _thought, ...rest } = args;
  return rest;
}

/** The function arguments exactly as the model wrote them, from the LLM response stored with the call. */
function argumentsFromResponse(response: unknown, callId: string): string | undefined {
  if (!isRecord(response) || !Array.isArray(response.choices)) return undefined;
  for (const choice of response.choices) {
    const message = isRecord(choice) && isRecord(choice.message) ? choice.message : undefined;
    const calls = message && Array.isArray(message.tool_calls) ? message.tool_calls : [];
    for (const call of calls) {
      if (isRecord(call) && call.id === callId && isRecord(call.function)) return argsOf(call.function.arguments);
    }
  }
  return undefined;
}

/**
 * Per-step usage. An LLM response's own `usage` is per call, but several actions can share one
 * response, so each response is counted once. `llm_metrics` are cumulative snapshots: the cost of a
 * step is the difference to the previous snapshot, and the last snapshot is the run's total.
 */
class UsageTracker {
  total: RecordedUsage | undefined;
  private readonly seenResponses = new Set<string>();
  private previous: RecordedUsage = {};

  next(e: Event): RecordedUsage | undefined {
    const snapshot = isRecord(e.llm_metrics) ? usageOfMetrics(e.llm_metrics) : undefined;
    let step: RecordedUsage | undefined;
    const response = isRecord(e.tool_call_metadata) ? e.tool_call_metadata.model_response : undefined;
    if (isRecord(response) && isRecord(response.usage)) {
      const id = stringOrUndefined(response.id);
      if (id === undefined || !this.seenResponses.has(id)) {
        if (id !== undefined) this.seenResponses.add(id);
        step = usageOfResponse(response.usage, stringOrUndefined(response.model));
      }
    }
    if (snapshot) {
      const delta = subtract(snapshot, this.previous);
      // Without a per-call usage the token counts come from the snapshot difference too.
      step = step ? { ...step, cost: delta.cost } : delta;
      this.previous = snapshot;
      this.total = snapshot;
    }
    return step && hasAny(step) ? step : undefined;
  }
}

/** Usage from an OpenHands Metrics dump (`accumulated_cost`, `accumulated_token_usage`). */
export function usageOfMetrics(metrics: Record<string, unknown>): RecordedUsage {
  const tokens = isRecord(metrics.accumulated_token_usage) ? metrics.accumulated_token_usage : {};
  const model = typeof tokens.model === 'string' && tokens.model !== 'default' ? tokens.model : undefined;
  return clean({
    model,
    inputTokens: numberOrUndefined(tokens.prompt_tokens),
    outputTokens: numberOrUndefined(tokens.completion_tokens),
    cachedInputTokens: numberOrUndefined(tokens.cache_read_tokens),
    cacheWriteTokens: numberOrUndefined(tokens.cache_write_tokens),
    cost: numberOrUndefined(metrics.accumulated_cost),
  });
}

// The response's token counts only: the run's cost is the Metrics dump's (usageOfMetrics).
function usageOfResponse(usage: Record<string, unknown>, model: string | undefined): RecordedUsage {
  const { cost: _cost, ...parts } = openaiUsageParts(usage);
  return recordedUsage({ ...parts, model }) ?? clean({ model });
}

function subtract(now: RecordedUsage, before: RecordedUsage): RecordedUsage {
  const minus = (a: number | undefined, b: number | undefined) => (a === undefined ? undefined : a - (b ?? 0));
  return clean({
    model: now.model,
    inputTokens: minus(now.inputTokens, before.inputTokens),
    outputTokens: minus(now.outputTokens, before.outputTokens),
    cachedInputTokens: minus(now.cachedInputTokens, before.cachedInputTokens),
    cacheWriteTokens: minus(now.cacheWriteTokens, before.cacheWriteTokens),
    cost: minus(now.cost, before.cost),
  });
}

/** Adds usages field by field; the sum of a file's runs is the file's total. */
export function addUsage(a: RecordedUsage | undefined, b: RecordedUsage | undefined): RecordedUsage | undefined {
  if (!a || !b) return a ?? b;
  const plus = (x: number | undefined, y: number | undefined) => (x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0));
  return clean({
    model: a.model === b.model ? a.model : undefined,
    inputTokens: plus(a.inputTokens, b.inputTokens),
    outputTokens: plus(a.outputTokens, b.outputTokens),
    cachedInputTokens: plus(a.cachedInputTokens, b.cachedInputTokens),
    cacheWriteTokens: plus(a.cacheWriteTokens, b.cacheWriteTokens),
    cost: plus(a.cost, b.cost),
  });
}

function hasAny(u: RecordedUsage): boolean {
  return u.inputTokens !== undefined || u.outputTokens !== undefined || u.cost !== undefined;
}

function clean(u: RecordedUsage): RecordedUsage {
  const out: RecordedUsage = {};
  for (const [k, v] of Object.entries(u)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

function numberOrUndefined(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}
