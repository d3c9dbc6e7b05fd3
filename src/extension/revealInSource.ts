import * as vscode from 'vscode';
import { offsetOfPointer } from '../core/io/jsonScan';
import type { Step } from '../core/model';

/** Opens the trajectory file with the cursor on the record a step came from. */
export async function revealStepInSource(uri: vscode.Uri, step: Step): Promise<void> {
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
