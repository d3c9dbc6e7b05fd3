import { pointerOf } from '../io/jsonScan';
import type { RecordedUsage, SourceLocation, Step } from '../model';
import { argsOf, isRecord, StepBuilder, textOf } from '../steps';
import type { FormatAdapter, ParsedInput } from './adapter';
import { eventStore } from './adapter';
import { stringOrUndefined, titleFromSteps } from './chatMessages';
import { addResult, addUsage, usageOfMetrics } from './openhandsEvents';
import { markClosingActions } from './closingAction';

// OpenHands V1 (software-agent-sdk) events: every event names its class in `kind`. Stored as a
// folder of `event-<n>-<uuid>.json` files, or exported one event per line.

type Event = Record<string, unknown>;
type Base = Omit<Step, 'index' | 'turn' | 'kind' | 'text'>;

const V1_KINDS = new Set([
  'SystemPromptEvent', 'MessageEvent', 'ActionEvent', 'ObservationEvent', 'UserRejectObservation',
  'AgentErrorEvent', 'Condensation', 'CondensationRequest', 'CondensationSummaryEvent',
  'ConversationStateUpdateEvent', 'PauseEvent', 'InterruptEvent', 'ConversationErrorEvent',
  'HookExecutionEvent', 'LLMCompletionLogEvent', 'TokenEvent', 'StreamingDeltaEvent', 'ACPToolCallEvent',
]);

export function isV1Event(value: unknown): value is Event {
  return isRecord(value) && typeof value.kind === 'string' && V1_KINDS.has(value.kind);
}

interface EventItem {
  value: unknown;
  location?: SourceLocation;
  fileName?: string;
}

function eventsOf(input: ParsedInput): EventItem[] | undefined {
  switch (input.shape) {
    case 'jsonl': return input.records.map((r) => ({ value: r.value, location: { line: r.line } }));
    // Event files carry no line or pointer; their order is the file names' order.
    case 'folder': return input.files.map((f) => ({ value: f.value, fileName: f.name }));
    case 'json': return Array.isArray(input.value) ? input.value.map((value, i) => ({ value, location: { pointer: pointerOf(i) } })) : undefined;
    default: return undefined;
  }
}

export const openHandsV1Adapter: FormatAdapter = {
  id: 'openhands-v1',
  label: 'OpenHands V1 SDK events',
  fileNames: ['*.jsonl', '*.json'],
  tools: { command: ['terminal'] },
  compactionTrigger: { agent: 'OpenHands', unit: 'events', maxSize: 80, where: 'the SDK default condenser (max_size 80, keep_first 4)' },
  // An event store (`event-<n>-<uuid>.json`, the SDK's conversation events/) is one run.
  isRunFolder: (names) => eventStore(names, /^event-.*\.json$/i),
  sniff(input) {
    const items = eventsOf(input);
    if (!items || items.length === 0) return 0;
    const sample = items.slice(0, 20);
    const share = sample.filter((item) => isV1Event(item.value)).length / sample.length;
    if (share >= 0.8) return 0.95;
    return share >= 0.5 ? 0.6 : 0;
  },
  parse(input, ctx) {
    const b = new StepBuilder();
    let recorded: RecordedUsage | undefined;
    for (const item of eventsOf(input)!) {
      if (!isV1Event(item.value)) {
        const where = item.fileName ?? `line ${item.location?.line ?? '?'}`;
        ctx.warnings.push({ message: `${where} is not an OpenHands V1 event and was skipped.`, line: item.location?.line });
        continue;
      }
      const e = item.value;
      const base: Base = {
        sourceId: stringOrUndefined(e.id),
        timestamp: stringOrUndefined(e.timestamp),
        location: item.location,
        label: String(e.kind),
      };
      recorded = addV1Event(b, e, base) ?? recorded;
    }
    const steps = b.finish();
    markClosingActions(steps);
  markClosingActions(steps);
    return { title: titleFromSteps(steps, ctx.fileName), steps, meta: { agent: 'OpenHands', model: recorded?.model, recorded } };
  },
};

