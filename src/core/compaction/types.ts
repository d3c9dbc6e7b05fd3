// The compaction engine's shapes. A strategy decides what to forget (its policy) and produces the
// condensed step list; the runner (runner.ts) adds everything every strategy shares: range checks,
// redaction, consent, fall-back on model failure, token accounting.

import type { ChatMessage, CompletionRequest, CompletionResult, ModelProvider, ToolSpec } from '../llm/provider';
import type { Step, Run } from '../model';
import type { PriceOverrides } from '../models';
import type { TokenCounter } from '../tokens';

/** Inclusive range of 0-based step indices, as the tree shows them. */
export type StepRange = [number, number];

/** What happened to one step of the original trajectory. */
export type StepFate =
  | 'kept' // in the condensed trajectory, verbatim
  | 'summarized' // removed; its content went into the summary
  | 'masked' // still there, its content replaced by a placeholder
  | 'trimmed' // still there, its content shortened
  | 'dropped'; // removed without being summarized

export type CompactionMode = 'llm' | 'extractive' | 'deterministic';

export type OptionValue = number | boolean | string;

/**
 * One editable setting of a strategy, described for forms (UI) and `--option` (CLI). Every number
 * has its range here, in one place: options.ts checks values against it for the CLI and the extension.
 */
export type OptionSpec =
  | { name: string; type: 'integer' | 'number'; default: number; min: number; max: number; help: string }
  | { name: string; type: 'boolean'; default: boolean; help: string }
  | { name: string; type: 'string'; default: string; help: string; choices?: readonly string[]; maxLength?: number };

export type StrategyOptions = Record<string, OptionValue>;

/** A strategy's own choice of what to compact, with the reason in words. */
export interface PolicyChoice {
  range: StepRange | null;
  reason: string;
}

/** A step of the condensed trajectory: an original step (maybe with new text) or a new one. */
export interface OutputStep {
  step: Omit<Step, 'index' | 'turn'>;
  /** Index of the original step this is, absent for steps the strategy made (the summary). */
  origin?: number;
}

/** What a strategy hands back; the runner turns it into a CompactionResult. */
export interface StrategyOutput {
  mode: CompactionMode;
  steps: OutputStep[];
  /** Fate of every original step (same length as the trajectory's steps). */
  fates: StepFate[];
  summary: string | null;
  /** The messages sent to the model, or that would be sent in LLM mode. */
  prompt: ChatMessage[] | null;
  promptTool?: ToolSpec;
  warnings: string[];
}

/** What the user is shown before anything leaves the machine. */
export interface OutgoingRequest {
  endpoint: string;
  model: string;
  /** Tokens of all the requests the run will make (after redaction), counted with the run's counter. */
  inputTokens: number;
  /** Estimated cost of that request in USD, when the model's price is known. */
  estimatedCostUsd?: number;
  /** The same estimate with the date of the prices it rests on (llm/consent.ts shape). */
  estimatedCost?: { usd: number; pricesAsOf: string };
  /** How many requests the run will make (planned by a dry run; an upper bound when it could not plan). */
  maxCalls: number;
  /** Set when retries could take the run past `maxCalls` requests (budget-schema's shorter-summary attempts). */
  maxRequests?: number;
  /** Secrets replaced before sending. */
  redactions: number;
  redactionKinds: Record<string, number>;
}

export interface CompactionContext {
  counter: TokenCounter;
  provider?: ModelProvider;
  signal?: AbortSignal;
  onProgress?: (message: string) => void;
  onDelta?: (text: string) => void;
  /** Asked once, before the first request. No callback means nothing may be sent. */
  confirm?: (outgoing: OutgoingRequest) => Promise<boolean>;
  /** Price overrides (settings) for the estimate shown in `confirm`. */
  priceOverrides?: PriceOverrides;
  /**
   * Redact secrets in what the run produces (summaries, the condensed trajectory). Default true; false
   * (`--no-redact`) keeps the steps' own text in the outputs. What is sent to a model is redacted always.
   */
  redactOutputs?: boolean;
}

/** What a strategy's `run` receives: the options resolved and, in LLM mode, a guarded model. */
export interface StrategyContext {
  counter: TokenCounter;
  options: StrategyOptions;
  /** Whether the range is the strategy's own choice or the user's (a manual `/compact`, say). */
  rangeSource?: 'policy' | 'user';
  /** Present only in LLM mode; every call is redacted, consented and counted by the runner. */
  llm?: LlmCaller;
  signal?: AbortSignal;
  onProgress?: (message: string) => void;
}

/** The provider as a strategy sees it: requests are redacted and counted on the way out. */
export interface LlmCaller {
  complete(request: Omit<CompletionRequest, 'signal' | 'onDelta'>): Promise<CompletionResult>;
}

