import { existsSync } from 'node:fs';
import { countingBackend } from '../../core/tokens';
import { compareRuns, countRun } from '../../core/compare';
import { renderComparison } from '../../core/compare';
import { loadTrajectory } from '../../core/open';
import type { Run } from '../../core/model';

import { redactTrajectory } from '../../core/compaction';
import { redactOutgoing } from '../../core/llm/redact';
import { TokenService } from '../../core/tokens';
import { parseCommandArgs, typedPaths, UsageError, type CliCommand } from '../args';
import { maxBytesOption } from './common';
import { EXIT } from '../exitCodes';

export const diffCommand: CliCommand = {
  name: 'diff',
  summary: 'compare two runs step by step: where they diverge, and their tokens, cost, errors and outcome',
  options: [
    ['--json', 'the comparison as one JSON object'],
    ['--run-a N', 'run N of A, a file of many runs (from 0; same as A#N)'],
    ['--run-b N', 'run N of B (from 0; same as B#N)'],
    ['--model MODEL', 'count tokens and price with this model instead of each log\'s own'],
    ['--max-size-mb N', 'refuse files larger than N MB (default 512)'],
    ['--no-redact', 'print the log\'s own text, secrets included'],
  ],
  example: 'agent-trace-lens diff evals/output.jsonl#0 evals/output.jsonl#3',
  exitCodes: [EXIT.input],
  usage: `diff A B [--json] [--run-a N] [--run-b N] [--model MODEL] [--max-size-mb N] [--no-redact]
    Compare two runs step by step: the steps aligned (same, changed, one side only), where
    they first diverge, and each run's steps, tokens, requests, cost (recorded or modelled),
    errors, tools and outcome. A or B may be FILE#N to pick run N of a file of many runs; runs
    and steps are numbered from 0, as in stats --json, search and the extension.
    Secrets in what is printed are redacted unless --no-redact.`,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      json: { type: 'boolean' },
      'run-a': { type: 'string' },
      'run-b': { type: 'string' },
      model: { type: 'string' },
      'max-size-mb': { type: 'string' },
      'no-redact': { type: 'boolean' },
    });
    const redact = values['no-redact'] !== true;
    if (positionals.length !== 2) throw new UsageError('diff takes two trajectories: diff A B.');
    if (values.model !== undefined && values.model.trim() === '') throw new UsageError('--model takes a model name, e.g. gpt-4o.');
    const maxBytes = maxBytesOption(values['max-size-mb']);
    const a = await loadSide(positionals[0], values['run-a'], '--run-a', maxBytes);
    const b = await loadSide(positionals[1], values['run-b'], '--run-b', maxBytes);
    const service = new TokenService({ cacheDir: null, backend: countingBackend(io.workerScript) });
    try {
      const [countsA, countsB] = await Promise.all([countRun(service, a.run, values.model), countRun(service, b.run, values.model)]);
      // Tokens are counted on the runs as they are; what is compared and printed (excerpts cut from
      // step text) starts redacted, so no cut can leave part of a secret behind.
      const runA = redact ? redactTrajectory(a.run).trajectory : a.run;
      const runB = redact ? redactTrajectory(b.run).trajectory : b.run;
      const comparison = compareRuns({ run: runA, runIndex: a.runIndex, counts: countsA }, { run: runB, runIndex: b.runIndex, counts: countsB });
      if (values.json) io.out(JSON.stringify(redactOutgoing(comparison, { redact, keep: typedPaths(positionals[0], positionals[1]) })) + '\n');
      else io.out(redactOutgoing(renderComparison(comparison, runA.steps, runB.steps), { redact, keep: typedPaths(positionals[0], positionals[1]) }));
    } finally {
      await service.dispose();
    }
    return 0;
  },
};

interface Side {
  run: Run;
  runIndex: number | null;
}

/** `FILE`, or `FILE#N` when no file is named so; `--run-a/--run-b` win over the suffix. */
async function loadSide(spec: string, runOption: string | undefined, flag: string, maxBytes: number): Promise<Side> {
  let file = spec;
  let run = runOption;
  const suffix = /^(.*)#(\d+)$/.exec(spec);
  if (suffix && !existsSync(spec)) {
    file = suffix[1];
    run ??= suffix[2];
  }
  const loaded = await loadTrajectory(file, { maxBytes });
  const runs = loaded.runs;
  const many = loaded.holdsRuns;
  if (run === undefined) return { run: runs[0], runIndex: many ? 0 : null };
  const n = Number(run);
  if (!Number.isInteger(n) || n < 0 || n >= runs.length) {
    throw new UsageError(`${flag === '--run-a' ? 'A' : 'B'} (${file}) has ${runs.length === 1 ? 'one run: 0' : `runs 0 to ${runs.length - 1}`}; ${flag} or #N took "${run}".`);
  }
  return { run: runs[n], runIndex: many ? n : null };
}
