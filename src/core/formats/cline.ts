import { pointerOf } from '../io/jsonScan';
import type { RecordedUsage, Step, TrajectoryMeta } from '../model';
import { isRecord, StepBuilder } from '../steps';
import type { FormatAdapter, ParsedInput } from './adapter';
import { stringOrUndefined, titleFromSteps } from './chatMessages';
import { TimeCheck } from './times';
import { addClineHistory, looksLikeClineHistory } from './clineHistory';
import { num, obj, recordedUsage, sumUsage } from './usage';
import { extraOf } from '../meta';

// Cline (and its forks Roo Code and Kilo Code) keep a task as a folder: `api_conversation_history.json`
// (what the model saw), `ui_messages.json` (what the user saw: `[{ts, type: say|ask, say|ask, text}]`,
// with an `api_req_started` entry per request whose text is JSON with tokensIn, tokensOut,
// cacheWrites, cacheReads and cost) and `task_metadata.json`. A folder opens as one run, the
// history joined with each request's usage; either file alone opens too.

type Msg = Record<string, unknown>;

const HISTORY = 'api_conversation_history.json';
const UI = 'ui_messages.json';
const METADATA = 'task_metadata.json';

function isUiMessage(v: unknown): boolean {
  return isRecord(v) && typeof v.ts === 'number' && (v.type === 'say' || v.type === 'ask') && (typeof v.say === 'string' || typeof v.ask === 'string');
}

function uiShare(items: readonly unknown[]): number {
  const sample = items.slice(0, 20);
  return sample.length === 0 ? 0 : sample.filter(isUiMessage).length / sample.length;
}

function fileOf(input: ParsedInput, name: string): unknown {
  return input.shape === 'folder' ? input.files.find((f) => f.name === name)?.value : undefined;
}

export const clineAdapter: FormatAdapter = {
  id: 'cline',
  label: 'Cline task',
  fileNames: ['*.json'],
  // Cline's tools, and those its forks (Roo Code, Kilo Code) add in the same task format.
  tools: { create: ['write_to_file'], edit: ['replace_in_file', 'apply_diff', 'insert_content', 'search_and_replace'], read: ['read_file'], command: ['execute_command'] },
  isRunFolder: (names) => names.includes(HISTORY) || names.includes(UI),
  sniff(input) {
    if (input.shape === 'folder') return Array.isArray(fileOf(input, HISTORY)) || Array.isArray(fileOf(input, UI)) ? 0.98 : 0;
    if (input.shape !== 'json' || !Array.isArray(input.value) || input.value.length === 0) return 0;
    if (uiShare(input.value) >= 0.8) return 0.97;
    return looksLikeClineHistory(input.value) ? 0.98 : 0;
  },
  parse(input, ctx) {
    const history = input.shape === 'folder' ? fileOf(input, HISTORY) : input.shape === 'json' && !(uiShare(input.value as unknown[]) >= 0.8) ? input.value : undefined;
    const ui = input.shape === 'folder' ? fileOf(input, UI) : history === undefined && input.shape === 'json' ? input.value : undefined;
    const metadata = fileOf(input, METADATA);
    const b = new StepBuilder();
    const times = new TimeCheck();
    const requests = Array.isArray(ui) ? requestUsages(ui) : [];
    const meta: TrajectoryMeta = { agent: 'cline', ...metadataOf(metadata) };
    let usages: RecordedUsage[];
    if (Array.isArray(history)) {
      const responses = addClineHistory(b, history, times);
      usages = joinUsage(responses, history, requests, meta.model as string | undefined);
      if (Array.isArray(ui) && requests.length !== responses.length) {
        ctx.warnings.push({ message: `${UI} has ${requests.length} API requests for ${responses.length} model responses in ${HISTORY}; usage is matched in order as far as both go.` });
      }
    } else {
      usages = addUiMessages(b, Array.isArray(ui) ? ui : [], times);
    }
    times.report(ctx.warnings);
    const steps = b.finish();
    meta.model ??= usages.find((u) => u.model)?.model;
    meta.recorded = sumUsage(usages);
    const task = Array.isArray(ui) ? ui.find((m) => isRecord(m) && (m.say === 'task' || m.say === 'text')) : undefined;
    const firstUser = steps.find((s) => s.kind === 'user');
    const title = isRecord(task) && typeof task.text === 'string' ? firstLine(task.text) : firstUser ? firstLine(firstUser.text) || ctx.fileName : titleFromSteps(steps, ctx.fileName);
    return { title, steps, meta };
  },
};

