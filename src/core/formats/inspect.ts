import type { RecordedUsage, TrajectoryMeta } from '../model';
import { pointerOf } from '../io/jsonScan';
import { isRecord, StepBuilder } from '../steps';
import type { FormatAdapter, ParsedInput, ParsedTrajectory } from './adapter';
import { addChatMessage, stringOrUndefined } from './chatMessages';
import { extraOf } from '../meta';
import { num, recordedUsage, sumUsage } from './usage';

// Inspect AI eval logs: a `.json` log (`{eval, samples: [...]}`), an `.eval` zip (the loader hands
// it over as a folder: `header.json`, `samples/<id>_epoch_<n>.json`), or one sample file.
// Every sample is a run of its own; its `messages` are chat messages in Inspect's dialect.

type Rec = Record<string, unknown>;

interface Log {
  header?: Rec;
  samples: { sample: Rec; pointer?: (...t: (string | number)[]) => string }[];
}

function isSample(v: unknown): v is Rec {
  return isRecord(v) && 'id' in v && 'epoch' in v && Array.isArray(v.messages);
}

function logOf(input: ParsedInput): Log | undefined {
  if (input.shape === 'json' && isRecord(input.value)) {
    const v = input.value;
    if (isRecord(v.eval) && (Array.isArray(v.samples) || 'version' in v)) {
      const samples = (Array.isArray(v.samples) ? v.samples : []).map((sample, i) => ({
        sample: sample as Rec, pointer: (...t: (string | number)[]) => pointerOf('samples', i, ...t),
      }));
      return { header: v, samples: samples.filter((s) => isRecord(s.sample)) };
    }
    if (isSample(v)) return { samples: [{ sample: v, pointer: (...t) => pointerOf(...t) }] };
  }
  if (input.shape === 'folder') {
    // `header.json` holds the results and usage totals; the journal's start record is all a run cut short leaves.
    const header = input.files.find((f) => f.name === 'header.json') ?? input.files.find((f) => f.name === '_journal/start.json');
    const samples = input.files
      .filter((f) => f.name.startsWith('samples/') && isSample(f.value))
      .sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }))
      // Pointers address one document; inside an archive there is none to reveal, so no location.
      .map((f) => ({ sample: f.value as Rec }));
    if ((header && isRecord(header.value) && isRecord(header.value.eval)) || samples.length > 0) {
      return { header: header && isRecord(header.value) ? header.value : undefined, samples };
    }
  }
  return undefined;
}

export const inspectAdapter: FormatAdapter = {
  id: 'inspect',
  label: 'Inspect AI eval log',
  fileNames: ['*.eval', '*.json'],
  sniff(input) {
    const log = logOf(input);
    if (!log) return 0;
    return log.header ? 0.97 : 0.9;
  },
  parse(input, ctx) {
    const log = logOf(input)!;
    const spec = log.header && isRecord(log.header.eval) ? log.header.eval : {};
    const runs = log.samples.map(({ sample, pointer }) => sampleRun(sample, pointer));
    if (runs.length === 0) ctx.warnings.push({ message: 'This eval log holds no samples (it was written without them, or the run had not finished one).' });
    const stats = log.header && isRecord(log.header.stats) ? log.header.stats : {};
    const meta: TrajectoryMeta = {
      agent: 'inspect',
      model: stringOrUndefined(spec.model),
      task: stringOrUndefined(spec.task),
      recorded: usageOf(stats.model_usage),
      extra: extraOf({ status: stringOrUndefined(log.header?.status) }),
    };
    const task = stringOrUndefined(spec.task);
    const title = task ? `${task}${meta.model ? ` (${meta.model})` : ''}` : runs.length === 1 ? runs[0].title : ctx.fileName;
    return { title, steps: [], runs, meta };
  },
};

