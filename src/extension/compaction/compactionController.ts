import * as vscode from 'vscode';
import { CompactionCancelled, CompactionInputError, resolveOptions, type CompactionResult, type OptionValue, type OutgoingRequest, type StepRange, type Strategy } from '../../core/compaction';
import { decideConsent, type ConsentAnswer } from '../../core/llm/consent';
import type { Run } from '../../core/model';

import type { OpenTrajectory, TrajectoryStore } from '../trajectoryStore';
import { selectionTarget, type StepNode, type TreeNode } from '../tree/nodes';
import { chooseOptions, chooseRange, chooseStrategy, optionsFromSettings } from './chooseRun';
import { compactionCounter, mementoConsentStore, providerFromSettings } from './llmSettings';
import { compactionCounterSpec } from './offThread';
import type { CompactionClient } from '../../core/offthread/client';
import { setting } from '../settings';
import { plural } from '../../core/view/plural';

/** One finished compaction, kept for the report, the diff, saving and re-running. */
export interface CompactionRun {
  id: number;
  doc: OpenTrajectory;
  runIndex: number;
  trajectory: Run;
  result: CompactionResult;
}

export interface CompactionTarget {
  doc: OpenTrajectory;
  runIndex: number;
  /** A range the person selected; undefined asks for one. */
  range?: StepRange;
  strategyId?: string;
}

export type ShowRuns = (runs: CompactionRun[]) => void | Promise<void>;

