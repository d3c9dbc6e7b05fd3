import type { RecordedUsage, Step, TrajectoryMeta } from '../model';
import { noteRetention, retentionInRequest } from './cacheRetention';
import { isRecord, StepBuilder } from '../steps';
import type { FormatAdapter, JsonlRecord, ParsedInput } from './adapter';
import { skipRecord } from './adapter';
import { stringOrUndefined, titleFromSteps } from './chatMessages';
import { CODEX_INJECTED } from './codexInjected';
import { linkProcessCalls, type ProcessIds } from './processLinks';
import { injectedAs, type Injected, INTERRUPTED_LABEL, labelWith } from './injected';
import { addResponseItem, IMAGE_WRAPPER, isResponseItem, partsText } from './responseItems';
import { extraOf } from '../meta';
import { num, recordedUsage } from './usage';

// Codex CLI rollout files (`~/.codex/sessions/…/rollout-*.jsonl`): one `{timestamp, type, payload}`
// a line. Older rollouts start with a bare meta line and hold bare Responses items.

const ROLLOUT_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);


function isRolloutLine(v: unknown): v is { type: string; payload: unknown; timestamp?: unknown } {
  return isRecord(v) && typeof v.type === 'string' && ROLLOUT_TYPES.has(v.type) && 'payload' in v;
}

/** The first line of a pre-0.44 rollout: `{id, timestamp, instructions?, git?}` with no type. */
function isLegacyMeta(v: unknown): boolean {
  return isRecord(v) && typeof v.id === 'string' && typeof v.timestamp === 'string' && !('type' in v) && !('role' in v);
}