/** Adds one SDK event's steps; returns the run's totals when the event is a stats update. */
export function addV1Event(b: StepBuilder, e: Event, base: Base): RecordedUsage | undefined {
  addEvent(b, e, base);
  return e.kind === 'ConversationStateUpdateEvent' && e.key === 'stats' ? statsUsage(e.value) : undefined;
}

function addEvent(b: StepBuilder, e: Event, base: Base): void {
  switch (e.kind) {
    case 'SystemPromptEvent': {
      const text = [contentText(e.system_prompt), contentText(e.dynamic_context)].filter((t) => t !== '').join('\n\n');
      b.add({ ...base, kind: 'system', text });
      return;
    }
    case 'MessageEvent': return addMessage(b, e, base);
    case 'ActionEvent': return addAction(b, e, base);
    case 'ObservationEvent': {
      const obs = isRecord(e.observation) ? e.observation : {};
      // SDK 1.0 (October 2025) put what the terminal printed in `output` and its error flag in `error`;
      // later versions in `content` and `is_error`. The model read the output between the terminal's
      // `metadata.prefix` and `metadata.suffix` ("[The command completed with exit code 1.]"), not
      // the observation's other fields.
      const text = 'content' in obs ? contentText(obs.content) : typeof obs.output === 'string' ? terminalText(obs.output, obs.metadata) : textOf(withoutKind(obs));
      // A terminal's exit status is a field of its own (-1 when the command did not finish); SDK
      // versions that record it only in the command's metadata (the PS1 it read) say the same there.
      const exitCode = typeof obs.exit_code === 'number' ? obs.exit_code : isRecord(obs.metadata) && typeof obs.metadata.exit_code === 'number' ? obs.metadata.exit_code : undefined;
      addResult(b, {
        ...base,
        label: stringOrUndefined(obs.kind) ?? base.label,
        kind: 'tool_result',
        text,
        toolName: stringOrUndefined(e.tool_name),
        isError: obs.is_error === true || obs.error === true ? true : undefined,
        ...(exitCode !== undefined && exitCode >= 0 ? { exitCode } : {}),
      }, stringOrUndefined(e.tool_call_id) ?? '');
      return;
    }
    case 'UserRejectObservation':
    case 'AgentErrorEvent': {
      const rejected = e.kind === 'UserRejectObservation';
      const text = rejected ? `rejected by the user: ${textOf(e.rejection_reason) || 'no reason given'}` : textOf(e.error);
      addResult(b, { ...base, kind: 'tool_result', text, toolName: stringOrUndefined(e.tool_name), isError: rejected ? undefined : true },
        stringOrUndefined(e.tool_call_id) ?? '');
      return;
    }
    case 'Condensation': {
      const ids = Array.isArray(e.forgotten_event_ids) ? e.forgotten_event_ids.map(String) : [];
      const summary = typeof e.summary === 'string' ? e.summary : undefined;
      b.add({ ...base, kind: 'compaction', text: summary ?? `forgot ${ids.length} events`, compaction: { forgottenIds: ids, summary } });
      return;
    }
    case 'CondensationSummaryEvent': {
      const summary = textOf(e.summary);
      b.add({ ...base, kind: 'compaction', text: summary, compaction: { summary } });
      return;
    }
    default:
      b.add({ ...base, kind: 'other', text: describeOther(e), ...(e.kind === 'InterruptEvent' ? { interruption: true as const } : {}) });
  }
}

