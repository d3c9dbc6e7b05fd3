// Facts read straight from a trajectory, for the extractive mode of every LLM strategy: the same
// sections a model would fill, filled from what the log shows (requests, edits, commands and their
// exit codes, tests, errors, installs, git), so the product works with no model at all.

import type { Step, Trajectory } from '../model';
import { argsObject } from './text';

export const EXTRACTIVE_NOTE = '[Extractive summary: assembled from the trajectory itself; no model was used.]';

export interface CommandFact {
  step: number;
  command: string;
  exitCode?: number;
}

export interface Facts {
  firstRequest?: string;
  /** User messages after the first, inside the compacted steps. */
  laterRequests: string[];
  filesEdited: string[];
  filesViewed: string[];
  commands: CommandFact[];
  tests: { step: number; command: string; outcome: string }[];
  errors: { step: number; text: string }[];
  installs: string[];
  git: CommandFact[];
  /** Calls in the compacted steps that never got a result. */
  pendingCalls: string[];
  lastAgentMessage?: string;
  toolCounts: Record<string, number>;
  stepCount: number;
}

const EDIT_COMMANDS = new Set(['create', 'str_replace', 'insert', 'write', 'edit', 'undo_edit', 'append']);
const SHELL_TOOLS = /^(bash|sh|shell|terminal|execute_bash|run|run_command|exec_command|cmd|local_shell|execute_command|command)$/i;
const TEST_COMMAND = /\b(pytest|py\.test|unittest|nose2?|tox|jest|vitest|mocha|(npm|yarn|pnpm)( run)? test|go test|cargo test|mvn test|gradle test|rspec|phpunit|make (test|check)|runtests?\.py)\b/;
const INSTALL_COMMAND = /\b(pip3?|uv pip|poetry|conda|npm|yarn|pnpm|apt-get|apt|brew|cargo|gem|go)\s+(install|add|get)\b/;
const GIT_COMMAND = /\bgit\s+[a-z][\w-]*/;
const EXIT_CODE = [
  /<returncode>\s*(-?\d+)\s*<\/returncode>/,
  /"returncode"\s*:\s*(-?\d+)/,
  /exit(?:ed with)? code:?\s*(-?\d+)/i,
  /Process exited with code (-?\d+)/,
];
const ERROR_LINE = /^(?:\S*(?:Error|Exception)\b.*|.*\bcommand not found\b.*|.*No such file or directory.*|E\s{2,}.+|FAILED\b.*|fatal: .*)$/m;

/** Facts from the steps in `indices` (and the first user request of the whole trajectory). */
export function extractFacts(trajectory: Trajectory, indices: Iterable<number>): Facts {
  const steps = trajectory.steps;
  const chosen = new Set(indices);
  const facts: Facts = {
    firstRequest: steps.find((s) => s.kind === 'user' && s.text.trim() !== '')?.text.trim(),
    laterRequests: [], filesEdited: [], filesViewed: [], commands: [], tests: [], errors: [],
    installs: [], git: [], pendingCalls: [], toolCounts: {}, stepCount: chosen.size,
  };
  const resultOf = new Map<number, Step>();
  for (const s of steps) if (s.kind === 'tool_result' && s.answers !== undefined) resultOf.set(s.answers, s);
  const addUnique = (list: string[], v: string) => { if (v && !list.includes(v)) list.push(v); };

  for (const i of [...chosen].sort((a, b) => a - b)) {
    const step = steps[i];
    if (!step) continue;
    if (step.kind === 'user' && step.text.trim() !== '' && step.text.trim() !== facts.firstRequest) facts.laterRequests.push(step.text.trim());
    if ((step.kind === 'assistant' || step.kind === 'thought') && step.text.trim()) facts.lastAgentMessage = step.text.trim();
    if (step.kind === 'tool_result') {
      const err = errorLine(step);
      if (err && !facts.errors.some((e) => e.text === err)) facts.errors.push({ step: i, text: err });
    }
    if (step.kind !== 'tool_call' || !step.tool) continue;
    const name = step.tool.name;
    facts.toolCounts[name] = (facts.toolCounts[name] ?? 0) + 1;
    const result = resultOf.get(i);
    if (!result) facts.pendingCalls.push(`${name} ${oneLine(step.tool.args, 120)}`.trim());
    const file = editedFile(step, result);
    if (file) addUnique(facts.filesEdited, file);
    const viewed = viewedFile(step);
    if (viewed) addUnique(facts.filesViewed, viewed);
    const command = commandOf(step);
    if (!command) continue;
    for (const f of shellWrites(command)) addUnique(facts.filesEdited, f);
    const fact: CommandFact = { step: i, command: oneLine(command, 200), exitCode: result ? exitCodeOf(result.text) : undefined };
    facts.commands.push(fact);
    if (INSTALL_COMMAND.test(command)) addUnique(facts.installs, fact.command);
    if (GIT_COMMAND.test(command)) facts.git.push(fact);
    if (TEST_COMMAND.test(command) && result) facts.tests.push({ step: i, command: fact.command, outcome: testOutcome(result.text, fact.exitCode) });
  }
  return facts;
}

