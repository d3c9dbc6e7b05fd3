// Entry of the report's webview script (bundled to dist/webview/report.js). In the panel it says
// `ready` and waits for the host's data; in the standalone HTML file it reads the embedded JSON.

import type { ReportViewModel } from '../core/report/viewModel';
import { REPORT_DATA_ID } from '../core/report/protocol';
import { ReportApp } from './report/app';
import { fileHost, hasVsCodeApi, webviewHost } from './report/host';

function start(): void {
  const root = document.getElementById('app');
  if (!root) return;
  const embedded = document.getElementById(REPORT_DATA_ID);
  if (embedded || !hasVsCodeApi()) {
    followColorScheme();
    const app = new ReportApp(root, fileHost());
    if (!embedded?.textContent) {
      app.render();
      return;
    }
    app.show(JSON.parse(embedded.textContent) as ReportViewModel);
    return;
  }
  const host = webviewHost();
  const app = new ReportApp(root, host);
  app.render();
  host.post({ type: 'ready' });
}

/** Outside VS Code there is no theme class on <body>: take it from the system's colour scheme. */
function followColorScheme(): void {
  const body = document.body;
  if (body.classList.contains('vscode-light') || body.classList.contains('vscode-dark') || body.classList.contains('vscode-high-contrast')) return;
  const dark = window.matchMedia?.('(prefers-color-scheme: dark)');
  const apply = () => {
    body.classList.toggle('vscode-dark', Boolean(dark?.matches));
    body.classList.toggle('vscode-light', !dark?.matches);
  };
  apply();
  dark?.addEventListener?.('change', apply);
}

start();
