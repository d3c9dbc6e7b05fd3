import * as vscode from 'vscode';
import type { Step, StepKind } from '../../core/model';

const ICONS: Record<StepKind, string> = {
  system: 'gear',
  user: 'account',
  assistant: 'hubot',
  thought: 'lightbulb',
  tool_call: 'tools',
  tool_result: 'output',
  compaction: 'fold',
  environment: 'bell',
  other: 'circle-small',
};

/** `failed` is the fact layer's verdict (core/find `errorSteps`), the one Next Error and `is:error` use. */
export function stepIcon(step: Step, failed = step.isError === true): vscode.ThemeIcon {
  if (failed) return new vscode.ThemeIcon('error', new vscode.ThemeColor('problemsErrorIcon.foreground'));
  return new vscode.ThemeIcon(ICONS[step.kind]);
}
