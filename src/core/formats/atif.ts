import { pointerOf } from '../io/jsonScan';
import { SHOWN_TEXT_LABEL, type Step, type SubagentFileRef, type TrajectoryMeta } from '../model';
import { argsOf, isRecord, StepBuilder } from '../steps';
import { jsonObjectOf, type FormatAdapter, type ParsedInput } from './adapter';
import { atifContentText, isAtifDocument, type AtifStepStash } from './atifShape';
import { stringOrUndefined, titleFromSteps } from './chatMessages';
import { terminusReply } from './terminus';
import { num, obj, recordedUsage } from './usage';
import { extraOf } from '../meta';

// ATIF, the Agent Trajectory Interchange Format of Harbor / Terminal-Bench (RFC 0001, v1.0–1.7):
// `{schema_version, session_id, agent, steps: [{step_id, source, message, reasoning_content?,
// tool_calls?, observation?: {results}, metrics?}], final_metrics?, subagent_trajectories?}`.
// One agent step is one LLM call: its message, its tool calls and the results they got.

type Doc = Record<string, unknown>;
type Base = Omit<Step, 'index' | 'turn' | 'kind' | 'text'>;

/** Embedded subagents nest; a document that nests deeper than this is not followed further. */
const MAX_SUBAGENT_DEPTH = 4;

export const atifAdapter: FormatAdapter = {
  id: 'atif',
  label: 'ATIF trajectory (Harbor)',
  fileNames: ['*.json', '*.jsonl'],
  sniff(input) {
    if (streamedDocument(input)) return 0.97;
    const doc = jsonObjectOf(input);
    if (!doc) return 0;
    if (isAtifDocument(doc)) return 0.99;
    // No version string: a step list of ATIF shape under an `agent` still says ATIF.
    const steps = Array.isArray(doc.steps) ? doc.steps.slice(0, 5) : [];
    const shaped = steps.length > 0 && steps.every((s) => isRecord(s) && typeof s.step_id === 'number' && typeof s.source === 'string');
    return shaped && isRecord(doc.agent) ? 0.9 : 0;
  },
  parse(input, ctx) {
    const streamed = streamedDocument(input);
    const doc = streamed?.doc ?? jsonObjectOf(input)!;
    const b = new StepBuilder();
    const meta = docMeta(doc);
    // Null prototype: step ids come from the log (a step_id of "__proto__" must stay a key).
    const stash: Record<string, AtifStepStash> = Object.create(null);
    const repeats = new Map<string, number>();
    const walk: Walk = { pointer: [], stash, depth: 0, callIds: new Set(), seen: { variant: !isAtifDocument(doc) || streamed !== undefined }, expanded: new Set(), repeats, fileName: ctx.fileName, fileRefs: [], ...(streamed ? { lines: streamed.lines } : {}) };
    addAtifSteps(b, doc, walk);
    const steps = b.finish();
    const subagentFiles = walk.fileRefs!;
    if (Object.keys(stash).length > 0) meta.atifSteps = { ...stash };
    // A third-party variant (a bare version, `{id, name}` calls, results in system steps) is read
    // as what it means; converting it writes a fresh, valid document rather than the same fields.
    if (walk.seen.variant) meta.atifVariant = true;
    for (const [id, n] of repeats) {
      ctx.warnings.push({ message: `Subagent "${id}" is referenced ${n + 1} times; its steps are shown once, after its first reference (later references name it only).` });
    }
    if (steps.length === 0) ctx.warnings.push({ message: 'This ATIF document has no steps.' });
    const agent = obj(doc, 'agent');
    const fallback = `ATIF ${stringOrUndefined(agent.name) ?? 'trajectory'} ${stringOrUndefined(doc.session_id) ?? ctx.fileName}`;
    return { title: titleFromSteps(steps, fallback), steps, meta, ...(subagentFiles.length > 0 ? { subagentFiles } : {}) };
  },
};

