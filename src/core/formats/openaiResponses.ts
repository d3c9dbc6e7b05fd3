import type { RecordedUsage, TrajectoryMeta } from '../model';
import { FROM_REQUEST, noteRetention, retentionInRequest } from './cacheRetention';
import { pointerOf } from '../io/jsonScan';
import { isRecord, StepBuilder } from '../steps';
import type { FormatAdapter, ParsedInput } from './adapter';
import { stringOrUndefined, titleFromSteps } from './chatMessages';
import { addResponseItem, isDistinctlyResponses, isResponseItem } from './responseItems';
import { openaiUsageParts } from './usage';

// OpenAI Responses API item lists: a session's items from the Agents SDK, a request's `input`,
// a response's `output`, one item a line, or the Agents SDK's saved RunState. Plain `{role, content}` lists stay `openai-chat`.

interface Found {
  items: unknown[];
  pointer?: (i: number) => string;
  lines?: number[];
  doc?: Record<string, unknown>;
}

const LIST_KEYS = ['items', 'input', 'output'] as const;

function itemsOf(input: ParsedInput): Found | undefined {
  if (input.shape === 'json') {
    const v = input.value;
    if (Array.isArray(v)) return { items: v, pointer: (i) => pointerOf(i) };
    if (!isRecord(v)) return undefined;
    const state = runStateItems(v);
    if (state) return state;
    const key = LIST_KEYS.find((k) => Array.isArray(v[k]));
    if (key) return { items: v[key] as unknown[], pointer: (i) => pointerOf(key, i), doc: v };
    return undefined;
  }
  if (input.shape === 'jsonl') return { items: input.records.map((r) => r.value), lines: input.records.map((r) => r.line) };
  return undefined;
}

/**
 * The Agents SDK's saved `RunState` (`RunState.to_json()`, kept while a run waits for an approval):
 * what the run was given (`original_input`, a string or items) and the items it made so far
 * (`generated_items`, each wrapping its Responses item as `raw_item`), in that order.
 */
function runStateItems(v: Record<string, unknown>): Found | undefined {
  if (typeof v.$schemaVersion !== 'string' || !Array.isArray(v.generated_items) || !('original_input' in v)) return undefined;
  const input = typeof v.original_input === 'string' ? [{ type: 'message', role: 'user', content: v.original_input }] : Array.isArray(v.original_input) ? v.original_input : [];
  const generated = v.generated_items as unknown[];
  const items = [...input, ...generated.map((g) => (isRecord(g) ? g.raw_item : g))];
  const at = (i: number) => (i < input.length ? (typeof v.original_input === 'string' ? pointerOf('original_input') : pointerOf('original_input', i)) : pointerOf('generated_items', i - input.length, 'raw_item'));
  return { items, pointer: at, doc: v };
}

export const openAiResponsesAdapter: FormatAdapter = {
  id: 'openai-responses',
  label: 'OpenAI Responses items',
  fileNames: ['*.json', '*.jsonl'],
  sniff(input) {
    const found = itemsOf(input);
    if (!found || found.items.length === 0) return 0;
    const sample = found.items.slice(0, 30);
    // A pre-0.44 Codex rollout is also bare items, after a meta line; that belongs to `codex`.
    if (found.lines && sample.some((v) => isRecord(v) && ('record_type' in v || (typeof v.id === 'string' && typeof v.timestamp === 'string' && !('type' in v))))) return 0;
    if (sample.filter(isResponseItem).length / sample.length < 0.8) return 0;
    // Without a typed item or a Responses content part this is just a chat message list.
    return found.items.some(isDistinctlyResponses) ? 0.95 : 0;
  },
  parse(input, ctx) {
    const found = itemsOf(input)!;
    const b = new StepBuilder();
    found.items.forEach((item, i) => {
      const location = found.lines ? { line: found.lines[i] } : { pointer: found.pointer!(i) };
      if (isResponseItem(item)) addResponseItem(b, item, { location });
      else ctx.warnings.push({ message: `item ${i + 1} is not a Responses item and was skipped.`, line: found.lines?.[i] });
    });
    const steps = b.finish();
    const doc = found.doc;
    const model = doc ? stringOrUndefined(doc.model) : undefined;
    // A RunState keeps the run's totals in its context (`requests` of them); none when nothing was asked yet.
    const stateUsage = doc && isRecord(doc.context) && isRecord(doc.context.usage) && Number(doc.context.usage.requests) > 0 ? doc.context.usage : undefined;
    const meta: TrajectoryMeta = { model, recorded: responseUsage(doc?.usage ?? stateUsage, model) };
    if (doc && isRecord(doc.current_agent)) meta.agent = stringOrUndefined(doc.current_agent.name);
    noteRetention(meta, retentionInRequest(doc), FROM_REQUEST);
    return { title: titleFromSteps(steps, ctx.fileName), steps, meta };
  },
};

/** A saved Response object's `usage` (`input_tokens`, `output_tokens`, `input_tokens_details.cached_tokens`). */
function responseUsage(u: unknown, model: string | undefined): RecordedUsage | undefined {
  if (!isRecord(u)) return undefined;
  const { input, output, cacheRead } = openaiUsageParts(u);
  return { model, inputTokens: input, outputTokens: output, cachedInputTokens: cacheRead };
}
