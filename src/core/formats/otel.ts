import type { RecordedUsage, Step, TrajectoryMeta, Warning } from '../model';
import { isRecord, StepBuilder } from '../steps';
import { parseRecords, skipRecord, type FormatAdapter, type JsonlRecord, type ParseContext, type ParsedTrajectory, type RecordParser } from './adapter';
import { titleFromSteps } from './chatMessages';
import { inputMessages, outputMessages, type Message } from './otelMessages';
import { addSpansOf, compactOtlpSpan, readSpans, spanFileKind, type Span, type SpanFileKind } from './otelSpans';
import { num, recordedUsage, sumUsage } from './usage';
import { TimeCheck } from './times';
import { extraOf } from '../meta';

// OpenTelemetry traces of agents (GenAI semantic conventions, OpenLLMetry, OpenInference), from
// OTLP JSON, Jaeger JSON or the console exporter's span stream (see otelSpans.ts). Each model
// call span adds the messages that are new since the previous call and its reply; each tool
// span adds a call and its result (or the result of a call the model already made). A span
// with no recorded content still becomes a step, with its tool or model and its token usage.
// A file with spans of several traces opens as one run per trace.

type Base = Omit<Step, 'index' | 'turn' | 'kind' | 'text'>;

const LLM_OPERATIONS = new Set(['chat', 'text_completion', 'generate_content', 'call_llm', 'completion', 'responses']);

type Role = 'llm' | 'tool' | 'agent' | undefined;

function roleOf(s: Span): Role {
  const op = String(s.attrs['gen_ai.operation.name'] ?? '');
  const oiKind = String(s.attrs['openinference.span.kind'] ?? '').toUpperCase();
  // The Vercel AI SDK names its spans by `ai.operationId`: `ai.toolCall`, the provider call
  // `ai.<function>.doGenerate|doStream`, and around it the function's own span (`ai.generateText`).
  const aiOp = typeof s.attrs['ai.operationId'] === 'string' ? s.attrs['ai.operationId'] : '';
  if (op === 'execute_tool' || oiKind === 'TOOL' || /^execute_tool\b/.test(s.name) || aiOp === 'ai.toolCall') return 'tool';
  if (op === 'invoke_agent' || op === 'create_agent' || oiKind === 'AGENT') return 'agent';
  if (LLM_OPERATIONS.has(op) || oiKind === 'LLM' || /^(chat|text_completion|generate_content) /.test(s.name) || /\.do(Generate|Stream)$/.test(aiOp)) return 'llm';
  if (aiOp !== '') return undefined; // the function's span repeats its provider call's prompt and reply
  const hasMessages = Object.keys(s.attrs).some((k) => /^(gen_ai\.(input|output)\.messages|gen_ai\.prompt\.\d|gen_ai\.completion\.\d|llm\.(input|output)_messages\.)/.test(k));
  return hasMessages || (s.attrs['gen_ai.request.model'] !== undefined && !op) ? 'llm' : undefined;
}

export const otelAdapter: FormatAdapter = {
  id: 'otel',
  label: 'OpenTelemetry GenAI trace',
  fileNames: ['*.json', '*.jsonl'],
  compactElement: compactOtlpSpan,
  sniff(input) {
    const kind = spanFileKind(input);
    if (!kind) return 0;
    return kind === 'console' ? 0.93 : 0.96;
  },
  recordParser(ctx) {
    return new SpanRecords(ctx);
  },
  parse(input, ctx) {
    if (input.shape === 'jsonl') return parseRecords(new SpanRecords(ctx), input.records);
    return runsOfSpans(readSpans(input, spanFileKind(input)!), ctx);
  },
};

/**
 * Spans read record by record (JSON Lines, or the console exporter's documents one after
 * another): each record becomes its spans as it comes, so the records are not kept (issue 23).
 * The kind of file is told on its first five records, as `spanFileKind` tells it.
 */
class SpanRecords implements RecordParser {
  private first: JsonlRecord[] | undefined = [];
  private kind: SpanFileKind | undefined;
  private readonly spans: Span[] = [];

