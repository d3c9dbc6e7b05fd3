// Entry of the Survey panel's webview script (bundled to dist/webview/survey.main.js): says `ready`,
// then shows the rows the host sends as the survey goes.

import type { SurveyHostMessage } from '../core/survey/protocol';
import { SurveyApp, type SurveyUiState } from './survey/app';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

function start(): void {
  const root = document.getElementById('app');
  if (!root) return;
  const api = acquireVsCodeApi();
  const app = new SurveyApp(root, {
    post: (m) => api.postMessage(m),
    getState: () => api.getState() as SurveyUiState | undefined,
    setState: (s) => api.setState(s),
  });
  window.addEventListener('message', (e: MessageEvent) => {
    const data = e.data as SurveyHostMessage | undefined;
    if (data && typeof data === 'object' && typeof data.type === 'string') app.receive(data);
  });
  api.postMessage({ type: 'ready' });
}

start();
