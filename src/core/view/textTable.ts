/** A plain-text table; widths follow the longest cell so columns line up in any terminal or tooltip. */
export function table(rows: [string, string][], indent = '  '): string {
  const width = Math.max(0, ...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${indent}${k.padEnd(width)}  ${v}`).join('\n') + '\n';
}
