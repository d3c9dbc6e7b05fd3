import * as path from 'node:path';
import * as vscode from 'vscode';
import { outcomeOf } from '../../core/compare';
import { dialogExtensions } from '../../core/formats/fileNames';

import { openTrajectory, type OpenDeps } from '../openCommands';
import type { OpenTrajectory, TrajectoryStore } from '../trajectoryStore';
import type { TreeNode } from '../tree/nodes';
import type { TokenTracker } from '../tokens/tokenTracker';
import { keptState, COMPARE_PANEL } from '../webview/panelHost';
import { ComparePanel, type CompareHostState, type CompareSide } from './ComparePanel';
import { plural } from '../../core/view/plural';

// "Compare with…": on a trajectory or run in the tree, pick the other run from the open
// trajectories or a file dialog; on two selected runs (or trajectories), compare them at once.

export interface CompareDeps {
  store: TrajectoryStore;
  tokens: TokenTracker;
  view: vscode.TreeView<TreeNode>;
  open: OpenDeps;
}

export function registerCompareCommands(context: vscode.ExtensionContext, deps: CompareDeps): vscode.Disposable[] {
  return [
    vscode.window.registerWebviewPanelSerializer(COMPARE_PANEL.viewType, {
      async deserializeWebviewPanel(panel, state) {
        const kept = keptState(state) as Partial<CompareHostState> | undefined;
        const a = kept?.a && (await reopen(deps, kept.a));
        const b = kept?.b && (await reopen(deps, kept.b));
        if (!a || !b) return panel.dispose();
        ComparePanel.restore(context, deps.tokens, panel, a, b);
      },
    }),
    vscode.commands.registerCommand('agentTraceLens.compareWith', async (node?: TreeNode, selected?: TreeNode[]) => {
      const nodes = (selected && selected.length > 0 ? selected : node ? [node] : [...deps.view.selection]).filter((n) => n.type === 'trajectory' || n.type === 'run');
      const picked: CompareSide[] = [];
      for (const n of nodes) {
        const side = n.type === 'run' ? { doc: n.doc, runIndex: n.runIndex } : await chooseRunOf(n.doc, 'Compare which run of this file?');
        if (!side) return;
        if (!picked.some((p) => p.doc.key === side.doc.key && p.runIndex === side.runIndex)) picked.push(side);
        if (picked.length === 2) break;
      }
      const first = picked[0] ?? (await chooseOther(deps, undefined, 'Compare: choose run A'));
      if (!first) return;
      const second = picked[1] ?? (await chooseOther(deps, first, `Compare ${describe(first)} with…`));
      if (!second) return;
      ComparePanel.show(context, deps.tokens, first, second);
    }),
  ];
}

/** One side of a compare panel restored after a reload: its file opened again (quietly), the same run. */
async function reopen(deps: CompareDeps, side: { path?: unknown; run?: unknown }): Promise<CompareSide | undefined> {
  if (typeof side.path !== 'string' || typeof side.run !== 'number') return undefined;
  const doc = deps.store.get(side.path) ?? (await openTrajectory(deps.open, vscode.Uri.file(side.path), true));
  return doc && side.run < doc.trajectory.runs.length ? { doc, runIndex: side.run } : undefined;
}

function describe(side: CompareSide): string {
  const run = side.doc.trajectory.runs[side.runIndex];
  return multi(side.doc) ? `${path.basename(side.doc.key)} #${side.runIndex}` : run.title.length > 40 ? run.title.slice(0, 39) + '…' : run.title;
}

function multi(doc: OpenTrajectory): boolean {
  return doc.trajectory.holdsRuns;
}

type SideItem = vscode.QuickPickItem & { side?: CompareSide; browse?: true };

function runItem(doc: OpenTrajectory, runIndex: number): SideItem {
  const run = doc.trajectory.runs[runIndex];
  const outcome = outcomeOf(run.meta).text;
  return {
    label: run.title,
    description: `${path.basename(doc.key)}${multi(doc) ? ` #${runIndex}` : ''} · ${run.format}`,
    detail: `${plural(run.steps.length, 'step')}${outcome === 'not recorded' ? '' : ` · ${outcome}`}`,
    side: { doc, runIndex },
  };
}

/** A run of a file: the only one, or the one the person picks. */
async function chooseRunOf(doc: OpenTrajectory, title: string): Promise<CompareSide | undefined> {
  const runs = doc.trajectory.runs;
  if (runs.length === 1) return { doc, runIndex: 0 };
  const picked = await vscode.window.showQuickPick(runs.map((_, i) => runItem(doc, i)), { title, matchOnDescription: true, matchOnDetail: true });
  return picked?.side;
}

/** The other run: any run of an open trajectory but `except`, or a file from a dialog. */
async function chooseOther(deps: CompareDeps, except: CompareSide | undefined, title: string): Promise<CompareSide | undefined> {
  const items: SideItem[] = [];
  for (const doc of deps.store.all()) {
    doc.trajectory.runs.forEach((_, i) => {
      if (except && doc.key === except.doc.key && i === except.runIndex) return;
      items.push(runItem(doc, i));
    });
  }
  items.push({ label: '$(folder-opened) Open a trajectory file…', description: 'choose a file from disk', browse: true, alwaysShow: true });
  const picked = await vscode.window.showQuickPick(items, { title, placeHolder: 'A run of an open trajectory, or a file', matchOnDescription: true, matchOnDetail: true });
  if (!picked) return undefined;
  if (picked.side) return picked.side;
  const uris = await vscode.window.showOpenDialog({
    canSelectMany: false,
    openLabel: 'Compare',
    title,
    filters: { 'Trajectories': dialogExtensions(), 'All files': ['*'] },
  });
  if (!uris?.[0]) return undefined;
  const doc = await openTrajectory(deps.open, uris[0]);
  return doc ? chooseRunOf(doc, 'Compare with which run of this file?') : undefined;
}
