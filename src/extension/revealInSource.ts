import * as vscode from 'vscode';
import { offsetOfPointer } from '../core/io/jsonScan';
import type { Step } from '../core/model';

/** Opens the trajectory file (or the subagent file the step was read from) with the cursor on the step's record. */
export async function revealStepInSource(runUri: vscode.Uri, step: Step): Promise<void> {
  const uri = step.location?.file ? vscode.Uri.file(step.location.file) : runUri;
  let document: vscode.TextDocument;
  try {
    document = await vscode.workspace.openTextDocument(uri);
  } catch (e) {
    void vscode.window.showErrorMessage(`Cannot show ${uri.fsPath} in an editor: ${(e as Error).message}`);
    return;
  }
  const position = locate(document, step);
  const editor = await vscode.window.showTextDocument(document, { preview: true, viewColumn: vscode.ViewColumn.Active });
  if (!position) {
    void vscode.window.showInformationMessage(`Step ${step.index} has no recorded position in ${vscode.workspace.asRelativePath(uri)}.`);
    return;
  }
  editor.selection = new vscode.Selection(position, position);
  editor.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

function locate(document: vscode.TextDocument, step: Step): vscode.Position | undefined {
  const loc = step.location;
  if (!loc) return undefined;
  if (loc.line !== undefined) {
    const line = Math.min(loc.line - 1, document.lineCount - 1);
    if (!loc.pointer) return new vscode.Position(line, 0);
    const offset = offsetOfPointer(document.lineAt(line).text, loc.pointer);
    return new vscode.Position(line, offset ?? 0);
  }
  if (loc.pointer !== undefined) {
    const offset = offsetOfPointer(document.getText(), loc.pointer);
    return offset === undefined ? undefined : document.positionAt(offset);
  }
  return undefined;
}
