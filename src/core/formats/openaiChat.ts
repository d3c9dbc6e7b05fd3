import { pointerOf } from '../io/jsonScan';
import { isRecord, StepBuilder } from '../steps';
import type { FormatAdapter, ParsedInput } from './adapter';
import { ANTHROPIC_ONLY_BLOCKS } from './anthropicBlocks';
import { codexTokenCount } from './codex';
import { addChatMessage, chatMessageShare, isChatMessage, titleFromSteps } from './chatMessages';
import { FROM_REQUEST, noteRetention, retentionInRequest } from './cacheRetention';
import { looksLikeClineHistory } from './clineHistory';
import { looksLikeGooseMessages } from './goose';
import { markClosingActions } from './closingAction';
import { isDistinctlyResponses } from './responseItems';
import type { RecordedUsage, Step, TrajectoryMeta } from '../model';
import { num, openaiUsageParts, recordedUsage } from './usage';
import { historyLines } from './sweAgent';

function hasAnthropicOnlyBlock(m: unknown): boolean {
  return isRecord(m) && Array.isArray(m.content) && m.content.some((b) => isRecord(b) && typeof b.type === 'string' && ANTHROPIC_ONLY_BLOCKS.has(b.type));
}

const REQUEST_KEYS = new Set(['messages', 'model', 'tools', 'metadata', 'meta', 'id', 'temperature', 'top_p', 'max_tokens', 'max_completion_tokens',
  'stream', 'tool_choice', 'response_format', 'seed', 'stop', 'n', 'user', 'parallel_tool_calls', 'reasoning_effort', 'usage', 'created', 'object']);

/** A list of messages and where it sits: a bare array, `{messages: [...]}`, or one message per line. */
function messagesOf(input: ParsedInput): { items: unknown[]; pointer?: (i: number) => string; lines?: number[] } | undefined {
  if (input.shape === 'json') {
    if (Array.isArray(input.value)) return { items: input.value, pointer: (i) => pointerOf(i) };
    if (isRecord(input.value) && Array.isArray(input.value.messages)) {
      return { items: input.value.messages, pointer: (i) => pointerOf('messages', i) };
    }
  }
  if (input.shape === 'jsonl') return { items: input.records.map((r) => r.value), lines: input.records.map((r) => r.line) };
  return undefined;
}

/**
 * `meta.turn_contexts` and `meta.token_counts` as a Codex rollout writes them (`turn_context`
 * payloads with their `model`; `token_count` events whose `info.total_token_usage` is the session's
 * running total and `last_token_usage` the call that moved it): the last turn's model, the last
 * total, and each call's own usage with the time its count was written (`_timestamp`).
 */
function rolloutRecordsOf(meta: unknown): { model?: string; totals?: RecordedUsage; calls: CountedCall[] } | undefined {
  if (!isRecord(meta) || (!Array.isArray(meta.turn_contexts) && !Array.isArray(meta.token_counts))) return undefined;
  const turns = Array.isArray(meta.turn_contexts) ? meta.turn_contexts.filter(isRecord) : [];
  const model = turns.map((t) => (typeof t.model === 'string' ? t.model : undefined)).filter((m) => m !== undefined).at(-1);
  const counts = Array.isArray(meta.token_counts) ? meta.token_counts.filter(isRecord) : [];
  const calls: CountedCall[] = [];
  let lastTotal: unknown;
  let totals: RecordedUsage | undefined;
  for (const c of counts) {
    const count = codexTokenCount(c.info, lastTotal, model);
    if (!count) continue;
    lastTotal = count.totalTokens;
    totals = count.total;
    const at = typeof c._timestamp === 'string' ? Date.parse(c._timestamp) : NaN;
    if (count.call && Number.isFinite(at)) calls.push({ at, usage: count.call });
  }
  return { model, totals, calls };
}

interface CountedCall { at: number; usage: RecordedUsage }

/**
 * Each call's usage on the last step the model wrote before its count was written, as Codex's
 * own rollout reader does (codex.ts): the count follows the response, before the tools' outputs.
 * A step that records usage of its own, or a count with no model step before it since the last
 * one, is left as it is.
 */
