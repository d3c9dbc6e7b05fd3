import { TrajectoryLoadError } from '../core/io/errors';
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

Exit codes: 0 success, 1 wrong usage, 2 the file could not be read as a trajectory.`;
}

const processIO: CliIO = {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY),
};

export async function main(argv: string[], io: CliIO = processIO): Promise<number> {
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
    throw e;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => { process.exitCode = code; },
    (e) => { process.stderr.write(`agent-trace-lens: unexpected error: ${(e as Error).stack ?? e}\n`); process.exitCode = 70; },
  );
}
