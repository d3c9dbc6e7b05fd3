import type { CompactionResult } from '../compaction/types';
import type { Step, Trajectory } from '../model';
import { argsPreview } from '../view/stepPresentation';

// "What survived": the concrete things a summary must not lose. Each is found in the forgotten
// steps, then looked for in the text that replaces them (the condensed context).

export type EntityKind = 'file' | 'test' | 'error' | 'command' | 'url' | 'identifier';

export const ENTITY_KINDS: readonly EntityKind[] = ['file', 'test', 'error', 'command', 'url', 'identifier'];

export interface Entity {
  text: string;
  kind: EntityKind;
  /** How many forgotten steps mention it; more mentions, more likely it matters. */
  mentions: number;
  /** Index of the first forgotten step that mentions it. */
  firstStep: number;
}

export interface SurvivalEntity extends Entity {
  kept: boolean;
}

interface Pattern {
  kind: EntityKind;
  re: RegExp;
  /** Only look in what the agent wrote (calls, its own text), not in tool output dumps. */
  agentOnly?: boolean;
  /** A further check on the whole match. */
  accept?: (match: string, value: string) => boolean;
}

/** Backticked names count when they look like code: `parse_card`, `Card.total`, `TimeDelta`, `round()`. */
const looksLikeCode = (match: string, value: string) => /[_.]|[a-z][A-Z]/.test(value) || match.includes('()');

