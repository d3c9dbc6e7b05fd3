import { SHOWN_TEXT_LABEL, type Step, type TrajectoryMeta } from '../model';
import { argsOf, isRecord, StepBuilder } from '../steps';
import { jsonlRecordsOf, skipRecord } from './adapter';
import type { FormatAdapter, JsonlRecord } from './adapter';
import { stringOrUndefined, titleFromSteps } from './chatMessages';
import { num, obj, recordedUsage, sumUsage } from './usage';
import { setExtra } from '../meta';
import { imagesOf } from './images';

// pi coding-agent sessions (`~/.pi/agent/sessions/<cwd>/<time>_<id>.jsonl`): a `session` header,
// then one entry per line (`message`, `model_change`, `thinking_level_change`, `compaction`,
// `branch_summary`, `custom`, …). From version 3 every entry has an `id` and a `parentId`: the
// entries form a tree, and the conversation is the path from the last entry back to the root.

type Entry = Record<string, unknown>;
type Base = Pick<Step, 'sourceId' | 'timestamp' | 'location' | 'branch'>;

function isHeader(v: unknown): boolean {
  return isRecord(v) && v.type === 'session' && typeof v.id === 'string' && typeof v.timestamp === 'string' && !('message' in v);
}

function isPiMessage(v: unknown): boolean {
  return isRecord(v) && v.type === 'message' && isRecord(v.message) && typeof v.message.role === 'string'
    && (v.message.role === 'toolResult' || (Array.isArray(v.message.content) && v.message.content.some((c) => isRecord(c) && (c.type === 'toolCall' || c.type === 'text' || c.type === 'thinking'))));
}

export const piAdapter: FormatAdapter = {
  id: 'pi',
  label: 'pi coding-agent session',
  fileNames: ['*.jsonl'],
  tools: { create: ['write'], edit: ['edit'], read: ['read'] },
  sniff(input) {
    if (input.shape !== 'jsonl') return 0;
    const head = input.records.slice(0, 20).map((r) => r.value);
    if (!isHeader(head[0])) return 0;
    return head.some(isPiMessage) || head.some((v) => isRecord(v) && (v.type === 'model_change' || v.type === 'thinking_level_change')) ? 0.96 : 0.5;
  },
  parse(input, ctx) {
    const records = jsonlRecordsOf(input);
    const header = records.find((r) => isHeader(r.value))?.value as Entry | undefined;
    const meta: TrajectoryMeta = { agent: 'pi' };
    if (header) {
      meta.sessionId = stringOrUndefined(header.id);
      setExtra(meta, 'cwd', stringOrUndefined(header.cwd));
      if (header.version !== undefined) meta.version = String(header.version);
    }
    const offPath = abandonedEntries(records);
    const b = new StepBuilder();
    let model: string | undefined;
    for (const { value, line } of records) {
      if (value === header) { skipRecord(ctx, 'session (header)', { line }); continue; }
      if (!isRecord(value)) continue;
      const id = stringOrUndefined(value.id);
      const base: Base = { location: { line }, timestamp: stringOrUndefined(value.timestamp) };
      if (id) base.sourceId = id;
      // Entries left behind by a fork (`/tree`, `/fork`) stay visible as a branch of their own.
      if (id && offPath.has(id)) base.branch = 'earlier branch';
      switch (value.type) {
        case 'message':
          addMessage(b, obj(value, 'message'), base, (m) => (model = m ?? model), () => model, meta);
          break;
        case 'model_change':
          model = stringOrUndefined(value.modelId) ?? model;
          meta.model ??= model;
          b.add({ ...base, kind: 'other', text: [stringOrUndefined(value.provider), stringOrUndefined(value.modelId)].filter(Boolean).join('/'), label: 'model_change' });
          break;
        case 'thinking_level_change':
          b.add({ ...base, kind: 'other', text: `thinking level: ${String(value.thinkingLevel ?? '?')}`, label: 'thinking_level_change' });
          break;
        case 'compaction': {
          const summary = stringOrUndefined(value.summary);
          b.add({ ...base, kind: 'compaction', text: summary ?? '', label: 'compaction', compaction: { summary, tokensBefore: num(value.tokensBefore), trigger: value.fromHook === true ? 'hook' : undefined } });
          b.closeOpenCalls();
          break;
        }
        case 'branch_summary':
          b.add({ ...base, kind: 'environment', text: String(value.summary ?? ''), label: 'branch summary' });
          break;
        default:
          skipRecord(ctx, String(value.type), { line }); // `custom` extension state, `label`, `session_info`: never sent to the model
          break;
      }
    }
    const steps = b.finish();
    if (steps.length === 0) ctx.warnings.push({ message: `${ctx.fileName}: this pi session has no messages.` });
    return { title: titleFromSteps(steps.filter((s) => !s.branch), ctx.fileName), steps, meta };
  },
};