export const codexAdapter: FormatAdapter = {
  id: 'codex',
  label: 'Codex CLI rollout',
  fileNames: ['*.jsonl'],
  tools: { command: ['shell', 'exec_command', 'local_shell', 'container.exec'] },
  compactionTrigger: { agent: 'Codex', unit: 'tokens', strategy: 'codex-compact' },
  sniff(input) {
    if (input.shape !== 'jsonl') return 0;
    const head = input.records.slice(0, 10).map((r) => r.value);
    if (head.some(isRolloutLine)) return 0.97;
    if (isLegacyMeta(head[0]) && head.slice(1).some((v) => isResponseItem(v) || (isRecord(v) && v.record_type === 'state'))) return 0.9;
    return 0;
  },
  parse(input, ctx) {
    const records = (input as Extract<ParsedInput, { shape: 'jsonl' }>).records;
    const b = new StepBuilder();
    const meta: TrajectoryMeta = { agent: 'codex' };
    const echoes = echoedTexts(records);
    let lastTotal: unknown;
    const calls = { seen: 0, tokens: 0, each: true }; // this thread's usage records, one per call, what they add up to, whether each had its own
    const fork = new ForkedHistory();
    records.forEach(({ value, line }, i) => {
      if (!isRecord(value)) return;
      const location = { line };
      const timestamp = stringOrUndefined(value.timestamp);
      // Legacy lines are bare; modern ones wrap the same content in `payload`.
      const kind = isRolloutLine(value) ? value.type : i === 0 && isLegacyMeta(value) ? 'session_meta' : 'response_item';
      const payload = isRolloutLine(value) ? value.payload : value;
      if (!isRecord(payload)) return;
      switch (kind) {
        case 'session_meta': {
          if (fork.opens(payload)) {
            skipRecord(ctx, 'session_meta (of the parent thread this one was forked from)', location);
            break;
          }
          Object.assign(meta, sessionMeta(payload));
          const instructions = isRecord(payload.base_instructions) ? payload.base_instructions.text : payload.instructions;
          if (typeof instructions === 'string' && instructions.trim() !== '') {
            b.add({ kind: 'system', text: instructions, label: 'instructions', location, timestamp });
          } else skipRecord(ctx, 'session_meta (session info)', location);
          break;
        }
        case 'turn_context':
          if (typeof payload.model === 'string') meta.model = payload.model;
          noteRetention(meta, retentionInRequest(payload), 'the turn context (prompt_cache_retention)');
          skipRecord(ctx, 'turn_context (model and settings)', location);
          break;
        case 'response_item': {
          if (payload.record_type !== undefined) break; // legacy `{record_type:"state"}` lines
          // Reasoning kept only encrypted (no summary, no content) has nothing to show: named, not lost.
          const added = addResponseItem(b, payload, { location, timestamp, injectedOf: fork.copying ? parentInjected : injectedOf });
          if (added.length === 0 && payload.type === 'reasoning') {
            skipRecord(ctx, 'response_item/reasoning (encrypted, no summary)', location);
          } else if (added.length === 0 && payload.type === 'ghost_snapshot') {
            // The git commit Codex takes of the worktree so a turn can be undone: never sent to the model.
            skipRecord(ctx, 'response_item/ghost_snapshot (the worktree snapshot /undo restores)', location);
          }
          for (const step of added) if (step.kind === 'tool_result') readOutputStatus(step);
          break;
        }
        case 'compacted': {
          const summary = compactedSummary(payload);
          b.add({ kind: 'compaction', text: summary, label: 'compacted', location, timestamp, compaction: { summary } });
          b.closeOpenCalls();
          break;
        }
        case 'event_msg': {
          const event = String(payload.type);
          if (event === 'token_count') {
            skipRecord(ctx, 'token_count (usage)', location);
            if (isRecord(payload.info) && typeof payload.info.model_context_window === 'number') meta.contextWindow = payload.info.model_context_window;
            const count = codexTokenCount(payload.info, lastTotal, meta.model);
            if (!count) break;
            lastTotal = count.totalTokens;
            // The parent's calls, copied with its history: their total is where this thread's begins.
            if (fork.copying) { fork.base = count.total; break; }
            meta.recorded = count.total;
            calls.seen++;
            calls.tokens += usageTokens(count.call);
            if (!count.call) calls.each = false;
            const last = b.steps[b.steps.length - 1];
            if (last && !last.usage && count.call) last.usage = count.call;
          } else if (event === 'user_message' || event === 'agent_message' || event === 'agent_reasoning') {
            if (!addEventEcho(b, event, String(payload.message ?? payload.text ?? ''), echoes, { location, timestamp })) skipRecord(ctx, `event_msg/${event} (copy of a response item)`, location);
          } else if (event === 'exec_command_end' && exitCodeInto(b.steps, payload)) {
            // Unified exec: the call answered "Process running with session ID N"; the exit status came later, here.
            skipRecord(ctx, "event_msg/exec_command_end (its exit code read into the call's result)", location);
          } else if (event === 'turn_aborted' && payload.reason === 'interrupted') {
            // The person pressed Esc: an act of theirs, not bookkeeping. Codex ≥ 0.9x wrote the
            // `<turn_aborted>` note it sends the model just before: that step is the interruption.
            const last = b.steps[b.steps.length - 1];
            if (last?.interruption) skipRecord(ctx, 'event_msg/turn_aborted (the interruption the <turn_aborted> note before it records)', location);
            else b.add({ kind: 'environment', text: 'turn aborted: interrupted', label: INTERRUPTED_LABEL, location, timestamp, interruption: true });
          } else if (event === 'error' && typeof payload.message === 'string') {
            // A turn Codex could not finish (429 after its retries, a usage limit, a refused sandbox): an
            // error as the log records it, named by Codex's own error kind where it gives one.
            b.add({ kind: 'other', text: payload.message, label: labelWith('error', codexErrorKind(payload.codex_error_info) ?? payload.message.split('\n', 1)[0]), location, timestamp, isError: true });
          } else if (event === 'task_complete' && !fork.copying && typeof payload.last_agent_message === 'string' && payload.last_agent_message.trim() !== '' && !answeredSinceRequest(b.steps)) {
            // A rollout that kept only events may hold the turn's answer nowhere else.
            b.add({ kind: 'assistant', text: payload.last_agent_message, label: 'task_complete (last agent message)', location, timestamp });
          } else {
            if (event === 'task_started') fork.turnStarts(payload.turn_id);
            skipRecord(ctx, `event_msg/${event}`, location); // task and turn boundaries, rate limits: the client's bookkeeping
          }
          break;
        }
      }
    });
    const steps = b.finish();
    if (fork.base && meta.recorded) meta.recorded = usageSince(meta.recorded, fork.base);
    if (fork.parent) meta.forkedFrom = fork.parent;
    // A running total larger than the calls recorded one by one holds calls the log did not keep.
    if (meta.recorded && calls.seen > 0 && calls.each && usageTokens(meta.recorded) > calls.tokens) {
      meta.recordedCallsAtLeast = { calls: calls.seen + 1, why: `its running total (token_count) is larger than the ${calls.seen === 1 ? 'call' : `${calls.seen} calls`} it records one by one` };
    }
    linkProcessCalls(steps, UNIFIED_EXEC);
    if (records.length > 0 && steps.length === 0) ctx.warnings.push({ message: 'No messages or tool calls were found in this rollout.' });
    const fallback = meta.sessionId ? `Codex session ${String(meta.sessionId)}` : ctx.fileName;
    return { title: titleFromSteps(steps, fallback), steps, meta };
  },
};

