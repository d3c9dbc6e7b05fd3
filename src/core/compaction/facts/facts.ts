// The extractive fact layer: a run read as a debugger would read it. Every summarising strategy
// fills its offline sections from these facts, and the loss report takes its entities from them.

import { isShownText, type Step, type Run } from '../../model';
import { addedLines, carriesPatch, classifyCall, onlyPatch, returnsFinding, commandEffect, shellList, shellSegments, withoutHeredocBodies, type CallInfo, type CommandEffect, type EditAction } from './calls';
import { shellBanners, withoutBanners, withoutEcho } from './banners';
import { ciErrorsOf } from './diagnostics';
import { bounded, headAndTail, paragraph, unique } from './hygiene';
import { editOutcome, errorOf, openingError, refusedCall, reportOpening, shellComplaintOf, exitCodeOf, furtherErrorsOf, isTestCommand, firstOutputLine, listingOf, pathListOf, readGist, recordLineOf, someOutputLine, tellingOutputLine, testRun, twoLineOutput, type ErrorFact, type Outcome } from './outcomes';
import { decisionsOf, droppedFinished, summaryOf, taskToolPlan, todosOf, type SummaryFact, type TodoItem } from './plans';
import { answerText, ASK_TOOLS, constraintsOf, promptRepeat, promptText, type PromptText, requestText, slashRequest, taskOf, typedIntoPrompt, userRefsOf, type UserRef } from './requests';
import { answersNo, verdictOf } from './verdict';
import { nameTable } from '../../names';
import { contextTextOf } from '../text';
import { closingStatementOf, statementsOf } from './agentText';
import { bearingLinesOf, requestTerms, termsWrittenBy } from './bearing';
import { gitStatusGist } from './gitStatus';
import { excerptsOf, type Excerpt } from './excerpts';
import { settingsOf } from './fileSettings';

export type { TodoItem };

interface TextFact {
  step: number;
  text: string;
}

/** A request; one that is an earlier request's prompt again says only what changed (`promptRepeat`). */
interface RequestFact extends TextFact {
  /** The earlier step whose prompt this request repeats. */
  repeats?: number;
}

interface ReadFact extends TextFact {
  /** What the read showed first (`defmodule Spotter.Services.SessionRegistry do`), when it went through. */
  gist?: string;
  /** The read was refused or failed: the file was not read (`filesRead` leaves it out). */
  failed?: true;
}

export interface EditFact {
  step: number;
  file: string;
  action: EditAction;
  tool: string;
  outcome: Outcome;
  /** Why a failed edit failed, when its result says. */
  error?: string;
  /** The first lines it put into the file that were not there (`option(BUILD_TESTS "Build tests" OFF)`). */
  added?: string[];
}

export interface CommandFact {
  step: number;
  /** The command as one line, bounded at a word end. */
  command: string;
  /** The same with more room, for telling apart long scripts that begin alike (the loss report). */
  longCommand: string;
  /** The whole command as one line (a heredoc's body too, up to 2,000 characters): which command it is, when two differ only past `longCommand`. */
  wholeCommand: string;
  exitCode?: number;
  /** `exit 0`, `exit 1: ModuleNotFoundError: …`, `→ 344`, `no output`, `no result in the log`. */
  outcome: string;
  ok?: boolean;
  /** Whether it only looked (`cat`, `rg`, `git show`), changed files, the repository or the environment, or ran something. */
  effect: CommandEffect;
  /** The harness refused it before it ran (the person declined it, its permission request failed). */
  refused?: true;
  /** The commit or push it recorded (`[main b05d732] Fix the parser`). */
  recorded?: string;
  /** What the shell itself complained of while the command went through (`zsh:1: command not found: av-44n`): not a failure, but the command did not run as written. */
  shellSaid?: string;
  /** An apply_patch envelope and nothing else (Codex's editor run through the shell): an edit, whose files are the edits' own. */
  onlyPatch?: true;
}

/** `closing`: the answer a closing call carried (attempt_completion); `before`: the message it stood in front of. */
interface AgentMessage extends TextFact { between?: true; closing?: true; before?: AgentMessage }

export interface TestFact {
  step: number;
  command: string;
  outcome: string;
  failing: string[];
  passing: string[];
  ok?: boolean;
}

/** How one call ended, for every call whose result the log holds, whatever the tool. */
interface CallOutcome {
  step: number;
  tool: string;
  /** What it was aimed at, for a call that is not a command, an edit or a read: a link, its own description, a query. */
  target?: string;
  kind: CallInfo['kind'];
  /** true failed, false went through, undefined: the log does not say. */
  failed?: boolean;
  /** The error it reported, else the first line it returned. */
  said?: string;
}

/** Lines a result showed that name the person's own terms (a file's `def get_ticket(ticket_id)`). */
interface BearingFact {
  step: number;
  /** Where they were shown: the file read, the command, or the tool. */
  source: string;
  lines: string[];
}

interface PlanFact {
  step: number;
  tool: string;
  items: TodoItem[];
  /** Items an earlier list of the tool finished and this one dropped (`droppedFinished`): done, not on the list. */
  finishedEarlier?: TodoItem[];
}

