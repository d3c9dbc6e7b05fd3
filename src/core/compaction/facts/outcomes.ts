// What a tool result says happened: the exit status of a command, whether an edit went through,
// the error a tool reported (type and first message line, taken from tool output only and never
// from a listing of source code), and what a test run passed and failed.

import type { Step } from '../../model';
import { diagnosticsOf, EXUNIT_FAILURE, type Diagnostic } from './diagnostics';
import { bounded, cleanText, firstLine, headAndTail } from './hygiene';
import { SANDBOX_HEADLINE } from '../../formats/codex';

const EXIT_PATTERNS = [
  /<returncode>\s*(-?\d+)\s*<\/returncode>/,
  /"returncode"\s*:\s*(-?\d+)/,
  /"return_code"\s*:\s*(-?\d+)/,
  /"exit_code"\s*:\s*(-?\d+)/,
  /\[The command completed with exit code (-?\d+)\.\]/,
  /Process exited with code (-?\d+)/,
  /^Exit code:? (-?\d+)\s*$/m,
  /\bexit(?:ed with)? (?:code|status):? (-?\d+)/i,
];

/** The exit status a result records, from the log's own field or the text the agent saw. */
export function exitCodeOf(result: Pick<Step, 'text' | 'exitCode'>): number | undefined {
  if (typeof result.exitCode === 'number') return result.exitCode;
  const head = result.text.length > 4000 ? result.text.slice(0, 2000) + result.text.slice(-2000) : result.text;
  for (const re of EXIT_PATTERNS) {
    const m = re.exec(head);
    if (m) return Number(m[1]);
  }
  return undefined;
}

/** `apply_patch verification failed: …`, `Build failed: …`: a short subject, `failed:`, the reason. */
const SUBJECT_FAILED = /^[A-Za-z_][\w.-]*(?: [\w.-]+){0,2} failed: \S/;

// First lines of an edit result that mean the edit did not happen.
const EDIT_FAILED = [
  /^(?:ERROR|Error|error)\b/,
  /no replacement was performed/i,
  /did not appear verbatim/i,
  /introduced new syntax error/i,
  /string to replace not found|old_string (?:was )?not found|could not find .* to replace/i,
  /<tool_use_error>/,
  /failed to (?:apply|edit|write|create|replace)/i,
  /no such file or directory|permission denied|file (?:does not exist|not found)|is a directory/i,
  // The SWE-agent and OpenHands editor's answers for a path it could not view or edit.
  /^The path \S.* does not exist\b|^The path \S+ is not an absolute path\b/m,
  // A read that returned a refusal instead of the file (Copilot CLI's view: "File too large to read at once (46.3 KB). …").
  /^File too large to read\b|\bfile (?:is )?too (?:large|big) to (?:read|view|open)\b/i,
  /^Invalid\b|invalid (?:path|patch|range|edit)/i,
  /^The (?:diff|patch) (?:could not|failed)/i,
  SUBJECT_FAILED,
];

export type Outcome = 'ok' | 'failed' | 'unknown';

/** Whether an edit went through: the log's error flag, else the first lines of its result. */
export function editOutcome(result: Step | undefined): Outcome {
  if (!result) return 'unknown';
  if (result.isError) return 'failed';
  const code = exitCodeOf(result);
  if (code !== undefined && code !== 0) return 'failed';
  const head = cleanText(result.text).split('\n').slice(0, 4).join('\n');
  if (EDIT_FAILED.some((re) => re.test(head))) return 'failed';
  return 'ok';
}

/** An error's message is kept to its first line, and that line to this many characters. */
const ERROR_CHARS = 240;
/** How many times ERROR_CHARS a message is read before its middle is cut (`headAndTail`). */
const LONGEST_ERROR = 4;

/** The first non-empty line after `line` (CMake puts its message on the next line, indented). */
function nextLine(lines: string[], line: string): string {
  const i = lines.indexOf(line);
  return lines.slice(i + 1).map((l) => l.trim()).find((l) => l !== '') ?? '';
}

export interface ErrorFact {
  step: number;
  /** `AttributeError`, `SyntaxError`, `command not found`, `pip`, `make`… */
  type: string;
  /** `AttributeError: Unable to convert the pixel data …` — the type with its first message line. */
  text: string;
}

// A line that reports there was no error: Gemini CLI's shell prints `Error: (none)` after every
// command, other tools `stderr: ` or `errors: 0`. Not an error.
const NO_ERROR = /^(?:[\w ]{0,20}\s)?(?:error|errors|stderr|exception)s?\s*[:=]\s*(?:\(none\)|none|null|nil|n\/a|\(empty\)|empty|0|false|-|\[\]|\{\})\.?\s*$/i;

