import type { Step, TrajectoryMeta } from '../model';
import { isRecord, StepBuilder } from '../steps';
import type { FormatAdapter, JsonlRecord, ParsedInput } from './adapter';
import { skipRecord } from './adapter';
import { addAssistantBlocks, addUsage, addUserBlocks, anthropicUsage, type BlockBase, hasToolUse } from './anthropicBlocks';
import { stringOrUndefined, titleFromSteps } from './chatMessages';

// Claude Code session files (`~/.claude/projects/<project>/<session>.jsonl`). Each content block of
// an API message is its own line; lines of one message share `message.id` and are merged here.

type Line = Record<string, unknown>;

function isMessageLine(v: unknown): v is Line {
  return isRecord(v) && (v.type === 'user' || v.type === 'assistant') && isRecord(v.message)
    && ('uuid' in v || 'sessionId' in v || 'parentUuid' in v);
}

function recordsOf(input: ParsedInput): JsonlRecord[] {
  if (input.shape === 'jsonl') return input.records;
  if (input.shape === 'json' && isRecord(input.value)) return [{ value: input.value, line: 1 }];
  return [];
}

/** What one API message (all its lines) needs to know before its first block is mapped. */
interface MessageInfo {
  withToolUse: boolean;
  usage?: unknown;
  model?: string;
  seenBlocks: Set<string>;
  lastStep?: Step;
}

export const claudeCodeAdapter: FormatAdapter = {
  id: 'claude-code',
  label: 'Claude Code session',
  sniff(input) {
    const head = recordsOf(input).slice(0, 20).map((r) => r.value);
    if (head.some(isMessageLine)) return 0.97;
    if (head.some((v) => isRecord(v) && ((v.type === 'summary' && 'leafUuid' in v) || v.type === 'file-history-snapshot'))) return 0.6;
    return 0;
  },
  parse(input, ctx) {
    const records = recordsOf(input);
    const messages = collectMessages(records);
    const mainLineExists = records.some(({ value }) => isMessageLine(value) && value.isSidechain !== true);
    const b = new StepBuilder();
    const meta: TrajectoryMeta = { agent: 'claude-code' };
    let title: string | undefined;
    let pendingCompaction: Step | undefined;

    for (const { value, line } of records) {
      if (!isRecord(value)) continue;
      if (value.type === 'summary' && typeof value.summary === 'string') {
        title ??= value.summary; // a session title for /resume lists, not a compaction summary
        skipRecord(ctx, 'session title', { line });
        continue;
      }
      if (value.type !== 'user' && value.type !== 'assistant' && value.type !== 'system') { skipRecord(ctx, String(value.type), { line }); continue; }
      noteSession(meta, value);
      const base: BlockBase = {
        location: { line },
        timestamp: stringOrUndefined(value.timestamp),
        sourceId: stringOrUndefined(value.uuid),
        // Subagent (Task) lines are a side branch the tree nests under the call that started it.
        branch: value.isSidechain === true ? (typeof value.agentId === 'string' ? value.agentId : 'subagent') : undefined,
      };

      if (value.type === 'system') {
        if (value.subtype === 'compact_boundary') {
          const m = isRecord(value.compactMetadata) ? value.compactMetadata : {};
          pendingCompaction = b.add({
            ...base, kind: 'compaction', text: String(value.content ?? ''), label: 'compact_boundary',
            compaction: { trigger: stringOrUndefined(m.trigger), tokensBefore: typeof m.preTokens === 'number' ? m.preTokens : undefined },
          });
          b.closeOpenCalls();
        } else if (typeof value.content === 'string' && value.content.trim() !== '') {
          b.add({ ...base, kind: 'other', text: value.content, label: String(value.subtype ?? 'system') });
        }
        continue;
      }

      const message = value.message as Line;
      const content = message.content;
      if (value.type === 'assistant') {
        const info = messages.get(String(message.id));
        const blocks = (Array.isArray(content) ? content : [content]).filter((block) => !info || firstSighting(info, block));
        const added = addAssistantBlocks(b, blocks, base, info?.withToolUse ?? hasToolUse(blocks));
        if (info && added.length > 0) info.lastStep = added[added.length - 1];
        else if (!info && added.length > 0) added[added.length - 1].usage = anthropicUsage(message.usage, stringOrUndefined(message.model));
        continue;
      }

      // User lines: the human, tool results, harness-injected notes, and the compaction summary.
      const text = typeof content === 'string' ? content : undefined;
      if (value.isCompactSummary === true) {
        const summary = text ?? plainTextOf(content);
        if (pendingCompaction && pendingCompaction.compaction?.summary === undefined) {
          pendingCompaction.compaction = { ...pendingCompaction.compaction, summary };
          pendingCompaction.text = summary;
        } else {
          b.add({ ...base, kind: 'compaction', text: summary, label: 'compact summary', compaction: { summary } });
        }
        pendingCompaction = undefined;
      } else if (value.isMeta === true) {
        b.add({ ...base, kind: 'system', text: text ?? plainTextOf(content), label: 'meta' });
      } else if (text !== undefined && /^\s*<local-command-stdout>/.test(text)) {
        b.add({ ...base, kind: 'other', text, label: 'command output' });
      } else if (base.branch && mainLineExists) {
        // The Task prompt opens the subagent's branch; it is not a turn of the main conversation.
        addUserBlocks(b, Array.isArray(content) ? content : [content], base, 'other', 'subagent prompt');
      } else {
        const label = text !== undefined && /^\s*<command-name>/.test(text) ? 'command' : 'user';
        addUserBlocks(b, Array.isArray(content) ? content : [content], base, 'user', label);
      }
    }

    // Usage repeats on every line of a message; record it once, on the message's last step.
    for (const info of messages.values()) {
      const usage = anthropicUsage(info.usage, info.model);
      if (!usage) continue;
      if (info.lastStep) info.lastStep.usage = usage;
      meta.recorded = addUsage(meta.recorded, usage);
    }
    const steps = b.finish();
    if (records.length > 0 && steps.length === 0) ctx.warnings.push({ message: 'No messages were found in this session file.' });
    const titleSteps = steps.filter((s) => s.label === 'user' || (!mainLineExists && s.kind === 'user'));
    return { title: title ?? titleFromSteps(titleSteps, ctx.fileName), steps, meta };
  },
};

