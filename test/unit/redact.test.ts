import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { describeRedactions, redactSecrets } from '../../src/core/llm/redact';
import { corpus } from '../helpers/paths';

// Secrets assembled at run time so this file itself does not look like a leaked key to scanners.
const OPENAI_KEY = 'sk-proj-' + 'Xk3vR9tLq2ZmW8yPa1Bc4De5Fg6Hi7Jk8Lm9No0Pq1Rs2Tu3';
const ANTHROPIC_KEY = 'sk-ant-api03-' + 'Zq8Rt5Ww2Yy7Uu4Ii1Oo9Pp6Aa3Ss0Dd8Ff5Gg2Hh-AbCd12';
const OPENROUTER_KEY = 'sk-or-v1-' + '0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0';
const GITHUB_PAT = 'ghp_' + 'aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1eF3hJ5';
const GITHUB_FINE = 'github_pat_' + '11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789';
const AWS_ID = 'AKIA' + 'IOSFODNN7EXAMPLE';
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/' + 'bPxRfiCYEXAMPLEKEY';
const SLACK = 'xoxb-' + '123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx';
const GOOGLE = 'AIza' + 'SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q';
const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.' + 'eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFkYSJ9.' + 'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
const PEM_BODY = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\nMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu\n';
const PEM = `-----BEGIN PRIVATE KEY-----\n${PEM_BODY}-----END PRIVATE KEY-----`;

