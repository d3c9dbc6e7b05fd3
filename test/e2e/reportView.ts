// The compaction report as the person sees it: a webview panel, two iframes deep inside the
// workbench (VS Code's host iframe, then `#active-frame` holding the extension's page).
import type { Frame, FrameLocator, Locator, Page } from 'playwright-core';

export const REPORT_TAB_PREFIX = 'Compaction: ';

export class ReportView {
  constructor(readonly page: Page) {}

  /** The editor tab of the report panel for a trajectory title. */
  tab(title: string): Locator {
    return this.page.locator('.tabs-container .tab', { hasText: REPORT_TAB_PREFIX + title }).first();
  }

  /** The visible webview's page. Hidden webviews keep their iframes, so pick the one on screen. */
  frame(): FrameLocator {
    return this.page.locator('iframe.webview.ready').filter({ visible: true }).first().contentFrame().frameLocator('#active-frame');
  }

  /** Waits until the panel shows a report (the host sends it once the page says it is ready). */
  async waitForReport(timeoutMs = 30_000): Promise<void> {
    await this.frame().locator('#headline-tokens .card-value').waitFor({ timeout: timeoutMs });
  }

  /** The big number of a headline card, e.g. "14,015 → 11,025". */
  async headline(card: 'tokens' | 'reduction' | 'cost' | 'mode'): Promise<string> {
    return (await this.frame().locator(`#headline-${card} .card-value`).innerText()).trim();
  }

  async headlineDetail(card: 'tokens' | 'reduction' | 'cost' | 'mode'): Promise<string> {
    return (await this.frame().locator(`#headline-${card} .card-detail`).innerText()).trim();
  }

  async click(id: string): Promise<void> {
    await this.frame().locator(`#${id}`).click();
  }

  async openTab(tab: 'overview' | 'range' | 'steps' | 'survival' | 'replay'): Promise<void> {
    await this.click(`tab-${tab}`);
    await this.frame().locator(`#tab-${tab}[aria-selected="true"]`).waitFor({ timeout: 10_000 });
    await this.frame().locator(`#panel-${tab}`).waitFor({ timeout: 10_000 });
  }

  /** The page's frame itself, to run checks inside it (its globals, its DOM). */
  async pageFrame(): Promise<Frame> {
    const body = await this.frame().locator('body').elementHandle({ timeout: 10_000 });
    const frame = await body.ownerFrame();
    await body.dispose();
    if (!frame) throw new Error('the report page has no frame');
    return frame;
  }

  /** The body's theme class VS Code sets on every webview: vscode-dark, vscode-light, vscode-high-contrast. */
  async themeKind(): Promise<string> {
    const frame = await this.pageFrame();
    return frame.evaluate(() => Array.from(document.body.classList).find((c) => c.startsWith('vscode-')) ?? '');
  }

  /** The theme class once it is `kind`, or whatever it still is after 10 s: VS Code re-themes an open webview late. */
  async themeKindBecoming(kind: string): Promise<string> {
    for (let i = 0; i < 50 && (await this.themeKind()) !== kind; i++) await this.page.waitForTimeout(200);
    return this.themeKind();
  }
}
