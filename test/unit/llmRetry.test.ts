import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { backoffDelayMs, retryAfterMs, sleep } from '../../src/core/llm/retry';

const headers = (h: Record<string, string>) => ({ get: (n: string) => h[n] ?? null });

test('retry: backoff doubles per retry, stays under its ceiling, and jitters by at most half', () => {
  const opts = { baseDelayMs: 1000, maxDelayMs: 8000 };
  assert.deepEqual([1, 2, 3, 4, 5].map((r) => backoffDelayMs(r, opts, () => 1)), [1000, 2000, 4000, 8000, 8000]);
  assert.deepEqual([1, 2, 3].map((r) => backoffDelayMs(r, opts, () => 0)), [500, 1000, 2000]);
});

test('retry: retry-after is read as milliseconds, seconds or an HTTP date', () => {
  const now = Date.parse('2025-06-01T12:00:00Z');
  assert.equal(retryAfterMs(headers({ 'retry-after-ms': '250' }), now), 250);
  assert.equal(retryAfterMs(headers({ 'retry-after': '2' }), now), 2000);
  assert.equal(retryAfterMs(headers({ 'retry-after': 'Sun, 01 Jun 2025 12:00:30 GMT' }), now), 30_000);
  assert.equal(retryAfterMs(headers({ 'retry-after': 'soon' }), now), undefined);
  assert.equal(retryAfterMs(headers({}), now), undefined);
});

test('retry: a sleep ends at once when cancelled', async () => {
  const ac = new AbortController();
  const started = Date.now();
  setTimeout(() => ac.abort(new Error('stop')), 20);
  await assert.rejects(sleep(10_000, ac.signal), /stop/);
  assert.ok(Date.now() - started < 3000);
});
