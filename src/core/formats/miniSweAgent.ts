import type { RecordedUsage, TrajectoryMeta, Warning } from '../model';
import { argsOf, isRecord, textOf } from '../steps';
import { jsonObjectOf, type FormatAdapter } from './adapter';
import { stringOrUndefined } from './chatMessages';
import { ActionStepper, at, numberOrUndefined, type StepBase, taskTitle } from './sweAgent';
import { isoOfMs } from './times';
import { openaiUsageParts, recordedUsage } from './usage';
import { extraOf } from '../meta';

// mini-swe-agent `*.traj.json`: `{info, messages, trajectory_format, instance_id}`.
// Format "mini-swe-agent-1": the model writes one ```bash block per reply and the output comes
// back as a `user` message (`<returncode>…</returncode><output>…</output>`). Format "…-1.1":
// provider-native messages, so tool-calling models use `tool_calls` and `role:"tool"` results,
// text models keep bash blocks (listed in `extra.actions`), and a final `role:"exit"` message
// records how the run ended.

/** The command blocks mini-swe-agent executes: ```bash in v1, ```mswea_bash_command in some v2 configs. */
const COMMAND_BLOCK = /```(?:bash|mswea_bash_command)[ \t]*\r?\n([\s\S]*?)\r?\n```/g;

/** Epoch seconds (how mini-swe-agent stamps messages) as an ISO time. */
function timestampOf(extra: Record<string, unknown>): string | undefined {
  const t = extra.timestamp;
  if (typeof t === 'number') return isoOfMs(t * 1000); // out of range: no time rather than a throw
  return typeof t === 'string' ? t : undefined;
}

/** What the provider reported for this one reply, from the raw response kept in `extra`. */
function replyUsage(extra: Record<string, unknown>): RecordedUsage | undefined {
  const response = isRecord(extra.response) ? extra.response : undefined;
  const usage = response && isRecord(response.usage) ? response.usage : undefined;
  const parts = usage ? openaiUsageParts(usage) : {};
  // The cost mini-swe-agent priced the reply at, else the provider's.
  const cost = numberOrUndefined(extra.cost) ?? parts.cost;
  return recordedUsage({ ...parts, model: stringOrUndefined(response?.model), ...(cost !== undefined ? { cost } : {}) });
}

function addAssistant(s: ActionStepper, msg: Record<string, unknown>, i: number, commandBlock: RegExp): void {
  const extra = isRecord(msg.extra) ? msg.extra : {};
  const content = textOf(msg.content);
  // The reply's usage goes on its first step only, so sums over steps count each reply once.
  let usage = replyUsage(extra);
  const base = (): StepBase => {
    const b: StepBase = { ...at('messages', i), timestamp: timestampOf(extra), usage };
    usage = undefined;
    return b;
  };
  // A reasoning model's thinking comes back beside the reply (litellm's `reasoning_content`, as
  // DeepSeek and others send it); with tool calls the reply's own content is often empty.
  const reasoning = textOf(msg.reasoning_content ?? msg.reasoning).trim();
  if (reasoning) s.add({ ...base(), kind: 'thought', label: 'reasoning', text: reasoning });
  const toolCalls = Array.isArray(msg.tool_calls) ? msg.tool_calls.filter(isRecord) : [];
  if (toolCalls.length > 0) {
    if (content.trim()) s.add({ ...base(), kind: 'thought', label: 'thought', text: content });
    toolCalls.forEach((call, k) => {
      const fn = isRecord(call.function) ? call.function : call;
      const args = argsOf(fn.arguments);
      s.add({
        ...base(), ...at('messages', i, 'tool_calls', k), kind: 'tool_call', label: 'tool_call', text: args,
        tool: { name: String(fn.name ?? 'bash'), args, callId: stringOrUndefined(call.id) },
      });
    });
    return;
  }
  const blocks = [...content.matchAll(commandBlock)].map((m) => [m[0], dedent(m[1] ?? m[0])] as const);
  const actions = Array.isArray(extra.actions) ? extra.actions.filter(isRecord) : [];
  // v1 runs a reply only when it holds exactly one command block; otherwise it answers with a format error.
  const commands = actions.length > 0
    ? actions.map((a) => textOf(a.command))
    : blocks.length === 1 ? [blocks[0][1]] : [];
  if (commands.length === 0) {
    if (content.trim() || !reasoning) s.add({ ...base(), kind: 'assistant', label: 'assistant', text: content });
    return;
  }
  const thought = blocks.reduce((text, blk) => text.replace(blk[0], ''), content).trim();
  if (thought) s.add({ ...base(), kind: 'thought', label: 'thought', text: thought });
  for (const command of commands) {
    s.add({ ...base(), kind: 'tool_call', label: 'bash', text: command, tool: { name: 'bash', args: command } });
  }
}

/**
 * The pattern the run's own config says its agent found commands with (`agent.action_regex`, read by
 * Python's `re.findall` with DOTALL), when it names one: a fork that asks for another block (a
 * ```python one) is read by its own rule, not ours.
 */