function attachCountedCalls(steps: Step[], calls: readonly CountedCall[]): void {
  let i = 0;
  let target: Step | undefined;
  for (const call of calls) {
    for (; i < steps.length; i++) {
      const t = steps[i].timestamp ? Date.parse(steps[i].timestamp!) : NaN;
      if (t > call.at) break;
      if (Number.isFinite(t) && MODEL_WRITTEN.has(steps[i].kind)) target = steps[i];
    }
    if (target && !target.usage) target.usage = call.usage;
    target = undefined;
  }
}

const MODEL_WRITTEN: ReadonlySet<Step['kind']> = new Set(['assistant', 'thought', 'tool_call']);

function declaredUsage(u: Record<string, unknown> | undefined, model: string | undefined): RecordedUsage | undefined {
  if (!u) return undefined;
  const source = isRecord(u.usage) ? u.usage : u;
  return recordedUsage({ model: typeof u.model === 'string' ? u.model : model, ...openaiUsageParts(source) });
}

/**
 * An LLM completion log (OpenHands SDK `log_completions`, through LiteLLM): the request's
 * `messages` beside the provider's `response` to them, the `cost` LiteLLM priced and a `timestamp`.
 */
function completionLog(v: unknown): { response: Record<string, unknown>; reply?: Record<string, unknown> } | undefined {
  if (!isRecord(v) || !Array.isArray(v.messages) || !isRecord(v.response) || !Array.isArray(v.response.choices)) return undefined;
  const choice = v.response.choices[0];
  return { response: v.response, reply: isRecord(choice) && isChatMessage(choice.message) ? choice.message as Record<string, unknown> : undefined };
}

/**
 * A completion log in OpenHands' non-function-calling mode: `messages` (what the model was sent)
 * holds the calls as `<function=…>` text and the results as user messages, while `raw_messages`
 * holds the same conversation with its native calls and results, paired by id, and the task
 * without the in-context example. The native one is read, and the warning says so.
 */
function nativeMessages(input: ParsedInput, ctx: { warnings: { message: string }[] }): ReturnType<typeof messagesOf> {
  if (input.shape !== 'json' || !isRecord(input.value) || !completionLog(input.value)) return undefined;
  const { messages, raw_messages: raw } = input.value;
  if (!Array.isArray(raw) || !Array.isArray(messages) || raw.length === 0 || chatMessageShare(raw) < 0.8) return undefined;
  const native = (items: unknown[]) => items.some((m) => isRecord(m) && (m.role === 'tool' || (Array.isArray(m.tool_calls) && m.tool_calls.length > 0)));
  if (!native(raw) || native(messages)) return undefined;
  ctx.warnings.push({ message: 'This completion log was made in non-function-calling mode: the model was sent its calls as text (`messages`); the steps are read from `raw_messages`, where the same calls and results are native and paired.' });
  return { items: raw, pointer: (i) => pointerOf('raw_messages', i) };
}

/** Seconds since the epoch (Python's `time.time()`) as an ISO date. */
function isoFromSeconds(v: unknown): string | undefined {
  const s = num(v);
  return s !== undefined && s > 0 && s < 1e11 ? new Date(s * 1000).toISOString() : undefined;
}

/** The usage a chat message records for the call that wrote it, with its cost and model, if any. */
function replyUsage(msg: Record<string, unknown>): RecordedUsage | undefined {
  if (!isRecord(msg.usage)) return undefined;
  const raw = isRecord(msg.raw_data) ? msg.raw_data : {};
  const model = typeof msg.model === 'string' ? msg.model : typeof raw.model === 'string' ? raw.model : undefined;
  return declaredUsage({ ...msg.usage, ...(typeof msg.cost === 'number' ? { cost: msg.cost } : {}) }, model);
}

