import * as vscode from 'vscode';
import type { Step } from '../core/model';
import { stepDocument, stepLabel } from '../core/view/stepPresentation';
import type { TrajectoryStore } from './trajectoryStore';

export const STEP_SCHEME = 'agent-trace-lens-step';

/**
 * Serves a step's full content as a read-only virtual document. The URI's path gives the tab a
 * readable name and, through its extension, the language (json, diff, markdown, plain text).
 */
export class StepDocumentProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly store: TrajectoryStore) {}

  static uriFor(key: string, runIndex: number, step: Step): vscode.Uri {
    const { extension } = stepDocument(step);
    const name = `step ${step.index} — ${stepLabel(step).replace(/[/\\?#]/g, '_')}.${extension}`;
    const query = new URLSearchParams({ file: key, run: String(runIndex), step: String(step.index) }).toString();
    return vscode.Uri.from({ scheme: STEP_SCHEME, path: '/' + name, query });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const params = new URLSearchParams(uri.query);
    const key = params.get('file') ?? '';
    const step = this.store.step(key, Number(params.get('run')), Number(params.get('step')));
    if (!step) return `This step is no longer available: ${key} was closed or reloaded. Open the trajectory again.`;
    return stepDocument(step).content;
  }
}
