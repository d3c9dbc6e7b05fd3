// The compare panel: both runs' totals side by side (differences marked), where they part, and
// the aligned steps as a virtualized list. A click (or Enter) on a row asks the host to open the
// two steps in VS Code's diff editor. Every string from a trajectory goes in as a text node.

import type { CompareHostMessage, CompareView, CompareWebviewMessage, StepBrief } from '../../core/compare/protocol';
import type { RunTotals } from '../../core/compare/totals';
import { h, replaceChildren } from '../report/dom';
import { tokens, usd } from '../report/format';
import { virtualList } from '../report/virtualList';

export interface CompareHost {
  post(message: CompareWebviewMessage): void;
  onMessage(listener: (message: CompareHostMessage) => void): void;
  getState(): CompareUiState | undefined;
  setState(state: CompareUiState): void;
}

export interface CompareUiState {
  filter: 'all' | 'differences';
  scroll: number;
}

type Row = { row: number; a: number; b: number; same: boolean };

export class CompareApp {
  private view: CompareView | undefined;
  private state: CompareUiState;
  private notice: HTMLElement = h('div', { class: 'status', role: 'status', 'aria-live': 'polite', hidden: true });

  constructor(private readonly root: HTMLElement, private readonly host: CompareHost) {
    this.state = host.getState() ?? { filter: 'all', scroll: 0 };
    host.onMessage((m) => this.receive(m));
  }

  private receive(m: CompareHostMessage): void {
    if (m.type === 'compare') {
      this.view = m.view;
      this.render();
    } else if (m.type === 'totals' && this.view) {
      this.view = { ...this.view, a: m.a, b: m.b };
      const table = document.getElementById('compare-totals');
      if (table) table.replaceWith(totalsTable(this.view.a, this.view.b));
    } else if (m.type === 'notice') {
      this.notice.hidden = false;
      this.notice.className = `status${m.level === 'error' ? ' error' : ''}`;
      replaceChildren(this.notice, m.message);
    }
  }

  render(): void {
    const v = this.view;
    if (!v) {
      replaceChildren(this.root, h('p', { class: 'note' }, 'Aligning the two runs…'));
      return;
    }
    replaceChildren(this.root,
      h('h1', {}, 'Compare two runs'),
      h('p', { class: 'source' }, h('span', { class: 'side-tag side-a' }, 'A'), ' ', runName(v.a), h('br'), h('span', { class: 'side-tag side-b' }, 'B'), ' ', runName(v.b)),
      this.notice,
      totalsTable(v.a, v.b),
      divergence(v, (row) => this.open(row)),
      h('p', { class: 'counts', id: 'compare-counts' },
        `${tokens(v.rows.length)} aligned rows: ${tokens(v.counts.same)} same, ${tokens(v.counts.changed)} changed, ${tokens(v.counts.onlyA)} only in A, ${tokens(v.counts.onlyB)} only in B (aligned in ${v.alignMs < 10 ? v.alignMs.toFixed(1) : Math.round(v.alignMs)} ms). Click a row to open both steps in the diff editor.`),
      this.filterBar(),
      this.rowsList(v));
  }

  private filterBar(): HTMLElement {
    const bar = h('div', { class: 'segmented', role: 'radiogroup', 'aria-label': 'Rows' });
    for (const [id, label] of [['all', 'All rows'], ['differences', 'Differences only']] as const) {
      const b = h('button', { type: 'button', role: 'radio', 'aria-checked': this.state.filter === id ? 'true' : 'false', id: `compare-filter-${id}` }, label);
      b.addEventListener('click', () => {
        this.state = { ...this.state, filter: id, scroll: 0 };
        this.host.setState(this.state);
        this.render();
      });
      bar.appendChild(b);
    }
    return bar;
  }

  private rowsList(v: CompareView): HTMLElement {
    const all: Row[] = v.rows.map(([a, b, same], row) => ({ row, a, b, same: same === 1 }));
    const items = this.state.filter === 'differences' ? all.filter((r) => !r.same) : all;
    const cell = (steps: StepBrief[], i: number) => (i < 0 ? h('span', { class: 'absent' }, '—') : h('span', {}, h('span', { class: 'step-no' }, `#${i} `), h('span', { class: 'step-label' }, steps[i].label), ' ', h('span', { class: 'step-preview' }, steps[i].preview)));
    return virtualList<Row>({
      id: 'compare-rows',
      label: 'Aligned steps of A and B',
      items,
      columns: [{ label: 'Row', className: 'idx' }, { label: '', className: 'mark' }, { label: 'A', className: 'side' }, { label: 'B', className: 'side' }],
      cells: (r) => [String(r.row), rowMark(r), cell(v.stepsA, r.a), cell(v.stepsB, r.b)],
      rowClass: (r) => `${rowKind(r)}${v.divergesAt && v.divergesAt.row === r.row ? ' diverges' : ''}`,
      onActivate: (r) => this.open(r.row),
      initialScroll: this.state.scroll,
      onScroll: (top) => {
        this.state = { ...this.state, scroll: top };
        this.host.setState(this.state);
      },
    });
  }

