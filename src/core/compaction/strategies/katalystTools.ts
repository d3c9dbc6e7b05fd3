// `katalyst-tools`: Katalyst's action-trace compressor. Older (action, observation) pairs are
// grouped by tool in code, then (with a model) shortened by the model; the recent actions stay.
// If the result is not at least 10% smaller than the full trace, it falls back to truncation.

import type { Step, Run } from '../../model';
import { keep, summaryStep, withText } from '../assemble';
import { bounded, describeCommand, describeFailedEdit, describeTest, extractFacts, failedEdits, filesChanged, filesRead, readGistOf, tidy, type Facts } from '../extract';
import { changeGistLines, EXCERPT_PRIORITY, excerptItems, fitItems, isTypedCommand, joinItems, type DigestItem } from '../facts';
import { truncateEnd, toolInputStr } from '../text';
import type { ForcedTrigger, IncrementalPolicy, OptionSpec, OutputStep, PolicyChoice, StepFate, StepRange, Strategy, StrategyContext, StrategyOptions, StrategyOutput } from '../types';
import { fromDefaults } from '../describeDefaults';

const SUMMARY_START = '[PREVIOUS ACTIONS SUMMARY]';
const SUMMARY_END = '[END OF SUMMARY]';
const RECENT_HEADER = 'Recent actions and observations:';

const GROUP_OBSERVATION_CHARS = 200; // raw slice per call in the grouping, no ellipsis
const GROUP_LAST_CALLS = 3; // calls shown per tool that was used more than once
const LARGE_TRACE_CHARS = 50_000; // above this: keep at most 3, aim for 70% shorter

interface Action {
  call: Step;
  result?: Step;
}

function actionsOf(steps: readonly Step[]): Action[] {
  const resultOf = new Map<number, Step>();
  for (const s of steps) if (s.kind === 'tool_result' && s.answers !== undefined) resultOf.set(s.answers, s);
  return steps.filter((s) => s.kind === 'tool_call' && s.tool).map((call) => ({ call, result: resultOf.get(call.index) }));
}

/** One action as Katalyst's scratchpad shows it, the observation cut to `maxObs` characters. */
function formatAction(a: Action, maxObs: number): string {
  const obs = truncateEnd(a.result?.text ?? '', maxObs);
  return `Previous Action: ${a.call.tool!.name}\nPrevious Action Input: ${toolInputStr(a.call.tool!.args)}\nObservation: ${obs}`;
}

function formatTrace(actions: readonly Action[], maxObs: number): string {
  return actions.map((a) => formatAction(a, maxObs)).join('\n');
}

/** Grouping done in code: tools in order of first use, one line for a single call, else the last 3. */
function groupByTool(actions: readonly Action[]): string {
  const groups = new Map<string, [string, string][]>();
  for (const a of actions) {
    const name = a.call.tool!.name;
    const list = groups.get(name) ?? [];
    list.push([toolInputStr(a.call.tool!.args), (a.result?.text ?? '').slice(0, GROUP_OBSERVATION_CHARS)]);
    groups.set(name, list);
  }
  const lines: string[] = [];
  for (const [name, calls] of groups) {
    if (calls.length === 1) lines.push(`${name}: ${calls[0][0]} → ${calls[0][1]}`);
    else {
      lines.push(`${name} (${calls.length} calls):`);
      for (const [input, obs] of calls.slice(-GROUP_LAST_CALLS)) lines.push(`  ${input} → ${obs}`);
    }
  }
  return lines.join('\n');
}

/**
 * What Katalyst keeps as conversation, around the scratchpad: system and user messages, the person
 * stopping the agent, and a slash command the person typed (`/init`, recorded as the client's event).
 */
const isConversation = (s: Step) => s.kind === 'system' || s.kind === 'user' || s.interruption === true || isTypedCommand(s);

