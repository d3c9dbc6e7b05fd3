import { billLines } from '../pricing/billText';
import { table } from '../view/textTable';
import { formatTokenCount, tokenizerFor } from './models';
import type { TokenReport } from './report';

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
  text += `\nCost\n${table(billLines(r.bill))}`;
  return text;
}

function percent(share: number): string {
  return share > 0 && share < 0.001 ? '<0.1%' : `${(share * 100).toFixed(1)}%`;
}

function signed(x: number): string {
  return (x > 0 ? '+' : '') + x.toLocaleString('en-US');
}
