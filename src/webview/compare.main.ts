// Entry of the compare panel's webview script (bundled to dist/webview/compare.main.js by the
// esbuild step that bundles every src/webview/*.main.ts). It says `ready` and waits for the host.

import type { CompareHostMessage } from '../core/compare/protocol';
import { CompareApp, type CompareHost, type CompareUiState } from './compare/app';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

function start(): void {
  const root = document.getElementById('app');
  if (!root || typeof (globalThis as { acquireVsCodeApi?: unknown }).acquireVsCodeApi !== 'function') return;
  const api = acquireVsCodeApi();
  const host: CompareHost = {
    post: (m) => api.postMessage(m),
    getState: () => api.getState() as CompareUiState | undefined,
    setState: (s) => api.setState(s),
    onMessage(listener) {
      window.addEventListener('message', (e: MessageEvent) => {
        const data = e.data as CompareHostMessage | undefined;
        if (data && typeof data === 'object' && typeof data.type === 'string') listener(data);
      });
    },
  };
  const app = new CompareApp(root, host);
  app.render();
  host.post({ type: 'ready' });
}

start();