/** Length of the prompt before the scratchpad: the conversation. */
function contextChars(trajectory: Run): number {
  const parts = trajectory.steps.filter(isConversation).map((s) => s.text);
  return parts.join('\n').length;
}

function effectiveLimits(trajectory: Run, options: StrategyOptions) {
  let trigger = Number(options.trigger);
  let keepLast = Number(options.keep_last);
  const adaptive = contextChars(trajectory) > Number(options.adaptive_context_chars);
  if (adaptive) {
    trigger = Math.min(trigger, 5);
    keepLast = Math.min(keepLast, 3);
  }
  return { trigger, keepLast, adaptive };
}

function policy(trajectory: Run, options: StrategyOptions, _counter?: unknown, forced?: ForcedTrigger): PolicyChoice {
  const actions = actionsOf(trajectory.steps);
  let { trigger, keepLast, adaptive } = effectiveLimits(trajectory, options);
  const note = adaptive ? ` (the prompt is over ${options.adaptive_context_chars} characters, so trigger ${trigger} and keep ${keepLast})` : '';
  if (actions.length <= trigger && !forced) return { range: null, reason: `${actions.length} actions, not more than the trigger of ${trigger}${note}.` };
  if (actions.length === 0) return { range: null, reason: 'no actions to summarize.' };
  if (formatTrace(actions, Number(options.observation_max_chars)).length > LARGE_TRACE_CHARS) keepLast = Math.min(3, keepLast);
  if (keepLast >= actions.length) return { range: null, reason: `all ${actions.length} actions are among the last ${keepLast} kept.` };
  const firstKept = actions[actions.length - keepLast]?.call.index ?? trajectory.steps.length;
  const start = actions[0].call.index;
  return {
    range: [start, firstKept - 1],
    reason: `${actions.length} actions ${forced ? `(over the ${forced.tokenBudget}-token budget)` : `> trigger ${trigger}`}${note}: summarize all but the last ${keepLast}.`,
  };
}

/** The policy above, kept up to date step by step (same figures, no rescans). */
function incrementalPolicy(options: StrategyOptions): IncrementalPolicy {
  const maxObs = Number(options.observation_max_chars);
  const calls: Step[] = [];
  const callAt = new Map<number, number>();
  const formatted: number[] = [];
  let traceChars = 0;
  let contextChars = -1; // the conversation's texts (isConversation) joined by newlines
  return {
    push(step) {
      if (isConversation(step)) contextChars += step.text.length + 1;
      if (step.kind === 'tool_call' && step.tool) {
        callAt.set(step.index, calls.length);
        calls.push(step);
        formatted.push(formatAction({ call: step }, maxObs).length);
        traceChars += formatted[formatted.length - 1];
      } else if (step.kind === 'tool_result' && step.answers !== undefined) {
        const at = callAt.get(step.answers);
        if (at === undefined) return;
        const length = formatAction({ call: calls[at], result: step }, maxObs).length;
        traceChars += length - formatted[at];
        formatted[at] = length;
      }
    },
    range(forced) {
      let trigger = forced ? 0 : Number(options.trigger);
      let keepLast = Number(options.keep_last);
      if (contextChars > Number(options.adaptive_context_chars)) {
        trigger = Math.min(trigger, 5);
        keepLast = Math.min(keepLast, 3);
      }
      if (calls.length <= trigger) return null;
      if (traceChars + calls.length - 1 > LARGE_TRACE_CHARS) keepLast = Math.min(3, keepLast);
      if (keepLast >= calls.length) return null;
      return [calls[0].index, calls[calls.length - keepLast].index - 1];
    },
  };
}

/**
 * Per tool, in order of first use: how many calls, the files they changed and read, how they
 * ended, the errors and tests they saw — in no more characters, all groups together, than the
 * listing of the groups' last calls they stand for (the grouping done in code), so the whole
 * costs what the listing costs. The model rewrites the listing as one text, so the room is shared:
 * a group that says all it has in less (three file writes listed with their contents) leaves the
 * rest to the groups with more to say (a hundred commands).
 */