function addMessage(b: StepBuilder, m: Entry, base: Base, setModel: (m: string | undefined) => void, model: () => string | undefined, meta: TrajectoryMeta): void {
  const role = String(m.role);
  const content = Array.isArray(m.content) ? m.content : typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : [];
  const texts = () => content.map((c) => (isRecord(c) ? (c.type === 'text' ? String(c.text ?? '') : c.type === 'image' ? '[image]' : '') : String(c))).filter((t) => t !== '').join('\n');
  switch (role) {
    case 'user':
      b.closeOpenCalls();
      b.add({ ...base, kind: 'user', text: texts(), label: 'user', ...imagesOf(content) });
      return;
    case 'toolResult':
      b.add({
        ...base, kind: 'tool_result', text: texts(), label: 'toolResult', toolName: stringOrUndefined(m.toolName),
        isError: m.isError === true ? true : undefined, tool: { name: '', args: '', callId: stringOrUndefined(m.toolCallId) }, ...imagesOf(content),
      });
      return;
    case 'bashExecution': {
      // A `!command` the person ran: the command and its output, linked by a made-up id.
      const callId = `bash-${String(base.sourceId ?? base.location?.line)}`;
      const args = JSON.stringify({ command: String(m.command ?? '') });
      b.add({ ...base, kind: 'tool_call', text: args, label: 'bashExecution', tool: { name: 'bash', args, callId } });
      b.add({ ...base, kind: 'tool_result', text: String(m.output ?? ''), label: 'bashExecution', exitCode: num(m.exitCode), tool: { name: '', args: '', callId } });
      return;
    }
    case 'assistant': {
      setModel(stringOrUndefined(m.model));
      const withCall = content.some((c) => isRecord(c) && c.type === 'toolCall');
      const added: Step[] = [];
      const stepModel = stringOrUndefined(m.model) ?? model();
      const own = stepModel ? { ...base, model: stepModel } : base;
      for (const c of content) {
        if (!isRecord(c)) continue;
        if (c.type === 'text' && String(c.text ?? '') !== '') added.push(b.add({ ...own, kind: withCall ? 'thought' : 'assistant', text: String(c.text), label: SHOWN_TEXT_LABEL }));
        else if (c.type === 'thinking') added.push(b.add({ ...own, kind: 'thought', text: String(c.thinking ?? ''), label: 'thinking' }));
        else if (c.type === 'toolCall') {
          const args = argsOf(c.arguments ?? {});
          // A reply that was aborted or failed (`stopReason` "error": the stream broke off) ends
          // pi's loop before its calls run: pi writes no result for them.
          const interrupted = m.stopReason === 'aborted' || m.stopReason === 'error' ? { interrupted: true as const } : {};
          added.push(b.add({ ...own, kind: 'tool_call', text: args, label: 'toolCall', tool: { name: String(c.name ?? 'tool'), args, callId: stringOrUndefined(c.id), ...interrupted } }));
        }
      }
      if (added.length === 0 && typeof m.errorMessage === 'string') added.push(b.add({ ...own, kind: 'other', text: m.errorMessage, label: 'error', isError: true }));
      const u = obj(m, 'usage');
      // pi counts fresh input apart from cache reads and writes; the model's input is the whole prompt.
      const fresh = num(u.input);
      const usage = recordedUsage({
        model: stepModel,
        input: fresh === undefined ? undefined : fresh + (num(u.cacheRead) ?? 0) + (num(u.cacheWrite) ?? 0),
        output: num(u.output),
        cacheRead: num(u.cacheRead),
        cacheWrite: num(u.cacheWrite),
        cost: num(obj(u, 'cost').total),
      });
      if (usage && added.length > 0) {
        added[added.length - 1].usage = usage;
        if (!base.branch) meta.recorded = sumUsage([meta.recorded, usage]);
      }
      meta.model ??= stepModel;
      return;
    }
    default:
      // Messages an extension or the harness adds (`custom`, hook output): sent as user, not the person's.
      b.add({ ...base, kind: 'environment', text: texts() || String(m.display ?? ''), label: stringOrUndefined(m.customType) ?? role });
  }
}

/** Ids of entries not on the path from the last entry back to the root (version 3 trees). */
function abandonedEntries(records: JsonlRecord[]): Set<string> {
  const parent = new Map<string, string | null>();
  let last: string | undefined;
  for (const { value } of records) {
    if (!isRecord(value) || typeof value.id !== 'string' || !('parentId' in value)) continue;
    parent.set(value.id, typeof value.parentId === 'string' ? value.parentId : null);
    last = value.id;
  }
  const off = new Set<string>();
  if (last === undefined) return off;
  const onPath = new Set<string>();
  for (let at: string | null | undefined = last; at && !onPath.has(at); at = parent.get(at)) onPath.add(at);
  for (const id of parent.keys()) if (!onPath.has(id)) off.add(id);
  return off;
}