/** Whether the agent said anything since the person's last request (the answer `task_complete` repeats). */
function answeredSinceRequest(steps: readonly Step[]): boolean {
  for (let i = steps.length - 1; i >= 0; i--) {
    if (steps[i].kind === 'assistant') return true;
    if (steps[i].kind === 'user') return false;
  }
  return false;
}

/** `usage_limit_exceeded`, or the key of `{response_too_many_failed_attempts: {…}}`: the kind Codex gives an error. */
function codexErrorKind(info: unknown): string | undefined {
  if (typeof info === 'string') return info === 'other' ? undefined : info;
  return isRecord(info) ? Object.keys(info)[0] : undefined;
}

function injectedOf(text: string): Injected | undefined {
  return injectedAs(CODEX_INJECTED, text);
}

/** A message of the parent's history a forked thread starts with: context, not a request to this thread. */
function parentInjected(text: string): Injected {
  return injectedAs(CODEX_INJECTED, text) ?? { label: labelWith('from the parent thread', text.split('\n', 1)[0].trim().slice(0, 80)) };
}

/**
 * A forked thread's rollout (a subagent Codex spawned: `forked_from_id` in its session_meta) copies
 * the parent's history after its own session_meta: the parent's session_meta, its messages and its
 * token counts, up to the fork. The copy ends where this thread's own first turn starts; the ids
 * say which turn that is, being UUIDv7 (time-ordered): a turn started after this thread was made.
 */
class ForkedHistory {
  private own: string | undefined;
  /** The `forked_from_id` of this thread's own session_meta. */
  parent: string | undefined;
  private seen = false;
  /** Whether the records now read are the parent's, copied. */
  copying = false;
  /** The parent's running total at the fork: this thread's usage is what came after it. */
  base: RecordedUsage | undefined;

  /** Reads a session_meta; true when it is the parent's, opening the copy of its history. */
  opens(p: Record<string, unknown>): boolean {
    const id = stringOrUndefined(p.id);
    if (!this.seen) {
      this.seen = true;
      this.own = id;
      this.parent = stringOrUndefined(p.forked_from_id);
      return false;
    }
    if (this.parent === undefined || id !== this.parent || !UUID_V7.test(this.own ?? '')) return false;
    this.copying = true;
    return true;
  }

  turnStarts(turn: unknown): void {
    if (this.copying && typeof turn === 'string' && UUID_V7.test(turn) && turn.toLowerCase() > this.own!.toLowerCase()) this.copying = false;
  }
}

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** Input plus output of a usage record (0 when there is none). */
function usageTokens(u: RecordedUsage | undefined): number {
  return (u?.inputTokens ?? 0) + (u?.outputTokens ?? 0);
}

/** A running total less what it held at `base`. */
function usageSince(total: RecordedUsage, base: RecordedUsage): RecordedUsage {
  const less = (a: number | undefined, b: number | undefined) => (a === undefined ? undefined : Math.max(0, a - (b ?? 0)));
  return { ...total, inputTokens: less(total.inputTokens, base.inputTokens), outputTokens: less(total.outputTokens, base.outputTokens), ...(total.cachedInputTokens !== undefined ? { cachedInputTokens: less(total.cachedInputTokens, base.cachedInputTokens) } : {}) };
}

