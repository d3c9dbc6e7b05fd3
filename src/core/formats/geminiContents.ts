import { pointerOf } from '../io/jsonScan';
import type { SourceLocation, StepImage, TrajectoryMeta } from '../model';
import { argsOf, isRecord, StepBuilder, type StepSink, textOf } from '../steps';
import type { ParseContext, ParsedTrajectory } from './adapter';
import { skipRecord } from './adapter';
import { titleFromSteps } from './chatMessages';
import { injectedLabel, labelWith, type InjectedRule } from './injected';
import { imagesOf, isImagePart } from './images';
import { geminiShellExit } from './geminiShell';

// Gemini CLI's chat history as the Gemini API's `contents` (what `/chat save` and a checkpoint
// keep): a bare list of `{role: "user" | "model", parts}`. Model parts are text (`thought: true`
// for reasoning) and `functionCall {id, name, args}`; user parts are text and `functionResponse
// {id, name, response: {output | error}}`, which answer calls by `id`.

type Content = Record<string, unknown>;

/** The compression prompt asks for a `<state_snapshot>`; the new history starts with it as a user turn. */
const STATE_SNAPSHOT = /^\s*<state_snapshot>/;

/** What Gemini CLI puts in the history with the user role that the person did not type. */
export const GEMINI_CLI_INJECTED: readonly InjectedRule[] = [
  // The environment the CLI sends first (date, OS, workspace folders and their listing); before
  // the tag, in its own words (0.x: "This is the Gemini CLI. We are setting up the context for our chat.").
  { name: 'session context', match: /^<session_context>|^This is the Gemini CLI\. We are setting up the context for our chat\./, label: () => 'session context' },
  // What the CLI sends by itself after a model turn that ended with nothing to show (client.ts).
  { name: 'continue nudge', match: /^System: Please continue\.\s*$/, label: () => labelWith('sent by the CLI', 'System: Please continue.') },
];

/** A user text of Gemini CLI: the compression summary, the CLI's context, or the person's turn. */
export function addGeminiUserText(b: StepSink, text: string, base: { location: SourceLocation; timestamp?: string; sourceId?: string; images?: StepImage[] }): void {
  if (STATE_SNAPSHOT.test(text)) {
    b.add({ ...base, kind: 'compaction', text, label: 'chat compression', compaction: { summary: text } });
    b.closeOpenCalls();
    return;
  }
  const injected = injectedLabel(GEMINI_CLI_INJECTED, text);
  if (injected !== undefined) {
    b.add({ ...base, kind: 'environment', text, label: injected });
    return;
  }
  b.closeOpenCalls();
  b.add({ ...base, kind: 'user', text, label: 'user' });
}

function isContent(v: unknown): v is Content {
  return isRecord(v) && (v.role === 'user' || v.role === 'model') && Array.isArray(v.parts);
}

/** A JSON array whose first items are all `{role, parts}` contents, one of them the model's. */
export function looksLikeGeminiContents(value: unknown): boolean {
  if (!Array.isArray(value) || value.length === 0) return false;
  const head = value.slice(0, 20);
  return head.every(isContent) && head.some((c) => (c as Content).role === 'model');
}

/** `locate(i)`: where item `i` is in the file (a shared chat's section line), else its JSON Pointer. */
export function parseGeminiContents(items: readonly unknown[], ctx: ParseContext, locate?: (i: number) => SourceLocation): ParsedTrajectory {
  const b = new StepBuilder();
  b.linksByIdOnly = true; // functionResponse names its call's id
  items.forEach((item, i) => {
    const location = locate?.(i) ?? { pointer: pointerOf(i) };
    if (!isContent(item)) {
      skipRecord(ctx, `${isRecord(item) && typeof item.role === 'string' ? item.role : 'item'} (not a content)`, location);
      return;
    }
    const parts = (item.parts as unknown[]).filter(isRecord);
    if (item.role === 'user') addUserContent(b, parts, location);
    else addModelContent(b, parts, location);
  });
  const steps = b.finish();
  const meta: TrajectoryMeta = { agent: 'gemini-cli' };
  return { title: titleFromSteps(steps, `Gemini CLI chat ${ctx.fileName}`), steps, meta };
}

