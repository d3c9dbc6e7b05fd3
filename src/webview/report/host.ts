// Where the report runs: inside a VS Code webview (messages to the extension, state kept by
// VS Code across hide/restore) or as a standalone HTML file (no host; state in sessionStorage).

import { DEFAULT_UI_STATE, REPORT_TABS, type HostMessage, type ReportUiState, type WebviewMessage } from '../../core/report/protocol';

export interface ReportHost {
  readonly standalone: boolean;
  post(message: WebviewMessage): void;
  getState(): ReportUiState | undefined;
  setState(state: ReportUiState): void;
  onMessage(listener: (message: HostMessage) => void): void;
}

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

export function webviewHost(): ReportHost {
  // acquireVsCodeApi may be called only once per webview; the API object stays private here.
  const api = acquireVsCodeApi();
  return {
    standalone: false,
    post: (m) => api.postMessage(m),
    getState: () => api.getState() as ReportUiState | undefined,
    setState: (s) => api.setState(s),
    onMessage(listener) {
      window.addEventListener('message', (e: MessageEvent) => {
        const data = e.data as HostMessage | undefined;
        if (data && typeof data === 'object' && typeof data.type === 'string') listener(data);
      });
    },
  };
}

const STATE_KEY = 'agent-trace-lens-report-state';

export function fileHost(): ReportHost {
  return {
    standalone: true,
    post: () => undefined,
    getState() {
      let state: ReportUiState | undefined;
      try {
        const raw = sessionStorage.getItem(STATE_KEY);
        state = raw ? (JSON.parse(raw) as ReportUiState) : undefined;
      } catch {
        state = undefined; // storage can be disabled for file:// pages
      }
      // `report.html#tab=survival` opens a section directly (links, screenshots).
      const tab = /(?:^#|&)tab=(\w+)/.exec(location.hash)?.[1];
      const known = REPORT_TABS.find((t) => t.id === tab);
      return known ? { ...DEFAULT_UI_STATE, scroll: {}, ...state, tab: known.id } : state;
    },
    setState(s) {
      try { sessionStorage.setItem(STATE_KEY, JSON.stringify(s)); } catch { /* not persisted */ }
    },
    onMessage: () => undefined,
  };
}

export function hasVsCodeApi(): boolean {
  return typeof (globalThis as { acquireVsCodeApi?: unknown }).acquireVsCodeApi === 'function';
}
