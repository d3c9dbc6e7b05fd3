// The before/after report as plain JSON: everything the panel and the HTML file show, computed
// once here so that both render the same numbers and the webview only has to draw them.

import { findStrategy, STRATEGIES } from '../compaction';
import { cleanText, contextTextOf } from '../compaction';
import type { CompactionMode, CompactionResult, OptionSpec, StepFate, StrategyOptions } from '../compaction';
import type { Step, StepKind, Run } from '../model';
import { costOf, priceFor, runDate, type PriceOverrides } from '../models';
import { charEstimateCounter, type TokenCounter } from '../tokens';
import { kindLabel, stepLabel, stepPreview } from '../view/stepPresentation';
import { forgottenEntities, type EntityKind, type Where } from './entities';
import { billRun, replay, type ReplayResult } from '../simulate';
import type { RunBill } from '../pricing/runCost';
import type { CacheBehaviour } from '../pricing/promptCache';

const REPORT_VERSION = 1;

/** How much forgotten text the report carries; the diff editor shows all of it. */
const FORGOTTEN_STEP_CHARS = 4000;
const FORGOTTEN_TOTAL_CHARS = 400_000;
const PREVIEW_CHARS = 120;

export interface ReportOptions {
  /** The model whose price and context the costs are for (default: the log's own model). */
  model?: string;
  priceOverrides?: PriceOverrides;
  /** The counter the results were counted with; policies that count tokens need it in the replay. */
  counter?: TokenCounter;
  /** Replay settings per report; `false` leaves the replay out. */
  replay?: false | ReplaySettings;
  /** What the panel can do beyond showing (the HTML file can only copy). */
  actions?: Partial<ReportActions>;
  /** ISO time of the report, for reproducible output in tests. */
  generatedAt?: string;
  /** Redact secrets in the report file (default true; `--no-redact`, setting `agentTraceLens.redactOutputs`). */
  redact?: boolean;
}

/** What the user set for the whole-run replay (each absent: the strategy's or the model's own). */
export interface ReplaySettings {
  summaryRatio?: number;
  tokenBudget?: number;
  /** The prompt cache behaviour to bill by (the `agentTraceLens.cache` setting, `--cache`). */
  cache?: CacheBehaviour;
}

interface ReportActions {
  diff: boolean;
  copy: boolean;
  save: boolean;
  rerun: boolean;
  /** Open the prompt that was sent (or, offline, would be sent) in an editor. */
  prompt: boolean;
}

export interface BarRow {
  key: string;
  label: string;
  before: number;
  after: number;
}

export interface StepRow {
  index: number;
  kind: StepKind;
  label: string;
  preview: string;
  tokensBefore: number;
  /** Tokens in the condensed context (0 when the step is gone). */
  tokensAfter: number;
  fate: StepFate;
  inRange: boolean;
}

interface ForgottenStep {
  index: number;
  label: string;
  fate: StepFate;
  tokens: number;
  text: string;
  truncated: boolean;
}

export interface EntityRow {
  text: string;
  kind: EntityKind;
  /** What the run did with it (`edited`, `exit 1`, `failing`, …). */
  detail?: string;
  kept: boolean;
  where: Where;
  neededLater: boolean;
  laterStep?: number;
  mentions: number;
  firstStep: number;
}

interface Headline {
  tokensBefore: number;
  tokensAfter: number;
  saved: number;
  reduction: number;
  tokenizer: string;
  approximate: boolean;
  /** Where the steps carried images: their modelled tokens before and after, and the rule, in words; null without images. */
  imageNote: string | null;
  stepsBefore: number;
  stepsAfter: number;
  mode: CompactionMode;
  /** `LLM (gpt-4o-mini)`, `extractive (no model)`, `deterministic`. */
  modeLabel: string;
  /** Input cost of one model call with the context before and after, when the model's price is known (uncached list price; not shown). */
  cost: { model: string; priceRow: string; pricesAsOf: string; perCallBefore: number; perCallAfter: number } | null;
  /** The run's one cost as it happened, the figure every view shows (recorded first). */
  bill: RunBill;
}

export interface ResultView {
  strategy: string;
  label: string;
  options: StrategyOptions;
  headline: Headline;
  range: { start: number; end: number } | null;
  rangeSource: 'policy' | 'user';
  rangeReason: string;
  widenedNote: string | null;
  warnings: string[];
  byKind: BarRow[];
  byTool: BarRow[];
  steps: StepRow[];
  forgotten: ForgottenStep[];
  /** True when the forgotten list was cut to keep the report small. */
  forgottenCut: boolean;
  summary: string | null;
  summaryTokens: number;
  /** How a summary written without a model was sized, in words; null for a model's summary or none. */
  summarySize: string | null;
  /** Whether the strategy built a prompt (LLM strategies, also offline), so "Show prompt" applies. */
  hasPrompt: boolean;
  entities: EntityRow[];
  /** `lostNeeded`: lost and met again after the range — the headline loss. */
  entityCounts: { kept: number; lost: number; inSummary: number; inContext: number; lostNeeded: number };
  replay: ReplayResult | null;
  llm: CompactionResult['llm'];
}

