// The detail tabs: the forgotten range beside its summary, every step with its fate, the
// entities that survived or were lost, and the whole-run replay.

import type { ReportUiState } from '../../core/report/protocol';
import type { ReplayResult } from '../../core/simulate/replay';
import type { EntityRow, ResultView, StepRow } from '../../core/report/viewModel';
import { sawtooth } from './charts';
import { h } from './dom';
import { plural } from '../../core/view/plural';
import { percent, tokens, usd } from './format';
import { virtualList } from './virtualList';

export interface PaneContext {
  state: ReportUiState;
  save(): void;
  rerender(): void;
  standalone: boolean;
  revealStep?(step: number): void;
  /** Takes the reader to a step: the Steps tab scrolled to it (and, in the panel, the tree). */
  goToStep?(step: number): void;
  requestReplay?(summaryRatio: number | undefined, tokenBudget: number | undefined): void;
}

export function rangePane(r: ResultView, ctx: PaneContext): HTMLElement {
  const forgottenTokens = r.forgotten.reduce((n, f) => n + f.tokens, 0);
  const left = h('section', { class: 'side', 'aria-label': 'Forgotten steps' },
    h('h2', {}, `Forgotten: ${plural(r.forgotten.length, 'step')}, ${tokens(forgottenTokens)} tokens`),
    r.forgotten.length === 0 ? h('p', { class: 'note' }, 'No step was forgotten, masked or trimmed.') : null,
    ...r.forgotten.map((f) => h('article', { class: `forgotten fate-${f.fate}` },
      h('header', {}, h('span', { class: `fate fate-${f.fate}` }, f.fate), ` #${f.index} · ${f.label} · ${tokens(f.tokens)} tokens`),
      h('pre', { class: 'text' }, f.text + (f.truncated ? '\n…' : '')))),
    r.forgottenCut ? h('p', { class: 'note' }, 'The list is cut here to keep the report small; “Open diff” shows every step.') : null);
  const right = h('section', { class: 'side', 'aria-label': 'Summary' },
    h('h2', {}, r.summary !== null ? `Summary: ${tokens(r.summaryTokens)} tokens` : 'No summary'),
    r.summarySize ? h('p', { class: 'note', id: 'summary-size' }, r.summarySize) : null,
    r.summary !== null
      ? h('pre', { class: 'text summary', id: 'summary-text' }, r.summary)
      : h('p', { class: 'note' }, 'This strategy replaces nothing with a summary: the steps on the left were masked, trimmed or dropped.'));
  const pane = h('div', { class: 'side-by-side' }, left, right);
  keepScroll(left, 'range-left', ctx);
  keepScroll(right, 'range-right', ctx);
  return pane;
}

function keepScroll(el: HTMLElement, name: string, ctx: PaneContext): void {
  el.classList.add('scroller');
  requestAnimationFrame(() => { el.scrollTop = ctx.state.scroll[name] ?? 0; });
  el.addEventListener('scroll', () => { ctx.state.scroll[name] = el.scrollTop; ctx.save(); }, { passive: true });
}

const STEP_FILTERS: { id: ReportUiState['stepFilter']; label: string }[] = [
  { id: 'range', label: 'In the range' },
  { id: 'changed', label: 'Changed only' },
  { id: 'all', label: 'All steps' },
];

