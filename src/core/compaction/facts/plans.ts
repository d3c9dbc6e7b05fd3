// The agent's own bookkeeping: to-do lists and plans (Claude Code TodoWrite, OpenCode todowrite,
// Gemini write_todos, Copilot manage_todo_list, Codex update_plan, OpenHands task_tracker, Cline's
// task_progress checklist), summaries already in the conversation, and decisions it stated.

import type { Step } from '../../model';
import { argsObject } from '../text';
import { cleanText, paragraph } from './hygiene';
import { isSummaryText } from './requests';

export interface TodoItem {
  text: string;
  /** Normalised: pending, in_progress, completed, or what the log says. */
  status: string;
  id?: string;
}

const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

function normaliseStatus(raw: unknown): string {
  const s = String(raw ?? 'pending').toLowerCase().replace(/[\s-]+/g, '_');
  if (/^(done|complete|completed|finished)$/.test(s)) return 'completed';
  if (/^(in_progress|active|doing|started|current)$/.test(s)) return 'in_progress';
  if (/^(todo|pending|not_started|open)$/.test(s)) return 'pending';
  return s;
}

function itemsOf(list: unknown): TodoItem[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((raw) => {
    if (typeof raw === 'string') return [{ text: raw.trim(), status: 'pending' }];
    if (!raw || typeof raw !== 'object') return [];
    const r = raw as Record<string, unknown>;
    const text = str(r.content) ?? str(r.title) ?? str(r.description) ?? str(r.step) ?? str(r.task) ?? str(r.text);
    if (!text) return [];
    const id = r.id === undefined ? undefined : String(r.id);
    // Codex exec's todo_list items say `completed: true|false` instead of a status.
    const status = r.status ?? r.state ?? (typeof r.completed === 'boolean' ? (r.completed ? 'completed' : 'pending') : undefined);
    return [{ text: paragraph(text), status: normaliseStatus(status), ...(id ? { id } : {}) }];
  });
}

/** `- [x] done` / `- [ ] open` lines of a Markdown checklist (Cline's task_progress). */
function checklistItems(text: string): TodoItem[] {
  return [...text.matchAll(/^\s*[-*]\s*\[([ xX~-])\]\s*(.+)$/gm)].map((m) => ({
    text: paragraph(m[2]),
    status: m[1] === ' ' ? 'pending' : m[1] === '~' || m[1] === '-' ? 'in_progress' : 'completed',
  }));
}

// Finished items carried from list to list: the latest few, so a long run's plan stays a plan.
const FINISHED_EARLIER = 5;

/**
 * What `earlier` (the same tool's list before this one) had finished that `items` no longer holds:
 * Claude Code's TodoWrite rewrites the whole list, and an agent that prunes what is done ("Create
 * CLAUDE.md" alone, after four items were checked off) has still done them.
 */
export function droppedFinished(earlier: { tool: string; items: readonly TodoItem[]; finishedEarlier?: readonly TodoItem[] } | undefined, tool: string, items: readonly TodoItem[]): TodoItem[] {
  if (!earlier || earlier.tool !== tool) return [];
  const key = (t: TodoItem) => t.text.replace(/\s+/g, ' ').trim().toLowerCase();
  const seen = new Set(items.map(key));
  const out = [...(earlier.finishedEarlier ?? []), ...earlier.items.filter((t) => t.status === 'completed')].filter((t) => !seen.has(key(t)) && seen.add(key(t)));
  return out.slice(-FINISHED_EARLIER);
}

/** The to-do list a call writes, if it writes one. */
export function todosOf(call: Step): TodoItem[] | undefined {
  const args = argsObject(call);
  if (!args) return undefined;
  for (const key of ['todos', 'todoList', 'todo_list', 'plan', 'task_list', 'tasks']) {
    if (Array.isArray(args[key])) {
      const items = itemsOf(args[key]);
      if (items.length) return items;
    }
  }
  const progress = str(args.task_progress);
  if (progress) {
    const items = checklistItems(progress);
    if (items.length) return items;
  }
  return undefined;
}

export interface SummaryFact {
  step: number;
  text: string;
  /** Where it came from: `openhands condensation`, `claude-code compact`, `codex compacted`, … */
  source: string;
}

