import type { SourceLocation, Step } from '../model';
import { argsOf, isRecord, StepBuilder } from '../steps';
import { stringOrUndefined } from './chatMessages';
import type { Injected } from './injected';
import { imagesOf } from './images';

// OpenAI Responses API items (also the Agents SDK's session items and Codex's `response_item`
// payloads). Both the `openai-responses` and the `codex` adapters map items through here.

/** Item types that only the Responses API uses; plain chat messages never carry them. */
const TYPED_ITEMS = new Set([
  'message', 'function_call', 'function_call_output', 'custom_tool_call', 'custom_tool_call_output',
  'reasoning', 'compaction', 'compaction_summary', 'item_reference', 'local_shell_call', 'local_shell_call_output',
  'web_search_call', 'file_search_call', 'computer_call', 'computer_call_output', 'code_interpreter_call',
  'image_generation_call', 'mcp_call', 'mcp_list_tools', 'mcp_approval_request', 'mcp_approval_response',
  'apply_patch_call', 'apply_patch_call_output', 'shell_call', 'shell_call_output',
]);

const MESSAGE_ROLES = new Set(['system', 'developer', 'user', 'assistant']);

/** A Responses item: a typed item, or an "easy" `{role, content}` message. */
export function isResponseItem(value: unknown): value is Record<string, unknown> {
  if (!isRecord(value)) return false;
  // A Responses message always says its role; pi's `{type: "message", message: {…}}` entries do not.
  if (value.type === 'message') return typeof value.role === 'string';
  if (typeof value.type === 'string') return TYPED_ITEMS.has(value.type);
  return typeof value.role === 'string' && MESSAGE_ROLES.has(value.role) && 'content' in value;
}

/** True for items a chat-completions list could never hold: typed items, or Responses content parts. */
export function isDistinctlyResponses(value: unknown): boolean {
  if (!isRecord(value)) return false;
  if (typeof value.type === 'string' && TYPED_ITEMS.has(value.type)) return isResponseItem(value);
  return Array.isArray(value.content)
    && value.content.some((p) => isRecord(p) && (p.type === 'input_text' || p.type === 'output_text'));
}

/** A text part Codex puts around an attached image: `<image name=[Image #1]>` (the name captured), `</image>`. */
export const IMAGE_WRAPPER = /^\s*(?:<image name=([^>\n]{1,80})>|<\/image>)\s*$/;

/** Text of Responses content: a string, or parts (`input_text`, `output_text`, `refusal`, images, files). */
export function partsText(content: unknown): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return isRecord(content) ? partText(content) : String(content);
  const texts = content.map((p) => (isRecord(p) ? partText(p) : String(p))).filter((t) => t !== '');
  // Codex wraps an attached image in text parts naming it (`<image name=[Image #1]>`, the image,
  // `</image>`): one placeholder, as the person's own text refers to it.
  for (let i = 0; i + 2 < texts.length; i++) {
    const name = IMAGE_WRAPPER.exec(texts[i])?.[1];
    if (name && texts[i + 1] === '[image]' && texts[i + 2].trim() === '</image>') texts.splice(i, 3, name.startsWith('[') ? name : `[image ${name}]`);
  }
  return texts.join('\n');
}

function partText(p: Record<string, unknown>): string {
  if (typeof p.text === 'string') return p.text;
  if (typeof p.refusal === 'string') return p.refusal;
  switch (p.type) {
    case 'input_image':
    case 'image':
      return '[image]';
    case 'input_file':
      return `[file${typeof p.filename === 'string' ? ' ' + p.filename : ''}]`;
    default:
      // Never dump base64 payloads into a step's text; name the part instead.
      return typeof p.type === 'string' ? `[${p.type}]` : JSON.stringify(p);
  }
}

/** Tool output: a string, content parts, (older Codex) `{content, success}`, or a command's `{stdout, stderr, exitCode}`. */
function outputText(output: unknown): { text: string; isError?: boolean; exitCode?: number } {
  if (isRecord(output) && !('type' in output) && (typeof output.stdout === 'string' || typeof output.stderr === 'string')) {
    const code = output.exitCode ?? output.exit_code;
    const text = [output.stdout, output.stderr].filter((t): t is string => typeof t === 'string' && t !== '').join('\n');
    return { text, ...(typeof code === 'number' ? { exitCode: code } : {}) };
  }
  if (isRecord(output) && !('type' in output)) {
    const isError = output.success === false ? true : undefined;
    return { text: partsText(output.content ?? output.output ?? JSON.stringify(output)), isError };
  }
  return { text: partsText(output) };
}

export interface ResponseItemOptions {
  location?: SourceLocation;
  timestamp?: string;
  /** How to read a user message the client injected (Codex records context as user messages): an `environment` step. */
  injectedOf?: (text: string) => Injected | undefined;
}