interface Walk {
  /** JSON Pointer tokens of the document being walked (embedded subagents sit deeper). */
  pointer: (string | number)[];
  stash: Record<string, AtifStepStash>;
  depth: number;
  branch?: string;
  /** Call ids seen so far, so a system step's result can answer its call by id. */
  callIds: Set<string>;
  /** Set when the document is a variant of ATIF rather than the RFC's shape (shared by nested walks). */
  seen: { variant: boolean };
  /** Embedded documents already expanded: each is expanded once, so steps stay linear in the file
   * (a subagent referenced many times, nested a few deep, would otherwise multiply exponentially). */
  expanded?: Set<Doc>;
  /** Per subagent id, how many references were not expanded again. */
  repeats?: Map<string, number>;
  /** The file's own name (subagent files are named after it). */
  fileName?: string;
  /** Subagents kept in files of their own, with the step that names each. */
  fileRefs?: SubagentFileRef[];
  /** The streamed form: the file line of each top-level step. */
  lines?: readonly number[];
}

/**
 * ATIF streamed as JSON Lines (OpenAgents' `.atif.jsonl`): a `{"__header__": true,
 * "schema_version": "ATIF-v1.4", …}` line with the document's fields, then one step per line. Read
 * as the document it stands for, each step located by its line.
 */
function streamedDocument(input: ParsedInput): { doc: Doc; lines: number[] } | undefined {
  if (input.shape !== 'jsonl' || input.records.length === 0) return undefined;
  const [head, ...rest] = input.records;
  const h = head.value;
  if (!isRecord(h) || typeof h.schema_version !== 'string' || !/^ATIF-v1\.\d+$/.test(h.schema_version) || 'steps' in h) return undefined;
  const steps = rest.filter((r) => isRecord(r.value) && 'step_id' in r.value && typeof r.value.source === 'string');
  if (steps.length < rest.length / 2) return undefined;
  const { __header__: _header, ...fields } = h;
  return { doc: { ...fields, steps: steps.map((r) => r.value) }, lines: steps.map((r) => r.line) };
}

