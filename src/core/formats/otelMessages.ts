import { isRecord } from '../steps';

// The messages of one model-call span, in whichever of the conventions the span uses:
// `gen_ai.input.messages` / `gen_ai.output.messages` (JSON, with `parts`, or chat-style messages),
// the older indexed `gen_ai.prompt.N.*` / `gen_ai.completion.N.*` (OpenLLMetry, Traceloop),
// OpenInference's `llm.input_messages.N.message.*` / `llm.output_messages.N.message.*`, and
// the span events older instrumentations log (`gen_ai.user.message`, `gen_ai.choice`, …), and the
// Vercel AI SDK's `ai.prompt.messages` (chat messages whose content parts hold `tool-call` and
// `tool-result`) with `ai.response.text` / `ai.response.toolCalls` / `ai.response.object`.

interface CallPart {
  id?: string;
  name: string;
  args: string;
}

export interface Message {
  role: string;
  text: string;
  calls: CallPart[];
  /** On tool messages: the call they answer. */
  callId?: string;
  /** The reply is a JSON object the model was asked for (structured output), not words. */
  structured?: boolean;
}

type Attrs = Record<string, unknown>;

export function inputMessages(attrs: Attrs, events: { name: string; attrs: Attrs }[]): Message[] {
  const system = attrs['gen_ai.system_instructions'];
  const fromJson = jsonMessages(attrs['gen_ai.input.messages'] ?? attrs['gen_ai.prompt'] ?? attrs['ai.prompt.messages']);
  const messages = fromJson ?? indexed(attrs, 'gen_ai.prompt.') ?? openInference(attrs, 'llm.input_messages.') ?? eventMessages(events, 'input');
  if (system !== undefined) {
    const parsed = parse(system);
    const text = Array.isArray(parsed) ? parsed.map((p) => (isRecord(p) ? String(p.content ?? p.text ?? '') : String(p))).join('\n') : String(parsed ?? '');
    return [{ role: 'system', text, calls: [] }, ...(messages ?? [])];
  }
  return messages ?? [];
}

export function outputMessages(attrs: Attrs, events: { name: string; attrs: Attrs }[]): Message[] {
  return jsonMessages(attrs['gen_ai.output.messages'] ?? attrs['gen_ai.completion'])
    ?? indexed(attrs, 'gen_ai.completion.')
    ?? openInference(attrs, 'llm.output_messages.')
    ?? anyAgentOutput(attrs['gen_ai.output'])
    ?? aiSdkResponse(attrs)
    ?? eventMessages(events, 'output')
    ?? [];
}

/** The Vercel AI SDK's reply: its text (or generated object) and the tools it called (`[{toolCallId, toolName, args | input}]`). */
function aiSdkResponse(attrs: Attrs): Message[] | undefined {
  const reply = attrs['ai.response.text'] ?? attrs['ai.response.object'];
  const calls = parse(attrs['ai.response.toolCalls']);
  if (reply === undefined && !Array.isArray(calls)) return undefined;
  return [{
    role: 'assistant',
    ...(attrs['ai.response.text'] === undefined && reply !== undefined ? { structured: true } : {}),
    text: reply === undefined ? '' : typeof reply === 'string' ? reply : JSON.stringify(reply),
    calls: (Array.isArray(calls) ? calls.filter(isRecord) : []).map((c) => ({ id: str(c.toolCallId), name: String(c.toolName ?? 'tool'), args: argText(c.args ?? c.input) })),
  }];
}

