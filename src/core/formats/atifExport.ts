import * as path from 'node:path';
import type { RecordedUsage, Step, Run } from '../model';
import { UserError } from '../errors';
import { isRecord } from '../steps';
import type { AtifStepStash } from './atifShape';
import { sumUsage } from './usage';
import { terminusReply } from './terminus';
import { isoOfMs } from './times';

// Any trajectory we read, or a compacted one, as an ATIF document (Harbor RFC 0001) that the
// Harbor validator accepts. One agent step is one model response: its text, its reasoning, its
// tool calls, and the results those calls got (ATIF puts a result in the step of its call).
// A document read from ATIF converts back field for field.

const ATIF_EXPORT_VERSION = 'ATIF-v1.5';

type Json = Record<string, unknown>;

interface AgentGroup {
  atif: Json;
  texts: string[];
  /** The kind each text had (a thought before calls, an answer, or a thought without calls). */
  textKinds: Step['kind'][];
  reasoning: string[];
  calls: Json[];
  results: Json[];
  usages: RecordedUsage[];
  /** Positions in `results` of failed results: v1.5 has no per-result extra, so the step says which. */
  errorResults: number[];
  sourceId?: string;
  /** The subagent branch its steps are on (a response is never split across branches). */
  branch?: string;
}

/** Thought labels that mean the model's hidden reasoning rather than text it said. */
const REASONING = /^(reasoning|thinking|redacted_thinking)/;

/** The run cannot be written as ATIF (no steps): a usage problem (CLI exit 1). */
export class AtifExportError extends UserError {
  constructor(message: string) { super('usage', message); }
}

export function toAtif(t: Run): Json {
  if (t.steps.length === 0) throw new AtifExportError(`"${t.title}" has no steps to write as ATIF.`);
  const original = isRecord(t.meta.atif) ? t.meta.atif : undefined;
  const stash = (isRecord(t.meta.atifSteps) ? t.meta.atifSteps : {}) as Record<string, AtifStepStash>;
  // A variant of ATIF (another version string, `{id, name}` calls) is written fresh, as valid ATIF.
  const fromAtif = t.format === 'atif' && original !== undefined && t.meta.atifVariant !== true;
  const writer = new StepWriter(fromAtif ? stash : undefined, stringMeta(t.meta.model));
  for (const step of t.steps) {
    // Embedded subagents of an ATIF document go back to `subagent_trajectories`, not inline, and
    // subagents read from files of their own stay there: the document keeps its refs to them.
    if (fromAtif && step.branch && (Array.isArray(original.subagent_trajectories) || step.location?.file !== undefined)) continue;
    writer.add(step);
  }
  const steps = writer.finish();
  if (fromAtif) {
    const doc: Json = { ...original, steps };
    const metrics = finalMetrics(original.final_metrics, steps.length);
    if (metrics) doc.final_metrics = metrics;
    return doc;
  }
  return {
    schema_version: ATIF_EXPORT_VERSION,
    session_id: stringMeta(t.meta.sessionId) ?? stringMeta(t.meta.instanceId) ?? `${t.format}-${path.basename(t.source.path)}`,
    agent: {
      name: stringMeta(t.meta.agent) ?? t.format,
      version: stringMeta(t.meta.version) ?? stringMeta(t.meta.cliVersion) ?? 'unknown',
      ...(stringMeta(t.meta.model) ? { model_name: stringMeta(t.meta.model) } : {}),
    },
    steps,
    notes: `Converted by Agent Trace Lens from ${t.format} (${path.basename(t.source.path)}).`,
    final_metrics: totals(t, steps),
    extra: runExtra(t),
  };
}

interface Entry {
  atif: Json;
  sourceId?: string;
  /** The subagent branch the step is on: written as Harbor's `extra.is_sidechain` and `agent_id`. */
  branch?: string;
  /** Set on agent steps until they are closed. */
  group?: AgentGroup;
}

class StepWriter {
  private readonly out: Entry[] = [];
  private group: AgentGroup | undefined;
  private readonly callHome = new Map<number, { group: AgentGroup; id: string }>();
  private readonly usedIds = new Set<string>();
  /** A result came back since the last model output: the next output is a new response. */
  private resultSinceOutput = false;

  constructor(private readonly stash: Record<string, AtifStepStash> | undefined, private readonly defaultModel: string | undefined) {}

