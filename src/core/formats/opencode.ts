import { pointerOf } from '../io/jsonScan';
import { SHOWN_TEXT_LABEL, type RecordedUsage, type SourceLocation, type Step, type TrajectoryMeta } from '../model';
import { argsOf, isRecord, StepBuilder, textOf } from '../steps';
import { jsonObjectOf, releaseItem, type ElementParser, type FormatAdapter, type ParseContext, type ParsedTrajectory } from './adapter';
import { TimeCheck } from './times';
import { stringOrUndefined, titleFromSteps } from './chatMessages';
import { num, obj, recordedUsage, sumUsage } from './usage';
import { extraOf } from '../meta';

// OpenCode sessions as `opencode export <session>` writes them (sst/opencode, MessageV2):
// `{info: {id, title, time}, messages: [{info: {role, modelID, tokens, cost, summary?}, parts}]}`.
// Parts are text, reasoning, tool (`state.input/output/status`), step-start / step-finish (one
// LLM call, with its tokens and cost), file, patch, agent, and `compaction` (the marker a
// compaction leaves in the user turn; the summary follows as an assistant message with `summary: true`).

export type Part = Record<string, unknown>;
type Base = Omit<Step, 'index' | 'turn' | 'kind' | 'text'>;

function isExport(v: Record<string, unknown> | undefined): boolean {
  if (!v || !isRecord(v.info) || !Array.isArray(v.messages)) return false;
  const first = v.messages[0];
  return v.messages.length === 0 ? typeof v.info.id === 'string' : isRecord(first) && isRecord(first.info) && Array.isArray(first.parts);
}

export const opencodeAdapter: FormatAdapter = {
  id: 'opencode',
  label: 'OpenCode session export',
  fileNames: ['*.json'],
  tools: { create: ['write'], edit: ['edit', 'multiedit'], read: ['read'] },
  sniff(input) {
    return isExport(jsonObjectOf(input)) ? 0.97 : 0;
  },
  elementParser(ctx, head, key) {
    return key === 'messages' && isRecord(head) && isExport(head) ? new ExportMessages(ctx) : undefined;
  },
  parse(input, ctx) {
    const doc = jsonObjectOf(input)!;
    const parser = new ExportMessages(ctx);
    const messages = doc.messages as unknown[];
    messages.forEach((m, i) => {
      releaseItem(ctx, messages, i);
      parser.add(m, i);
    });
    return parser.finish(doc);
  },
};

/**
 * An export's messages, each made steps as it comes: from the parsed document (`parse`), or
 * element by element as a big export is read (`elementParser`), so the parsed messages are not
 * all held before the first step is made (issue 23). The session's `info` is read at the end.
 */
export class ExportMessages implements ElementParser {
  private readonly b = new StepBuilder();
  private readonly usages: RecordedUsage[] = [];
  private readonly times = new TimeCheck();
  /** Compaction markers still waiting for their summary, latest last (a summary fills the latest). */
  private readonly pending: Step[] = [];
  private model: string | undefined;
  private sawMessage = false;
  private count = 0;

  /** `locate` says where a message's part is in the file (the export's JSON pointer by default). */
  constructor(private readonly ctx: ParseContext, private readonly locate: (message: number, part: number, value: Part | undefined) => SourceLocation = exportPointer) {}

  add(m: unknown, i: number): void {
    this.count++;
    if (!isRecord(m)) return;
    this.sawMessage = true;
    const mi = obj(m, 'info');
    const parts = inCreationOrder(Array.isArray(m.parts) ? m.parts.filter(isRecord) : []);
    const model = stringOrUndefined(mi.modelID);
    this.model ??= model;
    // One timestamp string per message, shared by its steps (not one per part).
    const timestamp = epoch(obj(mi, 'time').created, this.times, i);
    const base = (k: number): Base => ({ location: this.locate(i, k, parts[k]), sourceId: stringOrUndefined(parts[k]?.id), timestamp });
    if (mi.role === 'user') addUserParts(this.b, parts, base, this.pending);
    else for (const u of addAssistantParts(this.b, parts, base, mi, model, this.pending)) this.usages.push(u);
  }

