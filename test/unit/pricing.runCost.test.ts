import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { loadTrajectory } from '../../src/core/open';
import type { RecordedUsage, Run } from '../../src/core/model';
import { PromptCache } from '../../src/core/pricing/promptCache';
import { billText, runCost } from '../../src/core/pricing/runCost';
import { billRun, billRunAsHappened } from '../../src/core/simulate';
import { priceFor } from '../../src/core/models';

import { runCli } from '../helpers/cli';
import { corpus, REPO_ROOT, tempDir, writeTemp } from '../helpers/paths';
import { loadRun } from '../helpers/runs';

// The run as it happened, billed from what the log records: every figure here is the recorded
// usage priced by hand, from this table (USD per million tokens: input, cache read, cache write,
// output; the @pydantic/genai-prices list prices), never by the code under test.

const TABLE: Record<string, [number, number, number, number]> = {
  'claude-sonnet-4-5': [3, 0.3, 3.75, 15],
  'claude-sonnet-4-6': [3, 0.3, 3.75, 15],
  'claude-3-5-sonnet': [3, 0.3, 3.75, 15],
  'claude-opus-4-6': [5, 0.5, 6.25, 25],
  'claude-haiku-4-5': [1, 0.1, 1.25, 5],
  'claude-3-haiku': [0.25, 0.03, 0.3, 1.25],
  'gpt-5.2': [1.75, 0.175, 0, 14],
  'gpt-4o': [2.5, 1.25, 0, 10],
  'gpt-4o-mini': [0.15, 0.075, 0, 0.6],
  'gemini-2.0-flash': [0.1, 0.025, 0, 0.4],
  'gemini-3-pro-preview': [2, 0.2, 0, 12],
  'deepseek-v4-flash': [0.14, 0.0028, 0, 0.28],
  'mistral-small-latest': [0.1, 0, 0, 0.3],
  'minimax-m2.7': [0.3, 0.06, 0.375, 1.2],
};

/** The log's model names, mapped to the table by hand. */
const ROW: Record<string, string> = {
  'claude-sonnet-4-5-20250929': 'claude-sonnet-4-5', 'claude-sonnet-4.6': 'claude-sonnet-4-6', 'claude-3-5-sonnet-20241022': 'claude-3-5-sonnet',
  'claude-opus-4-6': 'claude-opus-4-6', 'claude-haiku-4-5-20251001': 'claude-haiku-4-5', 'anthropic/claude-3-haiku-20240307': 'claude-3-haiku',
  'gpt-5.2-codex': 'gpt-5.2', 'openai/gpt-4o': 'gpt-4o', 'openai/gpt-4o-mini': 'gpt-4o-mini', 'gemini-2.0-flash': 'gemini-2.0-flash',
  'google/gemini-3-pro-preview': 'gemini-3-pro-preview', 'deepseek-v4-flash': 'deepseek-v4-flash', 'mistral/mistral-small-latest': 'mistral-small-latest',
  'litellm_proxy/minimax-m2.7': 'minimax-m2.7',
};

function byHand(u: RecordedUsage, model: string): number {
  const [input, cached, write, output] = TABLE[ROW[model] ?? model];
  assert.ok((u.inputTokens ?? 0) < 200_000, 'no call here reaches a long-context tier');
  const read = u.cachedInputTokens ?? 0;
  const written = u.cacheWriteTokens ?? 0;
  const fresh = (u.inputTokens ?? 0) - read - written;
  return (fresh * input + read * cached + written * write + (u.outputTokens ?? 0) * output) / 1e6;
}

/** The usage on each step, once per call (what the adapter read), priced by hand at the call's own model. */
function stepsByHand(t: Run): number {
  let sum = 0;
  for (const run of [t]) {
    let previousInput = 0;
    for (const s of run.steps) {
      if (!s.usage || ((s.usage.inputTokens ?? 0) === 0 && (s.usage.outputTokens ?? 0) === 0)) continue;
      // Cline on Anthropic records reads and writes as one "cached" figure: a call reads at most the previous call's prompt.
      const u = s.usage.cachedIncludesWrites
        ? { ...s.usage, cachedInputTokens: Math.min(s.usage.cachedInputTokens!, previousInput), cacheWriteTokens: s.usage.cachedInputTokens! - Math.min(s.usage.cachedInputTokens!, previousInput) }
        : s.usage;
      previousInput = s.usage.inputTokens ?? 0;
      sum += byHand(u, s.usage.model ?? s.model ?? String(run.meta.model));
    }
  }
  return sum;
}