  constructor(private readonly ctx: ParseContext) {}

  add(record: JsonlRecord): void {
    if (!this.first) {
      addSpansOf(record, this.kind, this.spans);
      return;
    }
    this.first.push(record);
    if (this.first.length === 5) this.decide();
  }

  finish(): ParsedTrajectory {
    if (this.first) this.decide();
    return runsOfSpans(this.spans, this.ctx);
  }

  private decide(): void {
    const first = this.first ?? [];
    this.first = undefined;
    this.kind = spanFileKind({ shape: 'jsonl', records: first });
    for (const r of first) addSpansOf(r, this.kind, this.spans);
  }
}

/** One run per trace; the list of spans is emptied as the traces take them. */
function runsOfSpans(spans: Span[], ctx: ParseContext): ParsedTrajectory {
  const { fileName, warnings } = ctx;
  const count = spans.length;
  const traces = new Map<string, Span[]>();
  for (const s of spans) {
    if (!traces.has(s.traceId)) traces.set(s.traceId, []);
    traces.get(s.traceId)!.push(s);
  }
  spans.length = 0;
  const runs: ParsedTrajectory[] = [];
  for (const [id, list] of traces) {
    traces.delete(id);
    const run = traceRun(id, list, warnings, (s) => nameSpanWithoutStep(ctx, s));
    if (run.steps.length > 0) runs.push(run);
  }
  if (runs.length === 0) {
    warnings.push({ message: `None of the ${count} spans is a model call or a tool call (no gen_ai.*, OpenInference or LLM attributes).` });
    return { title: fileName, steps: [], meta: { agent: 'opentelemetry' } };
  }
  if (runs.length === 1) return runs[0];
  return { title: `OpenTelemetry: ${runs.length} traces`, steps: [], runs, meta: { recorded: sumUsage(runs.map((r) => r.meta?.recorded)) } };
}

/** A span that is a record of its own and made no step (the agent's root span, a wrapper) is named, not lost. */
function nameSpanWithoutStep(ctx: ParseContext, s: Span): void {
  if (!s.ownRecord) return; // an OTLP span shares its line with others
  const operation = typeof s.attrs['gen_ai.operation.name'] === 'string' ? s.attrs['gen_ai.operation.name'] : 'other';
  skipRecord(ctx, `${operation} span (no model or tool call)`, s.pointer !== undefined ? { pointer: s.pointer } : { line: s.line });
}

function traceRun(traceId: string, list: Span[], warnings: Warning[], noStep: (s: Span) => void): ParsedTrajectory {
  const roles = new Map(list.map((s) => [s.spanId, roleOf(s)]));
  const cut = breakParentCycles(traceId, list, warnings);
  // Children's roles indexed by parent once (a scan of every span per span is quadratic).
  const childRoles = new Map<string, Set<Role>>();
  for (const c of list) {
    if (c.parentId === undefined || cut.has(c)) continue;
    let set = childRoles.get(c.parentId);
    if (!set) childRoles.set(c.parentId, (set = new Set()));
    set.add(roles.get(c.spanId));
  }
  // A model call wrapped in another model-call span (a framework's span around the client's) counts once.
  const hasChildOfRole = (s: Span, role: Role) => childRoles.get(s.spanId)?.has(role) === true;
  const ordered = list
    .map((s, i) => ({ s, i }))
    .sort((a, b) => a.s.start - b.s.start || a.i - b.i)
    .map(({ s }) => s)
    .filter((s) => {
      const wrapper = (roles.get(s.spanId) === 'llm' && hasChildOfRole(s, 'llm')) || (roles.get(s.spanId) === 'tool' && hasChildOfRole(s, 'tool'));
      if (wrapper) noStep(s);
      return !wrapper;
    });
  const b = new StepBuilder();
  const meta: TrajectoryMeta = { agent: 'opentelemetry', extra: extraOf({ traceId }) };
  const usages: RecordedUsage[] = [];
  const times = new TimeCheck();
  const state: CallState = { calls: new Map(), answered: new Set(), unansweredByName: new Map(), prevInputs: 0, prevOutputs: 0, seenLlm: false };
  // Each span is let go once its steps exist: spans and steps are not all in memory at once (issue 23).
  list.length = 0;
  for (let k = 0; k < ordered.length; k++) {
    const s = ordered[k];
    (ordered as (Span | undefined)[])[k] = undefined;
    const base: Base = { sourceId: s.spanId, label: s.name, timestamp: s.start > 0 ? times.iso(epochMs(s.start), s.start, `span ${s.spanId}`) : undefined, location: s.line ? { line: s.line } : s.pointer !== undefined ? { pointer: s.pointer } : undefined };
    const role = roles.get(s.spanId);
    const before = b.steps.length;
    if (role === 'agent') meta.agent = String(s.attrs['gen_ai.agent.name'] ?? meta.agent);
    else if (role === 'llm') {
      const usage = addModelCall(b, s, base, state);
      if (usage) usages.push(usage);
      meta.model ??= usage?.model;
    } else if (role === 'tool') addToolSpan(b, s, base, state);
    if (b.steps.length === before) noStep(s);
  }
  times.report(warnings);
  meta.recorded = sumUsage(usages);
  const steps = b.finish();
  return { title: titleFromSteps(steps, `Trace ${traceId}`), steps, meta };
}

