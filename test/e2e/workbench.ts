// A page object over code-server's workbench: the few gestures the scenarios need,
// with selectors taken from VS Code's DOM (see /work/shared/e2e/RECIPE.md).
import type { Locator, Page } from 'playwright-core';

export const VIEW_CONTAINER_TITLE = 'Agent Trace Lens';
export const VIEW_NAME = 'Trajectories';

/** One visible row of a tree or list, as a user reads it. */
export interface Row {
  index: number;
  /** Depth in the tree, 1 for roots. */
  level: number;
  label: string;
  description: string;
  expanded?: boolean;
}

export class Workbench {
  constructor(readonly page: Page) {}

  async open(url: string, folder: string, timeoutMs: number): Promise<void> {
    await this.page.goto(`${url}/?folder=${encodeURIComponent(folder)}`);
    await this.page.locator('.monaco-workbench').waitFor({ timeout: timeoutMs });
    // The Explorer listing the folder's files is the sign that the workbench is usable.
    await this.explorerRow().first().waitFor({ timeout: timeoutMs });
    await this.widenSideBar(520);
  }

  /** Drags the sash between side bar and editor, so tree rows and screenshots are readable. */
  async widenSideBar(width: number): Promise<void> {
    const side = await this.page.locator('#workbench\\.parts\\.sidebar').boundingBox();
    const sash = await this.page.locator('.monaco-sash.vertical.primary-sidebar-sash').boundingBox();
    if (!side || !sash || side.width >= width) return;
    const y = sash.y + sash.height / 2;
    await this.page.mouse.move(sash.x + sash.width / 2, y);
    await this.page.mouse.down();
    await this.page.mouse.move(side.x + width, y, { steps: 8 });
    await this.page.mouse.up();
  }

  /** Parks the mouse on the status bar, so no hover card covers what a screenshot should show. */
  async parkMouse(): Promise<void> {
    const bar = await this.page.locator('#workbench\\.parts\\.statusbar').boundingBox();
    if (bar) await this.page.mouse.move(bar.x + bar.width / 2, bar.y + bar.height / 2);
  }

  explorerRow(name?: string): Locator {
    // Explorer rows are labelled with the file's name.
    const rows = this.page.locator('.explorer-folders-view .monaco-list-row');
    return name === undefined ? rows : this.page.locator(`.explorer-folders-view .monaco-list-row[aria-label=${JSON.stringify(name)}]`);
  }

  /**
   * Expands the Explorer folder `name`. A folder another scenario just created is inserted while
   * the Explorer shows up, and a click on a row that moves lands on its neighbour: wait until the
   * row stays put, click, and check it opened, as a person would look again.
   */
  async expandExplorerFolder(name: string): Promise<void> {
    await this.showExplorer();
    const folder = this.explorerRow(name);
    await folder.waitFor({ timeout: 15_000 });
    for (let attempt = 1; (await folder.getAttribute('aria-expanded')) !== 'true'; attempt++) {
      if (attempt > 5) throw new Error(`the Explorer folder ${JSON.stringify(name)} did not open after ${attempt - 1} clicks`);
      await this.settled(folder);
      await folder.click();
      await this.page.waitForTimeout(300);
    }
  }

  async showExplorer(): Promise<void> {
    if (!(await this.page.locator('.explorer-folders-view').isVisible())) await this.page.keyboard.press('Control+Shift+E');
    await this.page.locator('.explorer-folders-view').waitFor();
  }