const fixture = (rel: string) => path.join(REPO_ROOT, 'test', 'fixtures', rel);
const load = async (file: string) => loadRun(file);

test('Claude Code: the bill is each message id once (its lines repeat the usage), priced by hand from the raw file', async () => {
  for (const name of ['crud.jsonl', 'compact.jsonl', 'subagent.jsonl']) {
    const file = corpus(`claude-code/${name}`);
    // Read the raw lines ourselves: one usage per message id, the last line's.
    const byId = new Map<string, { usage: Record<string, number>; model: string }>();
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const v = JSON.parse(line);
      if (v.type === 'assistant' && v.message?.id && v.message.usage) byId.set(v.message.id, { usage: v.message.usage, model: v.message.model });
    }
    let expected = 0;
    for (const { usage: u, model } of byId.values()) {
      const [input, cached, write, output] = TABLE[ROW[model]];
      expected += (u.input_tokens * input + (u.cache_read_input_tokens ?? 0) * cached + (u.cache_creation_input_tokens ?? 0) * write + u.output_tokens * output) / 1e6;
    }
    const bill = runCost(await load(file));
    assert.equal(bill.source, 'per-call', name);
    assert.equal(bill.label, 'priced from recorded usage', name);
    assert.equal(bill.calls, byId.size, `${name}: one call per message id`);
    assert.ok(Math.abs(bill.cost! - expected) < 1e-9, `${name}: $${bill.cost} against $${expected} by hand`);
  }
});

test('every format that records usage per call: the bill is the recorded usage priced by hand, to the cent', async () => {
  const files = [
    corpus('codex/crud.jsonl'), corpus('openhands-v0/basic.json'),
    fixture('gemini-cli/session-hello-world.json'), fixture('opencode/all-tools.json'), fixture('opencode/crud.json'), fixture('cline/task-crud'),
  ];
  for (const file of files) {
    const t = await load(file);
    const bill = runCost(t);
    const expected = stepsByHand(t);
    assert.equal(bill.source, 'per-call', file);
    assert.equal(bill.label, 'priced from recorded usage', `${file}: no cost in the log (OpenCode's 0 is not a cost)`);
    assert.ok(expected > 0);
    assert.ok(Math.abs(bill.cost! - expected) < 0.005, `${file}: $${bill.cost} against $${expected} by hand`);
    assert.ok(Math.abs(bill.pricedUsage! - expected) < 1e-9, `${file}: exactly`);
  }
});

test('a cost the log states is the bill as recorded (mini-swe-agent, SWE-agent, Aider, ATIF, OpenTelemetry), its usage priced beside it', async () => {
  const stated: [string, number][] = [
    [corpus('mini-swe-agent/astropy__astropy-12907.traj.json'), JSON.parse(fs.readFileSync(corpus('mini-swe-agent/astropy__astropy-12907.traj.json'), 'utf8')).info.model_stats.instance_cost],
    [corpus('swe-agent/pydicom__pydicom-1458.traj'), 1.26719],
    // Aider prints a cost per message; 16 sessions in the file, one of them with a cost but no per-call line.
    [fixture('aider/aider-caching.aider.chat.history.md'), 0.46131],
    [fixture('atif/openhands-hello-world.trajectory.json'), 0.00135],
  ];
  for (const [file, cost] of stated) {
    // A file of many runs (Aider's sessions): each run's stated cost, summed.
    const bills = (await loadTrajectory(file)).runs.map((run) => runCost(run)).filter((b) => b.cost !== null);
    assert.ok(bills.length > 0 && bills.every((b) => b.label === 'recorded'), file);
    const total = bills.reduce((n, b) => n + b.cost!, 0);
    assert.ok(Math.abs(total - cost) < 1e-9, `${file}: $${total} against the recorded $${cost}`);
  }
  // SWE-agent names no model: the cost is still shown as recorded, and `--model` prices its totals beside it.
  const pydicom = await load(corpus('swe-agent/pydicom__pydicom-1458.traj'));
  const asGpt4o = runCost(pydicom, { model: 'gpt-4o' });
  assert.equal(asGpt4o.cost, 1.26719);
  assert.equal(asGpt4o.source, 'totals');
  assert.ok(Math.abs(asGpt4o.pricedUsage! - (122612 * 2.5 + 1369 * 10) / 1e6) < 1e-9);
  // Where calls state their cost and name their model, both: the stated one is the bill, the priced one checks it.
  for (const file of [fixture('otel/any-agent-langchain.trace.json'), fixture('atif/terminus-2-invalid-json.trajectory.json'), corpus('mini-swe-agent/sphinx-doc__sphinx-9711.traj.json')]) {
    const t = await load(file);
    const bill = runCost(t);
    assert.equal(bill.label, 'recorded', file);
    assert.ok(Math.abs(bill.pricedUsage! - stepsByHand(t)) < 1e-9, `${file}: usage priced $${bill.pricedUsage} against $${stepsByHand(t)} by hand`);
  }
});

