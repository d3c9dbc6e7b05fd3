import * as vscode from 'vscode';

import { runWindow, summarizeTokens, tokenizerLabel, windowText } from '../../core/tokens';
import { logTokensText } from '../../core/view/statusText';
import { billText, usd, type RunBill } from '../../core/pricing/runCost';
import type { OpenTrajectory } from '../trajectoryStore';
import type { TokenTracker } from './tokenTracker';

/** The active trajectory's total tokens and its share of the model's context window. */
export class TokenStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('agentTraceLens.tokens', vscode.StatusBarAlignment.Right, 100);
  private active: OpenTrajectory | undefined;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly tracker: TokenTracker) {
    this.item.name = 'Agent Trace Lens: Tokens';
    this.item.command = 'agentTraceLens.trajectories.focus';
    this.subscription = tracker.onDidChange((doc) => {
      if (doc.key === this.active?.key) this.render();
    });
  }

  show(doc: OpenTrajectory | undefined): void {
    this.active = doc;
    this.render();
  }

  private render(): void {
    const doc = this.active;
    const counts = doc && this.tracker.counts(doc);
    if (!doc || !counts) {
      this.item.hide();
      return;
    }
    const steps = doc.trajectory.runs.flatMap((r) => r.steps);
    const totals = summarizeTokens(steps, counts.steps);
    const runs = doc.trajectory.runs.length;
    // Several runs each had a context of their own: the share is per run.
    const window = runs === 1 ? runWindow(doc.trajectory.runs[0], counts.tokenizer.model) : undefined;
    const share = window ? totals.total / window.tokens : undefined;
    const mark = totals.exact && !counts.tokenizer.approximate ? '' : '≈';
    const bill: RunBill | undefined = this.tracker.billOf(doc);
    this.item.text = `$(symbol-numeric) ${logTokensText(totals.total, mark !== '')}${bill?.cost !== null && bill?.cost !== undefined ? ` · ${usd(bill.cost)}` : ''}`;
    this.item.tooltip = new vscode.MarkdownString().appendText([
      doc.trajectory.title,
      `Every step of the log: ${mark}${totals.total.toLocaleString('en-US')} tokens, counted with ${tokenizerLabel(counts.tokenizer)}${counts.tokenizer.model ? ` for ${counts.tokenizer.model}` : ''}${totals.exact ? '' : ' (counting…)'}`,
      share !== undefined && window ? `${(share * 100).toFixed(1)}% of a context window of ${windowText(window)}` : runs > 1 ? `${runs} runs in this file; the share is per run` : 'context window unknown for this model',
      counts.tokenizer.note ?? '',
      bill ? `Cost: ${billText(bill)} (${bill.note})` : '',
    ].filter(Boolean).join('\n'));
    this.item.show();
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
