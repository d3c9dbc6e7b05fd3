import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { retentionInRequest } from '../../src/core/formats/cacheRetention';
import { runCost } from '../../src/core/pricing/runCost';
import { findStrategy } from '../../src/core/compaction/registry';
import { contextTextOf } from '../../src/core/compaction/text';
import type { Run } from '../../src/core/model';
import { billFile, billingReplayOptions, billRun, replay, type ReplayResult } from '../../src/core/simulate';
import { loadTrajectory } from '../../src/core/open';
import { fileOfRun } from '../../src/core/stats';
import type { RunBill } from '../../src/core/pricing/runCost';

/** The run's bill and a whole-run replay under observation masking (for the notes and the compacted side). */
function billRunWithReplay(run: Run): { bill: RunBill; replay: ReplayResult } {
  const r = billingReplayOptions(run, {});
  const stepTokens = run.steps.map((s) => r.counter.count(contextTextOf(s)));
  const result = replay(run, { strategy: findStrategy('observation-masking')!, options: {}, counter: r.counter, stepTokens, price: r.price, model: r.model, fixedModel: r.fixedModel });
  return { bill: result.bill, replay: result };
}
import { corpus, REPO_ROOT, tempDir } from '../helpers/paths';
import { loadRun } from '../helpers/runs';

// The replay of the run as it happened against what the log records (issue 21): every request the
// log shows is replayed (subagents on their own model and cache, two calls in a row as two), the
// requests the log records no usage for are counted and said, and the cache lifetime follows what
// the log states.

const fixture = (rel: string) => path.join(REPO_ROOT, 'test', 'fixtures', rel);

test('a Claude Code subagent is replayed on its own context and cache: its call is in the modelled bill, its hidden prompt called an estimate', async () => {
  const { bill, replay } = billRunWithReplay(await loadRun(corpus('claude-code/subagent.jsonl')));
  assert.equal(bill.calls, 3, 'two main-line calls and the subagent\'s');
  assert.equal(replay.totals.raw.requests, 3, 'the subagent\'s request is replayed, not left out');
  assert.ok(Math.abs(bill.difference!) < 0.02, `modelled within 2% of the recorded bill (was half of it with the subagent left out): ${bill.difference}`);
  const note = replay.notes.find((n) => n.startsWith('Subagents:'));
  assert.ok(note, replay.notes.join('\n'));
  assert.match(note!, /its own context and cache/);
  assert.match(note!, /an estimate/);
  assert.ok(!replay.notes.some((n) => /left out of both runs/.test(n)));
  // The compacted run pays the subagent the same: the strategy compacts the main line.
  assert.equal(replay.totals.compacted.requests, replay.totals.raw.requests);
});

test('two calls in a row that record usage of their own are two requests (OpenTelemetry: a final answer, then a structured-output call)', async () => {
  const { bill, replay } = billRunWithReplay(await loadRun(fixture('otel/any-agent-langchain.trace.json')));
  assert.equal(bill.calls, 4);
  assert.equal(replay.totals.raw.requests, 4);
  assert.ok(Math.abs(bill.difference!) < 0.05, String(bill.difference));
});

test('requests the log records no usage for: the bill keeps to the recorded calls and says how many were left to the replay', async () => {
  const t = await loadRun(corpus('openhands-v0/basic_interactions.json'));
  const { bill, replay } = billRunWithReplay(t);
  assert.equal(bill.calls, 1);
  assert.deepEqual({ requests: bill.unrecorded?.requests, of: bill.unrecorded?.of }, { requests: 2, of: 3 });
  assert.equal(bill.cost, runCost(t).cost, 'the figure is the recorded usage priced');
  assert.match(bill.note, /2 of the 3 requests have no usage in the log/);
  // Compared like with like: the modelled cost of the one recorded call, not of all three.
  assert.ok(replay.totals.raw.cost! > 3 * bill.cost!);
  assert.ok(Math.abs(bill.difference!) < 0.1, String(bill.difference));
});