function groupDigest(trajectory: Run, actions: readonly Action[]): string {
  const groups = new Map<string, Action[]>();
  // A call that reads a process another call here left running (Codex's write_stdin polls) is part of that command.
  const listed = new Set(actions.map((a) => a.call.index));
  const continuing = (a: Action) => a.call.continues !== undefined && listed.has(a.call.continues);
  const groupOf = (a: Action) => (continuing(a) ? trajectory.steps[a.call.continues!].tool?.name : undefined) ?? a.call.tool!.name;
  for (const a of actions) groups.set(groupOf(a), [...(groups.get(groupOf(a)) ?? []), a]);
  const parts = [...groups].map(([name, calls]) => {
    const own = calls.filter((a) => !continuing(a)).length;
    const polls = calls.length - own;
    const head = `${name}${own === 1 && polls === 0 ? ':' : ` (${own} call${own === 1 ? '' : 's'}${polls ? `, ${polls} more reading their output` : ''}):`}`;
    const facts = extractFacts(trajectory, calls.flatMap((a) => (a.result ? [a.call.index, a.result.index] : [a.call.index])));
    const items = groupItems(facts, calls.length);
    const told = items.filter((i) => i.priority >= EXCERPT_PRIORITY);
    return { head, calls, items, room: Math.max(MIN_GROUP_CHARS, groupByTool(calls).length - head.length - 1), need: joinItems(fitItems(told, Number.MAX_SAFE_INTEGER)).length, quoting: joinItems(fitItems(items, Number.MAX_SAFE_INTEGER)).length };
  });
  // The room goes first to what the groups tell; what is left, to the lines they quote.
  const told = shareRoom(parts.map((p) => p.need), parts.map((p) => p.room));
  const spare = parts.reduce((n, p) => n + p.room, 0) - told.reduce((a, b) => a + b, 0);
  const roomSum = parts.reduce((n, p) => n + p.room, 0);
  const quoted = shareRoom(parts.map((p, i) => Math.max(0, p.quoting - told[i])), parts.map((p) => Math.floor((spare * p.room) / roomSum)));
  const rooms = told.map((r, i) => r + quoted[i]);
  const lines = parts.map((p, i) => {
    const body = joinItems(fitItems(p.items, rooms[i]));
    // "no result recorded" only when no call of the group has one in the log.
    return `${p.head} ${body || (p.calls.some((a) => a.result) ? 'returned nothing' : 'no result recorded')}`;
  });
  return tidy(lines.join('\n'));
}

const MIN_GROUP_CHARS = 40;

/**
 * The rooms' total shared out: a part that needs less than its room gets what it needs, and what
 * it leaves goes to the parts that need more, in proportion to their own rooms.
 */
export function shareRoom(needs: readonly number[], rooms: readonly number[]): number[] {
  const given = needs.map((need, i) => Math.min(need, rooms[i]));
  let spare = rooms.reduce((a, b) => a + b, 0) - given.reduce((a, b) => a + b, 0);
  for (let round = 0; round < needs.length && spare > 0; round++) {
    const wanting = needs.map((need, i) => (given[i] < need ? i : -1)).filter((i) => i >= 0);
    if (wanting.length === 0) break;
    const weight = wanting.reduce((sum, i) => sum + rooms[i], 0);
    let used = 0;
    for (const i of wanting) {
      const more = Math.min(needs[i] - given[i], Math.floor((spare * rooms[i]) / weight));
      given[i] += more;
      used += more;
    }
    spare -= used;
    if (used === 0) break;
  }
  return given;
}

