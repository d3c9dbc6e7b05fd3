import { loadTrajectory } from '../../core/open';
import { countingBackend } from '../../core/tokens';
import type { TrajectoryFile } from '../../core/model';
import { computeStats } from '../../core/stats';
import { redactOutgoing } from '../../core/llm/redact';
import { describeTokenReport } from '../../core/tokens';
import { tokenReport, type TokenReport } from '../../core/tokens';
import { TokenService } from '../../core/tokens';
import { billFile } from '../../core/simulate';
import { parseCommandArgs, typedPaths, UsageError, type CliCommand } from '../args';
import { renderStats } from '../render';
import { maxBytesOption, priceOption } from './common';
import type { ModelPrice } from '../../core/models';
import { isSurveyRequest, runSurveyCommand, SURVEY_OPTIONS_HELP, SURVEY_USAGE } from './surveyCli';
import { EXIT } from '../exitCodes';

export const statsCommand: CliCommand = {
  name: 'stats',
  summary: 'format, steps, turns, kinds, tools and tokens of a run; of every run under a FOLDER',
  usage: `stats FILE|FOLDER [--json] [--max-size-mb N] [--model MODEL | --tokens] [--price IN,CACHED,WRITE,OUT] [--no-token-cache] [--per-run] [--no-redact] [--shard I/N] [--resume OUT.jsonl] [--jobs N]
    Format, steps, turns, kinds and tools of a trajectory. --model (or --tokens, which uses the
    log's own model) adds token counts by kind and tool, recorded usage and cost; --model also
    prices every call as MODEL, --price at your rates (USD per million tokens). Secrets in what is
    printed (tool names, the title, paths) are redacted unless --no-redact.` + SURVEY_USAGE,
  options: [
    ['--json', 'one JSON object (a FOLDER: JSON Lines, one per run, then {"total": …})'],
    ['--model MODEL', 'count tokens and price with this model\'s tokenizer and prices'],
    ['--tokens', 'count tokens with the log\'s own model'],
    ['--price IN,CACHED,WRITE,OUT', 'price every call at these USD per million tokens (cached or write may be empty: 3,,,15)'],
    ['--no-token-cache', 'do not keep token counts on disk between runs'],
    ['--max-size-mb N', 'refuse files larger than N MB (default 512)'],
    ['--no-redact', 'print the log\'s own text, secrets included'],
    ...SURVEY_OPTIONS_HELP,
  ],
  example: 'agent-trace-lens stats runs/ --json --shard 2/4 --resume shard2.jsonl >> shard2.jsonl',
  exitCodes: [EXIT.input],
  async run(args, io) {
    if (await isSurveyRequest(args)) return runSurveyCommand('stats', args, io);
    const { values, positionals } = parseCommandArgs(args, {
      json: { type: 'boolean' },
      'max-size-mb': { type: 'string' },
      model: { type: 'string' },
      tokens: { type: 'boolean' },
      price: { type: 'string' },
      'no-token-cache': { type: 'boolean' },
      'no-redact': { type: 'boolean' },
    });
    if (positionals.length !== 1) throw new UsageError('stats takes exactly one FILE.');
    const redact = values['no-redact'] !== true;
    if (values.model !== undefined && values.model.trim() === '') throw new UsageError('--model takes a model name, e.g. gpt-4o.');
    const maxBytes = maxBytesOption(values['max-size-mb']);
    const trajectory = await loadTrajectory(positionals[0], { maxBytes });
    const result = computeStats(trajectory);
    const price = priceOption(values.price);
    const wantTokens = values.model !== undefined || values.tokens === true || price !== undefined;
    const tokens = wantTokens ? await countTokens(trajectory, values.model, values['no-token-cache'] === true, io.workerScript, price) : undefined;
    if (values.json) {
      const { title: _title, ...json } = result;
      io.out(JSON.stringify(redactOutgoing(tokens ? { ...json, ...tokens } : json, { redact, keep: typedPaths(positionals[0]) })) + '\n');
    } else {
      io.out(redactOutgoing(renderStats(result) + (tokens ? describeTokenReport(tokens) : ''), { redact, keep: typedPaths(positionals[0]) }));
    }
    return 0;
  },
};

async function countTokens(t: TrajectoryFile, model: string | undefined, noCache: boolean, workerScript: string | undefined, price?: ModelPrice): Promise<TokenReport> {
  const service = new TokenService({ ...(noCache ? { cacheDir: null } : {}), backend: countingBackend(workerScript) });
  try {
    const counts = await service.countTrajectory(t, { model: model ?? t.meta.model });
    return tokenReport(t, counts, {}, billFile(t, { overrides: {}, ...(model !== undefined ? { model } : {}), ...(price ? { price } : {}) }));
  } finally {
    await service.dispose();
  }
}