  add(s: Step): void {
    // A document read from ATIF keeps its own step boundaries: they are the source ids.
    if (this.stash && this.group && s.sourceId !== this.group.sourceId) this.close();
    // A subagent's step is never one response with the main agent's (nor another subagent's).
    if (this.group && this.group.branch !== s.branch) this.close();
    switch (s.kind) {
      case 'system':
      case 'user':
        this.close();
        // An empty system step would read back as none: it says it is a step.
        this.push({ source: s.kind, message: s.text, ...timestampOf(s), ...(s.kind === 'system' && s.text === '' ? { extra: { atl_kind: 'system' } } : {}) }, s);
        return;
      case 'environment':
        // Sent with the user role, so a user step; the extra says it was not the person.
        this.close();
        this.push({ source: 'user', message: s.text, ...timestampOf(s), extra: { atl_kind: 'environment', ...(s.label ? { label: s.label } : {}), ...(s.isError ? { atl_error: true } : {}) } }, s);
        return;
      case 'compaction':
        this.close();
        // A compaction read from ATIF is restored as written; a new one (a strategy's summary) is marked.
        this.push(compactionStep(s, !(this.stash && s.sourceId !== undefined && Object.hasOwn(this.stash, s.sourceId))), s);
        return;
      case 'other': {
        this.close();
        const last = this.out[this.out.length - 1];
        if (this.stash && last && last.atif.source === 'system' && last.sourceId === s.sourceId) {
          // An ATIF system step's own observation, read back as an `other` step after it.
          last.atif.observation = { results: [...resultsOf(last.atif), { content: s.text }] };
          return;
        }
        this.push({ source: 'system', message: s.text, ...timestampOf(s), extra: { atl_kind: 'other', ...(s.label ? { label: s.label } : {}), ...(s.isError ? { atl_error: true } : {}) } }, s);
        return;
      }
      case 'tool_result':
        this.addResult(s);
        return;
      default:
        this.addOutput(s);
    }
  }

  private addOutput(s: Step): void {
    let g = this.group;
    // One model response per step: after its results, its usage, or text after its calls, a new one starts.
    // Steps of one message (the same source id) stay one response even after the step with its usage.
    const sameMessage = g !== undefined && s.sourceId !== undefined && s.sourceId === g.sourceId;
    if (g && !this.stash && (this.resultSinceOutput || (g.usages.length > 0 && !sameMessage) || (s.kind !== 'tool_call' && g.calls.length > 0))) g = undefined;
    if (!g) g = this.open(s);
    this.resultSinceOutput = false;
    if (s.kind === 'tool_call' && s.tool) {
      const id = this.uniqueId(s.tool.callId || `call_${s.index}`);
      g.calls.push({ tool_call_id: id, function_name: s.tool.name, arguments: argumentsObject(s.tool.args) });
      this.callHome.set(s.index, { group: g, id });
    } else if (s.kind === 'thought' && REASONING.test(s.label ?? '')) {
      g.reasoning.push(s.text);
    } else {
      // An empty text or thinking block (Claude Code writes thinking as "" with a signature) is a
      // step too: kept as a part of length 0, so reading the ATIF back keeps every step.
      g.texts.push(s.text);
      g.textKinds.push(s.kind);
    }
    if (s.usage) g.usages.push(s.usage);
  }

  private addResult(s: Step): void {
    const home = s.answers !== undefined ? this.callHome.get(s.answers) : undefined;
    const result: Json = home ? { source_call_id: home.id, content: s.text } : { content: s.text };
    // ATIF keeps a result in the step of its call, even when other steps came in between.
    const g = home?.group ?? this.group;
    this.resultSinceOutput = true;
    if (g) {
      if (s.isError) g.errorResults.push(g.results.length);
      g.results.push(result);
      return;
    }
    // A result whose call is not in this log still gets a step, from the environment.
    this.push({ source: 'system', message: '', ...timestampOf(s), observation: { results: [result] }, extra: { atl_kind: 'tool_result', ...(s.isError ? { error_results: [0] } : {}) } }, s);
  }

  private open(s: Step): AgentGroup {
    this.close();
    const g: AgentGroup = { atif: { source: 'agent', message: '', ...timestampOf(s) }, texts: [], textKinds: [], reasoning: [], calls: [], results: [], usages: [], errorResults: [], sourceId: s.sourceId, branch: s.branch };
    this.group = g;
    this.out.push({ atif: g.atif, sourceId: s.sourceId, group: g, ...(s.branch ? { branch: s.branch } : {}) });
    return g;
  }

