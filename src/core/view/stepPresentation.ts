import type { Step, StepKind } from '../model';
import { plainLabel } from '../output/terminal';
import { transformedHead } from '../textHead';
import { shellJoin } from '../shellWords';
import { requestOf } from '../formats/chatMessages';
import { withoutContextBlocks, withoutWrapperTags } from '../formats/injected';


// How a step reads in a one-line list: shared by the tree, the CLI and the report so that a step
// is named the same way everywhere.

const KIND_LABELS: Record<StepKind, string> = {
  system: 'system',
  user: 'user',
  assistant: 'assistant',
  thought: 'thought',
  tool_call: 'tool call',
  tool_result: 'observation',
  compaction: 'compaction',
  environment: 'environment',
  other: 'other',
};

export function kindLabel(kind: StepKind): string {
  return KIND_LABELS[kind];
}

/** `tool call · bash`, `observation · bash`, `user`, `other · agent_state_changed`. */
export function stepLabel(step: Step): string {
  const base = KIND_LABELS[step.kind];
  // Names come from the log: colour codes, controls and bidi marks are dropped.
  if (step.kind === 'tool_call' && step.tool) return `${base} · ${plainLabel(step.tool.name)}`;
  if (step.kind === 'tool_result' && step.toolName) return `${base} · ${plainLabel(step.toolName)}`;
  if ((step.kind === 'other' || step.kind === 'environment') && step.label) return `${base} · ${plainLabel(readableLabel(step))}`;
  return base;
}

/** An item's JSON, parsed when the text is one object; undefined otherwise. */
function jsonObject(text: string): Record<string, unknown> | undefined {
  // Previews are drawn for every row: a long item is not parsed again and again.
  if (text.length > 64 * 1024) return undefined;
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') || !trimmed.endsWith('}')) return undefined;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A label that is an item's raw JSON (an item type we do not know) shows the item's type name instead. */
function readableLabel(step: Step): string {
  const label = step.label ?? '';
  if (!/^\s*[{[]/.test(label)) return label;
  const item = jsonObject(label) ?? jsonObject(step.text);
  return typeof item?.type === 'string' && item.type !== '' ? item.type : 'item';
}

/** An item we do not know, written as one JSON object: its fields as `key=value`, its type left to the label. */
function objectPreview(item: Record<string, unknown>): string {
  const { type: _type, ...rest } = item;
  return argsPreview(JSON.stringify(rest));
}

/** Argument keys that say most about a call, in the order we prefer to show them. */
const TELLING_ARGS = ['command', 'cmd', 'path', 'file_path', 'file', 'url', 'query', 'pattern', 'code', 'content', 'message', 'thought'];

/** A plain opening or closing tag, as clients write them around injected values. */
const INJECTED_TAG = /<\/?[a-z][\w-]*>/gi;

/** One line that says what a step is about, at most `max` characters. */
export function stepPreview(step: Step, max = 80): string {
  let text = step.text;
  if (step.kind === 'tool_call' && step.tool) text = argsPreview(step.tool.args);
  else if (step.text === '' && contentNotRecorded(step)) text = 'content not recorded';
  // The person's words, not the files, reminders or links their client put around them.
  else if (step.kind === 'user') text = withoutContextBlocks(requestOf(text)).trim() || requestOf(text);
  // What a client injects is structured with tags (`<cwd>`, `<status>`), never prose: show the values.
  else if (step.kind === 'environment') text = text.replace(INJECTED_TAG, ' ');
  else if (step.kind === 'compaction' && step.compaction?.summary) text = step.compaction.summary;
  else if (step.kind === 'other') {
    const item = jsonObject(text);
    if (item) text = objectPreview(item);
  } else if (step.kind === 'tool_result' || step.kind === 'assistant') {
    // A tool that answers with a JSON object (MCP and function tools often do), or a reply written as
    // one (Codex's review: `{"findings":[…],"overall_correctness":…}`): its fields, not its braces.
    const item = jsonObject(text);
    if (item) text = argsPreview(JSON.stringify(item));
    // A command that printed nothing says how it ended, where the log recorded it (Cursor's `sleep 5`).
    else if (text.trim() === '' && step.exitCode !== undefined) text = `exit ${step.exitCode} · no output`;
  }
  // Context the log records again (a system prompt before every request) weighs nothing here: say why.
  return step.resent ? oneLine(`recorded again, counted once · ${oneLine(text, max)}`, max) : oneLine(text, max);
}

export function argsPreview(args: string): string {
  const trimmed = args.trim();
  if (!trimmed.startsWith('{')) return trimmed;
  try {
    const parsed = JSON.parse(trimmed) as Record<string, unknown>;
    // A command given as its words (Codex's `["bash", "-lc", "rg -n serena"]`) shows as the line it runs.
    for (const k of ['command', 'cmd']) {
      const v = parsed[k];
      if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string')) parsed[k] = shellJoin(v as string[]);
    }
    const key = TELLING_ARGS.find((k) => typeof parsed[k] === 'string' && parsed[k] !== '');
    if (key) {
      // An argument left empty (`workingDirectory: ""`) says nothing beside the command.
      const rest = Object.keys(parsed).filter((k) => k !== key && typeof parsed[k] !== 'object' && parsed[k] !== '');
      const extra = rest.slice(0, 2).map((k) => `${k}=${String(parsed[k])}`).join(' ');
      return `${String(parsed[key])}${extra ? '  ' + extra : ''}`;
    }
    return Object.entries(parsed).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ');
  } catch {
    return trimmed;
  }
}

/** The text on one line of at most `max` characters, without colour codes, controls, bidi marks or wrapper tags. */
export function oneLine(text: string, max: number): string {
  const { head: flat } = transformedHead(text, max, (t) => plainLabel(withoutWrapperTags(t)).replace(/\s+/g, ' ').trim());
  return flat.length > max ? flat.slice(0, max - 1) + '…' : flat;
}

export function formatCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 10_000) return (n / 1000).toFixed(1).replace(/\.0$/, '') + 'k';
  if (n < 1_000_000) return Math.round(n / 1000) + 'k';
  return (n / 1_000_000).toFixed(1).replace(/\.0$/, '') + 'M';
}