/** Groups assistant lines by `message.id`: later lines carry the message's final usage. */
function collectMessages(records: JsonlRecord[]): Map<string, MessageInfo> {
  const messages = new Map<string, MessageInfo>();
  for (const { value } of records) {
    if (!isMessageLine(value) || value.type !== 'assistant') continue;
    const message = value.message as Line;
    if (typeof message.id !== 'string') continue;
    let info = messages.get(message.id);
    if (!info) messages.set(message.id, (info = { withToolUse: false, seenBlocks: new Set() }));
    if (Array.isArray(message.content) && hasToolUse(message.content)) info.withToolUse = true;
    if (isRecord(message.usage)) info.usage = message.usage;
    if (typeof message.model === 'string' && message.model !== '<synthetic>') info.model = message.model;
  }
  return messages;
}

/** Some Claude Code versions rewrite a message's earlier blocks on later lines; map each block once. */
function firstSighting(info: MessageInfo, block: unknown): boolean {
  const key = isRecord(block) ? `${String(block.type)}\u0000${String(block.id ?? block.text ?? block.thinking ?? JSON.stringify(block))}` : String(block);
  if (info.seenBlocks.has(key)) return false;
  info.seenBlocks.add(key);
  return true;
}

function plainTextOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b) => (isRecord(b) && typeof b.text === 'string' ? b.text : '')).filter(Boolean).join('\n');
}

function noteSession(meta: TrajectoryMeta, line: Line): void {
  meta.sessionId ??= stringOrUndefined(line.sessionId);
  meta.version ??= stringOrUndefined(line.version);
  meta.cwd ??= stringOrUndefined(line.cwd);
  meta.gitBranch ??= stringOrUndefined(line.gitBranch);
  const message = isRecord(line.message) ? line.message : undefined;
  if (!meta.model && message && typeof message.model === 'string' && message.model !== '<synthetic>') meta.model = message.model;
}
