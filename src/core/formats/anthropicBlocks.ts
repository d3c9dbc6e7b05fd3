import { SHOWN_TEXT_LABEL, type RecordedUsage, type SourceLocation, type Step, type StepKind } from '../model';
import { isRecord, StepBuilder } from '../steps';
import { stringOrUndefined } from './chatMessages';
import { imagesOf } from './images';

// Anthropic Messages content blocks (`text`, `thinking`, `tool_use`, `tool_result`, …). Both the
// `anthropic` adapter and the `claude-code` adapter (whose lines wrap API messages) map blocks here.

/** Block types that only Anthropic's Messages API uses; OpenAI chat content never has them. */
export const ANTHROPIC_ONLY_BLOCKS = new Set([
  'tool_use', 'tool_result', 'thinking', 'redacted_thinking', 'server_tool_use', 'web_search_tool_result', 'document',
]);

export interface BlockBase {
  location?: SourceLocation;
  timestamp?: string;
  sourceId?: string;
  branch?: string;
  /** The model that wrote the message, when the log names it per message. */
  model?: string;
}

/** Text of block content: a string or an array of `text` / `image` / other blocks. */
export function blocksText(content: unknown): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return isRecord(content) ? blockText(content) : String(content);
  return content.map((b) => (isRecord(b) ? blockText(b) : String(b))).filter((t) => t !== '').join('\n');
}

function blockText(b: Record<string, unknown>): string {
  if (typeof b.text === 'string') return b.text;
  if (b.type === 'image') return '[image]';
  if (b.type === 'document') return '[document]';
  if ('content' in b) return blocksText(b.content);
  // Never dump base64 payloads into a step's text; name the block instead.
  return typeof b.type === 'string' ? `[${b.type}]` : JSON.stringify(b);
}

/** A tool's result, the client's (`tool_result`) or a server tool's (`web_search_tool_result`). */
export function isToolResultBlock(block: unknown): block is Record<string, unknown> {
  return isRecord(block) && (block.type === 'tool_result' || String(block.type).endsWith('_tool_result'));
}

export function hasToolUse(blocks: readonly unknown[]): boolean {
  return blocks.some((b) => isRecord(b) && (b.type === 'tool_use' || b.type === 'server_tool_use'));
}

/**
 * Adds the steps for assistant blocks. `withToolUse` says whether the whole API message calls a
 * tool: its text is then narration before the call (a `thought`), as for chat messages.
 */
export function addAssistantBlocks(b: StepBuilder, blocks: readonly unknown[], base: BlockBase, withToolUse: boolean): Step[] {
  const start = b.steps.length;
  for (const block of blocks) {
    if (typeof block === 'string') {
      b.add({ ...base, kind: withToolUse ? 'thought' : 'assistant', text: block, label: SHOWN_TEXT_LABEL });
      continue;
    }
    if (!isRecord(block)) continue;
    const type = String(block.type);
    switch (type) {
      case 'text':
        b.add({ ...base, kind: withToolUse ? 'thought' : 'assistant', text: String(block.text ?? ''), label: SHOWN_TEXT_LABEL });
        break;
      case 'thinking':
        b.add({ ...base, kind: 'thought', text: String(block.thinking ?? ''), label: 'thinking' });
        break;
      case 'redacted_thinking':
        b.add({ ...base, kind: 'thought', text: '[redacted thinking]', label: type });
        break;
      case 'tool_use':
      case 'server_tool_use': {
        const args = JSON.stringify(block.input ?? {});
        b.add({ ...base, kind: 'tool_call', text: args, label: type, tool: { name: String(block.name ?? 'tool'), args, callId: stringOrUndefined(block.id) } });
        break;
      }
      case 'compaction': {
        const summary = blocksText(block.content ?? block.summary) || undefined;
        b.add({ ...base, kind: 'compaction', text: summary ?? '', label: type, compaction: { summary } });
        b.closeOpenCalls();
        break;
      }
      default:
        if (type.endsWith('_tool_result')) addToolResult(b, block, base);
        else b.add({ ...base, kind: 'assistant', text: blockText(block), label: type });
    }
  }
  return b.steps.slice(start);
}

