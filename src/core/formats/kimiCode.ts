import type { RecordedUsage, SourceLocation, Step, TrajectoryMeta } from '../model';
import { argsOf, isRecord, StepBuilder, textOf } from '../steps';
import type { FormatAdapter } from './adapter';
import { jsonlRecordsOf, skipRecord } from './adapter';
import { stringOrUndefined, titleFromSteps } from './chatMessages';
import { labelWith } from './injected';
import { num, recordedUsage, sumUsage } from './usage';

// Kimi Code CLI's session log (its wire protocol, `{type: "metadata", protocol_version}` first): the
// messages appended to the context (`context.append_message`, the person's or the client's by
// `origin.kind`), the agent loop's events (`context.append_loop_event`: `step.begin`, `content.part`
// think or text, `tool.call`, `tool.result` with `isError`, `step.end` with that model call's
// usage), the model each request went to (`llm.request`), the summary a compaction applied, and
// the system prompt (`config.update`). `turn.prompt` and `usage.record` repeat what those hold.

type Rec = Record<string, unknown>;

const KNOWN = /^(?:metadata|config\.update|tools\.set_active_tools|llm\.(?:request|tools_snapshot)|turn\.prompt|context\.(?:append_message|append_loop_event|apply_compaction)|usage\.record|permission\.[\w.]+|plan_mode\.\w+|full_compaction\.\w+)$/;

/** Kimi's usage: `inputOther` (fresh) + cache reads + cache writes is the whole prompt. */
function usageOf(u: unknown, model: string | undefined): RecordedUsage | undefined {
  if (!isRecord(u)) return undefined;
  const fresh = num(u.inputOther) ?? 0;
  const read = num(u.inputCacheRead) ?? 0;
  const write = num(u.inputCacheCreation) ?? 0;
  return recordedUsage({ model, input: fresh + read + write, cacheRead: read, cacheWrite: write, output: num(u.output) });
}

export const kimiCodeAdapter: FormatAdapter = {
  id: 'kimi-code',
  label: 'Kimi Code CLI session log',
  fileNames: ['*.jsonl'],
  sniff(input) {
    const head = jsonlRecordsOf(input).slice(0, 30).map((r) => r.value).filter(isRecord);
    if (!head.some((v) => v.type === 'context.append_message' || v.type === 'context.append_loop_event' || (v.type === 'metadata' && 'protocol_version' in v))) return 0;
    return head.filter((v) => typeof v.type === 'string' && KNOWN.test(v.type)).length >= head.length * 0.8 ? 0.95 : 0;
  },
  parse(input, ctx) {
    const records = jsonlRecordsOf(input);
    // Loop steps that call a tool: their text is narration before the calls, not the answer.
    const calling = new Set<string>();
    for (const r of records) {
      const e = isRecord(r.value) && isRecord(r.value.event) ? r.value.event : undefined;
      if (e?.type === 'tool.call' && typeof e.stepUuid === 'string') calling.add(e.stepUuid);
    }
    const b = new StepBuilder();
    const meta: TrajectoryMeta = { agent: 'kimi-code' };
    const usages: RecordedUsage[] = [];
    let model: string | undefined;
    let systemPrompt: string | undefined;
    /** The first step each model call (a loop step) wrote: its usage goes there. */
    const firstOf = new Map<string, Step>();
    let lastStepUsage: unknown;
    /** A call outside the loop (the compaction's), recorded before the step it made. */
    let pendingUsage: RecordedUsage | undefined;
    for (const r of records) {
      const v = r.value;
      const location: SourceLocation = { line: r.line };
      if (!isRecord(v) || typeof v.type !== 'string') {
        skipRecord(ctx, 'line (not a Kimi Code event)', location);
        continue;
      }
      const at = typeof v.time === 'number' ? new Date(v.time).toISOString() : undefined;
      const base = { location, ...(at ? { timestamp: at } : {}) };
      switch (v.type) {
        case 'config.update': {
          const prompt = stringOrUndefined(v.systemPrompt);
          if (prompt && prompt !== systemPrompt) {
            b.add({ ...base, kind: 'system', text: prompt, label: 'system prompt' });
            systemPrompt = prompt;
          } else skipRecord(ctx, 'config.update (settings)', location);
          break;
        }
        case 'llm.request':
          model = stringOrUndefined(v.modelAlias) ?? stringOrUndefined(v.model) ?? model;
          meta.model ??= model;
          skipRecord(ctx, 'llm.request (the model a call went to)', location);
          break;
        case 'context.append_message':
          addMessage(b, isRecord(v.message) ? v.message : {}, base);
          break;
        case 'context.append_loop_event':
          lastStepUsage = addLoopEvent(b, isRecord(v.event) ? v.event : {}, base, calling, firstOf, model, usages, (why) => skipRecord(ctx, `loop event ${why}`, location)) ?? lastStepUsage;
          break;
        case 'usage.record':
          // The loop's calls are recorded at their step.end too; a call outside the loop (a compaction's) only here.
          if (JSON.stringify(v.usage) === JSON.stringify(lastStepUsage)) skipRecord(ctx, 'usage.record (the usage its step.end recorded)', location);
          else {
            pendingUsage = usageOf(v.usage, stringOrUndefined(v.model) ?? model);
            skipRecord(ctx, 'usage.record (a call outside the loop, on the step it made)', location);
          }
          break;
        case 'context.apply_compaction': {
          const summary = textOf(v.contextSummary ?? v.summary);
          const step = b.add({ ...base, kind: 'compaction', text: summary, label: 'compaction', compaction: { summary } });
          if (pendingUsage) {
            step.usage = pendingUsage;
            usages.push(pendingUsage);
            pendingUsage = undefined;
          }
          b.closeOpenCalls();
          break;
        }
        case 'turn.prompt':
          skipRecord(ctx, 'turn.prompt (the prompt, appended as a message next)', location);
          break;
        default:
          skipRecord(ctx, `${v.type}${KNOWN.test(v.type) ? ' (bookkeeping)' : ''}`, location);
      }
    }
    const steps = b.finish();
    meta.recorded = sumUsage(usages);
    return { title: titleFromSteps(steps.filter((s) => s.kind !== 'system'), ctx.fileName), steps, meta };
  },
};