interface StrategyChoice {
  id: string;
  label: string;
  kind: 'deterministic' | 'llm';
  options: OptionSpec[];
}

export interface ReportViewModel {
  version: typeof REPORT_VERSION;
  title: string;
  source: { path: string; format: string; steps: number };
  generatedAt: string;
  actions: ReportActions;
  strategies: StrategyChoice[];
  replaySettings: ReplaySettings;
  /** The run's one cost as it happened (the same in the tooltip, status bar, Survey and CLI). */
  bill: RunBill;
  results: ResultView[];
}

export function buildReport(results: readonly CompactionResult[], trajectory: Run, opts: ReportOptions = {}): ReportViewModel {
  const replaySettings = opts.replay === false ? {} : opts.replay ?? {};
  const bill = billRun(trajectory, { overrides: opts.priceOverrides ?? {} });
  const withBill = { ...opts, bill };
  return {
    version: REPORT_VERSION,
    title: trajectory.title,
    source: { path: trajectory.source.path, format: trajectory.format, steps: trajectory.steps.length },
    generatedAt: opts.generatedAt ?? new Date().toISOString(),
    actions: { diff: false, copy: true, save: false, rerun: false, prompt: false, ...opts.actions },
    strategies: STRATEGIES.map((s) => ({ id: s.id, label: s.label, kind: s.kind, options: s.options })),
    replaySettings,
    bill,
    results: results.map((r) => resultView(r, trajectory, withBill)),
  };
}

function resultView(r: CompactionResult, trajectory: Run, opts: ReportOptions & { bill?: RunBill }): ResultView {
  const steps = trajectory.steps;
  const inRange = (i: number) => r.range !== null && i >= r.range[0] && i <= r.range[1];
  const afterOf = new Map<number, number>();
  r.origins.forEach((o, i) => { if (o !== null) afterOf.set(o, r.stepTokensAfter[i]); });
  const summaryTokens = r.origins.reduce<number>((n, o, i) => (o === null ? n + r.stepTokensAfter[i] : n), 0);
  const entities = forgottenEntities(trajectory, r);
  const kept = entities.filter((e) => e.kept).length;
  const count = (f: (e: (typeof entities)[number]) => boolean) => entities.filter(f).length;
  return {
    strategy: r.strategy,
    label: r.label,
    options: r.options,
    headline: headline(r, trajectory, opts),
    range: r.range ? { start: r.range[0], end: r.range[1] } : null,
    rangeSource: r.rangeSource,
    hasPrompt: r.prompt !== null && r.prompt.length > 0,
    rangeReason: r.rangeReason,
    widenedNote: r.widened?.note ?? null,
    // The widening has its own line in the report; listing it again as a warning says it twice.
    warnings: r.warnings.filter((w) => w !== r.widened?.note),
    byKind: byKind(steps, r),
    byTool: byTool(steps, r),
    steps: steps.map((s) => ({
      index: s.index,
      kind: s.kind,
      label: stepLabel(s),
      preview: stepPreview(s, PREVIEW_CHARS),
      tokensBefore: r.stepTokensBefore[s.index] ?? 0,
      tokensAfter: afterOf.get(s.index) ?? 0,
      fate: r.fates[s.index] ?? 'kept',
      inRange: inRange(s.index),
    })),
    ...forgottenSteps(steps, r),
    summary: r.summary,
    summaryTokens,
    summarySize: r.summarySize ?? null,
    entities: entities.map((e) => ({
      text: e.text, kind: e.kind, ...(e.detail ? { detail: e.detail } : {}), kept: e.kept, where: e.where, neededLater: e.neededLater,
      ...(e.laterStep !== undefined ? { laterStep: e.laterStep } : {}), mentions: e.mentions, firstStep: e.firstStep,
    })),
    entityCounts: {
      kept, lost: entities.length - kept, inSummary: count((e) => e.where === 'summary'), inContext: count((e) => e.where === 'context'),
      lostNeeded: count((e) => !e.kept && e.neededLater),
    },
    replay: opts.replay === false ? null : replayFor(r, trajectory, opts),
    llm: r.llm,
  };
}

