// Digests: facts as short prioritised items, for the strategies that summarise in small pieces
// (rolling and hierarchical summaries). When a piece is over its size, the least important and
// oldest items go first, so the newest and the most telling survive.

import { returnsFinding } from './calls';
import { bounded, paragraph, saidIn } from './hygiene';
import { fillEntries, messageLine } from './render';
import { ANSWERED_PREFIX, callName, describeChange, describeCommand, describeFailedEdit, describeTest, describeTodo, failedEdits, filesChanged, filesNotRead, filesRead, readGistOf, type Facts } from './facts';

export interface DigestItem {
  text: string;
  /** 5 the task, requests and changes; 4 failures, tests and commits; 3 plans and failing commands; 2 decisions; 1 the rest; FILL_PRIORITY what only fills room. */
  priority: number;
  step: number;
}

/** The priority of items that only fill room a digest has left (what results showed of the person's terms). */
export const FILL_PRIORITY = 0.5;

export function digestItems(facts: Facts): DigestItem[] {
  const items: DigestItem[] = [];
  const add = (text: string, priority: number, step: number) => items.push({ text: paragraph(text), priority, step });
  for (const s of facts.summaries) add(`earlier summary: ${bounded(s.text, 1200)}`, 5, s.step);
  for (const r of facts.requests) add(`${r.step === facts.task?.step ? 'task' : 'user'}: ${bounded(r.text, 400)}`, 5, r.step);
  for (const c of facts.constraints) add(`constraint: ${c.text}`, 3, c.step);
  const changed = filesChanged(facts);
  for (const c of changed) add(describeChange(c), 5, lastStepOf(facts, c.file));
  for (const e of failedEdits(facts)) add(describeFailedEdit(e), 4, e.step);
  for (const t of facts.tests) add(describeTest(t), 4, t.step);
  for (const e of facts.errors) add(`error: ${e.text}`, 4, e.step);
  for (const e of facts.moreErrors) add(`error: ${e.text}`, 2, e.step);
  if (facts.plan) add(`tasks: ${facts.plan.items.map(describeTodo).join(', ')}`, 3, facts.plan.step);
  const replied = new Set(facts.replies.map((r) => r.step));
  for (const o of facts.outcomes) {
    if (!returnsFinding(o.kind) || o.kind === 'todo' || !o.said || o.failed || replied.has(o.step)) continue;
    add(`${callName(o)} → ${o.said}`, o.said.startsWith(ANSWERED_PREFIX) ? 5 : 2, o.step);
  }
  // What version control recorded (a commit's hash) ranks with the tests: a milestone.
  for (const c of facts.commands) add(`ran ${describeCommand(c)}`, c.recorded ? 4 : c.ok === false ? 3 : / → /.test(c.outcome) ? 2 : 1, c.step);
  for (const d of facts.decisions.slice(-3)) add(`agent: ${d.text}`, 2, d.step);
  // What the agent told the person at the end of a turn: its findings and answers, which the person acted on.
  for (const r of facts.replies.slice(-3)) add(`told the user: ${messageLine(r.text, 300)}`, 2, r.step);
  // Text shown between calls is among the notes that fill room below; it outranks nothing here.
  const last = facts.lastAgentMessage;
  if (last && !last.between && !facts.replies.some((r) => r.step === last.step)) add(`agent last said: ${messageLine(last.text, 300)}`, 3, last.step);
  // What only fills room (the agent's statements, what results showed of the person's terms): the first to go.
  for (const f of fillEntries(facts, !last?.between)) add(f.text, FILL_PRIORITY, f.step);
  for (const f of filesNotRead(facts)) add(`could not read ${f}`, 1, facts.reads.find((r) => r.text === f)?.step ?? 0);
  for (const f of filesRead(facts)) {
    const gist = readGistOf(facts, f);
    add(`read ${f}${gist ? `: ${gist}` : ''}`, 1, facts.reads.find((r) => r.text === f)?.step ?? 0);
  }
  return sortByStep(dedupe(items));
}

/** The priority of the best excerpt: below what fills room (FILL_PRIORITY), as in a summary's sections. */
export const EXCERPT_PRIORITY = 0.4;

/** The excerpts (excerpts.ts) as items below all others, quoted; not one the items `said` hold already. */
export function excerptItems(facts: Facts, said: readonly DigestItem[]): DigestItem[] {
  const already = saidIn(said.map((i) => i.text).join('\n'));
  return facts.excerpts.filter((e) => !already(e.text))
    .map((e) => ({ text: `"${paragraph(e.text)}"`, priority: EXCERPT_PRIORITY * e.score, step: e.step }));
}

function lastStepOf(facts: Facts, file: string): number {
  return [...facts.edits].reverse().find((e) => e.file === file || file.endsWith(`/${e.file}`))?.step ?? 0;
}

/** Each text once, at its latest step; a fact met again in several pieces ranks a little higher. */
function dedupe(items: DigestItem[]): DigestItem[] {
  const byText = new Map<string, DigestItem & { base: number }>();
  for (const i of items) {
    const prev = byText.get(i.text);
    if (!prev) byText.set(i.text, { ...i, base: i.priority });
    else {
      const base = Math.max(prev.base, i.priority);
      byText.set(i.text, { text: i.text, base, priority: Math.min(base + 1, Math.max(prev.priority, i.priority) + 0.25), step: Math.max(prev.step, i.step) });
    }
  }
  return [...byText.values()].map(({ text, priority, step }) => ({ text, priority, step }));
}

function sortByStep(items: DigestItem[]): DigestItem[] {
  return [...items].sort((a, b) => a.step - b.step);
}

const SEPARATOR = '; ';

export function joinItems(items: readonly DigestItem[]): string {
  return items.map((i) => i.text).join(SEPARATOR);
}

/** Items merged (each text once) and cut to `maxChars`: lowest priority first, then the oldest. */
export function fitItems(items: readonly DigestItem[], maxChars: number): DigestItem[] {
  const kept = sortByStep(dedupe([...items]));
  while (kept.length > 1 && joinItems(kept).length > maxChars) {
    let victim = 0;
    for (let i = 1; i < kept.length; i++) if (kept[i].priority < kept[victim].priority) victim = i;
    kept.splice(victim, 1);
  }
  if (kept.length === 1 && kept[0].text.length > maxChars) kept[0] = { ...kept[0], text: bounded(kept[0].text, maxChars) };
  return kept;
}
