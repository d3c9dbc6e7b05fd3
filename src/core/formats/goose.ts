import type { SourceLocation, TrajectoryMeta } from '../model';
import { setExtra } from '../meta';
import { argsOf, isRecord, StepBuilder, textOf } from '../steps';
import type { FormatAdapter, ParseContext } from './adapter';
import { jsonlRecordsOf, skipRecord } from './adapter';
import { stringOrUndefined, titleFromSteps } from './chatMessages';
import { imagesOf } from './images';
import { labelWith } from './injected';
import { num, recordedUsage } from './usage';

// Goose (block/goose) sessions: the JSON Lines files of Goose ≤ 1.9 (`sessions/<id>.jsonl`: a
// metadata line, then one message a line) and `goose session export`'s JSON (a Session with its
// `conversation`). A message is `{id, role, created, content, metadata}`; its content blocks are
// tagged by `type` (text, image, toolRequest, toolResponse, thinking, redactedThinking,
// frontendToolRequest, toolConfirmationRequest, actionRequired, systemNotification), and a tool's
// outcome is `{status: "success", value}` or `{status: "error", error}`. `metadata.agentVisible`
// says whether the model was sent the message: a compaction keeps the old messages, hidden from
// the agent, and adds its summary as a message only the agent sees.

type Rec = Record<string, unknown>;
type Base = { location: SourceLocation; timestamp?: string; sourceId?: string; model?: string };

/** Blocks only Goose's own message types have (a chat message has text and images too). */
const GOOSE_ONLY = new Set(['toolRequest', 'toolResponse', 'frontendToolRequest', 'toolConfirmationRequest', 'actionRequired', 'systemNotification', 'conversationCompacted', 'summarizationRequested', 'contextLengthExceeded', 'redactedThinking']);
/** Blocks Goose shows the person and never sends the model: the compaction's marker. */
const MARKERS = new Set(['conversationCompacted', 'summarizationRequested']);

/** A message as Goose writes it; a block of a type this reader does not know is still read (as the client's, by its type). */
function isGooseMessage(v: unknown): v is Rec {
  return isRecord(v) && (v.role === 'user' || v.role === 'assistant') && typeof v.created === 'number' && Array.isArray(v.content)
    && v.content.every((c) => isRecord(c) && typeof c.type === 'string');
}

const hasGooseBlock = (v: Rec) => (v.content as Rec[]).some((c) => GOOSE_ONLY.has(c.type as string));

/** Messages Goose wrote (a `created` time, typed blocks, one of them Goose's own): chat messages only in look. */
export function looksLikeGooseMessages(sample: readonly unknown[]): boolean {
  return sample.some((v) => isGooseMessage(v) && hasGooseBlock(v));
}

/** The session a line or an export describes: Goose's Session fields (`working_dir`, `message_count`, the token counts). */
function isSessionHeader(v: unknown): v is Rec {
  return isRecord(v) && typeof v.working_dir === 'string' && ('message_count' in v || 'accumulated_total_tokens' in v || 'schedule_id' in v) && !('role' in v);
}

export const gooseAdapter: FormatAdapter = {
  id: 'goose',
  label: 'Goose session',
  fileNames: ['*.jsonl', '*.json'],
  tools: { command: ['shell'], edit: ['edit'], create: ['write'], read: ['read'] },
  sniff(input) {
    if (input.shape === 'jsonl') {
      const head = input.records.slice(0, 30).map((r) => r.value);
      const messages = head.filter(isGooseMessage);
      if (messages.length === 0) return 0;
      const header = isSessionHeader(head[0]);
      if (!header && messages.length < head.length - 1) return 0;
      return header || messages.some(hasGooseBlock) ? 0.96 : 0.5;
    }
    if (input.shape === 'json' && isSessionHeader(input.value) && Array.isArray(input.value.conversation)) {
      return input.value.conversation.slice(0, 30).every(isGooseMessage) ? 0.96 : 0;
    }
    return 0;
  },
  parse(input, ctx) {
    const b = new StepBuilder();
    const meta: TrajectoryMeta = { agent: 'goose' };
    let header: Rec | undefined;
    const read = new GooseReader(b, ctx);
    if (input.shape === 'jsonl') {
      for (const [i, r] of jsonlRecordsOf(input).entries()) {
        if (i === 0 && isSessionHeader(r.value)) { header = r.value; skipRecord(ctx, 'session (metadata)', { line: r.line }); continue; }
        if (isGooseMessage(r.value)) read.message(r.value, { line: r.line });
        else skipRecord(ctx, 'line (not a Goose message)', { line: r.line });
      }
    } else if (input.shape === 'json' && isRecord(input.value)) {
      header = input.value;
      const conversation = Array.isArray(header.conversation) ? header.conversation : [];
      conversation.forEach((m, i) => {
        if (isGooseMessage(m)) read.message(m, { pointer: `/conversation/${i}` });
      });
    }
    const steps = b.finish();
    if (header) readHeader(header, meta, read.model);
    meta.model ??= read.model;
    const name = header ? stringOrUndefined(header.name) ?? stringOrUndefined(header.description) : undefined;
    return { title: name || titleFromSteps(steps, ctx.fileName), steps, meta };
  },
};