/** Adds the steps one item makes; returns them (none for empty reasoning or bookkeeping items). */
export function addResponseItem(b: StepBuilder, item: Record<string, unknown>, opts: ResponseItemOptions = {}): Step[] {
  const start = b.steps.length;
  const type = typeof item.type === 'string' ? item.type : 'message';
  const base = { location: opts.location, timestamp: opts.timestamp, sourceId: stringOrUndefined(item.id), label: type };
  const callId = stringOrUndefined(item.call_id) ?? stringOrUndefined(item.id);
  switch (type) {
    case 'message': {
      const role = String(item.role ?? 'assistant');
      const text = partsText(item.content);
      if (role === 'system' || role === 'developer') b.add({ ...base, kind: 'system', text, label: role });
      else if (role === 'user') {
        const injected = opts.injectedOf?.(text);
        if (injected === undefined) b.closeOpenCalls();
        b.add({ ...base, kind: injected === undefined ? 'user' : 'environment', text, ...(injected ?? { label: 'user' }), ...imagesOf(item.content) });
      } else b.add({ ...base, kind: 'assistant', text, label: typeof item.phase === 'string' ? `${role} (${item.phase})` : role });
      break;
    }
    case 'reasoning': {
      const text = partsText(item.summary) || partsText(item.content);
      // Encrypted reasoning with no summary shows nothing we could count or read.
      if (text) b.add({ ...base, kind: 'thought', text });
      break;
    }
    case 'function_call':
      addCall(b, base, String(item.name ?? 'function'), argsOf(item.arguments), callId);
      break;
    case 'custom_tool_call':
      addCall(b, base, String(item.name ?? 'custom_tool'), argsOf(item.input), callId);
      break;
    case 'mcp_call': {
      const name = [item.server_label, item.name].filter((s) => typeof s === 'string').join('.') || 'mcp';
      addCall(b, base, name, argsOf(item.arguments), callId);
      // The call and its result travel in one item.
      const error = item.error !== undefined && item.error !== null;
      b.add({ ...base, kind: 'tool_result', text: partsText(error ? item.error : item.output), isError: error || undefined, tool: { name: '', args: '', callId } });
      break;
    }
    case 'compaction':
    case 'compaction_summary': {
      const summary = partsText(item.summary ?? item.content) || undefined;
      b.add({ ...base, kind: 'compaction', text: summary ?? '', compaction: { summary } });
      b.closeOpenCalls();
      break;
    }
    case 'item_reference':
      b.add({ ...base, kind: 'other', text: `[reference to item ${String(item.id ?? '?')}]` });
      break;
    case 'ghost_snapshot':
      break; // Codex's undo bookkeeping; never shown to the model
    default:
      if (type.endsWith('_call_output') || type.endsWith('_result') || (type.endsWith('_output') && typeof item.call_id === 'string')) {
        // `<x>_call_output` answers `<x>_call`; some writers pair `tool_call` with `tool_result` (its output under `result`);
        // Codex's `tool_search_call` is answered by a `tool_search_output` whose finds are its `tools`.
        const out = item.output === undefined && item.result === undefined && Array.isArray(item.tools) ? { text: toolsFound(item.tools), isError: undefined, exitCode: undefined } : outputText(item.output ?? item.result);
        const name = stringOrUndefined(item.name);
        b.add({ ...base, kind: 'tool_result', text: out.text, isError: out.isError, ...(out.exitCode !== undefined ? { exitCode: out.exitCode } : {}), ...(name ? { toolName: name } : {}), tool: { name: '', args: '', callId: stringOrUndefined(item.call_id) }, ...imagesOf(item.output ?? item.result) });
      } else if (type.endsWith('_call')) {
        // Built-in tools (local_shell, web_search, computer, apply_patch, shell…): the arguments are the rest of the item.
        // An item that names its function (`{function: {name}, arguments}`) is a call of that function.
        const fn = isRecord(item.function) ? item.function : undefined;
        const named = stringOrUndefined(item.name) ?? stringOrUndefined(fn?.name);
        const { type: _t, id: _i, call_id: _c, status: _s, ...rest } = item;
        const args = named !== undefined ? argsOf(item.arguments ?? fn?.arguments ?? item.input ?? {}) : JSON.stringify(rest.action ?? rest.operation ?? rest);
        addCall(b, base, named ?? type.slice(0, -'_call'.length), args, callId);
        // A web search runs on the provider's side: no output item follows, and the item's own
        // status is its outcome (an empty result: what it found reached the model unrecorded).
        if (type === 'web_search_call' && (item.status === 'completed' || item.status === 'failed')) {
          b.add({ ...base, kind: 'tool_result', text: '', label: `${type} (${item.status})`, isError: item.status === 'failed' || undefined, tool: { name: '', args: '', callId } });
        }
      } else {
        // An item type we do not know (Codex 0.144's `world_state`, say): named by its type, its fields readable.
        b.add({ ...base, kind: 'other', text: readableFields(item) });
      }
  }
  return b.steps.slice(start);
}

/** The tools a tool search found, a line each (`mcp__github: Access repositories… (3 tools: _get_user, …)`). */
function toolsFound(tools: unknown[]): string {
  return tools.filter(isRecord).map((t) => {
    const inner = Array.isArray(t.tools) ? t.tools.filter(isRecord).map((x) => String(x.name ?? '?')) : [];
    const described = typeof t.description === 'string' && t.description ? `: ${t.description}` : '';
    return `${String(t.name ?? t.type ?? 'tool')}${described}${inner.length ? ` (${inner.length} tool${inner.length === 1 ? '' : 's'}: ${inner.join(', ')})` : ''}`;
  }).join('\n') || 'no tool found';
}

/** `key: value` lines for an item's fields (its type is the step's label); nested values as compact JSON. */
function readableFields(item: Record<string, unknown>): string {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(item)) {
    if (key === 'type' || value === undefined || value === null) continue;
    lines.push(`${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  return lines.join('\n');
}

function addCall(b: StepBuilder, base: Omit<Step, 'index' | 'turn' | 'kind' | 'text'>, name: string, args: string, callId: string | undefined): void {
  b.add({ ...base, kind: 'tool_call', text: args, tool: { name, args, callId } });
}