/**
 * Milliseconds from nanoseconds since the epoch. A double holds those only to about 256 ns, so
 * 15:19:53.242 may come out as .241999…: rounded to the microsecond first, it stays .242.
 */
function epochMs(ns: number): number {
  return Math.round(ns / 1e3) / 1e3;
}

interface CallState {
  /** Tool calls made so far, by call id (or `name#n` when the log has no id). */
  calls: Map<string, Step>;
  answered: Set<number>;
  /** Per tool name, its calls in order (answered ones are skipped lazily), so a tool span finds its call without copying every call. */
  unansweredByName: Map<string, { queue: Step[]; head: number }>;
  prevInputs: number;
  prevOutputs: number;
  seenLlm: boolean;
}

function addModelCall(b: StepBuilder, s: Span, base: Base, state: CallState): RecordedUsage | undefined {
  const inputs = inputMessages(s.attrs, s.events);
  const outputs = outputMessages(s.attrs, s.events);
  // Each call resends the whole history; only what came after the previous call's reply is new.
  const expected = state.prevInputs + state.prevOutputs;
  let fresh = !state.seenLlm ? inputs : inputs.length >= expected ? inputs.slice(expected) : afterLastAssistant(inputs);
  state.seenLlm = true;
  state.prevInputs = inputs.length;
  state.prevOutputs = outputs.length;
  fresh = fresh.filter((m) => !(m.role === 'tool' && m.callId && state.calls.has(m.callId) && state.answered.has(state.calls.get(m.callId)!.index)));
  for (const m of fresh) addInput(b, m, base, state);
  const start = b.steps.length;
  for (const m of outputs) {
    // A structured-output reply is the model's own JSON, as a call's arguments are: its label says so.
    if (m.text) b.add({ ...base, kind: m.calls.length > 0 ? 'thought' : 'assistant', text: m.text, ...(m.structured ? { label: `${base.label ?? 'reply'} (structured output)` } : {}) });
    for (const c of m.calls) {
      const step = b.add({ ...base, kind: 'tool_call', text: c.args, tool: { name: c.name, args: c.args, callId: c.id } });
      rememberCall(state, c.id ?? `${c.name}#${step.index}`, step);
    }
  }
  const usage = usageOf(s);
  if (b.steps.length === start) {
    // Nothing recorded of what the model said: the call still happened, and its usage counts.
    const model = usage?.model ?? String(s.attrs['gen_ai.request.model'] ?? '');
    b.add({ ...base, kind: 'assistant', text: '', label: `${s.name}${model && !s.name.includes(model) ? ` (${model})` : ''} — content not recorded` });
  }
  if (usage) b.steps[b.steps.length - 1].usage = usage;
  return usage;
}

