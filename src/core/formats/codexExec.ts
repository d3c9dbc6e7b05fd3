import type { RecordedUsage, SourceLocation, Step, TrajectoryMeta } from '../model';
import { argsOf, isRecord, StepBuilder, textOf } from '../steps';
import type { FormatAdapter } from './adapter';
import { jsonlRecordsOf, skipRecord } from './adapter';
import { stringOrUndefined, titleFromSteps } from './chatMessages';
import { labelWith } from './injected';
import { num, recordedUsage, sumUsage } from './usage';

// What `codex exec --json` prints: `thread.started`, then per turn `turn.started`, items
// (`item.started` / `item.updated` / `item.completed` of `agent_message`, `reasoning`,
// `command_execution` with its `exit_code`, `file_change`, `mcp_tool_call`, `web_search`,
// `todo_list`, `error`) and `turn.completed` with the turn's usage, or `turn.failed`. The prompt is
// given on the command line and is not in the stream. A call is its item's start, its result the
// item completed, paired by the item's id; an item still in progress when the stream ends has no result.

type Rec = Record<string, unknown>;

const EVENT = /^(?:thread\.started|turn\.(?:started|completed|failed)|item\.(?:started|updated|completed)|error)$/;

function isEvent(v: unknown): v is Rec {
  return isRecord(v) && typeof v.type === 'string' && EVENT.test(v.type);
}

/** The call an item makes, as a tool name and its arguments; undefined for items that are no call. */
function callOf(item: Rec): { name: string; args: string } | undefined {
  switch (item.type) {
    case 'command_execution':
      return { name: 'shell', args: argsOf({ command: item.command }) };
    case 'file_change':
      return { name: 'apply_patch', args: argsOf({ changes: item.changes }) };
    case 'mcp_tool_call':
      return { name: [item.server, item.tool].filter((s) => typeof s === 'string').join('.') || 'mcp', args: argsOf(item.arguments ?? {}) };
    case 'todo_list':
      return { name: 'todo_list', args: argsOf({ todo_list: item.items }) };
    default:
      return undefined;
  }
}

/** An item completed: what its call returned, and whether it failed by the item's own fields. */
function resultOf(item: Rec): { text: string; isError?: true; exitCode?: number } {
  const failed = item.status === 'failed' || item.status === 'declined' || (item.error !== undefined && item.error !== null);
  switch (item.type) {
    case 'command_execution': {
      const code = num(item.exit_code);
      return { text: textOf(item.aggregated_output), ...(code !== undefined ? { exitCode: code } : {}), ...(failed || (code !== undefined && code !== 0) ? { isError: true as const } : {}) };
    }
    case 'file_change': {
      const changes = Array.isArray(item.changes) ? item.changes.filter(isRecord) : [];
      return { text: changes.map((c) => `${String(c.kind ?? 'change')} ${String(c.path ?? '')}`).join('\n') || String(item.status ?? ''), ...(failed ? { isError: true as const } : {}) };
    }
    case 'todo_list': {
      const items = Array.isArray(item.items) ? item.items.filter(isRecord) : [];
      return { text: items.map((t) => `- [${t.completed === true ? 'x' : ' '}] ${String(t.text ?? '')}`).join('\n') };
    }
    default: {
      const error = isRecord(item.error) ? item.error.message : item.error;
      return { text: failed && error !== undefined ? textOf(error) : textOf(item.result ?? item.output ?? ''), ...(failed ? { isError: true as const } : {}) };
    }
  }
}