export interface Facts {
  /** The first real request of the whole run, whether or not it lies in the steps read. */
  task?: TextFact;
  /** Real requests among the steps read, the task included when it is one of them. */
  requests: RequestFact[];
  constraints: TextFact[];
  userRefs: (UserRef & { step: number })[];
  edits: EditFact[];
  commands: CommandFact[];
  tests: TestFact[];
  /** Every error each time it was seen; renderers fold repeats with a count. */
  errors: ErrorFact[];
  /** The other errors a failed call reported besides the one in `errors` (ranked below them). */
  moreErrors: ErrorFact[];
  reads: ReadFact[];
  decisions: TextFact[];
  /** The latest to-do list or plan among the steps read. */
  plan?: PlanFact;
  /** Summaries earlier compactions left among the steps read, carried forward whole. */
  summaries: SummaryFact[];
  /** How each call with a result ended, in order. */
  outcomes: CallOutcome[];
  /** Calls among the steps read that never got a result. */
  pendingCalls: TextFact[];
  /** `between`: text shown between calls, standing in where the steps hold no message of the agent's own. */
  lastAgentMessage?: AgentMessage;
  /** What the agent told the person at the end of each of its turns among the steps read (the last message aside). */
  replies: TextFact[];
  /**
   * What the agent stated (not what it meant to do) in the messages it wrote between its calls, and
   * how any long message of its ended (`closing`: "Still waiting on the green curry poem.").
   */
  notes: (TextFact & { closing?: true })[];
  bearing: BearingFact[];
  /** What configuration files read set (`communication_language: French`), the file as `source`. */
  settings: BearingFact[];
  toolCounts: Record<string, number>;
  stepCount: number;
  /** Characters of the steps read, as the model sees them: what a summary of them replaces. */
  replacedChars: number;
  /** Characters of the run's other steps: what stays beside the summary. */
  keptChars: number;
  /**
   * Lines of the steps read quoted as they stand, scored (excerpts.ts): what fills the room a
   * summary has left last. Read when first asked for: the loss report and the chunk digests never ask.
   */
  readonly excerpts: Excerpt[];
  /** First and last index read, for "steps a–b". */
  span?: [number, number];
}
const COMMAND_CHARS = 120;
const CHANGE_COMMAND_CHARS = 200;

/** One command as a summary names it: a single line, bounded at a word end. */
function commandText(command: string, max = COMMAND_CHARS): string {
  // A heredoc's body is data: the command is its first line. The folder it runs in is told by its
  // last two parts, so the line's room goes to what ran there.
  const text = shortWorkdir(withoutHeredocBodies(command, ' …'));
  const line = bounded(text, max);
  // A long absolute path that took the line's room (`python3 […]`) is told by its last two parts:
  // `python3 …/scripts/publish_session.py <id>`.
  if (line.length >= max * 0.4 || !line.endsWith('[…]')) return line;
  return bounded(text.replace(LONG_PATH, (path) => `…/${path.split('/').slice(-2).join('/')}`), max);
}

