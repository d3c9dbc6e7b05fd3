// The two strategies of the conversation-summarisation guide:
// `rolling-summary` — once more than 2×threshold messages are unsummarized, the oldest `threshold`
//   are summarized and the summary appended to a running summary;
// `hierarchical-summary` — a window of recent messages, and summaries that are compressed again
//   as they age (level 1 → level 2 → level 3).

import type { ChatMessage } from '../../llm/provider';
import type { Step, Run } from '../../model';
import { replaceRange, summaryStep } from '../assemble';
import { EXTRACTIVE_NOTE, extractFacts, tidy } from '../extract';
import { taskOf, taskWithClosing } from '../facts';
import { charsBudget, charsOf, rangeSteps, SUMMARY_SIZE_OPTIONS, summaryMaxChars } from './summaryBudget';
import { digestItems, excerptItems, excerptRoom, FILL_PRIORITY, fitItems, joinItems, type DigestItem } from '../facts';
import { truncateMiddle } from '../text';
import type { ForcedTrigger, LlmCaller, OptionSpec, PolicyChoice, StepRange, Strategy, StrategyContext, StrategyOptions, StrategyOutput } from '../types';

/** Consecutive chunks of about `size` steps; a chunk grows rather than split a call from its result. */
function chunkPairSafe(steps: readonly Step[], size: number): Step[][] {
  const chunks: Step[][] = [];
  let i = 0;
  while (i < steps.length) {
    let end = Math.min(i + size, steps.length);
    const pairedLater = () => steps.slice(end).some((s) => s.answers !== undefined && steps.slice(i, end).some((c) => c.index === s.answers));
    while (end < steps.length && pairedLater()) end++;
    chunks.push(steps.slice(i, end));
    i = end;
  }
  return chunks;
}

function messagesOf(trajectory: Run): Step[] {
  return trajectory.steps.filter((s) => s.kind !== 'system');
}

function transcript(steps: readonly Step[], maxChars: number): string {
  return steps.map((s) => {
    const role = s.kind === 'tool_result' ? 'tool' : s.kind === 'user' ? 'user' : s.kind === 'tool_call' ? 'assistant (tool call)' : 'assistant';
    const content = s.kind === 'tool_call' && s.tool ? `${s.tool.name} ${s.tool.args}` : s.text;
    return `${role}: ${truncateMiddle(content, maxChars, '\n[… cut …]\n')}`;
  }).join('\n');
}

function chunkPrompt(steps: readonly Step[], maxChars: number): ChatMessage[] {
  return [{ role: 'user', content: `Summarize the main points of this stretch of conversation, briefly.
Cover:
- what was discussed or worked on
- facts established and decisions made
- where things stand at the end of it

Conversation:
${transcript(steps, maxChars)}

Summary (2-3 sentences):` }];
}

function mergePrompt(parts: string[]): ChatMessage[] {
  return [{ role: 'user', content: `These are summaries of consecutive parts of one conversation, oldest first. Merge them into a single shorter summary that keeps only the essential facts, decisions and open points.

${parts.filter(Boolean).map((p, i) => `Part ${i + 1}:\n${p}`).join('\n\n')}

Merged summary:` }];
}

/** Characters an offline chunk digest may take: the model's 150-token answer, at about four characters a token. */
const CHUNK_DIGEST_CHARS = 600;

/** The facts of a chunk as prioritised items. */
function chunkItems(trajectory: Run, steps: readonly Step[], quoteShare = 0): DigestItem[] {
  const facts = extractFacts(trajectory, steps.map((s) => s.index));
  const items = digestItems(facts);
  if (quoteShare <= 0) return items;
  // What the steps said, quoted, fills what room the items leave (below them all), the best first,
  // within the chunk's share of the room a summary of the whole range has for quotes (quoteShareOf).
  let room = quoteShare * facts.replacedChars;
  const quotes = excerptItems(facts, items).sort((a, b) => b.priority - a.priority).filter((q) => (room -= q.text.length + 3) >= 0);
  return [...items, ...quotes];
}