function addMessage(b: StepBuilder, m: Rec, base: { location: SourceLocation; timestamp?: string }): void {
  const text = textOf(m.content);
  const origin = isRecord(m.origin) ? m.origin : {};
  if (m.role === 'user' && origin.kind !== undefined && origin.kind !== 'user') {
    // What the client appended with the user's role: a reminder, plan mode's rules.
    b.add({ ...base, kind: 'environment', text, label: labelWith('sent by the client', String(origin.variant ?? origin.kind)) });
    return;
  }
  if (m.role === 'user') {
    b.closeOpenCalls();
    b.add({ ...base, kind: 'user', text, label: 'user' });
    return;
  }
  b.add({ ...base, kind: m.role === 'system' ? 'system' : 'other', text, label: String(m.role ?? 'message') });
}

/** One loop event's steps; returns a step.end's usage, which usage.record repeats. */
function addLoopEvent(b: StepBuilder, e: Rec, base: { location: SourceLocation; timestamp?: string }, calling: ReadonlySet<string>, firstOf: Map<string, Step>, model: string | undefined, usages: RecordedUsage[], skip: (why: string) => void): unknown {
  const stepId = stringOrUndefined(e.stepUuid);
  const note = (s: Step) => { if (stepId && !firstOf.has(stepId)) firstOf.set(stepId, s); };
  switch (e.type) {
    case 'content.part': {
      const part = isRecord(e.part) ? e.part : {};
      if (part.type === 'think') note(b.add({ ...base, kind: 'thought', text: textOf(part.think), label: 'thinking' }));
      else if (part.type === 'text') note(b.add({ ...base, kind: stepId && calling.has(stepId) ? 'thought' : 'assistant', text: textOf(part.text), ...(stepId && calling.has(stepId) ? { label: 'text' } : {}) }));
      break;
    }
    case 'tool.call': {
      const args = argsOf(e.args ?? {});
      note(b.add({ ...base, kind: 'tool_call', text: args, tool: { name: String(e.name ?? 'tool'), args, callId: stringOrUndefined(e.toolCallId) } }));
      break;
    }
    case 'tool.result': {
      const result = isRecord(e.result) ? e.result : {};
      b.add({ ...base, kind: 'tool_result', text: textOf(result.output ?? result.error ?? result), ...(result.isError === true ? { isError: true } : {}), tool: { name: '', args: '', callId: stringOrUndefined(e.toolCallId) } });
      break;
    }
    case 'step.end': {
      const usage = usageOf(e.usage, model);
      const first = stringOrUndefined(e.uuid) ? firstOf.get(String(e.uuid)) : undefined;
      if (usage) {
        usages.push(usage);
        if (first) first.usage = usage;
      }
      skip("step.end (the model call's usage, read)");
      return e.usage;
    }
    case 'step.begin':
      skip('step.begin (a model call begins)');
      break;
    default:
      skip(String(e.type ?? 'event'));
  }
  return undefined;
}
