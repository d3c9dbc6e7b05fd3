// Runs one strategy on one trajectory: resolves options and the range (the user's, or the
// strategy's policy), widens it to keep tool pairs whole, runs the strategy with a guarded model or
// in extractive mode, falls back when the model fails or consent is refused, and accounts tokens.

import { redactSecrets } from '../llm/redact';
import { UserError } from '../errors';
import { markerKinds, planRequests } from './planRequests';
import { redactTrajectory, restoreKeptSteps } from './redactTrajectory';
import { imageTokensOf, type Step, type Run } from '../model';
import { imageRulesOf } from '../tokens';
import { assignTurns } from '../steps';
import { ConsentRefused, GuardedLlm } from './guardedLlm';
import { checkOption } from './options';
import { formatRange, parseRange, widenToPairs } from './range';
import { promptTokensOf } from './text';
import { describeSummarySize, REDUCTION_TARGET } from './strategies/summaryBudget';
import {
  CompactionCancelled,
  type CompactionContext,
  type CompactionResult,
  type OptionValue,
  type StepRange,
  type Strategy,
  type StrategyContext,
  type StrategyOptions,
  type StrategyOutput,
} from './types';
import { withExtra } from '../meta';

/** A bad option or range: the caller's mistake, reported in words (CLI exit code 1). */
export class CompactionInputError extends UserError {
  constructor(message: string) {
    super('usage', message);
    // By name, not new.target: the worker thread rebuilds it by this name, and bundles minify classes.
    this.name = 'CompactionInputError';
  }
}

export interface CompactionRequest {
  strategy: Strategy;
  /** A typed range (`12-40`, `:-10`), an inclusive pair, or absent for the strategy's policy. */
  range?: string | StepRange;
  /** Overrides of the strategy's defaults; strings are parsed by the option's type. */
  options?: Record<string, OptionValue>;
}

/** The strategy's defaults with `overrides` applied and checked against each option's type and range. */
export function resolveOptions(strategy: Strategy, overrides: Record<string, OptionValue> = {}): StrategyOptions {
  const options: StrategyOptions = Object.fromEntries(strategy.options.map((o) => [o.name, o.default]));
  for (const [name, raw] of Object.entries(overrides)) {
    const spec = strategy.options.find((o) => o.name === name);
    if (!spec) {
      const known = strategy.options.map((o) => o.name).join(', ') || 'none';
      throw new CompactionInputError(`${strategy.id} has no option "${name}" (options: ${known}).`);
    }
    const checked = checkOption(spec, raw, strategy.id);
    if ('error' in checked) throw new CompactionInputError(checked.error);
    options[name] = checked.value;
  }
  return options;
}