const LONG_PATH = /(?<=^|[\s"'=])\/[^\s"'`;|&<>()]{48,}(?=$|[\s"'`;|&<>()])/g;

// `cd /Users/u/worktrees/feature/x && sed -n …`: an agent that runs every command in a worktree
// repeats its absolute path each time. A leading change into an absolute folder (quoted or not).
const ABSOLUTE_DIR = String.raw`(?:"((?:\/|~|[A-Za-z]:[\\/])[^"]*)"|'((?:\/|~|[A-Za-z]:[\\/])[^']*)'|((?:\/|~|[A-Za-z]:[\\/])[^\s;&|]*))`;
// A script's first line does as well as `&&` (`cd /d/oh-my-posh\ngit branch backup next`).
const LEADING_CD = new RegExp(String.raw`^\s*cd\s+${ABSOLUTE_DIR}[ \t]*(?:&&|;|\n)\s*`);
// The same, or as `commandText` has shortened it (`cd …/feature/x && `).
const LEADING_CD_OR_SHORT = new RegExp(String.raw`^\s*cd\s+(?:…\/[^\s;&|]+|${ABSOLUTE_DIR})\s*(?:&&|;)\s*`);

/** A leading `cd` into a long absolute folder told by its last two parts: `cd …/feature/phase8-integration-tests && git push`. */
function shortWorkdir(command: string): string {
  const m = LEADING_CD.exec(command);
  const dir = m && (m[1] ?? m[2] ?? m[3]).replace(/[\\/]+$/, '');
  if (!m || !dir || !command.slice(m[0].length).trim()) return command;
  // On one line a first line's `cd` reads as `cd … &&`, so the loss report can set it apart (withoutWorkdir).
  if (dir.length <= 24) return m[0].includes('\n') ? `${m[0].replace(/\s+$/, '')} && ${command.slice(m[0].length)}` : command;
  return `cd …/${dir.split(/[\\/]/).slice(-2).join('/')} && ${command.slice(m[0].length)}`;
}

/**
 * The command without a leading `cd` into an absolute folder (the run's working directory, a
 * worktree): what the loss report lists and looks for, so that rows differ where the commands do.
 */
export function withoutWorkdir(command: string): string {
  const m = LEADING_CD_OR_SHORT.exec(command);
  return m && command.slice(m[0].length).trim() ? command.slice(m[0].length) : command;
}

/**
 * The whole output of each call whose process later calls read (`continues`): its own result, then
 * theirs, in order, with the last exit status or error flag the chain records.
 */
function processOutputs(steps: readonly Step[], resultOf: ReadonlyMap<number, Step>): Map<number, Step> {
  const chains = new Map<number, Step[]>();
  for (const s of steps) {
    if (s.kind !== 'tool_call' || s.continues === undefined) continue;
    const result = resultOf.get(s.index);
    if (!result || !resultOf.has(s.continues)) continue;
    const chain = chains.get(s.continues) ?? [resultOf.get(s.continues)!];
    chain.push(result);
    chains.set(s.continues, chain);
  }
  const out = new Map<number, Step>();
  for (const [root, chain] of chains) {
    // A poll that failed on its way (stdin already closed) says nothing of how the process ended.
    const exitCode = [...chain].reverse().find((r) => r.exitCode !== undefined)?.exitCode;
    const isError = chain[chain.length - 1].isError;
    out.set(root, { ...chain[0], text: chain.map((r) => r.text).join('\n'), ...(exitCode !== undefined ? { exitCode } : {}), ...(isError !== undefined ? { isError } : {}) });
  }
  return out;
}

/** Facts from the steps in `indices` (the task is always the whole run's first real request). */
export function extractFacts(trajectory: Run, indices: Iterable<number>): Facts {
  const steps = trajectory.steps;
  const chosen = [...new Set(indices)].filter((i) => steps[i]).sort((a, b) => a - b);
  const task = taskOf(steps);
  const facts: Facts = {
    task: task ? { step: task.step, text: task.text } : undefined,
    requests: [], constraints: [], userRefs: [], edits: [], commands: [], tests: [], errors: [], moreErrors: [], reads: [], decisions: [],
    summaries: [], outcomes: [], pendingCalls: [], replies: [], notes: [], bearing: [], settings: [], toolCounts: nameTable<number>(), stepCount: chosen.length,
    replacedChars: chosen.reduce((n, i) => n + contextTextOf(steps[i]).length, 0),
    keptChars: 0, excerpts: [],
    span: chosen.length ? [chosen[0], chosen[chosen.length - 1]] : undefined,
  };
  const resultOf = new Map<number, Step>();
  const resultIds = new Set<string>();
  for (const s of steps) {
    if (s.kind !== 'tool_result') continue;
    if (s.answers !== undefined && !resultOf.has(s.answers)) resultOf.set(s.answers, s);
    if (s.tool?.callId) resultIds.add(s.tool.callId);
  }
  // A call the reader could not pair still has its result when one with its id, or an unpaired
  // result before the next call, is in the log: it is not pending.
  const answered = (call: Step) => {
    if (call.tool?.callId && resultIds.has(call.tool.callId)) return true;
    for (let j = call.index + 1; j < steps.length && steps[j].kind !== 'tool_call' && steps[j].kind !== 'user'; j++) {
      if (steps[j].kind === 'tool_result' && steps[j].answers === undefined) return true;
    }
    return false;
  };

  const chosenSet = new Set(chosen);
  // A call that reads a process an earlier call left running: its output is that call's, read with it.
  const polled = processOutputs(steps, resultOf);
  const banners = shellBanners(steps, resultOf);
  // What a result showed that names the person's terms (those of the requests read so far) or two the run's edits wrote.
  const written = termsWrittenBy(steps, chosen);
  let terms: { requests: number; terms: string[] } | undefined;
  const bearing: Bearing = (text, said) => {
    if (terms?.requests !== facts.requests.length) terms = { requests: facts.requests.length, terms: requestTerms([facts.task?.text ?? '', ...facts.requests.map((r) => r.text)]) };
    return bearingLinesOf(text, terms.terms, said, 2, written);
  };
  let repeats: Map<number, { step: number; added: string }> | undefined;
  for (const i of chosen) {
    const step = steps[i];
    const summary = summaryOf(step);
    if (summary) { facts.summaries.push(summary); continue; }
    // The person stopping the agent (Esc, a refused call) is theirs to say, as a request is.
    if (step.interruption) readRequest(facts, step, `${INTERRUPTED_PREFIX}${bounded(step.text.trim(), 120)}`);
    else if (step.kind === 'user') readRequest(facts, step, undefined, (repeats ??= promptRepeats(steps)).get(i));
    // A slash command the person typed (`/publish-session`) that the agent then acted on is their
    // request: as typed (the prompt it expanded into says what it asked only as the task, taskOf).
    else if (step.kind === 'environment') {
      const slash = slashRequest(steps, i);
      if (slash) readRequest(facts, step, slash.typed);
      // What the harness sent back because the reply failed (Aider's edit-format verdict).
      else if (step.isError) readFailedStep(facts, step);
    }
    else if (step.kind === 'assistant' || step.kind === 'thought') readAgentText(facts, step, endsTurn(steps, i) ? answerBefore(steps, i) : undefined);
    else if (step.kind === 'tool_call' && step.tool && step.continues !== undefined && chosenSet.has(step.continues)) {
      facts.toolCounts[step.tool.name] = (facts.toolCounts[step.tool.name] ?? 0) + 1;
    }
    else if (step.kind === 'tool_call' && step.tool) readCall(facts, step, withoutBanners(polled.get(i) ?? resultOf.get(i), banners), answered, bearing);
    // An error the log records without the call it answers (a malformed call the tool refused), or
    // of the run itself (an API's 400, an aborted request): a debugger checks both.
    else if ((step.kind === 'tool_result' && step.answers === undefined || step.kind === 'other') && step.isError) readFailedStep(facts, step);
  }
  facts.keptChars = steps.reduce((n, s) => n + contextTextOf(s).length, 0) - facts.replacedChars;
  let excerpts: Excerpt[] | undefined;
  Object.defineProperty(facts, 'excerpts', {
    get: () => (excerpts ??= excerptsOf(steps, chosen, requestTerms([facts.task?.text ?? '', ...facts.requests.map((r) => r.text)]))),
    // Not copied by a spread (`{ ...facts, commands }`), which would read it to copy it.
    enumerable: false,
  });
  // A completion the person answered with more to do is not where the run stands.
  const last = facts.lastAgentMessage;
  if (last?.closing && facts.requests.some((r) => r.step > last.step)) facts.lastAgentMessage = last.before;
  // Claude Code 2.1's task tools: the list as it stands after the last of them read here.
  const lastRead = chosen[chosen.length - 1];
  const tasks = lastRead === undefined ? undefined : taskToolPlan(steps, resultOf, lastRead);
  if (tasks && chosen.includes(tasks.step) && (!facts.plan || tasks.step > facts.plan.step)) facts.plan = tasks;
  // A file read after a read of it failed (`sed` missing on Windows, then `Get-Content`) was read.
  facts.reads = unique(facts.reads, (r) => `${r.text}\u0000${r.failed ? 'failed' : ''}`);
  facts.decisions = unique(facts.decisions, (d) => d.text);
  return facts;
}

/** How a request that is the person stopping the agent opens. */
export const INTERRUPTED_PREFIX = 'interrupted: ';
/** How a request that is the person's answer to the agent's question opens (and an ask tool's outcome). */
export const ANSWERED_PREFIX = 'answered: ';

/** The requests of the whole run that repeat an earlier one's prompt (`promptRepeat`), each against the first that said it whole. */
function promptRepeats(steps: readonly Step[]): Map<number, { step: number; added: string }> {
  const whole: PromptText[] = [];
  const repeats = new Map<number, { step: number; added: string }>();
  for (const s of steps) {
    const text = requestText(s);
    if (!text) continue;
    const request = promptText(s.index, text);
    const repeat = promptRepeat(request, whole);
    if (repeat) repeats.set(s.index, repeat);
    else whole.push(request);
  }
  return repeats;
}

/** A request read: its constraints and the values it gives; of a prompt said again (`repeat`), only what changed. */
function readRequest(facts: Facts, step: Step, answer?: string, repeat?: { step: number; added: string }): void {
  const whole = answer ?? requestText(step);
  if (!whole) return;
  const text = repeat ? repeat.added : whole;
  facts.requests.push(repeat
    ? { step: step.index, text: repeat.added ? `${repeat.added} (in the prompt of step ${repeat.step} again)` : `(the prompt of step ${repeat.step} again)`, repeats: repeat.step }
    : { step: step.index, text });
  // In a saved prompt expanded around what the person typed, their rules and values are in what they typed.
  const theirs = repeat ? text : typedIntoPrompt(text) ?? text;
  for (const c of constraintsOf(theirs)) facts.constraints.push({ step: step.index, text: bounded(c, 240) });
  for (const r of userRefsOf(theirs)) if (!facts.userRefs.some((u) => u.text === r.text)) facts.userRefs.push({ ...r, step: step.index });
}

/**
 * Whether the agent's message at `i` ends its turn: the next step that is not its own thinking is
 * the person's, the harness's or the system's, not a call or more of its own text. The run's last
 * step ends no turn here: it is the last message.
 */
function endsTurn(steps: readonly Step[], i: number): boolean {
  let j = i + 1;
  while (j < steps.length && steps[j].kind === 'thought') j++;
  return j < steps.length && (steps[j].kind === 'user' || steps[j].kind === 'environment' || steps[j].kind === 'system');
}

/**
 * What the agent showed the person just before the message at `i` that ends its turn, when only
 * its thinking and plan updates came between (Claude Code: the answer, a to-do update, then "C17
 * gives you…"): the reply is both. '' when there is none.
 */
function answerBefore(steps: readonly Step[], i: number): string {
  for (let j = i - 1; j >= 0; j--) {
    const s = steps[j];
    if (s.kind === 'thought' && !isShownText(s)) continue;
    const call = s.kind === 'tool_result' && s.answers !== undefined ? steps[s.answers] : s.kind === 'tool_call' ? s : undefined;
    if (call?.kind === 'tool_call' && classifyCall(call).kind === 'todo') continue;
    return s.kind === 'assistant' || isShownText(s) ? s.text.trim() : '';
  }
  return '';
}

/** An agent's text; `before` (a string, maybe empty) when it ends its turn: what it showed just before it. */
function readAgentText(facts: Facts, step: Step, before?: string): void {
  const text = step.text.trim();
  if (!text) return;
  // What the agent last said to the reader: its messages and the text it showed between calls
  // (Claude Code's text blocks), never its raw thinking, nor a JSON payload it emitted.
  const said = step.kind === 'assistant' ? text.replace(/<(think|thinking)>[\s\S]*?(?:<\/\1>|$)/g, '').trim() : isShownText(step) ? text : '';
  if (said && !looksLikeJson(said)) {
    // Text shown between calls stands in only where the steps hold no message of the agent's own
    // (a sub-agent's run), and only when it states something, not just what comes next.
    if (step.kind === 'assistant') facts.lastAgentMessage = { step: step.index, text: said };
    else if (!(facts.lastAgentMessage && !facts.lastAgentMessage.between) && statementsOf(said)) facts.lastAgentMessage = { step: step.index, text: said, between: true };
    if (before !== undefined) facts.replies.push({ step: step.index, text: before && !looksLikeJson(before) ? `${before}\n\n${said}` : said });
  }
  for (const d of decisionsOf(text)) facts.decisions.push({ step: step.index, text: d });
  // A message the person saw between calls (not raw thinking) that states what the agent found.
  if (said && !looksLikeJson(said)) {
    const note = before === undefined ? statementsOf(said) : '';
    if (note) facts.notes.push({ step: step.index, text: note });
    // A long message's last statement is past any line's room: how it ended (a status after a poem).
    const closing = said.length > 400 ? closingStatementOf(said) : undefined;
    if (closing && !note.includes(closing)) facts.notes.push({ step: step.index, text: closing, closing: true });
  }
}

function looksLikeJson(text: string): boolean {
  if (!/^[[{]/.test(text)) return false;
  try { JSON.parse(text); return true; } catch { return /^\{\s*"[\w-]+"\s*:/.test(text); }
}

type Bearing = (text: string, said: string[]) => string[];

/** A step the log marks failed that answers no call of ours: its error is one a debugger checks. */
function readFailedStep(facts: Facts, step: Step): void {
  const err = errorOf(step, true);
  if (err) facts.errors.push(err);
}

function readCall(facts: Facts, call: Step, recorded: Step | undefined, answered: (call: Step) => boolean, bearing: Bearing): void {
  const name = call.tool!.name;
  facts.toolCounts[name] = (facts.toolCounts[name] ?? 0) + 1;
  const info = classifyCall(call, recorded);
  const result = withoutEcho(recorded, info.command);
  const verdict = result ? verdictOf(result, call, info) : undefined;
  // A call whose log never saves results (`expectsNoResult`) is not waiting for one.
  if (!result && info.kind !== 'finish' && !call.tool!.expectsNoResult && !answered(call)) facts.pendingCalls.push({ step: call.index, text: bounded(`${name} ${call.tool!.args}`, 160) });
  const todos = todosOf(call);
  if (todos) {
    const finishedEarlier = droppedFinished(facts.plan, name, todos);
    facts.plan = { step: call.index, tool: name, items: todos, ...(finishedEarlier.length ? { finishedEarlier } : {}) };
  }
  // The person's answer to a question the agent asked (Codex request_user_input, OpenCode question,
  // Cline ask_followup_question, Claude Code AskUserQuestion) is a request like any other.
  if (result && ASK_TOOLS.test(name)) {
    const answer = answerText(result);
    if (answer) readRequest(facts, result, `${ANSWERED_PREFIX}${answer}`);
  }

  // The answer a closing call carries (Cline's attempt_completion `result`, OpenHands' finish
  // `message`) is what the agent told the person; its result is only the client's receipt.
  // Only where it is the answer: an agent that also wrote the person a message since their last
  // request (Copilot's task_complete after its reply) said it there.
  const since = facts.requests.length ? facts.requests[facts.requests.length - 1].step : facts.task?.step ?? -1;
  const said = facts.lastAgentMessage;
  const toldAlready = said !== undefined && !said.between && !said.closing && said.step > since;
  const closing = info.kind === 'finish' && !toldAlready ? closingMessage(info.args) : undefined;
  if (closing) {
    facts.lastAgentMessage = { step: call.index, text: closing, closing: true, ...(said ? { before: said } : {}) };
    if (!facts.replies.some((r) => r.text.trim() === closing)) facts.replies.push({ step: call.index, text: closing });
  }

  const failedEdit = info.kind === 'edit' ? editOutcome(result) : undefined;
  for (const written of info.edits) {
    const touch = result ? { ...written, file: fullSpelling(result.text, written.file) } : written;
    const outcome = info.kind === 'edit' ? failedEdit! : shellWriteOutcome(result, info.command ?? '', touch.file);
    const error = outcome === 'failed' && result ? errorOf(result, true)?.text : undefined;
    // What went in, when one file was written and the write went through.
    // A patch tool given its patch as plain text (Codex's freeform `apply_patch`) has no arguments object: the text is the patch.
    const patchText = info.command ?? (info.args ? undefined : call.tool?.args);
    const added = outcome === 'ok' && info.edits.length === 1 ? addedLines(info.args, patchText).slice(0, 3).map((l) => bounded(l, 120)) : [];
    facts.edits.push({ step: call.index, file: touch.file, action: touch.action, tool: name, outcome, ...(error ? { error } : {}), ...(added.length ? { added } : {}) });
  }
  // A read of one file that went through says what the file is; a command that read several does not say which printed what.
  const gist = result && info.reads.length === 1 && verdict?.failed !== true && failedEdit !== 'failed' ? readGist(result.text) : undefined;
  // A read the tool refused or that failed (`is_error`, a non-zero exit of `cat missing.txt`) read
  // nothing; a command that read several files, or whose status is a later stage's (`cat x | grep
  // y` finding nothing), may have read them.
  // A read whose program says it could not open the file it was given (`head: a.go: No such file or
  // directory`) read nothing, whatever the pipeline's status says (`head a.go | tail` exits 0).
  const unread = result && info.kind === 'shell' && info.reads.length === 1 ? unreadableFile(result.text, info.reads[0]) : undefined;
  if (unread && verdict?.failed !== true) facts.errors.push({ step: result!.index, type: 'error', text: unread });
  const readNothing = unread !== undefined || verdict?.failed === true && (info.kind !== 'shell' || (info.reads.length === 1 && !/\|/.test(info.command ?? '')));
  // Of several, a file the output says could not be opened, and a file the list's last command
  // was to read when the list failed (its status is that command's: it failed or never ran).
  const unreadOfSeveral = result && info.kind === 'shell' && info.reads.length > 1
    ? new Set([...info.reads.filter((f) => unreadableFile(result.text, f) !== undefined), ...(verdict?.failed === true && verdict.by === 'exit' ? lastCommandReads(info.command ?? '', info.reads) : [])])
    : undefined;
  // An editor's view of a folder answers with a listing of it (`Here's the files and directories up
  // to 2 levels deep in /repo/tests`): a folder looked at, not a file read.
  const folder = result && info.kind === 'read' && info.reads.length === 1 && FOLDER_LISTING.test(firstOutputLine(result.text) ?? '');
  if (!folder) for (const f of info.reads) facts.reads.push({ step: call.index, text: f, ...(readNothing || unreadOfSeveral?.has(f) ? { failed: true as const } : gist ? { gist } : {}) });
  const settings = result && info.reads.length === 1 && verdict?.failed !== true && !info.edits.length ? settingsOf(info.reads[0], result.text).filter((l) => !gist?.includes(l)) : [];
  if (settings.length) facts.settings.push({ step: call.index, source: info.reads[0], lines: settings });

  const errorsBefore = facts.errors.length;
  if (info.kind === 'shell' && info.command !== undefined) readCommand(facts, call, info, result, verdict);
  else if (result) {
    // A read shows source code: an error is read out of it only when the read itself failed.
    const failed = verdict?.failed === true || failedEdit === 'failed';
    // A read or an edit told failed by its first line ("File too large to read at once (46.3 KB). …") says so there.
    const err = (info.kind === 'read' || verdict?.failed === false) && !failed ? undefined : errorOf(result, failed) ?? (failed && verdict?.by === 'edit' ? openingError(result) : undefined);
    if (err) facts.errors.push(err);
    if (err && failed) facts.moreErrors.push(...furtherErrorsOf(result, err));
    // A tool that runs the tests with no command to show (an Agents SDK `run_pytest` called with `{}`):
    // its output is a test run as a command's is.
    if (TEST_TOOL.test(name)) {
      const tests = testRun(result, exitCodeOf(result));
      if (tests.failing.length || tests.passing.length || tests.outcome !== 'outcome not shown') facts.tests.push({ step: call.index, command: name, outcome: tests.outcome, failing: tests.failing, passing: tests.passing, ...(tests.ok !== undefined ? { ok: tests.ok } : {}) });
    }
  }
  if (result) {
    const err = facts.errors.length > errorsBefore ? facts.errors[facts.errors.length - 1].text : undefined;
    const answer = ASK_TOOLS.test(name) ? answerText(result) : undefined;
    // A search or listing that returned paths is told by the paths, not the first of them.
    const paths = !err && !answer && info.kind !== 'read' && info.kind !== 'edit' ? pathListOf(result.text) : undefined;
    // A call that is not a command, an edit or a read (a sub-agent) is told by what its report found, past its preamble.
    const finding = returnsFinding(info.kind);
    const query = finding ? queryOf(info.args) : undefined;
    const opening = finding ? reportOpening(result.text, query ? [query] : []) : undefined;
    const first = err ?? (answer ? `${ANSWERED_PREFIX}${answer}` : closing ?? paths ?? opening ?? withIdLine(firstOutputLine(result.text), result.text));
    const target = finding ? targetOf(info.args) : undefined;
    facts.outcomes.push({ step: call.index, tool: name, ...(target ? { target } : {}), kind: info.kind, ...(verdict?.failed !== undefined ? { failed: verdict.failed } : {}), ...(first ? { said: bounded(first, paths ? 200 : 100) } : {}) });
    // What it showed that names the person's terms, when it went through: a failure says its error.
    if (!err && !answer && verdict?.failed !== true && failedEdit === undefined && !info.edits.length && info.kind !== 'todo' && info.kind !== 'finish') {
      const lines = bearing(result.text, [first ?? '', gist ?? '', ...(info.command ? [info.command] : [])]);
      const source = info.reads.length === 1 ? info.reads[0] : info.command !== undefined ? commandText(info.command) : name;
      if (lines.length) facts.bearing.push({ step: call.index, source, lines });
    }
  }
}

/** The text a closing call hands the person: its answer-like argument, else its longest text. */
function closingMessage(args: Record<string, unknown> | undefined): string | undefined {
  const fields = Object.entries(args ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1].trim() !== '');
  const named = fields.find(([k]) => /^(?:result|message|answer|final_answer|summary|output|text)$/i.test(k));
  const longest = fields.sort((a, b) => b[1].length - a[1].length)[0];
  const text = (named ?? longest)?.[1].trim();
  return text && text.length >= 3 ? text : undefined;
}

/** The reading program's own complaint that it could not open `file` (`cat: a.go: No such file or directory`), when that is what the read printed first. */
function unreadableFile(text: string, file: string): string | undefined {
  const first = firstOutputLine(text);
  const m = first ? /^[\w.-]+: (?:cannot (?:access|open) )?(.+?): (?:No such file or directory|Permission denied|Is a directory)$/.exec(first) : null;
  return m && samePath(m[1].replace(/^['"`]|['"`]$/g, ''), file) ? first : undefined;
}

/**
 * The files among `reads` that the last command of a list (`a && cat x`, `a || cat y`, `a; cat z`)
 * names: a list's status is its last command's. Not through a pipe, whose status is its last stage's.
 */
function lastCommandReads(command: string, reads: readonly string[]): string[] {
  const list = shellList(command);
  const last = list[list.length - 1];
  if (list.length < 2 || last.after === '|') return [];
  return reads.filter((f) => last.segment.split(/\s+/).some((w) => w.replace(/^['"]|['"]$/g, '') === f));
}

/**
 * A result that opens with a bare status (`Async agent launched successfully.`) and names what it
 * made on a later line (`agentId: afbbf75 (internal ID …)`) says both: the id is what later calls
 * and the person refer to.
 */
function withIdLine(first: string | undefined, text: string): string | undefined {
  if (!first || /\d/.test(first) || text.length > 20_000) return first;
  const id = /^\s*(\w*(?:[Ii]d|ID|[Kk]ey|[Uu]rl|URL|[Nn]umber))\s*[:=]\s*([\w./:#-]*\d[\w./:#-]*)/m.exec(text.slice(0, 2000));
  return id ? `${first} ${id[1]}: ${id[2]}` : first;
}

/**
 * The file as the result's first lines spell it, when they name a longer path that ends with it
 * (Gemini CLI's `Successfully overwrote file: /home/u/repo/GEMINI.md` for `GEMINI.md`).
 */
function fullSpelling(text: string, file: string): string {
  const tail = `/${file.replace(/^\.\//, '')}`;
  if (file.startsWith('/')) return file;
  for (const m of text.slice(0, 400).matchAll(/\/[^\s:'"`()]+/g)) {
    const path = m[0].replace(/[.,;]+$/, '');
    if (path.endsWith(tail)) return path;
  }
  return file;
}

/**
 * A write a shell command made. A script of several commands can fail after its writes went
 * through (the reproduction it then runs fails, as intended): such a write counts as failed only
 * when the script is that one command or the error names the file.
 */
function shellWriteOutcome(result: Step | undefined, command: string, file: string): Outcome {
  if (!result) return 'unknown';
  const code = exitCodeOf(result);
  // A patch's program that records no exit status says in its first lines whether the patch went in.
  if (!result.isError && code === undefined && carriesPatch(command)) return editOutcome(result);
  if (!result.isError && (code === undefined || code === 0)) return 'ok';
  const base = file.split('/').pop()!;
  // The complaint is the line's own words, not the name (`reproduce_error.py` in a later traceback says nothing of the write).
  const named = someOutputLine(result.text, (l) => l.includes(base) && /error|denied|no such file|cannot|failed/i.test(l.split(base).join(' ')));
  return named || shellSegments(command).length === 1 ? 'failed' : 'ok';
}

function readCommand(facts: Facts, call: Step, info: CallInfo, result: Step | undefined, verdict: ReturnType<typeof verdictOf> | undefined): void {
  const command = info.command!;
  // A commit or a push is told by what it recorded (`[main b05d732] …`): its long message is cut short so the hash stays.
  const record = result ? recordLineOf(result.text) : undefined;
  // What the agent said the command does (Claude Code's Bash `description`) names a command cut
  // short (a perl one-liner, a script): "Replace if/else with switch using perl".
  const purpose = purposeOf(info.args);
  // A command that changed the repository or the environment is what a person would run again:
  // it gets more room before its paths are shortened (`git worktree add -b x /Users/…/x develop`).
  const effect = commandEffect(command);
  const cut = commandText(command, record ? 60 : effect === 'change' ? CHANGE_COMMAND_CHARS : COMMAND_CHARS);
  const text = purpose && !record && /\[…\]$/.test(cut) ? `${commandText(command, 80)} ("${purpose}")` : cut;
  const exitCode = result ? exitCodeOf(result) : undefined;
  const saysNo = answersNo(command, exitCode);
  const failed = verdict?.failed === true && verdict.by !== 'text';
  // Reads through the shell (`cat`, `sed -n`) print source code: no error is read out of them.
  const readsOnly = info.reads.length > 0 && info.edits.length === 0 && !failed;
  const error = result && !readsOnly ? errorOf(result, failed) : undefined;
  if (error) facts.errors.push(error);
  if (error && failed) facts.moreErrors.push(...furtherErrorsOf(result!, error));
  // A CI log the command fetched: the errors it marks are the run's, though the fetch went through.
  else if (result && !failed) for (const e of ciErrorsOf(result.text)) facts.moreErrors.push({ step: result.index, type: e.type, text: e.text });
  let outcome: string;
  // What a script or a test printed last says how it went ("344", "FAILED - …"); a read's or a
  // listing's last line says nothing, and a commit's or a push's record (read above) says more.
  const bare = command.trim().replace(/^cd \S+ && /, '');
  // A search for files says what it found when that is a few paths (`find . -name '*.butler.yaml'`).
  // A long listing (`mkdir -p x && ls -la x`) says what the folder holds, not `total 8`.
  const found = result && /^(?:find|fd|rg --files|rg -l|grep -\w*l\w*|ls)\b/.test(bare) ? pathListOf(result.text, 3, true, 1) ?? (/\bls\s+-\w*l/.test(bare) ? listingOf(result.text) : undefined)
    : result && /(?:^|&&|;|\|)\s*ls\s+-\w*l\w*\s+[^|;&]*$/.test(bare) ? listingOf(result.text) : undefined;
  // `git status` (and a checkout) says the branch, where it stands against its upstream and what is changed.
  // So does a script that runs one among others (`git branch -f next tmp; git checkout next`), after
  // what its output began with when that is another's (`git log -n 1 && git status`: the commit).
  const status = result ? statusOf(command, bare, result.text) : undefined;
  const said = found ?? status ?? (result && !record && !readsOnly && !/^(?:ls|find|grep|rg|cat|head|tail|sed -n|nl|tree|pwd|echo|mkdir|rm|cd)\b/.test(bare) ? tellingOutputLine(result.text) : undefined);
  // A line that says something failed (`failed to get action: … could not open TTY`) keeps its reason.
  // A line that carries a link (a gist, a pull request) keeps it whole: it is what the person opens next.
  const link = said ? /https?:\/\/\S+/.exec(said) : null;
  const saidRoom = said && (/: @@ -\d/.test(said) || said === status) ? 220 : link && link.index + link[0].length <= 240 ? link.index + link[0].length : said && /\b(?:error|failed|fatal|cannot|could not|denied|not found|refused|rejected)\b/i.test(said) ? 160 : 80;
  const printed = said ? ` → ${bounded(said, saidRoom)}` : '';
  // A test run that failed says its tally before its first error: `2 failed, 19 passed` is what a debugger checks first.
  const tests = result && isTestCommand(command) ? testRun(result, exitCode) : undefined;
  const tally = tests && error && /\b\d+ (?:failed|passed|errors?)\b/i.test(tests.outcome) && !error.text.includes(tests.outcome) ? `${tests.outcome}; ` : '';
  if (!result) outcome = 'no result in the log';
  else if (exitCode !== undefined) outcome = `exit ${exitCode}${error && exitCode !== 0 ? `: ${tally}${error.text}` : record ? ` → ${record}` : printed}`;
  else if (error) outcome = `failed: ${error.text}`;
  else if (record) outcome = `→ ${record}`;
  // A script that records no exit status says how it went last (`Total broken: 34`); a write's last line is an echo.
  else if (said && (effect === 'run' || said === status || said === found)) outcome = `→ ${bounded(said, saidRoom)}`;
  else {
    const both = twoLineOutput(result.text);
    const first = firstOutputLine(result.text);
    outcome = both ? `→ ${both}` : first ? `→ ${bounded(first, 80)}` : 'no output';
  }
  // The shell's own complaint in a command that went through (a backquote in a message run as a
  // command): the exit status stands, and the outcome says what the shell said.
  const shellSaid = result && !failed && !readsOnly ? shellComplaintOf(result.text, programsOf(command)) : undefined;
  if (shellSaid) outcome += ` (${complainer(shellSaid)} said: ${shellSaid})`;
  const ok = !result ? undefined : failed || (exitCode === undefined && error) ? false : verdict?.failed === false || saysNo ? true : undefined;
  facts.commands.push({ step: call.index, command: text, longCommand: commandText(command, 300), wholeCommand: headAndTail(paragraph(command), 2000), ...(exitCode !== undefined ? { exitCode } : {}), outcome, ...(ok !== undefined ? { ok } : {}), effect, ...(record ? { recorded: record } : {}), ...(shellSaid ? { shellSaid } : {}), ...(onlyPatch(command) ? { onlyPatch: true as const } : {}), ...(refusedCall(result) ? { refused: true as const } : {}) });
  if (tests) facts.tests.push({ step: call.index, command: text, outcome: tests.outcome, failing: tests.failing, passing: tests.passing, ...(tests.ok !== undefined ? { ok: tests.ok } : {}) });
}

const GIT_STATUS = /^git\s+(?:-C\s+\S+\s+)?(?:status|checkout|switch)\b/;

/** What `git status`, a checkout or a switch in `command` said (gitStatus.ts), after the output's first line when another command printed it. */
function statusOf(command: string, bare: string, output: string): string | undefined {
  if (GIT_STATUS.test(bare)) return gitStatusGist(output);
  if (!shellSegments(command).some((s) => GIT_STATUS.test(s.trim()))) return undefined;
  const gist = gitStatusGist(output);
  const first = firstOutputLine(output);
  return gist && first && !gist.includes(first) ? `${bounded(first, 80)} · ${gist}` : gist;
}

/**
 * What a call that is neither a command, an edit nor a read was aimed at, from its arguments (as
 * `classifyCall` parsed them): the link it fetched, else the description it gives of itself (a
 * sub-agent's task). `WebFetch → # Documentation Index` says nothing of which page; the link does.
 */
function targetOf(args: CallInfo['args']): string | undefined {
  if (!args) return undefined;
  const link = [args.url, args.uri, args.href].find((v): v is string => typeof v === 'string' && /^https?:\/\/\S+$/.test(v.trim()));
  if (link) return bounded(link.trim(), 160);
  const purpose = purposeOf(args);
  if (purpose) return `("${purpose}")`;
  const query = queryOf(args);
  return query ? `for "${bounded(query, 120)}"` : undefined;
}

/** What a search call looked for (`query`, `q`), when it is one line of words. */
function queryOf(args: CallInfo['args']): string | undefined {
  const q = args?.query ?? args?.q;
  return typeof q === 'string' && q.trim().length >= 3 && !q.includes('\n') ? q.trim() : undefined;
}

/** A call as a summary names it: the tool, then what it was aimed at. */
export const callName = (o: Pick<CallOutcome, 'tool' | 'target'>) => (o.target ? `${o.tool} ${o.target}` : o.tool);

/** The one-line description a call gives of itself, when its (parsed) arguments hold one. */
function purposeOf(args: CallInfo['args']): string | undefined {
  const d = args?.description;
  return typeof d === 'string' && d.trim().length >= 8 && d.length <= 160 && !d.includes('\n') ? d.trim() : undefined;
}

// ---- views the strategies share ------------------------------------------------------------

/** True when two paths name the same file: equal, or one is the other seen from a folder above. */
export function samePath(a: string, b: string): boolean {
  if (a === b) return true;
  // A Windows path is the same file spelled with either slash (`D:\repo\a.go`, `D:/repo/a.go`).
  if (a.includes('\\') || b.includes('\\')) return samePath(a.replace(/\\/g, '/'), b.replace(/\\/g, '/'));
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  const tail = short.replace(/^\.\//, '');
  return long.endsWith(`/${tail}`);
}

export interface FileChange {
  file: string;
  /** What happened to it last: created (and maybe edited since), edited, or deleted. */
  action: EditAction;
  /** Every kind of change it saw, in order of first occurrence. */
  actions: EditAction[];
  times: number;
  /** The step of its latest change. */
  step: number;
}

/** Files changed by edits that went through, each once (the longest spelling of its path), in order of the last change. */
export function filesChanged(facts: Facts): FileChange[] {
  const out: FileChange[] = [];
  for (const e of facts.edits) {
    if (e.outcome === 'failed') continue;
    const i = out.findIndex((c) => samePath(c.file, e.file));
    const prev = i >= 0 ? out.splice(i, 1)[0] : undefined;
    const file = prev && prev.file.length > e.file.length ? prev.file : e.file;
    const action = prev?.action === 'created' && e.action === 'edited' ? 'created' : e.action;
    const actions = prev?.actions.includes(e.action) ? prev.actions : [...(prev?.actions ?? []), e.action];
    out.push({ file, action, actions, times: (prev?.times ?? 0) + 1, step: e.step });
  }
  return out;
}

/** What the first read of `file` that went through showed first, if one did. */
export function readGistOf(facts: Facts, file: string): string | undefined {
  return facts.reads.find((r) => r.gist !== undefined && samePath(r.text, file))?.gist;
}

/** Files the run tried to read and could not, each once, without those it read or changed. */
export function filesNotRead(facts: Facts): string[] {
  const read = filesRead(facts);
  const changed = filesChanged(facts).map((c) => c.file);
  return [...new Set(facts.reads.filter((r) => r.failed).map((r) => r.text))].filter((f) => !read.some((x) => samePath(x, f)) && !changed.some((c) => samePath(c, f)));
}

/** Files read, each once, without those the run also changed, nor reads that failed. */
export function filesRead(facts: Facts): string[] {
  const changed = filesChanged(facts).map((c) => c.file);
  const out: string[] = [];
  for (const r of facts.reads) {
    if (r.failed || changed.some((c) => samePath(c, r.text))) continue;
    const i = out.findIndex((f) => samePath(f, r.text));
    if (i < 0) out.push(r.text);
    else if (r.text.length > out[i].length) out[i] = r.text;
  }
  return out;
}

/** Edits that failed and were not followed by a successful edit of the same file. */
export function failedEdits(facts: Facts): EditFact[] {
  return facts.edits.filter((e, i) => e.outcome === 'failed' && !facts.edits.slice(i + 1).some((l) => l.file === e.file && l.outcome !== 'failed'));
}

/** `edited a.py (3 edits)`, `created, edited and deleted JOKE.md`. */
export function describeChange(c: FileChange): string {
  const verbs = c.actions.length > 1 ? `${c.actions.slice(0, -1).join(', ')} and ${c.actions[c.actions.length - 1]}` : c.action;
  return `${verbs} ${c.file}${c.times > c.actions.length ? ` (${c.times} edits)` : ''}`;
}

export function describeFailedEdit(e: EditFact): string {
  return `edit of ${e.file} failed${e.error ? `: ${e.error}` : ''}`;
}

export function describeCommand(c: CommandFact): string {
  return `${c.command} (${c.outcome})`;
}

export function describeTest(t: TestFact): string {
  const failing = t.failing.length ? `; failing: ${t.failing.slice(0, 6).join(', ')}${t.failing.length > 6 ? ` and ${t.failing.length - 6} more` : ''}` : '';
  return `${t.command}: ${t.outcome}${failing}`;
}

export function describeTodo(t: TodoItem): string {
  return `${t.id ? `${t.id}. ` : ''}${t.text} [${t.status}]`;
}

/** Tools by how often they were called; with `max`, the rest counted together. */
export function describeTools(counts: Record<string, number>, max = Infinity): string {
  const all = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  const parts = all.slice(0, max).map(([k, n]) => `${k} ×${n}`);
  const rest = all.slice(max).reduce((sum, [, n]) => sum + n, 0);
  if (rest) parts.push(`${all.length - max} others ×${rest}`);
  return parts.length ? parts.join(', ') : 'no tool calls';
}

export { paragraph };

/** `text` within `max` characters: its beginning and, past an ellipsis, its end (a heredoc's target is at its end). */
// The SWE-agent and OpenHands editor's header over a folder it was asked to view.
const FOLDER_LISTING = /^Here's the files and directories up to \d+ levels? deep in /;

// A tool named for running tests: `run_pytest`, `run_tests`, `jest`.
const TEST_TOOL = /pytest|jest|vitest|(?:^|_)run_?tests?$|^tests?$/i;

/** Who said a complaint: the program that names itself (`sed: -e expression …`), else the shell (`zsh:1: …`, `bash: line 1: …`). */
function complainer(line: string): string {
  const own = /^(?:\S*\/)?([\w.+-]+): (?!\d)/.exec(line);
  return own && !/^(?:ba|z|da|k)?sh$/.test(own[1]) ? own[1] : 'the shell';
}

// What prints its argument is no program complaining (`echo "sed: …"`).
const ECHOES = new Set(['echo', 'printf', 'cat', 'true', 'false', 'cd', 'export']);

/** The programs a command runs: each segment's first word, by its base name (`/usr/bin/sed` → `sed`). */
function programsOf(command: string): string[] {
  const names = shellSegments(command).map((seg) => /^\s*(?:\w+=\S*\s+)*(?:sudo\s+)?(\S+)/.exec(seg)?.[1]?.split('/').pop() ?? '');
  return unique(names.filter((n) => /^[\w.+-]{2,}$/.test(n) && !ECHOES.has(n)));
}
