import { SHOWN_TEXT_LABEL, type SourceLocation, type Step, type TrajectoryMeta } from '../model';
import { setExtra } from '../meta';
import { argsOf, isRecord, StepBuilder, textOf } from '../steps';
import type { FormatAdapter } from './adapter';
import { jsonlRecordsOf, skipRecord } from './adapter';
import { stringOrUndefined, titleFromSteps } from './chatMessages';
import { num, obj, recordedUsage } from './usage';

// Cursor's CLI agent, `cursor-agent -p --output-format stream-json` (2026): one event a line. A
// `system`/`init` record (model, cwd, session), `user` and `assistant` messages, the model's
// thinking as `thinking` deltas (then `completed`), each tool call `started` and `completed` under
// its `call_id` (the tool is the one key of `tool_call`, `shellToolCall` and the like, with its
// `args` and, once completed, a `result` whose `success` holds what it returned and a shell's
// `exitCode`), and a closing `result`. Claude Code's stream-json has the same init, messages and
// result, so Cursor's own records tell the two apart.

type Rec = Record<string, unknown>;

/** Records only Cursor writes: a tool call event, thinking deltas, its init's fields. */
function isCursorOnly(v: unknown): boolean {
  if (!isRecord(v)) return false;
  if (v.type === 'tool_call' && isRecord(v.tool_call) && typeof v.call_id === 'string') return true;
  if (v.type === 'thinking' && (v.subtype === 'delta' || v.subtype === 'completed')) return true;
  return v.type === 'system' && v.subtype === 'init' && 'apiKeySource' in v && 'permissionMode' in v && !('tools' in v);
}

/** A stream Cursor's CLI wrote: Claude Code's reader declines it. */
export function looksLikeCursorStream(head: readonly unknown[]): boolean {
  return head.some(isCursorOnly);
}

export const cursorAgentAdapter: FormatAdapter = {
  id: 'cursor-agent',
  label: "Cursor CLI agent's stream-json",
  fileNames: ['*.jsonl'],
  tools: { command: ['shell'], read: ['read'], edit: ['edit'], create: ['write'] },
  sniff(input) {
    if (input.shape !== 'jsonl') return 0;
    const head = input.records.slice(0, 40).map((r) => r.value);
    return looksLikeCursorStream(head) && head.some((v) => isRecord(v) && (v.type === 'user' || v.type === 'assistant' || v.type === 'tool_call')) ? 0.98 : 0;
  },
  parse(input, ctx) {
    const b = new StepBuilder();
    b.linksByIdOnly = true;
    const meta: TrajectoryMeta = { agent: 'cursor-agent' };
    let thought: Step | undefined;
    for (const { value: v, line } of jsonlRecordsOf(input)) {
      const location: SourceLocation = { line };
      if (!isRecord(v)) { skipRecord(ctx, 'line (not a Cursor event)', location); continue; }
      const timestamp = typeof v.timestamp_ms === 'number' ? new Date(v.timestamp_ms).toISOString() : undefined;
      const base = { location, ...(timestamp ? { timestamp } : {}) };
      if (v.type === 'thinking') {
        // Deltas of one thought arrive one a record: the first makes the step, the rest add to it.
        if (v.subtype === 'delta') {
          const text = typeof v.text === 'string' ? v.text : '';
          if (thought) { thought.text += text; skipRecord(ctx, 'thinking delta (read into the thought it continues)', location); }
          else thought = b.add({ ...base, kind: 'thought', text, label: 'thinking' });
        } else {
          thought = undefined;
          skipRecord(ctx, `thinking ${String(v.subtype ?? '')} (the end of a thought)`.trim(), location);
        }
        continue;
      }
      thought = undefined;
      switch (v.type) {
        case 'system':
          meta.model ??= stringOrUndefined(v.model);
          meta.sessionId ??= stringOrUndefined(v.session_id);
          setExtra(meta, 'cwd', stringOrUndefined(v.cwd));
          skipRecord(ctx, 'system init (model, folder, session)', location);
          break;
        case 'user':
          b.closeOpenCalls();
          b.add({ ...base, kind: 'user', text: textOf(obj(v, 'message').content) });
          break;
        case 'assistant':
          b.add({ ...base, kind: 'assistant', text: textOf(obj(v, 'message').content), ...(typeof v.model_call_id === 'string' ? { sourceId: v.model_call_id } : {}) });
          break;
        case 'tool_call':
          addToolEvent(b, v, base, () => skipRecord(ctx, `tool_call ${String(v.subtype)}`, location));
          break;
        case 'result': {
          // The run's end: how long it took, whether it failed, and (newer CLIs) its usage.
          const usage = obj(v, 'usage');
          const recorded = recordedUsage({ model: meta.model, input: num(usage.inputTokens ?? usage.input_tokens), output: num(usage.outputTokens ?? usage.output_tokens), cacheRead: num(usage.cacheReadTokens ?? usage.cache_read_input_tokens), cacheWrite: num(usage.cacheWriteTokens ?? usage.cache_creation_input_tokens) });
          if (recorded) meta.recorded = recorded;
          if (v.is_error === true) b.add({ ...base, kind: 'other', text: String(v.result ?? v.error ?? 'the run failed'), label: 'run failed', isError: true });
          else skipRecord(ctx, 'result (run summary)', location);
          break;
        }
        default:
          skipRecord(ctx, `${String(v.type)}${v.subtype ? `/${String(v.subtype)}` : ''}`, location);
      }
    }
    const steps = b.finish();
    return { title: titleFromSteps(steps, ctx.fileName), steps, meta };
  },
};