/**
 * The share of each chunk's characters its digest may quote: the room excerpts have in a summary of
 * the whole range (render.ts, excerptRoom), spread over the chunks in step with their size.
 */
function quoteShareOf(trajectory: Run, range: StepRange): number {
  const replaced = charsOf(rangeSteps(trajectory, range));
  const kept = charsOf(trajectory.steps) - replaced;
  return replaced > 0 ? excerptRoom(replaced, kept) / replaced : 0;
}

/** Characters the task takes at the head of an offline summary. */
const TASK_CHARS = 600;

/**
 * The task, stated first in every offline summary whatever the chunks kept: without it the rest
 * means little (a chunk digest drops its least telling items, and the task may be one of them).
 */
function taskHead(trajectory: Run): string {
  const task = taskOf(trajectory.steps);
  return task ? `Task: ${taskWithClosing(task.text, TASK_CHARS)}` : '';
}

function spanOf(steps: readonly Step[]): string {
  return `Steps ${steps[0].index}–${steps[steps.length - 1].index}:`;
}

/** Items told for what they say, not only to fill room (FILL_PRIORITY). */
const told = (i: DigestItem) => i.priority > FILL_PRIORITY;

/**
 * A chunk's digest from its items (chunkItems), within what the model's answer would take; without
 * `fill`, only the items told for what they say (quotes and room-fillers rank below them all).
 */
function digestOf(steps: readonly Step[], items: readonly DigestItem[], fill = true): string {
  const fitted = fitItems(items.filter((i) => fill || told(i)), CHUNK_DIGEST_CHARS);
  return `${spanOf(steps)} ${fitted.length ? joinItems(fitted) : 'nothing but messages without facts.'}`;
}

async function summarizeChunk(trajectory: Run, chunk: Step[], ctx: StrategyContext, quoteShare: number): Promise<string> {
  if (!ctx.llm) return digestOf(chunk, chunkItems(trajectory, chunk, quoteShare));
  const reply = await ctx.llm.complete({ messages: chunkPrompt(chunk, Number(ctx.options.message_max_chars)), temperature: 0.3, maxOutputTokens: 150 });
  return reply.text.trim();
}

async function mergeSummaries(parts: string[], ctx: StrategyContext & { llm: LlmCaller }): Promise<string> {
  return (await ctx.llm.complete({ messages: mergePrompt(parts.filter(Boolean)), temperature: 0.3 })).text.trim();
}

/** Chunks the messages of a range are summarized in. */
function chunksOf(trajectory: Run, range: StepRange, size: number): number {
  return chunkPairSafe(trajectory.steps.slice(range[0], range[1] + 1).filter((s) => s.kind !== 'system'), size).length;
}

const MESSAGE_MAX_CHARS: OptionSpec = {
  name: 'message_max_chars', type: 'integer', default: 2000, min: 100, max: 1_000_000,
  help: 'Each message is cut in the middle past this many characters before it goes to the summarizer (our addition: agent tool outputs can be huge).',
};

// ---- rolling-summary ----------------------------------------------------------------------

function rollingPolicy(trajectory: Run, options: StrategyOptions, _counter?: unknown, forced?: ForcedTrigger): PolicyChoice {
  const t = Number(options.summary_threshold);
  const msgs = messagesOf(trajectory);
  if (forced && msgs.length <= 2 * t) {
    // Over an outside budget before the usual trigger: summarize all but the newest threshold messages.
    if (msgs.length <= t) return { range: null, reason: `only ${msgs.length} messages, all among the newest ${t}.` };
    return { range: [msgs[0].index, msgs[msgs.length - t - 1].index], reason: `over the ${forced.tokenBudget}-token budget: summarize all but the newest ${t} messages.` };
  }
  if (msgs.length <= 2 * t) return { range: null, reason: `${msgs.length} messages, not more than 2 × summary_threshold (${2 * t}).` };
  const chunks = Math.ceil((msgs.length - 2 * t) / t);
  const last = msgs[chunks * t - 1];
  return { range: [msgs[0].index, last.index], reason: `${msgs.length} messages: the oldest ${chunks * t} are summarized ${t} at a time, leaving at most ${2 * t} recent ones.` };
}