test('redact: an agent log full of secrets keeps its meaning but loses every secret', () => {
  const log = [
    '$ cat .env',
    `OPENAI_API_KEY=${OPENAI_KEY}`,
    `ANTHROPIC_API_KEY=${ANTHROPIC_KEY}`,
    `OPENROUTER_KEY=${OPENROUTER_KEY}`,
    'DB_PASSWORD=supersecret',
    `AWS_ACCESS_KEY_ID=${AWS_ID}`,
    `aws_secret_access_key = ${AWS_SECRET}`,
    `$ git remote add origin https://x-access-token:${GITHUB_PAT}@github.com/acme/app.git`,
    `$ export GH_TOKEN=${GITHUB_FINE}`,
    `$ curl -H "Authorization: Bearer ${JWT}" https://api.example.com/v1/me`,
    `config = {"slack_token": "${SLACK}", "maps_key": "${GOOGLE}"}`,
    'DATABASE_URL=postgres://admin:Pa55w0rd!@db.internal:5432/app',
    'password: hunter2',
    `Observation: {"key_file": "${PEM.replace(/\n/g, '\\n')}"}`,
    '$ ./deploy.sh --token Tk9f2Lm4Qp8Zx1Vb',
  ].join('\n');
  const r = redactSecrets(log);
  for (const secret of [OPENAI_KEY, ANTHROPIC_KEY, OPENROUTER_KEY, 'supersecret', AWS_ID, AWS_SECRET, GITHUB_PAT, GITHUB_FINE, JWT, SLACK, GOOGLE, 'Pa55w0rd!', 'hunter2', 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC', 'Tk9f2Lm4Qp8Zx1Vb']) {
    assert.ok(!r.text.includes(secret), `still contains ${secret.slice(0, 12)}…:\n${r.text}`);
  }
  // What was removed is named, and the surrounding text survives.
  assert.match(r.text, /^OPENAI_API_KEY=\[REDACTED:openai-key\]$/m);
  assert.match(r.text, /ANTHROPIC_API_KEY=\[REDACTED:anthropic-key\]/);
  assert.match(r.text, /OPENROUTER_KEY=\[REDACTED:openrouter-key\]/);
  assert.match(r.text, /https:\/\/x-access-token:\[REDACTED:github-token\]@github\.com\/acme\/app\.git/);
  assert.match(r.text, /postgres:\/\/admin:\[REDACTED:url-password\]@db\.internal:5432\/app/);
  assert.match(r.text, /Authorization: Bearer \[REDACTED:(jwt|bearer-token)\]" https:\/\/api\.example\.com/);
  assert.match(r.text, /"key_file": "\[REDACTED:private-key\]"/);
  assert.match(r.text, /AWS_ACCESS_KEY_ID=\[REDACTED:aws-access-key\]/);
  assert.match(r.text, /aws_secret_access_key = \[REDACTED:aws-secret\]/);
  assert.match(r.text, /"slack_token": "\[REDACTED:slack-token\]", "maps_key": "\[REDACTED:google-api-key\]"/);
  assert.match(r.text, /DB_PASSWORD=\[REDACTED:password\]/);
  assert.match(r.text, /^password: \[REDACTED:password\]$/m);
  assert.match(r.text, /--token \[REDACTED:token\]/);
  assert.equal(r.count, 15);
  assert.equal(r.kinds['github-token'], 2);
  assert.equal(describeRedactions(r).startsWith('15 ('), true);
});

test('redact: a multi-line PEM private key block is removed whole', () => {
  const text = `Here is the deploy key:\n-----BEGIN RSA PRIVATE KEY-----\n${PEM_BODY}-----END RSA PRIVATE KEY-----\nand the public part is fine.`;
  const r = redactSecrets(text);
  assert.equal(r.text, 'Here is the deploy key:\n[REDACTED:private-key]\nand the public part is fine.');
  assert.deepEqual(r.kinds, { 'private-key': 1 });
});

test('redact: ordinary code, hashes, UUIDs and prose are left exactly as they are', () => {
  const text = [
    'commit 9fceb02d0ae598e95dc970b74767f19372d61af8',
    'Merge: 1a410ef 7c2e3f1',
    'sha256:4bc453b53cb3d914b45f4b250294236adba2c0e09ff6f03793949e7e39fd4cc1',
    'request_id=3f2b8c1e-9d4a-4f6b-8e2c-1a5d7b9c0e3f',
    '"integrity": "sha512-Ub5pfMH4MeFYMI4jaGSDQuPz3f7N0mJ5wL0lUmgPXbK6F7s0AXGZeUQpV2AYJ9sNwGNLDxSUVdG2pW7b+e7AJA=="',
    'def login(user, password=None):',
    '    token = tokens[i]',
    '    secret = os.environ["APP_SECRET"]',
    '    if password == stored_password: return True',
    'interface Session { token: string; password?: string }',
    'const apiKey = process.env.OPENAI_API_KEY;',
    'api_key=os.getenv("OPENAI_API_KEY")',
    '"usage": {"max_tokens": 1024, "token": 512, "prompt_tokens": 2048}',
    'from sklearn.model_selection import train_test_split  # sk-learn-compatible-estimator-api',
    'GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}',
    'password: <your password here>',
    'git clone https://github.com/psf/requests.git && ssh git@github.com',
    'Update the remote URL to include the current token: `git remote set-url origin https://${GITHUB_TOKEN}@github.com/u/r.git`',
    'The task-orchestrator-service-handler-v2 failed; see https://user@example.com/docs',
    // A wild-log path: an owner, a repository whose name runs words together, a session id.
    'wild/files/MQFacultyOfArts__PromptGrimoireTool/8c497bed-b719-4cb2-9cc6-2d8a507f51e8.jsonl',
  ].join('\n');
  const r = redactSecrets(text);
  assert.equal(r.text, text);
  assert.equal(r.count, 0);
  assert.equal(describeRedactions(r), 'none found');
});

test('redact: redacting twice changes nothing more', () => {
  const once = redactSecrets(`token="${GITHUB_PAT}" and https://bob:hunter22@example.org/`);
  assert.equal(once.count, 2);
  const twice = redactSecrets(once.text);
  assert.equal(twice.text, once.text);
  assert.equal(twice.count, 0);
});

test('redact: real trajectories from the corpus contain no false positives', () => {
  for (const rel of ['swe-agent/marshmallow-code__marshmallow-1867.traj', 'openhands-eval/output.jsonl', 'codex/crud.jsonl']) {
    const r = redactSecrets(fs.readFileSync(corpus(rel), 'utf8'));
    assert.equal(r.count, 0, `${rel}: ${JSON.stringify(r.kinds)}`);
  }
});

test('a random folder name in a path is redacted alone: the names after it stay, and a git hash between names is a name', () => {
  // Real paths from sweep 7 (a Modal volume under a Gemini CLI eval; Codex's plugin cache). The
  // redaction swallowed '/gemini' of the next folder, or five folders and the file name.
  assert.equal(redactSecrets('cd /__modal/volumes/vo-LZXgyEA0fH4u43jERJ6kyh/gemini-3-pro-preview/010ac575-1280 && ls').text,
    'cd /__modal/volumes/vo-[REDACTED:high-entropy]/gemini-3-pro-preview/010ac575-1280 && ls');
  const plugin = 'C:/Users/dev/.codex/plugins/cache/openai-curated/cloudflare/314574a046f2e1c0b9d8a7f6e5d4c3b2a1f09b7a/skills/cloudflare/SKILL.md';
  assert.equal(redactSecrets(plugin).text, plugin);
  // A value that is all random, '/' and all (base64 holds it), is still one secret.
  assert.equal(redactSecrets('value: 3q2+7wZx9Kq2Lm8Np4R/t6Vw1Yb3Dc5Fg7Hj0KaB+q').text, 'value: [REDACTED:high-entropy]');
});