function headline(r: CompactionResult, trajectory: Run, opts: ReportOptions & { bill?: RunBill }): Headline {
  const model = opts.model ?? r.llm?.model ?? trajectory.meta.model;
  const price = priceFor(model, opts.priceOverrides, runDate(trajectory.steps));
  const perCall = (tokens: number) => (price ? costOf({ input: tokens, output: 0 }, price).total : 0);
  return {
    tokensBefore: r.tokensBefore,
    tokensAfter: r.tokensAfter,
    saved: r.tokensBefore - r.tokensAfter,
    reduction: r.reduction,
    tokenizer: r.tokenizer,
    approximate: r.approximateTokens,
    imageNote: r.imageNote ?? null,
    stepsBefore: trajectory.steps.length,
    stepsAfter: r.condensed.steps.length,
    mode: r.mode,
    modeLabel: modeLabel(r),
    cost: price && model
      ? { model, priceRow: price.matched, pricesAsOf: price.undated ? `${price.asOf}, today's: the log records no date` : price.asOf, perCallBefore: perCall(r.tokensBefore), perCallAfter: perCall(r.tokensAfter) }
      : null,
    bill: opts.bill ?? billRun(trajectory, { overrides: opts.priceOverrides ?? {} }),
  };
}

function modeLabel(r: Pick<CompactionResult, 'mode' | 'llm'>): string {
  if (r.mode === 'llm') return r.llm ? `LLM (${r.llm.model})` : 'LLM';
  if (r.mode === 'extractive') return 'extractive (no model)';
  return 'deterministic';
}

const KIND_ORDER: readonly StepKind[] = ['system', 'user', 'assistant', 'thought', 'tool_call', 'tool_result', 'compaction', 'environment', 'other'];

function byKind(steps: readonly Step[], r: CompactionResult): BarRow[] {
  const before = new Map<StepKind, number>();
  const after = new Map<StepKind, number>();
  steps.forEach((s, i) => before.set(s.kind, (before.get(s.kind) ?? 0) + (r.stepTokensBefore[i] ?? 0)));
  r.condensed.steps.forEach((s, i) => after.set(s.kind, (after.get(s.kind) ?? 0) + (r.stepTokensAfter[i] ?? 0)));
  return KIND_ORDER.filter((k) => before.has(k) || after.has(k)).map((k) => ({
    key: k,
    label: k === 'compaction' ? 'summaries' : k === 'tool_call' ? 'tool calls' : k === 'tool_result' ? 'observations' : kindLabel(k),
    before: before.get(k) ?? 0,
    after: after.get(k) ?? 0,
  }));
}

function toolOf(s: Step): string | undefined {
  return s.kind === 'tool_call' ? s.tool?.name : s.kind === 'tool_result' ? s.toolName : undefined;
}

function byTool(steps: readonly Step[], r: CompactionResult): BarRow[] {
  const rows = new Map<string, BarRow>();
  const row = (name: string) => rows.get(name) ?? rows.set(name, { key: name, label: name, before: 0, after: 0 }).get(name)!;
  steps.forEach((s, i) => { const t = toolOf(s); if (t) row(t).before += r.stepTokensBefore[i] ?? 0; });
  r.condensed.steps.forEach((s, i) => { const t = toolOf(s); if (t) row(t).after += r.stepTokensAfter[i] ?? 0; });
  return [...rows.values()].sort((a, b) => b.before - a.before || a.key.localeCompare(b.key));
}

function forgottenSteps(steps: readonly Step[], r: CompactionResult): { forgotten: ForgottenStep[]; forgottenCut: boolean } {
  const forgotten: ForgottenStep[] = [];
  let budget = FORGOTTEN_TOTAL_CHARS;
  let cut = false;
  for (const s of steps) {
    const fate = r.fates[s.index];
    if (!fate || fate === 'kept') continue;
    if (budget <= 0) { cut = true; break; }
    // As a terminal shows it: colour codes and bracketed-paste switches (`ESC[?2004l`) are not text to read.
    const full = cleanText(contextTextOf(s));
    const max = Math.min(FORGOTTEN_STEP_CHARS, budget);
    const text = full.length > max ? full.slice(0, max) : full;
    budget -= text.length;
    forgotten.push({ index: s.index, label: stepLabel(s), fate, tokens: r.stepTokensBefore[s.index] ?? 0, text, truncated: text.length < full.length });
  }
  return { forgotten, forgottenCut: cut };
}

/** The whole-run replay for one result, with the report's replay settings (null for an unknown strategy). */
export function replayFor(r: CompactionResult, trajectory: Run, opts: ReportOptions): ReplayResult | null {
  const strategy = findStrategy(r.strategy);
  if (!strategy) return null;
  const settings = opts.replay === false ? {} : opts.replay ?? {};
  const model = opts.model ?? trajectory.meta.model;
  return replay(trajectory, {
    strategy,
    options: r.options,
    counter: opts.counter ?? charEstimateCounter,
    stepTokens: r.stepTokensBefore,
    sample: r,
    summaryRatio: settings.summaryRatio,
    tokenBudget: settings.tokenBudget,
    cache: settings.cache,
    price: priceFor(model, opts.priceOverrides, runDate(trajectory.steps)),
    model,
  });
}
