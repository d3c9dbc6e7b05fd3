import type { RecordedUsage, Step, TrajectoryMeta } from '../model';
import { isRecord, StepBuilder } from '../steps';
import type { FormatAdapter, JsonlRecord, ParsedInput } from './adapter';
import { skipRecord } from './adapter';
import { INTERRUPTED_LABEL, labelWith } from './injected';
import { looksLikeSdkStream, parseSdkStream } from './agentSdkStream';
import { anthropicUsage, blocksText } from './anthropicBlocks';
import { stringOrUndefined, titleFromSteps } from './chatMessages';
import { obj, sumUsage } from './usage';
import { recordListOf } from './recordArray';
import { imagesOf } from './images';

// Claude Managed Agents (and Agent SDK) session event streams: one event per line (or the list
// endpoint's `{data: [...]}`), typed `{domain}.{action}`: `user.message`, `agent.message`,
// `agent.thinking`, `agent.tool_use` / `agent.tool_result` (and their `mcp_` and `custom_`
// forms, the custom result sent back as `user.custom_tool_result`), `span.model_request_end`
// with the request's `model_usage`, `session.*` status and errors. Results name the call they
// answer (`tool_use_id`, `mcp_tool_use_id`, `custom_tool_use_id`); events of another thread
// (`session_thread_id`, a sub-agent) are its branch. The Agent SDK's own messages logged as
// `{type, message, timestamp}` lines are read by `agentSdkStream.ts`.

type Event = Record<string, unknown>;
const EVENT_TYPE = /^(user|agent|session|span|system)\.[a-z_]+$/;

/** The events, the first `limit` of them when given (sniffing looks at a few, and a log may hold millions). */
function eventsOf(input: ParsedInput, limit?: number): JsonlRecord[] {
  if (input.shape === 'jsonl') return (limit === undefined ? input.records : input.records.slice(0, limit)).map(unwrapped);
  if (input.shape !== 'json') return [];
  const v = input.value;
  const list = Array.isArray(v) ? v : isRecord(v) && Array.isArray(v.data) ? v.data : [];
  return list.slice(0, limit).map((value) => unwrapped({ value, line: 0 }));
}

/** An export that wraps each event as `{role, kind, time, raw}` (a harness's transcript): the event is `raw`. */
function unwrapped(r: JsonlRecord): JsonlRecord {
  const raw = isRecord(r.value) ? r.value.raw : undefined;
  return isEvent(raw) && !isEvent(r.value) ? { ...r, value: raw } : r;
}

/** Agent SDK messages a host logged one per line, or kept as a JSON array. */
function lineShaped(input: ParsedInput): boolean {
  return input.shape === 'jsonl' || (input.shape === 'json' && Array.isArray(input.value));
}

function isEvent(v: unknown): v is Event {
  return isRecord(v) && typeof v.type === 'string' && EVENT_TYPE.test(v.type);
}