export async function runCompaction(trajectory: Run, request: CompactionRequest, ctx: CompactionContext): Promise<CompactionResult> {
  const { strategy } = request;
  const options = resolveOptions(strategy, request.options);
  const steps = trajectory.steps;
  const warnings: string[] = [];

  let range: StepRange | null;
  let rangeReason: string;
  const rangeSource = request.range === undefined ? 'policy' : 'user';
  if (typeof request.range === 'string') {
    const parsed = parseRange(request.range, steps.length);
    if ('error' in parsed) throw new CompactionInputError(parsed.error);
    range = parsed.range;
    rangeReason = `${formatRange(range)}, as requested`;
  } else if (Array.isArray(request.range)) {
    const [a, b] = request.range;
    if (!Number.isInteger(a) || !Number.isInteger(b) || a < 0 || b < a || b >= steps.length) {
      throw new CompactionInputError(`Range ${a}–${b} is outside the trajectory's ${steps.length} steps (0–${steps.length - 1}).`);
    }
    range = [a, b];
    rangeReason = `${formatRange(range)}, as requested`;
  } else {
    const choice = strategy.policy(trajectory, options, ctx.counter);
    range = choice.range;
    rangeReason = choice.reason;
  }

  let widened: CompactionResult['widened'];
  if (range && !strategy.pairSafe) {
    const w = widenToPairs(steps, range);
    if (w.note) {
      widened = { from: range, to: w.range, note: w.note };
      warnings.push(w.note);
      range = w.range;
    }
  }

  // Secrets go before any strategy sees the text, so no cut (OpenHands' middle cut, per-message
  // limits) can leave part of one behind, and every output starts out redacted. With
  // `redactOutputs: false` only a model's input stays redacted; kept steps get their text back.
  const redactOutputs = ctx.redactOutputs !== false;
  const modelRun = range !== null && strategy.kind !== 'deterministic' && ctx.provider !== undefined;
  const redacted = redactOutputs || modelRun ? redactTrajectory(trajectory) : undefined;
  const input = redacted?.trajectory ?? trajectory;

  const sctx: StrategyContext = { counter: ctx.counter, options, rangeSource, signal: ctx.signal, onProgress: ctx.onProgress };
  let output: StrategyOutput;
  let guard: GuardedLlm | undefined;
  let fallbackReason: string | undefined;
  if (!range) {
    warnings.push(`Nothing to compact: ${rangeReason}`);
    output = unchanged(input, strategy.kind === 'deterministic' ? 'deterministic' : ctx.provider ? 'llm' : 'extractive');
  } else if (strategy.kind === 'deterministic' || !ctx.provider) {
    output = await strategy.run(input, range, sctx);
  } else {
    const maxCalls = strategy.maxCalls?.(input, range, options) ?? 1;
    // A dry run against a stand-in model: every request the run will make, for the consent prompt.
    const plan = ctx.confirm ? await planRequests(strategy, input, range, sctx) : undefined;
    if (ctx.signal?.aborted) throw new CompactionCancelled();
    guard = new GuardedLlm(ctx.provider!, ctx, ctx.counter, maxCalls, plan);
    try {
      output = await strategy.run(input, range, { ...sctx, llm: guard });
    } catch (e) {
      if (e instanceof CompactionCancelled || ctx.signal?.aborted) throw e instanceof CompactionCancelled ? e : new CompactionCancelled();
      const reason = (e instanceof ConsentRefused ? e.message : `the model request failed: ${(e as Error).message}`).replace(/\.+$/, '');
      if (!(e instanceof ConsentRefused)) fallbackReason = reason;
      ctx.onProgress?.(`Falling back: ${reason}`);
      output = strategy.fallback
        ? await strategy.fallback(input, range, sctx, reason)
        : await strategy.run(input, range, sctx);
      output.warnings.unshift(`Fell back to ${output.mode === 'extractive' ? 'the extractive mode' : output.mode === 'deterministic' ? 'a deterministic fall-back' : output.mode} because ${reason}.`);
    }
  }
  if (ctx.signal?.aborted) throw new CompactionCancelled();
  if (!redactOutputs && input !== trajectory) output = { ...output, steps: restoreKeptSteps(output.steps, input, trajectory) };

  // The prompt shown is what went out, or what would go out: redacted either way. The count is of
  // the markers it carries, so it is the same number whoever removed the secrets.
  let prompt = guard?.firstPrompt?.messages ?? output.prompt;
  let redactions = guard?.redactions.count ?? 0;
  if (!guard?.firstPrompt && prompt) {
    const found = { count: 0, kinds: {} as Record<string, number> };
    prompt = prompt.map((m) => {
      const r = redactSecrets(m.content);
      markerKinds(r.text, found);
      return { role: m.role, content: r.text };
    });
    redactions += found.count;
  }
  const result = buildResult(redactOutputs ? input : trajectory, strategy, options, output, {
    range, rangeSource, rangeReason, widened,
    warnings: [...warnings, ...output.warnings],
    prompt, promptTool: guard?.firstPrompt?.tool ?? output.promptTool,
    llm: guard && guard.calls > 0 ? guard.usage() : null,
    redactions,
    counter: ctx.counter,
  });
  if (redactOutputs && redacted) result.secretsRemoved = { count: redacted.count, kinds: redacted.kinds };
  if (fallbackReason) result.fallbackReason = fallbackReason;
  return result;
}

function unchanged(trajectory: Run, mode: StrategyOutput['mode']): StrategyOutput {
  return {
    mode,
    steps: trajectory.steps.map((s) => ({ step: s, origin: s.index })),
    fates: trajectory.steps.map(() => 'kept'),
    summary: null,
    prompt: null,
    warnings: [],
  };
}

interface ResultExtras {
  range: StepRange | null;
  rangeSource: 'policy' | 'user';
  rangeReason: string;
  widened?: CompactionResult['widened'];
  warnings: string[];
  prompt: CompactionResult['prompt'];
  promptTool: CompactionResult['promptTool'];
  llm: CompactionResult['llm'];
  redactions: number;
  counter: CompactionContext['counter'];
}

/** Why the result is longer than what went in: a strategy never grows the context silently. */
/** "1,560 of them image tokens before, 0 after, modelled from each image's size (rule)"; undefined without images. */
function imageNote(before: readonly Step[], after: readonly Step[]): string | undefined {
  const rules = imageRulesOf(before);
  if (rules.length === 0) return undefined;
  const sum = (steps: readonly Step[]) => steps.reduce((n, s) => n + imageTokensOf(s), 0).toLocaleString('en-US');
  return `${sum(before)} of them image tokens before, ${sum(after)} after, modelled from each image's size (${rules.join('; ')})`;
}

