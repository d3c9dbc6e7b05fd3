// Entry of the Survey panel's webview script (bundled to dist/webview/survey.main.js): says `ready`,
// then shows the rows the host sends as the survey goes.

import type { SurveyHostMessage } from '../core/survey/protocol';
import { SurveyApp, type SurveyUiState } from './survey/app';
import { panelApi } from './shared/vscodeApi';

function start(): void {
  const root = document.getElementById('app');
  if (!root) return;
  const api = panelApi<SurveyUiState>();
  const app = new SurveyApp(root, {
    post: (m) => api.post(m),
    getState: () => api.getState(),
    setState: (s) => api.setState(s),
  });
  api.onMessage<SurveyHostMessage>((message) => app.receive(message));
  api.post({ type: 'ready' });
}

start();