test('totals only: the totals are priced (OpenHands v1, Copilot CLI, Inspect), and the split is said to be modelled where the log has none', async () => {
  const v1 = runCost(await load(corpus('openhands-v1/events.jsonl')));
  assert.equal(v1.source, 'totals');
  assert.ok(Math.abs(v1.cost! - ((107458 - 68193) * 0.3 + 68193 * 0.06 + 1347 * 1.2) / 1e6) < 1e-9, `$${v1.cost}`);
  const copilot = runCost(await load(fixture('copilot-cli/events.jsonl')));
  assert.equal(copilot.source, 'totals', 'its per-call records leave out the input');
  assert.ok(Math.abs(copilot.cost! - ((48243 - 24072 - 24167) * 3 + 24072 * 0.3 + 24167 * 3.75 + 414 * 15) / 1e6) < 1e-9, `$${copilot.cost}`);
  const [inspect] = (await loadTrajectory(corpus('inspect/2025-05-12T20-27-36-04-00_browser.json'))).runs;
  assert.ok(Math.abs(runCost(inspect).cost! - ((15235 - 9088) * 0.15 + 9088 * 0.075 + 281 * 0.6) / 1e6) < 1e-9);
  // Totals with no cache split: the replay's share splits them, and the note says so.
  const t: Run = { format: 'x', title: 't', source: { path: 'x', size: 0 }, steps: [], meta: { model: 'gpt-4o', recorded: { inputTokens: 1000, outputTokens: 10 } }, warnings: [], records: 0 };
  const split = runCost(t, { modelled: { cost: 1, cachedShare: 0.5 } });
  assert.ok(Math.abs(split.cost! - (500 * 2.5 + 500 * 1.25 + 10 * 10) / 1e6) < 1e-12);
  assert.match(split.note, /split into cache reads and writes is modelled/);
});

test('zero usage is "not recorded" and a model without a price says so, tokens still counted; never $0', async () => {
  const zeros = await load(corpus('swe-agent/marshmallow-code__marshmallow-1867.traj'));
  const z = billRun(zeros);
  assert.equal(z.cost, null);
  assert.match(billText(z), /^not recorded/);
  const eval_ = await loadTrajectory(corpus('openhands-eval/output.jsonl'));
  const first = eval_.runs[0];
  const b = runCost(first);
  assert.equal(b.cost, null);
  assert.equal(b.reason, 'no price for meta-llama/llama-4-maverick');
  assert.equal(b.tokens.input, 565158, 'the recorded tokens are still counted');
  // By hand: `--price 0.15,,,0.6`.
  const priced = runCost(first, { price: { input: 0.15, output: 0.6 } });
  assert.ok(Math.abs(priced.cost! - (565158 * 0.15 + 2558 * 0.6) / 1e6) < 1e-9);
});