function actionRegexOf(root: Record<string, unknown>, warnings: Warning[]): RegExp | undefined {
  const info = isRecord(root.info) ? root.info : {};
  const config = isRecord(info.config) ? info.config : {};
  const agent = isRecord(config.agent) ? config.agent : {};
  const source = stringOrUndefined(agent.action_regex);
  if (!source) return undefined;
  try {
    // Python's named groups (`(?P<cmd>…)`) are JavaScript's `(?<cmd>…)`.
    return new RegExp(source.replace(/\(\?P</g, '(?<'), 'gs');
  } catch {
    warnings.push({ message: `Its config's action_regex (${source.slice(0, 60)}) is not a pattern this reader can run; commands were read from bash blocks.` });
    return undefined;
  }
}

/** A block written indented (inside a fork's `def …():`) as the shell reads it: the common indentation taken off. */
function dedent(text: string): string {
  const lines = text.split('\n');
  const indents = lines.filter((l) => l.trim() !== '').map((l) => /^[ \t]*/.exec(l)![0].length);
  const common = indents.length ? Math.min(...indents) : 0;
  // (A heredoc's body may sit at the margin under an indented first line: that line's indent goes too.)
  return (common ? lines.map((l) => l.slice(Math.min(common, /^[ \t]*/.exec(l)![0].length))).join('\n') : text).replace(/^[ \t]+/, '');
}

function addMessage(s: ActionStepper, msg: unknown, i: number, commandBlock: RegExp): void {
  if (!isRecord(msg)) {
    s.warn(`message ${i + 1} is not a message and was skipped.`);
    return;
  }
  const role = String(msg.role ?? '');
  const extra = isRecord(msg.extra) ? msg.extra : {};
  const base: StepBase = { ...at('messages', i), label: role, timestamp: timestampOf(extra) };
  const text = textOf(msg.content);
  switch (role) {
    case 'system':
      s.add({ ...base, kind: 'system', text });
      return;
    case 'user':
      s.addUserMessage(text, base);
      return;
    case 'assistant':
      addAssistant(s, msg, i, commandBlock);
      return;
    case 'tool': {
      const callId = stringOrUndefined(msg.tool_call_id);
      // v2 keeps the command's status beside its text: `returncode`, and the exception when it never finished (a timeout).
      const exitCode = numberOrUndefined(extra.returncode);
      const failed = !!stringOrUndefined(extra.exception_info ?? extra.exception_type)?.trim();
      s.add({ ...base, kind: 'tool_result', text, tool: callId ? { name: '', args: '', callId } : undefined, ...(exitCode !== undefined ? { exitCode } : {}), ...(failed ? { isError: true } : {}) });
      return;
    }
    case 'exit': {
      const status = stringOrUndefined(extra.exit_status) ?? 'unknown';
      // The run ended on an exception when the log keeps one (a provider's error, a crash), whatever its status is called.
      const failed = !!(stringOrUndefined(extra.exception_str)?.trim() || stringOrUndefined(extra.traceback)?.trim());
      if (s.awaitingResult && text) {
        // The command that ended the run (`echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat patch.txt`)
        // is answered here: mini-swe-agent stops on its output and records it as the exit's content.
        s.add({ ...base, kind: 'tool_result', label: `exit: ${status}`, text, ...(failed ? { isError: true } : {}) });
        return;
      }
      s.add({ ...base, kind: 'other', text: text ? `Run ended: ${status}\n\n${text}` : `Run ended: ${status}`, ...(failed ? { isError: true } : {}) });
      return;
    }
    default:
      s.add({ ...base, kind: 'other', text });
  }
}

function metaOf(root: Record<string, unknown>, fileName: string): TrajectoryMeta {
  const info = isRecord(root.info) ? root.info : {};
  const stats = isRecord(info.model_stats) ? info.model_stats : {};
  const config = isRecord(info.config) ? info.config : {};
  const modelConfig = isRecord(config.model) ? config.model : {};
  const model = stringOrUndefined(modelConfig.model_name);
  const recorded: RecordedUsage = {
    model,
    inputTokens: numberOrUndefined(stats.tokens_sent) ?? numberOrUndefined(stats.input_tokens),
    outputTokens: numberOrUndefined(stats.tokens_received) ?? numberOrUndefined(stats.output_tokens),
    cost: numberOrUndefined(stats.instance_cost),
  };
  const suffix = ['.traj.json', '.json'].find((ext) => fileName.endsWith(ext));
  return {
    agent: 'mini-swe-agent',
    model,
    instanceId: stringOrUndefined(root.instance_id) ?? (suffix ? fileName.slice(0, -suffix.length) : undefined),
    recorded,
    apiCalls: numberOrUndefined(stats.api_calls),
    exitStatus: stringOrUndefined(info.exit_status),
    version: stringOrUndefined(info.mini_version),
    extra: extraOf({ trajectoryFormat: stringOrUndefined(root.trajectory_format) }),
  };
}


export const miniSweAgentAdapter: FormatAdapter = {
  id: 'mini-swe-agent',
  label: 'mini-swe-agent trajectory (.traj.json)',
  fileNames: ['*.json'],
  sniff(input) {
    const root = jsonObjectOf(input);
    if (!root || !Array.isArray(root.messages)) return 0;
    const format = root.trajectory_format;
    if (typeof format === 'string' && format.startsWith('mini-swe-agent')) return 0.98;
    // `info` comes first in the file, so a copy cut off inside `messages` still has `mini_version`.
    if (isRecord(root.info) && typeof root.info.mini_version === 'string') return 0.95;
    return 0;
  },
  parse(input, ctx) {
    const root = jsonObjectOf(input)!;
    const s = new ActionStepper(ctx.warnings);
    const commandBlock = actionRegexOf(root, ctx.warnings) ?? COMMAND_BLOCK;
    (root.messages as unknown[]).forEach((msg, i) => addMessage(s, msg, i, commandBlock));
    const steps = s.b.finish();
    const meta = metaOf(root, ctx.fileName);
    return { title: taskTitle(steps, meta.instanceId, ctx.fileName), steps, meta };
  },
};
