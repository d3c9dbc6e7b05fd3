import { pointerOf } from '../io/jsonScan';
import { SHOWN_TEXT_LABEL, type Step } from '../model';
import { isRecord, StepBuilder } from '../steps';
import { addAssistantBlocks, hasToolUse, type BlockBase } from './anthropicBlocks';
import { stringOrUndefined } from './chatMessages';
import { isoOfMs, type TimeCheck } from './times';
import { nameTable, plainTable } from '../names';
import { imagesOf } from './images';

// Cline's `api_conversation_history.json`: Anthropic messages, as the model saw them. Cline (and
// its forks) add to them in ways plain Anthropic logs never do: results come back as text blocks
// `[read_file for 'x'] Result:`, older versions call tools in XML inside the assistant's text,
// and each turn carries `<environment_details>`. Newer versions put `modelInfo` and `metrics`
// on assistant messages.

const RESULT_TEXT = /^\s*\[([\w.-]+)(?: for [\s\S]*?)?\] Result:/;
// Cline's answer to a call it did not run (a second call in one message, a call after one the person
// denied): `Tool [read_file] was not executed because …`. The call's outcome, not the person's words.
const NOT_EXECUTED = /^\s*Tool \[([\w.-]+)\] was not executed\b/;
const INJECTED = /^\s*(<environment_details>|# (task_progress|TODO LIST)|\n*\s*# TODO LIST|<explicit_instructions|\[TASK RESUMPTION\])/;
/** Tools Cline calls in XML; only these tags are read as calls, so other markup stays text. */
const XML_TOOLS = new Set([
  'execute_command', 'read_file', 'write_to_file', 'replace_in_file', 'search_files', 'list_files', 'list_code_definition_names',
  'browser_action', 'use_mcp_tool', 'access_mcp_resource', 'ask_followup_question', 'attempt_completion', 'plan_mode_respond',
  'new_task', 'load_mcp_documentation', 'web_fetch', 'condense', 'summarize_task', 'report_bug', 'new_rule', 'apply_diff', 'insert_content',
  'search_and_replace', 'switch_mode', 'codebase_search', 'fetch_instructions', 'update_todo_list',
]);

/** True when a message list carries what only Cline writes, so it is Cline's rather than a plain Anthropic log. */
export function looksLikeClineHistory(items: readonly unknown[]): boolean {
  return items.slice(0, 10).some((m) => {
    if (!isRecord(m)) return false;
    if (isRecord(m.modelInfo) || (isRecord(m.metrics) && isRecord(m.metrics.tokens))) return true;
    const blocks = Array.isArray(m.content) ? m.content : [];
    return blocks.some((b) => isRecord(b) && typeof b.text === 'string' && (/^<task>/.test(b.text) || /<environment_details>/.test(b.text) || RESULT_TEXT.test(b.text)));
  });
}

/** Adds the steps of the history; returns, for each assistant message in order, the steps it made. */
export function addClineHistory(b: StepBuilder, messages: readonly unknown[], times?: TimeCheck): Step[][] {
  const byResponse: Step[][] = [];
  messages.forEach((m, i) => {
    if (!isRecord(m)) return;
    const base: BlockBase = { location: { pointer: pointerOf(i) }, timestamp: typeof m.ts === 'number' ? (times ? times.iso(m.ts, m.ts, `[${i}].ts`) : isoOfMs(m.ts)) : undefined };
    const blocks = Array.isArray(m.content) ? m.content : [{ type: 'text', text: String(m.content ?? '') }];
    if (m.role === 'assistant') byResponse.push(addAssistant(b, blocks, base));
    else addUser(b, blocks, base);
  });
  return byResponse;
}

function addAssistant(b: StepBuilder, blocks: unknown[], base: BlockBase): Step[] {
  if (hasToolUse(blocks)) return addAssistantBlocks(b, blocks, base, true);
  // No tool_use blocks: the calls, if any, are XML in the text.
  const start = b.steps.length;
  for (const block of blocks) {
    if (isRecord(block) && block.type === 'text' && typeof block.text === 'string') addXmlText(b, block.text, base);
    else addAssistantBlocks(b, [block], base, false);
  }
  return b.steps.slice(start);
}

function addUser(b: StepBuilder, blocks: unknown[], base: BlockBase): void {
  const human: string[] = [];
  const pictures: unknown[] = [];
  const flush = () => {
    if (human.length === 0) return;
    b.closeOpenCalls();
    b.add({ ...base, kind: 'user', text: human.join('\n'), label: 'user', ...imagesOf(pictures) });
    human.length = 0;
    pictures.length = 0;
  };
  for (const block of blocks) {
    if (!isRecord(block)) continue;
    if (block.type === 'tool_result') {
      flush();
      const text = Array.isArray(block.content) ? block.content.map((c) => (isRecord(c) && typeof c.text === 'string' ? c.text : '')).join('\n') : String(block.content ?? '');
      b.add({ ...base, kind: 'tool_result', text, label: 'tool_result', isError: block.is_error === true ? true : undefined, tool: { name: '', args: '', callId: stringOrUndefined(block.tool_use_id) }, ...imagesOf(block.content) });
      continue;
    }
    const text = block.type === 'text' ? String(block.text ?? '') : block.type === 'image' ? '[image]' : '';
    if (text === '') continue;
    const result = RESULT_TEXT.exec(text);
    const refused = result ? null : NOT_EXECUTED.exec(text);
    if (result || refused) {
      flush();
      // Answers the oldest call still open: Cline returns results in the order it ran the calls.
      const name = (result ?? refused)![1];
      b.add({ ...base, kind: 'tool_result', text, label: name, toolName: name, ...(refused ? { isError: true } : {}) });
    } else if (INJECTED.test(text)) {
      flush();
      b.add({ ...base, kind: 'system', text, label: /environment_details/.test(text) ? 'environment details' : 'instructions' });
    } else {
      human.push(text);
      if (block.type === 'image') pictures.push(block);
    }
  }
  flush();
}

/** Assistant text with XML tool calls: the prose before each call is a thought, each call a tool_call. */
function addXmlText(b: StepBuilder, text: string, base: BlockBase): void {
  const calls = findXmlCalls(text);
  if (calls.length === 0) {
    b.add({ ...base, kind: 'assistant', text, label: SHOWN_TEXT_LABEL });
    return;
  }
  let at = 0;
  for (const call of calls) {
    const before = text.slice(at, call.start).trim();
    if (before) b.add({ ...base, kind: 'thought', text: before, label: /^<thinking>/.test(before) ? 'thinking' : 'text' });
    const args = JSON.stringify(call.params);
    b.add({ ...base, kind: 'tool_call', text: args, label: 'xml tool call', tool: { name: call.name, args } });
    at = call.end;
  }
  const after = text.slice(at).trim();
  if (after) b.add({ ...base, kind: 'thought', text: after, label: SHOWN_TEXT_LABEL });
}

interface XmlCall { name: string; params: Record<string, string>; start: number; end: number }

function findXmlCalls(text: string): XmlCall[] {
  const calls: XmlCall[] = [];
  const open = /<([a-z_]+)>/g;
  // Tags with no closing tag further on: looked for once, not again at every later opening.
  const unclosed = new Set<string>();
  for (let m = open.exec(text); m; m = open.exec(text)) {
    const name = m[1];
    if (!XML_TOOLS.has(name) || unclosed.has(name)) continue;
    const close = text.indexOf(`</${name}>`, m.index + m[0].length);
    if (close === -1) {
      unclosed.add(name);
      continue;
    }
    calls.push({ name, params: xmlParams(text.slice(m.index + m[0].length, close)), start: m.index, end: close + name.length + 3 });
    open.lastIndex = close + name.length + 3;
  }
  return calls;
}

/**
 * The `<name>value</name>` parameters of one call, as `/<([a-z_]+)>([\s\S]*?)<\/\1>/g` reads
 * them (the first closing tag of the same name ends a value; an opening tag without one is text),
 * in one pass: that regex scans to the block's end for every unclosed opening tag, which is
 * quadratic in a block full of them. Closing tags are indexed once, and each name's next closing
 * tag is found by a pointer that only moves forward.
 */
export function xmlParams(inner: string): Record<string, string> {
  const closes = new Map<string, { at: number[]; next: number }>();
  const close = /<\/([a-z_]+)>/g;
  for (let c = close.exec(inner); c; c = close.exec(inner)) {
    let list = closes.get(c[1]);
    if (!list) closes.set(c[1], (list = { at: [], next: 0 }));
    list.at.push(c.index);
  }
  const params = nameTable<string>();
  const open = /<([a-z_]+)>/g;
  for (let o = open.exec(inner); o; o = open.exec(inner)) {
    const name = o[1];
    const from = o.index + o[0].length;
    const list = closes.get(name);
    if (!list) continue;
    while (list.next < list.at.length && list.at[list.next] < from) list.next++;
    if (list.next === list.at.length) continue;
    const end = list.at[list.next];
    params[name] = trimOneNewline(inner.slice(from, end));
    open.lastIndex = end + name.length + 3;
  }
  return plainTable(params);
}

/** One newline off each end, as `.replace(/^\n|\n$/g, '')` does. */
function trimOneNewline(value: string): string {
  const start = value.startsWith('\n') ? 1 : 0;
  const end = value.length > start && value.endsWith('\n') ? value.length - 1 : value.length;
  return value.slice(start, end);
}
