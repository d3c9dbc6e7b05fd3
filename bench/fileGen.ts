import * as fs from 'node:fs';
import { corpus } from '../test/helpers/paths';

// Builds large trajectories for the file benchmark by repeating real corpus records until the
// file reaches the wanted size. The content stays realistic (the same mix of long tool outputs,
// short messages and nested events); only the count grows.

export type GeneratedKind = 'chat-jsonl' | 'eval-jsonl' | 'v0-json';

export const KIND_LABELS: Record<GeneratedKind, string> = {
  'chat-jsonl': 'chat-completions JSONL',
  'eval-jsonl': 'OpenHands eval JSONL',
  'v0-json': 'OpenHands V0 JSON array',
};

/** One message per line from a real mini-swe-agent run (tool calling), without its bookkeeping. */
function chatLines(): string[] {
  const run = JSON.parse(fs.readFileSync(corpus('mini-swe-agent/astropy__astropy-12907.traj.json'), 'utf8')) as { messages: Record<string, unknown>[] };
  return run.messages.filter((m) => m.role !== 'exit').map(({ extra: _extra, ...message }) => JSON.stringify(message));
}

function evalLines(): string[] {
  return fs.readFileSync(corpus('openhands-eval/output.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '');
}

function v0Events(): string[] {
  return (JSON.parse(fs.readFileSync(corpus('openhands-v0/basic_gui_mode.json'), 'utf8')) as unknown[]).map((e) => JSON.stringify(e));
}

/** Writes a file of at least `bytes` bytes; returns its real size. */
export function generate(kind: GeneratedKind, file: string, bytes: number): number {
  const fd = fs.openSync(file, 'w');
  let written = 0;
  const write = (s: string): void => {
    written += fs.writeSync(fd, s);
  };
  try {
    if (kind === 'v0-json') {
      const block = v0Events().join(',');
      write('[');
      write(block);
      while (written < bytes) write(',' + block);
      write(']\n');
    } else {
      const block = (kind === 'chat-jsonl' ? chatLines() : evalLines()).join('\n') + '\n';
      while (written < bytes) write(block);
    }
  } finally {
    fs.closeSync(fd);
  }
  return written;
}
