import { DEFAULT_MAX_BYTES, loadTrajectory } from '../../core/io/load';
import { computeStats } from '../../core/stats';
import { parseCommandArgs, UsageError, type CliCommand } from '../args';
import { renderStats } from '../render';

export const statsCommand: CliCommand = {
  name: 'stats',
  usage: 'stats FILE [--json] [--max-size-mb N]   Format, steps, turns, kinds and tools of a trajectory.',
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, { json: { type: 'boolean' }, 'max-size-mb': { type: 'string' } });
    if (positionals.length !== 1) throw new UsageError('stats takes exactly one FILE.');
    const maxBytes = maxBytesOption(values['max-size-mb']);
    const trajectory = await loadTrajectory(positionals[0], { maxBytes });
    const result = computeStats(trajectory);
    if (values.json) {
      const { title: _title, ...json } = result;
      io.out(JSON.stringify(json) + '\n');
    } else {
      io.out(renderStats(result));
    }
    return 0;
  },
};

export function maxBytesOption(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MAX_BYTES;
  const mb = Number(value);
  if (!Number.isFinite(mb) || mb <= 0) throw new UsageError('--max-size-mb takes a positive number.');
  return mb * 1024 * 1024;
}
