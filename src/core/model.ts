// The one normalized shape that every log format maps into and every strategy reads.
// Plain data only: it crosses worker threads, the CLI's JSON and the webview unchanged.

export type StepKind =
  | 'system'
  | 'user'
  | 'assistant'
  | 'thought'
  | 'tool_call'
  | 'tool_result'
  | 'compaction'
  /** A message a client or harness injected with the user role (a notification, a reminder, tool feedback): not the person's turn. */
  | 'environment'
  | 'other';

export const STEP_KINDS: readonly StepKind[] = [
  'system', 'user', 'assistant', 'thought', 'tool_call', 'tool_result', 'compaction', 'environment', 'other',
];

interface ToolCall {
  name: string;
  /** Arguments as the model wrote them: usually a JSON string, sometimes plain text (bash blocks). */
  args: string;
  callId?: string;
  /** The action that closes the run (OpenHands `finish`): no result answers it, by design. */
  expectsNoResult?: true;
  /** The log says the call never ran to a result: its reply was aborted (pi `stopReason: "aborted"`). */
  interrupted?: true;
}

/** Usage as the provider recorded it in the log; never computed by us. */
export interface RecordedUsage {
  model?: string;
  /** The whole prompt: uncached input, cache reads and cache writes together. */
  inputTokens?: number;
  outputTokens?: number;
  /** The part of the prompt read from the provider's prompt cache (cache reads). */
  cachedInputTokens?: number;
  /** The part of the prompt written to the prompt cache (Anthropic `cache_creation_input_tokens`). */
  cacheWriteTokens?: number;
  /** The part of `cacheWriteTokens` written with the 1-hour lifetime (Anthropic `ephemeral_1h_input_tokens`; billed at 2× input). */
  cacheWrite1hTokens?: number;
  /** `cachedInputTokens` holds cache reads and cache writes together, unsplit (Cline's per-message metrics on Anthropic). */
  cachedIncludesWrites?: boolean;
  cost?: number;
}

/** Usage that counts tokens in or out: all-zero usage (a client that fills the fields with 0) records none. */
export function recordsTokens(u: RecordedUsage): boolean {
  return (u.inputTokens ?? 0) > 0 || (u.outputTokens ?? 0) > 0;
}

/** Where a step came from in the file, for "Reveal in Source". */
export interface SourceLocation {
  /** 1-based line of a JSONL record or a text block. */
  line?: number;
  /** JSON Pointer (RFC 6901) to the element inside a single JSON document, resolved lazily. */
  pointer?: string;
  /** The file the record is in, when it is not the run's own (a subagent's file read beside it). */
  file?: string;
}

interface CompactionInfo {
  /** Source ids of the events the compaction says it forgot, when the log lists them. */
  forgottenIds?: string[];
  /** Inclusive range of source ids (OpenHands `forgotten_events_start_id`/`end_id`). */
  forgottenRange?: [string, string];
  summary?: string;
  trigger?: string;
  tokensBefore?: number;
}

/**
 * The label of a `thought` step that is text the agent showed the person between its calls
 * (Anthropic's text blocks, a chat reply's content beside its tool_calls, ATIF's message beside
 * tool_calls), not its hidden reasoning. Summaries read such text as the agent's own words.
 */
export const SHOWN_TEXT_LABEL = 'text';

/** A thought the person saw (see `SHOWN_TEXT_LABEL`); a copied-context suffix (`text (copied context)`) keeps it one. */
export function isShownText(step: Pick<Step, 'kind' | 'label'>): boolean {
  return step.kind === 'thought' && (step.label === SHOWN_TEXT_LABEL || (step.label?.startsWith(`${SHOWN_TEXT_LABEL} (`) ?? false));
}