/** The session's own record: its folder, its id, and the tokens Goose added up over its calls. */
function readHeader(h: Rec, meta: TrajectoryMeta, model: string | undefined): void {
  meta.sessionId = stringOrUndefined(h.id);
  setExtra(meta, 'cwd', stringOrUndefined(h.working_dir));
  const config = isRecord(h.model_config) ? h.model_config : undefined;
  meta.model = stringOrUndefined(config?.model_name) ?? model;
  setExtra(meta, 'provider', stringOrUndefined(h.provider_name));
  // `accumulated_*` add up every call of the session; the unprefixed counts are the last call's context.
  const recorded = recordedUsage({ model: meta.model, input: num(h.accumulated_input_tokens), output: num(h.accumulated_output_tokens), cost: num(h.accumulated_cost) });
  if (recorded) meta.recorded = recorded;
}

class GooseReader {
  model: string | undefined;
  /** Whether the message before was hidden from the agent: an agent-only message after it is a compaction's summary. */
  private afterHidden = false;

  constructor(private readonly b: StepBuilder, private readonly ctx: ParseContext) {}

  message(m: Rec, location: SourceLocation): void {
    const md = isRecord(m.metadata) ? m.metadata : {};
    const inference = isRecord(md.inference) ? md.inference : undefined;
    const model = stringOrUndefined(inference?.resolvedModel) ?? stringOrUndefined(inference?.requestedModel);
    if (model) this.model = model;
    const base: Base = { location, timestamp: new Date((m.created as number) * 1000).toISOString(), ...(typeof m.id === 'string' ? { sourceId: m.id } : {}), ...(model ? { model } : {}) };
    const blocks = (m.content as Rec[]);
    const toAgent = md.agentVisible !== false;
    const toPerson = md.userVisible !== false;
    if (blocks.length > 0 && blocks.every((c) => MARKERS.has(c.type as string))) {
      skipRecord(this.ctx, 'compaction marker (shown to the person; the summary follows)', location);
      this.afterHidden = true;
      return;
    }
    if (m.role === 'user' && toAgent && !toPerson && blocks.every((c) => c.type === 'text')) {
      const text = blocks.map((c) => String(c.text ?? '')).join('\n');
      if (this.afterHidden) {
        // The compaction's summary: what the model is sent in place of the messages now hidden from it.
        this.b.add({ ...base, kind: 'compaction', text, label: 'compaction summary', compaction: { summary: text } });
        this.b.closeOpenCalls();
      } else this.b.add({ ...base, kind: 'environment', text, label: labelWith('sent by the client', 'hidden from the person') });
      this.afterHidden = false;
      return;
    }
    this.afterHidden = !toAgent;
    if (m.role === 'assistant' && toAgent && !toPerson) {
      // Written by Goose in the assistant's name (the compaction's "continue" note), not by a model call.
      this.b.add({ ...base, kind: 'environment', text: blocks.map(blockText).join('\n'), label: labelWith('sent by the client', 'hidden from the person') });
      return;
    }
    const person = m.role === 'user' && blocks.some((c) => c.type === 'text' || c.type === 'image');
    if (person) this.b.closeOpenCalls();
    for (const c of blocks) this.block(c, m.role === 'user', base);
  }

