import { parseArgs, type ParseArgsConfig } from 'node:util';
import { TrajectoryLoadError } from '../core/io/errors';
import { DEFAULT_MAX_BYTES, loadTrajectory } from '../core/io/load';
import { computeStats } from '../core/stats';
import { renderStats } from './render';

const USAGE = `Usage: agent-trace-lens <command> [options]

Commands:
  stats FILE [--json] [--max-size-mb N]   Format, steps, turns, kinds and tools of a trajectory.

Exit codes: 0 success, 1 wrong usage, 2 the file could not be read as a trajectory.`;

export async function main(argv: string[], out: (s: string) => void = (s) => process.stdout.write(s), err: (s: string) => void = (s) => process.stderr.write(s)): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    out(USAGE + '\n');
    return command ? 0 : 1;
  }
  try {
    switch (command) {
      case 'stats': return await stats(rest, out);
      default:
        err(`Unknown command "${command}".\n\n${USAGE}\n`);
        return 1;
    }
  } catch (e) {
    if (e instanceof TrajectoryLoadError) {
      err(`agent-trace-lens: ${e.message}\n`);
      return 2;
    }
    if (e instanceof UsageError) {
      err(`agent-trace-lens: ${e.message}\n\n${USAGE}\n`);
      return 1;
    }
    throw e;
  }
}

class UsageError extends Error {}

function parse<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

async function stats(args: string[], out: (s: string) => void): Promise<number> {
  const { values, positionals } = parse(args, { json: { type: 'boolean' }, 'max-size-mb': { type: 'string' } });
  if (positionals.length !== 1) throw new UsageError('stats takes exactly one FILE.');
  const maxBytes = values['max-size-mb'] !== undefined ? Number(values['max-size-mb']) * 1024 * 1024 : DEFAULT_MAX_BYTES;
  if (!Number.isFinite(maxBytes) || maxBytes <= 0) throw new UsageError('--max-size-mb takes a positive number.');
  const trajectory = await loadTrajectory(positionals[0], { maxBytes });
  const result = computeStats(trajectory);
  if (values.json) {
    const { title: _title, ...json } = result;
    out(JSON.stringify(json) + '\n');
  } else {
    out(renderStats(result));
  }
  return 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => { process.exitCode = code; },
    (e) => { process.stderr.write(`agent-trace-lens: unexpected error: ${(e as Error).stack ?? e}\n`); process.exitCode = 70; },
  );
}