export function stepsPane(r: ResultView, ctx: PaneContext): HTMLElement {
  const filter = ctx.state.stepFilter;
  const rows = r.steps.filter((s) => filter === 'all' || (filter === 'range' ? s.inRange : s.fate !== 'kept'));
  const select = h('select', { id: 'step-filter', 'aria-label': 'Which steps to list' },
    ...STEP_FILTERS.map((f) => h('option', { value: f.id, selected: f.id === filter }, f.label)));
  select.addEventListener('change', () => {
    ctx.state.stepFilter = select.value as ReportUiState['stepFilter'];
    ctx.state.scroll.steps = 0;
    ctx.save();
    ctx.rerender();
  });
  const counts = countFates(rows);
  const list = virtualList<StepRow>({
    id: 'step-list',
    label: 'Steps with tokens and fate',
    items: rows,
    columns: [{ label: '#', className: 'num idx' }, { label: 'Fate', className: 'fatecol' }, { label: 'Step', className: 'label' }, { label: 'Before', className: 'num' }, { label: 'After', className: 'num' }, { label: 'Preview', className: 'preview' }],
    cells: (s) => [String(s.index), h('span', { class: `fate fate-${s.fate}` }, s.fate), s.label, tokens(s.tokensBefore), s.fate === 'summarized' || s.fate === 'dropped' ? '—' : tokens(s.tokensAfter), s.preview],
    rowClass: (s) => `fate-row-${s.fate}`,
    onActivate: ctx.revealStep ? (s) => ctx.revealStep!(s.index) : undefined,
    initialScroll: ctx.state.scroll.steps,
    onScroll: (top) => { ctx.state.scroll.steps = top; ctx.save(); },
  });
  return h('div', {},
    h('div', { class: 'toolbar' },
      h('label', { for: 'step-filter' }, 'Show '), select,
      h('span', { class: 'counts', 'aria-live': 'polite' }, `${plural(rows.length, 'step')}: ${Object.entries(counts).map(([f, n]) => `${n} ${f}`).join(', ')}`)),
    list);
}

function countFates(rows: readonly StepRow[]): Record<string, number> {
  const c: Record<string, number> = {};
  for (const s of rows) c[s.fate] = (c[s.fate] ?? 0) + 1;
  return c;
}

const WHERE_TEXT: Record<EntityRow['where'], string> = { summary: '✓ in the summary', context: '✓ still in context', lost: '✗ lost' };

/** A step number that takes the reader to the step (the panel also reveals it in the tree). */
function stepLink(step: number | undefined, ctx: PaneContext): Node | string {
  if (step === undefined) return '—';
  if (!ctx.goToStep) return String(step);
  const b = h('button', { type: 'button', class: 'link step-link', 'aria-label': `Go to step ${step}` }, String(step));
  b.addEventListener('click', () => ctx.goToStep!(step));
  return b;
}

function entityTable(rows: readonly EntityRow[], caption: string, ctx: PaneContext, withStatus: boolean): HTMLElement {
  const heads = [...(withStatus ? ['Where'] : []), 'Kind', 'Entity', 'What the run did', 'Introduced at', 'Needed again at'];
  return h('table', { class: 'data entities' },
    h('caption', { class: 'sr-only' }, caption),
    h('thead', {}, h('tr', {}, ...heads.map((t) => h('th', { scope: 'col', class: /at$/.test(t) ? 'num' : null }, t)))),
    h('tbody', {}, ...rows.map((e) => h('tr', { class: e.kept ? 'kept' : e.neededLater ? 'lost needed' : 'lost' },
      ...(withStatus ? [h('td', {}, WHERE_TEXT[e.where])] : []),
      h('td', {}, e.kind),
      h('td', {}, h('code', {}, e.text)),
      h('td', {}, e.detail ?? ''),
      h('td', { class: 'num' }, stepLink(e.firstStep, ctx)),
      h('td', { class: 'num' }, e.neededLater ? stepLink(e.laterStep, ctx) : '—')))));
}

export function survivalPane(r: ResultView, ctx: PaneContext): HTMLElement {
  const { inSummary, inContext, lost, lostNeeded } = r.entityCounts;
  const needed = r.entities.filter((e) => !e.kept && e.neededLater);
  // The headline loss first: what the compaction lost that the run went on to need.
  const headline = h('section', { class: lostNeeded === 0 ? 'loss-headline none' : 'loss-headline', 'aria-label': 'Lost and needed later' },
    h('h2', { id: 'lost-needed-title' }, `Lost and needed later: ${lostNeeded}`),
    needed.length === 0
      ? h('p', { class: 'note' }, r.entities.length === 0 ? 'Nothing the run acted on was found in the forgotten steps.' : 'Nothing the run needed after the range was lost.')
      : entityTable(needed, 'Entities the compaction lost that a later step needed', ctx, false));
  const filter = ctx.state.entityFilter;
  const shown = r.entities.filter((e) => filter === 'all' || (filter === 'lost' ? !e.kept : filter === 'needed' ? !e.kept && e.neededLater : e.kept));
  const select = h('select', { id: 'entity-filter', 'aria-label': 'Which entities to list' },
    ...[['all', 'All'], ['lost', 'Lost only'], ['needed', 'Lost and needed later'], ['kept', 'Kept only']].map(([id, label]) => h('option', { value: id, selected: id === filter }, label)));
  select.addEventListener('change', () => { ctx.state.entityFilter = select.value as ReportUiState['entityFilter']; ctx.save(); ctx.rerender(); });
  const total = r.entities.length;
  return h('div', {},
    headline,
    h('p', { class: 'survival-summary' },
      h('span', { class: 'kept' }, `✓ ${inSummary} in the summary`), ' · ', h('span', { class: 'kept' }, `✓ ${inContext} still in context`), ' · ',
      // Nothing lost is no alarm: the cross and the error colour only for a real loss.
      lost > 0 ? h('span', { class: 'lost' }, `✗ ${lost} lost`) : h('span', {}, '0 lost'),
      ` of the ${plural(total, 'thing')} the forgotten steps acted on: files changed and read, commands and their exit status, failing tests, errors, what the user gave and asked, to-do items${total > 0 ? ` (${percent((total - lost) / total)} kept)` : ''}.`),
    h('div', { class: 'toolbar' }, h('label', { for: 'entity-filter' }, 'Show '), select),
    total === 0 ? h('p', { class: 'note' }, 'Nothing the run acted on was found in the forgotten steps.') : entityTable(shown, 'Entities of the forgotten steps and where they survive', ctx, true));
}