  private block(c: Rec, fromUser: boolean, base: Base): void {
    switch (c.type) {
      case 'text':
        this.b.add({ ...base, kind: fromUser ? 'user' : 'assistant', text: String(c.text ?? '') });
        return;
      case 'image':
        this.b.add({ ...base, kind: fromUser ? 'user' : 'assistant', text: '[image]', ...imagesOf([c]) });
        return;
      case 'thinking':
      case 'reasoning':
        this.b.add({ ...base, kind: 'thought', text: String(c.thinking ?? c.text ?? ''), label: 'thinking' });
        return;
      case 'redactedThinking':
        this.b.add({ ...base, kind: 'thought', text: '[redacted thinking]', label: 'redacted thinking' });
        return;
      case 'toolRequest':
      case 'frontendToolRequest':
        this.call(c, base);
        return;
      case 'toolResponse':
        this.result(c, base);
        return;
      case 'systemNotification':
        // Shown to the person only: a "thinking…" line, an inline note, credits used up (an error the run hit).
        this.b.add({ ...base, kind: 'other', text: String(c.msg ?? ''), label: labelWith('notification', String(c.notificationType ?? '')), ...(c.notificationType === 'creditsExhausted' ? { isError: true } : {}) });
        return;
      case 'contextLengthExceeded':
        this.b.add({ ...base, kind: 'other', text: String(c.msg ?? 'context length exceeded'), label: 'context length exceeded', isError: true });
        return;
      case 'toolConfirmationRequest':
      case 'actionRequired':
        // Asking the person to confirm a call or to fill a form: the client's, before the call runs.
        this.b.add({ ...base, kind: 'environment', text: blockText(c), label: labelWith('asked the person', String(c.type)) });
        return;
      default:
        // A block of a newer Goose: kept, named by its type, as the client's.
        this.b.add({ ...base, kind: 'environment', text: blockText(c), label: labelWith('goose block', String(c.type)) });
    }
  }

  private call(c: Rec, base: Base): void {
    const call = isRecord(c.toolCall) ? c.toolCall : {};
    const id = stringOrUndefined(c.id);
    if (call.status === 'error') {
      // The model's call could not be read (bad JSON, an unknown tool): Goose answers it with an error by the same id.
      const text = String(call.error ?? 'the call could not be read');
      this.b.add({ ...base, kind: 'tool_call', text, label: 'invalid call', tool: { name: 'invalid call', args: text, ...(id ? { callId: id } : {}) } });
      return;
    }
    const value = isRecord(call.value) ? call.value : {};
    const args = argsOf(value.arguments ?? {});
    this.b.add({ ...base, kind: 'tool_call', text: args, label: String(c.type), tool: { name: String(value.name ?? 'tool'), args, ...(id ? { callId: id } : {}) } });
  }

  private result(c: Rec, base: Base): void {
    const r = isRecord(c.toolResult) ? c.toolResult : {};
    const id = stringOrUndefined(c.id);
    const tool = { name: '', args: '', ...(id ? { callId: id } : {}) };
    if (r.status === 'error') {
      this.b.add({ ...base, kind: 'tool_result', text: String(r.error ?? 'error'), tool, isError: true });
      return;
    }
    // Goose ≥ 1.10 writes MCP's CallToolResult (`{content, isError, structuredContent}`); earlier ones the content list alone.
    const value = r.value;
    const content = Array.isArray(value) ? value : isRecord(value) && Array.isArray(value.content) ? value.content : [];
    const text = textOf(content.filter(isRecord));
    const structured = isRecord(value) && isRecord(value.structuredContent) ? value.structuredContent : undefined;
    const exitCode = num(structured?.exit_code ?? structured?.exitCode);
    this.b.add({
      ...base, kind: 'tool_result', text, tool, ...imagesOf(content),
      ...(isRecord(value) && value.isError === true ? { isError: true } : {}),
      ...(exitCode !== undefined ? { exitCode } : {}),
    });
  }
}

function blockText(c: Rec): string {
  if (c.type === 'text') return String(c.text ?? '');
  if (c.type === 'toolConfirmationRequest') return `confirm ${String(c.toolName ?? 'a tool')}${c.prompt ? `: ${String(c.prompt)}` : ''} ${argsOf(c.arguments ?? {})}`;
  if (c.type === 'actionRequired' && isRecord(c.data)) return String(c.data.message ?? c.data.prompt ?? `${String(c.data.actionType ?? 'action')} ${String(c.data.toolName ?? c.data.tool_name ?? '')}`.trim());
  return `[${String(c.type)}]`;
}

