import * as vscode from 'vscode';

// Read-only virtual documents holding the textual before/after of a compaction, so that VS Code's
// own diff editor can show them (`vscode.diff`). Content lives in memory for the session.

export const REPORT_SCHEME = 'agent-trace-lens-report';

export class ReportDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  /** Stores `text` under `name` (e.g. `3/before.md`) and returns its URI. */
  put(name: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: REPORT_SCHEME, path: `/${name}` });
    this.texts.set(uri.path, text);
    this.changed.fire(uri);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.path) ?? 'This before/after text is no longer available; open the diff again from the report.';
  }

  /** Forgets the texts of one panel. */
  dropPrefix(prefix: string): void {
    for (const key of [...this.texts.keys()]) if (key.startsWith(`/${prefix}/`)) this.texts.delete(key);
  }

  dispose(): void {
    this.changed.dispose();
    this.texts.clear();
  }
}
