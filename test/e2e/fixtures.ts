// A trajectory the suite writes itself: chat-completions messages whose content is HTML and
// script. Every place that shows trajectory text must show these as text and run none of them.
import * as fs from 'node:fs';
import * as path from 'node:path';

export const HOSTILE_FILE = 'hostile-payloads.json';

/** The payloads, each the whole content of one message, so previews show them in full. */
export const PAYLOADS = {
  script: '<script>window.__pwned=1</script>',
  img: '<img src=x onerror="window.__pwned=2">',
  breakout: '</script><script>alert(1)</script>',
  bold: '<b>bold?</b>',
} as const;

export const HOSTILE_TITLE = `Fix the page ${PAYLOADS.bold} please`;

/**
 * Steps as the loader numbers them: 0 system, 1 user (bold), 2 thought, 3 tool call,
 * 4 observation (script), 5 thought, 6 tool call, 7 observation (img), 8 assistant (breakout),
 * then a second turn (9 user, 10 assistant).
 */
export const HOSTILE_STEPS = { user: 1, script: 4, img: 7, breakout: 8 } as const;

export function writeHostileTrajectory(workspace: string): string {
  const call = (id: string, command: string) => ({ id, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command }) } });
  const messages = [
    { role: 'system', content: 'You are a careful coding agent.' },
    { role: 'user', content: HOSTILE_TITLE },
    { role: 'assistant', content: 'Reading the page first.', tool_calls: [call('c1', 'cat index.html')] },
    { role: 'tool', tool_call_id: 'c1', content: PAYLOADS.script },
    { role: 'assistant', content: 'And the image page.', tool_calls: [call('c2', 'cat image.html')] },
    { role: 'tool', tool_call_id: 'c2', content: PAYLOADS.img },
    { role: 'assistant', content: PAYLOADS.breakout },
    { role: 'user', content: 'Is it fixed now?' },
    { role: 'assistant', content: 'Yes.' },
  ];
  const file = path.join(workspace, HOSTILE_FILE);
  fs.writeFileSync(file, JSON.stringify({ model: 'gpt-4o', messages }, null, 2));
  return file;
}
