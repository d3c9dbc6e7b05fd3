// Plain SVG charts. Each shape has a <title> (tooltip and accessible name), and every chart comes
// with a table holding the same numbers for screen readers and for copying.

import type { ReplayResult } from '../../core/report/replay';
import type { BarRow } from '../../core/report/viewModel';
import { h, svg } from './dom';
import { tokens } from './format';

const BAR_H = 10;
const ROW_H = 32;
const LABEL_W = 150;
const VALUE_W = 90;
const WIDTH = 640;

/** Before/after bars per row, one pair per label, on a shared scale. */
export function barChart(caption: string, rows: readonly BarRow[]): HTMLElement {
  const max = Math.max(1, ...rows.map((r) => Math.max(r.before, r.after)));
  const plotW = WIDTH - LABEL_W - VALUE_W;
  const height = rows.length * ROW_H + 8;
  const chart = svg('svg', {
    class: 'chart bars', viewBox: `0 0 ${WIDTH} ${height}`, width: '100%', role: 'img',
    'aria-label': `${caption}: before and after, in tokens. The same numbers are in the table below.`,
  });
  rows.forEach((r, i) => {
    const y = i * ROW_H + 4;
    const label = r.label.length > 22 ? r.label.slice(0, 21) + '…' : r.label;
    chart.appendChild(svg('text', { x: LABEL_W - 8, y: y + BAR_H + 4, class: 'bar-label', 'text-anchor': 'end' }, label));
    const bar = (value: number, dy: number, cls: string, word: string) => {
      const w = Math.max(value > 0 ? 1 : 0, (value / max) * plotW);
      chart.appendChild(svg('rect', { x: LABEL_W, y: y + dy, width: w.toFixed(1), height: BAR_H, class: cls },
        svg('title', {}, `${r.label}, ${word}: ${tokens(value)} tokens`)));
      chart.appendChild(svg('text', { x: LABEL_W + w + 4, y: y + dy + BAR_H - 1, class: 'bar-value' }, tokens(value)));
    };
    bar(r.before, 0, 'bar-before', 'before');
    bar(r.after, BAR_H + 2, 'bar-after', 'after');
  });
  const table = h('table', { class: 'data' },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col', class: 'num' }, 'Before'), h('th', { scope: 'col', class: 'num' }, 'After'), h('th', { scope: 'col', class: 'num' }, 'Change'))),
    h('tbody', {}, ...rows.map((r) => h('tr', {},
      h('th', { scope: 'row' }, r.label), h('td', { class: 'num' }, tokens(r.before)), h('td', { class: 'num' }, tokens(r.after)),
      h('td', { class: 'num' }, r.after === r.before ? '—' : `${r.after < r.before ? '−' : '+'}${tokens(Math.abs(r.after - r.before))}`)))));
  return h('figure', { class: 'chart-figure' },
    h('figcaption', {}, caption, ' ', legend()),
    chart,
    h('details', { class: 'as-table' }, h('summary', {}, 'Show as table'), table));
}

function legend(): HTMLElement {
  return h('span', { class: 'legend', 'aria-hidden': 'true' },
    h('span', { class: 'swatch bar-before' }), 'before ', h('span', { class: 'swatch bar-after' }), 'after');
}

const SAW_W = 800;
const SAW_H = 280;
const PAD = { left: 64, right: 16, top: 12, bottom: 36 };

