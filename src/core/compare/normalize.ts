import type { Step } from '../model';

// What makes two steps of two runs "the same step": their kind, their tool, and their arguments
// (a tool call) or text (anything else) once what differs between any two runs is set aside:
// ids the harness or provider mints (call ids, uuids, message ids), timestamps, temporary paths,
// hex hashes (commits, digests, object ids) and the key order of JSON objects.

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const TIMESTAMP = /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?\b/g;
const CLOCK = /\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g;
/** Ids with the prefixes providers and harnesses give them: `call_…`, `toolu_…`, `msg_…`, `chatcmpl-…`. */
const PREFIXED_ID = /\b(?:call|toolu|srvtoolu|msg|chatcmpl|resp|run|fc|rs|item|req|evt|event|ses|sess|session|conv|thread|tool|span|trace)[_-][A-Za-z0-9_-]{6,}\b/g;
/** Temporary folders: /tmp, /var/tmp, macOS /var/folders/…/T, Windows …\AppData\Local\Temp. */
const TEMP_PATH = /(?:\/private)?(?:\/var\/folders\/[^/\s]+\/[^/\s]+\/T|\/var\/tmp|\/tmp)(?:\/[^\s'"`,;:)\]}>]*)?|[A-Za-z]:\\Users\\[^\\\s]+\\AppData\\Local\\Temp(?:\\[^\s'"`,;:)\]}>]*)?/g;
/** Seven or more hex digits with at least one digit and one letter: commits, digests, object ids. */
const HEX = /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi;
/** 0x-prefixed addresses (`<object at 0x7f3a…>`). */
const HEX_ADDRESS = /\b0x[0-9a-f]{4,}\b/gi;
const SPACE = /\s+/g;

/** A temp path's last segment kept when it reads like a name (reproduce.py), not a random one. */
function tempPath(path: string): string {
  const last = path.split(/[/\\]/).pop() ?? '';
  const random = /^(?:tmp|temp)[\w-]*$/i.test(last) || /\d.*\d.*\d/.test(last) || last === '' || /^(?:T|tmp|Temp)$/.test(last);
  return random ? '<tmp>' : `<tmp>/${last}`;
}

/** The text with run-specific tokens replaced by placeholders and white space folded. */
export function normalizeText(text: string): string {
  return text
    .replace(UUID, '<uuid>')
    .replace(TIMESTAMP, '<time>')
    .replace(CLOCK, '<time>')
    .replace(TEMP_PATH, tempPath)
    .replace(PREFIXED_ID, '<id>')
    .replace(HEX_ADDRESS, '<hex>')
    .replace(HEX, '<hex>')
    .replace(SPACE, ' ')
    .trim();
}

/** JSON with object keys sorted at every level, so `{"b":1,"a":2}` and `{"a":2,"b":1}` agree. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as Record<string, unknown>).sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Arguments or text: JSON put in canonical order first (when it is JSON), then normalized. */
export function normalizeArgs(text: string): string {
  const trimmed = text.trim();
  if ((trimmed.startsWith('{') || trimmed.startsWith('[')) && trimmed.length < 4_000_000) {
    try {
      return normalizeText(canonicalJson(JSON.parse(trimmed)));
    } catch {
      // not JSON: compare it as text
    }
  }
  return normalizeText(text);
}

/** The tool a step belongs to: the call's name, or the name a result carries. */
export function toolOf(step: Step): string {
  if (step.kind === 'tool_call') return step.tool?.name ?? '';
  if (step.kind === 'tool_result') return step.toolName ?? '';
  return '';
}

/** What two steps must share to be the same step: kind, tool and normalized arguments or text. */
export function stepKey(step: Step): string {
  const body = step.kind === 'tool_call' && step.tool ? step.tool.args : step.text;
  return `${step.kind}\u0000${toolOf(step)}\u0000${normalizeArgs(body)}`;
}

/** What two steps must share to be paired as one changed step: kind and tool. */
export function kindKey(step: Step): string {
  return `${step.kind}\u0000${toolOf(step)}`;
}