function groupItems(facts: Facts, calls: number): DigestItem[] {
  const items: DigestItem[] = [];
  const add = (text: string, priority: number, step = 0) => items.push({ text, priority, step });
  const changed = filesChanged(facts);
  const lone = calls === 1 ? facts.commands[0] : undefined;
  // Changes told once per kind of change: "edited a.py, b.py (3 edits); created and deleted c.py".
  const byVerbs = new Map<string, string[]>();
  for (const c of changed) {
    const verbs = c.actions.length > 1 ? `${c.actions.slice(0, -1).join(', ')} and ${c.actions[c.actions.length - 1]}` : c.action;
    byVerbs.set(verbs, [...(byVerbs.get(verbs) ?? []), `${c.file}${c.times > c.actions.length ? ` (${c.times} edits)` : ''}`]);
  }
  const changes = [...byVerbs].map(([verbs, files]) => `${verbs} ${files.join(', ')}`).join('; ');
  // A lone command says what it did and what it changed in one line.
  if (lone) add(`${describeCommand(lone)}${changes ? `: ${changes}` : ''}`, 5, lone.step);
  else if (changes) add(changes, 5);
  for (const e of failedEdits(facts)) add(describeFailedEdit(e), 4, e.step);
  for (const t of facts.tests) add(describeTest(t), 4, t.step);
  // Errors that open alike are one error met several times ("Sphinx version error: … ×4").
  const seen = new Map<string, { text: string; n: number; step: number }>();
  for (const e of facts.errors) {
    const key = bounded(e.text, 48);
    const prev = seen.get(key);
    seen.set(key, prev ? { text: sharedOpening(prev.text, e.text, key), n: prev.n + 1, step: prev.step } : { text: e.text, n: 1, step: e.step });
  }
  for (const { text, n, step } of seen.values()) add(`error ${text}${n > 1 ? ` ×${n}` : ''}`, 4 + Math.min(0.9, (n - 1) / 10), step);
  // The other errors a failed call printed (a build's further errors), where there is room.
  const firsts = new Set(facts.errors.map((e) => e.text));
  for (const e of facts.moreErrors) if (!firsts.has(e.text)) add(`error ${e.text}`, 2, e.step);
  if (facts.plan) add(`tasks: ${facts.plan.items.map((t) => `${t.text} [${t.status}]`).join(', ')}`, 4.5);
  // Every call with a result says how it ended, whatever the tool: its verdict, then what it returned.
  // Reads return source code and are listed as files read; they count only when they failed.
  const counted = facts.outcomes.filter((o) => o.kind !== 'read' || o.failed);
  const failed = counted.filter((o) => o.failed === true).length;
  const ok = counted.filter((o) => o.failed === false).length;
  const unsaid = counted.length - ok - failed;
  if (ok + failed > 1) add(`${ok} ok, ${failed} failed${unsaid ? `, ${unsaid} without a status` : ''}`, 3);
  const errorTexts = new Set(facts.errors.map((e) => e.text));
  for (const o of facts.outcomes) {
    if (o.kind === 'shell' || o.kind === 'edit' || o.kind === 'todo' || (o.kind === 'read' && !o.failed)) continue; // told above
    const aim = o.target ? `${o.target} ` : '';
    if (o.failed) { if (!o.said || !errorTexts.has(o.said)) add(`${aim}failed${o.said ? `: ${o.said}` : ''}`, 4, o.step); }
    else if (o.said) add(`${aim}→ ${o.said}`, calls === 1 ? 3 : 2, o.step);
  }
  // In a group, failures, commits and pushes (their hashes) first, then what changed files, the
  // repository or the environment, then what scripts printed, then what reads showed. Errors are listed above and test
  // runs said: a failure names its exit status only, a test is not told twice.
  const tests = new Set(facts.tests.map((t) => t.step));
  if (!lone) {
    for (const c of facts.commands) {
      if (tests.has(c.step)) continue;
      const text = c.ok === false ? `${c.command} (${c.exitCode !== undefined ? `exit ${c.exitCode}` : 'failed'})` : describeCommand(c);
      const printed = / → /.test(c.outcome);
      add(text, c.ok === false || c.recorded ? 3.5 : c.shellSaid ? 3.4 : c.effect === 'change' ? 3.3 : printed && c.effect === 'run' ? 3.2 : printed ? 2.5 : 1.5, c.step);
    }
  }
  const read = filesRead(facts);
  // Each file with what it showed first, so the group still says what was found in it.
  if (read.length) add(`read ${read.map((f) => { const gist = readGistOf(facts, f); return gist ? `${f} (${gist})` : f; }).join(', ')}`, 2);
  // What the edits put in, the latest first: only where the group's room is left over once the rest is said.
  for (const g of changeGistLines(facts)) add(g.text, 1.2);
  // Lines the calls returned, quoted: only in what room the group has left once all the above is said.
  items.push(...excerptItems(facts, items));
  return items;
}

