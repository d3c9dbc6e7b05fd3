import * as vscode from 'vscode';
import { matchRanges, type FindQuery } from '../../core/find';
import { STEP_SCHEME } from '../stepDocuments';

/**
 * Marks the filter's matches in open step documents, the way the editor's own find does (its
 * match colours, and a mark in the overview ruler), for as long as the filter is set.
 */
export class MatchHighlighter implements vscode.Disposable {
  private readonly decoration = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor('editor.findMatchHighlightBackground'),
    borderColor: new vscode.ThemeColor('editor.findMatchBorder'),
    borderStyle: 'solid',
    borderWidth: '1px',
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.findMatchForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Center,
  });
  private readonly subscription: vscode.Disposable;

  constructor(private readonly query: () => FindQuery | undefined) {
    this.subscription = vscode.window.onDidChangeVisibleTextEditors(() => this.update());
  }

  /** Repaints every visible step document; returns how many ranges were marked. */
  update(): number {
    let marked = 0;
    const q = this.query();
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document.uri.scheme !== STEP_SCHEME) continue;
      const text = editor.document.getText();
      const ranges = q ? matchRanges(text, q, 5000) : [];
      editor.setDecorations(this.decoration, ranges.map(([a, b]) => new vscode.Range(editor.document.positionAt(a), editor.document.positionAt(b))));
      marked += ranges.length;
      // The first match in view, unless the reader has scrolled away from the top already.
      if (ranges.length > 0 && editor.visibleRanges[0]?.start.line === 0) {
        editor.revealRange(new vscode.Range(editor.document.positionAt(ranges[0][0]), editor.document.positionAt(ranges[0][1])), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      }
    }
    return marked;
  }

  dispose(): void {
    this.subscription.dispose();
    this.decoration.dispose();
  }
}