function sampleRun(sample: Rec, pointer?: (...t: (string | number)[]) => string): ParsedTrajectory {
  const b = new StepBuilder();
  const attachments = isRecord(sample.attachments) ? sample.attachments : {};
  const messages = Array.isArray(sample.messages) ? sample.messages : [];
  const calls = modelCalls(sample, messages);
  messages.forEach((raw, j) => {
    if (!isRecord(raw)) return;
    const location = pointer ? { pointer: pointer('messages', j) } : undefined;
    const msg = toChatMessage(raw, attachments);
    const metadata = isRecord(raw.metadata) ? raw.metadata : {};
    if (raw.role === 'user' && metadata.summary === true) {
      // Inspect's summary compaction replaces earlier turns with one user message flagged as the summary.
      const summary = String(msg.content);
      b.add({ kind: 'compaction', text: summary, label: 'summary', location, sourceId: stringOrUndefined(raw.id), compaction: { summary } });
      b.closeOpenCalls();
      return;
    }
    const toolResultInUser = raw.role === 'user' && raw.tool_call_id !== undefined && raw.tool_call_id !== null;
    const before = b.steps.length;
    addChatMessage(b, msg, { location, userKind: toolResultInUser ? 'tool_result' : undefined });
    const call = calls.get(j);
    for (const step of b.steps.slice(before)) {
      step.sourceId ??= stringOrUndefined(raw.id);
      if (call) {
        step.model ??= call.usage.model;
        step.timestamp ??= call.timestamp;
      }
    }
    // The call's usage on its first step only, so it is billed once.
    const first = b.steps[before];
    if (call && first) first.usage = call.usage;
  });
  const steps = b.finish();
  const models = isRecord(sample.model_usage) ? Object.keys(sample.model_usage) : [];
  return {
    title: sampleTitle(sample, attachments),
    steps,
    meta: { model: models.join(', ') || undefined, recorded: usageOf(sample.model_usage), extra: extraOf({ sampleId: stringOrUndefined(sample.id), epoch: sample.epoch }) },
  };
}

/** Inspect's message → an OpenAI-style chat message that `addChatMessage` understands. */
function toChatMessage(m: Rec, attachments: Rec): Rec {
  const texts: string[] = [];
  const reasoning: string[] = [];
  const parts = typeof m.content === 'string' ? [m.content] : Array.isArray(m.content) ? m.content : [];
  for (const part of parts) {
    if (typeof part === 'string') texts.push(resolve(part, attachments));
    else if (!isRecord(part)) continue;
    else if (part.type === 'text') texts.push(resolve(String(part.text ?? ''), attachments));
    else if (part.type === 'reasoning') {
      const visible = part.redacted === true ? stringOrUndefined(part.summary) ?? '[redacted reasoning]' : String(part.reasoning ?? '');
      reasoning.push(resolve(visible, attachments));
    } else if (part.type === 'tool_use') texts.push(`[${String(part.name ?? 'tool')} call]`);
    else texts.push(`[${String(part.type)}]`);
  }
  if (m.role === 'tool' && isRecord(m.error) && typeof m.error.message === 'string') texts.push(m.error.message);
  const toolCalls = Array.isArray(m.tool_calls) ? m.tool_calls.filter(isRecord).map((call) => ({
    id: call.id,
    // Inspect writes the tool's name in `function` and the arguments as an object.
    function: { name: typeof call.function === 'string' ? call.function : String(call.name ?? 'tool'), arguments: call.arguments },
  })) : undefined;
  return {
    role: m.role,
    content: texts.filter((s) => s !== '').join('\n'),
    reasoning: reasoning.join('\n') || undefined,
    tool_calls: toolCalls,
    tool_call_id: typeof m.tool_call_id === 'string' ? m.tool_call_id : undefined,
    name: stringOrUndefined(m.function),
    // The tool's failure (ToolCallError), which the chat reader takes as the result's verdict.
    ...(m.role === 'tool' && isRecord(m.error) ? { error: m.error } : {}),
  };
}

/** Inspect moves large strings to `attachments` and leaves `attachment://<hash>` in their place. */
function resolve(text: string, attachments: Rec): string {
  if (!text.startsWith('attachment://')) return text;
  const found = attachments[text.slice('attachment://'.length)];
  return typeof found === 'string' ? found : text;
}