export function replayPane(r: ResultView, ctx: PaneContext): HTMLElement {
  const rp = r.replay;
  if (!rp) return h('p', { class: 'note' }, 'No replay: the strategy is not known to this version.');
  const raw = rp.totals.raw, comp = rp.totals.compacted;
  const stat = (label: string, before: string, after: string, id?: string) =>
    h('tr', { id: id ?? null }, h('th', { scope: 'row', class: label.startsWith('  ') ? 'sub' : null }, label.trim()), h('td', { class: 'num' }, before), h('td', { class: 'num' }, after));
  const cost = (x: number | null) => (x === null ? 'unknown' : usd(x));
  const totals = h('table', { class: 'data totals', id: 'replay-totals' },
    h('caption', {}, `The whole run, both ways, as the provider bills it (modelled; prompt cache: ${rp.cache}, lifetime ${rp.cacheTtl.words})`),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, ''), h('th', { scope: 'col', class: 'num' }, 'No compaction'), h('th', { scope: 'col', class: 'num' }, `With ${rp.strategy}`))),
    h('tbody', {},
      stat('Model requests', tokens(raw.requests), `${tokens(comp.requests)} (${tokens(rp.summaryCalls)} for summaries)`),
      stat('Input tokens', tokens(raw.input), tokens(comp.input)),
      stat('  of which uncached', tokens(raw.uncachedInput), tokens(comp.uncachedInput)),
      stat('  of which cache reads', tokens(raw.cachedInput), tokens(comp.cachedInput)),
      stat('  of which cache writes', tokens(raw.cacheWrite), tokens(comp.cacheWrite)),
      stat('Output tokens', tokens(raw.output), tokens(comp.output)),
      stat('Largest context (our count)', tokens(rp.peakRaw), tokens(rp.peakCompacted)),
      stat(rp.cost ? `Cost (${rp.cost.model}, prices of ${rp.cost.pricesAsOf})` : 'Cost', cost(raw.cost), cost(comp.cost), 'replay-cost')));
  const verdict = rp.cost
    ? h('p', { class: rp.cost.saved >= 0 ? 'good' : 'bad', id: 'replay-verdict' }, rp.cost.saved >= 0
      ? `Saves ${usd(rp.cost.saved)} over the run, prompt caching included.`
      : `Costs ${usd(-rp.cost.saved)} more over the run: ${comp.input < raw.input ? 'fewer tokens, but ' : ''}each compaction rewrites the cached prompt after it.`)
    : h('p', { class: 'note' }, 'No price known for the model (or for a cache rate it needs), so no cost.');
  const bill = r.headline.bill;
  const asItHappened = h('p', { id: 'replay-bill' }, `The run as it happened: ${bill.cost === null ? bill.reason ?? 'cost unknown' : `${usd(bill.cost)}, ${bill.label}`} (${bill.note})`,
    bill.byModel.length > 1 ? `; by model: ${bill.byModel.map((m) => `${m.model} ${m.cost === null ? 'no price' : usd(m.cost)} (${plural(m.calls, 'call')})`).join(', ')}` : '',
    bill.differenceReason ? `. The replay below models it ${bill.difference! >= 0 ? 'above' : 'below'} that by ${percent(Math.abs(bill.difference!))}: ${bill.differenceReason}.` : '.');
  return h('div', {},
    asItHappened,
    h('p', {}, `Replays all ${plural(rp.steps, 'step')} (${plural(rp.modelCalls, 'request')} by the agent) as if it had used ${rp.label}: it compacts ${rp.trigger}. `,
      rp.effect === 'summarize' ? `Each summary is ${percent(rp.summaryRatio)} of what it replaces (${ratioSourceText(rp)}).` : `Effect: ${rp.effect}.`),
    totals,
    verdict,
    recordedLine(rp),
    sawtooth(rp),
    h('h2', {}, 'How these numbers are modelled'),
    h('ul', { class: 'modelled', id: 'replay-notes' }, ...rp.notes.map((n) => h('li', {}, n))),
    replayControls(ctx, rp));
}