function growthNote(output: StrategyOutput, before: number[], after: number[], tokensBefore: number, tokensAfter: number): string {
  const madeTokens = output.steps.reduce((n, o, i) => (o.origin === undefined ? n + after[i] : n), 0);
  const replaced = output.fates.reduce((n, f, i) => (f === 'summarized' || f === 'dropped' ? n + before[i] : n), 0);
  const what = madeTokens > 0
    ? `the text the strategy added (${madeTokens} tokens) is longer than the steps it replaced (${replaced} tokens)`
    : 'the placeholders are longer than the outputs they replaced';
  return `The result has more tokens than the original (${tokensBefore} → ${tokensAfter}): ${what}.`;
}

/**
 * Why a summary saved less than the 60% a summary aims for, when it did: the steps the strategy
 * keeps (outside the range, or kept inside it) set a ceiling no summary can pass.
 */
function shortReductionNote(output: StrategyOutput, before: number[], tokensBefore: number, tokensAfter: number): string | undefined {
  if (tokensBefore === 0 || (tokensBefore - tokensAfter) / tokensBefore >= REDUCTION_TARGET) return undefined;
  const kept = output.fates.reduce((n, f, i) => (f === 'kept' ? n + before[i] : n), 0);
  const pct = (x: number) => `${Math.round(x * 100)}%`;
  const ceiling = 1 - kept / tokensBefore;
  return `Reduced by ${pct((tokensBefore - tokensAfter) / tokensBefore)}, under the ${pct(REDUCTION_TARGET)} a summary aims for: ` +
    (ceiling < REDUCTION_TARGET
      ? `the steps kept hold ${kept} of the ${tokensBefore} tokens, so no summary of this range could save more than ${pct(ceiling)}.`
      : `the summary takes ${tokensAfter - kept} tokens for the ${tokensBefore - kept} it replaces.`);
}

/** Renumbers the output steps, relinks tool results, derives turns and counts tokens. */
function buildResult(trajectory: Run, strategy: Strategy, options: StrategyOptions, output: StrategyOutput, x: ResultExtras): CompactionResult {
  const newIndexOf = new Map<number, number>();
  output.steps.forEach((o, i) => { if (o.origin !== undefined) newIndexOf.set(o.origin, i); });
  const steps: Step[] = output.steps.map((o, i) => {
    const step: Step = { ...o.step, index: i, turn: 0 };
    if (step.answers !== undefined) {
      const linked = newIndexOf.get(step.answers);
      if (linked === undefined) delete step.answers;
      else step.answers = linked;
    }
    return step;
  });
  assignTurns(steps);
  const count = (s: Pick<Step, 'kind' | 'text' | 'tool' | 'images' | 'resent'>) => promptTokensOf(s, x.counter);
  const stepTokensBefore = trajectory.steps.map(count);
  const stepTokensAfter = steps.map(count);
  const tokensBefore = stepTokensBefore.reduce((a, b) => a + b, 0);
  const tokensAfter = stepTokensAfter.reduce((a, b) => a + b, 0);
  if (tokensAfter > tokensBefore) x.warnings.push(growthNote(output, stepTokensBefore, stepTokensAfter, tokensBefore, tokensAfter));
  else if (output.summary !== null) {
    const short = shortReductionNote(output, stepTokensBefore, tokensBefore, tokensAfter);
    if (short) x.warnings.push(short);
  }
  const condensed: Run = {
    ...trajectory,
    title: trajectory.title,
    steps,
    meta: withExtra(trajectory.meta, { compactedBy: strategy.id }),
    warnings: [],
    records: steps.length,
  };
  return {
    strategy: strategy.id,
    label: strategy.label,
    mode: output.mode,
    options,
    range: x.range,
    rangeSource: x.rangeSource,
    rangeReason: x.rangeReason,
    widened: x.widened,
    condensed,
    origins: output.steps.map((o) => o.origin ?? null),
    fates: output.fates,
    summary: output.summary,
    tokenizer: x.counter.tokenizer,
    approximateTokens: x.counter.approximate,
    ...(imageNote(trajectory.steps, steps) ? { imageNote: imageNote(trajectory.steps, steps)! } : {}),
    tokensBefore,
    tokensAfter,
    reduction: tokensBefore === 0 ? 0 : (tokensBefore - tokensAfter) / tokensBefore,
    stepTokensBefore,
    stepTokensAfter,
    prompt: x.prompt,
    promptTool: x.promptTool,
    llm: x.llm,
    redactions: x.redactions,
    ...(output.mode === 'extractive' && output.summary !== null && x.range ? withSize(describeSummarySize(strategy, options, trajectory, x.range)) : {}),
    warnings: x.warnings,
  };
}

const withSize = (summarySize: string | undefined) => (summarySize ? { summarySize } : {});
