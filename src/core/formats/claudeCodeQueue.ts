import { isRecord } from '../steps';
import type { JsonlRecord } from './adapter';

// What the person types while Claude Code is still working is queued, and the session file says
// so in its own records rather than as a `user` line:
// - `queue-operation` records: `enqueue` (with the text), then `dequeue` when the text goes out as
//   the next user line, or `remove` (Claude Code 2.1: `reason: "absorbed_mid_turn"` when the model
//   received it inside the running turn). `popAll` sends the whole queue as the next user line.
// - `attachment` records of type `queued_command` (later 2.1 versions): the text the model got mid-
//   turn, with `commandMode` and `origin.kind` saying who wrote it (`human`, or none in older
//   versions; `peer`, `auto-continuation` and task notifications are not the person).
// A reader of `user` lines alone loses every one of those messages. This reads them from the
// records' own links (order, operation, reason, origin), never by guessing from the text.

/** A queued message the model received outside a `user` line, found at record `line`. */
export interface QueuedMessage {
  text: string;
  /** Who wrote it: the person, or what the client names (`peer`, `auto-continuation`, `task-notification`). */
  by: 'person' | string;
  /** Whether the file also says the model took it mid-turn (a `remove` absorbed, or an attachment). */
  delivered: boolean;
}

/** Queued messages by the line of the record that carries them. */
export function queuedMessages(records: readonly JsonlRecord[], userTexts: ReadonlySet<string>): Map<number, QueuedMessage> {
  const found = new Map<number, QueuedMessage>();
  const attached = new Set<string>();
  for (const { value, line } of records) {
    if (!isRecord(value) || value.type !== 'attachment' || !isRecord(value.attachment) || value.attachment.type !== 'queued_command') continue;
    const text = promptText(value.attachment.prompt);
    if (text === undefined) continue;
    attached.add(text);
    if (userTexts.has(text)) continue; // also written as a user line: read there
    found.set(line, { text, by: authorOf(value.attachment), delivered: true });
  }
  // The queue as the file records it, oldest first: what leaves it unread by a user line is kept.
  const queue: { text: string; line: number }[] = [];
  const leave = (index: number, absorbed: boolean) => {
    const [item] = queue.splice(index, 1);
    if (absorbed && item && !userTexts.has(item.text) && !attached.has(item.text)) found.set(item.line, { text: item.text, by: 'person', delivered: true });
  };
  for (const { value, line } of records) {
    if (!isRecord(value) || value.type !== 'queue-operation') continue;
    const text = typeof value.content === 'string' ? value.content.trim() : '';
    if (value.operation === 'enqueue' && text !== '') queue.push({ text, line });
    else if (value.operation === 'dequeue') queue.shift();
    else if (value.operation === 'popAll') queue.length = 0;
    else if (value.operation === 'remove') {
      const at = text === '' ? 0 : queue.findIndex((q) => q.text === text);
      if (at >= 0) leave(at, value.reason === 'absorbed_mid_turn');
    }
  }
  // Still queued when the file ends (older versions write no `remove`): the person typed it, and
  // no user line or attachment holds it, so it is kept, but not said to have reached the model.
  for (const item of queue) {
    if (!userTexts.has(item.text) && !attached.has(item.text)) found.set(item.line, { text: item.text, by: 'person', delivered: false });
  }
  return found;
}

/** The text of a prompt or a user line as `queuedMessages` compares them: a string, or its text blocks joined. */
export function promptText(prompt: unknown): string | undefined {
  if (typeof prompt === 'string') return prompt.trim() || undefined;
  if (!Array.isArray(prompt)) return undefined;
  const text = prompt.filter((b) => isRecord(b) && b.type === 'text' && typeof b.text === 'string').map((b) => (b as { text: string }).text).join('\n').trim();
  return text || undefined;
}

function authorOf(attachment: Record<string, unknown>): string {
  if (attachment.commandMode === 'task-notification') return 'task-notification';
  const kind = isRecord(attachment.origin) ? attachment.origin.kind : undefined;
  return typeof kind === 'string' && kind !== 'human' ? kind : 'person';
}
