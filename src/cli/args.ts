import type { ExitCode } from './exitCodes';
import { UserError } from '../core/errors';
import * as path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Wrong usage of the command line: exit code 1 and the usage text. */
export class UsageError extends UserError {
  constructor(message: string) { super('usage', message); }
}

export function parseCommandArgs<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

export interface CliIO {
  out(s: string): void;
  err(s: string): void;
  /** True when a person can be asked a question (stdin and stdout are terminals). */
  interactive: boolean;
  /** The worker script (`dist/worker.js` beside the bundle), set by `main`; none runs jobs in this thread. */
  workerScript?: string;
}

export interface CliCommand {
  name: string;
  /** One line for the list of commands. */
  summary: string;
  /** The synopsis and what the command does, for its --help. */
  usage: string;
  /** Each option and what it does (a description may span lines). */
  options: readonly (readonly [string, string])[];
  /** One command line that works, shown under "Example". */
  example: string;
  /** The exit codes it can give besides 0, 1 and 70 (all in exitCodes.ts). */
  exitCodes: readonly ExitCode[];
  run(args: string[], io: CliIO): Promise<number>;
}

/**
 * The paths the user typed, as typed, resolved and by name: printed output keeps them as they are
 * when the rest is redacted (a task id in a file's name is the user's, not a secret of the log's).
 */
export function typedPaths(...paths: (string | undefined)[]): string[] {
  return paths.filter((p): p is string => p !== undefined && p !== '').flatMap((p) => [p, path.resolve(p), path.basename(p)]);
}