  private close(): void {
    this.group = undefined;
  }

  /** A step of its own for `s`, which gives its source id and branch. */
  private push(atif: Json, s: Step): void {
    this.out.push({ atif, sourceId: s.sourceId, ...(s.branch ? { branch: s.branch } : {}) });
  }

  /** Per id, the suffix to try next: every lower one is taken (a log that reuses ids stays linear). */
  private readonly nextSuffix = new Map<string, number>();

  private uniqueId(id: string): string {
    let unique = id;
    let n = this.usedIds.has(id) ? this.nextSuffix.get(id) ?? 2 : 2;
    if (this.usedIds.has(unique)) for (unique = `${id}_${n}`; this.usedIds.has(unique);) unique = `${id}_${++n}`;
    if (unique !== id) this.nextSuffix.set(id, n + 1);
    this.usedIds.add(unique);
    return unique;
  }

  finish(): Json[] {
    return this.out.map((entry, i) => {
      const a = entry.atif;
      const g = entry.group;
      if (g) {
        a.message = g.texts.join('\n\n');
        if (g.reasoning.length > 0) a.reasoning_content = g.reasoning.join('\n\n');
        if (g.calls.length > 0) a.tool_calls = g.calls;
        if (g.results.length > 0) a.observation = { results: g.results };
        const usage = sumUsage(g.usages);
        if (usage?.model && usage.model !== this.defaultModel) a.model_name = usage.model;
        if (usage) a.metrics = metricsOf(usage);
        const extra: Json = {};
        if (g.usages.length > 1) extra.llm_calls = g.usages.length;
        if (g.errorResults.length > 0) extra.error_results = g.errorResults;
        // Pieces joined into one message or one reasoning say where they split, so reading back keeps every step.
        if (g.reasoning.length > 1 || g.reasoning[0] === '') extra.atl_reasoning_parts = g.reasoning.map((r) => r.length);
        // A reply without calls whose text is Terminus 2's JSON would read back as its calls: the parts say it was text.
        const natural = g.texts.length === 0 || (g.texts.length === 1 && g.texts[0] !== '' && g.textKinds[0] === (g.calls.length > 0 ? 'thought' : 'assistant')
          && (g.calls.length > 0 || terminusReply(g.texts[0]) === undefined));
        if (!natural) extra.atl_message_parts = g.texts.map((t, k) => ({ kind: g.textKinds[k], chars: t.length }));
        if (Object.keys(extra).length > 0) a.extra = extra;
      }
      this.restore(a, entry.sourceId);
      if (entry.branch && !(isRecord(a.extra) && a.extra.is_sidechain === true)) a.extra = { ...(isRecord(a.extra) ? a.extra : {}), is_sidechain: true, agent_id: entry.branch };
      return { step_id: i + 1, ...a };
    });
  }

  /** Puts back what an ATIF step had beyond the model: model name, metrics as written, extras, refs. */
  private restore(a: Json, sourceId: string | undefined): void {
    // Own keys only: a step id such as "constructor" must not find Object.prototype's.
    const kept = this.stash && sourceId !== undefined && Object.hasOwn(this.stash, sourceId) ? this.stash[sourceId] : undefined;
    if (!kept) return;
    for (const key of ['timestamp', 'model_name', 'reasoning_effort', 'metrics', 'extra', 'is_copied_context', 'llm_call_count'] as const) {
      if (kept[key] !== undefined) a[key] = kept[key];
    }
    if (kept.message !== undefined) a.message = kept.message;
    if (kept.toolCallExtras && Array.isArray(a.tool_calls)) {
      a.tool_calls.forEach((c, i) => {
        if (isRecord(c) && kept.toolCallExtras![i] !== undefined) c.extra = kept.toolCallExtras![i];
      });
    }
    if (kept.results && kept.results.length === resultsOf(a).length) a.observation = { results: kept.results };
  }
}

function resultsOf(a: Json): unknown[] {
  const results = isRecord(a.observation) ? a.observation.results : undefined;
  return Array.isArray(results) ? results : [];
}

