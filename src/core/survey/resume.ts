import { promises as fs } from 'node:fs';
import { isSkipped, type SurveyLine } from './types';

// `--resume FILE`: the lines of an earlier survey's output. A file is done when its skip line, or
// every one of its runs, is there; a file cut short is measured again and only its missing runs printed.

export interface Resumed {
  /** The earlier lines, one per run (duplicates dropped), for the total. */
  lines: SurveyLine[];
  /** Files with every run (or their skip line) present. */
  done: Set<string>;
  /** `file\0run` of every run printed. */
  printed: Set<string>;
}

export function runKey(file: string, run: number): string {
  return `${file}\u0000${run}`;
}

export function parseResumed(text: string): Resumed {
  const lines: SurveyLine[] = [];
  const done = new Set<string>();
  const printed = new Set<string>();
  const runsSeen = new Map<string, { expected: number; seen: number }>();
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      continue; // the line a stopped survey was writing when it stopped
    }
    if (!value || typeof value !== 'object' || typeof (value as { file?: unknown }).file !== 'string') continue;
    const line = value as SurveyLine;
    if (isSkipped(line)) {
      if (done.has(line.file)) continue;
      done.add(line.file);
      lines.push(line);
      continue;
    }
    if (typeof line.run !== 'number') continue;
    const key = runKey(line.file, line.run);
    if (printed.has(key)) continue;
    printed.add(key);
    lines.push(line);
    const seen = runsSeen.get(line.file) ?? { expected: line.runsInFile ?? 1, seen: 0 };
    seen.seen++;
    runsSeen.set(line.file, seen);
    if (seen.seen >= seen.expected) done.add(line.file);
  }
  return { lines, done, printed };
}

export async function readResumed(file: string): Promise<Resumed> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { lines: [], done: new Set(), printed: new Set() };
    throw e;
  }
  return parseResumed(text);
}
