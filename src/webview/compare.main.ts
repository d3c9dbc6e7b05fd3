// Entry of the compare panel's webview script (bundled to dist/webview/compare.main.js by the
// esbuild step that bundles every src/webview/*.main.ts). It says `ready` and waits for the host.

import type { CompareHostMessage } from '../core/compare/protocol';
import { CompareApp, type CompareHost, type CompareUiState } from './compare/app';
import { hasVsCodeApi, panelApi } from './shared/vscodeApi';

function start(): void {
  const root = document.getElementById('app');
  if (!root || !hasVsCodeApi()) return;
  const api = panelApi<CompareUiState>();
  const host: CompareHost = {
    post: (m) => api.post(m),
    getState: () => api.getState(),
    setState: (s) => api.setState(s),
    onMessage: (listener) => api.onMessage<CompareHostMessage>(listener),
  };
  const app = new CompareApp(root, host);
  app.render();
  host.post({ type: 'ready' });
}

start();
