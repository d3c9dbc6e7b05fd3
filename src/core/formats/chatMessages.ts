import { SHOWN_TEXT_LABEL, type SourceLocation, type StepKind } from '../model';
import { argsOf, isRecord, StepBuilder, textOf } from '../steps';
import { CODEX_INJECTED } from './codexInjected';
import { injectedAs, type InjectedRule, withoutContextBlocks, withoutWrapperTags } from './injected';
import { terminusReply } from './terminus';
import { imagesOf } from './images';

// OpenAI chat-completions messages. Several formats embed them (plain message lists, SWE-agent
// `history`, mini-swe-agent `messages`, Inspect samples), so the mapping lives here once.

const CHAT_ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);

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

/**
 * What agent harnesses send with the user role that the person did not type. AutoCodeRover
 * answers malformed search calls with feedback; SWE-style harnesses nudge a model that replied
 * without an action. A Codex session exported as chat messages carries Codex's own.
 */
const CHAT_INJECTED: readonly InjectedRule[] = [
  { name: 'AutoCodeRover search feedback', match: /^The search API calls seem not valid/, label: () => 'harness feedback: search calls not valid' },
  { name: 'AutoCodeRover collected context', match: /^Based on your analysis, answer below questions/, label: () => 'harness prompt: answer questions' },
  { name: 'Codex IDE context alone', match: /^# Context from my IDE setup:(?![\s\S]*## My request for Codex:)/, label: () => 'IDE context' },
  ...CODEX_INJECTED,
];

/** Reasoning a model wrote inline, `<thinking>…</thinking>` (or `<think>`) before its answer. */
const INLINE_THINKING = /^\s*<(thinking|think)>([\s\S]*?)<\/\1>\s*/;

/**
 * The request in a message that wraps it in client context: Codex's IDE extension sends
 * "# Context from my IDE setup: … ## My request for Codex: <request>".
 */
export function requestOf(text: string): string {
  if (!text.startsWith('# Context from my IDE setup:')) return text;
  const at = text.indexOf('## My request for Codex:');
  return at < 0 ? text : text.slice(at + '## My request for Codex:'.length).trim();
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
  const { said: content, reasoned } = reasoningParts(msg.content);
  const text = textOf(content);
  const images = Array.isArray(content) ? imagesOf(content) : undefined;
  // Exporters that keep the message as sent put their own fields beside it (`_metadata.timestamp`).
  const timestamp = stringOrUndefined(msg.timestamp) ?? (isRecord(msg._metadata) ? stringOrUndefined(msg._metadata.timestamp) : undefined);
  const base = { location: opts.location, label: opts.label ?? role, timestamp };
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
      if (opts.userKind === undefined && answersTerminusCommands(b)) {
        // The harness's answer to the commands just sent: the terminal's output.
        b.add(withBase({ kind: 'tool_result' as const, text, label: 'terminal output', ...images }));
        return;
      }
      const injected = opts.userKind === undefined && text.charCodeAt(0) !== 123 ? injectedAs(CHAT_INJECTED, text) : undefined;
      if (injected !== undefined) {
        b.add(withBase({ kind: 'environment' as const, text, ...injected, ...images }));
        return;
      }
      const kind = opts.userKind ?? 'user';
      if (kind === 'user') b.closeOpenCalls();
      b.add(withBase({ kind, text, ...images }));
      return;
    }
    case 'tool':
    case 'function':
      b.add(withBase({
        kind: 'tool_result' as const,
        text,
        toolName: stringOrUndefined(msg.name),
        tool: typeof msg.tool_call_id === 'string' ? { name: '', args: '', callId: msg.tool_call_id } : undefined,
        // The harness's own verdict on the call (τ²-bench's `error: true`, an `is_error` flag, Inspect's `error: {type, message}`).
        ...(msg.error === true || msg.is_error === true || (isRecord(msg.error) && Object.keys(msg.error).length > 0) ? { isError: true as const } : {}),
        ...images,
      }));
      return;
    default: {
      if (Array.isArray(msg.content) && msg.content.some((p) => isRecord(p) && (p.type === 'tool_call' || p.type === 'tool_output'))) {
        addPartsMessage(b, msg.content, withBase, stringOrUndefined(msg.tool_call_id));
        return;
      }
      if (toolCalls.length === 0 && addTerminusReply(b, text, withBase)) return;
      const reasoning = textOf(msg.reasoning_content ?? msg.reasoning);
      if (reasoning) b.add(withBase({ kind: 'thought' as const, text: reasoning, label: 'reasoning' }));
      for (const part of reasoned) b.add(withBase({ kind: 'thought' as const, text: part, label: 'thinking' }));
      let said = text;
      const inline = text.charCodeAt(0) === 60 || /^\s/.test(text) ? INLINE_THINKING.exec(text.slice(0, 200_000)) : null;
      if (inline) {
        // Reasoning markup in the reply is the model's thinking, not what it said.
        b.add(withBase({ kind: 'thought' as const, text: inline[2].trim(), label: 'thinking' }));
        said = text.slice(inline[0].length);
      }
      // Content beside tool calls is shown to the person (reasoning has its own fields): text, as
      // Anthropic's text blocks are, not thinking.
      if (said) b.add(withBase(toolCalls.length > 0 ? { kind: 'thought' as const, text: said, label: SHOWN_TEXT_LABEL } : { kind: 'assistant' as const, text: said }));
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
      if (!text && !reasoning && reasoned.length === 0 && toolCalls.length === 0) b.add(withBase({ kind: 'assistant' as const, text: '' }));
    }
  }
}