/** Adds the steps of one ATIF document (and, on a branch, of each subagent it embeds). */
function addAtifSteps(b: StepBuilder, doc: Doc, walk: Walk): void {
  const agent = obj(doc, 'agent');
  const defaultModel = stringOrUndefined(agent.model_name);
  const embedded = new Map<string, { doc: Doc; index: number }>();
  if (Array.isArray(doc.subagent_trajectories)) {
    doc.subagent_trajectories.forEach((sub, index) => {
      if (isRecord(sub) && typeof sub.trajectory_id === 'string') embedded.set(sub.trajectory_id, { doc: sub, index });
    });
  }
  const steps = Array.isArray(doc.steps) ? doc.steps : [];
  steps.forEach((raw, i) => {
    if (!isRecord(raw)) return;
    const id = String(raw.step_id ?? i + 1);
    // Harbor's Claude Code converter writes a subagent's steps inline, marked `extra.is_sidechain`.
    const sidechain = walk.branch === undefined && obj(raw, 'extra').is_sidechain === true;
    const branch = walk.branch ?? (sidechain ? stringOrUndefined(obj(raw, 'extra').agent_id) ?? 'subagent' : undefined);
    const base: Base = {
      sourceId: walk.branch ? `${walk.branch}:${id}` : id,
      timestamp: stringOrUndefined(raw.timestamp),
      location: walk.lines && walk.depth === 0 ? { line: walk.lines[i] } : { pointer: pointerOf(...walk.pointer, 'steps', i) },
      branch,
    };
    if (walk.depth === 0) stashStep(walk.stash, id, raw);
    // Content that is an object (a tool's own JSON, not text or content parts) is a variant's: the
    // document is written fresh, never copied back as ATIF that breaks the RFC's rules.
    if (observationResults(raw).some((r) => r.content !== undefined && r.content !== null && typeof r.content !== 'string' && !Array.isArray(r.content))) walk.seen.variant = true;
    const message = atifContentText(raw.message);
    const copied = raw.is_copied_context === true ? ' (copied context)' : '';
    switch (raw.source) {
      case 'user': {
        // Steps this tool wrote from other kinds say so in `extra.atl_kind`, so they read back as they were.
        const written = writtenKind(raw);
        if (written === 'environment') {
          b.add({ ...base, kind: 'environment', text: message, label: writtenLabel(raw) ?? 'environment', ...(obj(raw, 'extra').atl_error === true ? { isError: true } : {}) });
          break;
        }
        if (sidechain) {
          // The prompt that opens a subagent's branch: not a turn of the main conversation.
          b.add({ ...base, kind: 'other', text: message, label: 'subagent prompt' });
          break;
        }
        b.closeOpenCalls();
        b.add({ ...base, kind: 'user', text: message, label: `user${copied}` });
        break;
      }
      case 'system':
        if (writtenKind(raw) === 'other' && observationResults(raw).length === 0) {
          b.add({ ...base, kind: 'other', text: message, label: writtenLabel(raw) ?? 'other', ...(obj(raw, 'extra').atl_error === true ? { isError: true } : {}) });
          break;
        }
        if (writtenKind(raw) === 'tool_result') {
          // A result whose call was not in the log it was converted from.
          const failed = obj(raw, 'extra').error_results;
          observationResults(raw).forEach((r, k) => {
            const isError = Array.isArray(failed) && failed.includes(k) ? true : undefined;
            const callId = stringOrUndefined(r.source_call_id);
            b.add({ ...base, kind: 'tool_result', text: resultText(r), label: 'observation', isError, ...(callId ? { tool: { name: '', args: '', callId } } : {}) });
          });
          break;
        }
        addSystemStep(b, raw, base, message, copied, walk);
        break;
      case 'agent':
        addAgentStep(b, raw, base, message, copied, defaultModel, walk);
        addEmbeddedSubagents(b, raw, embedded, walk);
        break;
      default:
        b.add({ ...base, kind: 'other', text: message, label: String(raw.source ?? 'step') });
    }
    noteSubagentFiles(raw, embedded, walk, b.steps[b.steps.length - 1]);
  });
}