/** A Claude Code session: `calls` API messages, each written as two lines (two content blocks) with the same id and usage. */
function claudeSession(calls: { model: string; usage: Record<string, unknown>; at: string }[]): string {
  const lines: string[] = [];
  lines.push(JSON.stringify({ type: 'user', uuid: 'u0', sessionId: 's', timestamp: calls[0].at, message: { role: 'user', content: 'Fix the failing test in parser.py please.' } }));
  calls.forEach((c, i) => {
    const message = (content: unknown[]) => ({ id: `msg_${i}`, role: 'assistant', model: c.model, usage: c.usage, content });
    lines.push(JSON.stringify({ type: 'assistant', uuid: `a${i}`, sessionId: 's', timestamp: c.at, message: message([{ type: 'text', text: `Looking at step ${i}.` }]) }));
    lines.push(JSON.stringify({ type: 'assistant', uuid: `b${i}`, sessionId: 's', timestamp: c.at, message: message([{ type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command: `ls ${i}` } }]) }));
    lines.push(JSON.stringify({ type: 'user', uuid: `r${i}`, sessionId: 's', timestamp: c.at, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: `file${i}.py `.repeat(50) }] } }));
  });
  return lines.join('\n') + '\n';
}

test('a mixed-model session is billed per call at each model, listed per model, not all at the first model', async () => {
  const usage = (input: number, read: number, write: number, out: number) => ({ input_tokens: input, cache_read_input_tokens: read, cache_creation_input_tokens: write, output_tokens: out });
  const calls = [
    { model: 'claude-opus-4-6', usage: usage(10, 0, 20000, 300), at: '2026-03-01T10:00:00Z' },
    { model: 'claude-haiku-4-5-20251001', usage: usage(5, 0, 15000, 100), at: '2026-03-01T10:00:10Z' },
    { model: 'claude-haiku-4-5-20251001', usage: usage(5, 15000, 800, 120), at: '2026-03-01T10:00:20Z' },
    { model: 'claude-opus-4-6', usage: usage(10, 20000, 2500, 200), at: '2026-03-01T10:00:30Z' },
  ];
  const file = path.join(tempDir(), 'mixed.jsonl');
  fs.writeFileSync(file, claudeSession(calls));
  const t = await load(file);
  const bill = runCost(t);
  const opus = (10 * 5 + 20000 * 6.25 + 300 * 25 + 10 * 5 + 20000 * 0.5 + 2500 * 6.25 + 200 * 25) / 1e6;
  const haiku = (5 * 1 + 15000 * 1.25 + 100 * 5 + 5 * 1 + 15000 * 0.1 + 800 * 1.25 + 120 * 5) / 1e6;
  assert.equal(bill.calls, 4, 'two lines per message id, one call each');
  assert.ok(Math.abs(bill.cost! - (opus + haiku)) < 1e-12, `$${bill.cost} against $${opus + haiku}`);
  assert.deepEqual(bill.byModel.map((m) => [m.model, m.calls]), [['claude-opus-4-6', 2], ['claude-haiku-4-5-20251001', 2]]);
  assert.ok(Math.abs(bill.byModel[1].cost! - haiku) < 1e-12);
  // The replay prices each request at its own model too.
  const { billing } = billRunAsHappened(t);
  assert.deepEqual(billing.totals.byModel!.map((m) => m.model).sort(), ['claude-haiku-4-5-20251001', 'claude-opus-4-6']);
});

test('1-hour cache writes are billed at 2× input, and the replay keeps the cache for an hour when the log shows them', async () => {
  const u = { input_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 8000, output_tokens: 50, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 8000 } };
  const u2 = { ...u, cache_read_input_tokens: 8000, cache_creation_input_tokens: 300, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 300 } };
  const file = path.join(tempDir(), 'onehour.jsonl');
  // 20 minutes between the calls: a 5-minute cache would have expired, a 1-hour one not.
  fs.writeFileSync(file, claudeSession([
    { model: 'claude-sonnet-4-5-20250929', usage: u, at: '2026-03-01T10:00:00Z' },
    { model: 'claude-sonnet-4-5-20250929', usage: u2, at: '2026-03-01T10:20:00Z' },
  ]));
  const t = await load(file);
  const bill = runCost(t);
  const expected = (10 * 3 + 8000 * 6 + 50 * 15 + 10 * 3 + 8000 * 0.3 + 300 * 6 + 50 * 15) / 1e6;
  assert.ok(Math.abs(bill.cost! - expected) < 1e-12, `$${bill.cost} against $${expected}`);
  const { billing } = billRunAsHappened(t);
  assert.equal(billing.cacheTtl.seconds, 3600);
  assert.equal(billing.cacheTtl.source, 'log');
  assert.equal(billing.cacheExpiries, 0);
});