export class CompactionController {
  readonly runs: CompactionRun[] = [];
  private nextId = 1;
  private output: vscode.OutputChannel | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly store: TrajectoryStore,
    private readonly log: vscode.LogOutputChannel,
    private readonly show: ShowRuns,
    /** Where compaction, policies, reports and replays run (a worker, chosen once at activation). */
    readonly client: CompactionClient,
  ) {}

  /** "Compact Range…" on selected tree rows: the range is the selection, widened by the runner if needed. */
  async compactSelection(clicked: TreeNode | undefined, selected: readonly TreeNode[] | undefined): Promise<void> {
    const steps = (selected && selected.length > 0 ? selected : clicked ? [clicked] : []).filter((n): n is StepNode => n?.type === 'step');
    if (steps.length === 0) {
      void vscode.window.showInformationMessage('Select one or more steps in the Trajectories view first (Shift-click selects a range).');
      return;
    }
    const first = steps[0];
    if (steps.some((s) => s.doc.key !== first.doc.key || s.runIndex !== first.runIndex)) {
      void vscode.window.showErrorMessage('The selected steps belong to different trajectories or runs; select steps of one run.');
      return;
    }
    const indices = steps.map((s) => s.step.index);
    const range: StepRange = [Math.min(...indices), Math.max(...indices)];
    if (new Set(indices).size !== range[1] - range[0] + 1) {
      void vscode.window.showInformationMessage(`The selection has gaps; compacting the whole span ${range[0]}–${range[1]}.`);
    }
    await this.compact({ doc: first.doc, runIndex: first.runIndex, range });
  }

  /** From the command palette: the trajectory in view (or chosen), then strategy, range and options. */
  /** `selected` is the tree's selection: a selected file (or run) is the one compacted, without asking. */
  async compactFromPalette(selected: readonly TreeNode[] = []): Promise<void> {
    const target = selectionTarget(selected);
    const doc = target?.doc ?? await this.pickTrajectory();
    if (!doc) return;
    const runs = doc.trajectory.runs;
    let runIndex = target?.runIndex ?? 0;
    if (runs.length > 1 && target?.runIndex === undefined) {
      const picked = await vscode.window.showQuickPick(runs.map((r, i) => ({ label: r.title, description: plural(r.steps.length, 'step'), i })), { title: 'Compact which run?' });
      if (!picked) return;
      runIndex = picked.i;
    }
    await this.compact({ doc, runIndex });
  }

  async compact(target: CompactionTarget): Promise<CompactionRun | undefined> {
    const trajectory = target.doc.trajectory.runs[target.runIndex];
    const strategy = await chooseStrategy(target.strategyId);
    if (!strategy) return undefined;
    const options = await chooseOptions(strategy, optionsFromSettings(strategy));
    if (!options) return undefined;
    let range: string | StepRange | null | undefined = target.range;
    if (!range) {
      let resolved: Record<string, OptionValue>;
      try {
        resolved = resolveOptions(strategy, options);
      } catch (e) {
        void vscode.window.showErrorMessage((e as Error).message);
        return undefined;
      }
      const policy = () => this.client.policy(trajectory, strategy.id, resolved, compactionCounterSpec(undefined, trajectory));
      range = await chooseRange(strategy, trajectory, resolved, compactionCounter(undefined, trajectory), policy);
      if (range === undefined) return undefined;
    }
    return this.run(target.doc, target.runIndex, strategy, range ?? undefined, options);
  }

  /** Runs without asking anything (re-runs from the report use this). */
  async run(doc: OpenTrajectory, runIndex: number, strategy: Strategy, range: string | StepRange | undefined, options: Record<string, OptionValue>, compareWith: CompactionRun[] = []): Promise<CompactionRun | undefined> {
    const trajectory = doc.trajectory.runs[runIndex];
    const provider = strategy.kind === 'llm' ? await providerFromSettings(this.context.secrets, this.log) : undefined;
    const counter = compactionCounter(provider?.model, trajectory);
    const consentStore = mementoConsentStore(this.context.globalState);
    const abort = new AbortController();
    try {
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `${strategy.label}`, cancellable: true },
        (progress, token) => {
          token.onCancellationRequested(() => abort.abort());
          // Off the extension host's thread: counting a long log must not freeze the window.
          return this.client.compact(trajectory, { strategy: strategy.id, range, options }, {
            counter: compactionCounterSpec(provider?.model, trajectory),
            provider,
            signal: abort.signal,
            onProgress: (message) => progress.report({ message }),
            onDelta: (text) => this.streamOutput(text),
            confirm: (outgoing) => this.confirm(outgoing, counter.tokenizer, consentStore),
            redactOutputs: setting('redactOutputs'),
          });
        },
      );
      const run: CompactionRun = { id: this.nextId++, doc, runIndex, trajectory, result };
      this.runs.push(run);
      this.log.info(`${strategy.id} on ${doc.key}: ${result.tokensBefore} → ${result.tokensAfter} tokens (${result.mode})`);
      for (const w of result.warnings) this.log.warn(`${strategy.id}: ${w}`);
      if (result.widened) void vscode.window.showInformationMessage(result.widened.note);
      // The report shows the new run, beside the earlier ones when the person asked to compare.
      await this.show([...compareWith.filter((r) => r.id !== run.id), run]);
      return run;
    } catch (e) {
      if (e instanceof CompactionCancelled || abort.signal.aborted) {
        void vscode.window.showInformationMessage('Compaction cancelled; nothing was changed.');
        return undefined;
      }
      const message = e instanceof CompactionInputError ? e.message : `${strategy.id} failed: ${(e as Error).message}`;
      this.log.error(message);
      void vscode.window.showErrorMessage(message);
      return undefined;
    }
  }

  /** Before anything leaves the machine: where it goes, how much, what it may cost. */
  private async confirm(o: OutgoingRequest, tokenizer: string, store: ReturnType<typeof mementoConsentStore>): Promise<boolean> {
    const decision = await decideConsent(
      { endpoint: o.endpoint, model: o.model, inputTokens: o.inputTokens, requests: o.maxCalls, maxRequests: o.maxRequests, estimatedCost: o.estimatedCost, redactions: { count: o.redactions, kinds: o.redactionKinds }, tokenizer },
      store,
      async (lines): Promise<ConsentAnswer> => {
        const send = 'Send';
        const always = 'Always Send to This Endpoint';
        const answer = await vscode.window.showWarningMessage(lines[0], { modal: true, detail: lines.slice(1).join('\n') }, send, always);
        return answer === always ? 'allow-always' : answer === send ? 'allow-once' : 'deny';
      },
    );
    this.log.info(`Consent for ${o.endpoint}: ${decision.allowed ? 'allowed' : 'refused'}${decision.remembered ? ' (remembered)' : ''}`);
    return decision.allowed;
  }

  private streamOutput(text: string): void {
    if (!this.output) {
      this.output = vscode.window.createOutputChannel('Agent Trace Lens: Model Output');
      this.context.subscriptions.push(this.output);
    }
    if (text) {
      this.output.append(text);
      this.output.show(true);
    }
  }

  private async pickTrajectory(): Promise<OpenTrajectory | undefined> {
    const open = this.store.all();
    if (open.length === 0) {
      void vscode.window.showInformationMessage('Open a trajectory first (Agent Trace Lens: Open Trajectory…).');
      return undefined;
    }
    if (open.length === 1) return open[0];
    const picked = await vscode.window.showQuickPick(open.map((doc) => ({ label: doc.trajectory.title, description: vscode.workspace.asRelativePath(doc.uri), doc })), { title: 'Compact which trajectory?' });
    return picked?.doc;
  }
}