  finish(root: unknown): ParsedTrajectory {
    const info = isRecord(root) ? obj(root, 'info') : {};
    const meta: TrajectoryMeta = { agent: 'opencode', sessionId: stringOrUndefined(info.id), version: stringOrUndefined(info.version), extra: extraOf({ cwd: stringOrUndefined(info.directory) }) };
    if (this.sawMessage) meta.model = this.model;
    this.times.report(this.ctx.warnings);
    const steps = this.b.finish();
    meta.recorded = sumUsage(this.usages);
    if (this.count > 0 && steps.length === 0) this.ctx.warnings.push({ message: 'No messages were found in this OpenCode export.' });
    return { title: stringOrUndefined(info.title) && !/^New session - /.test(String(info.title)) ? String(info.title) : titleFromSteps(steps, this.ctx.fileName), steps, meta };
  }
}

function addUserParts(b: StepBuilder, parts: Part[], base: (k: number) => Base, pending: Step[]): void {
  const texts: string[] = [];
  let first = -1;
  parts.forEach((p, k) => {
    if (p.type === 'compaction') {
      pending.push(b.add({ ...base(k), kind: 'compaction', text: p.auto === true ? 'automatic compaction' : 'compaction requested (/compact)', label: 'compaction', compaction: { trigger: p.auto === true ? 'auto' : 'manual' } }));
      b.closeOpenCalls();
      return;
    }
    const text = p.type === 'text' ? String(p.text ?? '') : p.type === 'file' ? `[file ${String(p.filename ?? p.url ?? '')}]` : p.type === 'agent' ? `@${String(p.name ?? 'agent')}` : '';
    if (text === '' || p.synthetic === true && p.type !== 'text') return;
    if (first < 0) first = k;
    texts.push(text);
  });
  if (texts.length === 0) return;
  b.closeOpenCalls();
  // `join` copies even a single text: the part's own string is kept instead.
  b.add({ ...base(first), kind: 'user', text: texts.length === 1 ? texts[0] : texts.join('\n'), label: 'user' });
}

/** Adds an assistant message's parts; returns the usage of each LLM call in it. */
function addAssistantParts(b: StepBuilder, parts: Part[], base: (k: number) => Base, mi: Record<string, unknown>, model: string | undefined, pending: Step[]): RecordedUsage[] {
  // The summary a compaction writes: the text the model keeps in place of what it forgot.
  if (mi.summary === true) {
    const text = parts.filter((p) => p.type === 'text').map((p) => String(p.text ?? '')).join('\n');
    // The latest marker without a summary, kept aside rather than searched for (a scan per summary is quadratic).
    const last = pending.pop();
    if (last) {
      last.compaction = { ...last.compaction, summary: text };
      last.text = text;
    } else {
      b.add({ ...base(0), kind: 'compaction', text, label: 'summary', compaction: { summary: text } });
    }
    return usageOf(mi, model) ? [usageOf(mi, model)!] : [];
  }
  const usages: RecordedUsage[] = [];
  const hasTool = parts.some((p) => p.type === 'tool');
  let lastOutput: Step | undefined;
  let sawStepFinish = false;
  // One LLM call (step-start … step-finish) may make several tool calls: the model sent them all,
  // then read their results, so the results follow the last call, whatever order the parts keep.
  let results: (() => void)[] = [];
  const flushResults = () => { for (const add of results) add(); results = []; };
  parts.forEach((p, k) => {
    switch (p.type) {
      case 'reasoning': {
        const text = String(p.text ?? '');
        if (text) lastOutput = b.add({ ...base(k), kind: 'thought', text, label: 'reasoning' });
        break;
      }
      case 'text':
        if (p.synthetic === true && !p.text) break;
        lastOutput = b.add({ ...base(k), kind: hasTool ? 'thought' : 'assistant', text: String(p.text ?? ''), label: SHOWN_TEXT_LABEL });
        break;
      case 'tool':
        lastOutput = addTool(b, p, base(k), results);
        break;
      case 'step-start':
        flushResults();
        break;
      case 'step-finish': {
        sawStepFinish = true;
        const usage = recordedUsage(tokenParts(p, model));
        if (usage) {
          usages.push(usage);
          if (lastOutput && !lastOutput.usage) lastOutput.usage = usage;
        }
        flushResults();
        break;
      }
      case 'patch':
        b.add({ ...base(k), kind: 'other', text: `files changed: ${Array.isArray(p.files) ? p.files.join(', ') : ''}`, label: 'patch' });
        break;
      default:
        break; // snapshot, retry: bookkeeping
    }
  });
  flushResults();
  // Older exports have no step-finish parts: the message's own totals are its one call.
  if (!sawStepFinish) {
    const usage = usageOf(mi, model);
    if (usage) {
      usages.push(usage);
      if (lastOutput && !lastOutput.usage) lastOutput.usage = usage;
    }
  }
  return usages;
}

