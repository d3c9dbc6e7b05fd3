import { pointerOf } from '../io/jsonScan';
import type { RecordedUsage, SourceLocation, Step, TrajectoryMeta } from '../model';
import { argsOf, isRecord, replayOne, StepBuilder, StepRecorder, type StepSink } from '../steps';
import type { FormatAdapter, JsonlRecord, ParseContext, ParsedInput, ParsedTrajectory, RecordParser } from './adapter';
import { parseRecords, skipRecord } from './adapter';
import { stringOrUndefined, titleFromSteps } from './chatMessages';
import { num, obj, recordedUsage, sumUsage } from './usage';
import { looksLikeGeminiStreamJson, parseGeminiStreamJson } from './geminiStreamJson';
import { labelWith } from './injected';
import { addGeminiUserText, looksLikeGeminiContents, parseGeminiContents, unmaskedOutput } from './geminiContents';
import { extraOf } from '../meta';
import { imagesOf, isImagePart } from './images';
import { geminiShellExit } from './geminiShell';
import { looksLikeGeminiShare, sharedContents } from './geminiShare';

// Gemini CLI sessions (`~/.gemini/tmp/<project hash>/chats/`), as ChatRecordingService writes
// them: the older `session-*.json` (`{sessionId, projectHash, startTime, messages}`), and the
// newer JSON Lines (a metadata line, then message lines, `{$set: {...}}` metadata updates that
// may replace the whole message list, and `{$rewindTo: id}`). A message line that repeats an id
// replaces the earlier one. Tool calls and their results live on the `gemini` message. A bare list
// of API contents (`/chat save`, checkpoints) is read by geminiContents.ts.

type Msg = Record<string, unknown>;
interface Located { msg: Msg; location: SourceLocation }

function isSessionHeader(v: unknown): boolean {
  return isRecord(v) && typeof v.sessionId === 'string' && typeof v.projectHash === 'string';
}

function isMessage(v: unknown): boolean {
  return isRecord(v) && typeof v.id === 'string' && typeof v.type === 'string' && 'content' in v;
}

/** Some versions record the model's turns as `type: "model"`, with API `parts` and sometimes no id. */
function isModelTurn(v: unknown): v is Msg {
  return isRecord(v) && v.type === 'model' && ('content' in v || Array.isArray(v.parts));
}

export const geminiCliAdapter: FormatAdapter = {
  id: 'gemini-cli',
  label: 'Gemini CLI session',
  fileNames: ['*.json', '*.jsonl'],
  // `/chat share chat.md`: the same contents written as Markdown (geminiShare.ts).
  otherFileNames: ['*.md'],
  tools: { create: ['write_file'], edit: ['replace'], read: ['read_file', 'read_many_files'], command: ['run_shell_command'] },
  sniff(input) {
    if (input.shape === 'text') return looksLikeGeminiShare(input.text) ? 0.95 : 0;
    if (input.shape === 'json') {
      const v = input.value;
      if (looksLikeGeminiContents(v)) return 0.95; // the API's `contents`: `[{role, parts}]`
      return isSessionHeader(v) && Array.isArray((v as Msg).messages) ? 0.97 : 0;
    }
    if (input.shape !== 'jsonl') return 0;
    const head = input.records.slice(0, 20).map((r) => r.value);
    if (isSessionHeader(head[0])) return 0.97;
    if (looksLikeGeminiStreamJson(head)) return 0.95; // `--output-format stream-json`
    // A session whose header line was lost still has `$set` lines and typed messages.
    const typed = head.filter((v) => isMessage(v) && ['user', 'gemini', 'model', 'info', 'error', 'warning'].includes(String((v as Msg).type))).length;
    return typed > 0 && head.some((v) => isRecord(v) && isRecord(v.$set)) ? 0.9 : 0;
  },
  recordParser(ctx) {
    return new SessionLines(ctx);
  },
  parse(input, ctx) {
    if (input.shape === 'text') {
      const shared = sharedContents(input.text);
      return parseGeminiContents(shared.map((s) => s.content), ctx, (i) => shared[i].location);
    }
    if (input.shape === 'jsonl') return parseRecords(new SessionLines(ctx), input.records);
    if (input.shape === 'json' && looksLikeGeminiContents(input.value)) return parseGeminiContents(input.value as unknown[], ctx);
    const { header, messages } = readSession(input, ctx);
    return sessionOf(header, messages, ctx);
  },
};

