import type { SourceLocation, TrajectoryMeta } from '../model';
import { setExtra } from '../meta';
import { argsOf, isRecord, StepBuilder, textOf } from '../steps';
import type { FormatAdapter, JsonlRecord, ParsedInput } from './adapter';
import { skipRecord } from './adapter';
import { stringOrUndefined } from './chatMessages';
import { labelWith } from './injected';
import { num, obj, recordedUsage } from './usage';

// The OpenAI Agents SDK's trace export: a `{object: "trace", id, workflow_name}` record and its
// spans, `{object: "trace.span", id, parent_id, started_at, ended_at, error, span_data: {type, …}}`,
// one a line (or a list). Span types: `agent` (name, tools, handoffs), `response` (a model call:
// its response id only, unless the exporter kept more), `generation` (a model call with input,
// output, model and usage), `function` (a tool call: name, input, output), `handoff`,
// `guardrail`, `custom`. Spans are read in the order they started; a span's `error` is its failure.

type Rec = Record<string, unknown>;

function isTraceObject(v: unknown): v is Rec {
  return isRecord(v) && (v.object === 'trace.span' || v.object === 'trace');
}

function recordsOf(input: ParsedInput): JsonlRecord[] {
  if (input.shape === 'jsonl') return input.records;
  if (input.shape === 'json') {
    const list = Array.isArray(input.value) ? input.value : isRecord(input.value) && Array.isArray(input.value.data) ? input.value.data : [];
    return list.map((value, i) => ({ value, line: i + 1 }));
  }
  return [];
}

/** The spans in the order they started (file order among equals). */
function spansInOrder(records: readonly JsonlRecord[]): { span: Rec; line: number }[] {
  const spans = records.filter((r) => isRecord(r.value) && r.value.object === 'trace.span').map((r) => ({ span: r.value as Rec, line: r.line }));
  const at = (s: Rec) => Date.parse(String(s.started_at ?? ''));
  return spans.map((s, i) => ({ ...s, i })).sort((a, b) => (at(a.span) || 0) - (at(b.span) || 0) || a.i - b.i);
}

/** A span's error as text: `{message, data}` as the SDK sets it, or whatever the exporter wrote. */
function errorText(span: Rec): string | undefined {
  const e = span.error;
  if (e === null || e === undefined) return undefined;
  return isRecord(e) ? stringOrUndefined(e.message) ?? JSON.stringify(e) : String(e);
}

export const openAiAgentsTraceAdapter: FormatAdapter = {
  id: 'openai-agents',
  label: 'OpenAI Agents SDK trace',
  fileNames: ['*.jsonl', '*.json'],
  sniff(input) {
    const head = recordsOf(input).slice(0, 20).map((r) => r.value);
    const spans = head.filter((v) => isTraceObject(v) && (v.object === 'trace' || isRecord(v.span_data)));
    return spans.length > 0 && spans.length >= head.length * 0.8 ? 0.95 : 0;
  },
  parse(input, ctx) {
    const records = recordsOf(input);
    const b = new StepBuilder();
    const meta: TrajectoryMeta = { agent: 'openai-agents' };
    let title: string | undefined;
    for (const r of records) {
      if (isRecord(r.value) && r.value.object === 'trace') {
        title ??= stringOrUndefined(r.value.workflow_name);
        meta.sessionId ??= stringOrUndefined(r.value.id);
        skipRecord(ctx, 'trace (workflow)', { line: r.line });
      }
    }
    for (const { span, line } of spansInOrder(records)) {
      const data = obj(span, 'span_data');
      const location: SourceLocation = { line };
      const base = { location, timestamp: stringOrUndefined(span.started_at), sourceId: stringOrUndefined(span.id) };
      const error = errorText(span);
      const failed = error !== undefined ? { isError: true as const } : {};
      switch (data.type) {
        case 'agent': {
          const tools = Array.isArray(data.tools) ? data.tools.map(String) : [];
          b.add({ ...base, kind: 'system', label: labelWith('agent', stringOrUndefined(data.name)), text: `${String(data.name ?? 'agent')}${tools.length ? ` (tools: ${tools.join(', ')})` : ''}`, ...failed });
          break;
        }
        case 'response':
          // A model call the trace records by its id alone: a request, with no text kept.
          b.add({ ...base, kind: 'assistant', label: 'response', text: error ?? '', ...failed });
          break;
        case 'generation': {
          const model = stringOrUndefined(data.model);
          if (model) meta.model ??= model;
          const u = obj(data, 'usage');
          const usage = recordedUsage({ model, input: num(u.input_tokens) ?? num(u.prompt_tokens), output: num(u.output_tokens) ?? num(u.completion_tokens) });
          const step = b.add({ ...base, kind: 'assistant', label: 'generation', text: error ?? textOf(data.output), ...(model ? { model } : {}), ...failed });
          if (usage) step.usage = usage;
          break;
        }
        case 'function': {
          const name = String(data.name ?? 'tool');
          const args = argsOf(data.input);
          const callId = stringOrUndefined(span.id);
          b.add({ ...base, kind: 'tool_call', label: 'function', text: args, tool: { name, args, callId } });
          const output = data.output === null || data.output === undefined ? '' : textOf(data.output);
          b.add({ ...base, timestamp: stringOrUndefined(span.ended_at) ?? base.timestamp, kind: 'tool_result', label: 'output', text: error && !output ? error : output, ...failed, ...(callId ? { tool: { name: '', args: '', callId } } : {}) });
          break;
        }
        case 'handoff':
          b.add({ ...base, kind: 'other', label: 'handoff', text: `${String(data.from_agent ?? '?')} → ${String(data.to_agent ?? '?')}`, ...failed });
          break;
        case 'guardrail':
          // A tripped guardrail stopped the run: the SDK's own flag says so.
          b.add({ ...base, kind: 'other', label: labelWith('guardrail', stringOrUndefined(data.name)), text: data.triggered === true ? 'triggered' : 'passed', ...(data.triggered === true || error ? { isError: true as const } : {}) });
          break;
        default:
          if (error !== undefined || data.type === 'custom') b.add({ ...base, kind: 'other', label: String(data.type ?? 'span'), text: error ?? JSON.stringify(data.data ?? data), ...failed });
          else skipRecord(ctx, `trace.span/${String(data.type ?? 'unknown')}`, location);
      }
    }
    const steps = b.finish();
    if (title) setExtra(meta, 'workflow', title);
    if (steps.length === 0) ctx.warnings.push({ message: 'No spans were found in this trace.' });
    return { title: title ?? ctx.fileName, steps, meta };
  },
};
