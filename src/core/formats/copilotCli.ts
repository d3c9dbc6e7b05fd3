import { pointerOf } from '../io/jsonScan';
import type { RecordedUsage, SourceLocation, Step, TrajectoryMeta } from '../model';
import { argsOf, isRecord, StepBuilder, textOf } from '../steps';
import type { FormatAdapter, JsonlRecord, ParseContext } from './adapter';
import { jsonlRecordsOf, skipRecord } from './adapter';
import { addChatMessage, isChatMessage, stringOrUndefined, titleFromSteps } from './chatMessages';
import { num, obj, recordedUsage, sumUsage } from './usage';
import { setExtra } from '../meta';
import { INTERRUPTED_LABEL, labelWith } from './injected';
import { linkProcessCalls, type ProcessIds } from './processLinks';

// GitHub Copilot CLI sessions: `~/.copilot/session-state/<id>/events.jsonl`, one typed event a
// line (`{type, data, id, timestamp, parentId}`, types as in copilot-sdk's session-events
// schema), and the older single-JSON session (`{sessionId, startTime, chatMessages, timeline}`)
// whose chatMessages are chat-completions messages.

type Event = Record<string, unknown>;
type Base = Omit<Step, 'index' | 'turn' | 'kind' | 'text'>;

const EVENT_TYPE = /^(?:(?:session|user|assistant|tool|system|hook|subagent|skill|permission|abort|model)\.|abort$)/;

function isEvent(v: unknown): boolean {
  return isRecord(v) && typeof v.type === 'string' && EVENT_TYPE.test(v.type) && 'data' in v;
}

function isLegacySession(v: unknown): v is Event {
  return isRecord(v) && typeof v.sessionId === 'string' && Array.isArray(v.chatMessages);
}

export const copilotCliAdapter: FormatAdapter = {
  id: 'copilot-cli',
  label: 'GitHub Copilot CLI session',
  fileNames: ['*.jsonl', '*.json'],
  // GitHub Copilot's agent tools (its VS Code agent names them the same).
  tools: {
    create: ['create_file'], edit: ['replace_string_in_file', 'multi_replace_string_in_file', 'insert_edit_into_file', 'edit_notebook_file'],
    read: ['read_file'], command: ['run_in_terminal'],
  },
  sniff(input) {
    if (input.shape === 'json') return isLegacySession(input.value) ? 0.96 : 0;
    if (input.shape !== 'jsonl') return 0;
    const head = input.records.slice(0, 20).map((r) => r.value);
    const events = head.filter(isEvent) as Event[];
    if (events.length === 0 || events.length / head.length < 0.8) return 0;
    return events.some((e) => e.type === 'session.start' || e.type === 'user.message' || e.type === 'assistant.message') ? 0.97 : 0.7;
  },
  parse(input, ctx) {
    if (input.shape === 'json') return parseLegacy(input.value as Event, ctx.fileName);
    const records = jsonlRecordsOf(input);
    return parseEvents(records, ctx);
  },
};

