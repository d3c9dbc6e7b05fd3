import * as vscode from 'vscode';
import { EditorFollower } from './followEditor';
import { openTrajectory, pickAndOpen, type OpenDeps } from './openCommands';
import { revealStepInSource } from './revealInSource';
import { StepDocumentProvider, STEP_SCHEME } from './stepDocuments';
import { TrajectoryStore, type OpenTrajectory } from './trajectoryStore';
import type { StepNode, TreeNode } from './tree/nodes';
import { TrajectoryTreeProvider } from './tree/trajectoryTreeProvider';

/** What the extension returns from `activate`, for tests that run inside VS Code. */
export interface AgentTraceLensApi {
  store: TrajectoryStore;
  tree: TrajectoryTreeProvider;
}

export function activate(context: vscode.ExtensionContext): AgentTraceLensApi {
  const log = vscode.window.createOutputChannel('Agent Trace Lens', { log: true });
  const store = new TrajectoryStore();
  const tree = new TrajectoryTreeProvider(store);
  const view = vscode.window.createTreeView('agentTraceLens.trajectories', { treeDataProvider: tree, showCollapseAll: true, canSelectMany: true });

  const reveal = async (entry: OpenTrajectory): Promise<void> => {
    const root = tree.rootFor(entry.key);
    if (root) await view.reveal(root, { select: true, focus: false, expand: true }).then(undefined, () => undefined);
  };
  const deps: OpenDeps = { store, log, reveal };
  const follower = new EditorFollower(deps);

  context.subscriptions.push(
    log, store, tree, view, follower,
    vscode.workspace.registerTextDocumentContentProvider(STEP_SCHEME, new StepDocumentProvider(store)),
    vscode.commands.registerCommand('agentTraceLens.open', async (uri?: vscode.Uri) => {
      if (uri instanceof vscode.Uri) await openTrajectory(deps, uri);
      else await pickAndOpen(deps);
    }),
    vscode.commands.registerCommand('agentTraceLens.openFromExplorer', async (uri?: vscode.Uri) => {
      const target = uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri;
      if (target) await openTrajectory(deps, target);
      else await pickAndOpen(deps);
    }),
    vscode.commands.registerCommand('agentTraceLens.openStep', async (node?: StepNode) => {
      const target = node ?? selectedStep(view);
      if (!target) return;
      const uri = StepDocumentProvider.uriFor(target.doc.key, target.runIndex, target.step);
      const document = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(document, { preview: true, preserveFocus: true });
    }),
    vscode.commands.registerCommand('agentTraceLens.revealInSource', async (node?: StepNode) => {
      const target = node ?? selectedStep(view);
      if (!target) return;
      follower.suppressBriefly();
      await revealStepInSource(target.doc.uri, target.step);
    }),
    vscode.commands.registerCommand('agentTraceLens.closeTrajectory', (node?: TreeNode) => {
      if (node) store.close(node.doc.key);
    }),
    vscode.commands.registerCommand('agentTraceLens.reload', async (node?: TreeNode) => {
      if (node) await openTrajectory(deps, node.doc.uri);
    }),
  );
  log.info('Agent Trace Lens activated');
  return { store, tree };
}

function selectedStep(view: vscode.TreeView<TreeNode>): StepNode | undefined {
  const node = view.selection.find((n) => n.type === 'step');
  return node?.type === 'step' ? node : undefined;
}

export function deactivate(): void {}