/** Each API request's usage, from the JSON text of its `api_req_started` entry. */
function requestUsages(ui: unknown[]): { usage?: RecordedUsage; index: number }[] {
  const out: { usage?: RecordedUsage; index: number }[] = [];
  ui.forEach((m, index) => {
    if (!isRecord(m) || m.say !== 'api_req_started' || typeof m.text !== 'string') return;
    out.push({ usage: usageOfRequest(m.text, stringOrUndefined(obj(m, 'modelInfo').modelId)), index });
  });
  return out;
}

/** Cline counts cache writes and reads apart from tokensIn; the whole prompt is their sum. */
function usageOfRequest(text: string, model: string | undefined): RecordedUsage | undefined {
  let info: Msg;
  try {
    const parsed: unknown = JSON.parse(text);
    if (!isRecord(parsed)) return undefined;
    info = parsed;
  } catch {
    return undefined;
  }
  const fresh = num(info.tokensIn);
  const writes = num(info.cacheWrites) ?? 0;
  const reads = num(info.cacheReads) ?? 0;
  return recordedUsage({
    model: model ?? stringOrUndefined(info.model),
    input: fresh === undefined ? undefined : fresh + writes + reads,
    output: num(info.tokensOut),
    cacheRead: num(info.cacheReads),
    cacheWrite: num(info.cacheWrites),
    cost: num(info.cost),
  });
}

/** Puts each request's usage on the last step of the response it produced (the n-th for the n-th). */
function joinUsage(responses: Step[][], history: unknown[], requests: { usage?: RecordedUsage }[], model: string | undefined): RecordedUsage[] {
  const assistants = history.filter((m) => isRecord(m) && m.role === 'assistant') as Msg[];
  return responses.map((steps, i) => {
    const fromUi = requests[i]?.usage;
    // Without UI messages, newer Cline versions still note tokens on the message itself.
    const tokens = obj(obj(assistants[i], 'metrics'), 'tokens');
    const fresh = num(tokens.prompt);
    const info = obj(assistants[i], 'modelInfo');
    const usage = fromUi ? { ...(model && !fromUi.model ? { model } : {}), ...fromUi } : recordedUsage({
      model: stringOrUndefined(info.modelId) ?? model,
      input: fresh === undefined ? undefined : fresh + (num(tokens.cached) ?? 0),
      output: num(tokens.completion),
      cacheRead: num(tokens.cached),
    });
    // On Anthropic, `cached` counts the cache writes too: each call's exceeds the whole prompt before it.
    if (usage && !fromUi && usage.cachedInputTokens && /anthropic|bedrock|vertex/.test(String(info.providerId)) && /claude/.test(String(usage.model))) usage.cachedIncludesWrites = true;
    const last = steps[steps.length - 1];
    if (usage && last) last.usage = usage;
    return usage;
  }).filter((u): u is RecordedUsage => u !== undefined);
}