function parseEvents(records: JsonlRecord[], ctx: ParseContext) {
  const { fileName, warnings } = ctx;
  const b = new StepBuilder();
  const meta: TrajectoryMeta = { agent: 'copilot-cli' };
  const calls = new Map<string, Step>();
  const usages: RecordedUsage[] = [];
  /** Tool calls that ran inside a subagent (a `task` call) carry their parent call's id. */
  const branchOf = (data: Event) => {
    const parent = stringOrUndefined(data.parentToolCallId);
    return parent ? calls.get(parent)?.tool?.name ?? 'subagent' : undefined;
  };
  let lastOutput: Step | undefined;
  /** The system prompt each thread last logged: Copilot logs it again before every request. */
  const systemPrompts = new Map<string, string>();
  const byModel = new Map<string, RecordedUsage>();
  let lastShutdown: { line: number; steps: number } | undefined;
  let shutdowns = 0;
  for (const { value, line } of records) {
    if (!isEvent(value)) continue;
    const e = value as Event;
    const data = isRecord(e.data) ? e.data : {};
    const base: Base = { location: { line } as SourceLocation, timestamp: stringOrUndefined(e.timestamp), sourceId: stringOrUndefined(e.id), label: String(e.type), branch: branchOf(data) };
    switch (e.type) {
      case 'session.start':
        meta.sessionId = stringOrUndefined(data.sessionId);
        meta.version = stringOrUndefined(data.copilotVersion);
        meta.model ??= stringOrUndefined(data.selectedModel);
        setExtra(meta, 'cwd', stringOrUndefined(obj(data, 'context').cwd));
        skipRecord(ctx, 'session.start (session info)', base.location);
        break;
      case 'session.model_change':
        meta.model = stringOrUndefined(data.newModel) ?? meta.model;
        skipRecord(ctx, 'session.model_change (the model from here on)', base.location);
        break;
      case 'system.message': {
        // The prompt a request is sent with, logged before each one: the same text again is the same
        // context, not more of it. A changed prompt is a new step (it replaced the old one; counted as added).
        const text = textOf(data.content);
        const again = systemPrompts.get(base.branch ?? '') === text;
        systemPrompts.set(base.branch ?? '', text);
        b.add({ ...base, kind: 'system', text, ...(again ? { resent: true as const, label: 'system.message (the same prompt again)' } : {}) });
        break;
      }
      case 'abort': {
        // The turn was stopped before it finished; `user_initiated` is the person pressing Esc.
        const reason = stringOrUndefined(data.reason) ?? 'unknown reason';
        const byPerson = reason === 'user_initiated';
        b.add({ ...base, kind: 'environment', text: `abort: ${reason}`, label: byPerson ? INTERRUPTED_LABEL : labelWith('aborted', reason), ...(byPerson ? { interruption: true as const } : {}) });
        break;
      }
      case 'user.message': {
        b.closeOpenCalls();
        const typed = textOf(data.content);
        const sent = textOf(data.transformedContent);
        if (typed.trim() === '' && sent.trim() !== '') {
          // Nothing typed, yet something sent: the client wrote it (autopilot's "You have not yet marked the task as complete").
          const words = sent.replace(/<current_datetime>[^<]*<\/current_datetime>/g, '').trim().split('\n', 1)[0];
          b.add({ ...base, kind: 'environment', text: sent, label: labelWith('sent by the client', words.slice(0, 80)) });
          break;
        }
        b.add({ ...base, kind: base.branch ? 'other' : 'user', text: typed });
        break;
      }
      case 'assistant.reasoning':
        b.add({ ...base, kind: 'thought', text: textOf(data.content), label: 'reasoning' });
        break;
      case 'assistant.message': {
        const added = addAssistantMessage(b, data, base, calls);
        if (!added) skipRecord(ctx, 'assistant.message (calls already started)', base.location);
        lastOutput = added ?? lastOutput;
        meta.model ??= stringOrUndefined(data.model);
        break;
      }
      case 'tool.execution_start': {
        // Older sessions have no toolRequests on the message: the call is known from here.
        const id = stringOrUndefined(data.toolCallId);
        if (id && !calls.has(id)) {
          const args = argsOf(data.arguments ?? {});
          lastOutput = b.add({ ...base, kind: 'tool_call', text: args, tool: { name: String(data.toolName ?? 'tool'), args, callId: id } });
          calls.set(id, lastOutput);
        } else skipRecord(ctx, 'tool.execution_start (of a call the request already named)', base.location);
        break;
      }
      case 'tool.execution_complete': {
        const result = obj(data, 'result');
        const error = obj(data, 'error');
        const failed = data.success === false;
        const text = failed && Object.keys(error).length > 0 ? textOf(error.message ?? error) : textOf(result.content ?? result.detailedContent ?? '');
        b.add({ ...base, kind: 'tool_result', text, isError: failed ? true : undefined, tool: { name: '', args: '', callId: stringOrUndefined(data.toolCallId) } });
        // Copilot 1.0 names the model that made the call here, and nowhere else in some sessions.
        meta.model ??= stringOrUndefined(data.model);
        break;
      }
      case 'assistant.usage': {
        // One API call's bill; `inputTokens` already counts cache reads and writes (the shutdown totals show it).
        const usage = recordedUsage({ model: stringOrUndefined(data.model), input: num(data.inputTokens), output: num(data.outputTokens), cacheRead: num(data.cacheReadTokens), cacheWrite: num(data.cacheWriteTokens), cost: num(data.cost) });
        if (usage) {
          usages.push(usage);
          if (lastOutput && lastOutput.usage?.inputTokens === undefined) lastOutput.usage = usage;
        }
        break;
      }
      case 'session.compaction_complete': {
        if (data.success === false) break;
        const summary = stringOrUndefined(data.summaryContent);
        b.add({ ...base, kind: 'compaction', text: summary ?? 'conversation compacted', compaction: { summary, trigger: 'compaction', tokensBefore: num(data.preCompactionTokens) } });
        b.closeOpenCalls();
        break;
      }
      case 'session.truncation':
        b.add({ ...base, kind: 'compaction', text: `${String(data.messagesRemovedDuringTruncation ?? '?')} messages removed to fit ${String(data.tokenLimit ?? '?')} tokens`, compaction: { trigger: 'truncation', tokensBefore: num(data.preTruncationTokensInMessages) } });
        b.closeOpenCalls();
        break;
      case 'session.shutdown':
        // Each shutdown counts its own process's calls (a resumed session starts its counts anew).
        for (const part of shutdownTotals(data)) byModel.set(part.model!, sumUsage([byModel.get(part.model!), part])!);
        lastShutdown = { line, steps: b.steps.length };
        shutdowns++;
        meta.unshownPrompt = unshownPromptOf(data) ?? meta.unshownPrompt;
        skipRecord(ctx, 'session.shutdown (totals)', base.location);
        break;
      case 'session.error':
      case 'session.info':
      case 'session.warning':
        b.add({ ...base, kind: 'other', text: textOf(data.message ?? data) });
        break;
      default:
        // Turn boundaries, hooks, deltas, permissions: bookkeeping the model never saw.
        skipRecord(ctx, String(e.type), base.location);
        break;
    }
  }
  if (byModel.size > 0) {
    meta.recorded = sumUsage([...byModel.values()]);
    if (byModel.size > 1) meta.recordedByModel = [...byModel.values()];
    // Calls after the last shutdown (the session resumed, or is still open) are in no total.
    const after = b.steps.slice(lastShutdown!.steps).filter((s) => s.kind === 'assistant' || s.kind === 'tool_call' || s.kind === 'thought').length;
    if (after > 0) meta.recordedPart = { steps: lastShutdown!.steps, why: `the log's totals are its ${shutdowns === 1 ? 'session.shutdown event' : `${shutdowns} session.shutdown events`}, and the ${after} steps the agent took after line ${lastShutdown!.line} ended with none, so their usage is in no recorded total` };
  }
  meta.recorded ??= sumUsage(usages);
  const steps = b.finish();
  linkProcessCalls(steps, ASYNC_SHELLS);
  if (records.length > 0 && steps.length === 0) warnings.push({ message: 'No messages or tool calls were found in this Copilot session.' });
  return { title: titleFromSteps(steps, `Copilot CLI session ${String(meta.sessionId ?? fileName)}`), steps, meta };
}