export interface StepDocument {
  /** File extension that picks the editor's language: json, diff, md, txt. */
  extension: string;
  content: string;
}

/** The full content of a step, as a read-only document: JSON pretty-printed, diffs as diffs. */
export function stepDocument(step: Step): StepDocument {
  if (step.kind === 'tool_call' && step.tool) {
    const pretty = prettyJson(step.tool.args);
    if (pretty !== undefined) return { extension: 'json', content: pretty };
    return { extension: looksLikeDiff(step.tool.args) ? 'diff' : 'txt', content: step.tool.args };
  }
  if (step.kind === 'compaction') {
    const c = step.compaction;
    const lines = [step.text];
    if (c?.forgottenRange) lines.push(`Forgotten events: ${c.forgottenRange[0]}–${c.forgottenRange[1]}`);
    if (c?.forgottenIds?.length) lines.push(`Forgotten events: ${c.forgottenIds.join(', ')}`);
    if (c?.trigger) lines.push(`Trigger: ${c.trigger}`);
    if (c?.tokensBefore !== undefined) lines.push(`Tokens before: ${c.tokensBefore}`);
    // Adapters (ATIF) often put the summary in the text already: say it once.
    if (c?.summary && !step.text.includes(c.summary)) lines.push('', c.summary);
    return { extension: 'md', content: lines.filter((l, i) => l !== '' || i > 0).join('\n') };
  }
  if (step.text === '' && contentNotRecorded(step)) {
    return { extension: 'md', content: `Content not recorded: the log kept this call (${step.label ?? step.kind}) and its token counts, but not its messages.\n` };
  }
  const pretty = step.text.trimStart().startsWith('{') || step.text.trimStart().startsWith('[') ? prettyJson(step.text) : undefined;
  if (pretty !== undefined) return { extension: 'json', content: pretty };
  if (looksLikeDiff(step.text)) return { extension: 'diff', content: step.text };
  return { extension: step.kind === 'tool_result' ? 'txt' : 'md', content: step.text };
}

/** A step the log kept without its content (an OpenTelemetry span without message capture). */
function contentNotRecorded(step: Step): boolean {
  return step.label !== undefined && step.label.endsWith('content not recorded');
}

function prettyJson(text: string): string | undefined {
  const t = text.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return undefined;
  try {
    return JSON.stringify(JSON.parse(t), null, 2);
  } catch {
    return undefined;
  }
}

function looksLikeDiff(text: string): boolean {
  return /^(diff --git |--- .*\n\+\+\+ |@@ -\d)/m.test(text) && /^@@ /m.test(text);
}

/**
 * The order a turn is listed in: each tool result right after the call it answers, so parallel
 * calls read call, result, call, result. Results whose call is elsewhere keep their place.
 */
export function displayOrder(steps: readonly Step[]): Step[] {
  const inTurn = new Set(steps.map((s) => s.index));
  const resultsByCall = new Map<number, Step[]>();
  for (const s of steps) {
    if (s.kind === 'tool_result' && s.answers !== undefined && inTurn.has(s.answers)) {
      const list = resultsByCall.get(s.answers) ?? [];
      list.push(s);
      resultsByCall.set(s.answers, list);
    }
  }
  const ordered: Step[] = [];
  for (const s of steps) {
    if (s.kind === 'tool_result' && s.answers !== undefined && inTurn.has(s.answers)) continue;
    ordered.push(s);
    const results = resultsByCall.get(s.index);
    if (results) ordered.push(...results);
  }
  return ordered;
}