test('prompt cache lifetime: an idle gap longer than it makes the next request write the prefix again', () => {
  // Each request adds one block of 1,000 tokens to the one before.
  const req = (prompt: number, idleMs?: number) => ({ prompt, lastMessageEnd: prompt, unchanged: prompt - 1000, system: 2000, blocks: prompt / 1000, unchangedBlocks: prompt / 1000 - 1, ...(idleMs !== undefined ? { idleMs } : {}) });
  const warm = new PromptCache('anthropic', 'claude-sonnet-4-5', 0, 300);
  warm.bill(req(5000));
  assert.equal(warm.bill(req(6000, 60_000)).cached, 5000, 'within 5 minutes: read');
  const cold = warm.bill(req(7000, 6 * 60_000));
  assert.equal(cold.cached, 0, 'after 6 idle minutes: nothing cached');
  assert.equal(cold.written, 7000, 'the whole prefix written again');
  assert.equal(warm.expiries, 1);
  const openai = new PromptCache('openai', 'gpt-4o', 0, 300);
  openai.bill(req(5000));
  assert.ok(openai.bill(req(6000, 4 * 60_000)).cached > 0);
  assert.equal(openai.bill(req(7000, 11 * 60_000)).cached, 0, 'OpenAI evicts after idle minutes too');
  const day = new PromptCache('openai', 'gpt-4o', 0, 24 * 3600);
  day.bill(req(5000));
  assert.ok(day.bill(req(6000, 11 * 60_000)).cached > 0, 'the 24-hour retention keeps it');
});

test('simulate --json adds totals.raw.byModel, recorded.source and cacheTtl, and prints the bill as it happened', async () => {
  const file = corpus('claude-code/crud.jsonl');
  const { code, out } = await runCli('simulate', file, '--strategy', 'observation-masking', '--json');
  assert.equal(code, 0);
  const j = JSON.parse(out);
  assert.equal(j.cache, 'anthropic', 'the contract keeps `cache` a behaviour');
  assert.equal(j.recorded.source, 'per-call');
  assert.equal(j.cacheTtl.seconds, 300);
  assert.equal(j.totals.raw.byModel[0].model, 'claude-sonnet-4-5-20250929');
  assert.equal(j.bill.cost, runCost(await load(file)).cost);
  const text = await runCli('simulate', corpus('swe-agent/pydicom__pydicom-1458.traj'), '--strategy', 'observation-masking');
  assert.match(text.out, /run\s+\$1\.27 recorded/, 'the SWE-agent cost shown as recorded though no model is named');
  const bad = await runCli('simulate', file, '--strategy', 'observation-masking', '--price', '3,x');
  assert.notEqual(bad.code, 0);
  assert.match(bad.err, /--price takes four numbers/);
});

test('the same run shows the same cost in stats --tokens, simulate, diff and the survey', async () => {
  const file = corpus('codex/crud.jsonl');
  const expected = `$${runCost(await load(file)).cost!.toFixed(2)}`;
  const stats = await runCli('stats', file, '--tokens');
  assert.match(stats.out, new RegExp(`run\\s+\\${expected} priced from recorded usage`));
  const sim = await runCli('simulate', file, '--strategy', 'observation-masking');
  assert.match(sim.out, new RegExp(`run\\s+\\${expected} priced from recorded usage`));
  const diff = JSON.parse((await runCli('diff', file, file, '--json')).out);
  assert.equal(diff.a.cost, runCost(await load(file)).cost);
  assert.equal(diff.a.costLabel, 'priced from recorded usage');
  const survey = await runCli('stats', path.dirname(file), '--json');
  const row = survey.out.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((r) => r.file === 'crud.jsonl');
  assert.equal(row.cost, runCost(await load(file)).cost);
  assert.equal(row.costLabel, 'priced from recorded usage');
});