/** A tool call's start (the call) or its completion (its result), paired by `call_id`. */
function addToolEvent(b: StepBuilder, v: Rec, base: { location: SourceLocation; timestamp?: string }, skip: () => void): void {
  const call = isRecord(v.tool_call) ? v.tool_call : {};
  const key = Object.keys(call).find((k) => isRecord(call[k]));
  if (!key) { skip(); return; }
  const body = call[key] as Rec;
  // `shellToolCall` is the shell; an MCP tool comes as `function` with its own name.
  const fn = key === 'function' ? body : undefined;
  const name = fn ? String(fn.name ?? 'tool') : key.replace(/ToolCall$/, '') || key;
  const callId = String(v.call_id);
  const args = fn ? argsOf(fn.arguments ?? {}) : argsOf(withoutBookkeeping(obj(body, 'args')));
  if (v.subtype === 'started') {
    // Text the same model call wrote before its calls was shown between them, not its answer.
    const last = b.steps[b.steps.length - 1];
    if (last?.kind === 'assistant' && typeof v.model_call_id === 'string' && last.sourceId === v.model_call_id) Object.assign(last, { kind: 'thought', label: SHOWN_TEXT_LABEL });
    b.add({ ...base, kind: 'tool_call', text: args, label: key, tool: { name, args, callId } });
    return;
  }
  if (v.subtype !== 'completed') { skip(); return; }
  const result = obj(body, 'result');
  const success = isRecord(result.success) ? result.success : undefined;
  const failureKey = Object.keys(result).find((k) => k !== 'success' && isRecord(result[k]));
  const exitCode = num(success?.exitCode);
  const text = success ? successText(success) : failureKey ? failureText(failureKey, result[failureKey] as Rec) : textOf(result);
  b.add({
    ...base, kind: 'tool_result', text, toolName: name, tool: { name: '', args: '', callId },
    ...(exitCode !== undefined ? { exitCode } : {}),
    // Anything but `success` is the tool's own failure (an error, a rejection by the person).
    ...(!success && failureKey ? { isError: true as const } : {}),
  });
}

/** What a call that went through returned: a shell's output as it interleaved, else its text fields. */
function successText(s: Rec): string {
  if (typeof s.interleavedOutput === 'string' && s.interleavedOutput !== '') return s.interleavedOutput;
  if (typeof s.stdout === 'string' || typeof s.stderr === 'string') return [s.stdout, s.stderr].filter((x) => typeof x === 'string' && x !== '').join('\n');
  for (const k of ['content', 'output', 'text', 'message', 'diffString']) if (typeof s[k] === 'string') return s[k] as string;
  return JSON.stringify(withoutBookkeeping(s));
}

function failureText(kind: string, f: Rec): string {
  const message = [f.error, f.message, f.reason, f.stderr].find((x) => typeof x === 'string' && x !== '');
  return `${kind}${message ? `: ${String(message)}` : `: ${JSON.stringify(f)}`}`;
}

/** Cursor's own fields beside a call's arguments (its parse of a command, ids, thresholds): not what the model asked. */
function withoutBookkeeping(args: Rec): Rec {
  const { toolCallId: _id, parsingResult: _parse, simpleCommands: _simple, fileOutputThresholdBytes: _threshold, hasInputRedirect: _in, hasOutputRedirect: _out, skipApproval: _skip, timeoutBehavior: _timeout, ...rest } = args;
  return rest;
}
