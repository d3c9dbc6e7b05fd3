import { DEFAULT_MAX_BYTES, loadTrajectory } from '../../core/io/load';
import type { Trajectory } from '../../core/model';
import { computeStats } from '../../core/stats';
import { redactOutgoing } from '../../core/llm/redact';
import { describeTokenReport } from '../../core/tokens/describe';
import { tokenReport, type TokenReport } from '../../core/tokens/report';
import { TokenService } from '../../core/tokens/tokenService';
import { parseCommandArgs, UsageError, type CliCommand } from '../args';
import { renderStats } from '../render';
import { isSurveyRequest, runSurveyCommand, SURVEY_USAGE } from './surveyCli';

export const statsCommand: CliCommand = {
  name: 'stats',
  usage: `stats FILE|FOLDER [--json] [--max-size-mb N] [--model MODEL | --tokens] [--no-token-cache] [--per-run] [--shard I/N] [--resume OUT.jsonl] [--jobs N]
    Format, steps, turns, kinds and tools of a trajectory. --model (or --tokens, which uses the
    log's own model) adds token counts by kind and tool, recorded usage and cost. Secrets in what is
    printed (tool names, the title, paths) are redacted unless --no-redact.` + SURVEY_USAGE,
  async run(args, io) {
    if (await isSurveyRequest(args)) return runSurveyCommand('stats', args, io);
    const { values, positionals } = parseCommandArgs(args, {
      json: { type: 'boolean' },
      'max-size-mb': { type: 'string' },
      model: { type: 'string' },
      tokens: { type: 'boolean' },
      'no-token-cache': { type: 'boolean' },
      'no-redact': { type: 'boolean' },
    });
    if (positionals.length !== 1) throw new UsageError('stats takes exactly one FILE.');
    const redact = values['no-redact'] !== true;
    if (values.model !== undefined && values.model.trim() === '') throw new UsageError('--model takes a model name, e.g. gpt-4o.');
    const maxBytes = maxBytesOption(values['max-size-mb']);
    const trajectory = await loadTrajectory(positionals[0], { maxBytes });
    const result = computeStats(trajectory);
    const wantTokens = values.model !== undefined || values.tokens === true;
    const tokens = wantTokens ? await countTokens(trajectory, values.model, values['no-token-cache'] === true) : undefined;
    if (values.json) {
      const { title: _title, ...json } = result;
      io.out(JSON.stringify(redactOutgoing(tokens ? { ...json, ...tokens } : json, { redact })) + '\n');
    } else {
      io.out(redactOutgoing(renderStats(result) + (tokens ? describeTokenReport(tokens) : ''), { redact }));
    }
    return 0;
  },
};

async function countTokens(t: Trajectory, model: string | undefined, noCache: boolean): Promise<TokenReport> {
  const service = new TokenService(noCache ? { cacheDir: null } : {});
  try {
    const counts = await service.countTrajectory(t, { model: model ?? t.meta.model });
    return tokenReport(t, counts);
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
