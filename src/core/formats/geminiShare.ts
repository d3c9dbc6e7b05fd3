import type { SourceLocation } from '../model';

// Gemini CLI's `/chat share <file>.md` (and `/export`): the chat's `contents` written out as
// Markdown. Each content is a section headed `## USER 🧑‍💻` or `## MODEL ✨` (earlier releases:
// `🧑‍💻 ## USER`), sections are joined by a `---` line, and a section's parts follow each other with
// nothing between: text as it is, a call as `**Tool Command**:` and a fenced JSON block of the
// `functionCall`, a result as `**Tool Response**:` and one of the `functionResponse`. Read back
// into contents, the file is read as `/chat save` keeps a chat (geminiContents.ts).

const HEADING = /^(?:## (USER|MODEL) (?:\u{1F9D1}\u200D?\u{1F4BB}|\u2728)\uFE0F?|(?:\u{1F9D1}\u200D?\u{1F4BB}|\u2728)\uFE0F? ## (USER|MODEL))\s*$/u;
const BLOCK = /\*\*Tool (Command|Response)\*\*:\n```json\n/g;

export interface SharedContent {
  content: { role: 'user' | 'model'; parts: Record<string, unknown>[] };
  location: SourceLocation;
}

/** Whether a text is a shared chat: a user and a model section under Gemini CLI's headings. */
export function looksLikeGeminiShare(text: string): boolean {
  const head = text.slice(0, 64 * 1024).split('\n', 4000);
  const roles = new Set(head.map((l) => HEADING.exec(l)).filter((m) => m !== null).map((m) => m[1] ?? m[2]));
  return roles.has('USER') && roles.has('MODEL');
}

/** The contents a shared chat was written from, each with the line its section starts on. */
export function sharedContents(text: string): SharedContent[] {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const sections: { role: 'user' | 'model'; line: number; body: string[] }[] = [];
  lines.forEach((line, i) => {
    const m = HEADING.exec(line);
    // A heading opens a section at the file's start or after the `---` between sections.
    const afterRule = sections.length === 0 || /^---\s*$/.test(lastNonBlank(lines, i) ?? '');
    if (m && afterRule) {
      const open = sections[sections.length - 1];
      if (open) dropRule(open.body);
      sections.push({ role: (m[1] ?? m[2]) === 'USER' ? 'user' : 'model', line: i + 1, body: [] });
    } else sections[sections.length - 1]?.body.push(line);
  });
  const shared = sections.map((s) => ({ content: { role: s.role, parts: partsOf(s.body.join('\n').replace(/^\n+|\n+$/g, '')) }, location: { line: s.line } }));
  giveCallsTheirIds(shared);
  return shared;
}

/**
 * The export writes a call without the id its answer names (`{"name", "args"}`). The API answers
 * calls in the order they were made, so an answer's id goes to the oldest call of its name still
 * unanswered; an answer without an id and that call get one made here.
 */
function giveCallsTheirIds(shared: readonly SharedContent[]): void {
  const waiting: Record<string, unknown>[] = [];
  let made = 0;
  for (const { content } of shared) {
    for (const part of content.parts) {
      const call = part.functionCall as Record<string, unknown> | undefined;
      const answer = part.functionResponse as Record<string, unknown> | undefined;
      if (call && typeof call.id !== 'string') waiting.push(call);
      if (!answer) continue;
      const i = waiting.findIndex((c) => c.name === answer.name);
      if (i < 0) continue;
      if (typeof answer.id !== 'string') answer.id = `shared-${++made}`;
      waiting[i].id = answer.id;
      waiting.splice(i, 1);
    }
  }
}

function lastNonBlank(lines: readonly string[], before: number): string | undefined {
  for (let i = before - 1; i >= 0; i--) if (lines[i].trim() !== '') return lines[i];
  return undefined;
}

/** A section's lines without the `---` that closes it. */
function dropRule(body: string[]): void {
  while (body.length && body[body.length - 1].trim() === '') body.pop();
  if (body.length && /^---\s*$/.test(body[body.length - 1])) body.pop();
}

/** Text, calls and results in the order they were written; a block that is not JSON stays text. */
function partsOf(body: string): Record<string, unknown>[] {
  const parts: Record<string, unknown>[] = [];
  const text = (t: string) => { if (t.trim() !== '') parts.push({ text: t }); };
  let at = 0;
  for (const m of body.matchAll(BLOCK)) {
    if (m.index < at) continue;
    const start = m.index + m[0].length;
    // JSON.stringify(…, null, 2) starts no line with a fence: the first one closes the block.
    const close = body.indexOf('\n```', start);
    const json = body.slice(start, close < 0 ? body.length : close);
    let value: unknown;
    try { value = JSON.parse(json); } catch { value = undefined; }
    if (value === null || typeof value !== 'object') continue;
    text(body.slice(at, m.index));
    parts.push(m[1] === 'Command' ? { functionCall: value } : { functionResponse: value });
    at = close < 0 ? body.length : close + 4;
  }
  text(body.slice(at));
  return parts;
}
