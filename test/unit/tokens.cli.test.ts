import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/cli/main';
import type { CliIO } from '../../src/cli/args';
import { corpus, fixture, tempDir, writeTemp } from '../helpers/paths';

// The CLI keeps its cache under $XDG_CACHE_HOME; point it at a temp folder for these tests.
const cacheHome = tempDir();
process.env.XDG_CACHE_HOME = cacheHome;

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIO = { out: (s) => { out += s; }, err: (s) => { err += s; }, interactive: false };
  const code = await main(args, io);
  return { code, out, err };
}

const chat = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Fix the bug; the log prints <|endoftext|> literally.' },
  { role: 'assistant', content: 'Looking.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }] },
  { role: 'tool', tool_call_id: 'c1', content: 'a.py b.py' },
  { role: 'assistant', content: 'Done.' },
];

test('cli stats --json --model: tokenizer, tokens by kind and tool, recorded usage and dated cost', async () => {
  const file = writeTemp('chat.json', JSON.stringify(chat));
  const { code, out } = await run(['stats', file, '--json', '--model', 'gpt-4o']);
  assert.equal(code, 0);
  const json = JSON.parse(out);
  assert.equal(json.steps, 6, 'the plain stats are still there');
  assert.deepEqual(json.tokenizer, { name: 'o200k_base', label: 'o200k_base', approximate: false, model: 'gpt-4o', contextWindow: 128000 });
  assert.equal(json.tokens.exact, true);
  // The log names no model: the window is the counting model's, and says so.
  assert.deepEqual(json.tokens.contextWindow, { tokens: 128000, model: 'gpt-4o', from: 'tokenizer' });
  assert.equal(json.tokens.contextShare, json.tokens.total / 128000);
  assert.equal(json.tokens.total, json.tokens.content + json.tokens.overhead);
  assert.equal(Object.values(json.tokens.byKind as Record<string, number>).reduce((a, b) => a + b, 0), json.tokens.total);
  assert.deepEqual(Object.keys(json.tokens.byTool), ['bash']);
  assert.ok(json.tokens.byTool.bash.calls > 0 && json.tokens.byTool.bash.results > 0);
  assert.equal(json.recorded, null, 'a plain message list records no usage');
  assert.equal(json.cost.pricesAsOf, new Date().toISOString().slice(0, 10), 'a log without timestamps is priced at today\'s rates');
  assert.equal(json.cost.calls, 2);
  assert.ok(json.cost.withoutCache.total > 0);
  assert.ok(fs.readdirSync(path.join(cacheHome, 'agent-trace-lens', 'tokens')).length > 0, 'counts persisted under $XDG_CACHE_HOME');

  const claude = JSON.parse((await run(['stats', file, '--json', '--model', 'claude-sonnet-4-5'])).out);
  assert.equal(claude.tokenizer.approximate, true);
  assert.equal(claude.tokenizer.label, '≈ o200k_base');
  assert.equal(claude.cost.priceRow, 'claude-sonnet-4-5');

  const plain = JSON.parse((await run(['stats', file, '--json'])).out);
  assert.equal(plain.tokens, undefined, 'without --model or --tokens, stats stays as fast as before');
});

test('cli stats --model: the share of the context window is of the window of the model the run used, not of the counting model\'s', async () => {
  // A real mini-swe-agent run on gpt-5-mini (400,000 tokens), counted with gpt-4o's tokenizer (whose
  // window is 128,000): the tree's tooltip once said 12.3% of 128,000 while the status bar's context
  // entry said 16k of 400k for the same run.
  const file = fixture('mini-swe-agent/django__django-12406.traj.json');
  const json = JSON.parse((await run(['stats', file, '--json', '--model', 'gpt-4o'])).out);
  assert.deepEqual(json.tokens.contextWindow, { tokens: 400000, model: 'openai/gpt-5-mini', from: 'run' });
  assert.equal(json.tokens.contextShare, json.tokens.total / 400000);
  const text = (await run(['stats', file, '--model', 'gpt-4o'])).out;
  assert.match(text, /context window +3\.9% of 400,000 \(openai\/gpt-5-mini's, the model the run used\)/, text);
  // A file of two runs (two τ²-bench simulations) gives no share: each had a context of its own.
  const two = JSON.parse((await run(['stats', fixture('runs/tau2-airline-two-simulations.json'), '--json', '--model', 'gpt-4o'])).out);
  assert.ok(two.tokens.total > 0);
  assert.equal(two.tokens.contextShare, undefined);
  assert.equal(two.tokens.contextWindow, undefined);
});

test('cli stats: our count of a SWE-agent run agrees with the usage and cost the log recorded', async () => {
  // The run used gpt-4-1106-preview ("gpt4" in SWE-agent); model_stats holds its totals.
  const { code, out } = await run(['stats', corpus('swe-agent/pydicom__pydicom-1458.traj'), '--json', '--model', 'gpt-4-1106-preview']);
  assert.equal(code, 0);
  const json = JSON.parse(out);
  assert.equal(json.tokenizer.name, 'cl100k_base');
  const totals = json.recorded.totals;
  assert.equal(totals.recorded.inputTokens, 122612);
  assert.ok(Math.abs(totals.difference.inputTokens) / totals.recorded.inputTokens < 0.01, `input within 1%: ${JSON.stringify(totals)}`);
  assert.ok(Math.abs(totals.difference.outputTokens) / totals.recorded.outputTokens < 0.05, `output within 5%: ${JSON.stringify(totals)}`);
  assert.ok(Math.abs(json.cost.withoutCache.total - totals.recorded.cost) / totals.recorded.cost < 0.01, `cost within 1%: ${json.cost.withoutCache.total} vs ${totals.recorded.cost}`);
});

test('cli stats --model: text output names the tokenizer next to every count', async () => {
  const file = writeTemp('chat.json', JSON.stringify(chat));
  const { code, out } = await run(['stats', file, '--model', 'gemini-2.5-pro']);
  assert.equal(code, 0);
  assert.match(out, /Tokens \(≈ o200k_base for gemini-2\.5-pro\)/);
  assert.match(out, /Google tokenizer is not public/);
  const countLines = out.split('\n').filter((l) => /\d tokens/.test(l));
  assert.ok(countLines.length > 5);
  for (const l of countLines) assert.match(l, /≈[\d,]+ tokens \(≈ o200k_base\)/);
  assert.match(out, /prices of \d{4}-\d{2}-\d{2}\)/);
  assert.equal((await run(['stats', file, '--model', ''])).code, 1);
});
