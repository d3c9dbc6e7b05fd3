import { pointerOf } from '../io/jsonScan';
import type { RecordedUsage, SourceLocation, Step, StepKind, TrajectoryMeta, Warning } from '../model';
import { argsOf, isRecord, StepBuilder, textOf } from '../steps';
import { jsonObjectOf, type FormatAdapter, type JsonlRecord, type ParsedInput } from './adapter';
import { stringOrUndefined, titleFromSteps } from './chatMessages';
import { extraOf } from '../meta';

// SWE-agent `.traj`: one JSON document with `trajectory`, `history` and `info`.
//
// Which list the steps come from: `history`. It is the message list as the model received it —
// system prompt, demonstrations, the instance template (the task), and every action and every
// observation after templating — so step texts are what the model saw. `trajectory` holds the
// same actions with the raw, untemplated observation, and every one of its items repeats the
// whole processed history in `query` (`messages` before 1.1); reading both would count each
// message many times. `trajectory` is used only for what `history` lacks: the observation of
// the last action (pre-1.0 files end `history` at `submit`), steps after the point where a file
// was cut off, and everything when a file has no `history` at all.

/** Splits a text action such as `edit 12:14\n…` or `open file.py` into a tool name and its arguments. */
function splitCommand(action: string): { name: string; args: string } {
  const match = /^(\S+)\s*([\s\S]*)$/.exec(action.trim());
  return match ? { name: match[1], args: match[2] } : { name: '', args: '' };
}