/** The shell command a call ran, if it ran one. */
export function commandOf(step: Step): string | undefined {
  if (!step.tool) return undefined;
  const args = argsObject(step);
  if (args) {
    const editorCommand = typeof args.command === 'string' && EDIT_COMMANDS.has(args.command) || args.command === 'view';
    for (const key of ['command', 'cmd', 'script', 'code']) {
      const v = args[key];
      if (typeof v === 'string' && !editorCommand) return v;
      if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.join(' ');
    }
    return undefined;
  }
  const text = step.tool.args.trim();
  if (SHELL_TOOLS.test(step.tool.name)) return text;
  // Text-mode agents (SWE-agent) name the command as the tool and put the rest in the arguments.
  return `${step.tool.name} ${text}`.trim();
}

function editedFile(call: Step, result: Step | undefined): string | undefined {
  const args = argsObject(call);
  const name = call.tool?.name ?? '';
  if (args) {
    const path = [args.path, args.file_path, args.filename, args.file].find((v) => typeof v === 'string') as string | undefined;
    const cmd = typeof args.command === 'string' ? args.command : undefined;
    if (path && (cmd ? EDIT_COMMANDS.has(cmd) : /edit|write|create|replace|insert|patch/i.test(name))) return path;
    const patch = [args.input, args.patch].find((v) => typeof v === 'string') as string | undefined;
    if (patch) return patchFiles(patch)[0];
    return undefined;
  }
  if (/^(edit|create|write|insert|append)$/.test(name)) {
    const header = result && /\[File: ([^\s(\]]+)/.exec(result.text);
    if (header) return header[1];
    if (name === 'create') return call.tool?.args.trim().split(/\s+/)[0];
  }
  if (/apply_patch/.test(name) && call.tool) return patchFiles(call.tool.args)[0];
  return undefined;
}

function viewedFile(call: Step): string | undefined {
  const args = argsObject(call);
  if (args && args.command === 'view' && typeof args.path === 'string') return args.path;
  if (args && /read|view|open/i.test(call.tool?.name ?? '')) {
    const p = args.path ?? args.file_path;
    if (typeof p === 'string') return p;
  }
  if (!args && call.tool && /^open$/.test(call.tool.name)) return call.tool.args.trim().split(/\s+/)[0]?.replace(/^"|"$/g, '');
  return undefined;
}

function patchFiles(patch: string): string[] {
  return [...patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)].map((m) => m[1].trim());
}

/** Files a shell command writes: `sed -i … FILE`, `> FILE`, `tee FILE`. */
function shellWrites(command: string): string[] {
  const out: string[] = [];
  for (const m of command.matchAll(/(?:^|[^>&\d])>>?\s*([\w./-]+\.\w+)/g)) if (!m[1].startsWith('/dev/')) out.push(m[1]);
  for (const m of command.matchAll(/\bsed\s+-i\S*\s+(?:'[^']*'|"[^"]*"|\S+)\s+([\w./-]+)/g)) out.push(m[1]);
  for (const m of command.matchAll(/\btee\s+(?:-a\s+)?([\w./-]+)/g)) out.push(m[1]);
  return out;
}

export function exitCodeOf(text: string): number | undefined {
  for (const re of EXIT_CODE) {
    const m = re.exec(text);
    if (m) return Number(m[1]);
  }
  return undefined;
}

function testOutcome(text: string, exitCode: number | undefined): string {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  const summary = [...lines].reverse().find((l) => /\b\d+ (passed|failed|errors?|skipped|tests?)\b/i.test(l) || /^(OK|FAILED)\b/.test(l));
  if (summary) return oneLine(summary.replace(/^=+\s*|\s*=+$/g, ''), 160);
  return exitCode === undefined ? 'outcome not shown' : exitCode === 0 ? 'exit code 0' : `exit code ${exitCode}`;
}

function errorLine(step: Step): string | undefined {
  const text = step.text;
  if (/Traceback \(most recent call last\)/.test(text)) {
    const after = text.slice(text.indexOf('Traceback'));
    const exc = after.split('\n').find((l) => /^\w[\w.]*(Error|Exception|Exit|Interrupt)\b/.test(l.trim()));
    if (exc) return oneLine(exc.trim(), 200);
  }
  const m = ERROR_LINE.exec(text);
  if (m) return oneLine(m[0].trim(), 200);
  if (step.isError) return oneLine(text.trim(), 200);
  return undefined;
}

/** First line of `text`, cut to `max` characters. */
export function oneLine(text: string, max: number): string {
  const line = text.trim().split('\n')[0] ?? '';
  const more = text.trim().includes('\n') ? ' …' : '';
  return line.length > max ? line.slice(0, max - 1) + '…' : line + more;
}

/** `text` with whitespace collapsed, cut to `max` characters: enough of a long request to recognize it. */
export { oneLine as brief } from '../view/stepPresentation';

/** A bulleted list, or a dash when empty. */
export function bullets(items: string[], max = 12): string {
  if (items.length === 0) return '  - (none seen)';
  const shown = items.slice(0, max).map((i) => `  - ${i}`);
  if (items.length > max) shown.push(`  - … and ${items.length - max} more`);
  return shown.join('\n');
}

export function describeCommand(c: CommandFact): string {
  return c.exitCode === undefined ? c.command : `${c.command} (exit ${c.exitCode})`;
}

export function describeTools(counts: Record<string, number>): string {
  const parts = Object.entries(counts).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ×${n}`);
  return parts.length ? parts.join(', ') : 'no tool calls';
}
