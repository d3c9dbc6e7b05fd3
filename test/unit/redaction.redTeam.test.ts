// Issue 23: the red team's input for the redactor, a 300 KB base64 run near the words "PRIVATE KEY"
// (150 s before the private-key rules became a linear scanner; timings are in bench/redact.bench.ts).
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { redactSecrets } from '../../src/core/llm/redact';

function b64(n: number): string {
  const a = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  let x = 11;
  let s = '';
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    s += a[(x >> 16) % 64];
  }
  return s;
}

test('redaction red team: 300 KB of base64 near "PRIVATE KEY" comes back whole (no key block in it)', { timeout: 60_000 }, () => {
  const text = `The PRIVATE KEY was rotated; the old blob follows:\n${b64(300 * 1024)}\n`;
  const r = redactSecrets(text);
  assert.equal(r.count, 0);
  assert.equal(r.text, text);
});

test('redaction red team: the same run cut into lines that end in an END line is removed up to that line', { timeout: 60_000 }, () => {
  const body = b64(300 * 1024).replace(/(.{64})/g, '$1\n').trimEnd();
  const r = redactSecrets(`log cut here\n${body}\n-----END PRIVATE KEY-----\nnext line`);
  assert.equal(r.text, 'log cut here\n[REDACTED:private-key]\nnext line');
  assert.deepEqual(r.kinds, { 'private-key': 1 });
});

test('redaction red team: many BEGIN lines with no END, and an unclosed block, each lose their body', { timeout: 60_000 }, () => {
  const blocks = Array.from({ length: 2000 }, (_, i) => `-----BEGIN RSA PRIVATE KEY-----\n${b64(64 + (i % 7))}\n`).join('note\n');
  const r = redactSecrets(blocks);
  assert.equal(r.count, 2000);
  assert.ok(!/[A-Za-z0-9+/]{60}/.test(r.text), 'no key body is left');
});
