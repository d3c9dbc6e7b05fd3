import type { TrajectoryStats } from '../core/stats';

/** A plain-text table; widths follow the longest cell so columns line up in any terminal. */
export function table(rows: [string, string][], indent = '  '): string {
  const width = Math.max(0, ...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${indent}${k.padEnd(width)}  ${v}`).join('\n') + '\n';
}

export function renderStats(s: TrajectoryStats): string {
  const kinds = Object.entries(s.byKind).filter(([, n]) => n > 0).map(([k, n]) => [k, String(n)] as [string, string]);
  const tools = Object.entries(s.tools).sort((a, b) => b[1] - a[1]).map(([k, n]) => [k, String(n)] as [string, string]);
  let text = `${s.file}\n`;
  text += table([
    ['format', s.format],
    ['title', s.title],
    ['records', String(s.records)],
    ['steps', String(s.steps)],
    ['turns', String(s.turns)],
    ['characters', s.chars.toLocaleString('en-US')],
  ]);
  text += `\nSteps by kind\n${table(kinds)}`;
  if (tools.length > 0) text += `\nTool calls\n${table(tools)}`;
  if (s.warnings.length > 0) text += `\nWarnings\n${s.warnings.map((w) => `  - ${w}`).join('\n')}\n`;
  return text;
}
