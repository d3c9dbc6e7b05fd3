import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { test } from 'node:test';
import { findStrategy } from '../../src/core/compaction/registry';
import { loadTrajectory } from '../../src/core/open';
import { PromptCache } from '../../src/core/pricing/promptCache';
import { billAsHappened, billRunAsHappened, replay } from '../../src/core/simulate';
import { corpus, REPO_ROOT } from '../helpers/paths';
import { loadRun } from '../helpers/runs';

// Issue 21: where the log records the cache hits call by call, the replay's hit pattern follows
// them. A call that reads far less than the previous call left in the cache (a prefix the client
// changed, the provider's own miss) is a miss the replay cannot infer from the context; the record
// shows it, so the replay reads no more there, in the run as it happened and under a strategy.

const fixture = (rel: string) => path.join(REPO_ROOT, 'test', 'fixtures', rel);
const near = (a: number, b: number, share: number) => Math.abs(a - b) <= share * Math.max(a, b);

test('Claude Code: calls minutes apart that record a read of 0 and write the whole prompt again are billed so by the replay', async () => {
  const run = await loadRun(fixture('claude-code/codemie-cache-rewrites.jsonl'));
  const { bill, billing } = billRunAsHappened(run);
  assert.equal(bill.source, 'per-call');
  // Recorded: 22,912 tokens read and 147,267 written over five calls; the replay had 126k read and 43k written (−57%).
  assert.ok(near(billing.totals.cacheWrite, bill.tokens.cacheWrite, 0.05), `writes ${billing.totals.cacheWrite} against ${bill.tokens.cacheWrite}`);
  assert.ok(near(billing.totals.cachedInput, bill.tokens.cachedInput, 0.05), `reads ${billing.totals.cachedInput} against ${bill.tokens.cachedInput}`);
  assert.ok(Math.abs(bill.difference!) < 0.05, `modelled within 5% of the recorded bill: ${bill.difference}`);
  assert.match(billing.calibration!.note, /at 4 calls the log records the cache serving far less than the previous call left in it/);
  // Under a strategy the same requests miss the same way: the no-compaction side is the bill above.
  const r = billRunAsHappened(run);
  const result = replay(run, { strategy: findStrategy('observation-masking')!, options: {}, counter: r.counter, stepTokens: r.stepTokens, price: r.price, model: r.model, fixedModel: r.fixedModel });
  assert.ok(result.totals.compacted.cacheWrite >= 0.9 * bill.tokens.cacheWrite, `compacted writes ${result.totals.compacted.cacheWrite}`);
});

test('Codex: the calls whose token_count records 0 cached tokens seconds after a hit are misses in the replay too', async () => {
  const { bill, billing } = billRunAsHappened(await loadRun(fixture('codex/traceforge-cache-misses.jsonl')));
  // Recorded 134,144 cached tokens over 12 calls; the replay read 190,336 (−40% on the bill).
  assert.ok(near(billing.totals.cachedInput, bill.tokens.cachedInput, 0.02), `reads ${billing.totals.cachedInput} against ${bill.tokens.cachedInput}`);
  assert.ok(Math.abs(bill.difference!) < 0.05, String(bill.difference));
});

test('Gemini: cache reads the log records on prompts under the published 4,096-token minimum lower the minimum the replay uses', async () => {
  const { bill, billing } = billRunAsHappened(await loadRun(fixture('mini-swe-agent/django__django-11099.traj.json')));
  // Calls of 2,366–3,331 prompt tokens record ~1,985 cached; the replay read none of them.
  assert.ok(near(billing.totals.cachedInput, bill.tokens.cachedInput, 0.03), `reads ${billing.totals.cachedInput} against ${bill.tokens.cachedInput}`);
  assert.ok(billing.recorded.medianCallCostDeviation! < 0.15, `median per-call deviation ${billing.recorded.medianCallCostDeviation}`);
  assert.ok(Math.abs(bill.difference!) < 0.05, String(bill.difference));
});

test('context the log does not show: a prompt that grows far more than the log shows is carried from there on, and a read of what cut requests cached is followed', async () => {
  // pi's session cut to five lines: the calls record 43k, 60k, 183k and 185k prompt tokens for a log of a few hundred.
  const { bill, billing } = billRunAsHappened(await loadRun(fixture('pi/pi-mono-aborted-and-compacted.jsonl')));
  assert.ok(Math.abs(bill.difference!) < 0.05, `within 5% (was +96% with one offset for every call): ${bill.difference}`);
  assert.ok(near(billing.totals.input, bill.tokens.input, 0.02));
  assert.match(billing.calibration!.note, /the recorded prompt changes by more than the log shows at 2 calls/);
  assert.match(billing.calibration!.note, /far more than the previous call left in it \(requests the log does not show cached it\)/);
  // Gemini CLI: the first call of each turn records other requests' usage too (13.6k, then 6.2k); the replay follows the record.
  const gemini = billRunAsHappened(await loadRun(fixture('gemini-cli/agtrace-gemini-session.json'))).bill;
  assert.ok(Math.abs(gemini.difference!) < 0.05, `within 5% (was −66%): ${gemini.difference}`);
});