function sessionMeta(p: Record<string, unknown>): TrajectoryMeta {
  const git = isRecord(p.git) ? p.git : undefined;
  return {
    sessionId: stringOrUndefined(p.id),
    cliVersion: stringOrUndefined(p.cli_version),
    extra: extraOf({
      cwd: stringOrUndefined(p.cwd),
      originator: stringOrUndefined(p.originator),
      modelProvider: stringOrUndefined(p.model_provider),
      gitBranch: git ? stringOrUndefined(git.branch) : undefined,
    }),
  };
}

/**
 * A Codex `token_count` event's `info` as a model call, or undefined when it is not a new one: Codex
 * writes the count again after the tools ran and after every turn_context, so only a changed
 * running total (`total_token_usage.total_tokens`) is a call. `call` is its own `last_token_usage`.
 * Read here for rollouts and for chat exports that carry the events (openaiChat's `meta.token_counts`).
 */
export function codexTokenCount(info: unknown, previousTotal: unknown, model: string | undefined): { totalTokens: unknown; total?: RecordedUsage; call?: RecordedUsage } | undefined {
  if (!isRecord(info) || !isRecord(info.total_token_usage) || Object.keys(info.total_token_usage).length === 0) return undefined;
  const running = info.total_token_usage;
  if (running.total_tokens === previousTotal) return undefined;
  const usage = (u: Record<string, unknown>) => recordedUsage({ model, input: num(u.input_tokens), output: num(u.output_tokens), cacheRead: num(u.cached_input_tokens) });
  return { totalTokens: running.total_tokens, total: usage(running), call: isRecord(info.last_token_usage) ? usage(info.last_token_usage) : undefined };
}

/** Inline compaction writes the summary in `message`; remote compaction leaves it empty and keeps the new history. */
function compactedSummary(p: Record<string, unknown>): string {
  if (typeof p.message === 'string' && p.message.trim() !== '') return p.message;
  if (!Array.isArray(p.replacement_history)) return '';
  return p.replacement_history.filter(isRecord).map((item) => {
    if (item.type === 'compaction') return '[encrypted compaction summary]';
    if (item.type === 'message' || item.role) return `${String(item.role ?? 'message')}: ${partsText(item.content)}`;
    return `[${String(item.type)}]`;
  }).join('\n\n');
}

/**
 * Codex logs each user message, agent message and reasoning summary twice: as a `response_item` and
 * as an `event_msg`. Counts the response-item texts so each event copy is dropped exactly once.
 */
function echoedTexts(records: JsonlRecord[]): Map<string, number> {
  const counts = new Map<string, number>();
  const bump = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  for (const { value } of records) {
    const p = isRolloutLine(value) && value.type === 'response_item' ? value.payload : undefined;
    if (!isRecord(p)) continue;
    if (p.type === 'message' && (p.role === 'user' || p.role === 'assistant')) {
      // Images are not echoed in the event copy, nor the text parts that wrap one (`<image name=[Image #1]>`, `</image>`); compare the rest.
      const textParts = Array.isArray(p.content) ? p.content.filter((part) => isRecord(part) && typeof part.text === 'string' && !IMAGE_WRAPPER.test(part.text)) : p.content;
      bump(`${p.role === 'user' ? 'user_message' : 'agent_message'}\u0000${partsText(textParts).trim()}`);
    } else if (p.type === 'reasoning' && Array.isArray(p.summary)) {
      for (const part of p.summary) if (isRecord(part)) bump(`agent_reasoning\u0000${String(part.text ?? '').trim()}`);
    }
  }
  return counts;
}

/** An event copy with no response-item twin is the only record of that message, so it becomes a step. */
/** Whether the event became a step (false for a copy of a response item, or an empty one). */
function addEventEcho(b: StepBuilder, event: string, text: string, echoes: Map<string, number>, base: { location: { line: number }; timestamp?: string }): boolean {
  const key = `${event}\u0000${text.trim()}`;
  const seen = echoes.get(key) ?? 0;
  if (seen > 0) {
    echoes.set(key, seen - 1);
    return false;
  }
  if (text.trim() === '') return false;
  if (event === 'user_message') {
    b.closeOpenCalls();
    b.add({ ...base, kind: 'user', text, label: event });
  } else {
    b.add({ ...base, kind: event === 'agent_reasoning' ? 'thought' : 'assistant', text, label: event });
  }
  return true;
}

