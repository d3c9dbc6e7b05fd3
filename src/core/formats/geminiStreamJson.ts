import type { Step, TrajectoryMeta } from '../model';
import { argsOf, isRecord, StepBuilder } from '../steps';
import type { JsonlRecord, ParseContext, ParsedTrajectory } from './adapter';
import { skipRecord } from './adapter';
import { stringOrUndefined, titleFromSteps } from './chatMessages';
import { num, obj, recordedUsage } from './usage';
import { extraOf, setExtra } from '../meta';

// Gemini CLI headless output, `gemini -p … --output-format stream-json`: one event per line,
// `init` (session id, model), `message` (user and assistant text, assistant replies in `delta`
// chunks), `tool_use` (`tool_id`, `tool_name`, `parameters`), `tool_result` (`tool_id`, `status`,
// `output` or `error`), `error`, and a closing `result` with the run's token counts.

type Event = Record<string, unknown>;
const EVENT_TYPES = new Set(['init', 'message', 'tool_use', 'tool_result', 'error', 'result']);

/** Whether the first records are stream-json events: an `init` with a session id, or typed events with tool ids. */
export function looksLikeGeminiStreamJson(head: readonly unknown[]): boolean {
  const events = head.filter((v): v is Event => isRecord(v) && typeof v.type === 'string' && EVENT_TYPES.has(v.type));
  if (events.length === 0 || events.length < head.filter(isRecord).length * 0.8) return false;
  const init = events.find((e) => e.type === 'init');
  if (init && typeof init.session_id === 'string' && 'model' in init) return true;
  return events.some((e) => e.type === 'tool_use' && typeof e.tool_id === 'string' && typeof e.tool_name === 'string');
}

/**
 * A file a harness appended several headless runs to holds one `init` per run, each with its own
 * session id: each is a run of its own, with its own `result` (or none, when it was cut off), so
 * that a run's recorded usage is never set against another's steps.
 */
export function parseGeminiStreamJson(records: readonly JsonlRecord[], fileName: string, ctx?: ParseContext): ParsedTrajectory {
  const sessions: JsonlRecord[][] = [];
  let current: JsonlRecord[] = [];
  let session: string | undefined;
  for (const r of records) {
    const id = isRecord(r.value) && r.value.type === 'init' ? stringOrUndefined(r.value.session_id) : undefined;
    if (id !== undefined && session !== undefined && id !== session && current.some((x) => isRecord(x.value) && x.value.type !== 'init')) {
      sessions.push(current);
      current = [];
    }
    if (id !== undefined) session = id;
    current.push(r);
  }
  sessions.push(current);
  const runs = sessions.map((group) => parseSession(group, fileName, ctx));
  if (runs.length === 1) return runs[0];
  return { title: `Gemini CLI: ${runs.length} runs`, steps: [], runs, meta: { agent: 'gemini-cli', model: runs[runs.length - 1].meta?.model } };
}

function parseSession(records: readonly JsonlRecord[], fileName: string, ctx: ParseContext | undefined): ParsedTrajectory {
  const b = new StepBuilder();
  const meta: TrajectoryMeta = { agent: 'gemini-cli', extra: extraOf({ outputFormat: 'stream-json' }) };
  // Assistant chunks (`delta: true`) of one reply are joined into one step.
  let reply: Step | undefined;
  for (const { value, line } of records) {
    if (!isRecord(value)) continue;
    const base = { location: { line }, timestamp: stringOrUndefined(value.timestamp) };
    switch (value.type) {
      case 'init':
        meta.sessionId ??= stringOrUndefined(value.session_id);
        meta.model ??= stringOrUndefined(value.model);
        if (ctx) skipRecord(ctx, 'init (session and model)', base.location);
        break;
      case 'message': {
        const text = typeof value.content === 'string' ? value.content : '';
        if (value.role === 'user') {
          reply = undefined;
          b.closeOpenCalls();
          b.add({ ...base, kind: 'user', text, label: 'message' });
        } else if (reply && value.delta === true) {
          reply.text += text;
          if (ctx) skipRecord(ctx, 'message delta (joined to its reply)', base.location);
        } else {
          reply = b.add({ ...base, kind: 'assistant', text, label: 'message', ...(meta.model ? { model: meta.model as string } : {}) });
        }
        break;
      }
      case 'tool_use': {
        reply = undefined;
        const args = argsOf(value.parameters ?? {});
        b.add({ ...base, kind: 'tool_call', text: args, label: 'tool_use', tool: { name: String(value.tool_name ?? 'tool'), args, callId: stringOrUndefined(value.tool_id) } });
        break;
      }
      case 'tool_result': {
        reply = undefined;
        const error = obj(value, 'error');
        const failed = value.status === 'error' || Object.keys(error).length > 0;
        const text = typeof value.output === 'string' ? value.output : stringOrUndefined(error.message) ?? argsOf(value.output ?? '');
        b.add({ ...base, kind: 'tool_result', text, label: 'tool_result', isError: failed ? true : undefined, tool: { name: '', args: '', callId: stringOrUndefined(value.tool_id) } });
        break;
      }
      case 'error':
        reply = undefined;
        b.add({ ...base, kind: 'other', text: String(value.message ?? ''), label: `error${value.severity ? ` (${String(value.severity)})` : ''}`, isError: value.severity === 'warning' ? undefined : true });
        break;
      case 'result': {
        const stats = obj(value, 'stats');
        const input = num(stats.input_tokens);
        const usage = recordedUsage({ model: meta.model, input, output: num(stats.output_tokens), cacheRead: num(stats.cached) });
        if (usage) meta.recorded = usage;
        if (typeof value.status === 'string') setExtra(meta, 'status', value.status);
        if (ctx) skipRecord(ctx, "result (the run's usage)", base.location);
        break;
      }
      default:
        break;
    }
  }
  const steps = b.finish();
  return { title: titleFromSteps(steps, `Gemini CLI run ${String(meta.sessionId ?? fileName)}`), steps, meta };
}
