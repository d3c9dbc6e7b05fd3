import type { SourceLocation } from '../model';
import { isRecord } from '../steps';
import type { FormatAdapter, JsonlRecord, ParsedInput } from './adapter';
import { skipRecord } from './adapter';
import { ExportMessages, type Part } from './opencode';
import { stringOrUndefined } from './chatMessages';

// OpenCode's sync events, the rows of `opencode.db`'s `event` table as a capture writes them:
// `{aggregate_id, seq, type: "message.part.updated.1", id, data: {part | info}}`, one a line. A
// message and each of its parts are written again at every change (a tool part pending, running,
// completed), so the last row of an id is its state; `*.removed` rows take it away. The messages
// so rebuilt are what `opencode export` would write, and are read as the export is.

type Rec = Record<string, unknown>;

/** `message.part.updated.1` → `message.part.updated` (the trailing number is the event's schema version). */
function eventName(v: Rec): string {
  return String(v.type ?? '').replace(/\.\d+$/, '');
}

function isEventRow(v: unknown): v is Rec {
  return isRecord(v) && typeof v.type === 'string' && /^(session|message)\./.test(v.type) && isRecord(v.data) && ('aggregate_id' in v || 'seq' in v);
}

function recordsOf(input: ParsedInput): JsonlRecord[] {
  if (input.shape === 'jsonl') return input.records;
  if (input.shape === 'json' && Array.isArray(input.value)) return input.value.map((value, i) => ({ value, line: i + 1 }));
  return [];
}

interface Kept<T> { value: T; line: number; order: number }

export const opencodeEventsAdapter: FormatAdapter = {
  id: 'opencode-events',
  label: 'OpenCode session events (opencode.db)',
  fileNames: ['*.jsonl', '*.json'],
  sniff(input) {
    const head = recordsOf(input).slice(0, 20).map((r) => r.value);
    return head.length > 0 && head.filter(isEventRow).length >= head.length * 0.8 ? 0.95 : 0;
  },
  parse(input, ctx) {
    let session: Rec = {};
    const messages = new Map<string, Kept<Rec>>();
    const parts = new Map<string, Kept<Part>>();
    let order = 0;
    // Rows in the order the store wrote them (`seq`), file order among equals.
    const rows = recordsOf(input).map((r, i) => ({ r, i })).sort((a, b) => (seqOf(a.r.value) - seqOf(b.r.value)) || a.i - b.i);
    for (const { r } of rows) {
      const v = r.value;
      if (!isEventRow(v)) {
        skipRecord(ctx, 'row (not an OpenCode event)', { line: r.line });
        continue;
      }
      const data = v.data as Rec;
      const name = eventName(v);
      if ((name === 'session.created' || name === 'session.updated') && isRecord(data.info)) {
        session = data.info;
        skipRecord(ctx, `${name} (the session's title, folder and totals)`, { line: r.line });
      } else if (name === 'message.updated' && isRecord(data.info) && typeof data.info.id === 'string') {
        messages.set(data.info.id, { value: data.info, line: r.line, order: messages.get(data.info.id)?.order ?? order++ });
        skipRecord(ctx, `${name} (a message's role, model and usage, read with its parts)`, { line: r.line });
      } else if (name === 'message.part.updated' && isRecord(data.part) && typeof data.part.id === 'string') {
        const earlier = parts.get(data.part.id);
        if (earlier) skipRecord(ctx, `${name} (an earlier state of a part a later row replaces)`, { line: earlier.line });
        parts.set(data.part.id, { value: data.part, line: r.line, order: earlier?.order ?? order++ });
      } else if (name === 'message.removed') messages.delete(String(data.messageID ?? (isRecord(data.info) ? data.info.id : '')));
      else if (name === 'message.part.removed') parts.delete(String(data.partID ?? (isRecord(data.part) ? data.part.id : '')));
      else skipRecord(ctx, `${name} (session bookkeeping)`, { line: r.line });
    }
    // Each message with its parts, in the order the messages were created.
    const byMessage = new Map<string, Kept<Part>[]>();
    for (const p of parts.values()) {
      const id = stringOrUndefined(p.value.messageID);
      if (id === undefined) continue;
      const list = byMessage.get(id) ?? [];
      list.push(p);
      byMessage.set(id, list);
    }
    const created = (m: Kept<Rec>) => (isRecord(m.value.time) && typeof m.value.time.created === 'number' ? m.value.time.created : Infinity);
    const ordered = [...messages.values()].sort((a, b) => created(a) - created(b) || a.order - b.order);
    const lineOf = new Map<Part, number>();
    const reader = new ExportMessages(ctx, (i, k, part): SourceLocation => ({ line: (part && lineOf.get(part)) ?? ordered[i]?.line }));
    ordered.forEach((m, i) => {
      const own = (byMessage.get(String(m.value.id)) ?? []).sort((a, b) => a.order - b.order);
      for (const p of own) lineOf.set(p.value, p.line);
      reader.add({ info: m.value, parts: own.map((p) => p.value) }, i);
    });
    const parsed = reader.finish({ info: session });
    // A part that makes no step is still read: a model call's bounds and usage (step-start, step-finish).
    const stepLines = new Set(parsed.steps.map((st) => st.location?.line));
    for (const p of parts.values()) {
      if (stepLines.has(p.line)) continue;
      const type = String(p.value.type ?? 'part');
      skipRecord(ctx, `message.part.updated (${type === 'step-finish' ? "step-finish: a model call's usage, read" : type === 'step-start' ? 'step-start: a model call begins' : `a ${type} part`})`, { line: p.line });
    }
    return { ...parsed, format: 'opencode' };
  },
};

function seqOf(v: unknown): number {
  return isRecord(v) && typeof v.seq === 'number' ? v.seq : 0;
}
