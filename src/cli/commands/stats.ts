import { DEFAULT_MAX_BYTES, loadTrajectory } from '../../core/io/load';
import type { Trajectory } from '../../core/model';
import { computeStats } from '../../core/stats';
import { describeTokenReport } from '../../core/tokens/describe';
import { tokenReport, type TokenReport } from '../../core/tokens/report';
import { TokenService } from '../../core/tokens/tokenService';
import { parseCommandArgs, UsageError, type CliCommand } from '../args';
import { renderStats } from '../render';
import { isSurveyRequest, runSurveyCommand, SURVEY_USAGE } from './surveyCli';
import { priceOption } from './common';
import type { ModelPrice } from '../../core/pricing/prices';

export const statsCommand: CliCommand = {
  name: 'stats',
  usage: `stats FILE|FOLDER [--json] [--max-size-mb N] [--model MODEL | --tokens] [--price IN,CACHED,WRITE,OUT] [--no-token-cache] [--per-run] [--shard I/N] [--resume OUT.jsonl] [--jobs N]
    Format, steps, turns, kinds and tools of a trajectory. --model (or --tokens, which uses the
    log's own model) adds token counts by kind and tool, recorded usage and cost; --model also
    prices every call as MODEL, --price at your rates (USD per million tokens).` + SURVEY_USAGE,
  async run(args, io) {
    if (await isSurveyRequest(args)) return runSurveyCommand('stats', args, io);
    const { values, positionals } = parseCommandArgs(args, {
      json: { type: 'boolean' },
      'max-size-mb': { type: 'string' },
      model: { type: 'string' },
      tokens: { type: 'boolean' },
      price: { type: 'string' },
      'no-token-cache': { type: 'boolean' },
    });
    if (positionals.length !== 1) throw new UsageError('stats takes exactly one FILE.');
    if (values.model !== undefined && values.model.trim() === '') throw new UsageError('--model takes a model name, e.g. gpt-4o.');
    const maxBytes = maxBytesOption(values['max-size-mb']);
    const trajectory = await loadTrajectory(positionals[0], { maxBytes });
    const result = computeStats(trajectory);
    const price = priceOption(values.price);
    const wantTokens = values.model !== undefined || values.tokens === true || price !== undefined;
    const tokens = wantTokens ? await countTokens(trajectory, values.model, values['no-token-cache'] === true, price) : undefined;
    if (values.json) {
      const { title: _title, ...json } = result;
      io.out(JSON.stringify(tokens ? { ...json, ...tokens } : json) + '\n');
    } else {
      io.out(renderStats(result) + (tokens ? describeTokenReport(tokens) : ''));
    }
    return 0;
  },
};

async function countTokens(t: Trajectory, model: string | undefined, noCache: boolean, price?: ModelPrice): Promise<TokenReport> {
  const service = new TokenService(noCache ? { cacheDir: null } : {});
  try {
    const counts = await service.countTrajectory(t, { model: model ?? t.meta.model });
    return tokenReport(t, counts, {}, { ...(model !== undefined ? { model } : {}), ...(price ? { price } : {}) });
  } finally {
    await service.dispose();
  }
}

export function maxBytesOption(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MAX_BYTES;
  const mb = Number(value);
  if (!Number.isFinite(mb) || mb <= 0) throw new UsageError('--max-size-mb takes a positive number.');
  return mb * 1024 * 1024;
}