function addSystemStep(b: StepBuilder, raw: Doc, base: Base, message: string, copied: string, walk: Walk): void {
  // A variant writes each result as a system step of its own (`observation: {type: 'tool_result',
  // content}`, "Tool result for <call id>"), sometimes before the step with the call: paired by that id.
  const single = obj(raw, 'observation');
  if (single.type === 'tool_result' && !Array.isArray(single.results)) {
    walk.seen.variant = true;
    const callId = stringOrUndefined(single.source_call_id) ?? stringOrUndefined(single.tool_call_id) ?? /^Tool result for (\S+)/.exec(message)?.[1];
    const failed = obj(single, 'result').success === false || single.is_error === true;
    b.add({ ...base, kind: 'tool_result', text: atifContentText(single.content), label: `observation${copied}`, isError: failed ? true : undefined, ...(callId ? { tool: { name: '', args: '', callId } } : {}) });
    return;
  }
  const results = observationResults(raw);
  const management = obj(obj(raw, 'extra'), 'context_management');
  const refs = results.flatMap(subagentRefs);
  // Terminus refers its summarizer subagents with nothing beside the refs; a result that answers a
  // call or carries content (OpenAgents: a subtask's `{success, turns}` from its subagent) is that result.
  const summarizers = refs.length > 0 && results.every((r) => r.content === undefined && r.source_call_id === undefined);
  const isCompaction = management.type === 'compaction' || management.type === 'pruning' || management.boundary === 'replace' || summarizers;
  if (isCompaction) {
    // Context summarization: the summary is what the results say, else what each summarizer ref says.
    const contents = results.map((r) => atifContentText(r.content)).filter((t) => t !== '');
    const refSummaries = refs.map((r) => stringOrUndefined(obj(r, 'extra').summary)).filter((t): t is string => Boolean(t));
    const summary = (contents.length > 0 ? contents : refSummaries).join('\n\n') || undefined;
    b.add({
      ...base,
      kind: 'compaction',
      text: [message, summary].filter(Boolean).join('\n\n'),
      label: `${String(management.type ?? 'context summarization')}${copied}`,
      compaction: { summary, trigger: stringOrUndefined(management.type) },
    });
    b.closeOpenCalls();
    return;
  }
  // Some tools write a call's result as a system step of its own, linked by `source_call_id`.
  const answers = results.filter((r) => typeof r.source_call_id === 'string' && walk.callIds.has(r.source_call_id));
  if (message !== '' || answers.length < results.length || writtenKind(raw) === 'system') b.add({ ...base, kind: 'system', text: message, label: `system${copied}` });
  for (const r of results) {
    const callId = stringOrUndefined(r.source_call_id);
    if (callId && walk.callIds.has(callId)) {
      walk.seen.variant = true;
      b.add({ ...base, kind: 'tool_result', text: resultText(r), label: `observation${copied}`, isError: obj(r, 'extra').is_error === true || contentFailed(r) ? true : undefined, tool: { name: '', args: '', callId } });
    } else b.add({ ...base, kind: 'other', text: resultText(r), label: 'system observation', ...(contentFailed(r) ? { isError: true } : {}) });
  }
}