test('Cline on Anthropic records cache reads and writes as one figure: the bill infers the split and says so', async () => {
  const bill = runCost(await loadRun(fixture('cline/task-crud')));
  assert.match(bill.note, /cache reads and writes as one figure, so each call's split is inferred/);
  assert.ok(bill.tokens.cacheWrite > 100_000, `the writes are billed as writes: ${bill.tokens.cacheWrite}`);
  assert.ok(bill.tokens.cachedInput + bill.tokens.cacheWrite < bill.tokens.input);
});

test('the cache lifetime a log states is the replay\'s, with where it says so', async () => {
  assert.equal(retentionInRequest({ prompt_cache_retention: '24h' }), '24h');
  assert.equal(retentionInRequest({ system: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral', ttl: '1h' } }], messages: [{ role: 'user', content: [{ type: 'text', text: 'y', cache_control: { type: 'ephemeral' } }] }] }), '1h');
  assert.equal(retentionInRequest({ messages: [] }), undefined);

  // Claude Code's usage splits its writes by lifetime: 5 minutes here.
  const claude = billRunWithReplay(await loadRun(corpus('claude-code/crud.jsonl'))).replay;
  assert.equal(claude.cacheTtl.seconds, 300);
  assert.equal(claude.cacheTtl.source, 'log');
  assert.match(claude.cacheTtl.words, /ephemeral_5m/);

  // An Anthropic request that asks for the 1-hour lifetime: writes at 2× input, and the lifetime says why.
  const dir = tempDir();
  const file = path.join(dir, 'request.json');
  const filler = 'The repository holds a parser, a printer and their tests. '.repeat(200);
  fs.writeFileSync(file, JSON.stringify({
    model: 'claude-sonnet-4-5-20250929', max_tokens: 1024,
    system: [{ type: 'text', text: filler, cache_control: { type: 'ephemeral', ttl: '1h' } }],
    messages: [
      { role: 'user', content: 'Summarise the repository.' },
      { role: 'assistant', content: [{ type: 'text', text: 'A parser and a printer.' }], usage: { input_tokens: 20, cache_creation_input_tokens: 2500, cache_read_input_tokens: 0, output_tokens: 8 } },
      { role: 'user', content: 'And the tests?' },
      { role: 'assistant', content: [{ type: 'text', text: 'They cover both.' }], usage: { input_tokens: 12, cache_creation_input_tokens: 30, cache_read_input_tokens: 2500, output_tokens: 6 } },
    ],
  }));
  const t = await loadRun(file);
  assert.equal(t.meta.promptCacheRetention, '1h');
  const r = billRunWithReplay(t).replay;
  assert.equal(r.cacheTtl.seconds, 3600);
  assert.match(r.cacheTtl.words, /stated by the request/);
});

test('a file of many runs says how many of all its requests have no usage in the log, not only each run', async () => {
  const one = (await loadTrajectory(corpus('openhands-v0/basic_interactions.json'))).runs[0];
  // Two runs, each missing usage for 2 of its 3 requests, as an evaluation output would hold them.
  const file = { ...fileOfRun(one), holdsRuns: true, runs: [one, one] };
  const bill = billFile(file);
  assert.deepEqual({ requests: bill.unrecorded?.requests, of: bill.unrecorded?.of }, { requests: 4, of: 6 });
  assert.match(bill.note, /4 of the 6 requests have no usage in the log/);
  assert.equal(bill.cost, 2 * billRun(one).cost!, 'the figure is still the recorded calls priced');
});

test('a log that records cache reads for a model whose price has no cache-read rate: the replay reads what the log shows, at the input price, and says so', async () => {
  // Gemini 3 Pro Image Preview: the price table lists no cache-read rate, yet the session records 56,538 cached tokens.
  const { bill, replay } = billRunWithReplay(await loadRun(fixture('gemini-cli/codemie-cached-no-cache-price.json')));
  const recordedReads = bill.tokens.cachedInput;
  assert.equal(recordedReads, 56_538, 'the reads the log records');
  assert.equal(replay.cache, 'gemini', 'the provider cached, so the replay does (was: no cache, every read billed as uncached)');
  assert.ok(Math.abs(replay.totals.raw.cachedInput - recordedReads) < 0.02 * recordedReads, `modelled reads ${replay.totals.raw.cachedInput} against ${recordedReads}`);
  assert.ok(bill.cost !== null && replay.totals.raw.cost !== null, 'a cost, not "unknown (no cache-read price)"');
  assert.match(bill.note, /no cache-read price for gemini-3-pro-image-preview, so the 56,538 tokens the log records read from the cache are billed at the input price/);
  assert.ok(replay.notes.some((n) => /cache read \(assumed: the table has no cache-read price/.test(n)), replay.notes.join('\n'));
});