function addMessage(b: StepBuilder, e: Event, base: Base): void {
  const msg = isRecord(e.llm_message) ? e.llm_message : {};
  const extended = Array.isArray(e.extended_content) ? contentText(e.extended_content) : '';
  const text = [contentText(msg.content), extended].filter((t) => t !== '').join('\n\n');
  switch (msg.role) {
    case 'user':
      b.closeOpenCalls();
      b.add({ ...base, kind: 'user', text });
      return;
    case 'system':
      b.add({ ...base, kind: 'system', text });
      return;
    default: {
      const reasoning = textOf(msg.reasoning_content);
      if (reasoning && !text.includes(reasoning)) b.add({ ...base, kind: 'thought', text: reasoning, label: 'reasoning' });
      b.add({ ...base, kind: 'assistant', text });
    }
  }
}

function addAction(b: StepBuilder, e: Event, base: Base): void {
  const thought = contentText(e.thought).trim();
  const reasoning = textOf(e.reasoning_content).trim();
  // The SDK often repeats the reasoning inside the thought's <think> block; show it once.
  if (reasoning && !thought.includes(reasoning)) b.add({ ...base, kind: 'thought', text: reasoning, label: 'reasoning' });
  if (thought) b.add({ ...base, kind: 'thought', text: thought, label: 'thought' });
  const action = isRecord(e.action) ? e.action : undefined;
  const call = isRecord(e.tool_call) ? e.tool_call : {};
  const name = stringOrUndefined(e.tool_name) ?? stringOrUndefined(call.name) ?? stringOrUndefined(action?.kind) ?? 'tool';
  const args = call.arguments !== undefined ? argsOf(call.arguments) : argsOf(action ? withoutKind(action) : undefined);
  const callId = stringOrUndefined(e.tool_call_id) ?? stringOrUndefined(call.id);
  b.add({ ...base, label: stringOrUndefined(action?.kind) ?? base.label, kind: 'tool_call', text: args, tool: { name, args, callId } });
}

/** Bookkeeping events, kept but short: they say what they are rather than dump their payload. */
function describeOther(e: Event): string {
  switch (e.kind) {
    case 'ConversationStateUpdateEvent': {
      const key = String(e.key ?? 'state');
      if (key === 'stats') {
        const u = statsUsage(e.value);
        return u ? `state update: stats (${u.inputTokens ?? 0} input / ${u.outputTokens ?? 0} output tokens so far)` : 'state update: stats';
      }
      const v = e.value;
      return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? `state update: ${key} = ${String(v)}` : `state update: ${key}`;
    }
    case 'CondensationRequest': return 'condensation requested';
    case 'PauseEvent': return 'conversation paused';
    case 'InterruptEvent': return 'conversation interrupted';
    case 'ConversationErrorEvent': return `conversation error: ${[e.code, e.detail].filter((x) => x !== undefined).map(String).join(': ')}`;
    default: return String(e.kind);
  }
}

/** Totals of a `stats` update: every usage bucket (the agent's and the condenser's) added up. */
function statsUsage(value: unknown): RecordedUsage | undefined {
  const buckets = isRecord(value) && isRecord(value.usage_to_metrics) ? value.usage_to_metrics : undefined;
  if (!buckets) return undefined;
  let total: RecordedUsage | undefined;
  for (const metrics of Object.values(buckets)) if (isRecord(metrics)) total = addUsage(total, usageOfMetrics(metrics));
  const main = isRecord(buckets.default) ? stringOrUndefined(buckets.default.model_name) : undefined;
  return total ? { ...total, model: main ?? total.model } : undefined;
}

/** Text of SDK content: a string, a list of content parts, or one `{type:'text', text}` part. */
function contentText(value: unknown): string {
  if (isRecord(value) && typeof value.text === 'string') return value.text;
  return textOf(value);
}

function withoutKind(value: Record<string, unknown>): Record<string, unknown> {
  const { kind: _kind, ...rest } = value;
  return rest;
}

/** A terminal's output as SDK 1.0 gave it to the model: its metadata's prefix, the output, its suffix. */
function terminalText(output: string, metadata: unknown): string {
  const part = (key: string) => (isRecord(metadata) && typeof metadata[key] === 'string' ? metadata[key] as string : '');
  return `${part('prefix')}${output}${part('suffix')}`;
}