/** `ui_messages.json` alone: what the user saw, as steps; returns the usage of each request. */
function addUiMessages(b: StepBuilder, ui: unknown[], times: TimeCheck): RecordedUsage[] {
  const usages: RecordedUsage[] = [];
  let pending: RecordedUsage | undefined;
  let lastOutput: Step | undefined;
  let sawRequest = false;
  // Results answer the call just before them (an approval request may have none), so link by id.
  let lastCall: string | undefined;
  const call = (i: number) => (lastCall = `ui-${i}`);
  const settle = () => {
    if (pending && lastOutput && !lastOutput.usage) lastOutput.usage = pending;
    pending = undefined;
    lastOutput = undefined;
  };
  ui.forEach((m, i) => {
    if (!isRecord(m)) return;
    const kind = String(m.say ?? m.ask);
    const text = typeof m.text === 'string' ? m.text : '';
    const base = { location: { pointer: pointerOf(i) }, timestamp: times.iso(Number(m.ts), m.ts, `${UI}[${i}].ts`), label: `${String(m.type)} ${kind}` };
    const json = parseJson(text);
    const out = (step: Omit<Step, 'index' | 'turn'>) => (lastOutput = b.add(step));
    switch (kind) {
      case 'api_req_started': {
        settle();
        sawRequest = true;
        pending = usageOfRequest(text, stringOrUndefined(obj(m, 'modelInfo').modelId));
        if (pending) usages.push(pending);
        break;
      }
      case 'task':
      case 'user_feedback':
        b.closeOpenCalls();
        b.add({ ...base, kind: 'user', text });
        break;
      case 'text':
        if (!sawRequest) b.add({ ...base, kind: 'user', text }); // the task, typed before the first request
        // Cline rewrites a streamed message in place, so a saved one still marked partial is that
        // message as it stands (3.5x leaves the text before a native tool call so); a partial copy
        // with the finished one right after it (same ts) is not.
        else if (text.trim() !== '' && (m.partial !== true || !(isRecord(ui[i + 1]) && (ui[i + 1] as Record<string, unknown>).ts === m.ts))) out({ ...base, kind: 'assistant', text });
        break;
      case 'reasoning':
        out({ ...base, kind: 'thought', text });
        break;
      case 'tool': {
        const { tool, content, ...rest } = isRecord(json) ? json : { tool: 'tool', content: text };
        const args = JSON.stringify(rest);
        out({ ...base, kind: 'tool_call', text: args, tool: { name: String(tool ?? 'tool'), args, callId: call(i) } });
        if (m.type === 'say' && typeof content === 'string') b.add({ ...base, kind: 'tool_result', text: content, tool: { name: '', args: '', callId: lastCall } });
        break;
      }
      case 'command':
        out({ ...base, kind: 'tool_call', text, tool: { name: 'execute_command', args: JSON.stringify({ command: text }), callId: call(i) } });
        break;
      case 'use_mcp_server':
        out({ ...base, kind: 'tool_call', text, tool: { name: isRecord(json) ? `${String(json.serverName ?? 'mcp')}.${String(json.toolName ?? json.uri ?? 'tool')}` : 'mcp', args: isRecord(json) ? String(json.arguments ?? '{}') : text, callId: call(i) } });
        break;
      case 'command_output':
      case 'mcp_server_response':
        if (text) b.add({ ...base, kind: 'tool_result', text, tool: { name: '', args: '', callId: lastCall } });
        break;
      case 'completion_result':
      case 'followup':
      case 'plan_mode_respond':
        if (text) out({ ...base, kind: 'assistant', text: isRecord(json) ? String(json.response ?? json.question ?? text) : text });
        break;
      case 'condense':
      case 'condense_context': {
        const condense = obj(m, 'contextCondense');
        const summary = stringOrUndefined(condense.summary) ?? (text || undefined);
        b.add({ ...base, kind: 'compaction', text: summary ?? 'context condensed', compaction: { summary, tokensBefore: num(condense.prevContextTokens) } });
        b.closeOpenCalls();
        break;
      }
      case 'error':
      case 'api_req_failed':
      case 'diff_error':
      case 'mistake_limit_reached':
        // A failed API request or a refused diff is an error wherever errors are shown.
        b.add({ ...base, kind: 'other', text, isError: true });
        break;
      default:
        break; // checkpoints, progress lists, resume prompts: the UI's bookkeeping
    }
  });
  settle();
  return usages;
}

function metadataOf(metadata: unknown): TrajectoryMeta {
  if (!isRecord(metadata)) return {};
  const models = Array.isArray(metadata.model_usage) ? metadata.model_usage.filter(isRecord) : [];
  const env = Array.isArray(metadata.environment_history) ? metadata.environment_history.filter(isRecord) : [];
  const files = Array.isArray(metadata.files_in_context) ? metadata.files_in_context.length : undefined;
  return {
    model: stringOrUndefined(models[models.length - 1]?.model_id),
    version: stringOrUndefined(env[env.length - 1]?.cline_version),
    extra: extraOf({ filesInContext: files }),
  };
}

function parseJson(text: string): unknown {
  if (!/^\s*[[{]/.test(text)) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function firstLine(text: string): string {
  const line = text.trim().replace(/^<task>\s*/, '').split('\n')[0].replace(/^#+\s*/, '');
  return line.length > 80 ? line.slice(0, 79) + '…' : line;
}