export const anthropicManagedAgentsAdapter: FormatAdapter = {
  id: 'anthropic-managed-agents',
  label: 'Claude Managed Agents session events',
  fileNames: ['*.jsonl', '*.json'],
  sniff(input) {
    const head = eventsOf(input, 30).map((r) => r.value);
    if (lineShaped(input) && looksLikeSdkStream(head)) return 0.9;
    const events = head.filter(isEvent);
    if (events.length < 2 || events.length < head.length * 0.8) return 0;
    const agentOrUser = events.some((e) => /^(agent|user)\./.test(String(e.type)));
    const stamped = events.some((e) => 'processed_at' in e || (typeof e.id === 'string' && e.id.startsWith('sevt_')));
    return agentOrUser ? (stamped ? 0.96 : 0.85) : 0;
  },
  parse(input, ctx) {
    if (lineShaped(input) && looksLikeSdkStream(eventsOf(input, 30).map((r) => r.value))) {
      const list = recordListOf(input);
      return parseSdkStream(list.records, ctx, list.where);
    }
    const b = new StepBuilder();
    const meta: TrajectoryMeta = { agent: 'claude-managed-agents' };
    let mainThread: string | undefined;
    let lastAgentStep: Step | undefined;
    const usages = [];
    // The session's own running totals (`session.usage`): the grader's requests are in them too.
    let sessionTotals: RecordedUsage | undefined;
    for (const { value, line } of eventsOf(input)) {
      if (!isEvent(value)) continue;
      const type = String(value.type);
      const thread = stringOrUndefined(value.session_thread_id) ?? stringOrUndefined(value.thread_id);
      if (thread && !mainThread && type === 'user.message') mainThread = thread;
      const base: Omit<Step, 'index' | 'turn' | 'kind' | 'text'> = { label: type, timestamp: stringOrUndefined(value.processed_at) ?? stringOrUndefined(value.created_at) };
      if (line) base.location = { line };
      if (typeof value.id === 'string') base.sourceId = value.id;
      if (thread && mainThread && thread !== mainThread) base.branch = thread;
      meta.sessionId ??= stringOrUndefined(value.session_id);
      const content = value.content;
      switch (type) {
        case 'user.message':
          if (!base.branch) b.closeOpenCalls();
          b.add({ ...base, kind: base.branch ? 'other' : 'user', text: blocksText(content), ...imagesOf(content) });
          break;
        case 'user.define_outcome': {
          // The outcome the person set: the task, with the rubric a grader holds the work to.
          const rubric = isRecord(value.rubric) ? blocksText(value.rubric.content) : typeof value.rubric === 'string' ? value.rubric : '';
          b.closeOpenCalls();
          b.add({ ...base, kind: 'user', text: [String(value.description ?? ''), rubric && `Rubric:\n${rubric}`].filter(Boolean).join('\n\n') });
          break;
        }
        case 'user.interrupt':
          b.add({ ...base, kind: 'environment', text: 'interrupted', label: INTERRUPTED_LABEL, interruption: true });
          break;
        case 'span.outcome_evaluation_end':
          // The grader's verdict on the outcome: what the run came to.
          b.add({ ...base, kind: 'other', text: String(value.explanation ?? ''), label: labelWith('outcome evaluation', stringOrUndefined(value.result)) });
          break;
        case 'session.usage': {
          const u = obj(value, 'usage');
          sessionTotals = anthropicUsage(u, meta.model) ?? sessionTotals;
          skipRecord(ctx, "session.usage (the session's totals)", base.location);
          break;
        }
        case 'system.message':
          b.add({ ...base, kind: 'system', text: blocksText(content) });
          break;
        case 'agent.message':
          lastAgentStep = b.add({ ...base, kind: 'assistant', text: blocksText(content) });
          break;
        case 'agent.thinking':
          lastAgentStep = b.add({ ...base, kind: 'thought', text: blocksText(content ?? value.thinking) || '[thinking]' });
          break;
        case 'agent.tool_use':
        case 'agent.mcp_tool_use':
        case 'agent.custom_tool_use': {
          const args = JSON.stringify(value.input ?? {});
          const server = stringOrUndefined(value.mcp_server_name);
          lastAgentStep = b.add({ ...base, kind: 'tool_call', text: args, tool: { name: `${server ? server + '.' : ''}${String(value.name ?? 'tool')}`, args, callId: stringOrUndefined(value.id) } });
          break;
        }
        case 'agent.tool_result':
        case 'agent.mcp_tool_result':
        case 'user.custom_tool_result': {
          const callId = stringOrUndefined(value.tool_use_id) ?? stringOrUndefined(value.mcp_tool_use_id) ?? stringOrUndefined(value.custom_tool_use_id);
          b.add({ ...base, kind: 'tool_result', text: blocksText(content), isError: value.is_error === true ? true : undefined, tool: { name: '', args: '', callId }, ...imagesOf(content) });
          break;
        }
        case 'agent.thread_context_compacted':
          b.add({ ...base, kind: 'compaction', text: 'context compacted', compaction: {} });
          b.closeOpenCalls();
          break;
        case 'span.model_request_end': {
          const model = stringOrUndefined(value.model) ?? stringOrUndefined(obj(value, 'model_usage').model);
          const usage = anthropicUsage(value.model_usage ?? value.usage, model);
          if (usage) {
            if (usage.model === undefined) delete usage.model;
            usages.push(usage);
            if (lastAgentStep && !lastAgentStep.usage) lastAgentStep.usage = usage;
          }
          if (model) meta.model ??= model;
          lastAgentStep = undefined;
          skipRecord(ctx, 'span.model_request_end (its usage, on the step it paid for)', base.location);
          break;
        }
        case 'session.error':
          b.add({ ...base, kind: 'other', text: String(obj(value, 'error').message ?? blocksText(content) ?? ''), isError: true });
          break;
        default:
          // Status changes, spans without usage, deltas: bookkeeping the model never saw.
          if (/^(?:session|span)\./.test(type)) skipRecord(ctx, `${type} (status or timing)`, base.location);
          break;
      }
    }
    const recorded = sessionTotals ?? sumUsage(usages);
    if (recorded) meta.recorded = recorded;
    const steps = b.finish();
    if (steps.length === 0) ctx.warnings.push({ message: `${ctx.fileName}: no agent or user events in this session stream.` });
    return { title: titleFromSteps(steps, `Managed Agents session ${String(meta.sessionId ?? ctx.fileName)}`), steps, meta };
  },
};
