import { findStrategy, strategyIds, type Strategy } from '../../core/compaction';
import type { Trajectory } from '../../core/model';
import { runsOf } from '../../core/stats';
import { DEFAULT_MAX_BYTES } from '../../core/io/load';
import { UsageError } from '../args';

// Option handling that compact and simulate share.

export function requireStrategy(command: string, id: string | undefined): Strategy {
  if (!id) throw new UsageError(`${command} needs --strategy ID (one of: ${strategyIds().join(', ')}).`);
  const strategy = findStrategy(id);
  if (!strategy) throw new UsageError(`Unknown strategy "${id}". Strategies: ${strategyIds().join(', ')}.`);
  return strategy;
}

/** `--option NAME=VALUE`, repeated. */
export function parseOptionPairs(pairs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--option takes NAME=VALUE, not "${pair}".`);
    out[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
  }
  return out;
}

/** `--run N` of a multi-run file (evaluation outputs, Inspect logs); the first run by default. */
export function pickRun(t: Trajectory, run: string | undefined): Trajectory {
  const runs = runsOf(t);
  if (run === undefined) return runs[0];
  const n = Number(run);
  if (!Number.isInteger(n) || n < 0 || n >= runs.length) throw new UsageError(`--run takes a run number from 0 to ${runs.length - 1}.`);
  return runs[n];
}

export function stringMeta(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** `--max-size-mb`: the largest file a command reads. */
export function maxBytesOption(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MAX_BYTES;
  const mb = Number(value);
  if (!Number.isFinite(mb) || mb <= 0) throw new UsageError('--max-size-mb takes a positive number.');
  return mb * 1024 * 1024;
}
