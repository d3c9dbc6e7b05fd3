import type { SourceLocation } from '../model';
import { isRecord, StepBuilder } from '../steps';
import type { FormatAdapter, ParsedInput } from './adapter';
import { jsonlRecordsOf, skipRecord } from './adapter';
import { titleFromSteps } from './chatMessages';

// The transcripts Cursor's editor agent keeps (`~/.cursor/projects/<slug>/agent-transcripts/`),
// in two shapes, neither with ids, times, models or usage:
// - `<uuid>/<uuid>.jsonl` (2026): `{"role", "message": {"content": [blocks]}}` a line, nothing else.
//   Blocks are `text` and, in later versions, `tool_use` (`name`, `input`, no id). No result is
//   written: a call's outcome is not in this log. The agent's thinking is written as its text.
// - `<uuid>.txt` (2025): `user:` and `assistant:` lines open each message; the agent's part holds
//   `[Thinking] …`, `[Tool call] Name` with `  key: value` lines, and `[Tool result] Name` with
//   nothing after it (that the call returned, not what), batched after parallel calls.
// In neither is a call's outcome saved: calls expect no result here, and summaries say so.
// The person's words are wrapped in `<user_query>`; a user message without one is the client's
// (skills it offers, a notification), not the person's.

const ROLE_LINE = /^(user|assistant):\s*$/;
const TOOL_CALL = /^\[Tool call\] (\S+)\s*$/;
const TOOL_RESULT = /^\[Tool result\] (\S+)\s*$/;
const THINKING = /^\[Thinking\]\s?(.*)$/;

/** Every record `{role, message: {content: [...]}}` and no other key: the JSONL transcript. */
function isTranscriptLine(v: unknown): boolean {
  if (!isRecord(v) || (v.role !== 'user' && v.role !== 'assistant') || !isRecord(v.message)) return false;
  return Object.keys(v).length === 2 && Array.isArray(v.message.content) && Object.keys(v.message).length === 1;
}

function sniffJsonl(input: ParsedInput): number {
  if (input.shape !== 'jsonl') return 0;
  const head = input.records.slice(0, 40).map((r) => r.value);
  if (head.length === 0 || !head.every(isTranscriptLine)) return 0;
  const userText = head.filter((v) => isRecord(v) && v.role === 'user').map((v) => textBlocks((v as { message: { content: unknown[] } }).message.content)).join('\n');
  return /<user_query>/.test(userText) ? 0.97 : 0.8;
}

function sniffText(input: ParsedInput): number {
  if (input.shape !== 'text') return 0;
  const head = input.text.slice(0, 64 * 1024);
  const lines = head.split('\n');
  const first = lines.find((l) => l.trim() !== '');
  if (first?.trim() !== 'user:' || !lines.some((l) => l.trim() === 'assistant:')) return 0;
  return /<user_query>/.test(head) || lines.some((l) => TOOL_CALL.test(l)) ? 0.95 : 0;
}

export const cursorIdeAdapter: FormatAdapter = {
  id: 'cursor-ide',
  label: "Cursor editor agent's transcript",
  fileNames: [],
  otherFileNames: ['*.jsonl', '*.txt'],
  tools: { command: ['Shell'], read: ['Read', 'ReadFile'], edit: ['StrReplace', 'ApplyPatch'], create: ['Write'] },
  sniff: (input) => Math.max(sniffJsonl(input), sniffText(input)),
  parse(input, ctx) {
    const b = new StepBuilder();
    let calls = 0;
    const nextId = () => `cursor-${++calls}`;
    if (input.shape === 'text') parseText(b, input.text, nextId);
    else {
      for (const { value: v, line } of jsonlRecordsOf(input)) {
        const location: SourceLocation = { line };
        if (!isTranscriptLine(v)) { skipRecord(ctx, 'line (not a transcript message)', location); continue; }
        const { role, message } = v as { role: string; message: { content: unknown[] } };
        if (role === 'user') addUser(b, textBlocks(message.content), location);
        else addAssistantBlocks(b, message.content, location, nextId);
      }
    }
    const steps = b.finish();
    // Titled by what the person typed, not the links or files Cursor put before it.
    const typed = steps.filter((s) => s.kind === 'user').map((s) => ({ kind: s.kind, text: /<user_query>([\s\S]*?)(?:<\/user_query>|$)/.exec(s.text)?.[1] ?? '' }));
    return { title: titleFromSteps(typed, 'Cursor agent transcript'), steps, meta: { agent: 'cursor' } };
  },
};

function textBlocks(content: readonly unknown[]): string {
  return content.map((c) => (isRecord(c) && c.type === 'text' && typeof c.text === 'string' ? c.text : '')).filter(Boolean).join('\n');
}

