import * as fs from 'node:fs';
import * as path from 'node:path';
import { forTerminal } from '../core/output/terminal';
import { EXIT, exitCodeOf, exitCodesText } from './exitCodes';
import { installGarbageCollector } from './garbage';
import type { CliCommand, CliIO } from './args';
import { statsCommand } from './commands/stats';
import { compactCommand } from './commands/compact';
import { simulateCommand } from './commands/simulate';
import { convertCommand } from './commands/convert';
import { diffCommand } from './commands/diff';
import { searchCommand } from './commands/search';
import { surveyCommand } from './commands/survey';

// One entry per command; a new command is a file in commands/ and a line here.
const COMMANDS: readonly CliCommand[] = [statsCommand, compactCommand, simulateCommand, convertCommand,
  diffCommand, searchCommand, surveyCommand];

function usage(): string {
  // Each command with its operands (the synopsis up to the first option), then what it does.
  const heads = COMMANDS.map((c) => {
    const words = c.usage.split('\n')[0].split(' ');
    const end = words.findIndex((w, i) => i > 0 && /^(\[|--)/.test(w));
    return words.slice(0, end < 0 ? undefined : end).join(' ');
  });
  const width = Math.max(...heads.map((h) => h.length));
  return `Usage: agent-trace-lens <command> [options]

Commands:
${COMMANDS.map((c, i) => `  ${heads[i].padEnd(width)}  ${c.summary}`).join('\n')}

Run \`agent-trace-lens <command> --help\` for a command's usage, options, an example and its exit codes.

${EXIT_CODES}`;
}

/** Documented in the usage text, each command's --help and the README (wording in exitCodes.ts). */
export const EXIT_CODES = exitCodesText();

/** Unexpected errors print one line; the stack only with ATL_DEBUG=1. */
export const UNEXPECTED_EXIT = EXIT.unexpected;

/** A command's own help: usage, options, one example and the exit codes it can give. */
export function commandHelp(c: CliCommand): string {
  const width = Math.min(28, Math.max(...c.options.map(([flag]) => flag.length)));
  const options = c.options.map(([flag, what]) => {
    const lines = what.split('\n');
    const head = flag.length > width ? `  ${flag}\n  ${''.padEnd(width)}  ${lines[0]}` : `  ${flag.padEnd(width)}  ${lines[0]}`;
    return [head, ...lines.slice(1).map((l) => `  ${''.padEnd(width)}  ${l}`)].join('\n');
  });
  return `Usage: agent-trace-lens ${c.usage.trimEnd()}

Options:
${options.join('\n')}
  ${'-h, --help'.padEnd(width)}  this text

Example:
  ${c.example}

${exitCodesText([EXIT.ok, EXIT.usage, ...c.exitCodes, EXIT.unexpected])}
`;
}

/** `--help` or `-h` anywhere before a `--`. */
function wantsHelp(args: readonly string[]): boolean {
  for (const a of args) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}

export function describeUnexpected(e: unknown): string {
  const debug = process.env.ATL_DEBUG === '1';
  const text = e instanceof Error ? (debug ? e.stack ?? e.message : e.message.split('\n')[0]) : String(e);
  return `agent-trace-lens: unexpected error: ${text}${debug ? '' : ' (ATL_DEBUG=1 shows where)'}\n`;
}

/**
 * The one worker script: `worker.js` beside the bundle (dist/cli.js, dist/worker.js), or where tsc
 * puts it (out/src/cli/main.js, out/src/core/workers/worker.js). None: jobs run in this thread.
 */
function workerScript(): string | undefined {
  return [path.join(__dirname, 'worker.js'), path.join(__dirname, '..', 'core', 'workers', 'worker.js')].find((f) => fs.existsSync(f));
}

const processIO: CliIO = {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY),
};

export async function main(argv: string[], rawIO: CliIO = processIO): Promise<number> {
  // Every line printed goes through the terminal sanitiser: log content may carry escape sequences.
  const io: CliIO = { out: (s) => rawIO.out(forTerminal(s)), err: (s) => rawIO.err(forTerminal(s)), interactive: rawIO.interactive, workerScript: rawIO.workerScript ?? workerScript() };
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    const asked = name === 'help' ? COMMANDS.find((c) => c.name === rest[0]) : undefined;
    io.out((asked ? commandHelp(asked) : usage()) + '\n');
    return name ? EXIT.ok : EXIT.usage;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    io.err(`Unknown command "${name}".\n\n${usage()}\n`);
    return EXIT.usage;
  }
  if (wantsHelp(rest)) {
    io.out(commandHelp(command));
    return EXIT.ok;
  }
  try {
    return await command.run(rest, io);
  } catch (e) {
    // The one place an error becomes an exit code: what the person caused says so, all else is ours.
    const code = exitCodeOf(e);
    if (code === EXIT.unexpected) io.err(describeUnexpected(e));
    else io.err(`agent-trace-lens: ${(e as Error).message}\n${code === EXIT.usage ? `\n${commandHelp(command)}` : ''}`);
    return code;
  }
}

if (require.main === module) {
  installGarbageCollector();
  // `… | head` closes the pipe after the lines it wanted: that is the reader's choice, not a crash.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
  main(process.argv.slice(2)).then(
    (code) => { process.exitCode = code; },
    (e) => { process.stderr.write(forTerminal(describeUnexpected(e))); process.exitCode = UNEXPECTED_EXIT; },
  );
}
