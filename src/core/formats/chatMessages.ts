import type { SourceLocation, StepKind } from '../model';
import { argsOf, isRecord, StepBuilder, textOf } from '../steps';

// OpenAI chat-completions messages. Several formats embed them (plain message lists, SWE-agent
// `history`, mini-swe-agent `messages`, Inspect samples), so the mapping lives here once.

export const CHAT_ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);

export function isChatMessage(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && typeof value.role === 'string' && CHAT_ROLES.has(value.role)
    && ('content' in value || 'tool_calls' in value);
}

/** Share of the first items of a list that look like chat messages. */
export function chatMessageShare(items: readonly unknown[]): number {
  const sample = items.slice(0, 20);
  if (sample.length === 0) return 0;
  return sample.filter(isChatMessage).length / sample.length;
}

export interface ChatMessageOptions {
  location?: SourceLocation;
  /** Override the kind a `user` message maps to (SWE-agent feeds observations back as user messages). */
  userKind?: StepKind;
  label?: string;
}

/** Adds the steps one chat message makes: its text, its reasoning, and one step per tool call. */
export function addChatMessage(b: StepBuilder, msg: Record<string, unknown>, opts: ChatMessageOptions = {}): void {
  const role = String(msg.role);
  const text = textOf(msg.content);
  const base = { location: opts.location, label: opts.label ?? role, timestamp: stringOrUndefined(msg.timestamp) };
  // Object.assign rather than `{ ...base, ...fields }`: V8 (Node 20) runs that spread several
  // times slower, and a big chat log has a million messages.
  const withBase = <T extends object>(fields: T): typeof base & T => Object.assign({}, base, fields);
  const toolCalls = Array.isArray(msg.tool_calls) ? msg.tool_calls.filter(isRecord) : [];
  switch (role) {
    case 'system':
    case 'developer':
      b.add(withBase({ kind: 'system' as const, text }));
      return;
    case 'user': {
      const kind = opts.userKind ?? 'user';
      if (kind === 'user') b.closeOpenCalls();
      b.add(withBase({ kind, text }));
      return;
    }
    case 'tool':
    case 'function':
      b.add(withBase({
        kind: 'tool_result' as const,
        text,
        toolName: stringOrUndefined(msg.name),
        tool: typeof msg.tool_call_id === 'string' ? { name: '', args: '', callId: msg.tool_call_id } : undefined,
      }));
      return;
    default: {
      const reasoning = textOf(msg.reasoning_content ?? msg.reasoning);
      if (reasoning) b.add(withBase({ kind: 'thought' as const, text: reasoning, label: 'reasoning' }));
      if (text) b.add(withBase({ kind: toolCalls.length > 0 ? 'thought' as const : 'assistant' as const, text }));
      for (const call of toolCalls) {
        const fn = isRecord(call.function) ? call.function : call;
        const name = String(fn.name ?? 'tool');
        const args = argsOf(fn.arguments);
        b.add(withBase({
          kind: 'tool_call' as const,
          text: args,
          label: 'tool_call',
          tool: { name, args, callId: stringOrUndefined(call.id) },
        }));
      }
      if (!text && !reasoning && toolCalls.length === 0) b.add(withBase({ kind: 'assistant' as const, text: '' }));
    }
  }
}

export function stringOrUndefined(v: unknown): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}

/** First line of the first real user message, as a trajectory title. */
export function titleFromSteps(steps: readonly { kind: StepKind; text: string }[], fallback: string): string {
  const first = steps.find((s) => s.kind === 'user' && s.text.trim() !== '');
  if (!first) return fallback;
  // A task wrapped in tags (`<pr_description>`, `<task>`) is titled by its first line of text.
  const line = first.text.replace(/<\/?[a-z][a-z0-9_-]{0,40}>/gi, '\n').split('\n').map((l) => l.trim()).find((l) => l !== '') ?? first.text.trim().split('\n')[0];
  return line.length > 80 ? line.slice(0, 79) + '…' : line;
}