export interface Strategy {
  /** Stable id used by the CLI and settings. */
  id: string;
  label: string;
  kind: 'deterministic' | 'llm';
  description: string;
  options: OptionSpec[];
  /** True when the strategy never removes a step (masking), so ranges need no widening. */
  pairSafe?: boolean;
  /**
   * The strategy's own choice of what to compact (the counter is for token-budget triggers).
   * With `forced`, a trigger outside the strategy has already fired (the replay's `--budget`):
   * skip your own trigger and say what you would forget now, or null if nothing at all.
   */
  policy(trajectory: Run, options: StrategyOptions, counter?: TokenCounter, forced?: ForcedTrigger): PolicyChoice;
  /**
   * Model requests one firing makes in a real run, for the whole-run replay's request counts and
   * cost (unlike `maxCalls`, an upper bound for consent). Absent: one for an LLM strategy, none
   * for a deterministic one (`defaultRequestsPerFiring`). `modelFailures` is set when the user
   * asks to count the re-asks a strategy makes when a reply fails its checks.
   */
  requestsPerFiring?(trajectory: Run, range: StepRange, options: StrategyOptions, modelFailures?: boolean): number;
  /**
   * True when the strategy rebuilds its compacted history from the full log before every model
   * request (Katalyst's action trace is re-summarised each step once its trigger holds), rather
   * than compacting once and carrying the result forward. The replay then fires it at every
   * request and counts a summary each time.
   */
  recomputes?: boolean;
  /**
   * For a strategy that reproduces an agent's own compaction: the context size (tokens) at which
   * the agent compacts with these options, and the rule in words (`windowFromLog`: the window is
   * the one the log records). Live follow shows the distance to it for the formats whose adapter
   * names this strategy (`FormatAdapter.compactionTrigger`).
   */
  agentTrigger?(options: StrategyOptions, windowFromLog: boolean): { limit: number; window: number; description: string };
  /**
   * Optional: the policy kept up to date as steps are appended, so a whole-run replay stays
   * O(n log n) even when the trigger fires at every step (masking, Katalyst). `range()` must equal
   * `policy(steps so far).range` exactly. Used only while the replayed history is append-only.
   */
  incrementalPolicy?(options: StrategyOptions, counter?: TokenCounter): IncrementalPolicy;
  /** Compacts `range` (already widened to keep tool pairs whole). */
  run(trajectory: Run, range: StepRange, ctx: StrategyContext): Promise<StrategyOutput>;
  /** Most LLM strategies fall back to their extractive mode; some prescribe something else. */
  fallback?(trajectory: Run, range: StepRange, ctx: StrategyContext, reason: string): Promise<StrategyOutput>;
  /**
   * The size of the summary this strategy writes without a model (its `summary` text), in
   * characters or in tokens as the run's counter counts them: the source's published size, or the
   * `summary_max_chars` option. Every summarising strategy has one; a test holds them to it.
   */
  summaryBudget?(options: StrategyOptions, trajectory: Run, range: StepRange): { chars: number } | { tokens: number };
  /** Upper bound on model requests for one run, shown at consent time. */
  maxCalls?(trajectory: Run, range: StepRange, options: StrategyOptions): number;
}

/** A trigger outside the strategy that has fired: the context holds more than `tokenBudget` tokens. */
export interface ForcedTrigger {
  tokenBudget: number;
}

/** A strategy's policy, fed one step at a time (`step.index` is its position). */
export interface IncrementalPolicy {
  push(step: Step): void;
  /** A step already pushed was changed in place (the replay masked it). */
  changed?(step: Step): void;
  /** What `policy` would choose on the steps pushed so far (with `forced`, as `policy(…, forced)` would). */
  range(forced?: ForcedTrigger): StepRange | null;
}

/** Requests a firing makes when the strategy does not say: one summary for an LLM strategy. */
export function defaultRequestsPerFiring(strategy: Pick<Strategy, 'kind'>): number {
  return strategy.kind === 'llm' ? 1 : 0;
}

export interface LlmUsage {
  baseUrl: string;
  model: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
}

export interface CompactionResult {
  strategy: string;
  label: string;
  mode: CompactionMode;
  options: StrategyOptions;
  /** What was compacted (inclusive, 0-based), or null when there was nothing to do. */
  range: StepRange | null;
  rangeSource: 'policy' | 'user';
  rangeReason: string;
  /** Set when the range was widened so that no tool call is separated from its result. */
  widened?: { from: StepRange; to: StepRange; note: string };
  /** Kept steps plus the summary step, renumbered, turns re-derived. */
  condensed: Run;
  /** For each condensed step, the original index, or null for a step the strategy made. */
  origins: (number | null)[];
  /** Fate of every original step. */
  fates: StepFate[];
  summary: string | null;
  tokenizer: string;
  approximateTokens: boolean;
  tokensBefore: number;
  tokensAfter: number;
  /** What of the tokens images are, before and after, and the rules that modelled them; absent without images. */
  imageNote?: string;
  /** (before − after) / before; 0 when before is 0. */
  reduction: number;
  stepTokensBefore: number[];
  stepTokensAfter: number[];
  prompt: ChatMessage[] | null;
  promptTool?: ToolSpec;
  llm: LlmUsage | null;
  /** Secrets redacted in what was sent to the model (or, offline, in the prompt that would be sent). */
  redactions: number;
  /** Secrets removed from the trajectory before the strategy ran, so from every output; absent with `redactOutputs: false`. */
  secretsRemoved?: { count: number; kinds: Record<string, number> };
  /** Set when a model was asked for and failed (or sent an unusable reply), so the result is the strategy's fall-back: why, in words. Not set when consent was refused. */
  fallbackReason?: string;
  /** How a summary written without a model was sized, in words (`Written without a model within 39,707 characters: summary_share 0.1 of …`). */
  summarySize?: string;
  warnings: string[];
}

/** Thrown when the user cancels; never turned into a fall-back. */
export class CompactionCancelled extends Error {
  constructor() {
    super('Compaction was cancelled.');
    this.name = 'CompactionCancelled';
  }
}