function sampleTitle(sample: Rec, attachments: Rec): string {
  let input = '';
  if (typeof sample.input === 'string') input = resolve(sample.input, attachments);
  else if (Array.isArray(sample.input)) {
    const first = sample.input.find((m) => isRecord(m) && m.role === 'user');
    if (isRecord(first)) input = String(toChatMessage(first, attachments).content);
  }
  const line = input.trim().split('\n')[0] ?? '';
  const head = `Sample ${String(sample.id)}, epoch ${String(sample.epoch)}`;
  const full = line ? `${head}: ${line}` : head;
  return full.length > 100 ? full.slice(0, 99) + '…' : full;
}

/** `model_usage` is per model; the run's total is their sum, named after the model when there is one. */
function usageOf(modelUsage: unknown): RecordedUsage | undefined {
  if (!isRecord(modelUsage)) return undefined;
  const perModel = Object.entries(modelUsage).filter((e): e is [string, Rec] => isRecord(e[1])).map(([name, u]) => inspectUsage(u, name));
  const total = sumUsage(perModel);
  if (total && perModel.length > 1) total.model = perModel.map((u) => u?.model).filter(Boolean).join(', ');
  return total;
}

/**
 * One Inspect `ModelUsage`. Its `input_tokens` is the whole prompt from OpenAI but only the uncached
 * part from Anthropic (cache reads and writes apart); `total_tokens` is every input kind plus the
 * output either way, so it tells which. Reasoning tokens are part of `output_tokens`, except where
 * the total shows they were counted apart.
 */
function inspectUsage(u: Rec, model: string | undefined): RecordedUsage | undefined {
  const input = num(u.input_tokens) ?? 0;
  const read = num(u.input_tokens_cache_read) ?? 0;
  const write = num(u.input_tokens_cache_write) ?? 0;
  const reasoning = num(u.reasoning_tokens) ?? 0;
  let output = num(u.output_tokens);
  const total = num(u.total_tokens);
  const cachedApart = read + write > 0 && (total === undefined ? read + write > input : total - (output ?? 0) === input + read + write);
  const prompt = cachedApart ? input + read + write : input;
  if (output !== undefined && reasoning > 0 && total === prompt + output + reasoning) output += reasoning;
  return recordedUsage({
    model,
    input: num(u.input_tokens) === undefined && !cachedApart ? undefined : prompt,
    output,
    cacheRead: u.input_tokens_cache_read === undefined ? undefined : read,
    cacheWrite: u.input_tokens_cache_write === undefined ? undefined : write,
  });
}

interface ModelCall {
  usage: RecordedUsage;
  timestamp?: string;
}

/**
 * The usage of each model call, keyed by the index of the message it produced. A `model` event's
 * reply carries the id of the message in `messages`; events without ids are matched to the
 * assistant messages in order.
 */
function modelCalls(sample: Rec, messages: readonly unknown[]): Map<number, ModelCall> {
  const calls = new Map<number, ModelCall>();
  const events = Array.isArray(sample.events) ? sample.events : [];
  const byId = new Map<string, ModelCall>();
  const unnamed: ModelCall[] = [];
  for (const e of events) {
    if (!isRecord(e) || e.event !== 'model' || !isRecord(e.output) || !isRecord(e.output.usage)) continue;
    const usage = inspectUsage(e.output.usage, stringOrUndefined(e.model) ?? stringOrUndefined(e.output.model));
    if (!usage) continue;
    const call: ModelCall = { usage, timestamp: stringOrUndefined(e.timestamp) };
    const choice = Array.isArray(e.output.choices) ? e.output.choices[0] : undefined;
    const id = isRecord(choice) && isRecord(choice.message) ? stringOrUndefined(choice.message.id) : undefined;
    if (id) byId.set(id, call);
    else unnamed.push(call);
  }
  let next = 0;
  messages.forEach((m, j) => {
    if (!isRecord(m) || m.role !== 'assistant') return;
    const id = stringOrUndefined(m.id);
    const call = (id ? byId.get(id) : undefined) ?? (byId.size === 0 ? unnamed[next++] : undefined);
    if (call) calls.set(j, call);
  });
  return calls;
}
