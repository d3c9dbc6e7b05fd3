import * as path from 'node:path';
import * as vscode from 'vscode';
import { AtifExportError } from '../core/formats/atifExport';
import { AtifWriteRefused, writeAtifFile } from '../core/formats/atifFile';
import { refusalText } from '../core/output/safeWrite';
import type { Run, TrajectoryFile } from '../core/model';

import type { OpenTrajectory, TrajectoryStore } from './trajectoryStore';
import type { TreeNode } from './tree/nodes';
import { setting } from './settings';
import { plural } from '../core/view/plural';

// "Export as ATIF…": the trajectory (or one run of a file of many) written as ATIF to a new file
// the person picks, beside the original by default and never over it.

export async function exportAtif(store: TrajectoryStore, log: vscode.LogOutputChannel, node?: TreeNode, selection: readonly TreeNode[] = []): Promise<void> {
  const target = node ?? selection[0];
  const doc = target?.doc ?? (await pickOpenTrajectory(store));
  if (!doc) return;
  const many = doc.trajectory.holdsRuns;
  let chosen: Run[];
  // A run's node (or a node inside a run) exports that run; the file's node exports all of them.
  if (many && target && target.type !== 'trajectory' && 'runIndex' in target) chosen = [doc.trajectory.runs[target.runIndex]];
  else if (many && !target && doc.trajectory.runs.length > 1) {
    const picked = await pickRuns(doc.trajectory);
    if (!picked) return;
    chosen = picked;
  } else chosen = doc.trajectory.runs;
  const source = doc.trajectory.source.path;
  const base = path.basename(source).replace(/\.(jsonl?|traj(\.json)?|md|eval)$/i, '');
  const suffix = chosen.length === 1 && doc.trajectory.holdsRuns ? `.run${doc.trajectory.runs.indexOf(chosen[0])}` : '';
  const extension = chosen.length > 1 ? 'atif.jsonl' : 'atif.json';
  const dir = doc.uri.scheme === 'file' && !(await isFolder(doc.uri)) ? path.dirname(source) : source;
  const uri = await vscode.window.showSaveDialog({
    defaultUri: vscode.Uri.file(path.join(dir, `${base}${suffix}.${extension}`)),
    filters: chosen.length > 1 ? { 'ATIF documents, one per line': ['jsonl'] } : { 'ATIF trajectory': ['json'] },
    title: chosen.length > 1 ? `Export ${chosen.length} runs as ATIF (one document per line)` : 'Export as ATIF',
  });
  if (!uri) return;
  try {
    // The save dialog asked before replacing an existing file; the trajectory itself is always refused.
    const redact = setting('redactOutputs');
    const redacted = redact ? { count: 0, kinds: {} } : undefined;
    const written = await writeAtifFile(uri.fsPath, doc.trajectory, chosen, { overwrite: true, redacted });
    const removed = redacted?.count ? ` ${redacted.count} secret value${redacted.count === 1 ? '' : 's'} redacted.` : '';
    log.info(`Exported ${source} as ATIF to ${written.path} (${written.documents} document(s))${removed}`);
    const open = await vscode.window.showInformationMessage(`Exported as ATIF to ${vscode.workspace.asRelativePath(written.path)}.${removed}`, 'Open');
    if (open) await vscode.window.showTextDocument(vscode.Uri.file(written.path));
  } catch (e) {
    if (e instanceof AtifWriteRefused) {
      log.warn(`ATIF export of ${source} refused: ${e.message}`);
      void vscode.window.showErrorMessage(refusalText(e));
      return;
    }
    if (e instanceof AtifExportError) {
      void vscode.window.showErrorMessage(e.message);
      return;
    }
    log.error(`ATIF export of ${source} failed: ${(e as Error).stack ?? String(e)}`);
    void vscode.window.showErrorMessage(`Agent Trace Lens could not export ${path.basename(source)} as ATIF: ${(e as Error).message}`);
  }
}

async function pickOpenTrajectory(store: TrajectoryStore): Promise<OpenTrajectory | undefined> {
  const all = store.all();
  if (all.length <= 1) {
    if (all.length === 0) void vscode.window.showInformationMessage('Open a trajectory first: there is nothing to export.');
    return all[0];
  }
  const picked = await vscode.window.showQuickPick(all.map((doc) => ({ label: doc.trajectory.title, description: `${doc.trajectory.format} · ${vscode.workspace.asRelativePath(doc.uri)}`, doc })), { title: 'Export which trajectory as ATIF?' });
  return picked?.doc;
}

async function pickRuns(t: TrajectoryFile): Promise<Run[] | undefined> {
  const all = { label: `All ${t.runs.length} runs`, description: 'one ATIF document per line', runs: t.runs };
  const items = [all, ...t.runs.map((run, i) => ({ label: run.title, description: `run ${i} · ${plural(run.steps.length, 'step')}`, runs: [run] }))];
  const picked = await vscode.window.showQuickPick(items, { title: 'Export which run as ATIF?' });
  return picked?.runs;
}

async function isFolder(uri: vscode.Uri): Promise<boolean> {
  try {
    return (await vscode.workspace.fs.stat(uri)).type === vscode.FileType.Directory;
  } catch {
    return false;
  }
}
