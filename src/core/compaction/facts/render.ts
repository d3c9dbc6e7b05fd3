// Facts as lines of a summary, and summaries fitted to a budget. Every strategy picks the lines it
// needs and arranges them under its own headings; what is cut to fit says how much was left out.

import { bounded, counted, leastPassing, saidIn, tidy, unique } from './hygiene';
import {
  ANSWERED_PREFIX, callName, describeChange, describeCommand, describeFailedEdit, describeTest, describeTodo, failedEdits, filesChanged, filesRead, readGistOf, samePath,
  type CommandFact, type Facts, type FileChange,
} from './facts';
import { installsDependency, returnsFinding } from './calls';
import { isTestCommand } from './outcomes';
import { taskTrackingOf } from './plans';
import { typedFirst, typedIntoPrompt } from './requests';

export const EXTRACTIVE_NOTE = '[Extractive summary: assembled from the trajectory itself; no model was used.]';

/** The task, whole sentences, bounded. */
// The person's words are cut at a word, never at the first sentence end that fits: in "Add the
// endpoint. Then run the test suite." the sentence after is as binding as the first.
// A long first request is often the person's words around something pasted (a review, a log):
// its closing line, when it is short, is their instruction (`lets talk through these points …
// move to c11`), and a task line that keeps only the opening keeps only the paste.
export function taskLine(facts: Facts, max = 1500): string | undefined {
  if (!facts.task) return undefined;
  return taskWithClosing(facts.task.text, max);
}

/** `text` in `max` characters: its opening, and its closing line when that is someone's words and the opening is cut. */
// A saved prompt's expansion is told by what the person typed into it first (typedFirst); its
// closing line and its "I want…" sentences are the prompt author's (typedIntoPrompt), not theirs.
export function taskWithClosing(text: string, max: number): string {
  const shown = typedFirst(text);
  const opening = bounded(shown, max, false);
  const closing = closingLine(typedIntoPrompt(text) ?? text);
  if (!opening.endsWith('[…]') || !closing || closing.length > max / 2 || opening.includes(closing)) return opening;
  return `${bounded(shown, max - closing.length - 1, false)} ${closing}`;
}

/** The task's opening only, bounded (a source's "the request in one sentence"). */
export function taskOpening(facts: Facts, max: number): string | undefined {
  if (!facts.task) return undefined;
  return bounded(typedFirst(facts.task.text), max, false);
}