/**
 * `exec_command_end` of a call whose result has no exit status yet (unified exec answers a long
 * command with its session id, and the command ends later): the status goes on that result.
 * False when there is no such result.
 */
function exitCodeInto(steps: readonly Step[], payload: Record<string, unknown>): boolean {
  const code = typeof payload.exit_code === 'number' ? payload.exit_code : undefined;
  if (code === undefined || typeof payload.call_id !== 'string') return false;
  for (let i = steps.length - 1; i >= 0; i--) {
    const s = steps[i];
    // A linked result names its call by `answers`; an unlinked one keeps the id.
    const callId = s.answers !== undefined ? steps[s.answers]?.tool?.callId : s.tool?.callId;
    if (s.kind !== 'tool_result' || callId !== payload.call_id) continue;
    if (s.exitCode === undefined) s.exitCode = code;
    return true;
  }
  return false;
}

/**
 * Codex 0.3x's headline for a command its sandbox stopped, before what the command printed:
 * `failed in sandbox LinuxSeccomp with execution error: sandbox denied exec error, exit code: 1`,
 * then `, stdout: …, stderr: …`. Its exit status is the group `sandboxExit`. Unanchored, so a
 * reader can place it; the one pattern for this adapter and the loss report's error reading.
 */
export const SANDBOX_HEADLINE = String.raw`failed in sandbox \w+ with execution error: [^\n]*?\bexit code: (?<sandboxExit>-?\d+)`;
const STARTS_WITH_SANDBOX_HEADLINE = new RegExp(`^${SANDBOX_HEADLINE}`);

/**
 * Codex writes a command's status into the output text it returns (earlier versions, into a JSON field of it): a header
 * `Exit code: 1` (then `Wall time: …` and `Output:`), or `execution error: …` when its sandbox could
 * not start the command at all. Both are Codex's own wording, so the step carries them as its
 * exit code and error flag, for the tree, Next Error and every summary alike.
 */
function readOutputStatus(step: Step): void {
  // Codex 0.3x–0.5x returned a shell call's output as JSON, its status in a field:
  // `{"output":"…","metadata":{"exit_code":127,"duration_seconds":0.1}}`.
  if (step.exitCode === undefined && step.text.startsWith('{"output":')) {
    const status = /"metadata":\{"exit_code":(-?\d+),"duration_seconds":[\d.eE+-]+\}\}\s*$/.exec(step.text.slice(-160));
    if (status) step.exitCode = Number(status[1]);
  }
  if (step.exitCode === undefined) {
    // `Exit code: 1\nWall time: …`, or unified exec's `Chunk ID: …\nWall time: …\nProcess exited with code 1`.
    const header = /^Exit code: (-?\d+)\r?\nWall time: /.exec(step.text) ?? /^Chunk ID: \S+\r?\nWall time: [^\n]*\r?\nProcess exited with code (-?\d+)\r?\n/.exec(step.text);
    if (header) step.exitCode = Number(header[1]);
  }
  // Codex 0.3x's answer for a command its sandbox stopped: `failed in sandbox LinuxSeccomp with
  // execution error: sandbox denied exec error, exit code: 1, stdout: …, stderr: …`. The command
  // failed, with the status it names.
  const sandboxed = STARTS_WITH_SANDBOX_HEADLINE.exec(step.text);
  if (sandboxed?.groups) {
    step.exitCode ??= Number(sandboxed.groups.sandboxExit);
    step.isError ??= true;
  }
  // Codex's own answers for a call that did not run: a sandbox or executor error, or the person
  // declining the command when asked to approve it (the rollout records no status for either).
  if (step.isError === undefined && step.exitCode === undefined && (/^execution error: \S/.test(step.text) || /^exec command rejected by user\s*$/.test(step.text))) step.isError = true;
}

/**
 * Unified exec: a call that names the session id an earlier call's result said was still running
 * (`Process running with session ID 48230`; `write_stdin` polls it, or types into it) continues
 * that call.
 */
const UNIFIED_EXEC: ProcessIds = {
  argument: 'session_id',
  running: (text) => /^Process running with session ID (\d+)\r?$/m.exec(text.slice(0, 300))?.[1],
  exited: (text) => /^Process exited with code -?\d+\r?$/m.test(text.slice(0, 300)),
};