function addAgentStep(b: StepBuilder, raw: Doc, base: Base, message: string, copied: string, defaultModel: string | undefined, walk: Walk): void {
  const calls = Array.isArray(raw.tool_calls) ? raw.tool_calls.filter(isRecord) : [];
  const reasoning = typeof raw.reasoning_content === 'string' ? raw.reasoning_content : '';
  const outputs: Step[] = [];
  const extra = obj(raw, 'extra');
  // A document this tool wrote says where it joined several steps into one reasoning or message.
  for (const part of splitParts(reasoning, extra.atl_reasoning_parts, () => 'thought')) {
    outputs.push(b.add({ ...base, kind: 'thought', text: part.text, label: `reasoning${copied}` }));
  }
  const terminus = calls.length === 0 && !Array.isArray(extra.atl_message_parts) ? terminusReply(message) : undefined;
  if (terminus) {
    // Terminus writes its commands inside its JSON reply, not as tool calls: the analysis and plan
    // are its thinking, the keystrokes one terminal call that the step's observation answers.
    if (terminus.thinking) outputs.push(b.add({ ...base, kind: 'thought', text: terminus.thinking, label: `analysis${copied}` }));
    if (terminus.keystrokes !== undefined) {
      const callId = `${String(raw.step_id ?? outputs.length)}:keystrokes`;
      calls.push({ tool_call_id: callId, function_name: 'terminal', arguments: { keystrokes: terminus.keystrokes } });
    } else if (terminus.done && observationResults(raw).length > 0) {
      // Marking the task complete is an action too: the harness answers it (it asks to confirm).
      calls.push({ tool_call_id: `${String(raw.step_id ?? outputs.length)}:task_complete`, function_name: 'task_complete', arguments: {} });
    } else if (terminus.done) outputs.push(b.add({ ...base, kind: 'assistant', text: 'Task complete.', label: `message${copied}` }));
    message = '';
  }
  const messageParts = splitParts(message, extra.atl_message_parts,
    (k) => (Array.isArray(extra.atl_message_parts) && (extra.atl_message_parts[k] as Doc)?.kind === 'thought' ? 'thought' : 'assistant'));
  if (messageParts.length > 1 || (messageParts.length === 1 && Array.isArray(extra.atl_message_parts))) {
    for (const part of messageParts) outputs.push(b.add({ ...base, kind: part.kind, text: part.text, label: part.kind === 'thought' ? `${SHOWN_TEXT_LABEL}${copied}` : `message${copied}` }));
  } else if (message || (calls.length === 0 && !reasoning)) {
    // A message beside tool calls is what the person saw while the agent worked (reasoning has its own field).
    outputs.push(b.add({ ...base, kind: calls.length > 0 ? 'thought' : 'assistant', text: message, label: calls.length > 0 ? `${SHOWN_TEXT_LABEL}${copied}` : `message${copied}` }));
  }
  const callIds: string[] = [];
  for (const call of calls) {
    // Variants name the call `{id, name}` (or nest an OpenAI `function`) instead of `{tool_call_id, function_name}`.
    const fn = obj(call, 'function');
    if (call.function_name === undefined || call.tool_call_id === undefined) walk.seen.variant = true;
    const args = argsOf(call.arguments ?? call.args ?? call.input ?? fn.arguments ?? {});
    const callId = stringOrUndefined(call.tool_call_id) ?? stringOrUndefined(call.id);
    if (callId) {
      callIds.push(callId);
      walk.callIds.add(callId);
    }
    const name = stringOrUndefined(call.function_name) ?? stringOrUndefined(call.name) ?? stringOrUndefined(fn.name) ?? 'tool';
    outputs.push(b.add({ ...base, kind: 'tool_call', text: args, label: `tool_call${copied}`, tool: { name, args, callId } }));
  }
  const metrics = isRecord(raw.metrics) ? raw.metrics : undefined;
  const usage = metrics && recordedUsage({
    model: stringOrUndefined(raw.model_name) ?? defaultModel,
    input: num(metrics.prompt_tokens),
    output: num(metrics.completion_tokens),
    cacheRead: num(metrics.cached_tokens),
    // Harbor's Claude Code converter and the RFC keep cache writes among the metrics' extras.
    cacheWrite: num(obj(metrics, 'extra').cache_creation_input_tokens),
    cost: num(metrics.cost_usd),
  });
  if (usage && outputs.length > 0) outputs[outputs.length - 1].usage = usage;
  const stepModel = stringOrUndefined(raw.model_name) ?? defaultModel;
  if (stepModel) for (const o of outputs) o.model = stepModel;
  // Results without a source_call_id answer this step's calls in order (Terminus writes them so).
  const unanswered = new CallQueue(callIds);
  const failed = new Set(Array.isArray(obj(raw, 'extra').error_results) ? (obj(raw, 'extra').error_results as unknown[]) : []);
  observationResults(raw).forEach((r, k) => {
    const named = stringOrUndefined(r.source_call_id);
    const callId = named ?? unanswered.shift();
    if (named) unanswered.remove(named);
    const isError = obj(r, 'extra').is_error === true || failed.has(k) || contentFailed(r) ? true : undefined;
    const step: Omit<Step, 'index' | 'turn'> = { ...base, kind: 'tool_result', text: resultText(r), label: `observation${copied}`, isError };
    if (callId) step.tool = { name: '', args: '', callId };
    b.add(step);
  });
}

/**
 * The step's call ids not yet answered, in order: `shift` takes the first, `remove` the first
 * occurrence of an id. Positions are marked rather than spliced out (includes + splice per result
 * is quadratic in a step with many calls).
 */
class CallQueue {
  private readonly taken: boolean[];
  private head = 0;
  private readonly positions = new Map<string, { at: number[]; next: number }>();

  constructor(private readonly ids: string[]) {
    this.taken = ids.map(() => false);
    ids.forEach((id, i) => {
      let p = this.positions.get(id);
      if (!p) this.positions.set(id, (p = { at: [], next: 0 }));
      p.at.push(i);
    });
  }

