import { TrajectoryLoadError } from '../core/io/errors';
import { forTerminal } from '../core/output/terminal';
import { WRITE_REFUSED_EXIT, WriteRefused } from '../core/output/safeWrite';
import { installGarbageCollector } from './garbage';
import { UsageError, type CliCommand, type CliIO } from './args';
import { statsCommand } from './commands/stats';
import { compactCommand } from './commands/compact';
import { simulateCommand } from './commands/simulate';
import { convertCommand } from './commands/convert';
import { diffCommand } from './commands/diff';
import { searchCommand } from './commands/search';

// One entry per command; a new command is a file in commands/ and a line here.
const COMMANDS: readonly CliCommand[] = [statsCommand, compactCommand, simulateCommand, convertCommand,
  diffCommand, searchCommand];

function usage(): string {
  return `Usage: agent-trace-lens <command> [options]

Commands:
${COMMANDS.map((c) => '  ' + c.usage.split('\n').join('\n  ')).join('\n')}

${EXIT_CODES}`;
}

/** Documented in the usage text and the README. */
export const EXIT_CODES = `Exit codes:
  0  success
  1  wrong usage (the usage text is printed)
  2  the file could not be read as a trajectory
  3  a model was asked for, and the result is the strategy's fall-back
  4  an output was refused or could not be written (it would replace the trajectory, an existing
     file without --force, or write into a trajectory folder; a missing folder; a folder as target)
  70 an unexpected error (one line; ATL_DEBUG=1 prints the stack)`;

/** Unexpected errors print one line; the stack only with ATL_DEBUG=1. */
export const UNEXPECTED_EXIT = 70;

export function describeUnexpected(e: unknown): string {
  const debug = process.env.ATL_DEBUG === '1';
  const text = e instanceof Error ? (debug ? e.stack ?? e.message : e.message.split('\n')[0]) : String(e);
  return `agent-trace-lens: unexpected error: ${text}${debug ? '' : ' (ATL_DEBUG=1 shows where)'}\n`;
}

const processIO: CliIO = {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY),
};

export async function main(argv: string[], rawIO: CliIO = processIO): Promise<number> {
  // Every line printed goes through the terminal sanitiser: log content may carry escape sequences.
  const io: CliIO = { out: (s) => rawIO.out(forTerminal(s)), err: (s) => rawIO.err(forTerminal(s)), interactive: rawIO.interactive };
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.out(usage() + '\n');
    return name ? 0 : 1;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    io.err(`Unknown command "${name}".\n\n${usage()}\n`);
    return 1;
  }
  try {
    return await command.run(rest, io);
  } catch (e) {
    if (e instanceof TrajectoryLoadError) {
      io.err(`agent-trace-lens: ${e.message}\n`);
      return 2;
    }
    if (e instanceof UsageError) {
      io.err(`agent-trace-lens: ${e.message}\n\n${usage()}\n`);
      return 1;
    }
    if (e instanceof WriteRefused) {
      io.err(`agent-trace-lens: ${e.message}\n`);
      return WRITE_REFUSED_EXIT;
    }
    io.err(describeUnexpected(e));
    return UNEXPECTED_EXIT;
  }
}

if (require.main === module) {
  installGarbageCollector();
  main(process.argv.slice(2)).then(
    (code) => { process.exitCode = code; },
    (e) => { process.stderr.write(forTerminal(describeUnexpected(e))); process.exitCode = UNEXPECTED_EXIT; },
  );
}
