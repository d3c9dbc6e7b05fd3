import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Wrong usage of the command line: exit code 1 and the usage text. */
export class UsageError extends Error {}

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
}

export interface CliCommand {
  name: string;
  /** One or more lines for the usage text. */
  usage: string;
  run(args: string[], io: CliIO): Promise<number>;
}