/** Content parts that are the model's reasoning, by their own type: Kimi's `{type: "think", think}`, `{type: "thinking", thinking}`, `{type: "reasoning", text}`. */
const REASONING_PART: Readonly<Record<string, string>> = { think: 'think', thinking: 'thinking', reasoning: 'text' };

/** A content list parted into what was said and the reasoning parts' texts (a string or other content: all said). */
function reasoningParts(content: unknown): { said: unknown; reasoned: string[] } {
  if (!Array.isArray(content) || !content.some((p) => isRecord(p) && typeof p.type === 'string' && Object.hasOwn(REASONING_PART, p.type))) return { said: content, reasoned: [] };
  const reasoned: string[] = [];
  const said = content.filter((p) => {
    if (!isRecord(p) || typeof p.type !== 'string' || !Object.hasOwn(REASONING_PART, p.type)) return true;
    const t = p[REASONING_PART[p.type]];
    if (typeof t === 'string' && t !== '') reasoned.push(t);
    return false;
  });
  return { said, reasoned };
}

/** The label of the call a Terminus 2 reply's keystrokes make (see `addTerminusReply`). */
const TERMINUS_CALL = 'keystrokes';

/**
 * A Terminus 2 reply (its JSON, see terminus.ts): the analysis and plan are a thought, the
 * keystrokes one terminal call, which the next user message (the terminal's output) answers.
 * False when the text is not such a reply.
 */
function addTerminusReply(b: StepBuilder, text: string, withBase: <T extends object>(fields: T) => T & { label: string }): boolean {
  const reply = text.charCodeAt(0) === 123 || /^\s/.test(text) ? terminusReply(text) : undefined;
  if (!reply || (!reply.thinking && reply.keystrokes === undefined && !reply.done)) return false;
  if (reply.thinking) b.add(withBase({ kind: 'thought' as const, text: reply.thinking, label: 'analysis' }));
  if (reply.keystrokes !== undefined) {
    const args = JSON.stringify({ keystrokes: reply.keystrokes });
    b.add(withBase({ kind: 'tool_call' as const, text: args, label: TERMINUS_CALL, tool: { name: 'terminal', args } }));
  } else if (reply.done) b.add(withBase({ kind: 'assistant' as const, text: 'Task complete.', label: 'task_complete' }));
  return true;
}

/** Whether the last step is a Terminus call still waiting: Terminus's harness answers it next, as a user message. */
function answersTerminusCommands(b: StepBuilder): boolean {
  const last = b.steps[b.steps.length - 1];
  return last !== undefined && last.kind === 'tool_call' && last.label === TERMINUS_CALL && last.tool?.name === 'terminal';
}

/** A part's call id, under any of the names exporters give it (`call_id`, `tool_call_id`, `id`). */
const partCallId = (p: Record<string, unknown>) => stringOrUndefined(p.call_id) ?? stringOrUndefined(p.tool_call_id) ?? stringOrUndefined(p.id);

/**
 * A message whose content parts hold its calls and their outputs (`tool_call`, `tool_output`), as
 * Codex exports to chat. An output part without an id of its own answers the message's `tool_call_id`.
 */
function addPartsMessage(b: StepBuilder, parts: unknown[], withBase: <T extends object>(fields: T) => T & { label: string }, fallbackCallId?: string): void {
  const hasCall = parts.some((p) => isRecord(p) && p.type === 'tool_call');
  for (const p of parts) {
    if (!isRecord(p)) continue;
    if (p.type === 'tool_call') {
      const args = argsOf(p.arguments ?? p.input ?? p.args);
      b.add(withBase({ kind: 'tool_call' as const, text: args, label: 'tool_call', tool: { name: String(p.name ?? 'tool'), args, callId: partCallId(p) } }));
    } else if (p.type === 'tool_output') {
      const callId = partCallId(p) ?? fallbackCallId;
      b.add(withBase({ kind: 'tool_result' as const, text: textOf(p.output ?? p.content ?? p.text), label: 'tool_output', ...(callId ? { tool: { name: '', args: '', callId } } : {}) }));
    } else {
      const t = textOf([p]);
      if (t) b.add(withBase(hasCall ? { kind: 'thought' as const, text: t, label: SHOWN_TEXT_LABEL } : { kind: 'assistant' as const, text: t }));
    }
  }
}

export function stringOrUndefined(v: unknown): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}

/** A line that only labels or fences what follows: `## User Input`, `# Task`, ```` ```text ````. */
// DSPy's chat adapter marks each input field with a line of its own: `[[ ## user_query ## ]]`.
const isLabelLine = (line: string) => /^(?:#{1,6}\s+\S+(?:\s+\S+){0,2}\s*:?|`{3,}\w*|~{3,}\w*|\[\[ ## [\w ]+ ## \]\])$/.test(line);

/** First line of the first real user message, as a trajectory title. */
export function titleFromSteps(steps: readonly { kind: StepKind; text: string }[], fallback: string): string {
  const first = steps.find((s) => s.kind === 'user' && s.text.trim() !== '');
  if (!first) return fallback;
  // A task wrapped in tags (`<pr_description>`, `<task>`) is titled by its first line of text; a
  // label heading of up to three words (`# Role & Goal`, `## User Input`, a saved prompt's), a template's field marker and code fences name nothing.
  const lines = withoutWrapperTags(withoutContextBlocks(requestOf(first.text.slice(0, 20_000)))).split('\n').map((l) => l.trim()).filter((l) => l !== '');
  const line = lines.find((l) => !isLabelLine(l)) ?? lines[0] ?? first.text.trim().split('\n')[0];
  return line.length > 80 ? line.slice(0, 79) + '…' : line;
}
