import * as vscode from 'vscode';
import { webviewPage } from './pageShell';

// One host for our three webview panels (report, compare, survey): each is a descriptor here, not
// a copy of the set-up. Panels open in the column one of them last stood in, so ten reports in a
// row share one column instead of squeezing the window into narrow ones, and each panel's host
// state rides in the webview's own state so a serializer can bring the panel back after a reload.

export interface PanelDescriptor {
  viewType: string;
  /** The page's <title>. */
  pageTitle: string;
  /** The bundle in dist/webview. */
  script: string;
  /** Stylesheets in media/. */
  styles: readonly string[];
  /** Where a new panel of this kind opens: beside the editor (in our shared column) or in place of it. */
  placement: 'beside' | 'active';
}

export const REPORT_PANEL: PanelDescriptor = { viewType: 'agentTraceLens.report', pageTitle: 'Compaction report', script: 'report.main.js', styles: ['report.css'], placement: 'beside' };
export const COMPARE_PANEL: PanelDescriptor = { viewType: 'agentTraceLens.compare', pageTitle: 'Compare two runs', script: 'compare.main.js', styles: ['report.css', 'compare.css'], placement: 'beside' };
export const SURVEY_PANEL: PanelDescriptor = { viewType: 'agentTraceLens.survey', pageTitle: 'Survey of runs', script: 'survey.main.js', styles: ['survey.css'], placement: 'active' };

/** The column our "beside" panels share: the one such a panel last stood in while it was alive. */
let sharedColumn: vscode.ViewColumn | undefined;
const besidePanels = new Set<vscode.WebviewPanel>();

/** Opens a new panel of kind `d`, showing `tabTitle`, with `hostState` kept for a later restore. */
export function openPanel(context: vscode.ExtensionContext, d: PanelDescriptor, tabTitle: string, hostState: unknown, preserveFocus = true): vscode.WebviewPanel {
  const column = d.placement === 'active' ? vscode.ViewColumn.Active : besidePanels.size > 0 && sharedColumn !== undefined ? sharedColumn : vscode.ViewColumn.Beside;
  const panel = vscode.window.createWebviewPanel(d.viewType, tabTitle, { viewColumn: column, preserveFocus }, webviewOptions(context));
  adoptPanel(context, d, panel, hostState);
  return panel;
}

/** Sets up `panel` (new, or handed back by a serializer after a reload) as a panel of kind `d`. */
export function adoptPanel(context: vscode.ExtensionContext, d: PanelDescriptor, panel: vscode.WebviewPanel, hostState: unknown): void {
  const roots = webviewOptions(context);
  panel.webview.options = roots;
  panel.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'icon.svg');
  panel.webview.html = webviewPage(panel.webview, {
    title: d.pageTitle,
    script: vscode.Uri.joinPath(context.extensionUri, 'dist', 'webview', d.script),
    styles: d.styles.map((file) => vscode.Uri.joinPath(context.extensionUri, 'media', file)),
    hostState,
  });
  if (d.placement !== 'beside') return;
  besidePanels.add(panel);
  sharedColumn = panel.viewColumn ?? sharedColumn;
  const moved = panel.onDidChangeViewState((e) => {
    if (e.webviewPanel.viewColumn !== undefined) sharedColumn = e.webviewPanel.viewColumn;
  });
  panel.onDidDispose(() => {
    moved.dispose();
    besidePanels.delete(panel);
  });
}

/** Shows an existing panel again, in the column it stands in. */
export function revealPanel(panel: vscode.WebviewPanel, preserveFocus = true): void {
  panel.reveal(panel.viewColumn, preserveFocus);
}

function webviewOptions(context: vscode.ExtensionContext): vscode.WebviewPanelOptions & vscode.WebviewOptions {
  return {
    enableScripts: true,
    localResourceRoots: [vscode.Uri.joinPath(context.extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(context.extensionUri, 'media')],
    retainContextWhenHidden: false,
  };
}

/** The host state a panel kept (see src/webview/shared/vscodeApi.ts), as the serializer receives it. */
export function keptState(state: unknown, key = 'atlHost'): unknown {
  return state && typeof state === 'object' ? (state as Record<string, unknown>)[key] : undefined;
}