function parse(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

/** A JSON list of messages: semantic-convention messages with `parts`, or chat-completions messages. */
function jsonMessages(raw: unknown): Message[] | undefined {
  const list = parse(raw);
  if (!Array.isArray(list)) return typeof list === 'string' && list !== '' ? [{ role: 'user', text: list, calls: [] }] : undefined;
  return list.filter(isRecord).map((m) => {
    if (Array.isArray(m.parts)) return fromParts(String(m.role ?? 'assistant'), m.parts);
    const calls = Array.isArray(m.tool_calls) ? m.tool_calls.filter(isRecord).map((c) => {
      const fn = isRecord(c.function) ? c.function : c;
      return { id: str(c.id), name: String(fn.name ?? 'tool'), args: argText(fn.arguments) };
    }) : [];
    if (Array.isArray(m.content) && m.content.some((p) => isRecord(p) && (p.type === 'tool-call' || p.type === 'tool-result'))) return aiSdkMessage(String(m.role ?? 'assistant'), m.content, calls);
    return { role: String(m.role ?? 'assistant'), text: contentText(m.content), calls, callId: str(m.tool_call_id) };
  });
}

/** AI SDK content parts: text, `tool-call` (`toolCallId`, `toolName`, `args` or `input`), `tool-result` (`output` or `result`). */
function aiSdkMessage(role: string, parts: unknown[], calls: CallPart[]): Message {
  const texts: string[] = [];
  let callId: string | undefined;
  for (const p of parts.filter(isRecord)) {
    if (p.type === 'tool-call') calls.push({ id: str(p.toolCallId), name: String(p.toolName ?? 'tool'), args: argText(p.args ?? p.input) });
    else if (p.type === 'tool-result') {
      callId ??= str(p.toolCallId);
      const out = isRecord(p.output) && 'value' in p.output ? p.output.value : p.output ?? p.result;
      texts.push(typeof out === 'string' ? out : JSON.stringify(out ?? ''));
    } else texts.push(String(p.text ?? `[${String(p.type ?? 'part')}]`));
  }
  return { role, text: texts.join('\n'), calls, callId };
}

function fromParts(role: string, parts: unknown[]): Message {
  const texts: string[] = [];
  const calls: CallPart[] = [];
  let callId: string | undefined;
  for (const p of parts.filter(isRecord)) {
    if (p.type === 'tool_call') calls.push({ id: str(p.id), name: String(p.name ?? 'tool'), args: argText(p.arguments) });
    else if (p.type === 'tool_call_response') {
      callId = str(p.id);
      texts.push(contentText(p.response ?? p.result));
    } else if (p.type === 'text' || p.type === 'reasoning') texts.push(String(p.content ?? p.text ?? ''));
    else texts.push(`[${String(p.type ?? 'part')}]`);
  }
  return { role: callId && role !== 'tool' ? 'tool' : role, text: texts.join('\n'), calls, callId };
}

/** `prefix.N.role`, `prefix.N.content`, `prefix.N.tool_calls.M.{id,name,arguments}`, `prefix.N.tool_call_id`. */
function indexed(attrs: Attrs, prefix: string): Message[] | undefined {
  const byIndex = groupIndexed(attrs, prefix);
  if (byIndex.length === 0) return undefined;
  return byIndex.map((m) => ({
    role: String(m.role ?? 'user'),
    text: contentText(m.content),
    calls: groupIndexed(m, 'tool_calls.').map((c) => ({ id: str(c.id), name: String(c.name ?? 'tool'), args: argText(c.arguments) })),
    callId: str(m.tool_call_id),
  }));
}

/** `llm.input_messages.N.message.role` and friends (OpenInference). */
function openInference(attrs: Attrs, prefix: string): Message[] | undefined {
  const byIndex = groupIndexed(attrs, prefix);
  if (byIndex.length === 0) return undefined;
  return byIndex.map((m) => {
    const contents = groupIndexed(m, 'message.contents.').map((c) => String(c['message_content.text'] ?? '')).filter(Boolean);
    return {
      role: String(m['message.role'] ?? 'user'),
      text: m['message.content'] !== undefined ? contentText(m['message.content']) : contents.join('\n'),
      calls: groupIndexed(m, 'message.tool_calls.').map((c) => ({
        id: str(c['tool_call.id']),
        name: String(c['tool_call.function.name'] ?? 'tool'),
        args: argText(c['tool_call.function.arguments']),
      })),
      callId: str(m['message.tool_call_id']),
    };
  });
}

/** any-agent writes a call's output as text, or as JSON `[{"tool.name", "tool.args"}]` when it called tools. */
function anyAgentOutput(raw: unknown): Message[] | undefined {
  if (raw === undefined) return undefined;
  const parsed = parse(raw);
  if (Array.isArray(parsed) && parsed.every((c) => isRecord(c) && 'tool.name' in c)) {
    return [{ role: 'assistant', text: '', calls: parsed.filter(isRecord).map((c) => ({ name: String(c['tool.name']), args: argText(c['tool.args']) })) }];
  }
  return [{ role: 'assistant', text: typeof raw === 'string' ? raw : JSON.stringify(raw), calls: [] }];
}

/** Older instrumentations log messages as span events; inputs are the message events, output the choice. */
function eventMessages(events: { name: string; attrs: Attrs }[], side: 'input' | 'output'): Message[] | undefined {
  const out: Message[] = [];
  for (const e of events) {
    const role = /^gen_ai\.(system|user|assistant|tool)\.message$/.exec(e.name)?.[1];
    const body = parse(e.attrs['gen_ai.event.content'] ?? e.attrs.content ?? e.attrs.body);
    if (side === 'input' && role) out.push({ role, text: contentText(isRecord(body) ? body.content : body), calls: [], callId: isRecord(body) ? str(body.id) : undefined });
    // Appended in a loop: one event may carry more messages than a call can take as arguments.
    else if (side === 'input' && e.name === 'gen_ai.content.prompt') for (const m of jsonMessages(e.attrs['gen_ai.prompt']) ?? []) out.push(m);
    else if (side === 'output' && e.name === 'gen_ai.choice') {
      const message = isRecord(body) && isRecord(body.message) ? body.message : body;
      out.push({ role: 'assistant', text: contentText(isRecord(message) ? message.content : message), calls: [] });
    } else if (side === 'output' && e.name === 'gen_ai.content.completion') for (const m of jsonMessages(e.attrs['gen_ai.completion']) ?? []) out.push(m);
  }
  return out.length > 0 ? out : undefined;
}

/** Groups `prefix.N.rest` keys into one object per N (keys `rest`), in index order. */
function groupIndexed(attrs: Attrs, prefix: string): Attrs[] {
  const groups = new Map<number, Attrs>();
  for (const [key, value] of Object.entries(attrs)) {
    if (!key.startsWith(prefix)) continue;
    const m = /^(\d+)\.(.+)$/.exec(key.slice(prefix.length));
    if (!m) continue;
    const n = Number(m[1]);
    if (!groups.has(n)) groups.set(n, {});
    groups.get(n)![m[2]] = value;
  }
  return [...groups.entries()].sort((a, b) => a[0] - b[0]).map(([, g]) => g);
}

function contentText(v: unknown): string {
  const parsed = typeof v === 'string' ? v : v;
  if (typeof parsed === 'string') return parsed;
  if (Array.isArray(parsed)) return parsed.map((p) => (isRecord(p) ? String(p.text ?? p.content ?? `[${String(p.type ?? 'part')}]`) : String(p))).join('\n');
  if (parsed === undefined || parsed === null) return '';
  return JSON.stringify(parsed);
}

function argText(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined;
}
