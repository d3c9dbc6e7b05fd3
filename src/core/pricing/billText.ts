import { billText, usd, type RunBill } from './runCost';

// A run's bill in words, the same rows in `stats --tokens`, the tree's tooltip and `diff`.

/** Rows of label and value: the figure with its label, per model, and why the model differs. */
export function billLines(b: RunBill): [string, string][] {
  const rows: [string, string][] = [['run', billText(b)]];
  if (b.note !== b.reason) rows.push(['how', b.note]);
  if (b.cost === null && b.tokens.input + b.tokens.output > 0) {
    rows.push(['tokens recorded', `${n(b.tokens.input)} in (${n(b.tokens.cachedInput)} cache reads, ${n(b.tokens.cacheWrite)} cache writes), ${n(b.tokens.output)} out`]);
  }
  if (b.byModel.length > 1) {
    for (const m of b.byModel) rows.push([`  ${m.model}`, `${m.cost === null ? `no price for ${m.model}` : usd(m.cost)}, ${m.calls} call${m.calls === 1 ? '' : 's'}`]);
  }
  if (b.label !== 'modelled' && b.modelled !== null) {
    rows.push(['modelled', `${usd(b.modelled)}${b.difference !== null ? ` (${b.difference >= 0 ? '+' : '−'}${Math.abs(b.difference * 100).toFixed(0)}%)` : ''}${b.differenceReason ? `: ${b.differenceReason}` : ''}`]);
  }
  return rows;
}

function n(x: number): string {
  return Math.round(x).toLocaleString('en-US');
}