async function runRolling(trajectory: Run, range: StepRange, ctx: StrategyContext): Promise<StrategyOutput> {
  const summarized = trajectory.steps.slice(range[0], range[1] + 1).filter((s) => s.kind !== 'system');
  const chunks = chunkPairSafe(summarized, Number(ctx.options.summary_threshold));
  const parts: string[] = [];
  const quoteShare = ctx.llm ? 0 : quoteShareOf(trajectory, range);
  // Offline each chunk's facts are read once: its digest and the fallbacks below are built from them.
  const itemsOf = ctx.llm ? [] : chunks.map((c) => chunkItems(trajectory, c, quoteShare));
  for (const [i, chunk] of chunks.entries()) {
    ctx.onProgress?.(`Summarizing part ${i + 1} of ${chunks.length}…`);
    parts.push(ctx.llm ? await summarizeChunk(trajectory, chunk, ctx, quoteShare) : digestOf(chunk, itemsOf[i]));
  }
  let running = parts.join('\n\n');
  if (!ctx.llm) {
    // Offline the running summary keeps to summary_max_chars: over it, the chunks' facts are merged
    // and the least telling and oldest go first.
    const head = [EXTRACTIVE_NOTE, taskHead(trajectory)].filter(Boolean).join('\n\n');
    const room = summaryMaxChars(ctx.options, rangeSteps(trajectory, range)) - head.length - 40;
    // Whether the chunks' digests fit is decided without what only fills room; it stays only where it fits too.
    if (running.length > room) {
      const plain = chunks.map((c, i) => digestOf(c, itemsOf[i], false)).join('\n\n');
      if (plain.length <= room) running = plain;
    }
    if (running.length > room) {
      const span = spanOf(summarized);
      running = `${span} ${joinItems(fitItems(itemsOf.flatMap((items) => fitItems(items, CHUNK_DIGEST_CHARS)), Math.max(100, room - span.length - 1)))}`;
    }
    running = `${head}\n\n${running}`;
  }
  const summary = tidy(`Conversation summary so far:\n${running}`);
  const { steps, fates } = replaceRange(trajectory, range, [summaryStep(summary, summarized, 'system', 'rolling summary')], { survives: (s) => s.kind === 'system' });
  return { mode: ctx.llm ? 'llm' : 'extractive', steps, fates, summary, prompt: chunks[0] ? chunkPrompt(chunks[0], Number(ctx.options.message_max_chars)) : null, warnings: [] };
}

export const rollingSummaryStrategy: Strategy = {
  id: 'rolling-summary',
  label: 'Rolling summary',
  kind: 'llm',
  description: 'Keeps the recent messages; whenever more than 2 × threshold are unsummarized, the oldest threshold messages are summarized and the summary is appended to a running summary.',
  options: [
    { name: 'summary_threshold', type: 'integer', default: 10, min: 1, max: 10_000, help: 'Messages summarized at a time; summarizing starts when more than twice this many are unsummarized.' },
    MESSAGE_MAX_CHARS,
    ...SUMMARY_SIZE_OPTIONS,
  ],
  policy: rollingPolicy,
  summaryBudget: charsBudget,
  // One summary request per chunk of summary_threshold messages.
  requestsPerFiring: (trajectory, range, options) => chunksOf(trajectory, range, Number(options.summary_threshold)),
  run: runRolling,
  maxCalls: (trajectory, range, options) => chunkPairSafe(trajectory.steps.slice(range[0], range[1] + 1).filter((s) => s.kind !== 'system'), Number(options.summary_threshold)).length,
};

// ---- hierarchical-summary -----------------------------------------------------------------

