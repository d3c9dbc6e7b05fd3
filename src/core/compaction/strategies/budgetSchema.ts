// `budget-schema`: trigger on a token budget (a share of the context window), summarize the old
// rounds into a fixed schema, check that summary + kept tail fit the budget and compress harder
// if not; when the model fails, fall back to dropping the oldest rounds until the rest fits.

import type { ChatMessage } from '../../llm/provider';
import type { Step, Run } from '../../model';
import { charEstimateCounter, type TokenCounter } from '../../tokens';
import { replaceRange, summaryStep } from '../assemble';
import {
  changeLines, commandLines, constraintLines, counted, decisionLines, doneTodoLines, finishedEarlierLines, earlierSummaryText, errorLines, EXTRACTIVE_NOTE, extractFacts,
  failedEditLines, firstLine, laterRequests, openTodoLines, readLinesUnderRoot, taskLine, testLines, tidy, type Facts,
} from '../extract';
import { exitCodeOf, firstOutputLine, leastPassing } from '../facts';
import { widenToPairs } from '../range';
import { truncatedEventText, promptTokensOf } from '../text';
import type { ForcedTrigger, PolicyChoice, StepRange, Strategy, StrategyContext, StrategyOptions, StrategyOutput } from '../types';
import { charsBudget, SUMMARY_SIZE_OPTIONS, summaryMaxChars } from './summaryBudget';
import { excerptLines, outcomeLines } from '../facts';

export const SCHEMA_FIELDS = ['decisions', 'facts', 'open_questions', 'pending_tool_calls', 'recent_tool_results'] as const;
type Field = (typeof SCHEMA_FIELDS)[number];
type SchemaSummary = Record<Field, string[]>;

const FIELD_TITLES: Record<Field, string> = {
  decisions: 'Decisions',
  facts: 'Facts',
  open_questions: 'Open questions',
  pending_tool_calls: 'Pending tool calls',
  recent_tool_results: 'Recent tool results',
};

const AGENT = new Set<Step['kind']>(['assistant', 'thought', 'tool_call']);

/** Start index of each round: a user message, or the agent acting again after tool results. */
export function roundStarts(steps: readonly Step[]): number[] {
  const starts: number[] = [];
  steps.forEach((s, i) => {
    const prev = steps[i - 1];
    if (s.kind === 'system') return;
    if (!prev || prev.kind === 'system' || (s.kind === 'user' && prev.kind !== 'user') || (AGENT.has(s.kind) && !AGENT.has(prev.kind) && prev.kind !== 'user')) starts.push(i);
  });
  return starts;
}

function tokensOf(steps: readonly Step[], counter: TokenCounter): number {
  return steps.reduce((n, s) => n + promptTokensOf(s, counter), 0);
}

function budgetOf(options: StrategyOptions): number {
  return Math.floor(Number(options.context_window) * Number(options.threshold_ratio));
}

function policy(trajectory: Run, options: StrategyOptions, counter: TokenCounter = charEstimateCounter, forced?: ForcedTrigger): PolicyChoice {
  const total = tokensOf(trajectory.steps, counter);
  const window = Number(options.context_window);
  const share = total / window;
  const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;
  if (share < Number(options.threshold_ratio) && !forced) {
    return { range: null, reason: `${total} tokens is ${pct(share)} of the ${window}-token window, under the ${pct(Number(options.threshold_ratio))} trigger.` };
  }
  const starts = roundStarts(trajectory.steps);
  const tail = Number(options.tail_turns);
  if (starts.length === 0 || starts.length <= tail) return { range: null, reason: `over budget, but there are only ${starts.length} rounds and the last ${tail} are always kept.` };
  const first = trajectory.steps.find((s) => s.kind !== 'system')!.index;
  // With no round kept, everything but the system prompt is summarized.
  const end = tail === 0 ? trajectory.steps.length - 1 : starts[starts.length - tail] - 1;
  if (end < first) return { range: null, reason: 'nothing comes before the kept rounds.' };
  return { range: [first, end], reason: `${total} tokens is ${pct(share)} of the ${window}-token window (trigger ${pct(Number(options.threshold_ratio))}): keep the last ${tail} rounds, summarize the rest.` };
}

const INSTRUCTIONS = `You compress the older part of an agent's session into a fixed schema, so the agent can keep working with a smaller context.
Reply with one JSON object and nothing else. Every field is a list of short strings:
- "decisions": what the agent or the user committed to
- "facts": stable facts established (the task, the environment, file paths, preferences)
- "open_questions": what still needs an answer or a follow-up
- "pending_tool_calls": tool calls still waiting for a result or a confirmation
- "recent_tool_results": a short digest of each recent tool output that matters: tool name, key arguments, outcome
Quote error messages and exit codes exactly. Do not invent anything.`;