/** The last line of a long text when it reads as someone's words (letters, not a table, a rule or code), else undefined. */
function closingLine(text: string): string | undefined {
  const lines = text.trimEnd().split('\n');
  const last = lines[lines.length - 1].replace(/\s+/g, ' ').trim();
  if (lines.length < 3 || last.length < 4 || !/\p{L}{2,}/u.test(last) || /^(?:[|#>`*_-]|\d+[.)]\s|<\/?\w)/.test(last)) return undefined;
  return last;
}

// A sentence in which the person says what they want (`I want you to…`, `I would like…`, `I'm especially interested in…`).
const WANTS = /\bi(?:'d| would)? (?:want|like|need)\b|\bi'?m (?:\w+ )?(?:interested in|looking for)\b/i;
// A line the person pasted that says what went wrong (`└ Denied by preToolUse hook …`).
// The box-drawing characters a terminal UI frames a panel with: one set, three uses.
const FRAME_SET = '┃│└├┌┐┘┤╭╮╰╯║';
const FRAME = new RegExp(`^[${FRAME_SET}]`);
const FRAME_CHARS = new RegExp(`[${FRAME_SET}]+`, 'g');
const PIECE_BREAK = new RegExp(`(?=[${FRAME_SET}])|\\n+|[ \\t]{3,}`);
const WENT_WRONG = /\b(?:error|errored|failed|failure|denied|cannot|can't|could not|not found|refused|rejected|exception|panic)\b/i;

/**
 * The parts of a long task, past its first `after` characters, that say what the person wants,
 * within `max` characters and in order: the sentences in which they say so in the first person,
 * the lines they pasted from a terminal's panel that say what went wrong, and the closing words after such a paste (`… and fix`). A summary
 * that keeps only the task's opening (a source's "the request in one sentence") keeps these beside
 * it. Pasted output is split where a terminal drew a frame or padded with spaces.
 */
export function taskWants(facts: Facts, after: number, max: number): string | undefined {
  if (!facts.task) return undefined;
  const raw = (typedIntoPrompt(facts.task.text) ?? facts.task.text).slice(0, 100_000);
  const whole = bounded(raw, 100_000, false);
  if (whole.length <= after) return undefined;
  // Where the opening ends in the raw text: its last few words, found again.
  // The raw text only has more spaces, so the opening ends no earlier there than in `whole`.
  const needle = whole.slice(Math.max(0, after - 24), after).trim().split(' ').slice(-2).join(' ');
  const from = needle ? raw.indexOf(needle, Math.max(0, after - 24)) : -1;
  const rest = from >= 0 ? raw.slice(from + needle.length) : whole.slice(after);
  // Each piece knows whether a terminal's frame drew it: what went wrong counts only in what the person pasted from a screen.
  const pieces = rest.split(PIECE_BREAK).flatMap((p) => {
    const framed = FRAME.test(p);
    return (p.replace(FRAME_CHARS, ' ').match(/[\s\S]+?(?:[.!?]+(?=\s|$)|$)/g) ?? []).map((x) => ({ text: x.replace(/\s+/g, ' ').trim(), framed }));
  }).filter((x) => x.text.length > 1);
  // After a pasted panel, the person's closing words (`and fix`) are their instruction; so is the
  // closing line of any long request (a review pasted, then `lets talk through these points …`).
  const pasted = pieces.some((p) => p.framed);
  // Only a request far longer than its opening: a short one's last sentence is more of the same.
  const closingWords = whole.length > 4 * after ? closingLine(raw) : undefined;
  const picked: string[] = [];
  let used = 0;
  for (const [i, { text: x, framed }] of pieces.entries()) {
    const closing = (pasted && i === pieces.length - 1 && !framed && x.length <= 80) || (closingWords !== undefined && closingWords.includes(x));
    if (!(WANTS.test(x) || (framed && WENT_WRONG.test(x)) || closing) || used + x.length > max) continue;
    picked.push(x);
    used += x.length + 5;
  }
  return picked.length ? picked.join(' … ') : undefined;
}

/** Requests after the task among the steps read, each whole (bounded), each once. */
export function laterRequests(facts: Facts, max = 1000): string[] {
  // An opener before the task ("shell", answered with a question) is no request of its own.
  return unique(facts.requests.filter((r) => r.step > (facts.task?.step ?? -1)).map((r) => bounded(typedFirst(r.text), max, false)));
}

export function constraintLines(facts: Facts): string[] {
  return unique(facts.constraints.map((c) => c.text));
}

export function userRefLines(facts: Facts): string[] {
  return facts.userRefs.map((r) => r.text);
}

/**
 * Each file changed, with the first line its latest edit put in when that is short: "edited
 * src/app.py (adds def farewell(name: str) -> str:)" says what changed, not only where.
 */
export function changeLines(facts: Facts, withAdded = true): string[] {
  return filesChanged(facts).map((c) => changeLine(facts, c, withAdded));
}

/** One file changed (`filesChanged`), with the first line its latest edit put in when `withAdded` and short. */
export function changeLine(facts: Facts, c: FileChange, withAdded: boolean): string {
  const added = withAdded ? [...facts.edits].reverse().find((e) => e.outcome === 'ok' && samePath(e.file, c.file))?.added?.[0] : undefined;
  return added && added.length <= ADDED_IN_LINE_CHARS ? `${describeChange(c)} (adds ${added})` : describeChange(c);
}

const ADDED_IN_LINE_CHARS = 80;

/**
 * What the edits put into each file changed (`CMakeLists.txt now has: option(BUILD_TESTS "Build
 * tests" OFF) · # Temporarily disabled…`), the latest edits first, at most `max` lines a file:
 * ranked below every unranked line, so they only fill the room a long range leaves.
 */
export function changeGistLines(facts: Facts, max = 3): Ranked[] {
  return filesChanged(facts).flatMap((c) => {
    // Each edit's first new line before any edit's second: three edits say more than one edit's three lines.
    const edits = facts.edits.filter((e) => e.outcome === 'ok' && samePath(e.file, c.file)).reverse();
    const lines = unique([...edits.map((e) => e.added?.[0]), ...edits.flatMap((e) => e.added?.slice(1) ?? [])].filter((l): l is string => l !== undefined)).slice(0, max);
    return lines.length ? [{ text: `${c.file} now has: ${lines.join(' · ')}`, rank: 0.9 }] : [];
  });
}

/** `brief` leaves the reason out, for summaries that list errors on their own. */
export function failedEditLines(facts: Facts, brief = false): string[] {
  return counted(failedEdits(facts).map((e) => (brief ? `edit of ${e.file} failed` : describeFailedEdit(e))));
}

export function readLines(facts: Facts): string[] {
  return filesRead(facts);
}

/**
 * Files read, each as `label` words it, with what the read showed first (`…/mix.exs: defmodule
 * Spotter.MixProject do`). The folder most of them share is said once at the end (`(… is
 * /home/u/repo)`) and left out of each line: a long run reads dozens of files under one workspace,
 * and the summary's room goes to what they are, not to the same prefix again and again. Without
 * `withGists`, the paths alone (a list of identifiers).
 */
export function readLinesUnderRoot(facts: Facts, label: (file: string) => string = (f) => f, withGists = true): string[] {
  const files = filesRead(facts);
  const root = sharedFolder(files.filter((f) => f.startsWith('/')));
  const lines = files.map((f) => {
    const gist = withGists ? readGistOf(facts, f) : undefined;
    return `${label(root && f.startsWith(`${root}/`) ? `…${f.slice(root.length)}` : f)}${gist ? `: ${gist}` : ''}`;
  });
  return root ? [...lines, `(… is ${root})`] : lines;
}

/** The folder most absolute paths share (at least three, half of them), when it is long enough to be worth saying once. */
function sharedFolder(paths: string[]): string | undefined {
  if (paths.length < 3) return undefined;
  const counts = new Map<string, number>();
  for (const p of paths) {
    const parts = p.split('/');
    for (let i = 2; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      counts.set(dir, (counts.get(dir) ?? 0) + 1);
    }
  }
  let best: string | undefined;
  // The folder most of them share (the workspace), the deepest among equals: not a subfolder only some are in.
  let most = 0;
  for (const [dir, n] of counts) if (n >= 3 && (n > most || (n === most && dir.length > best!.length))) { best = dir; most = n; }
  return best && best.length >= 16 && most * 2 >= paths.length ? best : undefined;
}

/**
 * Commands, one line each with their outcome, repeats folded; at most `max`, the telling ones kept
 * first. With `effects`, only the commands of those effects (`change` for a CHANGES section).
 */
export function commandLines(facts: Facts, max = 20, effects?: readonly CommandFact['effect'][], except?: (c: CommandFact) => boolean): string[] {
  const wanted = (c: CommandFact) => (!effects || effects.includes(c.effect)) && !except?.(c);
  const ranked = rankedCommandLines(effects || except ? { ...facts, commands: facts.commands.filter(wanted) } : facts, Number.MAX_SAFE_INTEGER);
  if (ranked.length <= max) return ranked.map((r) => r.text);
  // Keep the highest-ranked, the most recent first among equals; then put them back in order.
  const order = ranked.map((r, i) => ({ ...r, i })).sort((a, b) => b.rank - a.rank || b.i - a.i).slice(0, max).sort((a, b) => a.i - b.i);
  return [...order.map((r) => r.text), `(and ${ranked.length - order.length} more commands)`];
}

/**
 * What version control and trackers recorded, one line each without the command that made it
 * (`git commit -m "$(cat <<'EOF' …"` says nothing more): a commit's branch, hash, subject and file
 * counts, a push's range, a closed issue. A long run's milestones, and what a debugger looks up.
 */
export function recordedLines(facts: Facts): string[] {
  return unique(facts.commands.flatMap((c) => (c.recorded ? [recordedLine(c.recorded)] : [])));
}

/** Whether what a command recorded is a commit (`[main b05d732] Fix the parser`), not a push or a tracker's note. */
export function isCommitRecord(recorded: string | undefined): boolean {
  return recorded?.startsWith('[') === true;
}

function recordedLine(recorded: string): string {
  if (isCommitRecord(recorded)) return `committed ${recorded}`;
  if (/^\S+\.\.\.?\S+ +\S+ -> \S+$|^\* \[new (?:branch|tag)\]/.test(recorded)) return `pushed ${recorded.replace(/ {2,}/g, ' ')}`;
  return recorded;
}

/** Commands a reader needs: failures, tests, installs, version control, writes. */
function isNotable(c: CommandFact): boolean {
  return c.ok === false || c.effect === 'change' || /\b(test|pytest|install|git|make|build|npm|pip)\b/.test(c.command) || /\bsed -i\b|>\s*\S|(?:^|&&\s*|;\s*)(?:rm|mv|cp|touch)\s/.test(c.command);
}

/**
 * What the calls that are neither commands nor edits returned, whatever the tool (a booking's id,
 * a search's first hit, an MCP call's failure): one line each, repeats folded. Reads are left out
 * (they return source code; the files read are listed on their own).
 */
export function outcomeLines(facts: Facts): Ranked[] {
  const errorTexts = new Set(facts.errors.map((e) => e.text));
  // A closing call's answer is told as a reply already.
  const replied = new Set(facts.replies.map((r) => r.step));
  const lines = facts.outcomes
    .filter((o) => returnsFinding(o.kind) && o.kind !== 'todo' && o.said && !(o.failed && errorTexts.has(o.said)) && !replied.has(o.step))
    .map((o) => ({ text: `${callName(o)} ${o.failed ? 'failed: ' : '→ '}${o.said}`, rank: o.failed ? 3.5 : o.said!.startsWith(ANSWERED_PREFIX) ? MUST_KEEP : 2 }));
  const seen = new Set<string>();
  return lines.filter((l) => !seen.has(l.text) && seen.add(l.text));
}

export function testLines(facts: Facts): string[] {
  return counted(facts.tests.map(describeTest));
}

export function failingTestIds(facts: Facts): string[] {
  return unique(facts.tests.flatMap((t) => t.failing));
}

/** An error as its line says it: a brief line leaves out long quoted code (an edit's old text), keeping what the error says. */
function errorLineText(e: { text: string }, brief: boolean): string {
  return brief ? bounded(e.text.replace(/`[^`\n]*`/g, (code) => (code.length > 26 ? '`…`' : code)), 140) : e.text;
}

/** Each error once, with the step it was first seen at and how often it came back. */
function foldedErrors(facts: Facts, brief: boolean): { text: string; step: number; times: number }[] {
  const seen = new Map<string, { step: number; times: number }>();
  for (const e of facts.errors) {
    const text = errorLineText(e, brief);
    const prev = seen.get(text);
    seen.set(text, { step: prev?.step ?? e.step, times: (prev?.times ?? 0) + 1 });
  }
  return [...seen].map(([text, v]) => ({ text, ...v }));
}

export function errorLines(facts: Facts, withSteps = true): string[] {
  return foldedErrors(facts, false).map(({ text, step, times }) => {
    const where = withSteps ? `step ${step}${times > 1 ? `, ×${times}` : ''}` : times > 1 ? `×${times}` : '';
    return where ? `${text} (${where})` : text;
  });
}

/**
 * Errors ranked for a budget: the last one always kept (where the run stands), then one seen again
 * and again above one seen once. `brief` lines are shorter and carry no step number.
 */
export function rankedErrorLines(facts: Facts, brief = false): Ranked[] {
  const folded = foldedErrors(facts, brief);
  // The latest error as its folded line says it (errors are read in step order).
  const latest = facts.errors.length ? errorLineText(facts.errors[facts.errors.length - 1], brief) : undefined;
  const last = folded.findIndex((e) => e.text === latest);
  return [...folded.map(({ text, step, times }, i) => {
    const where = brief ? (times > 1 ? `×${times}` : '') : `step ${step}${times > 1 ? `, ×${times}` : ''}`;
    return { text: where ? `${text} (${where})` : text, rank: i === last ? MUST_KEEP : 4 + Math.min(0.9, (times - 1) / 10) - i * 1e-6 };
  }), ...furtherErrorLines(facts, !brief)];
}

/** The other errors failed calls reported, each once, ranked below every first error. */
function furtherErrorLines(facts: Facts, withSteps: boolean): Ranked[] {
  const first = new Set(facts.errors.map((e) => e.text));
  const seen = new Set<string>();
  return facts.moreErrors.filter((e) => !first.has(e.text) && !seen.has(e.text) && seen.add(e.text)).map((e) => ({ text: withSteps ? `${e.text} (step ${e.step})` : e.text, rank: 2 }));
}

export function planLines(facts: Facts): string[] {
  return facts.plan ? facts.plan.items.map(describeTodo) : [];
}

export function openTodoLines(facts: Facts): string[] {
  return facts.plan ? facts.plan.items.filter((t) => t.status !== 'completed').map(describeTodo) : [];
}

export function doneTodoLines(facts: Facts): string[] {
  return facts.plan ? facts.plan.items.filter((t) => t.status === 'completed').map(describeTodo) : [];
}

/** Items an earlier list finished and the latest dropped: done work, ranked below the list itself (must-keep). */
export function finishedEarlierLines(facts: Facts): Ranked[] {
  return (facts.plan?.finishedEarlier ?? []).map((t) => ({ text: describeTodo(t), rank: 1 }));
}

/** TASK_TRACKING entries: the latest plan, then the ones earlier summaries carried, copied as they are. */
export function taskTrackingLines(facts: Facts): string[] {
  return unique([...planLines(facts), ...facts.summaries.flatMap((s) => taskTrackingOf(s.text))]);
}

export function decisionLines(facts: Facts, max = 5, replies = 3): string[] {
  return [...replyLines(facts, 300, replies), ...telling(facts.decisions, max).map((d) => d.text)];
}

// A finding (`the root cause is…`, `decided`, `instead of`) says more than an intention (`I'll update…`).
const FINDING = /\b(?:the (?:fix|problem|issue|bug|cause|root cause|solution) (?:is|was|lies|seems)|root cause|decided|instead of)\b/i;

/**
 * At most `max` of the agent's statements, in order: its findings first (the first diagnosis and
 * the latest ones), then the latest of the rest.
 */
function telling<T extends { text: string }>(all: readonly T[], max: number): T[] {
  if (all.length <= max) return [...all];
  const found = all.filter((d) => FINDING.test(d.text));
  const findings = found.length > max && max > 1 ? [found[0], ...found.slice(-(max - 1))] : found.slice(-max);
  const room = max - findings.length;
  const chosen = new Set([...findings, ...(room > 0 ? all.filter((d) => !findings.includes(d)).slice(-room) : [])]);
  return all.filter((d) => chosen.has(d));
}

/** What the agent told the person at the end of each turn (its findings, its answer), the last message aside. */
function replyLines(facts: Facts, max = 300, count = 3): string[] {
  // A conversation (a support agent's) ends a turn at every message: the latest few say where it stands.
  return unique(facts.replies.filter((r) => r.step !== facts.lastAgentMessage?.step).slice(-count).map((r) => `told the user: ${messageLine(r.text, max)}`));
}

/**
 * An agent's message in `max` characters, then what fell past them that the message itself marks
 * as its outline or its key terms: its headings (`### Issue #3: …`, a line in bold) and the
 * commands, paths and names it quoted in code or set in bold (`cargo doc --no-deps`, **FR-013**).
 * A long answer's findings and recommendations sit anywhere in it; its own markup says where.
 */
export function messageLine(text: string, max: number): string {
  const head = bounded(text, max);
  const fresh = (x: string, list: string[]) => x.length >= 3 && !head.includes(x) && !list.includes(x);
  const sections: string[] = [];
  for (const m of text.matchAll(/^[ \t]{0,3}(?:#{1,6}[ \t]+(.{3,100}?)[ \t#]*|\*\*([^*\n]{3,100})\*\*:?[ \t]*)$/gm)) {
    const heading = (m[1] ?? m[2]).replace(/\*\*/g, '').trim();
    if (fresh(heading, sections)) sections.push(heading);
    if (sections.length === 5) break;
  }
  // A quoted word (`clap`) names little; a command, a path or a dotted name says what to do or
  // where. A term set in bold counts when it is an identifier (**FR-013**), not emphasis.
  const quoted = [...text.matchAll(/`([^`\n]{3,80})`/g)].map((m) => m[1].trim()).filter((x) => /[\s/.:=-]/.test(x));
  const bold = [...text.matchAll(/\*\*([^*\n]{3,60})\*\*/g)].map((m) => m[1].trim()).filter((x) => /[\d/.:=_#-]/.test(x) && !/\s\S+\s/.test(x));
  const spans: string[] = [];
  for (const span of [...quoted, ...bold]) {
    if (!fresh(span, spans) || sections.includes(span)) continue;
    spans.push(span);
    if (spans.length === 3) break;
  }
  const outline = sections.length ? ` (sections: ${sections.join('; ')})` : '';
  const names = spans.length ? ` (names ${spans.map((x) => `\`${x}\``).join(', ')})` : '';
  return `${head}${outline}${names}`;
}

export function lastAgentLine(facts: Facts, max = 400): string | undefined {
  return facts.lastAgentMessage ? messageLine(facts.lastAgentMessage.text, max) : undefined;
}

export function pendingCallLines(facts: Facts): string[] {
  return facts.pendingCalls.map((c) => `no result yet: ${c.text}`);
}

/** A command that adds or removes a dependency (`pip install`, `npm add`, `python -m pip uninstall`): calls.ts reads it. */
export function isInstall(c: CommandFact): boolean {
  return installsDependency(c.command);
}

export function installLines(facts: Facts): string[] {
  return counted(facts.commands.filter(isInstall).map(describeCommand));
}

/** The git commands run (of `effects` only, when given: `['change']` leaves out `git status` and `git diff`). */
export function gitLines(facts: Facts, effects?: readonly CommandFact['effect'][]): string[] {
  return counted(facts.commands.filter((c) => /(^|[;&|]\s*|\s)git\s+[a-z]/.test(c.command) && (!effects || effects.includes(c.effect))).map(describeCommand));
}

/** Summaries an earlier compaction left, carried forward whole (bounded only when huge). */
export function earlierSummaryText(facts: Facts, max = 6000): string[] {
  return facts.summaries.map((s) => {
    const text = s.text.length > max ? `${s.text.slice(0, s.text.lastIndexOf('\n', max) > 0 ? s.text.lastIndexOf('\n', max) : max)}\n[…]` : s.text;
    return `(from step ${s.step}, ${s.source})\n${text}`;
  });
}

/** A line with its own rank: when a summary is over its budget the lowest-ranked lines go first. */
export interface Ranked {
  text: string;
  rank: number;
  /**
   * Characters the whole summary may take while this line is in it: a line that only fills room
   * left over (FILL_SHARE of what the summary replaces) never makes a short range's summary long.
   */
  within?: number;
}

/** The share of the replaced characters a summary may grow to with lines that only fill room. */
export const FILL_SHARE = 0.25;

/** `lines` as lines that only fill room: within FILL_SHARE of what the summary of `facts` replaces. */
export function asFill(lines: readonly Ranked[], facts: Facts): Ranked[] {
  const within = Math.floor(FILL_SHARE * facts.replacedChars);
  return lines.map((l) => ({ ...l, within }));
}

/**
 * What fills the room a summary has left, each with its step and rank: what the agent stated
 * between its calls and how a long message ended (the last message's opening aside when
 * `lastShown`: it has its own line), what results showed that names the person's terms, those naming more ranked higher,
 * and what configuration files read set.
 */
export function fillEntries(facts: Facts, lastShown = true): (Ranked & { step: number })[] {
  const notes = facts.notes.filter((n) => n.closing || !lastShown || n.step !== facts.lastAgentMessage?.step).map((n) => ({ step: n.step, text: `agent${n.closing ? ' ended' : ''}: ${n.text}`, rank: 0.55 }));
  const shown = facts.bearing.map((b) => ({ step: b.step, text: `${b.source} shows: ${b.lines.join(' · ')}`, rank: 0.5 + Math.min(0.4, b.lines.length * 0.1) }));
  const settings = facts.settings.map((b) => ({ step: b.step, text: `${b.source} sets: ${b.lines.join(' · ')}`, rank: 0.45 }));
  return [...notes, ...shown, ...settings];
}

/**
 * The fill entries as lines (`app/service.py shows: def get_ticket(self, ticket_id: int)`), in
 * step order, each once, at most `max` (the latest): ranked below every other line and kept only
 * within FILL_SHARE of what the summary replaces.
 */
export function roomFillLines(facts: Facts, max = 40): Ranked[] {
  const seen = new Set<string>();
  const lines = fillEntries(facts).sort((a, b) => a.step - b.step).filter((l) => !seen.has(l.text) && seen.add(l.text)).slice(-max);
  return [...asFill(lines.map(({ text, rank }) => ({ text, rank })), facts), ...excerptLines(facts)];
}

/** The rank of the best excerpt: below every other line that fills room (settings, at 0.45). */
const EXCERPT_RANK = 0.4;

/**
 * The excerpts (excerpts.ts) as lines that fill room, in step order, quoted: ranked below every
 * other line, by their score. They fill at most FILL_SHARE of what the summary replaces, and never
 * past what keeps the whole context's characters within 30% of their size (EXCERPT_TARGET); where
 * the steps kept take that much already, none: quoting is what a summary does with room it would
 * otherwise leave empty, not a reason to miss the reduction a summary aims for.
 */
export function excerptLines(facts: Facts): Ranked[] {
  const within = excerptRoom(facts.replacedChars, facts.keptChars);
  return [...facts.excerpts].sort((a, b) => a.step - b.step)
    .map((e) => ({ text: `step ${e.step}: "${e.text}"`, rank: EXCERPT_RANK * e.score, within }));
}

/** The characters excerpts may fill in a summary of `replacedChars` with `keptChars` kept beside it (excerptLines). */
export function excerptRoom(replacedChars: number, keptChars: number): number {
  const ofRange = FILL_SHARE * replacedChars;
  const ofWhole = (1 - EXCERPT_TARGET) * (replacedChars + keptChars) - keptChars;
  return Math.floor(Math.max(0, Math.min(ofRange, ofWhole)));
}

/** The reduction excerpts leave room for: a little past the 60% a summary aims for, as counts by token and by character differ. */
const EXCERPT_TARGET = 0.7;

/** The rank of what every summary keeps: the task and later requests, the plan, files changed, the last error. */
export const MUST_KEEP = 9;

/** Lines that go last when a summary is over its budget. */
export function must(lines: string[]): Ranked[] {
  return lines.map((text) => ({ text, rank: MUST_KEEP }));
}

/** Errors with step numbers, folded; the last error seen is kept whatever the budget. */
export function errorLinesKeepingLast(facts: Facts, withSteps = true): Ranked[] {
  const lines = errorLines(facts, withSteps);
  const last = facts.errors[facts.errors.length - 1]?.text;
  const at = last === undefined ? -1 : lines.findIndex((l) => l.startsWith(last));
  return [...lines.map((text, i) => ({ text, rank: i === at ? MUST_KEEP : 4 })), ...furtherErrorLines(facts, withSteps)];
}

type Line = string | Ranked;

export interface Section {
  heading: string;
  lines: Line[];
  /** Said inline after the heading when there are no lines. */
  empty?: string;
  /** Lower is cut first when the whole is over its budget; also the rank of lines without one. */
  priority?: number;
  /** Text on the heading line itself (`USER_CONTEXT: the task…`). */
  inline?: string;
}

export interface RenderOptions {
  bullet?: string;
  /** Characters the whole may take; lines are cut (lowest rank first, then the oldest) to fit. */
  budget?: number;
  /**
   * A lower target for a short range (`rangeShareChars`): lines ranked below MUST_KEEP are cut
   * to meet it; lines that must survive and the inline texts never are.
   */
  share?: number;
  header?: string[];
  /** Keep one line of every section that has any, before a second line of another (see cutLines). */
  keepOnePerSection?: boolean;
}

const textOf = (l: Line) => (typeof l === 'string' ? l : l.text);

/** `HEADING: inline` then its lines as bullets; an empty section says so on its own line. */
export function renderSections(sections: Section[], opts: RenderOptions = {}): string {
  const bullet = opts.bullet ?? '  - ';
  const header = opts.header ?? [];
  const cut = opts.share !== undefined && opts.share < (opts.budget ?? Infinity) ? cutLines(sections, opts.share, bullet, header, MUST_KEEP) : sections;
  const shared = cut.map((s) => ({ ...s, lines: [...s.lines] }));
  dropSaidFillers(shared.map((s) => s.lines), compose(shared.map((s) => ({ ...s, lines: s.lines.filter((l) => typeof l === 'string' || l.within === undefined) })), bullet, header));
  // Over the budget, the fillers (the lowest-ranked lines) go first: measured a dozen times, not once a line.
  dropFillers(shared.map((s) => s.lines), () => compose(shared, bullet, header).length, opts.budget);
  const fitted = opts.budget ? fit(shared, opts.budget, bullet, header, opts.keepOnePerSection) : shared.map(withCutNote);
  return tidy(compose(fitted, bullet, opts.header ?? []));
}

function compose(sections: Section[], bullet: string, header: string[]): string {
  const out = [...header];
  for (const s of sections) {
    const inline = s.inline ?? (s.lines.length === 0 ? s.empty ?? '(none in these steps)' : '');
    out.push(inline ? `${s.heading} ${inline}` : s.heading);
    for (const l of s.lines) out.push(`${bullet}${textOf(l)}`);
  }
  return out.join('\n');
}

type Cut = Section & { cut: number };

/** The lowest-ranked line anywhere goes (below `below` only); among equals, the one of the lowest section, then the oldest. */
function cutLines(sections: Section[], target: number, bullet: string, header: string[], below = Infinity, keepOne = false): Cut[] {
  const work: Cut[] = sections.map((s) => ({ ...s, lines: [...s.lines], cut: (s as Partial<Cut>).cut ?? 0 }));
  const size = () => compose(work.map(withCutNote), bullet, header).length;
  const rankOf = (s: Section, l: Line) => (typeof l === 'string' ? s.priority ?? 1 : l.rank);
  // A partial target (`below`) is met only by cutting: when the lines that stay are over it already, nothing is cut for it.
  if (below !== Infinity && compose(work.map((s) => ({ ...s, lines: s.lines.filter((l) => rankOf(s, l) >= below) })), bullet, header).length > target) return work;
  while (size() > target) {
    // With `keepOne`, a section's last line goes only once no other line can: a heading over
    // "(3 more not shown)" and nothing else tells the reader little, while another section's tenth
    // line adds little. A small budget (a few hundred tokens) cannot afford it: it spends the room
    // on the highest-ranked lines wherever they are.
    let victim: { s: Cut; i: number; rank: number } | undefined;
    for (const lastLines of keepOne ? [false, true] : [false]) {
      for (const s of work) {
        const last = s.lines.length === 1;
        // A top-priority section always keeps its last line; with keepOne, last lines wait for the second pass.
        if ((last && (s.priority ?? 1) >= 5) || (keepOne && last !== lastLines)) continue;
        s.lines.forEach((l, i) => {
          const rank = rankOf(s, l);
          if (rank >= below) return;
          if (!victim || rank < victim.rank || (rank === victim.rank && (s.priority ?? 1) < (victim.s.priority ?? 1))) victim = { s, i, rank };
        });
      }
      if (victim) break;
    }
    if (!victim) break;
    const [gone] = victim.s.lines.splice(victim.i, 1);
    // A line that only filled room is not missed: no "(n more not shown)" for it.
    if (typeof gone === 'string' || gone.within === undefined) victim.s.cut++;
  }
  return work;
}

/** Lines that only fill room and quote what the rest of the summary (`said`) already says go: said once is enough. */
function dropSaidFillers(groups: Line[][], said: string): void {
  const already = saidIn(said);
  for (const lines of groups) {
    for (let i = lines.length - 1; i >= 0; i--) {
      const l = lines[i];
      if (typeof l === 'string' || l.within === undefined) continue;
      if (already(/^step \d+: "(.*)"$/s.exec(l.text)?.[1] ?? l.text)) lines.splice(i, 1);
    }
  }
}

/**
 * Lines that only fill room (`within`) leave `groups` (a summary's sections or fields), the
 * lowest-ranked first, while the whole (`size()`) is over the room they allow or over `budget`.
 */
export function dropFillers(groups: Line[][], size: () => number, budget = Infinity): void {
  // The fillers in the order they go (lowest rank first; among equals, the first met), and the
  // least room any filler still in allows once the first k have gone.
  const order = groups.flatMap((lines) => lines.filter((l): l is Ranked => typeof l !== 'string' && l.within !== undefined)).sort((a, b) => a.rank - b.rank);
  if (!order.length) return;
  const leastWithin = new Array<number>(order.length + 1).fill(budget);
  for (let k = order.length - 1; k >= 0; k--) leastWithin[k] = Math.min(order[k].within!, leastWithin[k + 1]);
  const whole = groups.map((lines) => [...lines]);
  const keep = (k: number) => {
    const gone = new Set<Line>(order.slice(0, k));
    groups.forEach((lines, g) => { lines.length = 0; for (const l of whole[g]) if (!gone.has(l)) lines.push(l); });
  };
  // The fewest that must go for the rest to fit: a summary of a thousand excerpts is measured a
  // dozen times, not a thousand (the size only falls as fillers go, the room only grows).
  keep(leastPassing(order.length, (k) => { keep(k); return size() <= leastWithin[k]; }));
}

function fit(sections: Section[], budget: number, bullet: string, header: string[], keepOne = false): Section[] {
  const work = cutLines(sections, budget, bullet, header, Infinity, keepOne);
  const size = () => compose(work.map(withCutNote), bullet, header).length;
  if (size() > budget) {
    // Still over: shorten the inline texts (the task) at a sentence or word end.
    for (const s of work) if (s.inline && s.inline.length > 200) s.inline = bounded(s.inline, Math.max(120, s.inline.length - (size() - budget)));
  }
  // Still over: the lines kept so far are shortened, the longest first, then the last one of a
  // section goes too; the text is never cut at its end.
  for (let guard = 0; size() > budget && guard < 10_000; guard++) {
    let longest: { s: (typeof work)[number]; i: number; n: number } | undefined;
    for (const s of work) s.lines.forEach((l, i) => { const n = textOf(l).length; if (n > 80 && (!longest || n > longest.n)) longest = { s, i, n }; });
    if (longest) {
      const l = longest.s.lines[longest.i];
      const text = bounded(textOf(l), Math.max(60, Math.floor(longest.n * 0.7)));
      if (text.length < longest.n) longest.s.lines[longest.i] = typeof l === 'string' ? text : { ...l, text };
      else { longest.s.lines.splice(longest.i, 1); longest.s.cut++; }
      continue;
    }
    const last = [...work].reverse().find((s) => s.lines.length > 0);
    if (!last) break;
    last.lines.pop();
    last.cut++;
  }
  return work.map(withCutNote);
}

function withCutNote(s: Section & { cut?: number }): Section {
  if (!s.cut) return s;
  // Every line cut: say so, rather than "more" than nothing.
  return { ...s, lines: [s.lines.length === 0 ? `(${s.cut} not shown)` : `(${s.cut} more not shown)`, ...s.lines] };
}

/**
 * Commands ranked for a budget: failures, tests and what version control recorded (a commit's
 * hash) first, then what printed something telling, then the rest. `brief` leaves out a failure's
 * error and what a command recorded (a summary that lists errors and recordedLines says each once).
 */
export function rankedCommandLines(facts: Facts, max = 40, brief = false): Ranked[] {
  const seen = new Map<string, Ranked>();
  for (const c of facts.commands) {
    const text = brief && c.ok === false ? `${c.command} (${c.exitCode !== undefined ? `exit ${c.exitCode}` : 'failed'})` : brief && c.recorded ? c.command : describeCommand(c);
    const rank = c.ok === false || c.recorded ? 3.5 : isTestCommand(c.command) ? 3.5 : c.shellSaid ? 3 : / → /.test(c.outcome) ? 2.5 : isNotable(c) ? 2 : 1;
    const prev = seen.get(text);
    seen.set(text, prev ? { text: prev.text.replace(/( ×\d+)?$/, (m) => ` ×${m ? Number(m.slice(2)) + 1 : 2}`), rank: prev.rank } : { text, rank });
  }
  return [...seen.values()].slice(-max);
}

/**
 * Renders within `maxTokens` as `count` measures it: starts at about four characters a token and
 * tightens until the text fits (or cannot be cut further).
 */
export function withinTokens(render: (budgetChars: number) => string, maxTokens: number, count: (text: string) => number): string {
  // The largest character budget whose text still fits the token limit, found by halving.
  let lo = 200;
  let hi = Math.max(lo, maxTokens * 8);
  let best = render(lo);
  if (count(best) > maxTokens) return best;
  for (let i = 0; i < 14 && hi - lo > 20; i++) {
    const mid = Math.floor((lo + hi) / 2);
    const text = render(mid);
    if (count(text) <= maxTokens) { best = text; lo = mid; } else hi = mid;
  }
  return best;
}