/**
 * What a shutdown counts of the prompt the log does not hold: `systemTokens` and
 * `toolDefinitionsTokens` (beside `conversationTokens`, which the log does hold).
 */
function unshownPromptOf(data: Record<string, unknown>): TrajectoryMeta['unshownPrompt'] {
  const system = num(data.systemTokens) ?? 0;
  const tools = num(data.toolDefinitionsTokens) ?? 0;
  if (system + tools <= 0) return undefined;
  return { tokens: system + tools, from: `the system prompt (${system.toLocaleString('en-US')}) and tool definitions (${tools.toLocaleString('en-US')}) Copilot's session.shutdown records` };
}

/**
 * Copilot's shells that outlive their call: the call's result says `<command with shellId: 7 is
 * still running after 60 seconds…>`, and later calls that name `shellId: "7"` (read_powershell,
 * read_bash, write_…, stop_…) read or drive that process: they continue the first call
 * (`Step.continues`), so its command is told with their output and exit code. An id is free
 * again once a read says its command exited.
 */
const ASYNC_SHELLS: ProcessIds = {
  argument: 'shellId',
  running: (text) => /<command with shellId: ([^\s>]+) is still running/.exec(text.slice(0, 300))?.[1],
  exited: (text) => /<command with id: [^\s>]+ exited with exit code -?\d+>/.test(text.slice(-300)),
};

function addAssistantMessage(b: StepBuilder, data: Event, base: Base, calls: Map<string, Step>): Step | undefined {
  const requests = Array.isArray(data.toolRequests) ? data.toolRequests.filter(isRecord) : [];
  const reasoning = stringOrUndefined(data.reasoningText);
  const text = textOf(data.content);
  let last: Step | undefined;
  if (reasoning) last = b.add({ ...base, kind: 'thought', text: reasoning, label: 'reasoning' });
  if (text || (requests.length === 0 && !reasoning)) last = b.add({ ...base, kind: requests.length > 0 ? 'thought' : 'assistant', text });
  for (const r of requests) {
    const args = argsOf(r.arguments ?? {});
    const id = stringOrUndefined(r.toolCallId);
    // A call whose tool.execution_start came first is already a step: the request names the same call.
    if (id && calls.has(id)) continue;
    last = b.add({ ...base, kind: 'tool_call', text: args, label: 'tool request', tool: { name: String(r.name ?? 'tool'), args, callId: id } });
    if (id) calls.set(id, last);
  }
  // The message names its own output tokens; a later assistant.usage event adds the input side.
  const output = num(data.outputTokens);
  if (last && output !== undefined) last.usage = recordedUsage({ model: stringOrUndefined(data.model), output });
  return last;
}

/** A shutdown's totals, one per model, each naming its model (tokens include cache reads and writes). */
function shutdownTotals(data: Event): RecordedUsage[] {
  const metrics = obj(data, 'modelMetrics');
  return Object.entries(metrics).flatMap(([model, m]) => {
    const u = obj(m, 'usage');
    const usage = recordedUsage({ model, input: num(u.inputTokens), output: num(u.outputTokens), cacheRead: num(u.cacheReadTokens), cacheWrite: num(u.cacheWriteTokens) });
    return usage ? [{ ...usage, model }] : [];
  });
}

function parseLegacy(doc: Event, fileName: string) {
  const b = new StepBuilder();
  (doc.chatMessages as unknown[]).forEach((m, i) => {
    if (isChatMessage(m)) addChatMessage(b, m, { location: { pointer: pointerOf('chatMessages', i) } });
  });
  const steps = b.finish();
  const meta: TrajectoryMeta = { agent: 'copilot-cli', sessionId: stringOrUndefined(doc.sessionId), startTime: stringOrUndefined(doc.startTime) };
  return { title: titleFromSteps(steps, `Copilot CLI session ${String(meta.sessionId ?? fileName)}`), steps, meta };
}