test('usage that records only output (Copilot CLI messages without their usage events) is not a bill: "not recorded", never the output priced', async () => {
  // Copilot CLI 1.0.10 events of a real session shape (softwaresalt/agent-engram): each assistant.message names its
  // outputTokens, and no assistant.usage or session.shutdown event says what the calls sent.
  const events = [
    { type: 'session.start', data: { sessionId: 'b1', selectedModel: 'claude-opus-4.6', startTime: '2026-03-20T10:00:00.000Z' }, timestamp: '2026-03-20T10:00:00.000Z' },
    { type: 'user.message', data: { content: 'Add a retry to the sync job.' }, timestamp: '2026-03-20T10:00:01.000Z' },
    { type: 'assistant.message', data: { messageId: 'm1', model: 'claude-opus-4.6', content: 'Looking at the job.', outputTokens: 412, toolRequests: [] }, timestamp: '2026-03-20T10:00:09.000Z' },
    { type: 'assistant.message', data: { messageId: 'm2', model: 'claude-opus-4.6', content: 'Done: the job retries three times.', outputTokens: 233, toolRequests: [] }, timestamp: '2026-03-20T10:00:30.000Z' },
  ];
  const file = path.join(tempDir(), 'events.jsonl');
  fs.writeFileSync(file, events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  const t = await load(file);
  const bill = runCost(t);
  assert.equal(bill.source, 'none');
  assert.equal(bill.cost, null);
  assert.equal(bill.reason, 'not recorded (the log records output tokens only)');
  assert.match(bill.note, /only the output of its 2 calls \(645 tokens\)/);
  // With the replay beside it, the bill is the replay's, said to be modelled.
  const { bill: modelled } = billRunAsHappened(t);
  assert.equal(modelled.label, 'modelled');
  assert.match(modelled.note, /the bill is modelled/);
});

test('after an idle gap past the cache lifetime, a read the log still records is served in the replay (a warm shared prefix), and the note says so', async () => {
  // moredip/session-share's Claude Code 2.1 session: 95 idle minutes, then the call reads 13,681 of its
  // 21,113-token prompt (Claude Code's system prompt and tools, kept warm by its other requests).
  const usage = (read: number, write: number) => ({ input_tokens: 9, cache_read_input_tokens: read, cache_creation_input_tokens: write, output_tokens: 3, cache_creation: { ephemeral_5m_input_tokens: write, ephemeral_1h_input_tokens: 0 } });
  const file = path.join(tempDir(), 'warm.jsonl');
  fs.writeFileSync(file, claudeSession([
    { model: 'claude-opus-4-5-20251101', usage: usage(18277, 645), at: '2026-01-20T19:38:15Z' },
    { model: 'claude-opus-4-5-20251101', usage: usage(18922, 1046), at: '2026-01-20T19:38:23Z' },
    { model: 'claude-opus-4-5-20251101', usage: usage(13681, 7423), at: '2026-01-20T21:13:32Z' },
    { model: 'claude-opus-4-5-20251101', usage: usage(21104, 900), at: '2026-01-20T21:13:40Z' },
  ]));
  const t = await load(file);
  const { bill, billing } = billRunAsHappened(t);
  assert.equal(billing.cacheExpiries, 1, 'the gap is past the 5-minute lifetime');
  assert.ok(Math.abs(billing.totals.cachedInput - bill.tokens.cachedInput) <= 0.05 * bill.tokens.cachedInput, `reads ${billing.totals.cachedInput} against ${bill.tokens.cachedInput}`);
  assert.ok(Math.abs(bill.difference!) < 0.05, `within 5% of the recorded bill: ${bill.difference}`);
  assert.match(billing.calibration!.note, /after 1 idle gap or model switch the log records the cache still serving part of the prompt/);
  // Without the record of that read the gap would have rewritten the whole prompt.
  const cache = new PromptCache('anthropic', 'claude-opus-4-5', 0, 300);
  const req = (prompt: number, idleMs?: number, servedAfterReset?: number, warmBound?: number) => ({ prompt, lastMessageEnd: prompt, unchanged: prompt - 1000, system: 13000, blocks: prompt / 1000, unchangedBlocks: prompt / 1000 - 1, ...(idleMs !== undefined ? { idleMs } : {}), ...(servedAfterReset !== undefined ? { servedAfterReset, warmBound } : {}) });
  cache.bill(req(20000));
  assert.equal(cache.bill(req(21000, 95 * 60_000, 13681, 21000)).cached, 13681, 'the run as logged reads what the log records');
  const replayCache = new PromptCache('anthropic', 'claude-opus-4-5', 0, 300);
  replayCache.bill(req(29000));
  assert.equal(replayCache.bill(req(30000, 95 * 60_000, 13681, 13000)).cached, 13000, 'a replay under a strategy reads it only within the system prefix, which compaction leaves alone');
  assert.equal(new PromptCache('anthropic', 'claude-opus-4-5', 0, 300).bill(req(21000, 95 * 60_000, 13681, 21000)).cached, 0, 'the first request has no reset to follow');
});

test('a real Claude Code 2.1 session with idle gaps and a model switch: the replay follows the reads the log records after each gap', async () => {
  const run = await loadRun(path.join(REPO_ROOT, 'test', 'fixtures', 'claude-code', 'moredip-warm-after-gaps.jsonl'));
  const { bill, billing } = billRunAsHappened(run);
  assert.equal(bill.source, 'per-call');
  assert.deepEqual(bill.byModel.map((m) => m.model).sort(), ['claude-haiku-4-5-20251001', 'claude-opus-4-5-20251101']);
  // Was +103%: every gap rewrote the whole prompt, where the log records 10-14k tokens read.
  assert.ok(Math.abs(bill.difference!) < 0.1, `within 10% of the recorded bill: ${bill.difference}`);
  assert.ok(Math.abs(billing.totals.cacheWrite - bill.tokens.cacheWrite) <= 0.15 * bill.tokens.cacheWrite, `writes ${billing.totals.cacheWrite} against ${bill.tokens.cacheWrite}`);
  assert.match(billing.calibration!.note, /idle gaps? or model switch(?:es)? the log records the cache still serving part of the prompt/);
});

test('a log that records no date is priced as of today, and the bill and the replay say so; a dated one is priced on its day', async () => {
  // Cline's api_conversation_history.json holds no timestamps.
  const undated = await loadRun(fixture('cline/agentlogs-feedback-after-completion.json'));
  const bill = runCost(undated);
  assert.match(bill.note, /prices of \d{4}-\d{2}-\d{2} \(today: the log records no date\)/);
  const { code, out } = await runCli('simulate', fixture('cline/agentlogs-feedback-after-completion.json'), '--strategy', 'observation-masking');
  assert.equal(code, 0);
  assert.match(out, /Prices: [^\n]*in force on \d{4}-\d{2}-\d{2} \(today: the log records no date\)/);
  const dated = runCost(await loadRun(fixture('opencode/all-tools.json')));
  assert.match(dated.note, /prices of 2026-01-23\)/);
  assert.doesNotMatch(dated.note, /records no date/);
});

