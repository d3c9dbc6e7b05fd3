import type { Step } from '../model';

// Processes that outlive the call that started them (Codex's unified exec, Copilot's async
// shells): the call's result names an id, and later calls that name the same id read or drive
// that process. Each adapter says how its log names the id; the linking is the same for all.

export interface ProcessIds {
  /** The argument that names a process in a later call (`session_id`, `shellId`). */
  argument: string;
  /** The id a result says is still running (`Process running with session ID 48230`). */
  running(resultText: string): string | undefined;
  /** Whether a continuing call's result says the process has ended: its id is free again. */
  exited(resultText: string): boolean;
}

/**
 * Sets `Step.continues` on each call that names an id an earlier call's result said was still
 * running: it continues that (first) call. Read from the ids alone, whatever the tools are called.
 */
export function linkProcessCalls(steps: Step[], ids: ProcessIds): void {
  const running = new Map<string, number>();
  for (const s of steps) {
    if (s.kind === 'tool_call' && s.tool) {
      const id = argumentOf(s.tool.args, ids.argument);
      const root = id === undefined ? undefined : running.get(id);
      if (root !== undefined && root < s.index) s.continues = root;
    } else if (s.kind === 'tool_result' && s.answers !== undefined) {
      const call = steps[s.answers];
      const id = ids.running(s.text);
      // A read that finds the process still running names the same id: the root stays the first call.
      if (id !== undefined && call?.continues === undefined) running.set(id, s.answers);
      else if (call?.continues !== undefined && ids.exited(s.text)) running.delete(argumentOf(call.tool?.args ?? '', ids.argument) ?? '');
    }
  }
}

/** A call's argument `key` as a string id, from its JSON arguments. */
function argumentOf(args: string, key: string): string | undefined {
  if (!args.includes(key)) return undefined;
  try {
    const v = (JSON.parse(args) as Record<string, unknown>)[key];
    return typeof v === 'number' || (typeof v === 'string' && v !== '') ? String(v) : undefined;
  } catch {
    return undefined;
  }
}