/** The uncompacted run against what the log recorded, when it records usage per call. */
function recordedLine(rp: ReplayResult): HTMLElement | null {
  const rec = rp.recorded;
  if (!rec || rec.calls === 0) return null;
  const parts: string[] = [`Checked against the ${plural(rec.calls, 'call')} whose usage the log records:`];
  if (rec.medianPromptDeviation !== null) parts.push(`the modelled prompt is within ${percent(rec.medianPromptDeviation)} of the recorded one (median over calls);`);
  if (rec.cost !== null) {
    parts.push(`recorded cost ${usd(rec.cost)} (${rec.costSource === 'log' ? 'as the log says' : 'the recorded usage priced'}), modelled ${rec.modelledCost === null ? 'unknown' : usd(rec.modelledCost)}${rec.costDifference !== null ? ` (${signedPercent(rec.costDifference)})` : ''}.`);
  } else {
    parts.push(rec.cacheReads ? 'the log records no cost to compare.' : 'the log records no cost and no cache usage to compare the cost with.');
  }
  const reads = rec.cacheReads;
  // The cache checked without a price: what the recorded calls read from it against the replay's reads.
  if (reads) parts.push(`Cache reads over the ${plural(reads.calls, 'call')} that record them: ${tokens(reads.recorded)} recorded, ${tokens(reads.modelled)} modelled${reads.recorded > 0 ? ` (${signedPercent((reads.modelled - reads.recorded) / reads.recorded)})` : ''}.`);
  return h('p', { id: 'replay-recorded' }, parts.join(' '));
}

const signedPercent = (x: number) => `${x >= 0 ? '+' : '−'}${percent(Math.abs(x))}`;

function ratioSourceText(rp: ReplayResult): string {
  return rp.ratioSource === 'run' ? 'measured on the run just made' : rp.ratioSource === 'user' ? 'as you set it' : 'a default; no summary was measured';
}

function replayControls(ctx: PaneContext, rp: ReplayResult): HTMLElement | null {
  if (ctx.standalone || !ctx.requestReplay) {
    return h('p', { class: 'note' }, 'To replay with another ratio or a token budget, run: agent-trace-lens simulate FILE --strategy ', rp.strategy, ' --ratio R --budget N');
  }
  const ratio = h('input', { id: 'replay-ratio', type: 'number', min: 0, max: 2, step: 0.01, value: ctx.state.replayRatio ?? '', placeholder: rp.summaryRatio.toFixed(3) });
  const budget = h('input', { id: 'replay-budget', type: 'number', min: 1, step: 1000, value: ctx.state.replayBudget ?? '', placeholder: 'strategy trigger' });
  const form = h('form', { class: 'toolbar replay-form', 'aria-label': 'Replay settings' },
    h('label', { for: 'replay-ratio' }, 'Summary ratio'), ratio,
    h('label', { for: 'replay-budget' }, 'Token budget'), budget,
    h('button', { type: 'submit', class: 'btn' }, 'Replay'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const num = (v: string) => (v.trim() === '' ? undefined : Number(v));
    ctx.state.replayRatio = num(ratio.value);
    ctx.state.replayBudget = num(budget.value);
    ctx.save();
    ctx.requestReplay!(ctx.state.replayRatio, ctx.state.replayBudget);
  });
  return form;
}