/**
 * Adds the steps for a user message's blocks: each `tool_result` is a result; runs of text and
 * images are one message of kind `textKind` (a real user turn unless the caller knows better).
 */
export function addUserBlocks(b: StepBuilder, blocks: readonly unknown[], base: BlockBase, textKind: StepKind = 'user', label = 'user'): Step[] {
  const start = b.steps.length;
  let pending: unknown[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    if (textKind === 'user') b.closeOpenCalls();
    const text = pending.map((block) => (typeof block === 'string' ? block : isRecord(block) ? blockText(block) : String(block))).join('\n');
    b.add({ ...base, kind: textKind, text, label, ...imagesOf(pending) });
    pending = [];
  };
  for (const block of blocks) {
    if (isToolResultBlock(block)) {
      flush();
      addToolResult(b, block, base);
    } else {
      pending.push(block);
    }
  }
  flush();
  return b.steps.slice(start);
}

function addToolResult(b: StepBuilder, block: Record<string, unknown>, base: BlockBase): void {
  b.add({
    ...base,
    kind: 'tool_result',
    text: blocksText(block.content),
    label: String(block.type),
    isError: block.is_error === true ? true : undefined,
    tool: { name: '', args: '', callId: stringOrUndefined(block.tool_use_id) },
    ...imagesOf(block.content),
  });
}

/**
 * Anthropic's `input_tokens` excludes cached input; `inputTokens` here is the whole prompt
 * (fresh + cache writes + cache reads), like OpenAI's, so sizes compare across formats.
 */
export function anthropicUsage(u: unknown, model: string | undefined): RecordedUsage | undefined {
  if (!isRecord(u)) return undefined;
  const n = (v: unknown) => (typeof v === 'number' ? v : 0);
  const cacheRead = n(u.cache_read_input_tokens);
  // Writes as one figure, or only split by lifetime (Managed Agents' `session.usage` gives the split alone).
  const split = isRecord(u.cache_creation) ? u.cache_creation : undefined;
  const written = typeof u.cache_creation_input_tokens === 'number' ? u.cache_creation_input_tokens
    : split && (typeof split.ephemeral_5m_input_tokens === 'number' || typeof split.ephemeral_1h_input_tokens === 'number') ? n(split.ephemeral_5m_input_tokens) + n(split.ephemeral_1h_input_tokens) : undefined;
  const usage: RecordedUsage = {
    model,
    inputTokens: n(u.input_tokens) + (written ?? 0) + cacheRead,
    outputTokens: typeof u.output_tokens === 'number' ? u.output_tokens : undefined,
    cachedInputTokens: cacheRead,
  };
  if (written !== undefined) usage.cacheWriteTokens = written;
  // Claude Code splits its writes by lifetime; the 1-hour ones cost 2× input instead of 1.25×.
  const oneHour = isRecord(u.cache_creation) ? u.cache_creation.ephemeral_1h_input_tokens : undefined;
  if (typeof oneHour === 'number' && oneHour > 0) usage.cacheWrite1hTokens = oneHour;
  return usage;
}

/** Adds `u` into the running total `into` (for a whole-run `meta.recorded`). */
export function addUsage(into: RecordedUsage | undefined, u: RecordedUsage): RecordedUsage {
  const sum = (a?: number, c?: number) => (a === undefined && c === undefined ? undefined : (a ?? 0) + (c ?? 0));
  return {
    model: into?.model ?? u.model,
    inputTokens: sum(into?.inputTokens, u.inputTokens),
    outputTokens: sum(into?.outputTokens, u.outputTokens),
    cachedInputTokens: sum(into?.cachedInputTokens, u.cachedInputTokens),
    ...(into?.cacheWriteTokens !== undefined || u.cacheWriteTokens !== undefined ? { cacheWriteTokens: sum(into?.cacheWriteTokens, u.cacheWriteTokens) } : {}),
    ...(into?.cacheWrite1hTokens !== undefined || u.cacheWrite1hTokens !== undefined ? { cacheWrite1hTokens: sum(into?.cacheWrite1hTokens, u.cacheWrite1hTokens) } : {}),
  };
}