/** What two errors that open alike both say, to the last whole word (at least `key`, their first words). */
function sharedOpening(a: string, b: string, key: string): string {
  if (a === b) return a;
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  const cut = a.lastIndexOf(' ', n);
  const shared = n === a.length ? a : `${a.slice(0, cut > 0 ? cut : n).replace(/[\s.,;:]+$/, '')}…`;
  return shared.length > key.length ? shared : key;
}

function prompt(actionsText: string, reductionPct: number, maxLength: number): string {
  return `Rewrite the tool interactions below in ${reductionPct}% fewer characters.

Keep only:
- files created or changed, with their paths
- what was found out: key facts and patterns
- errors that matter
- the state the next steps depend on

TOOL INTERACTIONS:
${actionsText}

SUMMARY (at most ${maxLength} characters):`;
}

async function run(trajectory: Run, range: StepRange, ctx: StrategyContext, useModel: boolean): Promise<StrategyOutput> {
  const o = ctx.options;
  const maxObs = Number(o.observation_max_chars);
  const all = actionsOf(trajectory.steps);
  const inRange = (s: Step) => s.index >= range[0] && s.index <= range[1];
  const toSummarize = all.filter((a) => inRange(a.call));
  const toKeep = all.filter((a) => a.call.index > range[1]);
  const full = formatTrace([...toSummarize, ...toKeep], maxObs);
  const target = full.length > LARGE_TRACE_CHARS ? 0.7 : 0.5;
  const actionsText = groupByTool(toSummarize);
  const maxLength = Math.floor(actionsText.length * (1 - target));
  const messages = [{ role: 'user' as const, content: prompt(actionsText, Math.round(target * 100), maxLength) }];
  const warnings: string[] = [];

  let summary: string | null = null;
  let mode: StrategyOutput['mode'] = 'extractive';
  if (useModel && ctx.llm) {
    const reply = await ctx.llm.complete({ messages, temperature: 0.1 });
    summary = reply.text.trim();
    if (summary.length > maxLength) summary = truncateEnd(summary, maxLength);
    mode = 'llm';
  } else if (useModel) {
    // Without a model: what each group of calls did, in the room its listing (the last calls) took.
    summary = groupDigest(trajectory, toSummarize);
  } else {
    mode = 'deterministic';
  }
  const head = summary === null ? null : `${SUMMARY_START}\n${summary}\n${SUMMARY_END}\n\n${RECENT_HEADER}`;
  const compressedLength = head === null ? 0 : `${head}\n${formatTrace(toKeep, maxObs)}`.length;
  if (head !== null && compressedLength >= full.length * (1 - Number(o.min_reduction))) {
    warnings.push(`Summary not effective: ${compressedLength} characters against ${full.length} for the full trace (needs at least ${Number(o.min_reduction) * 100}% less); fell back to truncation, keeping the last ${toKeep.length} actions.`);
    return assemble(trajectory, range, toSummarize, toKeep, null, maxObs, 'deterministic', messages, warnings);
  }
  return assemble(trajectory, range, toSummarize, toKeep, head, maxObs, mode, messages, warnings);
}