test('prompt cache: a recorded miss caps what a request reads; Anthropic writes the rest and drops the longer prefixes', () => {
  const req = (prompt: number, cachedAtMost?: number) => ({ prompt, lastMessageEnd: prompt, unchanged: prompt - 1000, system: 2000, blocks: prompt / 1000, unchangedBlocks: prompt / 1000 - 1, ...(cachedAtMost !== undefined ? { cachedAtMost } : {}) });
  const c = new PromptCache('anthropic', 'claude-sonnet-4-5');
  c.bill(req(5000));
  assert.deepEqual(c.bill(req(6000, 2000)), { uncached: 0, cached: 2000, written: 4000 });
  assert.deepEqual(c.bill(req(7000)), { uncached: 0, cached: 6000, written: 1000 }, 'the next request reads what the miss wrote');
  const o = new PromptCache('openai', 'gpt-4o');
  o.bill(req(5000));
  assert.equal(o.bill(req(6000, 0)).cached, 0);
  assert.equal(o.bill(req(7000)).cached, 5888, 'and hits again on the prompt the miss sent');
  const g = new PromptCache('gemini', 'gemini-3-pro-preview', 0, Infinity, { smallestRead: 1985 });
  g.bill(req(2300));
  assert.equal(g.bill(req(3300)).cached, 2300, 'a recorded read of 1,985 tokens shows prefixes that short are cached');
});

test('the reason for a deviation names what the log leaves out: cached tokens it does not report, a prompt that grows where the log shows nothing added', async () => {
  // Aider reports no cache hits for a MiniMax model: its usage is priced in full, the replay reads the automatic cache.
  const aider = billRunAsHappened(await loadRun(fixture('aider/swarms-bot-minimax.aider.chat.history.md'))).bill;
  assert.ok(Math.abs(aider.difference!) > 0.1);
  assert.match(aider.differenceReason!, /^the log records no cached tokens for its calls/);
  // Lines cut from pi's session: the third recorded prompt is 122,522 tokens longer, the log shows 95 added.
  const piRun = await loadRun(fixture('pi/pi-mono-aborted-and-compacted.jsonl'));
  const o = billRunAsHappened(piRun);
  const uncalibrated = billAsHappened(piRun, { counter: o.counter, stepTokens: o.stepTokens, price: o.price, model: o.model, calibrate: false }).bill;
  assert.match(uncalibrated.differenceReason!, /the recorded prompt grows by 122,522 tokens from step 3 to step 7, where the log shows 95 added/);
  // The commands Aider ran once the person agreed, and its auto-commit, are no model requests: all
  // three calls record usage (the two commands were counted as requests without usage before).
  const afi = (await loadTrajectory(fixture('aider/afi-core-gpt-4o.aider.chat.history.md'))).runs[1];
  const bill = billRunAsHappened(afi).bill;
  assert.equal(bill.calls, 3);
  assert.equal(bill.unrecorded, undefined);
  assert.doesNotMatch(bill.differenceReason!, /prompt tokens/);
  assert.match(bill.differenceReason!, /the replay has 6,528 cache reads where the log records 0/);
});

test("DeepSeek's cache, as a run's recorded reads show it: the reply is not read back where no read goes past the previous prompt", async () => {
  // mini-swe-agent 2 on deepseek-reasoner: 2,182 tokens sent, then 2,176 read; 2,333 sent, then 2,304 read…
  const reasoner = billRunAsHappened(await loadRun(fixture('mini-swe-agent/pvlib__pvlib-python-1072.traj.json')));
  assert.equal(reasoner.billing.calibration!.replyCached, false);
  assert.match(reasoner.billing.calibration!.note, /never reach past the previous prompt, so a reply is not read from the cache/);
  // With the reply counted as cached the replay read 86k where the log records 83k, and billed 10.5% under it.
  assert.ok(near(reasoner.billing.totals.cachedInput, reasoner.bill.tokens.cachedInput, 0.02), `reads ${reasoner.billing.totals.cachedInput} against ${reasoner.bill.tokens.cachedInput}`);
  assert.ok(Math.abs(reasoner.bill.difference!) < 0.02, String(reasoner.bill.difference));
  // deepseek-chat in the corpus reads past the previous prompt at most calls: its replies stay cached.
  const chat = billRunAsHappened(await loadRun(corpus('mini-swe-agent/astropy__astropy-12907.traj.json')));
  assert.equal(chat.billing.calibration!.replyCached, true);
  assert.ok(Math.abs(chat.bill.difference!) < 0.02, String(chat.bill.difference));
});
