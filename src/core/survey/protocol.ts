// Messages between the Survey panel's host (src/extension/survey/SurveyPanel.ts) and its webview
// (src/webview/survey/). Plain data; the webview puts every string in as text.

import type { SkippedEntry, SurveyRow, SurveyTotal } from './types';

/** The columns of a row the table shows, cut down from `SurveyRow` so thousands of rows post cheaply. */
export interface SurveyTableRow {
  file: string;
  run: number;
  runsInFile: number;
  name: string;
  format: string;
  task: string;
  model: string;
  steps: number;
  tokens: number;
  approximateTokens: boolean;
  requests: number;
  costModelled: number | null;
  cache: string;
  costRecorded: number | null;
  /** The run's one cost (as the tooltip, status bar and report show it) and its label or, when unknown, why. */
  cost: number | null;
  costLabel: string;
  outcome: string;
  /** The outcome's parts, for the filter (reward:1, resolved:true, is:error); absent where the log records none. */
  resolved?: boolean;
  reward?: number;
  score?: number;
  failed?: boolean;
}

export type SurveyHostMessage =
  | { type: 'start'; root: string; files: number; resumed: number }
  | { type: 'rows'; rows: SurveyTableRow[]; skipped: SkippedEntry[]; done: number; of: number }
  | { type: 'done'; total: SurveyTotal; cancelled: boolean }
  | { type: 'error'; message: string };

export type SurveyWebviewMessage =
  | { type: 'ready' }
  | { type: 'open'; file: string; run: number };

export function isSurveyWebviewMessage(m: unknown): m is SurveyWebviewMessage {
  if (!m || typeof m !== 'object') return false;
  const t = (m as { type?: unknown }).type;
  if (t === 'ready') return true;
  return t === 'open' && typeof (m as { file?: unknown }).file === 'string' && Number.isInteger((m as { run?: unknown }).run);
}

export function tableRow(r: SurveyRow): SurveyTableRow {
  const o = r.outcome;
  const outcome = [
    o.resolved === undefined ? '' : o.resolved ? 'resolved' : 'not resolved',
    o.reward !== undefined ? `reward ${o.reward}` : '',
    o.score !== undefined ? `score ${o.score}` : '',
    o.exitStatus ?? '',
    o.error ? 'failed' : '',
  ].filter(Boolean).join(' · ');
  return {
    file: r.file, run: r.run, runsInFile: r.runsInFile, name: r.name, format: r.format, task: r.task ?? '', model: r.model ?? '',
    steps: r.steps, tokens: r.tokens, approximateTokens: r.approximateTokens, requests: r.requests,
    costModelled: r.costModelled, cache: r.cache, costRecorded: r.costRecorded,
    // Rows from an older survey (resume) have no bill: their recorded cost, else the modelled one.
    cost: r.cost !== undefined ? r.cost : r.costRecorded ?? r.costModelled,
    costLabel: r.cost === null ? r.costReason ?? 'unknown' : r.costLabel ?? (r.costRecorded !== null ? 'recorded' : 'modelled'),
    outcome,
    ...(o.resolved !== undefined ? { resolved: o.resolved } : {}),
    ...(o.reward !== undefined ? { reward: o.reward } : {}),
    ...(o.score !== undefined ? { score: o.score } : {}),
    ...(o.error ? { failed: true } : {}),
  };
}
