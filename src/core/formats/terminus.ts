import { isRecord } from '../steps';

// Terminus 2 (Harbor / Terminal-Bench's agent) answers in a JSON object its prompt asks for,
// `{analysis, plan, commands: [{keystrokes, duration}], task_complete}`, not with tool calls: the
// commands are its actions, and the harness answers them with the terminal's output. Read the
// same way wherever its replies are kept (ATIF steps, traces' `conversations`).

export interface TerminusReply {
  /** The analysis and the plan: what it thought. */
  thinking: string;
  /** The keystrokes it sent, in order; undefined when the reply sent none. */
  keystrokes?: string;
  done: boolean;
}

/** The reply when it is Terminus 2's JSON (every command with its keystrokes); undefined otherwise. */
export function terminusReply(message: string): TerminusReply | undefined {
  const text = message.trim();
  if (!text.startsWith('{') || !text.includes('"commands"')) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(v) || !Array.isArray(v.commands)) return undefined;
  const commands = v.commands.filter((c): c is Record<string, unknown> => isRecord(c) && typeof c.keystrokes === 'string');
  if (commands.length !== v.commands.length) return undefined;
  const thinking = [v.analysis, v.plan].filter((t): t is string => typeof t === 'string' && t.trim() !== '').join('\n\n');
  return { thinking, keystrokes: commands.length > 0 ? commands.map((c) => c.keystrokes as string).join('') : undefined, done: v.task_complete === true };
}