  shift(): string | undefined {
    while (this.head < this.ids.length && this.taken[this.head]) this.head++;
    if (this.head >= this.ids.length) return undefined;
    this.taken[this.head] = true;
    return this.ids[this.head];
  }

  remove(id: string): void {
    const p = this.positions.get(id);
    if (!p) return;
    while (p.next < p.at.length && this.taken[p.at[p.next]]) p.next++;
    if (p.next < p.at.length) this.taken[p.at[p.next]] = true;
  }
}

/**
 * A subagent a result names by `trajectory_path` and does not embed: Harbor writes it beside the
 * trajectory (`trajectory.summarization-1-summary.json`), and the loader reads it into a branch,
 * before the result of the call it answers or after the step that names it. A copy whose name
 * carries a prefix before `trajectory.json` (a golden test's) has its subagents under the same prefix.
 */
function noteSubagentFiles(raw: Doc, embedded: ReadonlyMap<string, unknown>, walk: Walk, step: Step | undefined): void {
  for (const r of observationResults(raw)) {
    for (const ref of subagentRefs(r)) {
      const file = stringOrUndefined(ref.trajectory_path);
      const id = stringOrUndefined(ref.trajectory_id);
      if (!file || (id && embedded.has(id))) continue;
      const paths = [file];
      const prefix = walk.fileName?.endsWith('trajectory.json') ? walk.fileName.slice(0, -'trajectory.json'.length) : '';
      const base = file.split('/').pop()!;
      if (prefix && base.startsWith('trajectory.')) paths.push(file.slice(0, file.length - base.length) + prefix + base);
      const callId = stringOrUndefined(r.source_call_id);
      walk.fileRefs?.push({ paths, branch: id ?? stringOrUndefined(ref.session_id) ?? base, usageInRun: true, ...(callId ? { callId } : step ? { after: step } : {}) });
    }
  }
}

/** A v1.7 parent carries its subagents inline; their steps follow the delegation, on a branch. */
function addEmbeddedSubagents(b: StepBuilder, raw: Doc, embedded: Map<string, { doc: Doc; index: number }>, walk: Walk): void {
  if (walk.depth >= MAX_SUBAGENT_DEPTH || embedded.size === 0) return;
  for (const r of observationResults(raw)) {
    for (const ref of subagentRefs(r)) {
      const id = stringOrUndefined(ref.trajectory_id);
      const sub = id ? embedded.get(id) : undefined;
      if (!sub || !id) continue;
      if (walk.expanded?.has(sub.doc)) {
        walk.repeats?.set(id, (walk.repeats.get(id) ?? 0) + 1);
        continue;
      }
      walk.expanded?.add(sub.doc);
      addAtifSteps(b, sub.doc, { ...walk, depth: walk.depth + 1, branch: id, pointer: [...walk.pointer, 'subagent_trajectories', sub.index] });
    }
  }
}

/**
 * `text` cut at the lengths `parts` gives (pieces were joined with a blank line), or the whole
 * text as one piece when the lengths do not add up (a document edited by hand).
 */
function splitParts(text: string, parts: unknown, kindOf: (k: number) => 'thought' | 'assistant'): { text: string; kind: 'thought' | 'assistant' }[] {
  const lengths = Array.isArray(parts) ? parts.map((p) => (typeof p === 'number' ? p : isRecord(p) && typeof p.chars === 'number' ? p.chars : -1)) : [];
  const fits = lengths.length > 0 && lengths.every((n) => n >= 0) && lengths.reduce((a, n) => a + n, 0) + 2 * (lengths.length - 1) === text.length;
  // Parts of length 0 are steps with empty text that this tool wrote; an empty text otherwise is none.
  if (!fits) return text === '' ? [] : [{ text, kind: kindOf(0) }];
  const out: { text: string; kind: 'thought' | 'assistant' }[] = [];
  let at = 0;
  lengths.forEach((n, k) => {
    out.push({ text: text.slice(at, at + n), kind: kindOf(k) });
    at += n + 2;
  });
  return out;
}