/** Function responses answer calls by id; the text is the person's, the CLI's context or a summary. */
function addUserContent(b: StepBuilder, parts: Content[], location: SourceLocation): void {
  const texts: string[] = [];
  for (const p of parts) {
    if (isRecord(p.functionResponse)) {
      const fr = p.functionResponse;
      const response = isRecord(fr.response) ? fr.response : {};
      const isError = 'error' in response && !('output' in response) ? true : undefined;
      const text = unmaskedOutput(textOf(response.output ?? response.error ?? response));
      const exitCode = geminiShellExit(text);
      b.add({
        location, kind: 'tool_result', text, isError, ...(exitCode !== undefined ? { exitCode } : {}),
        tool: { name: typeof fr.name === 'string' ? fr.name : '', args: '', callId: typeof fr.id === 'string' ? fr.id : undefined },
      });
    } else if (typeof p.text === 'string' && p.text !== '') texts.push(p.text);
    else if (isRecord(p.inlineData) || isRecord(p.fileData)) texts.push(isImagePart(p) ? '[image]' : '[file]');
  }
  if (texts.length > 0) addGeminiUserText(b, texts.join('\n'), { location, ...imagesOf(parts) });
}

/** Reasoning, text and calls in the order the model wrote them; text beside a call narrates it. */
// What the CLI itself put in the history as the model's answer to its session context (0.x).
const CONTEXT_ACK = /^Got it\. Thanks for the context!\s*$/;

function addModelContent(b: StepBuilder, parts: Content[], location: SourceLocation): void {
  const calls = parts.some((p) => isRecord(p.functionCall));
  const last = b.steps[b.steps.length - 1];
  if (!calls && parts.length === 1 && typeof parts[0].text === 'string' && CONTEXT_ACK.test(parts[0].text) && last?.kind === 'environment') {
    b.add({ location, kind: 'environment', text: parts[0].text, label: labelWith('sent by the CLI', parts[0].text) });
    return;
  }
  for (const p of parts) {
    if (isRecord(p.functionCall)) {
      const fc = p.functionCall;
      const args = argsOf(fc.args ?? {});
      b.add({ location, kind: 'tool_call', text: args, label: 'tool call', tool: { name: typeof fc.name === 'string' ? fc.name : 'tool', args, callId: typeof fc.id === 'string' ? fc.id : undefined } });
    } else if (typeof p.text === 'string' && p.text !== '') {
      const thought = p.thought === true;
      b.add({ location, kind: thought || calls ? 'thought' : 'assistant', text: p.text, label: thought ? 'thinking' : 'gemini' });
    }
  }
}

const MASK_OPEN = '<tool_output_masked>';
const MASK_CLOSE = '</tool_output_masked>';
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '"': '"', '\\': '\\', '/': '/' };

/**
 * Gemini CLI masks a large old output to save context: `<tool_output_masked>` around the start and
 * end of the response's JSON, cut in the middle, and where the full output was saved. Read, it is
 * a line that says so, then the output's text unescaped (the JSON cannot be parsed, being cut).
 */
export function unmaskedOutput(text: string): string {
  if (!text.startsWith(MASK_OPEN)) return text;
  const close = text.lastIndexOf(MASK_CLOSE);
  let inner = text.slice(MASK_OPEN.length, close < 0 ? text.length : close).trim();
  const savedAt = /Full output available at: (\S+)/.exec(inner.slice(-2000))?.[1];
  const json = /^\{\s*"output":\s*"/.exec(inner);
  if (json) {
    const end = inner.lastIndexOf('"\n}');
    inner = inner.slice(json[0].length, end < 0 ? inner.length : end)
      .replace(/\\(u[0-9a-fA-F]{4}|.)/g, (all, c: string) => (c.length === 5 ? String.fromCharCode(parseInt(c.slice(1), 16)) : ESCAPES[c] ?? all));
  }
  return `[output masked by Gemini CLI${savedAt ? `; full output in ${savedAt}` : ''}]\n${inner}`;
}