/** The context size per step, without compaction and under the strategy's trigger. */
export function sawtooth(r: ReplayResult): HTMLElement {
  const n = r.series.length;
  const max = Math.max(1, r.peakRaw);
  const plotW = SAW_W - PAD.left - PAD.right;
  const plotH = SAW_H - PAD.top - PAD.bottom;
  const x = (step: number) => PAD.left + (n <= 1 ? 0 : (step / (n - 1)) * plotW);
  const y = (v: number) => PAD.top + plotH - (v / max) * plotH;
  const chart = svg('svg', {
    class: 'chart sawtooth', viewBox: `0 0 ${SAW_W} ${SAW_H}`, width: '100%', role: 'img',
    'aria-label': `Context size per step: ${tokens(r.peakRaw)} tokens at most without compaction, ${tokens(r.peakCompacted)} with ${r.strategy}. ${r.events.length} compactions; they are listed in the table below.`,
  });
  for (const v of niceTicks(max, 5)) {
    chart.appendChild(svg('line', { x1: PAD.left, x2: SAW_W - PAD.right, y1: y(v), y2: y(v), class: 'grid' }));
    chart.appendChild(svg('text', { x: PAD.left - 6, y: y(v) + 4, class: 'axis', 'text-anchor': 'end' }, shortCount(v)));
  }
  for (const s of niceTicks(Math.max(1, n - 1), 8)) {
    chart.appendChild(svg('text', { x: x(s), y: SAW_H - PAD.bottom + 16, class: 'axis', 'text-anchor': 'middle' }, String(s)));
  }
  chart.appendChild(svg('text', { x: PAD.left + plotW / 2, y: SAW_H - 4, class: 'axis', 'text-anchor': 'middle' }, 'step'));
  const line = (pick: (p: ReplayResult['series'][number]) => number, cls: string, label: string) =>
    chart.appendChild(svg('polyline', { class: cls, points: r.series.map((p) => `${x(p.step).toFixed(1)},${y(pick(p)).toFixed(1)}`).join(' ') },
      svg('title', {}, label)));
  line((p) => p.tokensRaw, 'line-raw', `Without compaction: up to ${tokens(r.peakRaw)} tokens`);
  line((p) => p.tokensCompacted, 'line-compacted', `With ${r.strategy}: up to ${tokens(r.peakCompacted)} tokens`);
  for (const e of r.events) {
    chart.appendChild(svg('line', { x1: x(e.step), x2: x(e.step), y1: y(e.tokensBefore), y2: y(e.tokensAfter), class: 'drop' },
      svg('title', {}, `Before step ${e.step}: ${tokens(e.tokensBefore)} → ${tokens(e.tokensAfter)} tokens`)));
  }
  const table = h('table', { class: 'data' },
    h('caption', {}, 'Compactions during the replay'),
    h('thead', {}, h('tr', {}, ...['Before step', 'Tokens before', 'Tokens after', 'Entries before', 'Entries after', 'Affected', 'Model calls']
      .map((t, i) => h('th', { scope: 'col', class: i > 0 ? 'num' : null }, t)))),
    h('tbody', {}, ...r.events.map((e) => h('tr', {},
      h('td', {}, String(e.step)), ...[e.tokensBefore, e.tokensAfter, e.stepsBefore, e.stepsAfter, e.affected, e.calls].map((v) => h('td', { class: 'num' }, tokens(v)))))));
  return h('figure', { class: 'chart-figure' },
    h('figcaption', {}, 'Context size per step ',
      h('span', { class: 'legend', 'aria-hidden': 'true' }, h('span', { class: 'swatch line-raw' }), 'no compaction ', h('span', { class: 'swatch line-compacted' }), `with ${r.strategy}`)),
    chart,
    h('details', { class: 'as-table' }, h('summary', {}, `Show the ${r.events.length} compactions as a table`), table));
}

function shortCount(v: number): string {
  if (v >= 1e6) return `${(v / 1e6).toFixed(v % 1e6 === 0 ? 0 : 1)}M`;
  if (v >= 1e3) return `${(v / 1e3).toFixed(v % 1e3 === 0 ? 0 : 1)}k`;
  return String(v);
}

/** Round tick values from 0 to about `max`. */
export function niceTicks(max: number, count: number): number[] {
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const ticks: number[] = [];
  for (let v = 0; v <= max + 1e-9; v += step) ticks.push(Math.round(v));
  return ticks;
}
