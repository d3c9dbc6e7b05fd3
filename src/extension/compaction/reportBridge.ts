import * as vscode from 'vscode';
import { findStrategy, type CompactionResult } from '../../core/compaction';
import { saveCondensed } from '../../core/compaction/saveCondensed';
import { memoizedCounter, tiktokenCounter } from '../../core/tokens/tiktokenCounter';
import { tokenizerFor } from '../../core/tokens/models';
import { ReportPanel } from '../report/ReportPanel';
import { revealStepInSource } from '../revealInSource';
import { optionsFromSettings } from './chooseRun';
import type { CompactionController, CompactionRun } from './compactionController';

/** Shows finished runs in the report panel and routes its buttons back to the controller. */
export function showRunsInReport(context: vscode.ExtensionContext, controller: () => CompactionController) {
  return (runs: CompactionRun[]): void => {
    const latest = runs[runs.length - 1];
    const { doc, runIndex, trajectory } = latest;
    const tokenizer = tokenizerFor(latest.result.llm?.model ?? (typeof trajectory.meta.model === 'string' ? trajectory.meta.model : undefined));
    ReportPanel.show(context, runs.map((r) => r.result), {
      trajectory,
      loaded: doc.trajectory,
      key: `${doc.key}#${runIndex}`,
      model: latest.result.llm?.model,
      priceOverrides: vscode.workspace.getConfiguration('agentTraceLens').get('prices', {}),
      counter: memoizedCounter(tiktokenCounter(tokenizer.encoding, tokenizer.approximate)),
      onRerun: async (request) => {
        const strategy = findStrategy(request.strategy);
        if (!strategy) {
          void vscode.window.showErrorMessage(`Unknown strategy ${request.strategy}.`);
          return;
        }
        const options = { ...optionsFromSettings(strategy), ...request.options };
        await controller().run(doc, runIndex, strategy, request.range ?? undefined, options, request.compare ? runs : []);
      },
      onSave: (result) => saveWithDialog(doc.trajectory, trajectory, result),
      onRevealStep: (step) => {
        const target = trajectory.steps[step];
        if (target) void revealStepInSource(doc.uri, target);
      },
    });
  };
}

/** A save dialog next to the original, refusing the original itself; never writes over it. */
export async function saveWithDialog(loaded: CompactionRun['doc']['trajectory'], trajectory: CompactionRun['trajectory'], result: CompactionResult): Promise<void> {
  const source = vscode.Uri.file(loaded.source.path);
  const base = source.path.replace(/\.(jsonl?|traj|json)$/i, '');
  const suggested = vscode.Uri.file(`${base}.compacted-${result.strategy}.json`);
  const target = await vscode.window.showSaveDialog({ defaultUri: suggested, title: 'Save the condensed trajectory (a new file; the original is never changed)', filters: { JSON: ['json'] } });
  if (!target) return;
  try {
    const written = await saveCondensed(target.fsPath, loaded, trajectory, result);
    const open = 'Open';
    if ((await vscode.window.showInformationMessage(`Saved the condensed trajectory to ${vscode.workspace.asRelativePath(written)}.`, open)) === open) {
      await vscode.window.showTextDocument(vscode.Uri.file(written));
    }
  } catch (e) {
    void vscode.window.showErrorMessage(`Not saved: ${(e as Error).message}`);
  }
}