/** A compaction is a system step whose observation is the summary (the v1.7 context-management convention). */
function compactionStep(s: Step, markManagement: boolean): Json {
  const summary = s.compaction?.summary;
  const message = summary !== undefined && s.text.endsWith(summary) ? s.text.slice(0, s.text.length - summary.length).replace(/\n\n$/, '') : s.text;
  const management: Json = { type: 'compaction', boundary: 'replace' };
  if (s.compaction?.trigger) management.trigger = s.compaction.trigger;
  if (s.compaction?.tokensBefore !== undefined) management.tokens_before = s.compaction.tokensBefore;
  const step: Json = { source: 'system', message: summary !== undefined ? message : '', ...timestampOf(s), observation: { results: [{ content: summary ?? s.text }] } };
  if (markManagement) step.extra = { context_management: management };
  return step;
}

/** Tool arguments as the JSON object ATIF requires; text arguments (bash blocks) go under `input`. */
function argumentsObject(args: string): Json {
  try {
    const parsed: unknown = JSON.parse(args);
    if (isRecord(parsed)) return parsed;
  } catch {
    // not JSON: the model wrote plain text
  }
  return args === '' ? {} : { input: args };
}

function metricsOf(u: RecordedUsage): Json {
  const m: Json = {};
  if (u.inputTokens !== undefined) m.prompt_tokens = u.inputTokens;
  if (u.outputTokens !== undefined) m.completion_tokens = u.outputTokens;
  if (u.cachedInputTokens !== undefined) m.cached_tokens = u.cachedInputTokens;
  if (u.cost !== undefined) m.cost_usd = u.cost;
  // Cache writes have no field of their own; the RFC and Harbor's Claude Code converter put them in `extra`.
  if (u.cacheWriteTokens !== undefined) m.extra = { cache_creation_input_tokens: u.cacheWriteTokens };
  return m;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** An ISO 8601 timestamp (Harbor parses it with Python's fromisoformat), from ISO text or epoch numbers. */
function timestampOf(s: Step): Json {
  const t = s.timestamp;
  if (t === undefined || t === '') return {};
  if (ISO_TIME.test(t)) return { timestamp: t };
  const n = Number(t);
  // A time no Date can hold (1e20) is left out rather than thrown on: the step still converts.
  if (Number.isFinite(n) && n > 0) {
    const iso = isoOfMs(n < 1e11 ? n * 1000 : n);
    return iso ? { timestamp: iso } : {};
  }
  const iso = isoOfMs(Date.parse(t));
  return iso ? { timestamp: iso } : {};
}

function totals(t: Run, steps: Json[]): Json {
  const fromSteps = steps.map((s) => (isRecord(s.metrics) ? s.metrics : undefined)).filter((m): m is Json => m !== undefined);
  const recorded = t.meta.recorded;
  const sum = (key: string) => fromSteps.reduce<number | undefined>((n, m) => (typeof m[key] === 'number' ? (n ?? 0) + (m[key] as number) : n), undefined);
  const out: Json = {};
  const put = (key: string, value: number | undefined) => { if (value !== undefined) out[key] = value; };
  put('total_prompt_tokens', recorded?.inputTokens ?? sum('prompt_tokens'));
  put('total_completion_tokens', recorded?.outputTokens ?? sum('completion_tokens'));
  put('total_cached_tokens', recorded?.cachedInputTokens ?? sum('cached_tokens'));
  put('total_cost_usd', recorded?.cost ?? sum('cost_usd'));
  out.total_steps = steps.length;
  const writes = recorded?.cacheWriteTokens ?? fromSteps.reduce<number | undefined>((n, m) => {
    const w = isRecord(m.extra) ? m.extra.cache_creation_input_tokens : undefined;
    return typeof w === 'number' ? (n ?? 0) + w : n;
  }, undefined);
  if (writes !== undefined) out.extra = { total_cache_creation_input_tokens: writes };
  return out;
}

function finalMetrics(original: unknown, stepCount: number): Json | undefined {
  if (!isRecord(original)) return undefined;
  return typeof original.total_steps === 'number' ? { ...original, total_steps: stepCount } : original;
}

/** What the run's record said about it (task, reward, resolution), kept beside the steps. */
function runExtra(t: Run): Json {
  const extra: Json = { source_format: t.format, source_file: path.basename(t.source.path) };
  for (const key of ['instanceId', 'taskId', 'reward', 'resolved', 'score', 'feedback', 'trial', 'error'] as const) {
    const v = t.meta[key];
    if (v !== undefined && v !== null) extra[key] = v;
  }
  return extra;
}

function stringMeta(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}
