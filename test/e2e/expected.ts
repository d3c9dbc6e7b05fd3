// What the tree should show for a file, read from the bundled CLI (`stats --json`),
// which shares the core with the extension: the e2e suite checks the wiring, not the parsers.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface Expected {
  file: string;
  format: string;
  title: string;
  turns: number;
  steps: number;
  byKind: Record<string, number>;
  tools: Record<string, number>;
}

export function expectedFor(repo: string, file: string): Expected {
  const cli = path.join(repo, 'dist', 'cli.js');
  const run = (...args: string[]) => execFileSync(process.execPath, [cli, 'stats', file, ...args], { encoding: 'utf8' });
  const json = JSON.parse(run('--json')) as Omit<Expected, 'title'>;
  // The JSON leaves the title out; the text report has it on its `title` line.
  const titleLine = run().split('\n').find((line) => /^\s+title\s{2,}/.test(line));
  const title = titleLine ? titleLine.replace(/^\s+title\s{2,}/, '').trim() : '';
  return { ...json, file, title };
}

/** The label prefix the tree gives a step kind (the UI contract in the task brief). */
export const KIND_LABEL: Record<string, string> = {
  system: 'system',
  user: 'user',
  thought: 'thought',
  assistant: 'assistant',
  tool_call: 'tool call',
  tool_result: 'observation',
  compaction: 'compaction',
  other: 'other',
};

/** The kind a step row's label names, or undefined when it is not a step row. */
export function kindOfLabel(label: string): string | undefined {
  // Longest labels first so "tool call" is not read as something shorter.
  const entries = Object.entries(KIND_LABEL).sort((a, b) => b[1].length - a[1].length);
  return entries.find(([, prefix]) => label === prefix || label.startsWith(prefix + ' ') || label.startsWith(prefix + ' ·'))?.[0];
}

/** The token totals `stats --json --model M` reports: what the tree and status bar should show. */
export interface ExpectedTokens {
  total: number;
  tokenizer: string;
  model: string;
  contextWindow?: number;
  contextShare?: number;
  /** The text report's "Tokens (…)" section: total, text, chat framing, context window. */
  section: string;
  /** The run's one cost as the status bar words it (`$0.43`), when it has one. */
  cost?: string;
  /** The cost with its label, as the tooltips word it (`$0.43 recorded`). */
  costText?: string;
}

export function expectedTokens(repo: string, file: string, model: string): ExpectedTokens {
  const run = (...extra: string[]) => execFileSync(process.execPath, [path.join(repo, 'dist', 'cli.js'), 'stats', file, '--model', model, ...extra], { encoding: 'utf8' });
  const text = run();
  const start = text.indexOf('\nTokens (');
  const end = text.indexOf('\nTokens by kind');
  if (start < 0 || end < start) throw new Error(`stats --model ${model} printed no token section for ${file}`);
  const json = JSON.parse(run('--json')) as {
    tokenizer: { name: string; model: string; contextWindow?: number };
    tokens: { total: number; exact: boolean; contextShare?: number; contextWindow?: { tokens: number } };
    bill: { cost: number | null; label: string };
  };
  const usd = (x: number) => `$${x.toFixed(x !== 0 && Math.abs(x) < 0.01 ? 4 : 2)}`;
  if (!json.tokens.exact) throw new Error(`stats counted ${file} only approximately for ${model}; pick an OpenAI model`);
  return {
    total: json.tokens.total, tokenizer: json.tokenizer.name, model: json.tokenizer.model,
    contextWindow: json.tokens.contextWindow?.tokens, contextShare: json.tokens.contextShare, section: text.slice(start, end).trim(),
    ...(json.bill.cost !== null ? { cost: usd(json.bill.cost), costText: `${usd(json.bill.cost)} ${json.bill.label}` } : {}),
  };
}

/**
 * The run's one cost as `stats --tokens` gives it: each call at its own model's price. (`--model M`
 * would price every call as M; the extension's token model only counts.)
 */
export function expectedBill(repo: string, file: string): { cost: string; costText: string } | undefined {
  const out = execFileSync(process.execPath, [path.join(repo, 'dist', 'cli.js'), 'stats', file, '--tokens', '--json'], { encoding: 'utf8' });
  const bill = (JSON.parse(out) as { bill: { cost: number | null; label: string } }).bill;
  if (bill.cost === null) return undefined;
  const usd = (x: number) => `$${x.toFixed(x !== 0 && Math.abs(x) < 0.01 ? 4 : 2)}`;
  return { cost: usd(bill.cost), costText: `${usd(bill.cost)} ${bill.label}` };
}

/** What `compact FILE --strategy ID --range A-B --model M --json` prints, offline. */
export interface ExpectedCompaction {
  strategy: string;
  mode: string;
  range: [number, number];
  tokensBefore: number;
  tokensAfter: number;
  reduction: number;
  stepsBefore: number;
  stepsAfter: number;
  summary: string | null;
  summarySize: string | null;
  tokenizer: string;
  /** What of the tokens images are, as the panel's Tokens card says it; null without images. */
  imageNote: string | null;
  entities: { text: string; kind: string; kept: boolean; where: 'summary' | 'context' | 'lost'; firstStep: number; neededLater: boolean }[];
}

export function expectedCompaction(repo: string, file: string, o: { strategy: string; range: [number, number]; model: string }): ExpectedCompaction {
  // No key and no endpoint: the CLI runs LLM strategies extractively, as the extension does without one.
  const env = { ...process.env };
  delete env.OPENAI_API_KEY;
  const out = execFileSync(process.execPath, [path.join(repo, 'dist', 'cli.js'), 'compact', file, '--strategy', o.strategy,
    '--range', `${o.range[0]}-${o.range[1]}`, '--model', o.model, '--json'], { encoding: 'utf8', env });
  return JSON.parse(out) as ExpectedCompaction;
}

/** A setting's value as the extension sees it: the seeded user settings, else the manifest's default. */
export function settingValue(repo: string, settings: Record<string, unknown>, key: string): unknown {
  if (key in settings) return settings[key];
  const manifest = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8')) as {
    contributes: { configuration: { properties: Record<string, { default?: unknown }> } };
  };
  return manifest.contributes.configuration.properties[key]?.default;
}

// Numbers written the way the report and the tree write them (en-US digits, k for thousands).
export const thousands = (n: number): string => Math.round(n).toLocaleString('en-US');
export const percentText = (x: number): string => `${(x * 100).toFixed(Math.abs(x) < 0.1 ? 1 : 0)}%`;
export function compactCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 10_000) return (n / 1000).toFixed(1).replace(/\.0$/, '') + 'k';
  if (n < 1_000_000) return Math.round(n / 1000) + 'k';
  return (n / 1_000_000).toFixed(1).replace(/\.0$/, '') + 'M';
}

export interface ExpectedSimulation {
  recorded: { calls: number; medianPromptDeviation: number | null; cost: number | null; modelledCost: number | null; cacheReads: { calls: number; recorded: number; modelled: number } | null } | null;
  cache: string;
}

/** What `simulate --json` says of the whole run (the bundled CLI, the log's own model). */
export function expectedSimulation(repo: string, file: string, strategy: string): ExpectedSimulation {
  const out = execFileSync(process.execPath, [path.join(repo, 'dist', 'cli.js'), 'simulate', file, '--strategy', strategy, '--json'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return JSON.parse(out) as ExpectedSimulation;
}
