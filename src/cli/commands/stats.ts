import { DEFAULT_MAX_BYTES, loadTrajectory } from '../../core/io/load';
import type { Trajectory } from '../../core/model';
import { formatCost } from '../../core/pricing/prices';
import { computeStats } from '../../core/stats';
import { formatTokenCount, tokenizerFor } from '../../core/tokens/models';
import { tokenReport, type TokenReport } from '../../core/tokens/report';
import { TokenService } from '../../core/tokens/tokenService';
import { parseCommandArgs, UsageError, type CliCommand } from '../args';
import { renderStats, table } from '../render';

export const statsCommand: CliCommand = {
  name: 'stats',
  usage: `stats FILE [--json] [--max-size-mb N] [--model MODEL | --tokens] [--no-token-cache]
    Format, steps, turns, kinds and tools of a trajectory. --model (or --tokens, which uses the
    log's own model) adds token counts by kind and tool, recorded usage and cost.`,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      json: { type: 'boolean' },
      'max-size-mb': { type: 'string' },
      model: { type: 'string' },
      tokens: { type: 'boolean' },
      'no-token-cache': { type: 'boolean' },
    });
    if (positionals.length !== 1) throw new UsageError('stats takes exactly one FILE.');
    if (values.model !== undefined && values.model.trim() === '') throw new UsageError('--model takes a model name, e.g. gpt-4o.');
    const maxBytes = maxBytesOption(values['max-size-mb']);
    const trajectory = await loadTrajectory(positionals[0], { maxBytes });
    const result = computeStats(trajectory);
    const wantTokens = values.model !== undefined || values.tokens === true;
    const tokens = wantTokens ? await countTokens(trajectory, values.model, values['no-token-cache'] === true) : undefined;
    if (values.json) {
      const { title: _title, ...json } = result;
      io.out(JSON.stringify(tokens ? { ...json, ...tokens } : json) + '\n');
    } else {
      io.out(renderStats(result) + (tokens ? renderTokens(tokens) : ''));
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

function renderTokens(r: TokenReport): string {
  const info = tokenizerFor(r.tokenizer.model);
  const n = (x: number) => formatTokenCount(x, info);
  let text = `\nTokens (${r.tokenizer.label}${r.tokenizer.model ? ` for ${r.tokenizer.model}` : ''})\n`;
  if (r.tokenizer.note) text += `  ${r.tokenizer.note}\n`;
  const rows: [string, string][] = [
    ['total', n(r.tokens.total)],
    ['text', n(r.tokens.content)],
    ['chat framing', n(r.tokens.overhead)],
  ];
  if (r.tokens.contextShare !== undefined) rows.push(['context window', `${percent(r.tokens.contextShare)} of ${r.tokenizer.contextWindow!.toLocaleString('en-US')}`]);
  text += table(rows);
  const kinds = Object.entries(r.tokens.byKind).filter(([, v]) => v > 0).map(([k, v]) => [k, n(v)] as [string, string]);
  text += `\nTokens by kind\n${table(kinds)}`;
  const tools = Object.entries(r.tokens.byTool).sort((a, b) => b[1].total - a[1].total)
    .map(([k, v]) => [k, `${n(v.total)}  (calls ${v.calls.toLocaleString('en-US')}, results ${v.results.toLocaleString('en-US')})`] as [string, string]);
  if (tools.length > 0) text += `\nTokens by tool\n${table(tools)}`;
  for (const [label, c] of [['Recorded usage (log totals)', r.recorded?.totals], ['Recorded usage (per call)', r.recorded?.perCall]] as const) {
    if (!c) continue;
    const line = (field: 'inputTokens' | 'outputTokens') => {
      const rec = c.recorded[field];
      return rec === undefined ? `ours ${c.ours[field].toLocaleString('en-US')}, not recorded`
        : `recorded ${rec.toLocaleString('en-US')}, ours ${c.ours[field].toLocaleString('en-US')}, difference ${signed(c.difference[field]!)}`;
    };
    text += `\n${label}, ${c.calls} calls\n${table([['input', line('inputTokens')], ['output', line('outputTokens')]])}`;
    if (c.recorded.cost !== undefined) text += `  recorded cost $${c.recorded.cost.toFixed(4)}\n`;
  }
  if (r.recorded) text += '  (Recorded input also holds what the log leaves out: tool schemas, hidden instructions.)\n';
  if (r.cost) {
    text += `\nEstimated cost (${r.cost.model} at the ${r.cost.priceRow} price, ${r.cost.calls} calls)\n`;
    text += table([['without prompt cache', formatCost(r.cost.withoutCache)], ['with prompt cache', formatCost(r.cost.withPromptCache)]]);
  } else if (r.tokenizer.model) {
    text += `\nNo price known for ${r.tokenizer.model}.\n`;
  }
  return text;
}

function percent(share: number): string {
  return share > 0 && share < 0.001 ? '<0.1%' : `${(share * 100).toFixed(1)}%`;
}

function signed(x: number): string {
  return (x > 0 ? '+' : '') + x.toLocaleString('en-US');
}

export function maxBytesOption(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MAX_BYTES;
  const mb = Number(value);
  if (!Number.isFinite(mb) || mb <= 0) throw new UsageError('--max-size-mb takes a positive number.');
  return mb * 1024 * 1024;
}