/** The steps of a session's messages, in order. */
function sessionOf(header: Msg, messages: Located[], ctx: ParseContext): ParsedTrajectory {
  const b = new StepBuilder();
  const usages: RecordedUsage[] = [];
  let model: string | undefined;
  for (const { msg, location } of messages) {
    model ??= stringOrUndefined(msg.model);
    const usage = addMessage(b, msg, location);
    if (usage) usages.push(usage);
  }
  return sessionTrajectory(header, b.finish(), usages, model, ctx);
}

function sessionTrajectory(header: Msg, steps: Step[], usages: RecordedUsage[], model: string | undefined, ctx: ParseContext): ParsedTrajectory {
  const meta: TrajectoryMeta = {
    agent: 'gemini-cli',
    model,
    sessionId: stringOrUndefined(header.sessionId),
    startTime: stringOrUndefined(header.startTime),
    extra: extraOf({ projectHash: stringOrUndefined(header.projectHash) }),
  };
  const recorded = sumUsage(usages);
  if (recorded) meta.recorded = recorded;
  const summary = stringOrUndefined(header.summary);
  return { title: summary ?? titleFromSteps(steps, `Gemini CLI session ${meta.sessionId ?? ctx.fileName}`), steps, meta };
}

/**
 * A message's steps, made when its line is read (`StepRecorder`) and kept until the end, when they
 * are numbered in order: a later `$rewindTo` may drop them, or a later line for the same id replace
 * them. A message of one step (most are) is kept as that step alone.
 */
class MadeMessage {
  constructor(
    readonly id: string,
    readonly location: SourceLocation,
    readonly steps: StepRecorder,
    readonly usage: RecordedUsage | undefined,
    readonly model: string | undefined,
  ) {}
}

/** A live message: its one step (`closesFirst` says whether open calls close before it), or all it made. */
type LiveMessage = Step | MadeMessage;

/**
 * A JSON Lines session read line by line (the loader hands the lines over as it reads them, and
 * `parse` feeds them the same way). Each message becomes its steps as it is read (`MadeMessage`);
 * the steps are placed at the end, when no later line can drop or replace them. Stream-json output
 * (`--output-format stream-json`) is told apart on its first 20 lines.
 */
class SessionLines implements RecordParser {
  /** Lines until 20 are in (or the end): what tells stream-json apart. */
  private first: JsonlRecord[] | undefined = [];
  /** Stream-json output: its lines, parsed at the end by `parseGeminiStreamJson`. */
  private streamJson: JsonlRecord[] | undefined;
  // Null prototype and assigned in place: copying the header per `$set` line is quadratic, and a
  // `__proto__` key from the log must stay a plain key.
  private readonly header: Msg = Object.create(null);
  /** The live messages in order, whether each closes open calls first, and each live id's place. */
  private readonly messages: LiveMessage[] = [];
  private readonly closesFirst: boolean[] = [];
  private readonly placeOf = new Map<string, number>();
  private rewound = 0;

  constructor(private readonly ctx: ParseContext) {}

  add(record: JsonlRecord): void {
    if (this.first) {
      this.first.push(record);
      if (this.first.length === 20) this.decide();
      return;
    }
    if (this.streamJson) this.streamJson.push(record);
    else this.line(record);
  }

  finish(): ParsedTrajectory {
    if (this.first) this.decide();
    if (this.streamJson) return parseGeminiStreamJson(this.streamJson, this.ctx.fileName, this.ctx);
    this.placeOf.clear();
    if (this.rewound > 0) this.ctx.warnings.push({ message: `${this.rewound} message(s) were rewound (/rewind) and are not shown, as Gemini CLI drops them too.` });
    const b = new StepBuilder();
    const usages: RecordedUsage[] = [];
    let model: string | undefined;
    const { messages, closesFirst } = this;
    for (let i = 0; i < messages.length; i++) {
      const live = messages[i];
      if (live instanceof MadeMessage) {
        model ??= live.model;
        if (live.usage) usages.push(live.usage);
        live.steps.replay(b);
      } else {
        replayOne(b, live, closesFirst[i]);
      }
    }
    messages.length = 0;
    return sessionTrajectory(this.header, b.finish(), usages, model, this.ctx);
  }

  private decide(): void {
    const first = this.first ?? [];
    this.first = undefined;
    if (looksLikeGeminiStreamJson(first.map((r) => r.value))) this.streamJson = first;
    else for (const r of first) this.line(r);
  }

