import { imageTokensOf, type Step, type StepKind } from '../model';

// What a chat model is billed for, per step: the content's tokens plus the framing the chat
// format adds. The framing constants follow OpenAI's published counting recipe for chat models
// (3 tokens per message for role and delimiters, 3 to prime every reply); the per-tool-call
// framing is our estimate of the wrapper around name and arguments. Content is exact tiktoken;
// framing is reported apart (`overhead`) so nobody mistakes it for measured text.
export const MESSAGE_OVERHEAD = 3;
export const TOOL_CALL_OVERHEAD = 3;
export const REPLY_PRIMING = 3;

/** Tokens of one step. `exact` is false while the content is still the chars/4 estimate. */
export interface StepTokens {
  content: number;
  overhead: number;
  exact: boolean;
  /** Modelled tokens of the step's images (tokens/imageTokens.ts); absent when it has none. */
  images?: number;
}

/** A step's tokens: its counted content and framing, and its images' modelled tokens where it has any. */
export function stepTokensOf(step: Step, content: number, overhead: number, exact: boolean): StepTokens {
  return step.images ? { content, overhead, exact, images: imageTokensOf(step) } : { content, overhead, exact };
}

export function stepTotal(t: StepTokens): number {
  return t.content + t.overhead + (t.images ?? 0);
}

/** The strings whose tokens make up a step's content: a tool call is its name and its arguments. */
export function piecesOf(step: Step): string[] {
  if (step.resent) return [];
  if (step.kind === 'tool_call' && step.tool) return [step.tool.name, step.tool.args];
  return [step.text];
}

const AGENT_KINDS: ReadonlySet<StepKind> = new Set(['assistant', 'thought', 'tool_call']);

/** What the model wrote: a call the client made on its own (`byClient`) is not, and opens no request. */
export function isAgentStep(step: Step): boolean {
  return AGENT_KINDS.has(step.kind) && step.byClient !== true;
}

/**
 * Whether each step opens a new chat message. Adapters split one assistant message into a
 * thought and its tool calls: those share a source location, and a tool call right after the
 * agent's own text belongs to that message even when the log wrote them on separate lines.
 */
export function messageStarts(steps: readonly Step[]): boolean[] {
  return steps.map((step, i) => {
    const prev = i > 0 ? steps[i - 1] : undefined;
    if (!prev || prev.branch !== step.branch) return true;
    if (step.kind === 'tool_call' && isAgentStep(prev)) return false;
    return !(isAgentStep(step) && isAgentStep(prev) && sameLocation(step, prev));
  });
}

function sameLocation(a: Step, b: Step): boolean {
  const la = a.location;
  const lb = b.location;
  if (!la || !lb) return false;
  if (la.pointer !== undefined || lb.pointer !== undefined) return la.pointer === lb.pointer;
  return la.line !== undefined && la.line === lb.line;
}

/** Framing tokens of a step in the chat format. */
export function overheadOf(step: Step, startsMessage: boolean): number {
  if (step.resent) return 0;
  let overhead = startsMessage ? MESSAGE_OVERHEAD : 0;
  if (step.kind === 'tool_call' && step.tool) overhead += TOOL_CALL_OVERHEAD;
  return overhead;
}

/** The cheap estimate shown before exact counts arrive (about 4 characters a token). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