  /** Runs a command from the palette by its title (category included, as the palette shows it). */
  async runCommand(title: string): Promise<void> {
    const input = this.page.locator('.quick-input-widget input');
    // With the keyboard focus inside a webview, the palette can open before the workbench takes the
    // focus back and refuse input for a moment ("inert"): close it and open it again from the workbench.
    for (let attempt = 1; ; attempt++) {
      await this.dismissQuickInput();
      if (attempt > 1) await this.page.locator('#workbench\\.parts\\.statusbar').click({ position: { x: 5, y: 5 } }).catch(() => undefined);
      await this.page.keyboard.press('F1');
      try {
        await input.waitFor({ timeout: 10_000 });
        await input.fill('>' + title, { timeout: 5_000 });
        break;
      } catch (e) {
        if (attempt >= 3) throw e;
        await this.page.keyboard.press('Escape');
        await this.page.waitForTimeout(1_000);
      }
    }
    // The exact command, not the first fuzzy match ("Color Theme" also matches "Browse Color Themes…").
    const exact = this.page.locator('.quick-input-list .monaco-list-row').filter({ has: this.page.locator('.label-name', { hasText: new RegExp(`^\\s*${escapeRegExp(title)}\\s*$`) }) }).first();
    await exact.waitFor({ timeout: 15_000 });
    // A hover left open by the editor or the status bar can lie over the list and take the click;
    // the focused row is the one Enter runs.
    if ((await exact.getAttribute('class'))?.split(/\s+/).includes('focused')) await input.press('Enter');
    else await exact.click();
  }

