import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { priceFor } from '../../src/core/models';
import { cacheBehaviourFor, minimumCacheable, PromptCache, type CacheRequest } from '../../src/core/pricing/promptCache';

const request = (prompt: number, unchanged: number, extra: Partial<CacheRequest> = {}): CacheRequest =>
  ({ prompt, unchanged, system: 0, blocks: 10, unchangedBlocks: 10, ...extra });

test('prompt cache: the behaviour follows the model\'s provider, and a model without a cache price has none', () => {
  assert.equal(cacheBehaviourFor('claude-opus-4-6', priceFor('claude-opus-4-6')), 'anthropic');
  assert.equal(cacheBehaviourFor('gpt-4o', priceFor('gpt-4o')), 'openai');
  assert.equal(cacheBehaviourFor('deepseek/deepseek-chat', priceFor('deepseek/deepseek-chat')), 'openai');
  assert.equal(cacheBehaviourFor('gemini-2.5-pro', priceFor('gemini-2.5-pro')), 'gemini');
  assert.equal(cacheBehaviourFor('my-model', undefined), 'none');
  assert.equal(minimumCacheable('anthropic', 'claude-opus-4-6'), 4096);
  assert.equal(minimumCacheable('anthropic', 'claude-sonnet-4-5'), 1024);
  assert.equal(minimumCacheable('gemini', 'gemini-2.5-flash'), 2048);
});

test('prompt cache: OpenAI serves the shared prefix from 1,024 tokens in steps of 128, the reply included', () => {
  const c = new PromptCache('openai', 'gpt-4o');
  assert.deepEqual(c.bill(request(5000, 0)), { uncached: 5000, cached: 0, written: 0 });
  c.output(100);
  // The next prompt starts with the whole previous one and its reply (5,100 tokens): 1,024 + 31 × 128 = 4,992 cached.
  assert.deepEqual(c.bill(request(5400, 5100)), { uncached: 408, cached: 4992, written: 0 });
  // A compaction rewrote the prompt after 900 tokens: under the minimum, nothing is cached.
  assert.deepEqual(c.bill(request(3000, 900)), { uncached: 3000, cached: 0, written: 0 });
  const small = new PromptCache('openai', 'gpt-4o');
  small.bill(request(900, 0));
  assert.equal(small.bill(request(1000, 900)).cached, 0, 'prompts under 1,024 tokens are never cached');
});

test('prompt cache: where the log\'s reads show the reply is not read back, the next prompt reads the previous prompt only', () => {
  // What a deepseek-reasoner run records (Calibration.replyCached false), given as the run's recorded reads.
  const c = new PromptCache('openai', 'gpt-4o', 0, Infinity, { replyCached: false });
  c.bill(request(5000, 0));
  c.output(300);
  // Only the previous prompt's 5,000 of the 5,300 unchanged tokens: 1,024 + 31 × 128 = 4,992 cached.
  assert.deepEqual(c.bill(request(5600, 5300)), { uncached: 608, cached: 4992, written: 0 });
  // By default the reply is held too: 1,024 + 33 × 128 = 5,248.
  const d = new PromptCache('openai', 'gpt-4o');
  d.bill(request(5000, 0));
  d.output(300);
  assert.deepEqual(d.bill(request(5600, 5300)), { uncached: 352, cached: 5248, written: 0 });
});

test('prompt cache: Anthropic reads the previous breakpoint and writes the rest; a break far back falls to the system prompt', () => {
  const c = new PromptCache('anthropic', 'claude-sonnet-4-5');
  const first = c.bill(request(20_000, 0, { system: 12_000, lastMessageEnd: 19_997, blocks: 30, unchangedBlocks: 0 }));
  assert.deepEqual(first, { uncached: 3, cached: 0, written: 19_997 });
  const second = c.bill(request(21_000, 19_997, { system: 12_000, lastMessageEnd: 20_997, blocks: 32, unchangedBlocks: 30 }));
  assert.deepEqual(second, { uncached: 3, cached: 19_997, written: 1000 }, 'reads the whole previous prompt, writes what is new at 1.25x');
  // A compaction changed block 5 of 40: no earlier breakpoint is reachable within 20 blocks, only the system prompt's.
  const broken = c.bill(request(15_000, 13_000, { system: 12_000, lastMessageEnd: 14_997, blocks: 40, unchangedBlocks: 5 }));
  assert.deepEqual(broken, { uncached: 3, cached: 12_000, written: 2997 });
  const warm = new PromptCache('anthropic', 'claude-sonnet-4-5', 5302);
  assert.deepEqual(warm.bill(request(14_282, 0, { system: 9000, lastMessageEnd: 14_278 })), { uncached: 4, cached: 5302, written: 8976 },
    'the first request of crud.jsonl: 5,302 tokens cached before the log began');
});

test('prompt cache: Gemini needs the model\'s minimum; none bills everything in full', () => {
  const g = new PromptCache('gemini', 'gemini-3-pro-preview');
  g.bill(request(3000, 0));
  assert.equal(g.bill(request(3500, 3000)).cached, 0, 'under 4,096 tokens for Gemini 3');
  g.bill(request(9000, 3500));
  assert.equal(g.bill(request(9500, 9000)).cached, 9000);
  const none = new PromptCache('none', 'x');
  none.bill(request(5000, 0));
  assert.deepEqual(none.bill(request(6000, 5000)), { uncached: 6000, cached: 0, written: 0 });
});
