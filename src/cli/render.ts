import type { TrajectoryStats } from '../core/stats';
import { describeCoverage } from '../core/io/coverage';

import { table } from '../core/view/textTable';

export { table };

export function renderStats(s: TrajectoryStats): string {
  const kinds = Object.entries(s.byKind).filter(([, n]) => n > 0).map(([k, n]) => [k, String(n)] as [string, string]);
  const tools = Object.entries(s.tools).sort((a, b) => b[1] - a[1]).map(([k, n]) => [k, String(n)] as [string, string]);
  let text = `${s.file}\n`;
  text += table([
    ['format', s.format],
    ['title', s.title],
    ...(s.forkedFrom ? [['forked from', `session ${s.forkedFrom}`] as [string, string]] : []),
    ['records', String(s.records)],
    ['steps', String(s.steps)],
    ['turns', String(s.turns)],
    ['characters', s.chars.toLocaleString('en-US')],
    ...(s.coverage ? [['coverage', describeCoverage(s.coverage)] as [string, string]] : []),
  ]);
  text += `\nSteps by kind\n${table(kinds)}`;
  if (tools.length > 0) text += `\nTool calls\n${table(tools)}`;
  if (s.warnings.length > 0) text += `\nWarnings\n${s.warnings.map((w) => `  - ${w}`).join('\n')}\n`;
  return text;
}