function addInput(b: StepBuilder, m: Message, base: Base, state: CallState): void {
  switch (m.role) {
    case 'system':
    case 'developer':
      b.add({ ...base, kind: 'system', text: m.text, label: 'system' });
      return;
    case 'user':
    case 'human':
      b.closeOpenCalls();
      b.add({ ...base, kind: 'user', text: m.text, label: 'user' });
      return;
    case 'tool':
    case 'function': {
      const call = m.callId ? state.calls.get(m.callId) : undefined;
      const step = b.add({ ...base, kind: 'tool_result', text: m.text, label: 'tool message', ...(call ? { answers: call.index, toolName: call.tool?.name } : {}) });
      if (call) state.answered.add(call.index);
      void step;
      return;
    }
    default:
      b.add({ ...base, kind: 'assistant', text: m.text, label: m.role });
  }
}

function addToolSpan(b: StepBuilder, s: Span, base: Base, state: CallState): void {
  const a = s.attrs;
  const name = String(a['gen_ai.tool.name'] ?? a['tool.name'] ?? a['ai.toolCall.name'] ?? s.name.replace(/^execute_tool\s*/, '') ?? 'tool');
  const callId = a['gen_ai.tool.call.id'] ?? a['ai.toolCall.id'];
  const id = typeof callId === 'string' ? callId : undefined;
  const args = text(a['gen_ai.tool.call.arguments'] ?? a['gen_ai.tool.args'] ?? a['input.value'] ?? a['tool.parameters'] ?? a['ai.toolCall.args'] ?? a['ai.toolCall.input']);
  const result = toolOutputText(a['gen_ai.tool.call.result'] ?? a['gen_ai.output'] ?? a['output.value'] ?? a['ai.toolCall.result'] ?? a['ai.toolCall.output'] ?? '');
  // The call the model already asked for: by id, else the oldest unanswered call of this tool.
  let call = id ? state.calls.get(id) : undefined;
  call ??= oldestUnanswered(state, name);
  if (!call) {
    call = b.add({ ...base, kind: 'tool_call', text: args, tool: { name, args, callId: id } });
    rememberCall(state, id ?? `${name}#${call.index}`, call);
  }
  state.answered.add(call.index);
  b.add({ ...base, kind: 'tool_result', text: s.error && !result ? s.error : result, answers: call.index, toolName: name, isError: s.error ? true : undefined });
}

function rememberCall(state: CallState, key: string, call: Step): void {
  state.calls.set(key, call);
  const name = call.tool?.name ?? '';
  let q = state.unansweredByName.get(name);
  if (!q) state.unansweredByName.set(name, (q = { queue: [], head: 0 }));
  q.queue.push(call);
}

function oldestUnanswered(state: CallState, name: string): Step | undefined {
  const q = state.unansweredByName.get(name);
  if (!q) return undefined;
  while (q.head < q.queue.length && state.answered.has(q.queue[q.head].index)) q.head++;
  return q.queue[q.head];
}

/**
 * A span whose parent chain comes back to itself (a corrupt or forged file) would hide every span
 * of the loop as "wrapped" by another; the link that closes each loop is dropped and named.
 * Returns the spans whose parent link is dropped (the spans themselves stay as read: a document
 * read element by element keeps them, and may be parsed again).
 */
function breakParentCycles(traceId: string, list: Span[], warnings: Warning[]): Set<Span> {
  const cut = new Set<Span>();
  const byId = new Map<string, Span>();
  for (const s of list) byId.set(s.spanId, s);
  // 0 unvisited, 1 on the chain being followed, 2 done: each span is visited once.
  const state = new Map<Span, number>();
  for (const first of list) {
    const chain: Span[] = [];
    let s: Span | undefined = first;
    while (s && !state.has(s)) {
      state.set(s, 1);
      chain.push(s);
      const parentId: string | undefined = cut.has(s) ? undefined : s.parentId;
      const parent: Span | undefined = parentId === undefined ? undefined : byId.get(parentId);
      if (parent && state.get(parent) === 1) {
        const loop = chain.slice(chain.indexOf(parent)).map((x) => x.spanId);
        warnings.push({ message: `Spans ${loop.slice(0, 5).join(' → ')}${loop.length > 5 ? ` … (${loop.length} spans)` : ''} of trace ${traceId} name each other as parent in a loop; the link from ${s.spanId} to its parent ${parentId} was ignored.` });
        cut.add(s);
        break;
      }
      s = parent;
    }
    for (const c of chain) state.set(c, 2);
  }
  return cut;
}

