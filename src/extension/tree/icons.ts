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

export function stepIcon(step: Step): vscode.ThemeIcon {
  if (step.isError) return new vscode.ThemeIcon('error', new vscode.ThemeColor('problemsErrorIcon.foreground'));
  return new vscode.ThemeIcon(ICONS[step.kind]);
}