function assemble(trajectory: Run, range: StepRange, summarized: Action[], kept: Action[], head: string | null, maxObs: number,
  mode: StrategyOutput['mode'], messages: { role: 'user'; content: string }[], warnings: string[]): StrategyOutput {
  const fates: StepFate[] = trajectory.steps.map(() => 'kept');
  const keptResults = new Set(kept.map((a) => a.result?.index).filter((i): i is number => i !== undefined));
  const removed: Step[] = [];
  const steps: OutputStep[] = [];
  let inserted = false;
  for (const s of trajectory.steps) {
    const inside = s.index >= range[0] && s.index <= range[1];
    if (inside && !isConversation(s)) {
      fates[s.index] = head !== null && (s.kind === 'tool_call' || s.kind === 'tool_result') ? 'summarized' : 'dropped';
      removed.push(s);
      continue;
    }
    if (!inserted && s.index > range[1]) {
      if (head !== null) steps.push(summaryStep(head, removed, 'user', 'katalyst action trace'));
      inserted = true;
    }
    if (keptResults.has(s.index) && s.text.length > maxObs) {
      steps.push(withText(s, truncateEnd(s.text, maxObs)));
      fates[s.index] = 'trimmed';
    } else steps.push(keep(s));
  }
  if (!inserted && head !== null) steps.push(summaryStep(head, removed, 'user', 'katalyst action trace'));
  const summary = head === null ? null : `${head}\n${formatTrace(kept, maxObs)}`;
  return { mode, steps, fates, summary, prompt: messages, warnings };
}

const katalystToolsOptions: OptionSpec[] = [
  { name: 'trigger', type: 'integer', default: 10, min: 1, max: 100_000, help: 'Compress when there are more actions than this (KATALYST_ACTION_TRACE_TRIGGER).' },
  { name: 'keep_last', type: 'integer', default: 5, min: 1, max: 10_000, help: 'Recent actions kept verbatim (KATALYST_ACTION_TRACE_KEEP_LAST_N).' },
  { name: 'observation_max_chars', type: 'integer', default: 1000, min: 10, max: 1_000_000, help: 'Each observation in the trace is cut to this many characters, ending in "...".' },
  { name: 'adaptive_context_chars', type: 'integer', default: 30_000, min: 0, max: 10_000_000, help: 'When the prompt before the trace is longer than this, the trigger drops to 5 and only 3 actions are kept.' },
  { name: 'min_reduction', type: 'number', default: 0.1, min: 0, max: 1, help: 'The compressed trace must be at least this much shorter than the full one, else it falls back to truncation.' },
];

export const katalystToolsStrategy: Strategy = {
  id: 'katalyst-tools',
  label: 'Katalyst action-trace compressor',
  kind: 'llm',
  description: fromDefaults('Groups older tool calls by tool (last 3 per tool, observations cut to {observation_max_chars} characters), has the model shorten that, and keeps the last {keep_last} actions; falls back to plain truncation when the result is not at least {min_reduction%} smaller.', katalystToolsOptions),
  options: katalystToolsOptions,
  policy,
  // Offline, each tool's group takes the room its listing (its last calls) took, at least a short line.
  summaryBudget: (o, trajectory, range) => {
    const actions = actionsOf(trajectory.steps).filter((a) => a.call.index >= range[0] && a.call.index <= range[1]);
    const groups = new Set(actions.map((a) => a.call.tool!.name)).size;
    return { chars: SUMMARY_START.length + SUMMARY_END.length + 2 + groupByTool(actions).length + groups * 60 };
  },
  // Katalyst rebuilds the trace summary from every action before each model request.
  recomputes: true,
  incrementalPolicy,
  requestsPerFiring: () => 1,
  run: (trajectory, range, ctx) => run(trajectory, range, ctx, true),
  // Katalyst's prescribed fall-back when the summary call fails: keep the recent actions only.
  fallback: (trajectory, range, ctx) => run(trajectory, range, ctx, false),
};