test('rates that change with the time of day (DeepSeek\'s off-peak discount until 2025-09-05): each call at the rate of its hour, said so', async () => {
  const msg = (id: string, at: string, type: string, extra: Record<string, unknown> = {}) => ({ id, timestamp: at, type, content: type === 'user' ? 'Go on.' : 'Done.', ...extra });
  const tokens = { input: 1_000_000, output: 0, cached: 0, thoughts: 0, tool: 0, total: 1_000_000 };
  const file = writeTemp('deepseek-day-and-night.json', JSON.stringify({
    sessionId: 's', projectHash: 'p', startTime: '2025-09-01T10:00:00.000Z', lastUpdated: '2025-09-01T20:00:05.000Z',
    messages: [
      msg('1', '2025-09-01T10:00:00.000Z', 'user'), msg('2', '2025-09-01T10:00:05.000Z', 'gemini', { tokens, model: 'deepseek-chat' }),
      msg('3', '2025-09-01T20:00:00.000Z', 'user'), msg('4', '2025-09-01T20:00:05.000Z', 'gemini', { tokens, model: 'deepseek-chat' }),
    ],
  }));
  const bill = runCost(await loadRun(file));
  // A million prompt tokens at the daytime $0.27, then a million at the off-peak $0.135 (was $0.54: the first call's rate all day).
  assert.ok(Math.abs(bill.pricedUsage! - 0.405) < 1e-9, `${bill.pricedUsage}`);
  assert.match(bill.note, /its rates change with the time of day, and the calls are priced at the rate of their hour \(10:00 UTC, 20:00 UTC\)/);
  // The OpenHands SDK log on deepseek-chat at 19:44 UTC: LiteLLM's recorded cost is the daytime rate; ours is the off-peak one, said so.
  const log = runCost(await loadRun(fixture('openai-chat/openhands-sdk-nonfncall-completion-log.json')));
  assert.match(log.note, /its usage priced comes to \$0\.0004 at the rate of their hour \(19:44 UTC; its rates change with the time of day\)/);
});