function writtenKind(raw: Doc): string | undefined {
  return stringOrUndefined(obj(raw, 'extra').atl_kind);
}

function writtenLabel(raw: Doc): string | undefined {
  return stringOrUndefined(obj(raw, 'extra').label);
}

/** The subagents a result refers to (`subagent_trajectory_ref`). */
function subagentRefs(r: Doc): Doc[] {
  return Array.isArray(r.subagent_trajectory_ref) ? r.subagent_trajectory_ref.filter(isRecord) : [];
}

function observationResults(raw: Doc): Doc[] {
  const results = obj(raw, 'observation').results;
  return Array.isArray(results) ? results.filter(isRecord) : [];
}

/**
 * A variant's result whose content is the tool's own record of how it ended (OpenAgents:
 * `{command, passed: false, output}`): failed by its own flag or exit code, never by its words.
 */
function contentFailed(r: Doc): boolean {
  const c = r.content;
  if (!isRecord(c)) return false;
  return c.passed === false || c.success === false || c.ok === false || (typeof c.exit_code === 'number' && c.exit_code !== 0) || (typeof c.exitCode === 'number' && c.exitCode !== 0);
}

function resultText(r: Doc): string {
  const content = atifContentText(r.content);
  if (content) return content;
  const refs = subagentRefs(r);
  return refs.map((ref) => `[subagent ${String(ref.trajectory_id ?? ref.session_id ?? '?')}${ref.trajectory_path ? ` at ${String(ref.trajectory_path)}` : ''}]`).join('\n');
}

/** What the model has no place for, kept so an ATIF file converts back to ATIF unchanged. */
function stashStep(stash: Record<string, AtifStepStash>, id: string, raw: Doc): void {
  const kept: AtifStepStash = {};
  for (const key of ['timestamp', 'model_name', 'reasoning_effort', 'metrics', 'extra', 'is_copied_context', 'llm_call_count'] as const) {
    if (raw[key] !== undefined) (kept as Record<string, unknown>)[key] = raw[key];
  }
  const results = observationResults(raw);
  // Results the model cannot restore exactly: a system step's, and any with refs, extras, parts or no call id.
  const special = (r: Doc) => r.subagent_trajectory_ref !== undefined || r.extra !== undefined || Array.isArray(r.content) || r.source_call_id === undefined;
  if (raw.source === 'system' ? results.length > 0 : results.some(special)) kept.results = results;
  if (Array.isArray(raw.message)) kept.message = raw.message;
  const calls = Array.isArray(raw.tool_calls) ? raw.tool_calls.filter(isRecord) : [];
  if (calls.some((c) => c.extra !== undefined)) kept.toolCallExtras = calls.map((c) => c.extra);
  if (Object.keys(kept).length > 0) stash[id] = kept;
}

function docMeta(doc: Doc): TrajectoryMeta {
  const agent = obj(doc, 'agent');
  const totals = obj(doc, 'final_metrics');
  const meta: TrajectoryMeta = {
    agent: stringOrUndefined(agent.name),
    model: stringOrUndefined(agent.model_name),
    version: stringOrUndefined(agent.version),
    sessionId: stringOrUndefined(doc.session_id),
    extra: extraOf({ schemaVersion: stringOrUndefined(doc.schema_version) }),
  };
  const recorded = recordedUsage({
    model: meta.model,
    input: num(totals.total_prompt_tokens),
    output: num(totals.total_completion_tokens),
    cacheRead: num(totals.total_cached_tokens),
    cacheWrite: num(obj(totals, 'extra').total_cache_creation_input_tokens),
    cost: num(totals.total_cost_usd),
  });
  if (recorded) meta.recorded = recorded;
  // The document's own fields, so converting it back to ATIF keeps them as they were.
  const { steps: _steps, ...root } = doc;
  meta.atif = root;
  return meta;
}
