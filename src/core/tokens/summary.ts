import type { Step, StepKind } from '../model';
import { STEP_KINDS } from '../model';
import { turnsOf } from '../steps';
import { isAgentStep, REPLY_PRIMING, stepTotal, type StepTokens } from './chatFormat';
import { nameTable, plainTable } from '../names';
import { imageRulesOf } from './imageTokens';

// Pure sums over per-step counts: totals by kind, tool and turn, and the model calls a run made.
// `steps` and `tokens` are parallel arrays; pass one run's steps for turn and call figures.

interface ToolTokens {
  /** Tokens of the calls' names, arguments and framing. */
  calls: number;
  /** Tokens of the observations that answered them. */
  results: number;
  total: number;
}

export interface TokenTotals {
  total: number;
  /** Tokens of the text itself; `total - content` is chat-format framing. */
  content: number;
  overhead: number;
  /** Modelled tokens of the images the steps carry (`tokens/imageTokens.ts`): no tokenizer counts them. */
  images: number;
  /** How many images, and the rules their tokens were modelled by. */
  imageCount: number;
  imageRules: string[];
  byKind: Record<StepKind, number>;
  byTool: Record<string, ToolTokens>;
  /** False while any step still shows the estimate. */
  exact: boolean;
}

export function summarizeTokens(steps: readonly Step[], tokens: readonly StepTokens[]): TokenTotals {
  const byKind = Object.fromEntries(STEP_KINDS.map((k) => [k, 0])) as Record<StepKind, number>;
  const byTool = nameTable<ToolTokens>();
  let content = 0;
  let overhead = 0;
  let images = 0;
  let imageCount = 0;
  let exact = true;
  steps.forEach((step, i) => {
    const t = tokens[i];
    const total = stepTotal(t);
    content += t.content;
    overhead += t.overhead;
    images += t.images ?? 0;
    imageCount += step.images?.length ?? 0;
    exact &&= t.exact;
    byKind[step.kind] += total;
    const tool = step.kind === 'tool_call' ? step.tool?.name : step.kind === 'tool_result' ? step.toolName : undefined;
    if (tool !== undefined) {
      const entry = (byTool[tool] ??= { calls: 0, results: 0, total: 0 });
      if (step.kind === 'tool_call') entry.calls += total;
      else entry.results += total;
      entry.total += total;
    }
  });
  return { total: content + overhead + images, content, overhead, images, imageCount, imageRules: imageRulesOf(steps), byKind, byTool: plainTable(byTool), exact };
}

export interface TurnTokens {
  turn: number;
  /** Inclusive step range, as indexes into the steps passed in. */
  start: number;
  end: number;
  tokens: number;
}

/** Token total of every turn of one run. */
export function turnTokens(steps: readonly Step[], tokens: readonly StepTokens[]): TurnTokens[] {
  const offset = steps.length > 0 ? steps[0].index : 0;
  return turnsOf(steps).map((turn) => {
    let sum = 0;
    for (let i = turn.start - offset; i <= turn.end - offset; i++) sum += stepTotal(tokens[i]);
    return { turn: turn.index, start: turn.start - offset, end: turn.end - offset, tokens: sum };
  });
}

/** One request to the model, as reconstructed from the log. */
export interface ModelCall {
  /** Inclusive range of the agent steps the call produced (indexes into the steps passed in). */
  start: number;
  end: number;
  /** The context the model read: every earlier step of its branch, plus reply priming. */
  input: number;
  /** What it wrote: the tokens of the steps it produced. */
  output: number;
  /** The part of `input` a prompt cache could serve: the previous call's input, when still a prefix. */
  cachedInput: number;
}

/**
 * The model calls of one run: each maximal group of consecutive agent steps (text, thoughts,
 * tool calls) is one call that read everything before it. Assumptions, since logs rarely say:
 * subagent branches have their own context, and after a `compaction` step the context is the
 * system prompt plus what follows the compaction; a prompt cache serves the previous call's
 * input again unless a compaction rewrote the context in between.
 */
export function modelCalls(steps: readonly Step[], tokens: readonly StepTokens[]): ModelCall[] {
  const calls: ModelCall[] = [];
  const context = new Map<string, { system: number; sinceCompaction: number; previous?: ModelCall }>();
  let current: ModelCall | undefined;
  steps.forEach((step, i) => {
    const branch = step.branch ?? '';
    const ctx = context.get(branch) ?? { system: 0, sinceCompaction: 0 };
    context.set(branch, ctx);
    const total = stepTotal(tokens[i]);
    if (isAgentStep(step)) {
      const continues = current && current.end === i - 1 && (steps[current.start].branch ?? '') === branch;
      if (!continues) {
        const input = ctx.system + ctx.sinceCompaction + REPLY_PRIMING;
        const cachedInput = ctx.previous ? ctx.previous.input - REPLY_PRIMING : 0;
        current = { start: i, end: i, input, output: 0, cachedInput };
        ctx.previous = current;
        calls.push(current);
      }
      current!.end = i;
      current!.output += total;
    } else {
      current = undefined;
    }
    if (step.kind === 'compaction') {
      ctx.sinceCompaction = total;
      ctx.previous = undefined;
    }
    else if (step.kind === 'system') ctx.system += total;
    else ctx.sinceCompaction += total;
  });
  return calls;
}