/** A user message: the person's when it holds `<user_query>`; else what the client put there. */
function addUser(b: StepBuilder, text: string, location: SourceLocation): void {
  const body = text.trim();
  if (!body) return;
  b.closeOpenCalls();
  // Cursor stamps each query with the local time it was typed (`<timestamp>Friday, May 8, 2026, 6:05 AM (UTC+5:30)</timestamp>`).
  const clean = body.replace(/^<timestamp>[^<]*<\/timestamp>\s*/, '');
  if (/<user_query>/.test(clean)) b.add({ kind: 'user', text: clean, location });
  else b.add({ kind: 'environment', text: clean, location, label: labelOfInjected(clean) });
}

/** An injected message's label: its first tag (`agent_skills`, `system_notification`) where it opens with one. */
function labelOfInjected(text: string): string {
  const tag = /^<([a-z_]+)>/.exec(text)?.[1];
  return tag ? `injected ${tag}` : 'injected message';
}

/** The agent's message: its text (Cursor writes its thinking as text too), and each tool call it made. */
function addAssistantBlocks(b: StepBuilder, content: readonly unknown[], location: SourceLocation, nextId: () => string): void {
  for (const c of content) {
    if (!isRecord(c)) continue;
    if (c.type === 'text' && typeof c.text === 'string' && c.text.trim()) b.add({ kind: 'assistant', text: c.text.trim(), location });
    else if (c.type === 'tool_use' && typeof c.name === 'string') {
      const args = typeof c.input === 'string' ? c.input : JSON.stringify(c.input ?? {});
      // This shape writes no results: what the call returned is not in the log.
      b.add({ kind: 'tool_call', text: args, location, tool: { name: c.name, args, callId: nextId(), expectsNoResult: true } });
    }
  }
}

/** The `.txt` transcript: messages under `user:` and `assistant:` lines. */
function parseText(b: StepBuilder, text: string, nextId: () => string): void {
  const lines = text.split('\n');
  let role: string | undefined;
  let from = 0;
  const flush = (to: number) => {
    if (role === 'user') addUser(b, lines.slice(from, to).join('\n'), { line: from + 1 });
    else if (role === 'assistant') addAssistantText(b, lines, from, to, nextId);
  };
  lines.forEach((line, i) => {
    const m = ROLE_LINE.exec(line);
    if (!m) return;
    flush(i);
    role = m[1];
    from = i + 1;
  });
  flush(lines.length);
}

/**
 * An agent's message of the `.txt` shape: its `[Thinking]` paragraphs, its words, its calls.
 * `[Tool result] Name` says only that a call returned (in a batch after parallel calls).
 */
function addAssistantText(b: StepBuilder, lines: readonly string[], from: number, to: number, nextId: () => string): void {
  let prose: { at: number; lines: string[]; thinking: boolean } | undefined;
  let call: { at: number; name: string; lines: string[] } | undefined;
  const endProse = () => {
    const body = prose?.lines.join('\n').trim();
    if (prose && body) b.add({ kind: prose.thinking ? 'thought' : 'assistant', text: body, location: { line: prose.at + 1 }, ...(prose.thinking ? { label: 'thinking' } : {}) });
    prose = undefined;
  };
  const endCall = () => {
    if (!call) return;
    const args = JSON.stringify(argsOfLines(call.lines));
    b.add({ kind: 'tool_call', text: args, location: { line: call.at + 1 }, tool: { name: call.name, args, callId: nextId(), expectsNoResult: true } });
    call = undefined;
  };
  for (let i = from; i < to; i++) {
    const line = lines[i];
    const called = TOOL_CALL.exec(line);
    const returned = TOOL_RESULT.exec(line);
    const thinking = THINKING.exec(line);
    if (called) {
      endProse();
      endCall();
      call = { at: i, name: called[1], lines: [] };
    } else if (returned) {
      // The transcript says a call returned, never what: its calls expect no result in this log.
      endProse();
      endCall();
    } else if (call) call.lines.push(line);
    else if (thinking) {
      endProse();
      prose = { at: i, lines: [thinking[1]], thinking: true };
    } else if (prose?.thinking && line.trim() === '' && prose.lines.join('').trim() !== '') {
      // A thought is its `[Thinking]` paragraph; after a blank line the agent writes to the person.
      endProse();
    } else (prose ??= { at: i, lines: [], thinking: false }).lines.push(line);
  }
  endCall();
  endProse();
}

/**
 * `  key: value` lines as an object; a line that does not open a key not seen yet continues the
 * value before it (a prompt or a file's text runs on over many lines). JSON values are read as JSON.
 */
function argsOfLines(lines: readonly string[]): Record<string, unknown> {
  const out: Record<string, string> = {};
  let key: string | undefined;
  for (const line of lines) {
    const m = /^ {2}(\w+): ?(.*)$/.exec(line);
    if (m && !(m[1] in out)) {
      key = m[1];
      out[key] = m[2];
    } else if (key) out[key] += `\n${line}`;
  }
  const parsed: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(out)) {
    const value = v.replace(/\s+$/, '');
    parsed[k] = /^[[{]/.test(value) ? tryJson(value) : value;
  }
  return parsed;
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