export const openAiChatAdapter: FormatAdapter = {
  id: 'openai-chat',
  label: 'OpenAI chat-completions messages',
  fileNames: ['*.json', '*.jsonl', '*.ndjson'],
  sniff(input) {
    const found = messagesOf(input);
    if (!found || found.items.length === 0) return 0;
    const share = chatMessageShare(found.items);
    if (share < 0.8) return 0;
    // Lists that only look like chat messages: Anthropic blocks, Cline's history, Responses parts.
    const sample = found.items.slice(0, 20);
    if (sample.some(hasAnthropicOnlyBlock) || sample.some(isDistinctlyResponses) || looksLikeClineHistory(sample) || looksLikeGooseMessages(sample) || historyLines(input)) return 0;
    // `{messages}` beside the keys of a chat request is a saved request or conversation; with other
    // keys it belongs to a richer format (mini-swe-agent, a dataset record), and when none reads it
    // the loader still finds the messages and says where.
    if (input.shape === 'json' && isRecord(input.value)) {
      if (completionLog(input.value)) return 0.85;
      const extra = Object.keys(input.value).filter((k) => !REQUEST_KEYS.has(k));
      return extra.length === 0 ? 0.85 : 0;
    }
    return 0.8;
  },
  parse(input, ctx) {
    const found = nativeMessages(input, ctx) ?? messagesOf(input)!;
    const b = new StepBuilder();
    let callModel: string | undefined;
    found.items.forEach((item, i) => {
      const location = found.lines ? { line: found.lines[i] } : { pointer: found.pointer!(i) };
      if (!isChatMessage(item)) {
        ctx.warnings.push({ message: `item ${i + 1} is not a chat message and was skipped.`, line: found.lines?.[i] });
        return;
      }
      const before = b.steps.length;
      addChatMessage(b, item, { location });
      // A reply that records the call that made it (τ²-bench: `usage`, LiteLLM's `cost`, the
      // provider's response under `raw_data`): that call's usage, on its first step. The user's
      // messages may record a simulator's calls: those are not the agent's.
      const usage = item.role === 'assistant' ? replyUsage(item) : undefined;
      if (usage && b.steps.length > before) {
        b.steps[before].usage = usage;
        callModel ??= usage.model;
      }
    });
    const doc = input.shape === 'json' && isRecord(input.value) ? input.value : {};
    const log = completionLog(doc);
    const model = typeof doc.model === 'string' ? doc.model : log && typeof log.response.model === 'string' ? log.response.model : undefined;
    const meta: TrajectoryMeta = { model: model ?? callModel };
    if (log) {
      // The reply is the call the log records: its usage and LiteLLM's cost go on its first step.
      const usage = declaredUsage(isRecord(log.response.usage) ? { ...log.response.usage, model, cost: doc.cost } : undefined, model);
      const before = b.steps.length;
      if (log.reply) addChatMessage(b, { ...log.reply, timestamp: isoFromSeconds(doc.timestamp) }, { location: { pointer: pointerOf('response', 'choices', 0, 'message') } });
      // One call of the run, not its totals: no `meta.recorded`, or the earlier requests would be set against it.
      if (usage && b.steps.length > before) b.steps[before].usage = usage;
    }
    const steps = b.finish();
    // An OpenHands agent's `finish` call hands control back; nothing answers it.
    if (log) markClosingActions(steps);
    // A Codex session exported with its rollout's own records under `meta`: its turns' model and running totals.
    const rollout = log ? undefined : rolloutRecordsOf(doc.meta);
    if (rollout?.model) meta.model ??= rollout.model;
    if (rollout && !steps.some((st) => st.usage)) attachCountedCalls(steps, rollout.calls);
    // Token counts a saved conversation records for itself, under `usage` or `meta`.
    const recorded = log ? undefined : declaredUsage(isRecord(doc.usage) ? doc.usage : isRecord(doc.meta) ? doc.meta : undefined, meta.model) ?? rollout?.totals;
    if (recorded) meta.recorded = recorded;
    noteRetention(meta, retentionInRequest(doc), FROM_REQUEST);
    return { title: titleFromSteps(steps, ctx.fileName), steps, meta };
  },
};