export function numberOrUndefined(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** The first line of the issue inside an instance template, prefixed by the instance id. */
export function taskTitle(steps: readonly Step[], instanceId: string | undefined, fallback: string): string {
  const task = steps.find((s) => s.kind === 'user')?.text ?? '';
  // SWE-agent templates say `ISSUE:`, mini-swe-agent ones `PR description:`; the next line is the issue title.
  const issue = /(?:ISSUE:|PR description:)[ \t]*\r?\n\s*([^\r\n]+)/.exec(task)?.[1]?.trim();
  const base = issue ?? titleFromSteps(steps, instanceId ?? fallback);
  const title = instanceId && base !== instanceId ? `${instanceId}: ${base}` : base;
  return title.length > 120 ? title.slice(0, 119) + '…' : title;
}

/** Turns a log's message stream into steps, keeping track of which calls still await their observation. */
export class ActionStepper {
  readonly b = new StepBuilder();
  private taskSeen = false;
  private openCalls = 0;

  constructor(private readonly warnings: Warning[]) {}

  get awaitingResult(): boolean {
    return this.openCalls > 0;
  }

  add(step: Omit<Step, 'index' | 'turn'>): Step {
    if (step.kind === 'tool_call') this.openCalls++;
    if (step.kind === 'tool_result') this.openCalls = Math.max(0, this.openCalls - 1);
    if (step.kind === 'user') {
      this.b.closeOpenCalls();
      this.openCalls = 0;
    }
    return this.b.add(step);
  }

  /**
   * A message the harness sent as `user`. Only the first one is the task; later ones are
   * observations fed back to the model (or format-error feedback when no call is waiting).
   */
  addUserMessage(text: string, base: StepBase): void {
    let kind: StepKind = 'user';
    if (this.taskSeen) kind = this.awaitingResult ? 'tool_result' : 'other';
    this.taskSeen = true;
    // Pre-1.0 logs name observations only by role; say what they are.
    const label = kind === 'tool_result' && base.label === 'user' ? 'observation' : base.label;
    // With no call waiting, the harness is refusing the model's reply (no command, or more than one): an error it reports.
    this.add({ ...base, label, kind, text, ...(kind === 'other' ? { isError: true } : {}) });
  }

  warn(message: string): void {
    this.warnings.push({ message });
  }
}

export type StepBase = Pick<Step, 'location' | 'sourceId' | 'label' | 'branch' | 'timestamp' | 'usage'>;

/** Location and source id of a value in the file: the JSON Pointer, and the same path without its leading slash. */
export function at(...tokens: (string | number)[]): { location: SourceLocation; sourceId: string } {
  const pointer = pointerOf(...tokens);
  return { location: { pointer }, sourceId: pointer.slice(1) };
}

/** A history entry the model wrote: optional reasoning, its thought, and the action as one tool call (or several with function calling). */
function addAction(s: ActionStepper, entry: Record<string, unknown>, i: number, branch: string | undefined, lines?: readonly number[]): string | undefined {
  const where = { ...historyAt(lines, i), branch };
  const blocks = Array.isArray(entry.thinking_blocks) ? entry.thinking_blocks.filter(isRecord) : [];
  const reasoning = blocks.map((blk) => textOf(blk.thinking ?? blk.text)).filter(Boolean).join('\n');
  if (reasoning) s.add({ ...where, kind: 'thought', label: 'reasoning', text: reasoning });
  const content = textOf(entry.content);
  const thought = (typeof entry.thought === 'string' ? entry.thought : content).trimEnd();
  const action = typeof entry.action === 'string' ? entry.action.trim() : '';
  const calls = Array.isArray(entry.tool_calls) ? entry.tool_calls.filter(isRecord) : [];
  if (calls.length === 0 && !action) {
    s.add({ ...where, kind: 'assistant', label: stringOrUndefined(entry.message_type) ?? 'assistant', text: content });
    return undefined;
  }
  if (thought.trim()) s.add({ ...where, kind: 'thought', label: 'thought', text: thought });
  if (calls.length > 0) {
    calls.forEach((call, k) => {
      const fn = isRecord(call.function) ? call.function : call;
      const args = argsOf(fn.arguments);
      s.add({
        ...historyAt(lines, i, 'tool_calls', k), branch, kind: 'tool_call', label: 'action', text: args,
        tool: { name: String(fn.name ?? 'tool'), args, callId: stringOrUndefined(call.id) },
      });
    });
  } else {
    s.add({ ...where, kind: 'tool_call', label: 'action', text: action, tool: splitCommand(action) });
  }
  return action;
}

interface HistoryResult {
  /** Actions the main agent took in `history`, in order, as their command text. */
  actions: string[];
}

/** Where history item `i` is: its JSON Pointer in a `.traj`, its line in a history written as JSON Lines. */
function historyAt(lines: readonly number[] | undefined, i: number, ...more: (string | number)[]): { location: SourceLocation; sourceId: string } {
  const place = at('history', i, ...more);
  return lines ? { location: { line: lines[i] }, sourceId: place.sourceId } : place;
}

function addHistory(s: ActionStepper, history: unknown[], lines?: readonly number[]): HistoryResult {
  const actions: string[] = [];
  const first = history.find(isRecord);
  const mainAgent = first ? stringOrUndefined(first.agent) : undefined;
  history.forEach((entry, i) => {
    if (!isRecord(entry)) {
      s.warn(`history item ${i + 1} is not a message and was skipped.`);
      return;
    }
    const agent = stringOrUndefined(entry.agent);
    const branch = agent !== undefined && agent !== mainAgent ? agent : undefined;
    const role = String(entry.role ?? '');
    const type = stringOrUndefined(entry.message_type);
    const base: StepBase = { ...historyAt(lines, i), branch, label: type ?? role };
    const text = textOf(entry.content);
    if (entry.is_demo === true || type === 'demonstration') {
      // Demonstrations are worked examples the harness pastes in, not the task: context, like the system prompt.
      s.add({ ...base, kind: 'system', label: 'demonstration', text });
    } else if (role === 'system') {
      s.add({ ...base, kind: 'system', text });
    } else if (role === 'assistant') {
      const action = addAction(s, entry, i, branch, lines);
      if (action !== undefined && branch === undefined) actions.push(action);
    } else if (role === 'tool') {
      const ids = Array.isArray(entry.tool_call_ids) ? entry.tool_call_ids : [entry.tool_call_id];
      const callId = stringOrUndefined(ids[0]);
      s.add({ ...base, kind: 'tool_result', text, tool: callId ? { name: '', args: '', callId } : undefined });
    } else if (role === 'user') {
      s.addUserMessage(text, base);
    } else {
      s.add({ ...base, kind: 'other', text });
    }
  });
  return { actions };
}

/** One `trajectory` item as thought, action and observation (used where `history` has no such step). */
function addTrajectoryStep(s: ActionStepper, item: Record<string, unknown>, j: number): void {
  const thought = textOf(item.thought).trimEnd();
  const action = textOf(item.action).trim();
  if (thought.trim()) s.add({ ...at('trajectory', j, 'thought'), kind: 'thought', label: 'thought', text: thought });
  if (action) s.add({ ...at('trajectory', j, 'action'), kind: 'tool_call', label: 'action', text: action, tool: splitCommand(action) });
  if (typeof item.observation === 'string') {
    s.add({ ...at('trajectory', j, 'observation'), kind: action ? 'tool_result' : 'other', label: 'observation', text: item.observation });
  }
}

/** Without `history`, the system prompt and task are still in the first step's query. */
function addPreambleFromQuery(s: ActionStepper, item: Record<string, unknown>): void {
  const key = Array.isArray(item.query) ? 'query' : 'messages';
  const query = item[key];
  if (!Array.isArray(query)) return;
  for (let i = 0; i < query.length; i++) {
    const msg = query[i];
    if (!isRecord(msg) || msg.role === 'assistant') break;
    const base: StepBase = { ...at('trajectory', 0, key, i), label: stringOrUndefined(msg.message_type) ?? String(msg.role) };
    const text = textOf(msg.content);
    if (msg.is_demo === true || msg.message_type === 'demonstration') s.add({ ...base, kind: 'system', label: 'demonstration', text });
    else if (msg.role === 'system') s.add({ ...base, kind: 'system', text });
    else s.addUserMessage(text, base);
  }
}

function addTrajectoryTail(s: ActionStepper, trajectory: unknown[], actions: string[], hadHistory: boolean): void {
  const k = actions.length;
  if (k > trajectory.length) return;
  if (k > 0) {
    // History and trajectory only line up if they agree on the last action both hold.
    const last = trajectory[k - 1];
    if (!isRecord(last) || textOf(last.action).trim() !== actions[k - 1]) return;
    if (s.awaitingResult && typeof last.observation === 'string') {
      s.add({ ...at('trajectory', k - 1, 'observation'), kind: 'tool_result', label: 'observation', text: last.observation });
    }
  } else if (!hadHistory) {
    const first = trajectory[0];
    if (isRecord(first)) addPreambleFromQuery(s, first);
  }
  for (let j = k; j < trajectory.length; j++) {
    const item = trajectory[j];
    if (isRecord(item)) addTrajectoryStep(s, item, j);
    else s.warn(`trajectory item ${j + 1} is not a step and was skipped.`);
  }
}

/** `replay_config` is a JSON string in most files and an object in some. */
function replayConfig(root: Record<string, unknown>): Record<string, unknown> | undefined {
  const raw = root.replay_config;
  if (isRecord(raw)) return raw;
  if (typeof raw !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function metaOf(root: Record<string, unknown>, fileName: string): TrajectoryMeta {
  const info = isRecord(root.info) ? root.info : {};
  const stats = isRecord(info.model_stats) ? info.model_stats : {};
  const config = replayConfig(root);
  const agentConfig = config && isRecord(config.agent) ? config.agent : undefined;
  const modelConfig = agentConfig && isRecord(agentConfig.model) ? agentConfig.model : undefined;
  const model = stringOrUndefined(modelConfig?.name) ?? stringOrUndefined(modelConfig?.model_name);
  const problem = config && isRecord(config.problem_statement) ? config.problem_statement : undefined;
  const recorded: RecordedUsage = {
    model,
    inputTokens: numberOrUndefined(stats.tokens_sent),
    outputTokens: numberOrUndefined(stats.tokens_received),
    // `instance_cost` is this run's cost; older files also carry `total_cost`, a running total over a batch.
    cost: numberOrUndefined(stats.instance_cost) ?? numberOrUndefined(stats.total_cost),
  };
  return {
    agent: 'SWE-agent',
    model,
    instanceId: stringOrUndefined(problem?.id) ?? (fileName.endsWith('.traj') ? fileName.slice(0, -'.traj'.length) : undefined),
    recorded,
    apiCalls: numberOrUndefined(stats.api_calls),
    exitStatus: stringOrUndefined(info.exit_status),
    version: stringOrUndefined(info.swe_agent_version),
    extra: extraOf({ environment: stringOrUndefined(root.environment) }),
  };
}


function looksLikeStep(item: unknown): boolean {
  return isRecord(item) && 'action' in item && ('observation' in item || 'response' in item);
}

/**
 * SWE-agent's `history` written one entry per line (traceforge's captures): every record a message
 * with SWE-agent's `message_type` (`system_prompt`, `observation`, `action`, …) and its `agent`.
 */
export function historyLines(input: ParsedInput): readonly JsonlRecord[] | undefined {
  if (input.shape !== 'jsonl' || input.records.length < 2) return undefined;
  const entry = (v: unknown) => isRecord(v) && typeof v.role === 'string' && typeof v.message_type === 'string' && typeof v.agent === 'string';
  const head = input.records.slice(0, 20);
  return head.every((r) => entry(r.value)) && head.some((r) => isRecord(r.value) && (r.value.message_type === 'action' || r.value.message_type === 'system_prompt')) ? input.records : undefined;
}

export const sweAgentAdapter: FormatAdapter = {
  id: 'swe-agent',
  label: 'SWE-agent trajectory (.traj)',
  fileNames: ['*.traj', '*.jsonl'],
  // SWE-agent 1.x's editing tools as function calls (text mode reads them as commands; calls.ts knows those).
  tools: { create: ['create'], edit: ['edit', 'insert', 'append'], read: ['open'] },
  sniff(input, fileName) {
    if (historyLines(input)) return 0.9;
    const root = jsonObjectOf(input);
    if (!root || 'trajectory_format' in root) return 0;
    const hasTrajectory = Array.isArray(root.trajectory);
    const hasHistory = Array.isArray(root.history);
    if (hasTrajectory && hasHistory) return 0.97;
    if (hasTrajectory && (looksLikeStep((root.trajectory as unknown[])[0]) || fileName.endsWith('.traj'))) return 0.9;
    // A file cut off inside `trajectory` keeps no `history`; one with only `history` needs SWE-agent's `info`.
    if (hasHistory && isRecord(root.info) && ('model_stats' in root.info || 'exit_status' in root.info)) return 0.85;
    return 0;
  },
  parse(input, ctx) {
    const lines = historyLines(input);
    if (lines) {
      const s = new ActionStepper(ctx.warnings);
      addHistory(s, lines.map((r) => r.value), lines.map((r) => r.line));
      const steps = s.b.finish();
      return { title: taskTitle(steps, undefined, ctx.fileName), steps, meta: { agent: 'SWE-agent' } };
    }
    const root = jsonObjectOf(input)!;
    const s = new ActionStepper(ctx.warnings);
    const history = Array.isArray(root.history) ? root.history : [];
    const trajectory = Array.isArray(root.trajectory) ? root.trajectory : [];
    const { actions } = addHistory(s, history);
    addTrajectoryTail(s, trajectory, actions, history.length > 0);
    const steps = s.b.finish();
    const meta = metaOf(root, ctx.fileName);
    return { title: taskTitle(steps, meta.instanceId, ctx.fileName), steps, meta };
  },
};
