// A virtualized list with fixed row height: only the rows in view (plus a margin) are in the DOM,
// so tens of thousands of steps scroll smoothly. Keyboard: arrows, Page Up/Down, Home/End move
// the active row (announced through aria-activedescendant); Enter activates it.

import { h, replaceChildren } from './dom';

export const ROW_HEIGHT = 26;
const OVERSCAN = 10;

export interface VirtualListOptions<T> {
  id: string;
  label: string;
  items: readonly T[];
  /** Column headers; each row renders one cell per column. */
  columns: readonly { label: string; className?: string }[];
  cells(item: T, index: number): (Node | string)[];
  rowClass?(item: T): string;
  onActivate?(item: T): void;
  initialScroll?: number;
  onScroll?(top: number): void;
}

export function virtualList<T>(o: VirtualListOptions<T>): HTMLElement {
  const rowId = (i: number) => `${o.id}-row-${i}`;
  const header = h('div', { class: 'vrow vhead', role: 'row', 'aria-rowindex': 1 },
    ...o.columns.map((c) => h('span', { class: `vcell ${c.className ?? ''}`, role: 'columnheader' }, c.label)));
  const spacer = h('div', { class: 'vspacer', role: 'presentation' });
  spacer.style.height = `${o.items.length * ROW_HEIGHT}px`;
  const viewport = h('div', {
    class: 'vviewport', tabindex: 0, role: 'grid', id: o.id,
    'aria-label': `${o.label} (${o.items.length} rows; arrow keys move, Enter opens)`,
    'aria-rowcount': o.items.length + 1, 'aria-colcount': o.columns.length,
  }, header, spacer);
  let active = o.items.length > 0 ? 0 : -1;
  let first = -1, last = -1;

  const draw = (force = false) => {
    const top = viewport.scrollTop;
    const height = viewport.clientHeight || 400;
    const from = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
    const to = Math.min(o.items.length, Math.ceil((top + height) / ROW_HEIGHT) + OVERSCAN);
    if (!force && from === first && to === last) return;
    first = from; last = to;
    const rows: HTMLElement[] = [];
    for (let i = from; i < to; i++) {
      const item = o.items[i];
      const row = h('div', {
        class: `vrow ${o.rowClass?.(item) ?? ''}${i === active ? ' active' : ''}`, role: 'row', id: rowId(i),
        'aria-rowindex': i + 2, 'aria-selected': i === active ? 'true' : 'false',
      }, ...o.cells(item, i).map((c, ci) => h('span', { class: `vcell ${o.columns[ci]?.className ?? ''}`, role: 'gridcell' }, c)));
      row.style.top = `${i * ROW_HEIGHT}px`;
      row.addEventListener('click', () => { setActive(i); o.onActivate?.(item); });
      rows.push(row);
    }
    replaceChildren(spacer, ...rows);
    if (active >= 0) viewport.setAttribute('aria-activedescendant', rowId(active));
  };

  const setActive = (i: number) => {
    active = Math.max(0, Math.min(o.items.length - 1, i));
    const rowTop = active * ROW_HEIGHT;
    const viewTop = viewport.scrollTop;
    const viewH = viewport.clientHeight - ROW_HEIGHT; // the sticky header covers one row
    if (rowTop < viewTop) viewport.scrollTop = rowTop;
    else if (rowTop + ROW_HEIGHT > viewTop + viewH) viewport.scrollTop = rowTop + ROW_HEIGHT - viewH;
    draw(true);
  };

  let pending = false;
  viewport.addEventListener('scroll', () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      draw();
      o.onScroll?.(viewport.scrollTop);
    });
  });
  viewport.addEventListener('keydown', (e) => {
    if (o.items.length === 0) return;
    const page = Math.max(1, Math.floor(viewport.clientHeight / ROW_HEIGHT) - 1);
    const moves: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page };
    if (e.key in moves) setActive(active + moves[e.key]);
    else if (e.key === 'Home') setActive(0);
    else if (e.key === 'End') setActive(o.items.length - 1);
    else if (e.key === 'Enter' && active >= 0) o.onActivate?.(o.items[active]);
    else return;
    e.preventDefault();
  });
  // Draw once attached (clientHeight is known then), restoring the saved scroll offset.
  requestAnimationFrame(() => {
    if (o.initialScroll) viewport.scrollTop = o.initialScroll;
    draw(true);
  });
  draw(true);
  return viewport;
}