  /** A message line: a new id is added at the end; a known one takes its final form in place, on the line it was first on. */
  private message(msg: Msg, line: number): void {
    const id = msg.id as string;
    const at = this.placeOf.get(id);
    if (at !== undefined) {
      this.place(at, id, msg, locationOf(this.messages[at]));
      // Read, into the step of the line the message was first on.
      if (line !== locationOf(this.messages[at])?.line) skipRecord(this.ctx, `${String(msg.type)} (a later form of an earlier line's message, read into its step)`, { line });
      return;
    }
    this.placeOf.set(id, this.messages.length);
    this.place(this.messages.length, id, msg, { line });
  }

  private place(at: number, id: string, msg: Msg, location: SourceLocation): void {
    const made = new StepRecorder();
    const usage = addMessage(made, msg, location);
    const model = stringOrUndefined(msg.model);
    const one = made.isOneStep && usage === undefined && model === undefined;
    this.messages[at] = one ? made.steps[0] : new MadeMessage(id, location, made, usage, model);
    this.closesFirst[at] = made.closesFirst;
  }

  private line({ value, line }: JsonlRecord): void {
    if (!isRecord(value)) return;
    if (typeof value.$rewindTo === 'string') {
      // Drops the named message and everything after it, as the CLI's loader does.
      const from = this.placeOf.get(value.$rewindTo) ?? 0;
      for (let k = from; k < this.messages.length; k++) this.placeOf.delete(idOf(this.messages[k]));
      this.rewound += this.messages.length - from;
      this.messages.length = from;
      this.closesFirst.length = from;
    } else if (isMessage(value)) {
      this.message(value, line); // a later line for the same id is the message's final form
    } else if (isRecord(value.$set)) {
      const set = value.$set;
      Object.assign(this.header, set);
      // A synced history (after compression or masking): known ids update, new ones (the summary) are added.
      if (Array.isArray(set.messages)) for (const m of set.messages) if (isMessage(m)) this.message(m, line);
    } else if (isSessionHeader(value)) {
      Object.assign(this.header, value);
    }
    nameMetadataLine(value, line, this.ctx);
  }
}

function idOf(live: LiveMessage): string {
  return live instanceof MadeMessage ? live.id : live.sourceId!;
}

function locationOf(live: LiveMessage): SourceLocation {
  return live instanceof MadeMessage ? live.location : live.location!;
}

/** The header, `$set` and `$rewindTo` lines of a JSON Lines session are metadata: named, not lost. */
function nameMetadataLine(value: Msg, line: number, ctx: ParseContext): void {
  if (isRecord(value.$set)) skipRecord(ctx, '$set (session metadata)', { line });
  else if (typeof value.$rewindTo === 'string') skipRecord(ctx, '$rewindTo (rewind)', { line });
  else if (isSessionHeader(value)) skipRecord(ctx, 'session header', { line });
}

/** The older one-document session: its header and messages. */
function readSession(input: ParsedInput, ctx: ParseContext): { header: Msg; messages: Located[] } {
  const value = input.shape === 'json' && isRecord(input.value) ? input.value : {};
  const list = Array.isArray(value.messages) ? value.messages : [];
  const messages: Located[] = [];
  list.forEach((msg, i) => {
    const location = { pointer: pointerOf('messages', i) };
    if (isMessage(msg)) messages.push({ msg: msg as Msg, location });
    else if (isModelTurn(msg)) messages.push({ msg: { ...msg, content: 'content' in msg ? msg.content : msg.parts }, location });
    else skipRecord(ctx, `${isRecord(msg) && typeof msg.type === 'string' ? msg.type : 'item'} (not a message)`, location);
  });
  return { header: value, messages };
}

/** Adds the steps of one message; returns its recorded usage, if any. */
function addMessage(b: StepSink, msg: Msg, location: SourceLocation): RecordedUsage | undefined {
  const base = { location, timestamp: stringOrUndefined(msg.timestamp), sourceId: stringOrUndefined(msg.id) };
  const text = partsText(msg.content);
  switch (msg.type) {
    case 'user':
      if (cliWritten(msg)) {
        // The person saw only a tool's response here: the CLI sent the words itself ("Please continue.").
        b.add({ ...base, kind: 'environment', text, label: labelWith('sent by the CLI', text.split('\n', 1)[0].trim().slice(0, 80)) });
        return undefined;
      }
      addGeminiUserText(b, text, { ...base, ...imagesOf(msg.content) });
      return undefined;
    case 'gemini':
    case 'model':
      return addGeminiMessage(b, msg, base, text);
    default:
      b.add({ ...base, kind: 'other', text, label: String(msg.type) });
      return undefined;
  }
}

