import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../helpers/paths';

// The report's "kept" text and the replay's compacted line must read on the editor background in
// VS Code's default themes (WCAG: 4.5:1 for text, 3:1 for lines). The theme colours are VS Code's
// defaults for Light Modern and Dark Modern; the mix is the one report.css declares.

const THEMES = {
  light: { '--vscode-foreground': '#3b3b3b', '--vscode-editor-background': '#ffffff', '--vscode-testing-iconPassed': '#73c991', '--vscode-charts-green': '#388a34', '--vscode-charts-orange': '#d18616' },
  dark: { '--vscode-foreground': '#cccccc', '--vscode-editor-background': '#1f1f1f', '--vscode-testing-iconPassed': '#73c991', '--vscode-charts-green': '#89d185', '--vscode-charts-orange': '#d18616' },
};

const css = fs.readFileSync(path.join(REPO_ROOT, 'media', 'report.css'), 'utf8');

function declared(name: string): string {
  const m = new RegExp(`${name}:\\s*([^;]+);`).exec(css);
  assert.ok(m, `report.css declares ${name}`);
  return m[1].trim();
}

/** Resolves var(), var(a, b) and color-mix(in srgb, A P%, B) to #rrggbb. */
function resolve(value: string, theme: Record<string, string>): [number, number, number] {
  const v = value.trim();
  const mix = /^color-mix\(in srgb,\s*(.+?)\s+(\d+(?:\.\d+)?)%,\s*(.+)\)$/.exec(v);
  if (mix) {
    const a = resolve(mix[1], theme), b = resolve(mix[3], theme), p = Number(mix[2]) / 100;
    return [0, 1, 2].map((i) => a[i] * p + b[i] * (1 - p)) as [number, number, number];
  }
  const ref = /^var\((--[\w-]+)(?:,\s*(.+))?\)$/.exec(v);
  if (ref) {
    if (theme[ref[1]]) return resolve(theme[ref[1]], theme);
    if (new RegExp(`${ref[1]}:`).test(css)) return resolve(declared(ref[1]), theme);
    assert.ok(ref[2], `${ref[1]} has no value and no fallback`);
    return resolve(ref[2], theme);
  }
  const hex = /^#([0-9a-f]{6})$/i.exec(v);
  assert.ok(hex, `cannot read colour ${v}`);
  return [0, 2, 4].map((i) => parseInt(hex[1].slice(i, i + 2), 16)) as [number, number, number];
}

function luminance([r, g, b]: [number, number, number]): number {
  const lin = (c: number) => { const s = c / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

function contrast(a: [number, number, number], b: [number, number, number]): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

function colourOf(selector: string, property: string): string {
  const rule = css.split('}').find((r) => r.split('{')[0].split(',').some((s) => s.trim() === selector));
  assert.ok(rule, `report.css has a rule for ${selector}`);
  const m = new RegExp(`(?:^|[;{\\s])${property}:\\s*([^;]+);`).exec(rule + ';');
  assert.ok(m, `${selector} sets ${property}`);
  return m[1].trim();
}

for (const [name, theme] of Object.entries(THEMES)) {
  test(`report colours in ${name === 'light' ? 'Light' : 'Dark'} Modern: "✓ in the summary" text and the replay line stand out from the background`, () => {
    const bg = resolve(theme['--vscode-editor-background'], theme);
    const kept = contrast(resolve(colourOf('.survival-summary .kept', 'color'), theme), bg);
    assert.ok(kept >= 4.5, `kept text ${kept.toFixed(2)}:1`);
    const good = contrast(resolve(colourOf('.good', 'color'), theme), bg);
    assert.ok(good >= 4.5, `good-news text ${good.toFixed(2)}:1`);
    const line = contrast(resolve(colourOf('.line-compacted', 'stroke'), theme), bg);
    assert.ok(line >= 3, `replay line ${line.toFixed(2)}:1`);
  });
}

test('report: a loss headline of zero is not drawn in the alarm colour', () => {
  assert.match(css, /\.loss-headline\.none\s*\{[^}]*border-left-color:\s*var\(--ok-text\)/);
});
