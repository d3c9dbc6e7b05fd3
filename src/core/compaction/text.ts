// Text helpers shared by strategies: how a step reads to a summarizer, the truncations the
// reference systems apply, and Python's `str()` of tool inputs (Katalyst renders dicts that way).

import { imageTokensOf, type Step } from '../model';
import type { TokenCounter } from '../tokens';

/** What the model sees of a step, for token counts: a call is its tool name plus its arguments. */
export function contextTextOf(step: Pick<Step, 'kind' | 'text' | 'tool'>): string {
  if (step.kind === 'tool_call' && step.tool) return `${step.tool.name} ${step.text}`;
  return step.text;
}

/** Tokens a step puts in a prompt: its text by `counter`, and its images' modelled tokens. */
export function promptTokensOf(step: Pick<Step, 'kind' | 'text' | 'tool' | 'images' | 'resent'>, counter: TokenCounter): number {
  return step.resent ? 0 : counter.count(contextTextOf(step)) + imageTokensOf(step);
}

export const OPENHANDS_TRUNCATION_MARKER = '\n[... Observation truncated due to length ...]\n';

/** OpenHands' middle cut: past `max` characters keep the first and last `max/2` around the marker. */
export function truncateMiddle(text: string, max: number, marker = OPENHANDS_TRUNCATION_MARKER): string {
  if (max <= 0 || text.length <= max) return text;
  const half = Math.floor(max / 2);
  return text.slice(0, half) + marker + text.slice(text.length - half);
}

/** Cut to exactly `max` characters ending in `...` (Katalyst's observation and summary rule). */
export function truncateEnd(text: string, max: number): string {
  if (text.length <= max) return text;
  return text.slice(0, Math.max(0, max - 3)) + '...';
}

/** Lines as Python's `str.splitlines()` counts them (a trailing newline adds no line). */
export function lineCount(text: string): number {
  if (text === '') return 0;
  const parts = text.split(/\r\n|\r|\n|\v|\f|\x1c|\x1d|\x1e|\x85|\u2028|\u2029/);
  return parts[parts.length - 1] === '' ? parts.length - 1 : parts.length;
}

/** Python's `str()` of a JSON value: `{'path': 'a'}`, `['x', 1]`, `True`, `None`. */
function pythonStr(value: unknown): string {
  if (typeof value === 'string') return value;
  return pythonRepr(value);
}

function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : pyFloat(value);
  if (typeof value === 'string') return pyStringRepr(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    return `{${entries.map(([k, v]) => `${pyStringRepr(k)}: ${pythonRepr(v)}`).join(', ')}}`;
  }
  return String(value);
}

function pyFloat(n: number): string {
  const s = String(n);
  return /[.eE]/.test(s) || !Number.isFinite(n) ? s : s + '.0';
}

/** Python prefers single quotes, and switches to double quotes when the text has a ' but no ". */
function pyStringRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of s) {
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch < ' ' || ch === '\x7f') out += '\\x' + ch.charCodeAt(0).toString(16).padStart(2, '0');
    else out += ch;
  }
  return quote + out + quote;
}

/** Tool arguments as Python would print the parsed input; text that is not JSON stays as written. */
export function toolInputStr(args: string): string {
  const trimmed = args.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return pythonStr(JSON.parse(trimmed));
    } catch {
      /* not JSON: the model wrote plain text */
    }
  }
  return args;
}

/** Parsed JSON arguments of a call, or undefined when they are not a JSON object. */
export function argsObject(step: Pick<Step, 'tool'>): Record<string, unknown> | undefined {
  const args = step.tool?.args?.trim();
  if (!args || !args.startsWith('{')) return undefined;
  try {
    const v = JSON.parse(args);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const KIND_HEADINGS: Record<Step['kind'], string> = {
  system: 'SYSTEM PROMPT',
  user: 'USER MESSAGE',
  assistant: 'ASSISTANT MESSAGE',
  thought: 'AGENT THOUGHT',
  tool_call: 'TOOL CALL',
  tool_result: 'TOOL RESULT',
  compaction: 'EARLIER SUMMARY',
  environment: 'ENVIRONMENT MESSAGE',
  other: 'EVENT',
};

/**
 * An event as the summarizer reads it (a heading line, then its text), cut in the middle past `max`
 * characters as `truncateMiddle` cuts. The cut is taken from the step's text itself: slicing the
 * joined string would first copy all of it (a 200 MB tool output, copied to keep a few thousand
 * characters).
 */
export function truncatedEventText(step: EventStep, max: number): string {
  const heading = `${eventHeading(step)}\n`;
  const text = step.text;
  const total = heading.length + text.length;
  if (max <= 0 || total <= max) return heading + text;
  const half = Math.floor(max / 2);
  const head = half <= heading.length ? heading.slice(0, half) : heading + text.slice(0, half - heading.length);
  const tail = half <= text.length ? text.slice(text.length - half) : heading.slice(total - half) + text;
  return head + OPENHANDS_TRUNCATION_MARKER + tail;
}

type EventStep = Pick<Step, 'kind' | 'text' | 'tool' | 'toolName' | 'isError' | 'label'>;

function eventHeading(step: EventStep): string {
  let heading = KIND_HEADINGS[step.kind];
  if (step.kind === 'tool_call' && step.tool) heading += ` ${step.tool.name}`;
  if (step.kind === 'tool_result' && step.toolName) heading += ` of ${step.toolName}`;
  if (step.isError) heading += ' (error)';
  return heading;
}

/** The id an event had in its log, else its step index. */
export function eventId(step: Pick<Step, 'sourceId' | 'index'>): string {
  return step.sourceId ?? String(step.index);
}