const PATTERNS: Pattern[] = [
  // pytest node ids and similar `path::name` test ids come before plain paths.
  { kind: 'test', re: /\b[\w./-]+\.py::[\w[\]:.-]+/g },
  { kind: 'test', re: /\b(?:FAILED|PASSED|ERROR)\s+([\w./-]+(?:::[\w[\]-]+)+)/g },
  { kind: 'url', re: /\bhttps?:\/\/[^\s"'<>)\]`]+/g },
  // `ValueError: message` — the class with the first words of its message. Not the class names
  // a source listing mentions (`raise ValueError(`, `except KeyError,`, `import …Error`).
  { kind: 'error', re: /(?<!(?:raise|except|import|class|def)\s+)\b[A-Z][A-Za-z]*(?:Error|Exception)\b(?:(?::[ \t]*[^\n]{1,80})|(?!\s*[(,]))/g },
  // errno names and Node's error codes.
  { kind: 'error', re: /\b(?:E(?:NOENT|ACCES|EXIST|PERM|CONNREFUSED|CONNRESET|ADDRINUSE|TIMEDOUT|PIPE|NOTDIR|ISDIR|AGAIN|NOSPC|NOMEM|NOTEMPTY|MFILE)|ERR_[A-Z_]{3,})\b/g },
  { kind: 'error', re: /\b(?:exit code|returncode|exit status)[:= ]+[1-9]\d*/gi },
  { kind: 'file', re: /(?:^|[\s"'`(=:[,])((?:\.{0,2}\/)?(?:[\w.@+-]+\/)+[\w.@+-]+\.[A-Za-z][A-Za-z0-9]{0,7})\b/g },
  { kind: 'file', re: /(?:^|[\s"'`([,])([\w-]+\.(?:py|pyi|ts|tsx|js|jsx|mjs|go|rs|java|kt|rb|php|c|cc|cpp|h|hpp|cs|swift|md|rst|json|yaml|yml|toml|cfg|ini|txt|sh|sql|html|css|lock))\b/g },
  // Ticket-like ids (ABC-123), UUIDs, upper-case codes that mix letters and digits (ABC123, SKU9911).
  { kind: 'identifier', re: /\b[A-Z][A-Z0-9]{1,9}-\d{1,6}\b/g },
  { kind: 'identifier', re: /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi },
  { kind: 'identifier', re: /\b(?=[A-Z0-9_]*\d)(?=[A-Z0-9_]*[A-Z])[A-Z][A-Z0-9_]{4,24}\b/g },
  // Commit hashes: 7–40 hex digits with at least one letter and one digit.
  { kind: 'identifier', re: /\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b/g, agentOnly: true },
  // Functions and classes the agent defined or named in backticks.
  { kind: 'identifier', re: /\b(?:def|class|function|fn|func)\s+([A-Za-z_]\w{2,60})/g, agentOnly: true },
  { kind: 'identifier', re: /`([A-Za-z_][\w.]{2,60})(?:\(\))?`/g, agentOnly: true, accept: looksLikeCode },
];

const MAX_ENTITIES = 400;

const AGENT_KINDS = new Set<Step['kind']>(['assistant', 'thought', 'tool_call', 'user']);

/** Entities mentioned in the given steps, most mentioned first; commands come from tool calls. */
export function extractEntities(steps: readonly Step[]): Entity[] {
  const found = new Map<string, Entity>();
  const seenIn = new Map<string, number>();
  const note = (kind: EntityKind, raw: string, step: Step) => {
    const text = kind === 'command' ? raw.trim() : kind === 'error' ? raw.trim().replace(/[.,;:]+$/, '') : clean(raw);
    if (text.length < 3 || text.length > 160) return;
    const key = `${kind}\u0000${text}`;
    const entity = found.get(key);
    if (entity) {
      if (seenIn.get(key) !== step.index) entity.mentions++;
    } else {
      found.set(key, { text, kind, mentions: 1, firstStep: step.index });
    }
    seenIn.set(key, step.index);
  };
  for (const step of steps) {
    if (step.kind === 'tool_call' && step.tool) {
      const command = commandOf(step.tool.args);
      if (command) note('command', command, step);
    }
    const text = step.kind === 'tool_call' && step.tool ? step.tool.args : step.text;
    const byAgent = AGENT_KINDS.has(step.kind);
    const claimed: [number, number][] = [];
    for (const { kind, re, agentOnly, accept } of PATTERNS) {
      if (agentOnly && !byAgent) continue;
      re.lastIndex = 0;
      for (let m = re.exec(text); m; m = re.exec(text)) {
        if (m[0].length === 0) { re.lastIndex++; continue; }
        const value = m[1] ?? m[0];
        if (accept && !accept(m[0], value)) continue;
        const start = m.index + m[0].indexOf(value);
        // A path inside a test id or URL already found is not a separate entity.
        if (claimed.some(([a, b]) => start < b && start + value.length > a)) continue;
        claimed.push([start, start + value.length]);
        note(kind, value, step);
      }
    }
  }
  return [...found.values()]
    .sort((a, b) => b.mentions - a.mentions || a.firstStep - b.firstStep)
    .slice(0, MAX_ENTITIES);
}

/**
 * Marks each entity kept when the replacement text (summary plus the steps still in context)
 * names it. Whitespace and case are ignored; a path also counts as kept when its last two parts
 * appear (summaries often shorten `/workspace/repo/src/a.py` to `src/a.py`).
 */
export function survival(entities: readonly Entity[], replacementText: string): SurvivalEntity[] {
  const haystack = normalize(replacementText);
  return entities.map((e) => ({ ...e, kept: isNamedIn(e, haystack) }));
}

function isNamedIn(e: Entity, haystack: string): boolean {
  const needle = normalize(e.text);
  if (haystack.includes(needle)) return true;
  if (e.kind === 'file') {
    const parts = needle.split('/').filter((p) => p && p !== '.' && p !== '..');
    // Summaries shorten paths: `/testbed/src/a/b.py` is kept as `a/b.py`, `/testbed/setup.py` as `setup.py`.
    if (parts.length > 1 && haystack.includes(parts.slice(parts.length > 2 ? -2 : -1).join('/'))) return true;
  }
  if (e.kind === 'error') {
    // `KeyError: 'card_id' not found`: the class must appear, and most words of the message.
    const colon = needle.indexOf(':');
    if (colon < 0 || !haystack.includes(needle.slice(0, colon))) return false;
    const words = needle.slice(colon + 1).split(/[^\w]+/).filter((w) => w.length >= 3);
    return words.length > 0 && words.filter((w) => haystack.includes(w)).length * 2 >= words.length;
  }
  return false;
}

function normalize(s: string): string {
  return s.toLowerCase().replace(/\s+/g, ' ');
}

function commandOf(args: string): string | undefined {
  const trimmed = args.trim();
  if (trimmed.startsWith('{')) {
    try {
      const parsed = JSON.parse(trimmed) as Record<string, unknown>;
      const value = parsed.command ?? parsed.cmd;
      // File editors take a sub-command and a path (`view /repo/a.py`): the pair says what ran.
      if (typeof value === 'string' && typeof parsed.path === 'string') return firstLine(`${value} ${parsed.path}`);
      if (typeof value === 'string') return firstLine(value);
      if (Array.isArray(value)) return firstLine(value.map(String).join(' '));
      return undefined;
    } catch {
      return undefined;
    }
  }
  return trimmed ? firstLine(argsPreview(trimmed)) : undefined;
}

function firstLine(s: string): string {
  return s.trim().split('\n')[0].slice(0, 160);
}

function clean(s: string): string {
  return s.trim().replace(/[.,;:)\]}'"`]+$/, '');
}

/**
 * The entities of the steps a compaction forgot, masked or trimmed, each marked kept when the
 * condensed context (summary and remaining steps) still names it.
 */
export function forgottenEntities(trajectory: Trajectory, result: Pick<CompactionResult, 'fates' | 'condensed'>): SurvivalEntity[] {
  const forgotten = trajectory.steps.filter((s) => (result.fates[s.index] ?? 'kept') !== 'kept');
  if (forgotten.length === 0) return [];
  const remaining = result.condensed.steps.map((s) => (s.tool ? `${s.tool.name} ${s.tool.args}\n${s.text}` : s.text)).join('\n');
  return survival(extractEntities(forgotten), remaining);
}
