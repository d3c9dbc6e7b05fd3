import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { redactSecrets } from '../../src/core/llm/redact';
import { leakedFragments, SEEDED_SECRETS } from '../helpers/seededSecrets';

test('redaction: the table holds at least 60 secrets over JSON, env files, shell lines, URLs and key blocks', () => {
  assert.ok(SEEDED_SECRETS.length >= 60, `only ${SEEDED_SECRETS.length} rows`);
  const where = new Set(SEEDED_SECRETS.map((s) => s.where));
  for (const w of ['json', 'env', 'shell', 'url', 'block']) assert.ok(where.has(w), `no ${w} rows`);
  const blocks = SEEDED_SECRETS.filter((s) => s.where === 'block').map((s) => s.text).join('\n');
  for (const head of ['BEGIN PRIVATE KEY', 'BEGIN PGP PRIVATE KEY BLOCK', 'PuTTY-User-Key-File-3']) assert.ok(blocks.includes(head), head);
});

for (const row of SEEDED_SECRETS) {
  test(`redaction: ${row.name} (${row.where}) is removed and named`, () => {
    const r = redactSecrets(row.text);
    assert.deepEqual(leakedFragments(r.text, row.secret), [], `leaked from:\n${row.text}\nafter:\n${r.text}`);
    assert.ok(r.count >= 1, 'counted');
    assert.match(r.text, /\[REDACTED:[a-z-]+\]/);
    // Idempotent: a second pass finds nothing more.
    assert.equal(redactSecrets(r.text).count, 0, `second pass over:\n${r.text}`);
  });
}

test('redaction: all secrets in one log are all removed, and each is counted', () => {
  const log = SEEDED_SECRETS.map((s) => s.text).join('\n\n');
  const r = redactSecrets(log);
  const leaks = SEEDED_SECRETS.filter((s) => leakedFragments(r.text, s.secret).length > 0).map((s) => s.name);
  assert.deepEqual(leaks, []);
  assert.ok(r.count >= SEEDED_SECRETS.length, `counted ${r.count} for ${SEEDED_SECRETS.length} seeded`);
});

test('redaction: the text around a secret stays readable (keys, hosts, headers kept)', () => {
  const r = (t: string) => redactSecrets(t).text;
  assert.equal(r('REDIS_URL=redis://:h0neyBadger77@cache.internal:6379/0'), 'REDIS_URL=redis://:[REDACTED:url-password]@cache.internal:6379/0');
  assert.equal(r('mysql -u root -pW1ldcat_Rain -h 127.0.0.1 shop'), 'mysql -u root -p[REDACTED:password] -h 127.0.0.1 shop');
  assert.equal(r('{"dbPassword": "corvid&Lantern7"}'), '{"dbPassword": "[REDACTED:password]"}');
  assert.equal(r('machine api.heroku.com login ada@example.com password h3roku-Cloud-7'), 'machine api.heroku.com login ada@example.com password [REDACTED:password]');
  assert.match(r('Cookie: sessionid=abcdef0123456789; theme=dark'), /^Cookie: \[REDACTED:cookie\]$/);
  const sas = r('https://a.blob.core.windows.net/c/f?sv=2022-11-02&sp=r&sig=AbCdEf0123456789%2BxyzXYZ%3D');
  assert.equal(sas, 'https://a.blob.core.windows.net/c/f?sv=2022-11-02&sp=r&sig=[REDACTED:azure-sas]');
  const ppk = r('PuTTY-User-Key-File-3: ssh-ed25519\nPublic-Lines: 1\nAAAAC3NzaC1lZDI1NTE5\nPrivate-Lines: 1\nAAAAIBxyzxyzxyzxyzxyzxyzxyz0123\nPrivate-MAC: 0a1b2c3d');
  assert.match(ppk, /Public-Lines: 1\nAAAAC3NzaC1lZDI1NTE5\nPrivate-Lines: 1\n\[REDACTED:putty-private-key\]$/);
});

test('redaction: a key block cut at either end still loses its body', () => {
  const body = Array.from({ length: 12 }, (_, i) => `QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAx${i}`).join('\n');
  const noEnd = redactSecrets(`-----BEGIN RSA PRIVATE KEY-----\n${body}\n[... Observation truncated due to length ...]`);
  assert.ok(!noEnd.text.includes('QUJDREVGR0hJSktM'), noEnd.text);
  const noBegin = redactSecrets(`[... Observation truncated due to length ...]\n${body}\n-----END RSA PRIVATE KEY-----\ndone`);
  assert.ok(!noBegin.text.includes('QUJDREVGR0hJSktM'), noBegin.text);
  assert.match(noBegin.text, /done$/);
});

test('redaction: git SHAs, UUIDs, base64 images, hashes and ordinary code are left alone', () => {
  const png = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==' + 'A'.repeat(400) + 'QUFBQUFB'.repeat(50);
  const text = [
    'commit 9fceb02d0ae598e95dc970b74767f19372d61af8',
    '{"id": "3f2b8c1e-9d4a-4f6b-8e2c-1a5d7b9c0e3f", "parent_id": "a3c1e2f4-5b6d-4e7f-8a9b-0c1d2e3f4a5b"}',
    `{"type": "image_url", "image_url": {"url": "${png}"}}`,
    'sha256:4bc453b53cb3d914b45f4b250294236adba2c0e09ff6f03793949e7e39fd4cc1',
    'const token = tokens[i]; const sessionToken = await getToken();',
    'cancellationToken: CancellationToken.None, nextToken: string | undefined',
    '"usage": {"max_tokens": 1024, "inputTokens": 512, "outputTokens": 64}',
    'Basic configuration: set the port in config.yaml',
    'mysql -u root -P 3306 -h db shop',
    'pip install scikit-learn  # sk-learn-compatible',
    'The cookie policy: see docs/cookies.md',
    'machine learning password manager comparison',
    'export TOKEN_COUNT=$(wc -l < tokens.txt)',
  ].join('\n');
  const r = redactSecrets(text);
  assert.equal(r.text, text, JSON.stringify(r.kinds));
  assert.equal(r.count, 0);
});
