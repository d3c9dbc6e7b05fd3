// The Overview tab: the headline numbers, a comparison when several strategies ran on the same
// range, the actions, and the per-kind and per-tool bars.

import type { ReportViewModel, ResultView } from '../../core/report/viewModel';
import { barChart } from './charts';
import { h } from './dom';
import { percent, tokens, tokensApprox, usd } from './format';
import { rankByCost } from '../../core/simulate/ranking';

export function headlineView(r: ResultView): HTMLElement {
  const hl = r.headline;
  const approx = hl.approximate;
  const card = (label: string, value: string, detail?: string, id?: string) =>
    h('div', { class: 'card', id: id ?? null },
      h('div', { class: 'card-label' }, label),
      h('div', { class: 'card-value' }, value),
      detail ? h('div', { class: 'card-detail' }, detail) : null);
  return h('section', { class: 'headline', 'aria-label': 'Headline' },
    card('Tokens', `${tokensApprox(hl.tokensBefore, approx)} → ${tokensApprox(hl.tokensAfter, approx)}`, `${hl.saved >= 0 ? `${tokens(hl.saved)} fewer` : `${tokens(-hl.saved)} more`} · tokenizer ${approx ? '≈ ' : ''}${hl.tokenizer}${hl.imageNote ? ` · ${hl.imageNote}` : ''}`, 'headline-tokens'),
    card('Reduction', percent(hl.reduction), `${tokens(hl.stepsBefore)} → ${tokens(hl.stepsAfter)} steps`, 'headline-reduction'),
    card('Lost, needed later', String(r.entityCounts.lostNeeded), `of ${r.entities.length} things the forgotten steps acted on; ${r.entityCounts.lost} lost in all`, 'headline-loss'),
    card('Run cost', hl.bill.cost === null ? '—' : usd(hl.bill.cost), hl.bill.cost === null ? `${hl.bill.reason ?? 'unknown'}` : `${hl.bill.label}${hl.bill.byModel.length > 1 ? ` · ${hl.bill.byModel.length} models` : ''}`, 'headline-cost'),
    card('Mode', hl.modeLabel, `${r.label}`, 'headline-mode'),
  );
}

export function rangeLine(r: ResultView): HTMLElement {
  const range = r.range ? `Steps ${r.range.start}–${r.range.end}` : 'Nothing compacted';
  return h('div', { class: 'range-line' },
    h('p', {}, h('strong', {}, range), ` (${r.rangeSource === 'policy' ? 'chosen by the strategy' : 'chosen by you'}): ${r.rangeReason}`),
    r.widenedNote ? h('p', { class: 'note' }, r.widenedNote) : null,
    r.warnings.length > 0 ? h('ul', { class: 'warnings', 'aria-label': 'Warnings' }, ...r.warnings.map((w) => h('li', {}, w))) : null);
}

/**
 * One row per result, so two strategies read side by side, ranked by what the whole run would cost
 * with each (prompt caching included): tokens saved are not money saved.
 */
export function comparisonTable(report: ReportViewModel, selected: number, onSelect: (i: number) => void): HTMLElement | null {
  if (report.results.length < 2) return null;
  const order = rankByCost(report.results.map((r, index) => ({ index, strategy: r.strategy, totals: r.replay?.totals ?? UNKNOWN_TOTALS })));
  const rows = order.map(({ index: i }) => {
    const r = report.results[i];
    const pick = h('button', { type: 'button', class: 'link', 'aria-pressed': i === selected ? 'true' : 'false' }, r.strategy);
    pick.addEventListener('click', () => onSelect(i));
    const lost = r.entityCounts.lost;
    const runCost = r.replay?.totals.compacted.cost;
    return h('tr', { class: i === selected ? 'selected' : null },
      h('th', { scope: 'row' }, pick),
      h('td', {}, r.headline.modeLabel),
      h('td', {}, r.range ? `${r.range.start}–${r.range.end}` : '—'),
      h('td', { class: 'num' }, tokens(r.headline.tokensBefore)),
      h('td', { class: 'num' }, tokens(r.headline.tokensAfter)),
      h('td', { class: 'num' }, percent(r.headline.reduction)),
      h('td', { class: 'num' }, `${r.entityCounts.lostNeeded} (${lost} lost, ${r.entityCounts.kept} kept)`),
      h('td', { class: 'num' }, r.replay ? tokens(r.replay.totals.compacted.requests) : '—'),
      h('td', { class: 'num' }, runCost === undefined || runCost === null ? '—' : usd(runCost)));
  });
  return h('section', { 'aria-label': 'Comparison' },
    h('table', { class: 'data compare', id: 'compare-table' },
      h('caption', {}, 'Strategies compared, ranked by the cost of the whole run with prompt caching (cheapest first)'),
      h('thead', {}, h('tr', {}, ...['Strategy', 'Mode', 'Range', 'Before', 'After', 'Reduction', 'Lost, needed later', 'Run requests', 'Run cost (cached)']
        .map((t, i) => h('th', { scope: 'col', class: i >= 3 ? 'num' : null }, t)))),
      h('tbody', {}, ...rows)));
}

const UNKNOWN_TOTALS = {
  raw: { requests: 0, input: 0, uncachedInput: 0, cachedInput: 0, cacheWrite: 0, output: 0, cost: null },
  compacted: { requests: 0, input: Infinity, uncachedInput: 0, cachedInput: 0, cacheWrite: 0, output: 0, cost: null },
};

export function barsView(r: ResultView): HTMLElement {
  return h('section', { class: 'bars-grid', 'aria-label': 'Tokens by kind and by tool' },
    barChart('Tokens by kind', r.byKind),
    r.byTool.length > 0 ? barChart('Tokens by tool', r.byTool) : h('p', { class: 'note' }, 'No tool calls.'));
}