function prompt(events: readonly Step[], previous: string | undefined, maxChars: number, targetTokens?: number): ChatMessage[] {
  const body = events.map((s) => truncatedEventText(s, maxChars)).join('\n\n---\n\n');
  const limit = targetTokens !== undefined ? `\n\nThe previous answer was too long: the whole summary must now fit in about ${targetTokens} tokens. Keep fewer, shorter items.` : '';
  return [
    { role: 'system', content: INSTRUCTIONS + limit },
    { role: 'user', content: `${previous ? `Summary so far:\n${previous}\n\n` : ''}Events to compress:\n\n${body}` },
  ];
}

/**
 * The model's JSON, read leniently (code fences, text around the object); throws when unusable,
 * that is when it fills none of the schema's fields. What had to be bent to fit (a string where a
 * list belongs, objects as items, fields the schema does not have) goes to `problems`.
 */
function parseSchemaReply(text: string, problems: string[] = []): SchemaSummary {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) throw new Error('the reply holds no JSON object');
  let value: unknown;
  try {
    value = JSON.parse(text.slice(start, end + 1));
  } catch (e) {
    throw new Error(`the reply is not valid JSON (${(e as Error).message})`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('the reply is not a JSON object');
  const v = value as Record<string, unknown>;
  const unknown = Object.keys(v).filter((k) => !(SCHEMA_FIELDS as readonly string[]).includes(k));
  if (!SCHEMA_FIELDS.some((f) => f in v)) {
    throw new Error(`the reply has none of the schema fields${unknown.length ? ` (it has ${unknown.slice(0, 6).map((k) => `"${k}"`).join(', ')})` : ''}`);
  }
  const bent = new Set<string>();
  const list = (f: string, x: unknown) => {
    if (x !== undefined && x !== null && !Array.isArray(x)) bent.add(f);
    return (Array.isArray(x) ? x : x === undefined || x === null ? [] : [x]).map((i) => {
      if (typeof i === 'string') return i;
      bent.add(f);
      return JSON.stringify(i);
    }).filter((i) => i.trim() !== '');
  };
  const summary = Object.fromEntries(SCHEMA_FIELDS.map((f) => [f, list(f, v[f])])) as SchemaSummary;
  if (SCHEMA_FIELDS.every((f) => summary[f].length === 0)) throw new Error('the reply fills none of the schema fields (every list is empty)');
  if (bent.size) problems.push(`The model's summary did not follow the schema: ${[...bent].map((f) => `"${f}"`).join(', ')} should be lists of strings; the values were converted.`);
  if (unknown.length) problems.push(`The model's summary has fields the schema does not (${unknown.slice(0, 6).map((k) => `"${k}"`).join(', ')}); they were left out.`);
  return summary;
}

function renderSchema(s: SchemaSummary, extractive: boolean): string {
  // An item a field lists again (the same tool result each round) is said once, with its count.
  const blocks = SCHEMA_FIELDS.map((f) => (s[f].length ? `${FIELD_TITLES[f]}:\n${counted(s[f]).map((i) => `- ${i}`).join('\n')}` : `${FIELD_TITLES[f]}: (none)`));
  return tidy([...(extractive ? [EXTRACTIVE_NOTE] : []), ...blocks].join('\n'));
}

/** The summary without a model, and the items it keeps while anything else can go (issue 22: the task, the person's later requests, the files changed, the last error). */
function extractiveSchema(trajectory: Run, steps: readonly Step[]): { schema: SchemaSummary; keep: Set<string>; facts: Facts } {
  const facts = extractFacts(trajectory, steps.map((s) => s.index));
  const results = steps.filter((s) => s.kind === 'tool_result').slice(-5);
  const task = taskLine(facts, 800);
  const changes = changeLines(facts);
  const requests = laterRequests(facts).map((r) => `later request: ${r}`);
  const errors = errorLines(facts).map((e) => `error: ${e}`);
  const keep = new Set([...changes, ...requests, ...errors.slice(-1)]);
  const schema = {
    decisions: [...changes, ...decisionLines(facts, 5), ...constraintLines(facts).map((c) => `constraint: ${c}`)],
    facts: [
      ...(task ? [`task: ${task}`] : []),
      // Dropped first when over the budget: the oldest items of a list go first.
      ...finishedEarlierLines(facts).map((t) => `done: ${t.text}`),
      ...requests,
      ...outcomeLines(facts).map((o) => o.text),
      ...earlierSummaryText(facts).map((p) => `earlier summary ${p}`),
      ...doneTodoLines(facts).map((t) => `done: ${t}`),
      ...readLinesUnderRoot(facts, (f) => `read ${f}`),
      ...testLines(facts),
      ...errors,
      ...commandLines(facts, 15),
    ],
    open_questions: [
      ...openTodoLines(facts),
      ...failedEditLines(facts),
      ...steps.filter((s) => (s.kind === 'assistant' || s.kind === 'thought') && /\?\s*$/.test(s.text)).map((s) => firstLine(s.text, 200)),
      ...errorLines(facts).slice(-2).map((e) => `still failing? ${e}`),
    ],
    pending_tool_calls: facts.pendingCalls.map((c) => c.text),
    recent_tool_results: results.map((r) => {
      const code = exitCodeOf(r);
      return `${r.toolName ?? 'tool'}${code !== undefined ? ` (exit ${code})` : ''}: ${firstLine(firstOutputLine(r.text) ?? '(no output)', 120)}`;
    }),
  };
  return { schema, keep, facts };
}

/**
 * The schema with lines of the summarised steps quoted under "facts" (excerpts.ts), the best first,
 * as many as the room they allow (`within`) and the budget take; undefined when none fits.
 */
function withQuotes(schema: SchemaSummary, facts: Facts, fits: (text: string) => boolean): SchemaSummary | undefined {
  const quotes = excerptLines(facts);
  const best = [...quotes].sort((a, b) => b.rank - a.rank);
  const within = quotes[0]?.within ?? 0;
  const schemaWith = (k: number): SchemaSummary => {
    const chosen = new Set(best.slice(0, k));
    return { ...schema, facts: [...schema.facts, ...quotes.filter((q) => chosen.has(q)).map((q) => q.text)] };
  };
  const ok = (k: number) => { const text = renderSchema(schemaWith(k), true); return text.length <= within && fits(text); };
  // The most that fit: the size only grows with each quote taken.
  const most = leastPassing(best.length, (k) => !ok(k + 1));
  return most > 0 ? schemaWith(most) : undefined;
}

/**
 * Deterministic tightening: drop tool-result digests first, then the oldest items of the longest
 * list, passing over the items in `keep`; those go (oldest first) only when nothing else is left.
 * The task (the first fact) goes never: without it the rest means little.
 */
function tighten(s: SchemaSummary, fits: (text: string) => boolean, extractive: boolean, keep: ReadonlySet<string> = new Set()): SchemaSummary | undefined {
  const t: SchemaSummary = { ...s, recent_tool_results: [] };
  if (fits(renderSchema(t, extractive))) return t;
  const isTask = (f: Field, i: number) => f === 'facts' && i === 0 && /^task: /.test(t.facts[0] ?? '');
  for (const spareKept of [true, false]) {
    const droppable = (f: Field) => t[f].map((_, i) => i).filter((i) => !isTask(f, i) && !(spareKept && keep.has(t[f][i])));
    for (;;) {
      // Each list's droppable items once a round; the first of the longest list goes (ties: schema order).
      const lists = SCHEMA_FIELDS.map((f) => ({ f, at: droppable(f) }));
      const longest = lists.reduce((a, b) => (b.at.length > a.at.length ? b : a));
      const at = longest.at[0];
      if (at === undefined) break;
      t[longest.f] = t[longest.f].filter((_, i) => i !== at);
      if (fits(renderSchema(t, extractive))) return t;
    }
  }
  return undefined;
}

async function run(trajectory: Run, range: StepRange, ctx: StrategyContext): Promise<StrategyOutput> {
  const o = ctx.options;
  const budget = budgetOf(o);
  const inRange = trajectory.steps.slice(range[0], range[1] + 1);
  const summarized = inRange.filter((s) => s.kind !== 'system');
  const prevStep = summarized.find((s) => s.kind === 'compaction');
  const events = summarized.filter((s) => s !== prevStep);
  const keptTokens = tokensOf(trajectory.steps, ctx.counter) - tokensOf(summarized, ctx.counter);
  // Offline, the summary also keeps to its own size (summary_max_chars, more on a long range).
  const summaryChars = summaryMaxChars(o, inRange);
  const fits = (text: string) => keptTokens + ctx.counter.count(text) <= budget && (!!ctx.llm || text.length <= summaryChars);
  const warnings: string[] = [];
  const maxChars = Number(o.event_max_chars);
  const first = prompt(events, prevStep?.text, maxChars);

  let schema: SchemaSummary;
  let keep = new Set<string>();
  let text: string;
  if (ctx.llm) {
    const problems: string[] = [];
    schema = parseSchemaReply((await ctx.llm.complete({ messages: first, temperature: 0 })).text, problems);
    text = renderSchema(schema, false);
    for (let attempt = 2; attempt <= Number(o.max_attempts) && !fits(text); attempt++) {
      const target = Math.max(1, budget - keptTokens);
      ctx.onProgress?.(`Summary plus tail is over the budget; asking for a shorter one (attempt ${attempt}).`);
      schema = parseSchemaReply((await ctx.llm.complete({ messages: prompt(events, prevStep?.text, maxChars, target), temperature: 0 })).text, problems);
      text = renderSchema(schema, false);
    }
    warnings.push(...new Set(problems));
  } else {
    let facts: Facts;
    ({ schema, keep, facts } = extractiveSchema(trajectory, summarized));
    text = renderSchema(schema, true);
    // Room the summary leaves is filled with what the steps said, quoted, never past the budget.
    const quoted = fits(text) ? withQuotes(schema, facts, fits) : undefined;
    if (quoted) text = renderSchema(schema = quoted, true);
  }
  if (!fits(text)) {
    const tightened = tighten(schema, fits, !ctx.llm, keep);
    if (tightened) {
      text = renderSchema(tightened, !ctx.llm);
      warnings.push('Summary plus kept tail was over the budget; tool-result digests and the oldest items were dropped to fit.');
    } else {
      warnings.push(`The kept tail alone (${keptTokens} tokens) does not fit the budget of ${budget} tokens; the summary could not make it fit.`);
    }
  }
  const { steps, fates } = replaceRange(trajectory, range, [summaryStep(text, summarized, 'user', 'token budget')], { survives: (s) => s.kind === 'system' });
  return { mode: ctx.llm ? 'llm' : 'extractive', steps, fates, summary: text, prompt: first, warnings };
}

/** When the model fails: drop the oldest rounds of the range, one at a time, until the rest fits. */
async function truncateToBudget(trajectory: Run, range: StepRange, ctx: StrategyContext): Promise<StrategyOutput> {
  const budget = budgetOf(ctx.options);
  const starts = roundStarts(trajectory.steps).filter((i) => i >= range[0] && i <= range[1]);
  let total = tokensOf(trajectory.steps, ctx.counter);
  let cut = range[0] - 1;
  for (let r = 0; r < starts.length && total > budget; r++) {
    const end = (starts[r + 1] ?? range[1] + 1) - 1;
    total -= tokensOf(trajectory.steps.slice(Math.max(starts[r], cut + 1), end + 1).filter((s) => s.kind !== 'system'), ctx.counter);
    cut = end;
  }
  if (cut >= range[0]) cut = widenToPairs(trajectory.steps, [range[0], cut]).range[1];
  const warnings = [total > budget
    ? `Dropped every round before the kept tail and the context is still ${total} tokens, over the budget of ${budget}.`
    : `Dropped the oldest rounds (steps ${range[0]}–${cut}) until the context fit the budget of ${budget} tokens.`];
  if (cut < range[0]) return { mode: 'deterministic', steps: trajectory.steps.map((s) => ({ step: s, origin: s.index })), fates: trajectory.steps.map(() => 'kept'), summary: null, prompt: null, warnings: ['The context already fits the budget; nothing was dropped.'] };
  const { steps, fates } = replaceRange(trajectory, [range[0], cut], [], { survives: (s) => s.kind === 'system', fate: () => 'dropped' });
  return { mode: 'deterministic', steps, fates, summary: null, prompt: null, warnings };
}

export const budgetSchemaStrategy: Strategy = {
  id: 'budget-schema',
  label: 'Token-budget summary into a fixed schema',
  kind: 'llm',
  description: 'When the context passes a share of the window, the old rounds become a summary with fixed fields (decisions, facts, open questions, pending tool calls, recent tool results); summary plus tail must fit the budget.',
  options: [
    { name: 'context_window', type: 'integer', default: 128_000, min: 1, max: 10_000_000, help: "The model's context window in tokens." },
    { name: 'threshold_ratio', type: 'number', default: 0.65, min: 0, max: 1, help: 'Summarize when the context reaches this share of the window (the guide suggests 60–75%, about two thirds); it is also the budget the result must fit.' },
    { name: 'tail_turns', type: 'integer', default: 6, min: 0, max: 1000, help: 'Recent rounds kept verbatim (commonly 4–8). A round is a user message or one model response, with the tool results that follow.' },
    { name: 'max_attempts', type: 'integer', default: 3, min: 1, max: 10, help: 'Model requests at most, when the summary must be made shorter to fit.' },
    { name: 'event_max_chars', type: 'integer', default: 4000, min: 100, max: 1_000_000, help: 'Each event is cut in the middle past this many characters before it is sent.' },
    ...SUMMARY_SIZE_OPTIONS,
  ],
  summaryBudget: charsBudget,
  policy,
  // One request; the re-asks for a shorter summary are counted only when failures are modelled.
  requestsPerFiring: (_t, _r, options, modelFailures) => (modelFailures ? Number(options.max_attempts) : 1),
  run,
  fallback: truncateToBudget,
  maxCalls: (_t, _r, options) => Number(options.max_attempts),
};