export const codexExecAdapter: FormatAdapter = {
  id: 'codex-exec',
  label: 'Codex exec --json event stream',
  fileNames: ['*.jsonl'],
  sniff(input) {
    const head = jsonlRecordsOf(input).slice(0, 20).map((r) => r.value);
    if (head.length === 0 || !head.some((v) => isRecord(v) && (v.type === 'thread.started' || (typeof v.type === 'string' && v.type.startsWith('item.') && isRecord(v.item))))) return 0;
    return head.filter(isEvent).length >= head.length * 0.8 ? 0.95 : 0;
  },
  parse(input, ctx) {
    const b = new StepBuilder();
    const meta: TrajectoryMeta = { agent: 'codex' };
    const usages: RecordedUsage[] = [];
    /** Calls made by an item's start, by item id: its completion is their result. */
    const open = new Map<string, Step>();
    for (const r of jsonlRecordsOf(input)) {
      const v = r.value;
      const location: SourceLocation = { line: r.line };
      if (!isEvent(v)) {
        skipRecord(ctx, 'line (not a Codex exec event)', location);
        continue;
      }
      const item = isRecord(v.item) ? v.item : undefined;
      const id = stringOrUndefined(item?.id);
      switch (v.type) {
        case 'thread.started':
          meta.sessionId = stringOrUndefined(v.thread_id);
          skipRecord(ctx, 'thread.started (session id)', location);
          break;
        case 'turn.started':
          skipRecord(ctx, 'turn.started (a turn begins)', location);
          break;
        case 'turn.completed': {
          // The turn's usage, all its model calls together: a total, not one call's.
          const u = isRecord(v.usage) ? v.usage : {};
          const usage = recordedUsage({ input: num(u.input_tokens), cacheRead: num(u.cached_input_tokens), output: num(u.output_tokens) });
          if (usage) usages.push(usage);
          skipRecord(ctx, "turn.completed (the turn's usage)", location);
          break;
        }
        case 'turn.failed':
        case 'error': {
          const error = isRecord(v.error) ? v.error.message : v.message;
          b.add({ location, kind: 'other', text: textOf(error ?? v), label: String(v.type), isError: true });
          break;
        }
        case 'item.updated':
          skipRecord(ctx, 'item.updated (a state the item completes later)', location);
          break;
        case 'item.started':
        case 'item.completed': {
          if (!item) break;
          const call = callOf(item);
          if (call) {
            let started = id ? open.get(id) : undefined;
            if (!started) {
              started = b.add({ location, kind: 'tool_call', text: call.args, label: String(item.type), tool: { name: call.name, args: call.args, callId: id } });
              if (id) open.set(id, started);
            } else if (v.type === 'item.started') skipRecord(ctx, 'item.started (again)', location);
            if (v.type === 'item.completed') {
              const result = resultOf(item);
              b.add({ location, kind: 'tool_result', label: String(item.type), tool: { name: '', args: '', callId: id }, ...result });
              if (id) open.delete(id);
            }
            break;
          }
          if (v.type === 'item.started') {
            skipRecord(ctx, `item.started (${String(item.type)}: its text comes when it completes)`, location);
            break;
          }
          addItem(b, item, location);
          break;
        }
      }
    }
    const steps = b.finish();
    meta.recorded = sumUsage(usages);
    return { title: titleFromSteps(steps, ctx.fileName), steps, meta };
  },
};

/** A completed item that is no call: the agent's words, its reasoning, a search, an error. */
function addItem(b: StepBuilder, item: Rec, location: SourceLocation): void {
  switch (item.type) {
    case 'agent_message':
      b.add({ location, kind: 'assistant', text: textOf(item.text) });
      break;
    case 'reasoning':
      b.add({ location, kind: 'thought', text: textOf(item.text), label: 'reasoning' });
      break;
    case 'web_search':
      b.add({ location, kind: 'other', text: textOf(item.query), label: labelWith('web search', textOf(item.query).slice(0, 80)) });
      break;
    case 'error':
      // Codex's own error item (a budget cut short, a failed tool setup): the log's verdict.
      b.add({ location, kind: 'other', text: textOf(item.message), label: 'error', isError: true });
      break;
    default:
      b.add({ location, kind: 'other', text: textOf(item.text ?? item.message ?? item), label: String(item.type ?? 'item') });
  }
}