  private open(row: number): void {
    this.host.post({ type: 'openRow', row });
  }
}

function rowKind(r: Row): string {
  if (r.same) return 'row-same';
  if (r.a >= 0 && r.b >= 0) return 'row-changed';
  return r.a >= 0 ? 'row-only-a' : 'row-only-b';
}

function rowMark(r: Row): string {
  if (r.same) return '=';
  if (r.a >= 0 && r.b >= 0) return '≠';
  return r.a >= 0 ? '−' : '+';
}

function runName(t: RunTotals): string {
  const file = t.file.split(/[/\\]/).pop() ?? t.file;
  return `${t.title} (${file}${t.run === null ? '' : `, run ${t.run}`} · ${t.format})`;
}

function costCell(t: RunTotals): (Node | string)[] {
  if (t.cost === null) return ['unknown'];
  return [usd(t.cost), ' ', h('span', { class: `provenance provenance-${t.costSource}`, title: t.costNote }, t.costLabel ?? t.costSource ?? '')];
}

function toolsCell(tools: Record<string, number>): string {
  const entries = Object.entries(tools).sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]));
  return entries.length === 0 ? 'none' : entries.map(([name, n]) => `${name} ${n}`).join(', ');
}

/** The totals side by side; a row whose two values differ is marked. */
function totalsTable(a: RunTotals, b: RunTotals): HTMLElement {
  const rows: [string, (Node | string)[], (Node | string)[], boolean][] = [
    ['Steps', [tokens(a.steps)], [tokens(b.steps)], a.steps !== b.steps],
    ['Tokens', [`${a.tokensExact ? '' : '≈'}${tokens(a.tokens)}`, h('span', { class: 'note' }, ` ${a.tokenizer}`)], [`${b.tokensExact ? '' : '≈'}${tokens(b.tokens)}`, h('span', { class: 'note' }, ` ${b.tokenizer}`)], a.tokens !== b.tokens],
    ['Requests', [tokens(a.requests), ' ', h('span', { class: `provenance provenance-${a.requestsSource}` }, a.requestsSource)], [tokens(b.requests), ' ', h('span', { class: `provenance provenance-${b.requestsSource}` }, b.requestsSource)], a.requests !== b.requests],
    ['Cost', costCell(a), costCell(b), a.cost !== b.cost],
    ['Errors', [tokens(a.errors)], [tokens(b.errors)], a.errors !== b.errors],
    ['Tools', [toolsCell(a.tools)], [toolsCell(b.tools)], toolsCell(a.tools) !== toolsCell(b.tools)],
    ['Outcome', [a.outcome.text], [b.outcome.text], a.outcome.text !== b.outcome.text],
    ['Model', [a.model ?? 'not recorded'], [b.model ?? 'not recorded'], a.model !== b.model],
  ];
  return h('table', { class: 'data totals', id: 'compare-totals' },
    h('caption', {}, 'Totals of each run (cost: "recorded" from the log\'s own usage or cost, "modelled" from our token count and the price database; hover for how)'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, ''), h('th', { scope: 'col' }, 'A'), h('th', { scope: 'col' }, 'B'))),
    h('tbody', {}, ...rows.map(([label, x, y, differs]) => h('tr', { class: differs ? 'differs' : null, 'data-total': label.toLowerCase() },
      h('th', { scope: 'row' }, label), h('td', {}, ...x), h('td', {}, ...y)))));
}

function divergence(v: CompareView, open: (row: number) => void): HTMLElement {
  const d = v.divergesAt;
  if (!d) return h('section', { class: 'divergence same', id: 'compare-divergence' }, h('strong', {}, 'The runs do not diverge: '), 'every step is the same on both sides.');
  const side = (tag: string, steps: StepBrief[], i: number | null) => h('div', {},
    h('span', { class: `side-tag side-${tag.toLowerCase()}` }, tag), ' ',
    i === null ? h('span', { class: 'absent' }, 'no step here') : h('span', {}, h('span', { class: 'step-no' }, `#${i} `), h('span', { class: 'step-label' }, steps[i].label), ' ', h('span', { class: 'step-preview' }, steps[i].preview)));
  const show = h('button', { type: 'button', class: 'btn', id: 'compare-open-divergence' }, 'Open in diff editor');
  show.addEventListener('click', () => open(d.row));
  return h('section', { class: 'divergence', id: 'compare-divergence', 'aria-label': 'Where the runs diverge' },
    h('h2', {}, `The runs diverge at row ${d.row}`, h('span', { class: 'note' }, ` after ${d.row} same step${d.row === 1 ? '' : 's'}`)),
    side('A', v.stepsA, d.a),
    side('B', v.stepsB, d.b),
    h('div', { class: 'actions' }, show));
}