export interface Step {
  /** Position in `Run.steps`, 0-based. */
  index: number;
  /** The id the log itself gives the event or message, if any. */
  sourceId?: string;
  kind: StepKind;
  /** What the model saw, as text. */
  text: string;
  /** A short label for the event type as the log names it (`run`, `CmdRunAction`, `function_call`). */
  label?: string;
  /** Set on `tool_call` steps. */
  tool?: ToolCall;
  /** On `tool_result` steps: the index of the tool_call step this answers. */
  answers?: number;
  /** Tool name on results too, so per-tool accounting needs no lookup. */
  toolName?: string;
  /** Index of the turn this step belongs to; derived by `deriveTurns`. */
  turn: number;
  timestamp?: string;
  usage?: RecordedUsage;
  location?: SourceLocation;
  compaction?: CompactionInfo;
  /** True for observations the log marks as errors. */
  isError?: boolean;
  /**
   * The person stopped the agent here (Esc, a refused call: Claude Code's `[Request interrupted by
   * user]`, Codex's `turn_aborted`, OpenHands' `InterruptEvent`), as the log marks it.
   */
  interruption?: true;
  /**
   * Context the client rebuilds at the head of its history on every request and after a
   * compaction (Codex's session prefix: AGENTS.md, user instructions, the environment context), as
   * its adapter knows it. A compaction that rebuilds it (codex-compact) keeps it.
   */
  sessionPrefix?: true;
  /**
   * On `tool_call` steps: a call the client made itself, after the model's reply, not one the model
   * sent (Aider's auto-commit of its edits, a command Aider runs once the person agrees). It is no
   * model request and no model output.
   */
  byClient?: true;
  /**
   * On `tool_call` steps: the index of an earlier call whose process this one reads or writes to
   * (Codex's `write_stdin` to the session an `exec_command` left running, by the session id its
   * result named). Its result is more of that call's output.
   */
  continues?: number;
  /** On command results: the exit status the log records in a field of its own (not in the text). */
  exitCode?: number;
  /** Name of the side branch (a subagent) the step belongs to; absent for the main line. */
  branch?: string;
  /**
   * The model that produced this step, when the log names it per message or call (subagents,
   * `/model` switches, mixed-model runs); `meta.model` is only the run's main model.
   */
  model?: string;
  /**
   * Context the log records again although each request holds it once (Copilot CLI logs its system
   * prompt before every request): shown where the log has it, no tokens added to the prompt.
   */
  resent?: true;
  /**
   * Images the step carried (a pasted screenshot, a browser tool's capture). Their text is a
   * placeholder (`[image]`); what they cost the prompt is modelled from their size (tokens/imageTokens.ts).
   */
  images?: StepImage[];
}

/** Modelled prompt tokens of a step's images (0 for a step without any). */
export function imageTokensOf(step: Pick<Step, 'images'>): number {
  if (!step.images) return 0;
  let n = 0;
  for (const image of step.images) n += image.tokens ?? 0;
  return n;
}

/** An image as the log recorded it, with the tokens the loader models for it. */
export interface StepImage {
  /** The media type the log names (`image/png`). */
  mediaType?: string;
  /** Pixel size, read from the image's own header; absent when the log holds only a URL or a path. */
  width?: number;
  height?: number;
  /** OpenAI's `detail` (`low`, `high`, `auto`) where the request set it. */
  detail?: string;
  /** Modelled prompt tokens for the model that was sent the image (set by the loader). */
  tokens?: number;
  /** The rule `tokens` follows, in words (for the views' "modelled" notes). */
  rule?: string;
}

export interface Warning {
  message: string;
  line?: number;
  offset?: number;
}

export interface TrajectorySource {
  path: string;
  size: number;
  modified?: number;
}

/**
 * What a log says about its run. Every field some code reads is declared here; whatever else an
 * adapter keeps (a working folder, a trace id, a record's other fields) goes in `extra`, a table
 * with a null prototype (names from the log; `setExtra`), shown and exported but never relied on.
 */
export interface TrajectoryMeta {
  /** The agent that wrote the log (`claude-code`, `OpenHands`, …). */
  agent?: string;
  model?: string;
  /** Usage and cost the log records for the whole run. */
  recorded?: RecordedUsage;
  /** `recorded` split by model, each part naming its model, where the log gives the split (Copilot CLI's shutdown metrics): each part is priced at its own model. */
  recordedByModel?: RecordedUsage[];
  /**
   * Where `recorded` covers only the run's first `steps` steps (a Copilot session resumed after its
   * last shutdown): how many, and why, in words.
   */
  recordedPart?: { steps: number; why: string };
  /**
   * Where `recorded` holds more model calls than the log shows one by one (a rollout that kept only
   * its last usage record): the fewest calls the totals can hold, and how the log says so.
   */
  recordedCallsAtLeast?: { calls: number; why: string };
  /** The session this one was forked from, by the id its log gives (Codex `forked_from_id`). */
  forkedFrom?: string;
  /**
   * Tokens every request carries that the log records the size of but not the text (the system
   * prompt and the tool definitions; Copilot CLI's `session.shutdown` counts them), and where it
   * says so. The replay adds them to each request when no per-call usage calibrates it.
   */
  unshownPrompt?: { tokens: number; from: string };
  /** The agent's own session id. */
  sessionId?: string;
  /** The agent's version, and a CLI version where the log names both (Codex). */
  version?: string;
  cliVersion?: string;
  /** When the run started, as the log wrote it. */
  startTime?: string;
  /** The model's context window where the log records it (Codex), in tokens. */
  contextWindow?: number;
  /** The provider's prompt-cache lifetime the run asked for (`24h`), for the replay's cache. */
  promptCacheRetention?: string;
  /** Where the log states that lifetime (formats/cacheRetention.ts). */
  promptCacheRetentionFrom?: string;
  /** Model requests the agent counted (SWE-agent, mini-SWE-agent). */
  apiCalls?: number;
  /** How the agent says it stopped (`submitted`, `exit_cost`, …). */
  exitStatus?: string;
  /** Where in a JSON document the trajectory was found, when it was not the root (the loader's). */
  jsonPath?: string;
  /** A run of a file of many runs: its position, the task, and how it scored (`formats/runMeta.ts`). */
  runIndex?: number;
  instanceId?: string;
  taskId?: string;
  task?: string;
  /** A number, a pass/fail, or per-metric scores. */
  reward?: number | boolean | Record<string, unknown>;
  score?: number | boolean | Record<string, unknown>;
  resolved?: boolean;
  feedback?: string;
  trial?: number;
  /** The run failed with this message. */
  error?: string;
  /** The run's record's other plain fields (shown in the tree's tooltip; null prototype). */
  recordFields?: Record<string, string | number | boolean>;
  /** An ATIF document's own fields beside its steps, for a faithful round trip (`formats/atif.ts`). */
  atif?: Record<string, unknown>;
  /** Per-step ATIF fields the model has no place for, by step id (`AtifStepStash`). */
  atifSteps?: Record<string, unknown>;
  /** The ATIF document was a variant (another version, `{id, name}` calls): written back fresh. */
  atifVariant?: boolean;
  /** Everything else the adapter kept, by the log's own names (null prototype). */
  extra?: Record<string, unknown>;
}

