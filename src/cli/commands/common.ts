import { findStrategy, strategyIds, type Strategy } from '../../core/compaction';
import type { Run, TrajectoryFile } from '../../core/model';
import type { ModelPrice } from '../../core/models';

import { DEFAULT_MAX_BYTES } from '../../core/open';
import { plural } from '../../core/view/plural';
import { UsageError, type CliIO } from '../args';

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
export function pickRun(t: TrajectoryFile, run: string | undefined, io?: Pick<CliIO, 'err'>): Run {
  const runs = t.runs;
  if (run === undefined) {
    // Never silently: the first of 34 Aider sessions may be one line long.
    if (runs.length > 1 && io) {
      const sizes = runs.map((r) => r.steps.length);
      const largest = sizes.indexOf(Math.max(...sizes));
      io.err(`${t.source.path} holds ${runs.length} runs; this is run 0 (${plural(sizes[0], 'step')})${largest !== 0 ? `, the longest is run ${largest} (${plural(sizes[largest], 'step')})` : ''}. --run N picks another.\n`);
    }
    return runs[0];
  }
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

/** `--price in,cached,write,out`: USD per million tokens; cached and write may be empty (`3,,,15`). */
export function priceOption(value: string | undefined): ModelPrice | undefined {
  if (value === undefined) return undefined;
  const parts = value.split(',').map((p) => p.trim());
  const bad = () => new UsageError(`--price takes four numbers in USD per million tokens, input,cached input,cache write,output (e.g. 3,0.3,3.75,15; leave cached or write empty if the model has none), not "${value}".`);
  if (parts.length !== 4) throw bad();
  const nums = parts.map((p) => (p === '' ? undefined : Number(p)));
  if (nums.some((x) => x !== undefined && (!Number.isFinite(x) || x < 0)) || nums[0] === undefined || nums[3] === undefined) throw bad();
  const price: ModelPrice = { input: nums[0], output: nums[3] };
  if (nums[1] !== undefined) price.cachedInput = nums[1];
  if (nums[2] !== undefined) price.cacheWrite = nums[2];
  return price;
}