function addGeminiMessage(b: StepSink, msg: Msg, base: { location: SourceLocation; timestamp?: string; sourceId?: string }, text: string): RecordedUsage | undefined {
  const start = b.steps.length;
  const calls = Array.isArray(msg.toolCalls) ? msg.toolCalls.filter(isRecord) : [];
  for (const thought of Array.isArray(msg.thoughts) ? msg.thoughts.filter(isRecord) : []) {
    const subject = stringOrUndefined(thought.subject);
    const description = stringOrUndefined(thought.description) ?? '';
    b.add({ ...base, kind: 'thought', text: subject ? `${subject}: ${description}` : description, label: 'thinking' });
  }
  if (text || calls.length === 0) b.add({ ...base, kind: calls.length > 0 ? 'thought' : 'assistant', text, label: 'gemini' });
  const model = stringOrUndefined(msg.model);
  const tokens = obj(msg, 'tokens');
  // promptTokenCount includes cached content; thinking and tool-use prompts are billed as well.
  const usage = recordedUsage({
    model,
    input: sumDefined(num(tokens.input), num(tokens.tool)),
    output: sumDefined(num(tokens.output), num(tokens.thoughts)),
    cacheRead: num(tokens.cached),
  });
  let lastOutput = b.steps[b.steps.length - 1];
  for (const call of calls) {
    const args = argsOf(call.args ?? {});
    const callId = stringOrUndefined(call.id);
    const name = String(call.name ?? 'tool');
    lastOutput = b.add({ ...base, timestamp: stringOrUndefined(call.timestamp) ?? base.timestamp, kind: 'tool_call', text: args, label: 'tool call', tool: { name, args, callId } });
  }
  if (usage && lastOutput && lastOutput.index >= start) lastOutput.usage = usage;
  for (const call of calls) {
    if (call.result === undefined && call.resultDisplay === undefined) continue;
    const status = String(call.status ?? '');
    const text = resultText(call);
    const exitCode = geminiShellExit(text);
    b.add({
      ...base,
      timestamp: stringOrUndefined(call.timestamp) ?? base.timestamp,
      kind: 'tool_result',
      text,
      label: status ? `result (${status})` : 'result',
      isError: status === 'error' || status === 'cancelled' ? true : undefined,
      ...(exitCode !== undefined ? { exitCode } : {}),
      tool: { name: '', args: '', callId: stringOrUndefined(call.id) },
    });
  }
  return usage;
}

/** What the model got back: the functionResponse parts, else what the CLI displayed. */
function resultText(call: Msg): string {
  const parts = Array.isArray(call.result) ? call.result : call.result === undefined || call.result === null ? [] : [call.result];
  const texts: string[] = [];
  for (const part of parts) {
    if (!isRecord(part)) continue;
    const response = obj(part, 'functionResponse').response;
    if (isRecord(response)) {
      const out = response.output ?? response.error ?? response.content;
      texts.push(typeof out === 'string' ? unmaskedOutput(out) : JSON.stringify(out ?? response));
    } else if (typeof part.text === 'string') texts.push(part.text);
  }
  if (texts.length > 0) return texts.join('\n');
  return typeof call.resultDisplay === 'string' ? call.resultDisplay : JSON.stringify(call.resultDisplay ?? '');
}

/**
 * A user message the CLI wrote: it records what it showed the person (`displayContent`) beside
 * what it sent, and what it showed is only a tool's response, no words of the person.
 */
function cliWritten(msg: Msg): boolean {
  const shown = msg.displayContent;
  if (!Array.isArray(shown) || shown.length === 0) return false;
  return shown.every((p) => isRecord(p) && isRecord(p.functionResponse)) && partsText(msg.content).trim() !== '';
}

/** Text of a PartListUnion: a string, a part, or parts (`text`, inline data, function calls). */
function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  const parts = Array.isArray(content) ? content : content === undefined || content === null ? [] : [content];
  return parts.map((p) => {
    if (typeof p === 'string') return p;
    if (!isRecord(p)) return '';
    if (typeof p.text === 'string') return p.text;
    if (isRecord(p.inlineData) || isRecord(p.fileData)) return isImagePart(p) ? '[image]' : '[file]';
    if (isRecord(p.functionResponse)) return JSON.stringify(p.functionResponse.response ?? {});
    if (isRecord(p.functionCall)) return `[call ${String(p.functionCall.name)}]`;
    return '';
  }).filter((t) => t !== '').join('\n');
}

function sumDefined(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
}
