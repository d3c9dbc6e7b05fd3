import * as vscode from 'vscode';
import { findStrategy } from '../../core/compaction';
import { memoizedCounter, tiktokenCounter } from '../../core/tokens/tiktokenCounter';
import { tokenizerFor } from '../../core/tokens/models';
import { ReportPanel } from '../report/ReportPanel';
import { revealStepInSource } from '../revealInSource';
import { optionsFromSettings } from './chooseRun';
import { readLlmSettings } from './llmSettings';
import type { CompactionController, CompactionRun } from './compactionController';

/** Shows finished runs in the report panel and routes its buttons back to the controller. */
export function showRunsInReport(context: vscode.ExtensionContext, controller: () => CompactionController) {
  return (runs: CompactionRun[]): void => {
    const latest = runs[runs.length - 1];
    const { doc, runIndex, trajectory } = latest;
    // The replay's budget policies must count like the run did: the controller's model choice, not only the log's.
    const tokenizer = tokenizerFor(latest.result.llm?.model ?? readLlmSettings().model ?? (typeof trajectory.meta.model === 'string' ? trajectory.meta.model : undefined));
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
      onRevealStep: (step) => {
        const target = trajectory.steps[step];
        if (target) void revealStepInSource(doc.uri, target);
      },
    });
  };
}