// A module's own `Error` counts when it is named with its module (`playwright._impl._errors.Error: …`).
const EXCEPTION_LINE = /^(?:E\s+)?((?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Failure|Warning)|(?:[A-Za-z_][\w]*\.)+(?:Error|Exception))(?::\s*(\S.*))?$/;
// A sentence, not code, though it holds a word code uses ("No task found with ID: ac27727").
const PROSE = /^[A-Z][a-z]+(?:\s+[a-z][\w'’-]*){2,}(?![^{}();=]*[{}();=])/;
const CODE_LIKE = /^\s*(?:\d+[:\t|]|\d+\s{2,}|\d+→)|(?:^|\s)(?:raise|except|import|from|def|class|return|print|assert|if|elif|else|with|for|while|try)\b|[=(){}[\];]\s*$|^\s*(?:["'#*<]|\/[/*])/;

// `<exited with error: …>`, `<command failed: …>`: a few words that say it failed, a colon, the message, closed.
const WRAPPED_FAILURE = /^\s*<(?:[a-z]+ ){0,3}(?:error|failed|failure)(?: [a-z]+){0,2}:\s*([\s\S]+?)>\s*$/i;

// Codex 0.3x's line for a command its sandbox stopped or its timeout killed, before what the command
// printed: `failed in sandbox LinuxSeccomp with execution error: sandbox denied exec error, exit
// code: 1, stdout: …`, `command timed out after 19904 milliseconds`.
const SANDBOX_FAILURE = new RegExp(String.raw`^(?<headline>${SANDBOX_HEADLINE})(?:, stdout: |\s*$)|^(?<timeout>command timed out after \d+ milliseconds)$`, 'm');
// The same headline over the command's stdout and then its stderr, which are what it printed.
const SANDBOX_ANSWER = new RegExp(String.raw`^${SANDBOX_HEADLINE}, stdout: (?<stdout>[\s\S]*?)(?:\n?, stderr: (?<stderr>[\s\S]*))?$`);

// A log line at the error level, as tracing, logging and log4j write it, its time left out:
// `2025-09-17T04:42:10.456803Z ERROR codex_core::codex: failed to initialize rollout recorder: …`.
const ERROR_LOG_LINE = /^\[?\d{4}-\d\d-\d\d[T ][\d:.,]+(?:Z|[+-]\d\d:?\d\d)?\]?\s+((?:ERROR|FATAL|CRITICAL)\s+\S.*)$/;

// A tally (`Found 6 errors.`, `✖ 3 problems`, `1 error generated.`) counts the messages, and
// pre-commit's line for a hook (`ruff check……Failed`) says which failed: neither is a message.
const TALLY = /^(?:Found\s+|✖\s+)?\d+\s+(?:errors?|problems?|issues?)\b(?!:)/i;
const HOOK_STATUS = /^\S.*?\.{5,}(Failed|Passed|Skipped)$/i;

/**
 * A result's text with the wrappers a harness puts around a tool's message taken off: Claude Code's
 * `<tool_use_error>`, Kimi's `<system>` status line, and the JSON an earlier Codex sent its model
 * (`{"output":"…","metadata":{"exit_code":127,…}}`) or an orchestrator recorded a check in
 * (`{"command":…,"passed":false,"output":"…"}`), whose output is what the tool printed.
 */
function messageText(result: Step, clean = cleanText(result.text)): string {
  const enveloped = /^\{"(?:output|command|success|stdout|stderr)":/.test(clean) ? contentPartsText(clean.trim()) : undefined;
  return withoutSandboxHeadline(enveloped !== undefined ? cleanText(enveloped) : clean).replace(/<\/?(?:tool_use_error|exception)>/g, '').replace(/^<system>(.*)<\/system>$/gm, '$1').replace(GEMINI_OUTPUT, '');
}

/** Codex's sandbox answer as what the command printed: its stdout, then its stderr, without the headline (SANDBOX_FAILURE). */
function withoutSandboxHeadline(text: string): string {
  const m = SANDBOX_ANSWER.exec(text)?.groups;
  return m ? `${m.stdout}\n${m.stderr ?? ''}` : text;
}

/** An error a tool reported, from its output only. Reads (`cat`, editors' views) are skipped by the caller. */
export function errorOf(result: Step, failed: boolean): ErrorFact | undefined {
  // Claude Code wraps a tool's refusal in `<tool_use_error>…</tool_use_error>`, mini-swe-agent a command
  // that never finished in `<exception>…</exception>`, Kimi CLI its status line over a tool's output
  // in `<system>…</system>` (`<system>ERROR: Command failed with exit code: 1.</system>`): the message is inside.
  const clean = cleanText(result.text);
  const text = messageText(result, clean);
  const api = apiErrorOf(text);
  if (api) return { step: result.index, type: api.type, text: firstLine(api.text, ERROR_CHARS) };
  // A harness that wraps a failure's message in angle brackets and says so (Copilot's
  // `<exited with error: PowerShell 6+ (pwsh) is not available. …>`): the message is inside.
  const wrapped = WRAPPED_FAILURE.exec(text);
  if (wrapped && (failed || result.isError)) return { step: result.index, type: 'failure', text: firstLine(wrapped[1].trim(), ERROR_CHARS) };
  const sandboxed = SANDBOX_FAILURE.exec(clean.slice(0, 400)) ?? SANDBOX_FAILURE.exec(text.slice(0, 400));
  if (sandboxed?.groups && sandboxed.index === 0) return { step: result.index, type: 'sandbox', text: firstLine(sandboxed.groups.headline ?? sandboxed.groups.timeout, ERROR_CHARS) };
  // An editor that could not find the text to replace quotes it, over many lines: keep its first
  // line and the verdict, which comes after the quote.
  const verbatim = /^(ERROR:\s*)?(No replacement was performed, old_str `)([^\n`]*)(\n[\s\S]*?)?(` did not appear verbatim in \S+?)\.?\s*$/m.exec(text);
  if (verbatim) return { step: result.index, type: 'failure', text: `${verbatim[1] ? 'ERROR: ' : ''}${verbatim[2]}${verbatim[3]}${verbatim[4] ? ' …' : ''}${verbatim[5]}.` };
  // A Python traceback ends in the exception line: the last unindented `Name: message` after its header.
  const tb = text.lastIndexOf('Traceback (most recent call last)');
  if (tb >= 0) {
    const after = text.slice(tb).split('\n');
    for (let i = after.length - 1; i > 0; i--) {
      const m = /^((?:[A-Za-z_]\w*\.)*[A-Z]\w*)(?::\s*(\S.*))?$/.exec(after[i].trimEnd());
      if (m && !/^\s/.test(after[i]) && !/^(?:File|During|The above)\b/.test(after[i])) return make(result.index, m[1], m[2]);
    }
  }
  for (const e of lineErrors(result, text, failed)) {
    // A program that says it fell back, in a command that went through, got past the error.
    if (!failed && !result.isError && recoveredAfter(text, e.line)) continue;
    return { step: e.step, type: e.type, text: withListedReason(e.text, text, e.line) };
  }
  // A list of errors under their heading (SWE-agent's editor refusing an edit that would not lint:
  // `ERRORS:` then `- F821 undefined name 'binascii'`): the first item is what was wrong.
  const listed = (failed || result.isError) ? /^ERRORS?:\s*\n\s*[-*•]\s+(\S.*)$/im.exec(text) : null;
  if (listed) return { step: result.index, type: 'failure', text: firstLine(listed[1], ERROR_CHARS) };
  // "Sphinx version error:" and the like: a heading that names the error, the message on the next line.
  let previous: string | undefined;
  for (const line of eachLine(text)) {
    const heading = previous === undefined || NO_ERROR.test(line) ? null : /^([A-Z][\w ]{0,40}\b(?:error|failure|exception))s?:$/i.exec(previous.trim());
    if (heading && line.trim()) return { step: result.index, type: heading[1], text: firstLine(`${heading[1]}: ${line.trim()}`, ERROR_CHARS) };
    previous = line;
  }
  if (failed || result.isError) {
    // (pre-commit's line for a hook that passed says nothing of what failed.)
    const meaningful = outputLines(text, false).filter((l) => !NO_ERROR.test(l) && !/^(?:Passed|Skipped)$/.test(HOOK_STATUS.exec(l)?.[1] ?? ''));
    // An exception named with its message (`litellm.InternalServerError: …` after a harness's "Run ended: …") is the error.
    for (const l of meaningful) {
      const m = /^((?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)):\s+(\S.*)$/.exec(l);
      if (m) return make(result.index, m[1], m[2]);
    }
    // A line that says it failed beats the first line; "ERROR:" alone heads the message on the next line.
    const telling = meaningful.findIndex((l) => /\b(?:error|failed|failure|fatal|cannot|denied|not found|no such file|no module named|invalid|not recognized|not permitted|rejected|unexpected)\b/i.test(l) && !TALLY.test(l) && !HOOK_STATUS.test(l));
    const at = telling >= 0 ? telling : 0;
    const first = /^\w+:$/.test(meaningful[at] ?? '') && meaningful[at + 1] ? `${meaningful[at]} ${meaningful[at + 1]}` : meaningful[at];
    // A line that opens by saying it failed, or names the system's error (`[Errno 2]`, Python's
    // `python: No module named pytest`), is a message
    // even where a word of it reads like code ("… while trying to write to …", "An error occurred while executing …").
    const usable = first && (/^(?:ERROR|Error|error|FAILED|Failed|fatal|Invalid|Cannot|Could not|Unable to|An (?:error|exception) occurred|Timed out)\b|^[Uu]sage: |\[Errno \d+\]|: No module named \S/.test(first) || !CODE_LIKE.test(first) || PROSE.test(first) || (opensWithSentence(first) && !refuses(first)));
    if (usable && telling >= 0) return { step: result.index, type: 'failure', text: headAndTail(firstLine(first, ERROR_CHARS * LONGEST_ERROR), ERROR_CHARS) };
    // A linter's or a compiler's finding, its message beside its location (credo, dialyzer, ruff),
    // says more than a first line that does not say it failed.
    // A build fails on its errors: a warning printed before them (`warning: implicit declaration…`) is not why.
    let warning: Diagnostic | undefined;
    for (const d of diagnosticsOf(text)) {
      if (d.type !== 'warning') return { step: result.index, type: d.type, text: d.text };
      warning ??= d;
    }
    if (warning) return { step: result.index, type: warning.type, text: warning.text };
    if (usable) return { step: result.index, type: 'failure', text: firstLine(first, ERROR_CHARS) };
    // The line that said it failed was code the command printed (a diff's `-  warn!("Failed to
    // parse …");` under `cargo fmt --check`): the output's first line says what it reported.
    const opening = telling > 0 ? meaningful[0] : undefined;
    if (opening && !CODE_LIKE.test(opening) && !/^[-+@]/.test(opening)) return { step: result.index, type: 'failure', text: firstLine(opening, ERROR_CHARS) };
  }
  // A tool that refused the call, and records no status, says so first ("Browser Use rejected this
  // action due to browser security policy", "The tool use was rejected").
  const opening = firstOutputLine(text, false);
  if (opening && refuses(opening)) return { step: result.index, type: 'refusal', text: firstLine(opening, ERROR_CHARS) };
  return undefined;
}

/**
 * An error followed by the list of its reasons (a forge's rule violation: `remote: error: GH013:
 * Repository rule violations found …` then `remote: - Cannot force-push to this branch`) says its
 * first reason after it: the error names a rule, the reason says which. Lines carrying the error
 * line's own prefix (`remote:`) are read through, five at most.
 */
/**
 * A line that opens with a whole sentence of prose is a message, whatever it quotes after it
 * (Gemini CLI's refused edit: "A secondary check by an LLM determined that no changes were
 * necessary to fulfill the instruction. Explanation: … for old_string (function resetTimer() {").
 * A tool's refusal is told as one further down (`refuses`).
 */
function opensWithSentence(line: string): boolean {
  const sentence = /^[A-Z][^.!?]*?[a-z][.!?](?=\s|$)/.exec(line)?.[0];
  return sentence !== undefined && sentence.split(/\s+/).length >= 6 && !CODE_LIKE.test(sentence) && !/[=(){}[\];<>]/.test(sentence);
}

// A program's word that it went on another way (`Using FileKeychain fallback for secure storage.`).
const RECOVERED = /\b(?:fall(?:ing)? ?back|fallback|using (?:the )?default|continuing (?:anyway|without)|will retry|retrying)\b/i;

/** Whether the line after line `at` of `text` (the next one not blank) says the program went on without what failed. */
function recoveredAfter(text: string, at: number): boolean {
  let n = -1;
  for (const line of eachLine(text)) {
    n++;
    if (n > at && line.trim() !== '') return RECOVERED.test(line);
  }
  return false;
}

function withListedReason(error: string, text: string, at: number): string {
  const lines = text.split('\n');
  const prefix = /^(\S+:)\s/.exec(lines[at]?.trim() ?? '')?.[1];
  for (const raw of lines.slice(at + 1, at + 6)) {
    let line = raw.trim();
    if (prefix && line.startsWith(prefix)) line = line.slice(prefix.length).trim();
    else if (prefix && line !== '') break;
    const bullet = /^[-*•]\s+(\S.{2,})$/.exec(line);
    if (bullet) return firstLine(`${error.replace(/[.:]\s*$/, '')}: ${bullet[1].trim()}`, ERROR_CHARS);
  }
  return error;
}

/** Each line of `text` that reads as an error (an exception, a shell's or a build tool's error line), in order, with its line number. */
function* lineErrors(result: Step, text: string, failed: boolean): Generator<ErrorFact & { line: number }> {
  let n = -1;
  let lastMarked = -10; // the last line pytest marked `E`
  let underGoFailure = false; // after Go's `--- FAIL: TestX`, before the next test's line
  let awaitingName = false; // after an `E` block's `File "…", line N`, before the error's name
  for (const raw of eachLine(text)) {
    n++;
    // A block of `E` lines goes on across a line its long message wrapped onto (`…(fixtures used: a, b).'`).
    const inBlock = lastMarked >= n - 2;
    // Output cut by the harness (mini-swe-agent's `<output_tail>`) resumes mid-block, as if marked.
    if (/^E\s/.test(raw) || /^<output_tail>\s*$/.test(raw)) lastMarked = n;
    const line = raw.trim();
    if (!line || /^\s{2,}/.test(raw) && !/^(?:E\s|\*\* \(|[×✘]\s|[\w.-]+_test\.go:\d+: )/.test(line) || NO_ERROR.test(line)) continue;
    // Go's testing: what a failed test reported, at its line of the test file, indented under
    // `--- FAIL: TestX` (`    ssh_integration_test.go:62: Run over SSH shim failed: …`).
    // (A passing test's log line, `go test -v` prints them too, is not under a `--- FAIL:`.)
    if (/^--- FAIL: /.test(line)) underGoFailure = true;
    else if (/^(?:=== (?:RUN|CONT|PAUSE)|--- (?:PASS|SKIP)|PASS$|ok\s)/.test(line)) underGoFailure = false;
    const goTest = underGoFailure ? /^[\w.-]+_test\.go:\d+: (\S.*)$/.exec(line) : null;
    if (goTest) { yield { step: result.index, type: 'go test', text: firstLine(goTest[1], ERROR_CHARS), line: n }; continue; }
    // pytest's short summary: `FAILED tests/a.py::test_x - ValueError: message`.
    const pytest = /^(?:FAILED|ERROR) \S+ - ((?:\w+\.)*\w*(?:Error|Exception|Failure|Exit))(?:: (.+))?$/.exec(line);
    if (pytest) { yield { ...make(result.index, pytest[1], pytest[2]), line: n }; continue; }
    const lint = /^-?\s*[A-Z]\d{3,4} (\w+(?:Error|Exception)): (.+)$/.exec(line);
    if (lint) { yield { ...make(result.index, lint[1], lint[2]), line: n }; continue; }
    const m = EXCEPTION_LINE.exec(line);
    // A result the log marks failed that opens with `TypeError: …` is that error, whatever punctuation follows.
    if (m && (!CODE_LIKE.test(line) || ((failed || result.isError) && m.index === 0 && m[2] !== undefined && /^[A-Z]/.test(line))) && !/Warning$/.test(m[1])) {
      // `InputValidationError: [` and a JSON list of issues below it: the first issue's message says what.
      const body = m[2] === '[' || m[2] === '{' ? /"message"\s*:\s*"((?:[^"\\\n]|\\.){3,300})"/.exec(text.slice(text.indexOf(raw), text.indexOf(raw) + 4000)) : null;
      yield { ...make(result.index, m[1], body ? body[1] : m[2]), line: n };
      continue;
    }
    // A diagnostic in miette's form (Biome, oxc, Turborepo: `  × expected a semicolon …`) or
    // esbuild's (`✘ [ERROR] Could not resolve "x"`), indented or not.
    const crossed = /^[×✘]\s+(?:\[ERROR\]\s+)?(\S.*)$/.exec(line);
    if (crossed) { yield { step: result.index, type: 'error', text: firstLine(crossed[1], ERROR_CHARS), line: n }; continue; }
    // Elixir's exceptions, nested ones indented under what they caused: `** (Mix) Could not start
    // application x: …`, `    ** (BadMapError) expected a map, got:`.
    const elixir = /^\*\* \(([A-Z][\w.]*)\) (\S.*)$/.exec(line);
    // (`** (EXIT) an exception was raised:` only says the next one is why.)
    if (elixir) { if (elixir[1] !== 'EXIT') yield { step: result.index, type: elixir[1], text: firstLine(line, ERROR_CHARS), line: n }; continue; }
    // pytest marks what a failed test or fixture raised with `E` (`E   Failed: Server failed to start`,
    // `E   fixture 'page' not found`): the first such line of a block is the error, the rest its detail.
    const marked = /^E {2,}(\S.*)$/.exec(raw);
    // A SyntaxError shown in the block opens with where (`E     File "x.py", line 1096`, the line,
    // a caret); what went wrong is the block's first `Name: message` line.
    if (marked && /^File "[^"\n]+", line \d+/.test(marked[1])) { awaitingName = true; continue; }
    if (marked && awaitingName) {
      const named = /^((?:[A-Za-z_]\w*\.)*[A-Z]\w*): (\S.*)$/.exec(marked[1]);
      if (named) { awaitingName = false; yield { ...make(result.index, named[1], named[2]), line: n }; }
      continue;
    }
    awaitingName = false;
    if (marked && !inBlock) {
      const named = /^((?:[A-Za-z_]\w*\.)*[A-Z]\w*): (\S.*)$/.exec(marked[1]);
      yield { ...(named ? make(result.index, named[1], named[2]) : { step: result.index, type: 'pytest', text: firstLine(marked[1], ERROR_CHARS) }), line: n };
      continue;
    }
    const logged = ERROR_LOG_LINE.exec(line);
    if (logged) { yield { step: result.index, type: 'log', text: firstLine(logged[1], ERROR_CHARS), line: n }; continue; }
    const shell = shellError(line);
    if (shell) yield { step: result.index, type: shell, text: firstLine(shell === 'CMake' ? `${line} ${nextLine(text.split('\n'), line)}` : line, ERROR_CHARS), line: n };
  }
}

// Lines a build driver prints when a program under it failed: they say where, not what.
const WRAPPER = /^(?:make(?:\[\d+\])?: \*\*\*|npm (?:ERR!|error) |(?:Error: )?Command failed: )/;

/**
 * The other errors a failed result reported besides `first` (a build that stops on three errors,
 * a linter's findings, a hook that fails and says why), each once, at most `max`, in the order
 * they were printed, a build driver's own lines last: what a debugger checks beyond the first line.
 */
export function furtherErrorsOf(result: Step, first: ErrorFact, max = 2): ErrorFact[] {
  const text = messageText(result);
  const found: (ErrorFact & { line: number })[] = [...lineErrors(result, text, true)];
  for (const d of diagnosticsOf(text)) found.push({ step: result.index, type: d.type, text: d.text, line: d.line });
  const seen = new Set([first.text]);
  // The first error told with its reason (`GH013: … for refs/heads/main: Cannot force-push…`) is the line it began with.
  // So is one pytest's short summary cut with "…" (`AssertionError: assert {'status'...`).
  const told = (e: ErrorFact) => [first.text, ...seen].some((t) => t.startsWith(e.text.replace(/(?:\.{3}|…|[.:])\s*$/, '')));
  // A build driver's own lines come after the errors it failed on, and a compiler's warnings last.
  const rank = (e: ErrorFact) => (e.type === 'warning' ? 2 : WRAPPER.test(e.text) ? 1 : 0);
  return found
    .sort((a, b) => rank(a) - rank(b) || a.line - b.line)
    .filter((e) => !told(e) && !seen.has(e.text) && seen.add(e.text))
    .slice(0, max)
    .map(({ step, type, text: t }) => ({ step, type, text: t }));
}

/**
 * An API's error as its body records it (`400 {"type":"error","error":{"type":"invalid_request_error",
 * "message":"…"}}`, `{"error":{"code":429,"message":"…","status":"RESOURCE_EXHAUSTED"}}`): the
 * status, the error's type and its message, read from the fields, not from the JSON's first line.
 */
function apiErrorOf(text: string): { type: string; text: string } | undefined {
  // A body is short; a tool's long JSON output is not an API's error (and is not parsed for one).
  if (text.length > 20_000 || !/^\s*(?:(?:HTTP\s+)?\d{3}\s+)?\{/.test(text)) return undefined;
  const m = /^(?:(?:HTTP\s+)?(\d{3})\s+)?(\{[\s\S]*\})\s*$/.exec(text.trim());
  if (!m) return undefined;
  let body: unknown;
  try { body = JSON.parse(m[2]); } catch { return undefined; }
  if (!body || typeof body !== 'object') return undefined;
  const outer = body as Record<string, unknown>;
  const inner = outer.error && typeof outer.error === 'object' ? outer.error as Record<string, unknown> : typeof outer.error === 'string' ? { message: outer.error } : undefined;
  // An HTTP API's problem details (RFC 9457: `{"type", "title": "Bad Request", "status": 400, "detail"}`).
  const problem = !inner && typeof outer.status === 'number' && outer.status >= 400 && (typeof outer.detail === 'string' || typeof outer.title === 'string');
  // Without an `error` field, only a status of 400 or more makes a body's message an error.
  const message = inner ? inner.message : Number(m[1]) >= 400 ? outer.message : problem ? outer.detail ?? outer.title : undefined;
  if (typeof message !== 'string' || /^\s*(?:none|null|nil|n\/a|ok)?\s*$/i.test(message)) return undefined;
  const kind = (problem ? [outer.title] : [inner?.type, inner?.status, inner?.code, outer.type !== 'error' ? outer.type : undefined]).find((x) => typeof x === 'string' && x !== '') as string | undefined;
  const status = m[1] ?? (typeof inner?.code === 'number' ? String(inner.code) : problem ? String(outer.status) : undefined);
  const head = [status, kind].filter(Boolean).join(' ');
  return { type: kind ?? 'API error', text: head ? `${head}: ${message.trim()}` : message.trim() };
}

// Prose may say "with" or "for": only a numbered line or one that opens like code is not a sentence.
const NUMBERED_OR_CODE = /^\s*(?:\d+[:\t|→]|[#/*<{[(])/;

/**
 * Whether the harness refused the call before it ran (the person declined it, its permission
 * request failed): the log's error flag on a first line that says so. Such a call ran nothing.
 */
export function refusedCall(result: Step | undefined): boolean {
  if (!result?.isError) return false;
  const opening = firstOutputLine(messageText(result), false);
  return opening !== undefined && (refuses(opening) || /^Tool permission request failed\b/.test(opening));
}

/** A line that says the call was refused, in prose (not a numbered line or code). */
function refuses(line: string): boolean {
  return REFUSAL.test(line) && !NUMBERED_OR_CODE.test(line);
}
const REFUSAL = /\b(?:rejected|refused|denied|blocked|declined)\s+(?:this|the|your)\s+(?:action|request|tool|command|operation|call)\b|\b(?:action|request|tool use|tool call|command|operation|call)\s+(?:(?:was|has been|is)\s+(?:rejected|refused|denied|blocked|declined|not allowed)\b|(?:rejected|refused|denied|declined)\s+by\s+(?:the\s+)?user\b)/i;

/** A result's first line as its error: a read or an edit told failed by that line ("File too large to read at once (46.3 KB). …"). */
export function openingError(result: Step): ErrorFact | undefined {
  const opening = firstOutputLine(result.text);
  return opening ? { step: result.index, type: 'failure', text: bounded(opening, ERROR_CHARS) } : undefined;
}

function make(step: number, type: string, message?: string): ErrorFact {
  const short = type.split('.').pop()!;
  return { step, type: short, text: message ? firstLine(`${short}: ${message}`, ERROR_CHARS) : short };
}

/** Error lines shells and build tools print, by what they are. */
function shellError(line: string): string | undefined {
  // The synopsis an argument parser prints above its error (`ERROR: usage: pytest [options] …`) is none.
  if (/^(?:error|fatal):\s+usage:\s/i.test(line)) return undefined;
  if (/: command not found$/.test(line) || /^\w+:(?:\d+:)? command not found: \S/.test(line)) return 'command not found';
  // git: a merge or rebase that stopped on a conflict, a push the remote refused.
  if (/^CONFLICT \([^)]+\): \S/.test(line)) return 'conflict';
  if (/^! \[(?:remote )?rejected\]\s/.test(line)) return 'push rejected';
  if (/: No such file or directory$/.test(line) && !/^\s*#/.test(line)) return 'No such file or directory';
  if (/: Permission denied$/.test(line)) return 'Permission denied';
  if (/^ERROR: /.test(line)) return 'ERROR';
  if (SUBJECT_FAILED.test(line)) return 'failure';
  if (/^(?:fatal|error)(?:\[\w+\])?: /i.test(line)) return /^fatal/i.test(line) ? 'fatal' : 'error';
  if (/^E: /.test(line)) return 'apt';
  if (/^CMake Error\b/.test(line)) return 'CMake';
  if (/^make(?:\[\d+\])?: \*\*\* /.test(line)) return 'make';
  if (/^npm (?:ERR!|error) /.test(line)) return 'npm';
  // A tool that names itself first (`gpkg: ERROR: failed to get a token`).
  if (/^[\w.-]+: (?:ERROR|FATAL|fatal|error): \S/.test(line)) return 'error';
  if (/^\S+\.\w+:\d+(?::\d+)?: error: /.test(line)) return 'compiler';
  if (/\berror TS\d+: /.test(line)) return 'TypeScript';
  return undefined;
}

/** Whether the test pytest heads `TestX.test_y[p]` is `id` (`tests/a.py::TestX::test_y[p]`, or the heading's own spelling). */
export function sameTest(headed: string, id: string): boolean {
  return id === headed || id.endsWith(`::${headed.replace('.', '::')}`);
}

export interface TestRun {
  /** One line: `3 failed, 12 passed`, `OK`, `exit 1`. */
  outcome: string;
  failing: string[];
  passing: string[];
  ok?: boolean;
}

const TEST_COMMAND = /\b(pytest|py\.test|unittest|nose2?|tox|jest|vitest|mocha|ava|(?:npm|yarn|pnpm|bun)\s+(?:run\s+)?test|(?:go|cargo|mix|dotnet|swift|deno|zig build)\s+test|playwright\s+test|mvn\s+test|gradle\w*\s+test|rspec|phpunit|make\s+(?:test|check)|ctest|runtests?\.py|bin\/test|manage\.py\s+test|\w+\.tests?\b)/;

export function isTestCommand(command: string): boolean {
  return TEST_COMMAND.test(command);
}

/** What a test run reports: its summary line and the test ids that failed or passed. */
export function testRun(result: Step, exitCode: number | undefined): TestRun {
  const text = messageText(result);
  const failing = new Set<string>();
  const passing = new Set<string>();
  // A parametrised id keeps its brackets whole: `test_float_exponent[2.5e+3-2.5E+03]`.
  for (const m of text.matchAll(/^(?:FAILED|ERROR)\s+([\w./-]+(?:::[\w./-]+)+(?:\[[^\]\n]*\])?)/gm)) failing.add(m[1]);
  for (const m of text.matchAll(/^([\w./-]+\.py(?:::[\w./-]+)+(?:\[[^\]\n]*\])?)\s+(PASSED|FAILED|ERROR)\b/gm)) (m[2] === 'PASSED' ? passing : failing).add(m[1]);
  // unittest: `FAIL: test_x (pkg.tests.TestY)`; from Python 3.11 the parentheses hold the whole id (`pkg.tests.TestY.test_x`).
  for (const m of text.matchAll(/^(?:FAIL|ERROR): (\w+) \(([\w.]+)\)/gm)) failing.add(m[2].endsWith(`.${m[1]}`) ? m[2] : `${m[2]}.${m[1]}`);
  for (const m of text.matchAll(/^--- FAIL: (\S+)/gm)) failing.add(m[1]);
  for (const m of text.matchAll(/^test (\S+) \.\.\. FAILED$/gm)) failing.add(m[1]);
  // A failure's section heading (`____ TestX.test_y[chromium] ____`) names a test the summary (cut
  // by `| head`) may not: told as pytest heads it, unless the summary names it with its file.
  // SymPy's runner heads a failure with the file and the test: `____ sympy/core/tests/test_x.py:test_y ____`.
  for (const m of text.matchAll(/^_{3,} ((?:Test\w*\.)?test\w*(?:\[[^\]\n]*\])?|[\w./-]+\.py:test\w*) _{3,}$/gm)) {
    if (![...failing].some((f) => sameTest(m[1], f))) failing.add(m[1]);
  }
  // ExUnit: `  1) test sync/2 is idempotent (Spotter.SyncTest)`; the test's name is `test sync/2 …`.
  for (const line of eachLine(text)) { const m = EXUNIT_FAILURE.exec(line.trim()); if (m) failing.add(m[1]); }
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  const summary = [...lines].reverse().find((l) => /\b\d+ (?:passed|failed|errors?|skipped|deselected|tests?)\b/i.test(l) || /^no tests ran\b/.test(l) || /^(?:OK|FAILED)\b/.test(l) || /^test result: /.test(l) || /^Tests?:\s+\d/.test(l));
  let outcome = summary ? firstLine(summary.replace(/^=+\s*|\s*=+$/g, ''), 160) : goPackages(lines) ?? (exitCode === undefined ? 'outcome not shown' : `exit ${exitCode}`);
  let ok: boolean | undefined;
  if (failing.size > 0 || /\b[1-9]\d* (?:failed|errors?|failures?)\b|^FAILED|test result: FAILED|packages? failed\b/i.test(outcome)) ok = false;
  else if (/\bpassed\b|^OK\b|test result: ok|\b0 failures\b|packages? ok$/i.test(outcome)) ok = true;
  else if (exitCode !== undefined) ok = exitCode === 0;
  if (!summary && ok === false && failing.size && !/packages? failed/.test(outcome)) outcome = `${failing.size} failed`;
  return { outcome, failing: [...failing], passing: [...passing], ok };
}

/**
 * `go test ./...` prints no tally: a line per package, `ok  pkg 0.6s` or `FAIL pkg 0.2s`. Told as
 * `12 packages ok` or `1 of 12 packages failed: github.com/u/x/cmd`.
 */
function goPackages(lines: readonly string[]): string | undefined {
  const ok = lines.filter((l) => /^ok\s+\S+\s+(?:\d+(?:\.\d+)?s|\(cached\))/.test(l)).length;
  const failed = lines.map((l) => /^FAIL\s+(\S+)\s+(?:\d+(?:\.\d+)?s|\[build failed\]|\[setup failed\])/.exec(l)?.[1]).filter((p): p is string => p !== undefined);
  if (!ok && !failed.length) return undefined;
  const all = ok + failed.length;
  return failed.length ? `${failed.length} of ${all} packages failed: ${failed.slice(0, 3).join(', ')}` : `${ok} package${ok === 1 ? '' : 's'} ok`;
}

// Lines agents wrap around command output that say nothing about the command itself.
// Copilot CLI's `<exited with exit code 0>` and `<shellId: 24 completed with exit code 0>` footers,
// Codex's `Exit code: 1` header, Kimi CLI's `<system>Command executed successfully.</system>`
// status line, OpenHands' `[Current working directory: …]` footers and its editor's `Here's the
// result of running `cat -n` on …:` header, and OpenCode 1.x's `<path>…</path>`, `<type>file</type>`,
// `<content>` around what its read tool read, and Gemini CLI's shell report around the output
// (`Directory: (root)`, `Error: (none)`, `Exit Code: 0`, `Signal: 0`, `Background PIDs: (none)`,
// `Process Group PGID: 271975`, and `Output: ` before the output's first line), are the log's own wrapper (the exit status is read from
// them on its own); a status line that says the command failed is kept.
const BOILERPLATE = /^(?:Exit [Cc]ode:? (?:-?\d+|\(none\))|Error: \(none\)|Signal: (?:\d+|\(none\))|Background PIDs: .*|Process Group PGID: .*|Directory: \(root\)|<exited with exit code -?\d+>|<shellId: \d+ completed with exit code -?\d+>|<system>(?![^<]*\b(?:ERROR|[Ee]rror|[Ff]ailed|FAILED)\b)[^<]*<\/system>|\(Open file: .*\)|\(Current directory: .*\)|bash-\$.*|Chunk ID: .*|Wall time: .*|Process exited with code .*|Process running with session ID \d+|\[[\w-]+(?: for '.*')?\] Result:|Original token count: .*|Output:|OBSERVATION:|<\/?(?:returncode|output)>.*|<path>[^<]*<\/path>|<type>\w+<\/type>|<\/?content>|\[The command completed with exit code .*\]|\[Command finished .*\]|\[Current working directory: .*\]|\[Python interpreter: .*\]|Here's the result of running `cat -n` on .*:|Your command ran successfully and did not produce any output\.?)$/;

/** Whether a line is what a harness wraps around output (`Exit code: 0`, `Wall time: …`), not output. */
export function isHarnessLine(line: string): boolean {
  return BOILERPLATE.test(line.trim());
}

/** The meaningful lines of a result: cleaned (unless `clean` is false: it is already), blank and wrapper lines dropped. */
function outputLines(text: string, clean = true): string[] {
  return [...eachOutputLine(text, clean)];
}

/**
 * The same lines one at a time, for callers that want the first, the last or any: a tool output
 * of 200 MB is not split into an array of millions of lines to read one of them.
 */
const RULE_ENDS = /^([=_~*-])\1{2,}\s+(?=\S)|(?<=\S)\s+([=_~*-])\2{2,}$/g;

// Gemini CLI's shell report puts its output's first line after `Output: ` (`Output: total 8`).
const GEMINI_OUTPUT = /^Output: (?=\S)/m;

export function* eachOutputLine(text: string, clean = true): Generator<string> {
  for (const raw of eachLine(clean ? cleanText(text) : text)) {
    // pytest's and many tools' rules around a verdict (`===== 2 failed in 1.2s =====`) say nothing.
    const line = raw.trim().replace(RULE_ENDS, '').replace(GEMINI_OUTPUT, '');
    if (line === '' || BOILERPLATE.test(line)) continue;
    const parts = contentPartsText(line);
    if (parts === undefined) yield line;
    else for (const part of eachLine(parts)) if (part.trim() !== '') yield part.trim();
  }
}

/**
 * The text of a line that is a JSON list of content parts (`[{"type":"text","text":"…"}]`, Codex's
 * `js` tool), one part (`{"type":"output_text","text":{"value":"…"}}`), or a command's output with
 * its status beside it (an earlier Codex's shell, an orchestrator's check), else undefined.
 */
function contentPartsText(line: string): string | undefined {
  if (!/^\[?\{"(?:type|output|command|success|stdout|stderr)":/.test(line) || line.length > 1_000_000) return undefined;
  let parsed: unknown;
  try { parsed = JSON.parse(line); } catch { return undefined; }
  // A tool that answers a command with its streams and status (`{"success":false,"stdout":"…",
  // "stderr":"…","return_code":1}`, MCP shell and analysis tools): what it printed, stdout then stderr.
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed) && ('stdout' in parsed || 'stderr' in parsed)) {
    const { stdout, stderr } = parsed as { stdout?: unknown; stderr?: unknown };
    const streams = [stdout, stderr].filter((x): x is string => typeof x === 'string' && x !== '');
    return streams.length ? streams.join('\n') : undefined;
  }
  // Codex 0.3x–0.5x: a shell call's output as `{"output":"…","metadata":{"exit_code":0,…}}`; an
  // orchestrator's check as `{"command":"bun run typecheck","passed":false,"output":"…"}` (ATIF,
  // OpenAgents): what the command printed, its status read apart.
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed) && ['metadata', 'passed', 'exit_code', 'exitCode', 'success'].some((k) => k in parsed)) {
    const output = (parsed as { output?: unknown }).output;
    return typeof output === 'string' ? output : undefined;
  }
  const texts: string[] = [];
  for (const part of Array.isArray(parsed) ? parsed : [parsed]) {
    const t = part && typeof part === 'object' ? (part as { text?: unknown }).text : undefined;
    const value = t && typeof t === 'object' ? (t as { value?: unknown }).value : t;
    if (typeof value === 'string') texts.push(value);
  }
  return texts.length ? texts.join('\n') : undefined;
}

// A line's number as editors and `cat -n` print it: `     1→`, `  12\t`, `3. ` (Copilot CLI's view), `4 | `,
// `5: ` (OpenCode's read), and a blank line's number alone once its trailing space is trimmed (`6:`, `2.`).
export const LINE_NUMBER = /^\d+(?:→|\t|\.\s|\.$|\s*\|\s?|:\s|:$)/;
// Lines that open many files and say nothing of this one: no letter or digit (`---`, `{`), a
// shebang, a strictness pragma, an import.
export const OPENING_NOISE = /^(?:[^\p{L}\p{N}]*$|#!|['"]use strict['"]|(?:import|from\s+\S+\s+import|use|require|#include|using)\b)/u;

/**
 * What a file read showed first, for a summary's list of files read: its first two meaningful lines
 * (a module's name, a package's, a document's title), line numbers and openers every file shares
 * left out. Nothing for a listing of paths, where a folder was read.
 */
export function readGist(text: string, max = 100): string | undefined {
  // Cleaned once for both passes: a read returns whole files.
  const clean = cleanText(text);
  if (pathListOf(clean, 8, false)) return undefined;
  const lines: string[] = [];
  let names = 0;
  let seen = 0;
  for (const raw of eachOutputLine(clean, false)) {
    const line = raw.replace(LINE_NUMBER, '').trim();
    if (++seen <= 3 && ENTRY_NAME.test(line)) names++;
    if (seen > 3 && lines.length === 2) break;
    // A line of hundreds of characters is data (minified code, a blob), not what the file is; a line
    // that reads as an error (a docstring's `ValueError: …`) would read as one in the summary.
    if (line === '' || line.length > 300 || OPENING_NOISE.test(line) || EXCEPTION_LINE.test(line) || shellError(line) || lines.length === 2) continue;
    lines.push(line);
  }
  // A folder's entries (`.claude`, `src`, `Cargo.toml`), one a line: a listing, not a file.
  if (names >= Math.min(3, seen)) return undefined;
  return lines.length ? bounded(lines.join(' · '), max) : undefined;
}

// One bare name, as a folder listing prints its entries.
const ENTRY_NAME = /^[\w.@+-]+\/?$/;

// A line that is a path and nothing else: `src/lib.rs`, `/home/u/a/b.ex`, `./x/`.
const PATH_LINE = /^(?:[~.]{0,2}\/)?[\w.@+-]+(?:\/[\w.@+-]*)+$|^[\w@+-][\w.@+-]*\.[A-Za-z]\w{0,7}$/;

/** The paths a search or listing returned, when every line it printed is one and there are at least `least` (at most `max`, then how many more). */
export function pathListOf(text: string, max = 8, clean = true, least = 2): string | undefined {
  const paths: string[] = [];
  let more = 0;
  for (const line of eachOutputLine(text, clean)) {
    if (!PATH_LINE.test(line)) return undefined;
    if (paths.length < max) paths.push(line);
    else more++;
  }
  return paths.length >= least ? `${paths.join(', ')}${more ? ` and ${more} more` : ''}` : undefined;
}

// A long listing's entry (`ls -l`): mode, links, owner, group, size, date, then the name.
export const LISTING_ENTRY = /^[-dlcbps][-rwxsStT]{9}[@+.]?\s/;
// The date before the name: `Feb  1 14:24`, `1 Feb 2025`, `2026-02-01 14:24:05.123 +0000`.
const LISTING_NAME = /(?:\s[A-Z][a-z]{2}\s+\d{1,2}\s+(?:\d{1,2}:\d{2}|\d{4})|\s\d{1,2}\s+[A-Z][a-z]{2}\s+(?:\d{1,2}:\d{2}|\d{4})|\s\d{4}-\d{2}-\d{2}(?:\s+\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s+[+-]\d{4})?)?)\s+(\S.*)$/;

/**
 * What a long listing (`ls -la`) holds, by name, folders marked with `/` (`feature/,
 * worktree-tracking.md`), `.` and `..` left out; its first line (`total 8`) says nothing.
 */
export function listingOf(text: string, max = 4): string | undefined {
  const names: string[] = [];
  let more = 0;
  for (const line of eachOutputLine(text)) {
    if (/^total \d+$/.test(line)) continue;
    if (!LISTING_ENTRY.test(line)) return undefined;
    const name = LISTING_NAME.exec(line)?.[1].replace(/ -> .*$/, '');
    if (!name || name === '.' || name === '..') continue;
    if (names.length < max) names.push(line.startsWith('d') ? `${name}/` : name);
    else more++;
  }
  return names.length ? `${names.join(', ')}${more ? ` and ${more} more` : ''}` : 'empty';
}

/** `text.split('\n')` one line at a time: a huge output is not split into an array of millions of lines. */
function* eachLine(text: string): Generator<string> {
  for (let start = 0; start <= text.length;) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    yield text.slice(start, end);
    start = end + 1;
  }
}

/** The first meaningful line of a result (`outputLines(text)[0]`). */
export function firstOutputLine(text: string, clean = true): string | undefined {
  // A JSON document's opening bracket alone says only that: `{…}`, `[…]`.
  for (const line of eachOutputLine(text, clean)) return line === '{' ? '{…}' : line === '[' ? '[…]' : line;
  return undefined;
}

/**
 * An output of two short lines, told whole (`HEAD is now at 38a1d24 … · Preparing worktree (new
 * branch 'x')`): its second line is as much its outcome as its first. Undefined for one line, for
 * three or more, or past `max` characters.
 */
export function twoLineOutput(text: string, max = 160): string | undefined {
  const lines: string[] = [];
  for (const line of eachOutputLine(text)) {
    if (lines.push(line) > 2) return undefined;
  }
  const joined = lines.join(' · ');
  return lines.length === 2 && joined.length <= max ? joined : undefined;
}

// A report's opening about how its writer got there ("Perfect! Now I have a comprehensive
// understanding of the codebase. Let me compile…"), not what it found: sub-agents open so.
const REPORT_PREAMBLE = /^(?:(?:perfect|excellent|great|good|okay|ok|alright|all right)[!.,]\s*)?(?:now,?\s+)?(?:i(?:'ve| have)? (?:now )?(?:have|understand|gathered|explored|got|found enough)|i now\b|let me\b|i'll (?:search|look|check|find|research)\b|based on (?:my|the|all) )/i;

// A list of links as data (`Links: [{"title":…,"url":…}]`): where a search looked, not what it found.
const LINK_DATA = /^(?:links|sources|results)\s*:\s*[[{]/i;

/**
 * What a report (a sub-agent's answer, a web search's digest) opens with, past a preamble about
 * how it got there: its heading (`# CodeMie Code Repository - Comprehensive Architectural
 * Overview`) or first statement. A line that repeats the call's own input (`Web search results for
 * query: "…"`, given in `echoes`) or lists links as data is preamble too. Undefined when it has no
 * preamble, or nothing but.
 */
export function reportOpening(text: string, echoes: readonly string[] = []): string | undefined {
  let skipped = false;
  let heading: string | undefined;
  // An echo ends with the input it repeats (`… for query: "tokio runtime"`), after a short lead.
  const echo = (line: string) => echoes.some((e) => e.length >= 8 && line.replace(/["'`:.\s]+$/, '').endsWith(e) && line.length <= e.length + 60);
  for (const line of eachOutputLine(text)) {
    if ((REPORT_PREAMBLE.test(line) || echo(line) || LINK_DATA.test(line)) && heading === undefined) { skipped = true; continue; }
    if (/^[-=*_\s]{3,}$/.test(line)) continue; // a rule under the preamble
    if (!skipped) return undefined;
    const bare = line.replace(/^#{1,6}\s+/, '');
    // A heading of a word or two ("## Summary") names no finding: the line under it does.
    if (heading === undefined && bare !== line && bare.split(/\s+/).length <= 2) { heading = bare; continue; }
    return heading === undefined ? bare : `${heading}: ${bare}`;
  }
  return heading;
}

/** Whether any meaningful line passes `test` (`outputLines(text).some(test)`). */
export function someOutputLine(text: string, test: (line: string) => boolean): boolean {
  for (const line of eachOutputLine(text)) if (test(line)) return true;
  return false;
}

// The shell's own diagnostic, as bash, zsh, dash and sh print it: `zsh:1: command not found: x`,
// `bash: line 3: x: command not found` (in Japanese `bash: 行 1: x: コマンドが見つかりません`), `/bin/sh: 1: x: not found`, `sh: 2: Syntax error: …`.
// PowerShell's, under its error gutter: `     | The term 'head' is not recognized as a name of a cmdlet, …`
// (Windows PowerShell: `head : The term 'head' is not recognized as the name of a cmdlet, …`).
const SHELL_COMPLAINT = /^(?:\/(?:usr\/)?bin\/)?(?:ba|z|da|k)?sh:(?:\s*(?:line|[^\x00-\x7f]{1,4}))?\s*\d+:\s*\S.*|^\s*(?:\|\s*)?(?:\S+ : )?The term '[^'\n]+' is not recognized as (?:a|the) name of a cmdlet\b.*/;

// What a program's line in its own name says when it is a fault, not a notice (`go: downloading …`,
// `tar: Removing leading '/'`, `grep: x: binary file matches`).
const PROGRAM_FAULT = /\b(?:error|cannot|can't|could not|couldn't|no such|not found|invalid|unknown|unrecognized|illegal|missing|denied|failed|unable|unterminated|unexpected|usage|no module named)\b/i;
const escapeRegExp = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The shell's first complaint in `text`, with how many more it made (`… (and 5 more)`), if any; with
 * `programs` (the command's), also one of them complaining in its own name, as GNU and BSD tools do
 * on stderr (`sed: -e expression #1, char 47: unknown option to `s'`, hidden by `|| true`), not its
 * warnings and notices.
 */
export function shellComplaintOf(text: string, programs: readonly string[] = []): string | undefined {
  const ownName = programs.length ? new RegExp(`^(?:\\S*/)?(?:${programs.map(escapeRegExp).join('|')}): \\S`) : undefined;
  const ownComplaint = (line: string) => !!ownName?.test(line) && !/\bwarning\b/i.test(line) && PROGRAM_FAULT.test(line);
  let first: string | undefined;
  let more = 0;
  for (const line of eachOutputLine(text)) {
    if (!SHELL_COMPLAINT.test(line) && !ownComplaint(line)) continue;
    if (first === undefined) first = bounded(line.replace(/^\s*\|\s*/, ''), 120);
    else more++;
  }
  return first && more ? `${first} (and ${more} more)` : first;
}

// A line where a script says how it went: `FAILURE: …`, `SUCCESS: …`, `Test passed`, `ERROR …`.
const VERDICT_LINE = /^(?:\W{0,3})(?:FAIL(?:URE|ED)?|SUCCESS(?:FUL)?|PASS(?:ED)?|ERROR|OK|BUG|FIXED|Success|Failure|Failed|Passed|Error)\b|\b(?:test(?:s)? (?:passed|failed)|all (?:tests|checks) pass)/i;

// What version control reports it recorded: a commit (`[main b05d732] Fix the parser`, after
// whatever the hooks printed) and a push (`a527e1b..c5c5e98  main -> main`). The hash is what a
// person checks the run against, so a command's outcome names it before anything else it printed.
// A tracker's or a forge's CLI ticks what it changed (`✓ Closed issue owner/repo#1`, `✓ Created pull
// request …`, `✓ Merged …`): the same kind of record.
const COMMIT_LINE = /^\[[^\]\s]+(?: \([^)\n]*\))? [0-9a-f]{7,40}\] \S|^Commit(?:ted)? [0-9a-f]{7,40}\b:? \S/;
const COMMIT_STAT = /^\d+ files? changed(?:, \d+ insertions?\(\+\))?(?:, \d+ deletions?\(-\))?$/;
const TICK_LINE = /^[✓✔] (?:Closed|Created|Merged|Reopened|Deleted|Pushed|Released|Published|Deployed|Approved)\b/;
const PUSH_LINE = /^(?:[+*] )?[0-9a-f]{7,40}\.\.\.?[0-9a-f]{7,40}\s+\S+\s+->\s+\S+|^\* \[new (?:branch|tag)\]\s+\S+\s+->\s+\S+/;

/**
 * The commit or push version control reported in `text`, or the ticks a tracker printed, if any,
 * within 140 characters. A commit is told with what it holds too (`… · 2 files changed, 3
 * insertions(+), 20 deletions(-)`).
 */
export function recordLineOf(text: string): string | undefined {
  let commit: string | undefined;
  const ticks: string[] = [];
  for (const line of eachOutputLine(text)) {
    if (commit) return COMMIT_STAT.test(line) ? `${commit} · ${line}` : commit;
    // A tracker's CLI that changed several things ticks each (`bd close a.6 && bd close a`): up to three.
    if (TICK_LINE.test(line)) {
      if (ticks.push(bounded(line, 100)) === 3) break;
    } else if (ticks.length) break;
    else if (PUSH_LINE.test(line)) return bounded(line, 140);
    else if (COMMIT_LINE.test(line)) commit = bounded(line, 140);
  }
  return commit ?? (ticks.length ? ticks.join(' · ') : undefined);
}

// A script's own report of an error it met (`Page error: Cannot read properties of undefined …`):
// what it printed about it, not a verdict on the step (its exit status and error flag decide that).
const REPORTED_ERROR = /^(?:[A-Z][\w-]*\s){1,2}(?:error|exception|failure)s?:\s+\S/i;

/**
 * What a script said last about how it went: its last verdict line (`FAILURE: …`), else the first
 * error it reported, else what the
 * JSON object it printed is (an issue tracker's new issue: its id and title), else its last line
 * with a letter or a digit (not a closing brace).
 */
export function tellingOutputLine(text: string): string | undefined {
  let last: string | undefined;
  let verdict: string | undefined;
  let reported: string | undefined;
  for (const line of eachOutputLine(text)) {
    if (/[\p{L}\p{N}]/u.test(line)) last = line;
    if (VERDICT_LINE.test(line) && !NO_ERROR.test(line)) verdict = line;
    else if (!reported && REPORTED_ERROR.test(line) && !NO_ERROR.test(line)) reported = line;
  }
  return verdict ?? reported ?? diffGist(text) ?? jsonObjectGist(text) ?? last;
}

/**
 * A unified diff a command printed (`git diff`, `diff -u`), told by what it changes: its files, its
 * first hunk's header, how many lines it adds and removes, and its first added line with words
 * (`ai_clean/analyzers/advanced.py: @@ -50,6 +50,16 @@, +10 −0: Generate Codex-backed …`).
 */
function diffGist(text: string): string | undefined {
  if (text.length > 2_000_000 || !/^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@/m.test(text) || !/^\+\+\+ \S/m.test(text)) return undefined;
  const files: string[] = [];
  let hunk: string | undefined;
  let added = 0;
  let removed = 0;
  let first: string | undefined;
  for (const line of text.split('\n')) {
    const file = /^\+\+\+ (?:b\/)?(\S+)/.exec(line);
    if (file) { if (file[1] !== '/dev/null' && !files.includes(file[1])) files.push(file[1]); continue; }
    if (line.startsWith('---')) continue;
    if (line.startsWith('@@')) { hunk ??= /^@@ [^@]+ @@/.exec(line)?.[0]; continue; }
    if (line.startsWith('+')) { added++; if (!first && /\p{L}{3}/u.test(line)) first = line.slice(1).trim().replace(/^[^\p{L}\p{N}]+/u, ''); } else if (line.startsWith('-')) removed++;
  }
  if (!hunk) return undefined;
  const where = files.length > 2 ? `${files.slice(0, 2).join(', ')} and ${files.length - 2} more` : files.join(', ');
  return `${where}: ${hunk}, +${added} −${removed}${first ? `: ${bounded(first, 90)}` : ''}`;
}

/** `agent-engram-gsa.1: Phase 1: Remove Tool Dispatch (open)` for a JSON object with an id, a title or name, a status. */
function jsonObjectGist(text: string): string | undefined {
  // Only a short output that opens like JSON is read as a whole.
  if (text.length > 50_000 || !/^[[{]/.test(firstOutputLine(text) ?? '')) return undefined;
  const body = [...eachOutputLine(text)].join('\n');
  if (!/[\]}]$/.test(body)) return undefined;
  let parsed: unknown;
  // A terminal that wrapped long lines broke the JSON's strings: its one-line fields still read.
  try { parsed = JSON.parse(body); } catch { parsed = Object.fromEntries([...body.slice(0, 4000).matchAll(/^\s*"(\w+)"\s*:\s*"([^"\n]*)",?$/gm)].map((m) => [m[1], m[2]])); }
  const o = (Array.isArray(parsed) && parsed.length === 1 ? parsed[0] : parsed) as Record<string, unknown> | null;
  if (!o || typeof o !== 'object' || Array.isArray(o)) return undefined;
  const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : typeof v === 'number' ? String(v) : undefined);
  const title = str(o.title) ?? str(o.name) ?? str(o.summary) ?? str(o.message);
  if (!title) return undefined;
  const id = str(o.id) ?? str(o.key) ?? str(o.number);
  const status = str(o.status) ?? str(o.state);
  return `${id ? `${id}: ` : ''}${title}${status ? ` (${status})` : ''}`;
}