/** A tool part's call now; its result (when it has one) into `results`, added after the call's LLM step. */
function addTool(b: StepBuilder, p: Part, base: Base, results: (() => void)[]): Step {
  const state = obj(p, 'state');
  const args = argsOf(state.input ?? {});
  const callId = stringOrUndefined(p.callID) ?? stringOrUndefined(p.id);
  const call = b.add({ ...base, kind: 'tool_call', text: args, label: 'tool', tool: { name: String(p.tool ?? 'tool'), args, callId } });
  if (p.tool === 'task') addSubagentSummary(b, state, base);
  const status = String(state.status ?? '');
  if (status === 'completed' || status === 'error') {
    // A pruned output was replaced in the model's context by a placeholder; the log keeps the original.
    const pruned = isRecord(state.time) && state.time.compacted !== undefined;
    const text = status === 'error' ? textOf(state.error) : textOf(state.output);
    results.push(() => { b.add({ ...base, kind: 'tool_result', text, label: pruned ? 'tool result (pruned)' : 'tool result', isError: status === 'error' ? true : undefined, tool: { name: '', args: '', callId } }); });
  }
  return call;
}

/**
 * A `task` call runs a subagent in a session of its own, which an export leaves out; the call's
 * metadata keeps the subagent's prompt and a summary of its tool calls (name and status, no output).
 * They become the subagent's branch, so the tree shows what it did under the call that started it.
 */
function addSubagentSummary(b: StepBuilder, state: Record<string, unknown>, base: Base): void {
  const input = obj(state, 'input');
  const summary = obj(state, 'metadata').summary;
  const branch = [stringOrUndefined(input.subagent_type) ?? 'task', stringOrUndefined(input.description)].filter(Boolean).join(': ');
  const prompt = stringOrUndefined(input.prompt);
  if (prompt) b.add({ ...base, kind: 'other', text: prompt, label: 'subagent prompt', branch });
  if (!Array.isArray(summary)) return;
  for (const child of summary.filter(isRecord)) {
    const childState = obj(child, 'state');
    const title = stringOrUndefined(childState.title);
    const status = stringOrUndefined(childState.status);
    b.add({ ...base, kind: 'other', text: [String(child.tool ?? 'tool'), title, status ? `(${status})` : undefined].filter(Boolean).join(' '), label: `subagent ${String(child.tool ?? 'tool')}`, branch, sourceId: stringOrUndefined(child.id) });
  }
}

/** OpenCode counts cache reads and writes apart from `input`, and reasoning apart from `output`. */
function tokenParts(source: Record<string, unknown>, model: string | undefined) {
  const t = obj(source, 'tokens');
  const cache = obj(t, 'cache');
  const input = num(t.input);
  return {
    model,
    input: input === undefined ? undefined : input + (num(cache.read) ?? 0) + (num(cache.write) ?? 0),
    output: num(t.output) === undefined ? undefined : (num(t.output) ?? 0) + (num(t.reasoning) ?? 0),
    cacheRead: num(cache.read),
    cacheWrite: num(cache.write),
    cost: num(source.cost),
  };
}

function usageOf(mi: Record<string, unknown>, model: string | undefined): RecordedUsage | undefined {
  return recordedUsage(tokenParts(mi, model));
}

/**
 * Parts in the order they were made. OpenCode ids (`prt_…`) ascend with creation time, and some
 * exports list a message's parts out of that order (the step-finish first).
 */
function exportPointer(message: number, part: number): SourceLocation {
  return { pointer: pointerOf('messages', message, 'parts', part) };
}

function inCreationOrder(parts: Part[]): Part[] {
  if (!parts.every((p) => typeof p.id === 'string' && p.id.startsWith('prt_'))) return parts;
  return [...parts].sort((a, b) => (String(a.id) < String(b.id) ? -1 : String(a.id) > String(b.id) ? 1 : 0));
}

function epoch(v: unknown, times: TimeCheck, i: number): string | undefined {
  return typeof v === 'number' ? times.iso(v, v, `messages[${i}].info.time.created`) : stringOrUndefined(v);
}
