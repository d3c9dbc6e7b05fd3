// What the tree should show for a file, read from the bundled CLI (`stats --json`),
// which shares the core with the extension: the e2e suite checks the wiring, not the parsers.
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

export interface Expected {
  file: string;
  format: string;
  title: string;
  turns: number;
  steps: number;
  byKind: Record<string, number>;
  tools: Record<string, number>;
}

export function expectedFor(repo: string, file: string): Expected {
  const cli = path.join(repo, 'dist', 'cli.js');
  const run = (...args: string[]) => execFileSync(process.execPath, [cli, 'stats', file, ...args], { encoding: 'utf8' });
  const json = JSON.parse(run('--json')) as Omit<Expected, 'title'>;
  // The JSON leaves the title out; the text report has it on its `title` line.
  const titleLine = run().split('\n').find((line) => /^\s+title\s{2,}/.test(line));
  const title = titleLine ? titleLine.replace(/^\s+title\s{2,}/, '').trim() : '';
  return { ...json, file, title };
}

/** The label prefix the tree gives a step kind (the UI contract in the task brief). */
export const KIND_LABEL: Record<string, string> = {
  system: 'system',
  user: 'user',
  thought: 'thought',
  assistant: 'assistant',
  tool_call: 'tool call',
  tool_result: 'observation',
  compaction: 'compaction',
  other: 'other',
};

/** The kind a step row's label names, or undefined when it is not a step row. */
export function kindOfLabel(label: string): string | undefined {
  // Longest labels first so "tool call" is not read as something shorter.
  const entries = Object.entries(KIND_LABEL).sort((a, b) => b[1].length - a[1].length);
  return entries.find(([, prefix]) => label === prefix || label.startsWith(prefix + ' ') || label.startsWith(prefix + ' ·'))?.[0];
}
