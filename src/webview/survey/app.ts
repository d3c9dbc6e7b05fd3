import type { SkippedEntry } from '../../core/survey/types';
import type { SurveyHostMessage, SurveyTableRow, SurveyWebviewMessage } from '../../core/survey/protocol';
import { plural } from '../../core/view/plural';
import { h } from '../report/dom';
import { COLUMNS, sortRows, type SortState } from './columns';
import { filterSurveyRows, parseSurveyQuery, SURVEY_FIELDS_HELP } from '../../core/survey/filter';

// The Survey panel: one row per run, sortable by clicking a header, filtered by a text box, with
// the totals of the rows shown; clicking (or Enter on) a row opens that run in the Trajectories tree.

export interface SurveyUiState {
  sort: SortState;
  filter: string;
}

export interface SurveyHost {
  post(m: SurveyWebviewMessage): void;
  getState(): SurveyUiState | undefined;
  setState(s: SurveyUiState): void;
}

export class SurveyApp {
  private rows: SurveyTableRow[] = [];
  private skipped: SkippedEntry[] = [];
  private state: SurveyUiState;
  private status = 'Waiting for the survey to start…';
  private readonly statusEl = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  private readonly filterEl = h('input', { type: 'search', class: 'filter', placeholder: 'Filter runs: text, reward:1, resolved:true, format:codex, cost>0.5…', 'aria-label': 'Filter runs', title: `Filter runs: ${SURVEY_FIELDS_HELP}` });
  private readonly table = h('table', { class: 'survey' });
  private readonly skippedEl = h('details', { class: 'skipped' });
  private renderQueued = false;

  constructor(root: HTMLElement, private readonly host: SurveyHost) {
    this.state = host.getState() ?? { sort: { column: 'run', descending: false }, filter: '' };
    this.filterEl.value = this.state.filter;
    this.filterEl.addEventListener('input', () => {
      this.state = { ...this.state, filter: this.filterEl.value };
      this.save();
      this.queueRender();
    });
    root.append(h('h1', {}, 'Survey of runs'), this.statusEl, h('div', { class: 'toolbar' }, this.filterEl), h('div', { class: 'table-wrap' }, this.table), this.skippedEl);
    this.render();
  }

  receive(m: SurveyHostMessage): void {
    switch (m.type) {
      case 'start':
        this.rows = [];
        this.skipped = [];
        this.status = `Surveying ${m.files.toLocaleString('en-US')} files under ${m.root}…`;
        break;
      case 'rows':
        this.rows.push(...m.rows);
        this.skipped.push(...m.skipped);
        this.status = `Surveying: ${m.done.toLocaleString('en-US')} of ${m.of.toLocaleString('en-US')} files, ${this.rows.length.toLocaleString('en-US')} runs so far…`;
        break;
      case 'done':
        this.status = `${m.cancelled ? 'Stopped: ' : ''}${plural(m.total.runs, 'run')} in ${plural(m.total.files, 'file')}${m.total.skipped ? `, ${m.total.skipped} not read` : ''}. Click a header to sort, a row to open the run.`;
        break;
      case 'error':
        this.status = `The survey failed: ${m.message}`;
        break;
    }
    this.queueRender();
  }

  private queueRender(): void {
    if (this.renderQueued) return;
    this.renderQueued = true;
    requestAnimationFrame(() => {
      this.renderQueued = false;
      this.render();
    });
  }

  private save(): void {
    this.host.setState(this.state);
  }

  private sortBy(column: string): void {
    const same = this.state.sort.column === column;
    const numeric = COLUMNS.find((c) => c.id === column)?.numeric ?? false;
    this.state = { ...this.state, sort: { column, descending: same ? !this.state.sort.descending : numeric } };
    this.save();
    this.render();
  }

  render(): void {
    this.statusEl.textContent = this.status;
    // A query it cannot read keeps every row and says why, as the tree's filter does.
    let problem = '';
    let kept = this.rows;
    try {
      kept = filterSurveyRows(this.rows, parseSurveyQuery(this.state.filter));
    } catch (e) {
      problem = (e as Error).message;
    }
    const shown = sortRows(kept, this.state.sort);
    const head = h('tr', {}, ...COLUMNS.map((c) => {
      const sorted = this.state.sort.column === c.id;
      const button = h('button', { type: 'button', class: 'sort', title: c.title, 'data-column': c.id }, c.label, sorted ? (this.state.sort.descending ? ' ▼' : ' ▲') : '');
      button.addEventListener('click', () => this.sortBy(c.id));
      return h('th', { scope: 'col', class: c.numeric ? 'num' : '', 'aria-sort': sorted ? (this.state.sort.descending ? 'descending' : 'ascending') : 'none' }, button);
    }));
    const body = h('tbody');
    for (const r of shown) {
      const tr = h('tr', { tabindex: 0, class: 'run', 'data-file': r.file, 'data-run': r.run, title: `${r.name}\nClick to open this run in the Trajectories view` },
        ...COLUMNS.map((c) => h('td', { class: c.numeric ? 'num' : 'wrap' }, c.text(r))));
      const open = () => this.host.post({ type: 'open', file: r.file, run: r.run });
      tr.addEventListener('click', open);
      tr.addEventListener('keydown', (e) => { if (e.key === 'Enter') open(); });
      body.append(tr);
    }
    const foot = h('tfoot', {}, h('tr', { class: 'totals' }, ...COLUMNS.map((c) => h('td', { class: c.numeric ? 'num' : '' }, c.total ? c.total(shown) : ''))));
    const caption = h('caption', {}, problem ? `Filter not applied: ${problem}` : this.rows.length === shown.length
      ? `${shown.length.toLocaleString('en-US')} runs`
      : `${shown.length.toLocaleString('en-US')} of ${this.rows.length.toLocaleString('en-US')} runs match the filter`);
    this.table.replaceChildren(caption, h('thead', {}, head), body, foot);
    this.skippedEl.replaceChildren();
    if (this.skipped.length > 0) {
      this.skippedEl.append(h('summary', {}, `${this.skipped.length} file${this.skipped.length === 1 ? '' : 's'} not read`),
        h('ul', {}, ...this.skipped.map((s) => h('li', {}, h('code', {}, s.file), ': ', s.skipped))));
    }
    this.skippedEl.hidden = this.skipped.length === 0;
  }
}