function hierarchicalPolicy(trajectory: Run, options: StrategyOptions, _counter?: unknown, forced?: ForcedTrigger): PolicyChoice {
  const windowSize = Number(options.window_size);
  const promote = Number(options.promote_count);
  const msgs = messagesOf(trajectory);
  if (forced && msgs.length <= windowSize) {
    // Over an outside budget with the window not yet full: promote the oldest promote_count messages.
    const n = Math.min(promote, msgs.length - 1);
    if (n <= 0) return { range: null, reason: 'only one message, nothing older to promote.' };
    return { range: [msgs[0].index, msgs[n - 1].index], reason: `over the ${forced.tokenBudget}-token budget: the oldest ${n} messages move into the summary levels.` };
  }
  let inWindow = 0;
  let promoted = 0;
  for (let i = 0; i < msgs.length; i++) {
    inWindow++;
    if (inWindow > windowSize) {
      promoted += Math.min(promote, inWindow);
      inWindow -= Math.min(promote, inWindow);
    }
  }
  if (promoted === 0) return { range: null, reason: `${msgs.length} messages fit in the current window of ${windowSize}.` };
  return { range: [msgs[0].index, msgs[promoted - 1].index], reason: `${msgs.length} messages: the last ${inWindow} stay in the current window; ${promoted} older ones move into the summary levels ${promote} at a time.` };
}

async function runHierarchical(trajectory: Run, range: StepRange, ctx: StrategyContext): Promise<StrategyOutput> {
  const o = ctx.options;
  const summarized = trajectory.steps.slice(range[0], range[1] + 1).filter((s) => s.kind !== 'system');
  const chunks = chunkPairSafe(summarized, Number(o.promote_count));
  const levels = ctx.llm ? await levelsWithModel(chunks, { ...ctx, llm: ctx.llm }) : levelsOffline(trajectory, chunks, ctx, quoteShareOf(trajectory, range));
  const parts = [
    ctx.llm ? '' : EXTRACTIVE_NOTE,
    ctx.llm ? '' : taskHead(trajectory),
    levels[2] ? `Early conversation: ${levels[2]}` : '',
    levels[1] ? `Previous discussion: ${levels[1]}` : '',
    levels[0] ? `Recent context: ${levels[0]}` : '',
  ].filter(Boolean);
  const summary = tidy(parts.join('\n\n'));
  const { steps, fates } = replaceRange(trajectory, range, [summaryStep(summary, summarized, 'system', 'hierarchical summary')], { survives: (s) => s.kind === 'system' });
  return { mode: ctx.llm ? 'llm' : 'extractive', steps, fates, summary, prompt: chunks[0] ? chunkPrompt(chunks[0], Number(o.message_max_chars)) : null, warnings: [] };
}

/**
 * The guide's ageing: chunk summaries collect in level 1; when level 1 is over its size it is
 * merged into level 2, and level 2 over its size into level 3 (our extension; the guide declares
 * level 3 but never fills it). Returns [level 1, level 2, level 3].
 */
async function levelsWithModel(chunks: Step[][], ctx: StrategyContext & { llm: LlmCaller }): Promise<[string, string, string]> {
  const l1Max = Number(ctx.options.level1_max_chars);
  const l2Max = Number(ctx.options.level2_max_chars);
  let [level1, level2, level3] = ['', '', ''];
  for (const [i, chunk] of chunks.entries()) {
    ctx.onProgress?.(`Summarizing part ${i + 1} of ${chunks.length}…`);
    const summary = (await ctx.llm.complete({ messages: chunkPrompt(chunk, Number(ctx.options.message_max_chars)), temperature: 0.3, maxOutputTokens: 150 })).text.trim();
    if (level1.length > l1Max) {
      if (level2.length > l2Max) {
        level3 = await mergeSummaries([level3, level2], ctx);
        level2 = '';
      }
      level2 = await mergeSummaries([level2, level1], ctx);
      level1 = summary;
    } else {
      level1 = level1 ? `${level1}\n${summary}` : summary;
    }
  }
  return [level1, level2, level3];
}