test('DeepSeek after its 2025 price changes: priced at the rates its pricing page gives, which reproduce the cost the log records', async () => {
  // mini-swe-agent on deepseek-reasoner, 2026 (after the night discount ended and V3.2's cut): the
  // database's old rates priced it at $0.03, against the $0.0067 LiteLLM recorded.
  const bill = runCost(await loadRun(fixture('mini-swe-agent/pvlib__pvlib-python-1072.traj.json')));
  assert.ok(bill.recordedCost !== null && bill.pricedUsage !== null, bill.note);
  assert.ok(Math.abs(bill.pricedUsage - bill.recordedCost) / bill.recordedCost < 0.01, `${bill.pricedUsage} vs recorded ${bill.recordedCost}`);
  assert.doesNotMatch(bill.note, /time of day/);
  const price = priceFor('deepseek-reasoner', {}, new Date('2026-04-11T19:02:00Z'))!;
  assert.deepEqual([price.input, price.cachedInput, price.output], [0.28, 0.028, 0.42]);
  assert.match(price.source, /corrected by DeepSeek's pricing page/);
  // Before 16:00 UTC on 2025-09-05 the database's rates (with the night discount) stand.
  assert.equal(priceFor('deepseek-chat', {}, new Date('2025-09-01T20:00:00Z'))!.input, 0.135);
});

test('a run that switched models: "against what the log recorded" prices each call at its own model, as the bill does', async () => {
  // moredip/session-share: opus calls and haiku calls; pi's sample: sonnet then gpt-4o. The comparison
  // priced every call at the run's first model ($0.39 against the bill's $0.25 on the first).
  for (const rel of ['claude-code/moredip-warm-after-gaps.jsonl', 'pi/sample_pi_session.jsonl']) {
    const billed = billRunAsHappened(await loadRun(fixture(rel)));
    const models = new Set(billed.bill.byModel.map((m) => m.model));
    assert.ok(models.size > 1, `${rel}: ${[...models].join(', ')}`);
    assert.equal(billed.billing.recorded.costSource, 'usage priced');
    assert.ok(Math.abs(billed.billing.recorded.cost! - billed.bill.pricedUsage!) < 1e-9, `${rel}: compared with ${billed.billing.recorded.cost}, billed ${billed.bill.pricedUsage}`);
  }
});

test('runCost: beside a cost the log states, usage priced with a cache split the log does not record says the split is modelled', async () => {
  // SWE-agent 1.x on gpt-4o (SWE-agent/SWE-agent's test data, MIT): model_stats states $0.0195 and
  // totals of 7,141 / 243 tokens, no cache figures. Priced beside it, the replay's cache share cut
  // the figure in half and the line said only "its usage priced comes to $0.01".
  const t = await loadTrajectory(fixture('swe-agent/6e44b9-gpt4o-stated-cost.traj'));
  const bill = billRun(t.runs[0]);
  assert.equal(bill.label, 'recorded');
  assert.ok(Math.abs(bill.cost! - 0.01952) < 0.0001, String(bill.cost));
  assert.match(bill.note, /its usage priced comes to \$0\.0\d with a modelled split into cache reads and writes \(the log records none\)/);
});