  /**
   * Answers code-server's "simple file dialog" (a quick input) with an absolute path; returns the
   * time Enter was pressed.
   */
  async answerFileDialog(absPath: string): Promise<number> {
    const input = this.page.locator('.quick-input-widget input');
    await input.waitFor({ timeout: 15_000 });
    // The dialog fills in the current folder once it has listed it; typing earlier gets overwritten.
    await this.page.locator('.quick-input-list .monaco-list-row').first().waitFor({ timeout: 15_000 });
    for (let attempt = 0; attempt < 5; attempt++) {
      await input.fill(absPath);
      // It completes the path as you type; let it settle, then check our path is still what it holds.
      await this.page.waitForTimeout(500);
      if ((await input.inputValue()) === absPath) break;
    }
    const chosen = Date.now();
    await input.press('Enter');
    await this.page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 15_000 });
    return chosen;
  }

  async dismissQuickInput(): Promise<void> {
    if (await this.page.locator('.quick-input-widget').isVisible()) await this.page.keyboard.press('Escape');
  }

  /** Right-clicks a file in the Explorer and picks an entry of its context menu. */
  async explorerContextMenu(fileName: string, entry: string): Promise<void> {
    await this.showExplorer();
    const row = this.explorerRow(fileName);
    await row.waitFor({ timeout: 15_000 });
    // Right after start-up the workbench can show the menu before extension menus are merged into
    // it; a menu without the entry is closed and opened again, as a person would.
    for (let attempt = 1; ; attempt++) {
      try {
        // A row that moves (the Explorer inserting a new sibling) takes the click of its neighbour:
        // wait until it stays put, and check the menu opened on it before picking the entry.
        await this.settled(row);
        await this.contextMenu(row, entry, async () => {
          const focused = await this.page.locator('.explorer-folders-view .monaco-list-row.focused').first().getAttribute('aria-label');
          if (focused !== fileName) throw new Error(`the context menu opened on ${JSON.stringify(focused)}, not ${JSON.stringify(fileName)}`);
        });
        return;
      } catch (e) {
        if (attempt >= 3) throw e;
        await this.page.keyboard.press('Escape');
        await this.page.waitForTimeout(2_000);
      }
    }
  }

  /** Waits until `target` has kept its place on screen for half a second. */
  async settled(target: Locator, timeoutMs = 10_000): Promise<void> {
    let last = '';
    for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await this.page.waitForTimeout(500)) {
      const box = JSON.stringify(await target.boundingBox());
      if (box === last && box !== 'null') return;
      last = box;
    }
  }

  /** Right-clicks `target` (a tree row, say) and picks an entry of the menu that opens. */
  async contextMenu(target: Locator, entry: string, check?: () => Promise<void>): Promise<void> {
    await target.click({ button: 'right' });
    const item = this.page.locator('.monaco-menu .action-item', { hasText: entry }).first();
    await item.waitFor({ timeout: 10_000 });
    await check?.();
    // A freshly opened menu ignores a click that comes too soon after it appeared: retry once it has settled.
    for (let attempt = 0; attempt < 5 && (await item.isVisible()); attempt++) {
      await this.page.waitForTimeout(300);
      await item.click().catch(() => undefined);
      await item.waitFor({ state: 'hidden', timeout: 2_000 }).catch(() => undefined);
    }
    if (await item.isVisible()) throw new Error(`the context menu entry "${entry}" did not respond to clicks`);
  }

  /** Opens a file of the workspace as a normal text editor, the way a user double-clicks it. */
  async openInEditor(fileName: string): Promise<void> {
    await this.showExplorer();
    const row = this.explorerRow(fileName);
    await row.waitFor({ timeout: 15_000 });
    await row.dblclick();
    await this.editorTab(fileName).waitFor({ timeout: 15_000 });
  }

  editorTab(title: string): Locator {
    return this.page.locator(`.tabs-container .tab[data-resource-name=${JSON.stringify(title)}]`);
  }

  /** The active tab of the active editor group (each group has an active tab of its own). */
  activeTab(): Locator {
    return this.page.locator('.editor-group-container.active .tabs-container .tab.active');
  }

  /** Text of the active editor, read from Monaco's rendered lines (only what is on screen). */
  async activeEditorText(): Promise<string> {
    const lines = this.page.locator('.editor-group-container.active .monaco-editor .view-lines .view-line');
    await lines.first().waitFor({ timeout: 10_000 });
    return (await lines.allInnerTexts()).join('\n').replace(/\u00a0/g, ' ');
  }

  /** True when VS Code treats the active editor as read-only: its input is marked so, or typing drew the "Cannot edit" hint. */
  async activeEditorIsReadOnly(): Promise<boolean> {
    if (await this.page.locator('.monaco-editor-overlaymessage', { hasText: /read-only/i }).isVisible()) return true;
    const textarea = this.page.locator('.editor-group-container.active .monaco-editor textarea').first();
    if ((await textarea.getAttribute('readonly')) !== null) return true;
    if ((await textarea.getAttribute('aria-readonly')) === 'true') return true;
    return false;
  }

  /** The sidebar showing our view container; clicks its activity-bar entry when it is hidden. */
  async showTraceView(): Promise<Locator> {
    const tree = this.traceTree();
    // Opening a trajectory reveals the view by itself, a moment later; clicking the entry of an
    // already active container would close the side bar, so give the extension that moment first.
    if (!(await tree.waitFor({ timeout: 3_000 }).then(() => true, () => false))) {
      await this.page.locator(`.activitybar .action-item a.action-label[aria-label^="${VIEW_CONTAINER_TITLE}"]`).first().click();
    }
    await tree.waitFor({ timeout: 15_000 });
    return tree;
  }

  /**
   * Shows the Trajectories view and says whether it holds any trajectory: an empty view shows
   * its welcome text instead of a list, which `showTraceView` would wait for in vain.
   */
  async traceViewHasTrajectories(): Promise<boolean> {
    // Clicking the entry of the container already shown would close the side bar: click only when it is not.
    const entry = this.page.locator(`.activitybar .action-item:has(a.action-label[aria-label^="${VIEW_CONTAINER_TITLE}"])`).first();
    if (!(await entry.getAttribute('class'))?.split(/\s+/).includes('checked')) await entry.locator('a.action-label').click();
    return this.traceTree().waitFor({ timeout: 3_000 }).then(() => true, () => false);
  }

  /** The tree of the "Trajectories" view: VS Code labels a tree view's list with the view's name. */
  traceTree(): Locator {
    return this.page.locator(`.monaco-list[aria-label^="${VIEW_NAME}"]`).first();
  }

  /** Every row of the trace tree, scrolling through it, since lists render only what is on screen. */
  async traceRows(): Promise<Row[]> {
    const tree = await this.showTraceView();
    await this.scrollToTop(tree);
    const seen = new Map<number, Row & { last: boolean }>();
    for (let guard = 0, idle = 0; guard < 300 && idle < 3; guard++) {
      const before = seen.size;
      for (const row of await this.visibleRows(tree)) seen.set(row.index, row);
      if ([...seen.values()].some((r) => r.last)) break;
      await this.page.mouse.wheel(0, 300);
      await this.page.waitForTimeout(150);
      idle = seen.size === before ? idle + 1 : 0;
    }
    await this.parkMouse();
    return [...seen.values()].sort((a, b) => a.index - b.index).map(({ last: _last, ...row }) => row);
  }

  /** The trace-tree rows on screen right now, without scrolling (for watching rows change). */
  async visibleTraceRows(): Promise<Row[]> {
    return (await this.visibleRows(this.traceTree())).map(({ last: _last, ...row }) => row);
  }

  /**
   * Puts the mouse on the tree's scrollbar strip, where wheel events scroll the list. Resting on a
   * row instead brings up that row's tooltip after a moment, and the tooltip then takes the wheel.
   */
  private async aimAtScrollbar(tree: Locator): Promise<void> {
    const box = await tree.boundingBox();
    if (!box) throw new Error('the Trajectories tree is not on screen');
    await this.page.mouse.move(box.x + box.width - 4, box.y + box.height / 2, { steps: 2 });
  }

  /**
   * Scrolls the tree from the top until `row` is visible (the list is virtualized: rows exist only in
   * view). A row can still be on its way (a trajectory loading, a node being expanded), so a pass that
   * reaches the last row without it starts again from the top until `timeoutMs` has passed.
   */
  private async scrollTo(tree: Locator, row: Locator, stopAtLastRow: boolean, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.scrollToTop(tree);
      for (let guard = 0; guard < 150 && !(await row.isVisible()); guard++) {
        if (stopAtLastRow && (await tree.locator('.monaco-list-rows > .monaco-list-row[data-last-element="true"]').count()) > 0) break;
        await this.page.mouse.wheel(0, 300);
        await this.page.waitForTimeout(150);
      }
      if (await row.isVisible()) return;
      if (Date.now() > deadline) break;
      await this.page.waitForTimeout(500);
    }
    await row.waitFor({ timeout: 5_000 });
  }

  /** Wheels the tree up until its first row is rendered (wheel events land a frame later). */
  private async scrollToTop(tree: Locator): Promise<void> {
    await this.aimAtScrollbar(tree);
    // However large its delta, one wheel event moves the list by about two rows: send them in bursts.
    for (let i = 0; i < 60; i++) {
      if ((await tree.locator('.monaco-list-rows > .monaco-list-row[data-index="0"]').count()) > 0) return;
      for (let k = 0; k < 10; k++) await this.page.mouse.wheel(0, -5_000);
      await this.page.waitForTimeout(150);
    }
    throw new Error('could not scroll the Trajectories tree to its top');
  }

  private async visibleRows(tree: Locator): Promise<(Row & { last: boolean })[]> {
    // `.monaco-list-rows >` leaves out sticky-scroll copies of parent rows pinned above the list.
    return tree.locator('.monaco-list-rows > .monaco-list-row').evaluateAll((els) =>
      els.map((el) => ({
        index: Number(el.getAttribute('data-index')),
        level: Number(el.getAttribute('aria-level') ?? '1'),
        label: el.querySelector('.label-name')?.textContent?.trim() ?? '',
        description: el.querySelector('.label-description')?.textContent?.trim() ?? '',
        expanded: el.hasAttribute('aria-expanded') ? el.getAttribute('aria-expanded') === 'true' : undefined,
        last: el.getAttribute('data-last-element') === 'true',
      })),
    );
  }

  /** A row of the trace tree whose label starts with `label` (scrolls it into view first). */
  async traceRow(label: string | RegExp): Promise<Locator> {
    const tree = await this.showTraceView();
    const match = typeof label === 'string' ? new RegExp('^' + escapeRegExp(label)) : label;
    const row = tree.locator('.monaco-list-rows > .monaco-list-row').filter({ has: this.page.locator('.label-name', { hasText: match }) }).first();
    await this.scrollTo(tree, row, true);
    await this.parkMouse();
    return row;
  }

  /** The trace-tree row at a list position (as `traceRows` numbers them), scrolled into view. */
  async traceRowAt(index: number): Promise<Locator> {
    const tree = await this.showTraceView();
    const row = tree.locator(`.monaco-list-rows > .monaco-list-row[data-index="${index}"]`);
    await this.scrollTo(tree, row, false);
    await this.parkMouse();
    return row;
  }

  /**
   * The trace-tree row of a trajectory's step `index` (scrolled into view). Step rows name their
   * step in their accessible label ("tool call bash, step 7, …"), as a screen reader hears it.
   */
  async traceStepRow(index: number): Promise<Locator> {
    const tree = await this.showTraceView();
    const row = tree.locator(`.monaco-list-rows > .monaco-list-row[aria-label*=${JSON.stringify(`, step ${index},`)}]`).first();
    await this.scrollTo(tree, row, true);
    return row;
  }

  /** The step numbers of the selected trace-tree rows, read from their accessible labels. */
  async selectedSteps(): Promise<number[]> {
    const labels = await this.traceTree().locator('.monaco-list-rows > .monaco-list-row.selected').evaluateAll((els) => els.map((el) => el.getAttribute('aria-label') ?? ''));
    return labels.map((l) => /, step (\d+),/.exec(l)).filter((m): m is RegExpExecArray => m !== null).map((m) => Number(m[1]));
  }

  /** Selects the steps `from` through `to` the way a person does: click the first, shift-click the last. */
  async selectStepRange(from: number, to: number): Promise<number[]> {
    await (await this.traceStepRow(from)).click();
    // A click on a step opens its document without taking focus; the tree keeps the selection.
    const last = await this.traceStepRow(to);
    await last.click({ modifiers: ['Shift'] });
    await this.page.waitForFunction(
      (n) => document.querySelectorAll('.monaco-list[aria-label^="Trajectories"] .monaco-list-rows > .monaco-list-row.selected').length >= n,
      Math.min(2, to - from + 1), { timeout: 5_000 });
    return this.selectedSteps();
  }

  /** Picks an item of the open quick pick by its label, typing `filter` first when given. */
  async pickQuickItem(label: string, filter?: string): Promise<void> {
    const input = this.page.locator('.quick-input-widget input');
    await input.waitFor({ timeout: 15_000 });
    if (filter !== undefined) await input.fill(filter);
    const row = this.page.locator('.quick-input-list .monaco-list-row').filter({ has: this.page.locator('.label-name', { hasText: new RegExp(`^\\s*${escapeRegExp(label)}\\s*$`) }) }).first();
    await row.waitFor({ timeout: 15_000 });
    await row.click();
  }

  /** A status-bar entry contributed by an extension, found by the name it gives itself. */
  statusBarEntry(id: string): Locator {
    // VS Code gives the entry's element the id `<extension id>.<entry id>`.
    return this.page.locator(`#workbench\\.parts\\.statusbar .statusbar-item[id$=${JSON.stringify('.' + id)}]`).first();
  }

  /** Hovers `target` and returns the text of the hover card it brings up. */
  async hoverText(target: Locator, whileShown?: () => Promise<void>, timeoutMs = 10_000): Promise<string> {
    const cards = this.page.locator('.workbench-hover, .monaco-hover:not(.hidden)').filter({ visible: true });
    await this.parkMouse();
    // The last target's hover can outlive the mouse leaving it: wait it out, so the card read is this target's.
    await this.page.keyboard.press('Escape');
    await cards.first().waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => undefined);
    const stale = (await cards.count()) > 0 ? await cards.first().innerText().catch(() => undefined) : undefined;
    await target.hover();
    const card = cards.first();
    await card.waitFor({ timeout: timeoutMs });
    let text = (await card.innerText()).replace(/\u00a0/g, ' ');
    for (const deadline = Date.now() + timeoutMs; stale !== undefined && text === stale.replace(/\u00a0/g, ' ') && Date.now() < deadline; ) {
      await this.page.waitForTimeout(200);
      text = ((await card.innerText().catch(() => '')) || text).replace(/\u00a0/g, ' ');
    }
    await whileShown?.();
    await this.parkMouse();
    await this.page.keyboard.press('Escape');
    return text;
  }

  /** Switches the colour theme through "Preferences: Color Theme", as a person would. */
  async setColorTheme(label: string, kind: 'light' | 'dark' | 'high-contrast'): Promise<void> {
    await this.runCommand('Preferences: Color Theme');
    await this.pickQuickItem(label, label);
    const workbenchClass = { light: 'vs', dark: 'vs-dark', 'high-contrast': 'hc-black' }[kind];
    await this.page.locator(`.monaco-workbench.${workbenchClass}`).waitFor({ timeout: 15_000 });
  }

  /** Expands a collapsed tree row (no-op when already open). */
  async expand(row: Locator): Promise<void> {
    await this.setExpanded(row, true);
  }

  /** Collapses an expanded tree row (no-op when already closed). */
  async collapse(row: Locator): Promise<void> {
    await this.setExpanded(row, false);
  }

  /**
   * Clicks the row's twistie until the row says it is open (or closed). The locator is read again
   * each time: counts arriving redraw the tree, which replaces the row's element (a handle to the
   * old one never changes), and a click during a redraw can be lost, so it is made again.
   */
  private async setExpanded(row: Locator, open: boolean): Promise<void> {
    const want = String(open);
    for (let click = 0; click < 3; click++) {
      const now = await row.getAttribute('aria-expanded');
      if (now === want || now === null) return;
      await row.locator('.monaco-tl-twistie').click();
      for (const deadline = Date.now() + 3_000; Date.now() < deadline; await this.page.waitForTimeout(100)) {
        if ((await row.getAttribute('aria-expanded')) === want) return;
      }
    }
    throw new Error(`the tree row did not ${open ? 'expand' : 'collapse'} after three clicks`);
  }

  /** The trace rows, notifications and active tab on screen: what a failure report prints. */
  async onScreen(): Promise<{ activeTab: string; notifications: string[]; traceRows: string[] }> {
    const rows = await this.visibleRows(this.traceTree()).catch(() => []);
    return {
      activeTab: (await this.activeTab().textContent({ timeout: 1_000 }).catch(() => null))?.trim() ?? '(none)',
      notifications: await this.notifications(),
      traceRows: rows.map((r) => `${r.index}:${'  '.repeat(Math.max(0, r.level - 1))}${r.label} · ${r.description}`),
    };
  }

  /** Texts of the notifications on screen, toasts or the notification centre. */
  async notifications(): Promise<string[]> {
    return this.page.locator('.notification-toast .notification-list-item-message, .notifications-center .notification-list-item-message').allInnerTexts();
  }

  async waitForNotification(match: RegExp, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = (await this.notifications()).find((t) => match.test(t));
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`no notification matching ${match}; on screen: ${JSON.stringify(await this.notifications())}`);
      await this.page.waitForTimeout(250);
    }
  }

  async clearNotifications(): Promise<void> {
    for (const close of await this.page.locator('.notification-toast .codicon-notifications-clear, .notification-toast .codicon-close').all()) {
      await close.click().catch(() => undefined);
    }
  }

  async closeAllEditors(): Promise<void> {
    await this.runCommand('View: Close All Editors');
    // An unsaved untitled editor (a prompt a scenario opened, say) asks whether to save: it need not.
    // On a busy machine the question comes late, so wait for it a while before assuming none.
    const dontSave = this.page.locator('.monaco-dialog-box .dialog-buttons a, .monaco-dialog-box .dialog-buttons button', { hasText: /Don.t Save/ }).first();
    const untitled = (await this.page.locator('.tabs-container .tab[aria-label*="Untitled-"]').count()) > 0;
    if (await dontSave.waitFor({ timeout: untitled ? 10_000 : 1_000 }).then(() => true, () => false)) {
      await dontSave.click();
      await this.page.locator('.monaco-dialog-box').waitFor({ state: 'hidden', timeout: 10_000 });
    }
  }
}

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