/**
 * The same ageing offline, on facts: a merge keeps each fact once and, when a level is over its
 * size, drops the least important and oldest facts first, so the newest and the fix survive.
 */
function levelsOffline(trajectory: Run, chunks: Step[][], ctx: StrategyContext, quoteShare: number): [string, string, string] {
  const l1Max = Number(ctx.options.level1_max_chars);
  const l2Max = Number(ctx.options.level2_max_chars);
  let level1: DigestItem[] = [];
  let level2: DigestItem[] = [];
  let level3: DigestItem[] = [];
  let span1: Step[] = [];
  for (const chunk of chunks) {
    // Each chunk in what the model's answer would take, as with a model.
    const items = fitItems(chunkItems(trajectory, chunk, quoteShare), CHUNK_DIGEST_CHARS);
    // Items that only fill room (FILL_PRIORITY) stay in the recent level: they neither hasten a move nor go up.
    if (joinItems(level1.filter(told)).length > l1Max) {
      if (joinItems(level2).length > l2Max) {
        level3 = fitItems([...level3, ...level2], l2Max);
        level2 = [];
      }
      // Merged, each fact once; the size is checked at the next move, as the guide does with level 1.
      level2 = fitItems([...level2, ...level1.filter(told)], Number.MAX_SAFE_INTEGER);
      level1 = items;
      span1 = [...chunk];
    } else {
      level1 = [...level1, ...items];
      span1 = [...span1, ...chunk];
    }
  }
  const recent = span1.length ? `${spanOf(span1)} ${joinItems(fitItems(level1, Math.max(l1Max, CHUNK_DIGEST_CHARS)))}` : '';
  return [recent, joinItems(level2), joinItems(level3)];
}

/**
 * The most an offline hierarchical summary takes: the task, level 1 (one chunk over its size at
 * most), level 2 (its size, plus the level 1 merged into it at the last move) and level 3 (level
 * 2's size), with their labels.
 */
function hierarchicalChars(o: StrategyOptions): number {
  const l1 = Number(o.level1_max_chars);
  const l2 = Number(o.level2_max_chars);
  return EXTRACTIVE_NOTE.length + TASK_CHARS + 10 + Math.max(l1, CHUNK_DIGEST_CHARS) + 40 + (l2 + l1 + 2 * CHUNK_DIGEST_CHARS) + l2 + 80;
}

export const hierarchicalSummaryStrategy: Strategy = {
  id: 'hierarchical-summary',
  label: 'Hierarchical summary',
  kind: 'llm',
  description: 'Keeps a window of recent messages; older messages are summarized 6 at a time into level 1, and summaries are merged again into level 2 and level 3 as they age, so the context stays bounded.',
  options: [
    { name: 'window_size', type: 'integer', default: 10, min: 1, max: 10_000, help: 'Messages in the current window (the guide keeps the last 5 turns, 10 messages).' },
    { name: 'promote_count', type: 'integer', default: 6, min: 1, max: 10_000, help: 'Messages moved from the window into a level-1 summary at a time.' },
    { name: 'level1_max_chars', type: 'integer', default: 500, min: 10, max: 1_000_000, help: 'When level 1 grows past this many characters it is merged into level 2.' },
    { name: 'level2_max_chars', type: 'integer', default: 1000, min: 10, max: 1_000_000, help: 'When level 2 grows past this many characters it is merged into level 3 (our extension).' },
    MESSAGE_MAX_CHARS,
  ],
  policy: hierarchicalPolicy,
  summaryBudget: (o) => ({ chars: hierarchicalChars(o) }),
  // A real run makes one request per chunk it summarizes (merges of aged summaries come on top, when levels overflow).
  requestsPerFiring: (trajectory, range, options) => chunksOf(trajectory, range, Number(options.promote_count)),
  run: runHierarchical,
  maxCalls: (trajectory, range, options) => 3 * chunkPairSafe(trajectory.steps.slice(range[0], range[1] + 1).filter((s) => s.kind !== 'system'), Number(options.promote_count)).length,
};