/** Stable lowercase format ids; they appear in `stats --json` and must never change. */
export type FormatId = string;

/**
 * What the reader made of the file's records, so a user knows what it did not understand: records
 * that became steps, records that did not (by type), and calls and results left unpaired.
 */
export interface Coverage {
  /** Top-level records (as `TrajectoryFile.records`). */
  records: number;
  /** Records at least one step came from. */
  read: number;
  /** Records no step came from, by the type the reader gave them or, failing that, their own. */
  skipped: Record<string, number>;
  /** How many of the skipped records the reader named on purpose (metadata, duplicates, bookkeeping). */
  named: number;
  /** Tool calls no result answers. */
  unpairedCalls: number;
  /** Calls after which the log holds no result and no word of the person: it ends before they are answered. */
  pendingCalls?: number;
  /** Calls without a result that the log says were cut off: an aborted or failed reply, or a compaction right after them. */
  interruptedCalls?: number;
  /** Tool results that answer no call. */
  unpairedResults: number;
  /** Steps that do not say which record they came from, so their records cannot be counted. */
  unlocatedSteps: number;
  /** Subagent files the log names (`open/subagentFiles.ts`): how many were read beside it, and which were not. */
  subagentFiles?: { read: number; notRead: { path: string; why: string }[] };
}

/** One run: what one agent did from its first step to its last. It never holds other runs. */
export interface Run {
  format: FormatId;
  title: string;
  source: TrajectorySource;
  steps: Step[];
  meta: TrajectoryMeta;
  warnings: Warning[];
  /** Top-level records in the file: lines, array items, event files, or runs. */
  records: number;
  /** Set by the loader on every open; absent on runs built in memory. */
  coverage?: Coverage;
  /** Subagent files the log names, until the loader has read them into branches (`open/subagentFiles.ts`). */
  subagentFiles?: SubagentFileRef[];
}

/**
 * A file a log names as holding a subagent's steps (Claude Code 2.1's `<session>/subagents/agent-<id>.jsonl`,
 * an ATIF `subagent_trajectory_ref` with a `trajectory_path`). The adapter says where; the loader reads it.
 */
export interface SubagentFileRef {
  /** Where the file may be, relative to the log's folder, first match wins ('/'-separated, never absolute). */
  paths: string[];
  /** The branch its steps go on (the agent id the log gives). */
  branch: string;
  /** The call that started the subagent: its steps go right before that call's result. */
  callId?: string;
  /** Or the step that names the file: its steps go right after it. */
  after?: Step;
  /** Whether the usage the log records for the whole run already counts the subagent's (ATIF final metrics do). */
  usageInRun: boolean;
}


/**
 * A file that holds one or more runs, never nested: a file of one run is `runs: [run]`. What the
 * file records as a whole (its records, coverage, reading warnings, recorded total) sits here once.
 */
export interface TrajectoryFile {
  /**
   * The file is a list of runs (an evaluation output, a folder of trials), even when it lists one:
   * such runs are shown and named one by one (`FILE#N`). A file of one agent's run has it false.
   */
  holdsRuns: boolean;
  source: TrajectorySource;
  format: FormatId;
  title: string;
  /** Top-level records in the file: lines, array items, event files, or runs. */
  records: number;
  coverage?: Coverage;
  warnings: Warning[];
  meta: TrajectoryMeta;
  runs: Run[];
}

export interface Turn {
  index: number;
  /** Inclusive step range. */
  start: number;
  end: number;
}