/** A summary an earlier compaction left in the conversation, if `step` is one. */
export function summaryOf(step: Step): SummaryFact | undefined {
  if (step.kind === 'compaction') {
    const text = cleanText(step.compaction?.summary ?? step.text).trim();
    if (!text) return undefined;
    return { step: step.index, text, source: step.compaction?.trigger ?? step.label ?? 'compaction' };
  }
  if ((step.kind === 'user' || step.kind === 'system' || step.kind === 'assistant') && isSummaryText(step.text)) {
    return { step: step.index, text: cleanText(step.text).trim(), source: step.label ?? step.kind };
  }
  return undefined;
}

/** TASK_TRACKING lines an OpenHands summary carries: ids and statuses that must be copied as they are. */
export function taskTrackingOf(summary: string): string[] {
  const m = /TASK_TRACKING:?\s*([\s\S]*?)(?=\n[A-Z][A-Z_]{3,}:|$)/.exec(summary);
  if (!m) return [];
  return m[1].split('\n').map((l) => l.trim()).filter((l) => l && !/^\(?none/i.test(l));
}

// A finding the agent hedges ("This is likely a CodePlane orchestration issue") is still its
// diagnosis, and what a person taking over checks first.
const DECISION = /\b(the (?:fix|problem|issue|bug|cause|root cause|solution) (?:is|was|lies|seems)|(?:i|we)(?:'ll| will| need to| should) (?:change|modify|update|replace|fix|add|remove|use|switch|implement|make)|instead(?: of)?|decided|the approach|this means|because|(?:is|are|was|were) (?:most )?(?:likely|probably)|(?:looks|seems) like (?:the|a|an|this|it|there)|turns out)\b/i;

/** Sentences where the agent states what it found or decided, in order. */
export function decisionsOf(text: string): string[] {
  const out: string[] = [];
  const prose = cleanText(text).replace(/```[\s\S]*?```/g, ' ').replace(/<\/?think>/g, ' ');
  for (const sentence of prose.split(/(?<=[.!?])\s+|\n{2,}/)) {
    const s = paragraph(sentence);
    if (s.length >= 25 && s.length <= 280 && DECISION.test(s) && !/^(?:let me|let's|now let|first,? let)/i.test(s)) out.push(s);
  }
  return out;
}

const TASK_TOOLS = /^(?:TaskCreate|TaskUpdate|TaskList|TaskGet)$/;

/**
 * Claude Code 2.1's task tools keep the list in the tool, not in one call: TaskCreate adds a task
 * (its result names the id, `Task #3 created successfully: …`), TaskUpdate changes one by
 * `taskId` (`deleted` removes it), TaskList prints them all. The list as it stands after the
 * last such call up to `end`, and that call's step.
 */
export function taskToolPlan(steps: readonly Step[], resultOf: ReadonlyMap<number, Step>, end: number): { step: number; tool: string; items: TodoItem[] } | undefined {
  const tasks = new Map<string, TodoItem>();
  let last: { step: number; tool: string } | undefined;
  let created = 0;
  for (const s of steps) {
    if (s.index > end) break;
    if (s.kind !== 'tool_call' || !s.tool || !TASK_TOOLS.test(s.tool.name)) continue;
    const args = argsObject(s) ?? {};
    const result = resultOf.get(s.index);
    last = { step: s.index, tool: s.tool.name };
    if (s.tool.name === 'TaskCreate') {
      created++;
      const id = /#(\d+)/.exec(result?.text ?? '')?.[1] ?? String(created);
      const text = str(args.subject) ?? str(args.description) ?? str(args.title);
      if (text) tasks.set(id, { id, text: paragraph(text), status: normaliseStatus(args.status ?? 'pending') });
    } else if (s.tool.name === 'TaskUpdate') {
      const id = String(args.taskId ?? args.task_id ?? args.id ?? '').replace(/^#/, '');
      if (!id) continue;
      if (String(args.status) === 'deleted') { tasks.delete(id); continue; }
      const prev = tasks.get(id) ?? { id, text: `task ${id}`, status: 'pending' };
      tasks.set(id, { ...prev, ...(str(args.subject) ? { text: paragraph(str(args.subject)!) } : {}), ...(args.status !== undefined ? { status: normaliseStatus(args.status) } : {}) });
    } else if (s.tool.name === 'TaskList' && result) {
      for (const m of cleanText(result.text).matchAll(/^\s*#?(\d+)[.:)]?\s*\[([\w -]+)\]\s*(.+)$/gm)) {
        tasks.set(m[1], { id: m[1], text: paragraph(m[3]), status: normaliseStatus(m[2]) });
      }
    }
  }
  return last && tasks.size ? { ...last, items: [...tasks.values()] } : undefined;
}