/**
 * Token usage as the span records it. `input_tokens` is the whole prompt for most providers; when
 * the cached part is larger than it, the provider counted cache reads apart (Anthropic) and they are added.
 */
function usageOf(s: Span): RecordedUsage | undefined {
  const a = s.attrs;
  let input = num(a['gen_ai.usage.input_tokens'] ?? a['gen_ai.usage.prompt_tokens'] ?? a['llm.token_count.prompt'] ?? a['ai.usage.inputTokens'] ?? a['ai.usage.promptTokens']);
  const cacheRead = num(a['gen_ai.usage.cache_read.input_tokens'] ?? a['gen_ai.usage.cache_read_input_tokens'] ?? a['llm.token_count.prompt_details.cache_read']);
  const cacheWrite = num(a['gen_ai.usage.cache_creation.input_tokens'] ?? a['gen_ai.usage.cache_creation_input_tokens'] ?? a['llm.token_count.prompt_details.cache_write']);
  if (input !== undefined && cacheRead !== undefined && cacheRead > input) input += cacheRead + (cacheWrite ?? 0);
  const parts = [num(a['gen_ai.usage.input_cost']), num(a['gen_ai.usage.output_cost'])].filter((n): n is number => n !== undefined);
  const cost = num(a['gen_ai.usage.cost']) ?? (parts.length > 0 ? parts.reduce((x, y) => x + y, 0) : undefined);
  return recordedUsage({
    model: String(a['gen_ai.response.model'] ?? a['gen_ai.request.model'] ?? a['llm.model_name'] ?? a['ai.response.model'] ?? a['ai.model.id'] ?? '') || undefined,
    input,
    output: num(a['gen_ai.usage.output_tokens'] ?? a['gen_ai.usage.completion_tokens'] ?? a['llm.token_count.completion'] ?? a['ai.usage.outputTokens'] ?? a['ai.usage.completionTokens']),
    cacheRead,
    cacheWrite,
    cost,
  });
}

/** After a rewritten history (shorter than the last call's), what follows its last assistant message is new. */
function afterLastAssistant(inputs: Message[]): Message[] {
  let i = inputs.length - 1;
  while (i >= 0 && inputs[i].role !== 'assistant') i--;
  return inputs.slice(i + 1);
}

/**
 * A tool's output: a LangChain ToolMessage (serialized `{lc, id: [..., 'ToolMessage'], kwargs}`, or
 * its plain `{type: 'tool', content, artifact}` form, often as a JSON string) is its `content`; the
 * `artifact` beside it holds the same output again and is not counted twice.
 */
function toolOutputText(v: unknown): string {
  let value = v;
  if (typeof value === 'string' && value.length < 50_000_000 && /^\s*\{/.test(value) && /"(?:ToolMessage|tool_call_id)"/.test(value.slice(0, 4096))) {
    try {
      value = JSON.parse(value);
    } catch {
      return value as string;
    }
  }
  if (isRecord(value)) {
    const kwargs = isRecord(value.kwargs) ? value.kwargs : undefined;
    const isToolMessage = (Array.isArray(value.id) && value.id[value.id.length - 1] === 'ToolMessage' && kwargs) || (value.type === 'tool' && 'tool_call_id' in value && 'content' in value);
    if (isToolMessage) {
      const content = (kwargs ?? value).content;
      return typeof content === 'string' ? content : text(content);
    }
  }
  return text(value);
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v);
}
