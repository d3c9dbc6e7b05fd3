import { billLines } from '../pricing/billText';
import { table } from '../view/textTable';
import { plural } from '../view/plural';
import { formatTokenCount, tokenizerFor } from './models';
import type { UsageComparison } from './recorded';
import type { RunWindow, TokenReport } from './report';

// A token report in words, for the CLI's text output and the tree's tooltip alike.

export function describeTokenReport(r: TokenReport): string {
  const info = tokenizerFor(r.tokenizer.model);
  const n = (x: number) => formatTokenCount(x, info);
  let text = `\nTokens (${r.tokenizer.label}${r.tokenizer.model ? ` for ${r.tokenizer.model}` : ''})\n`;
  if (r.tokenizer.note) text += `  ${r.tokenizer.note}\n`;
  const rows: [string, string][] = [
    ['total', n(r.tokens.total)],
    ['text', n(r.tokens.content)],
    ['chat framing', n(r.tokens.overhead)],
  ];
  if (r.tokens.imageCount > 0) rows.push(['images', `${r.tokens.images.toLocaleString('en-US')} tokens, modelled for ${plural(r.tokens.imageCount, 'image')} from ${r.tokens.imageCount === 1 ? 'its' : 'their'} size (${r.tokens.imageRules.join('; ')})`]);
  const window = r.tokens.contextWindow;
  if (r.tokens.contextShare !== undefined && window) rows.push(['context window', `${percent(r.tokens.contextShare)} of ${windowText(window)}`]);
  text += table(rows);
  const kinds = Object.entries(r.tokens.byKind).filter(([, v]) => v > 0).map(([k, v]) => [k, n(v)] as [string, string]);
  text += `\nTokens by kind\n${table(kinds)}`;
  const tools = Object.entries(r.tokens.byTool).sort((a, b) => b[1].total - a[1].total)
    .map(([k, v]) => [k, `${n(v.total)}  (${v.calls.toLocaleString('en-US')} in calls, ${v.results.toLocaleString('en-US')} in their results)`] as [string, string]);
  if (tools.length > 0) text += `\nTokens by tool\n${table(tools)}`;
  for (const [label, c] of recordedBlocks(r)) {
    const line = (field: 'inputTokens' | 'outputTokens') => {
      const rec = c.recorded[field];
      return rec === undefined ? `ours ${c.ours[field].toLocaleString('en-US')}, not recorded`
        : `recorded ${rec.toLocaleString('en-US')}, ours ${c.ours[field].toLocaleString('en-US')}, difference ${signed(c.difference[field]!)}`;
    };
    // Our calls are what the log shows; where its totals hold more, say so rather than under-count.
    const calls = c.callsAtLeast ? `${c.calls} call${c.calls === 1 ? '' : 's'} in the log, at least ${c.callsAtLeast.calls} in its totals: ${c.callsAtLeast.why}` : `${c.calls} call${c.calls === 1 ? '' : 's'}`;
    text += `\n${label}, ${calls}\n${table([['input', line('inputTokens')], ['output', line('outputTokens')]])}`;
    if (c.recorded.cost !== undefined) text += `  recorded cost $${c.recorded.cost.toFixed(4)}\n`;
  }
  if (r.recorded) text += '  (Recorded input also holds what the log leaves out: tool schemas, hidden instructions.)\n';
  text += `\nCost\n${table(billLines(r.bill))}`;
  return text;
}

/** The log's totals and its per-call usage, or one block when both say the same of the same calls. */
function recordedBlocks(r: TokenReport): [string, UsageComparison][] {
  const { totals, perCall } = r.recorded ?? {};
  if (totals && perCall && sameUsage(totals, perCall)) return [['Recorded usage (log totals, the same per call)', totals]];
  const blocks: [string, UsageComparison][] = [];
  if (totals) blocks.push([totals.part ? 'Recorded usage (log totals, which stop before the run does)' : 'Recorded usage (log totals)', totals]);
  if (perCall) blocks.push(['Recorded usage (per call)', perCall]);
  return blocks;
}

function sameUsage(a: UsageComparison, b: UsageComparison): boolean {
  return a.calls === b.calls && a.recorded.inputTokens === b.recorded.inputTokens && a.recorded.outputTokens === b.recorded.outputTokens
    && a.recorded.cost === b.recorded.cost && a.ours.inputTokens === b.ours.inputTokens && a.ours.outputTokens === b.ours.outputTokens;
}

/** `400,000 (gpt-5-mini's)`, `272,000 (recorded in the log)`: whose window the share is of. */
export function windowText(w: RunWindow): string {
  const whose = w.from === 'log' ? 'recorded in the log' : w.from === 'run' ? `${w.model}'s, the model the run used` : `${w.model}'s, the counting model; the log names no model we know`;
  return `${w.tokens.toLocaleString('en-US')} (${whose})`;
}

function percent(share: number): string {
  return share > 0 && share < 0.001 ? '<0.1%' : `${(share * 100).toFixed(1)}%`;
}

function signed(x: number): string {
  return (x > 0 ? '+' : '') + x.toLocaleString('en-US');
}
