// The OpenAI-compatible provider, through the real `openai` client, against a real local server.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { LlmError } from '../../src/core/llm/errors';
import { createOpenAiProvider, type OpenAiProviderOptions, type RetryInfo } from '../../src/core/llm/openaiProvider';
import type { CompletionRequest } from '../../src/core/llm/provider';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../helpers/fakeOpenAiServer';

const KEY = 'sk-test-' + 'Qw3rTy9UiOp2AsDf5GhJk8Lz';
const SUMMARY_TOOL = {
  name: 'record_summary',
  description: 'Record the summary of the forgotten steps.',
  parameters: { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] },
};
const ask: CompletionRequest = {
  messages: [
    { role: 'system', content: 'You summarise agent trajectories.' },
    { role: 'user', content: 'Summarise: the agent ran pytest and fixed card.py.' },
  ],
};

async function withServer(fn: (server: FakeOpenAiServer) => Promise<void>): Promise<void> {
  const server = await startFakeOpenAiServer();
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

function provider(server: FakeOpenAiServer, extra: Partial<OpenAiProviderOptions> = {}) {
  return createOpenAiProvider({ baseUrl: server.baseUrl, apiKey: KEY, model: 'gpt-4o-mini', retryBaseDelayMs: 20, ...extra });
}

async function rejection(p: Promise<unknown>): Promise<LlmError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof LlmError, `expected an LlmError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected the call to fail');
}

test('llm: a streamed reply arrives in pieces, with usage, and the request is what the client should send', async () => {
  await withServer(async (server) => {
    server.script({ text: 'The agent fixed the float parsing in card.py.', chunkSize: 5, usage: { prompt_tokens: 1234, completion_tokens: 11 } });
    const deltas: string[] = [];
    const result = await provider(server).complete({ ...ask, onDelta: (t) => deltas.push(t) });
    assert.equal(result.text, 'The agent fixed the float parsing in card.py.');
    assert.ok(deltas.length >= 9, `expected many deltas, got ${deltas.length}`);
    assert.equal(deltas.join(''), result.text);
    assert.deepEqual(result.usage, { inputTokens: 1234, outputTokens: 11 });
    assert.equal(result.finishReason, 'stop');
    assert.equal(result.model, 'gpt-4o-mini');

    assert.equal(server.requests.length, 1);
    const { headers, body, url } = server.requests[0];
    assert.equal(url, '/v1/chat/completions');
    assert.equal(headers.authorization, `Bearer ${KEY}`);
    assert.equal(body.model, 'gpt-4o-mini');
    assert.equal(body.temperature, 0);
    assert.equal(body.stream, true);
    assert.deepEqual(body.stream_options, { include_usage: true });
    assert.deepEqual(body.messages, ask.messages);
    assert.equal(body.tools, undefined);
  });
});

test('llm: secrets in the messages are redacted before the request leaves, and counted', async () => {
  await withServer(async (server) => {
    const token = 'ghp_' + 'aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1eF3hJ5';
    const result = await provider(server).complete({
      messages: [{ role: 'user', content: `Observation: git push https://bot:${token}@github.com/acme/app.git\nDB_PASSWORD=hunter22` }],
    });
    const sent = JSON.stringify(server.requests[0].body);
    assert.ok(!sent.includes(token) && !sent.includes('hunter22'), sent);
    assert.match(server.requests[0].body.messages[0].content, /https:\/\/bot:\[REDACTED:github-token\]@github\.com/);
    assert.deepEqual(result.redactions, { count: 2, kinds: { 'github-token': 1, password: 1 } });
  });
});

test('llm: a forced function call names the function and its streamed arguments are parsed', async () => {
  await withServer(async (server) => {
    server.script({ kind: 'tool', arguments: '{"summary": "Ran pytest; fixed card.py."}', chunkSize: 3 });
    const result = await provider(server).complete({ ...ask, tool: SUMMARY_TOOL });
    assert.deepEqual(result.toolArguments, { summary: 'Ran pytest; fixed card.py.' });
    const body = server.requests[0].body;
    assert.deepEqual(body.tool_choice, { type: 'function', function: { name: 'record_summary' } });
    assert.equal(body.tools[0].function.name, 'record_summary');
    assert.deepEqual(body.tools[0].function.parameters, SUMMARY_TOOL.parameters);
  });
});

test('llm: without streaming, text and tool calls come from the JSON reply', async () => {
  await withServer(async (server) => {
    server.script({ text: 'Short summary.', usage: { prompt_tokens: 9, completion_tokens: 3 } }, { kind: 'tool', arguments: '{"summary":"x"}' });
    const p = provider(server, { stream: false });
    const plain = await p.complete(ask);
    assert.equal(plain.text, 'Short summary.');
    assert.deepEqual(plain.usage, { inputTokens: 9, outputTokens: 3 });
    assert.equal(server.requests[0].body.stream, false);
    const called = await p.complete({ ...ask, tool: SUMMARY_TOOL });
    assert.deepEqual(called.toolArguments, { summary: 'x' });
  });
});

test('llm: tool-call arguments that are not JSON give a clear malformed error', async () => {
  await withServer(async (server) => {
    server.script({ kind: 'tool', arguments: '{"summary": "Ran pytest; fix' });
    const err = await rejection(provider(server).complete({ ...ask, tool: SUMMARY_TOOL }));
    assert.equal(err.kind, 'malformed');
    assert.match(err.message, /arguments for "record_summary" that are not valid JSON/);
  });
});

test('llm: 401 says the key was rejected, is not retried, and never shows the key', async () => {
  await withServer(async (server) => {
    // Some servers echo the key they were given; the message must still not contain it.
    server.script({ kind: 'status', status: 401, message: `Incorrect API key provided: ${KEY}.` });
    const err = await rejection(provider(server).complete(ask));
    assert.equal(err.kind, 'auth');
    assert.equal(err.status, 401);
    assert.match(err.message, /rejected the API key \(HTTP 401\)/);
    assert.ok(!err.message.includes(KEY) && !err.stack?.includes(KEY), err.message);
    assert.ok(!JSON.stringify(err).includes(KEY));
    assert.equal(server.requests.length, 1);
    assert.equal(server.requests[0].headers.authorization, `Bearer ${KEY}`, 'the key did reach the server');
  });
});

test('llm: 429 with retry-after is waited out as asked, then the retry succeeds', async () => {
  await withServer(async (server) => {
    server.script({ kind: 'status', status: 429, headers: { 'retry-after': '1' } }, { text: 'after the wait' });
    const retries: RetryInfo[] = [];
    const started = Date.now();
    const result = await provider(server, { onRetry: (r) => retries.push(r) }).complete(ask);
    const waited = server.requests[1].at - server.requests[0].at;
    assert.equal(result.text, 'after the wait');
    assert.equal(server.requests.length, 2);
    assert.ok(waited >= 950, `waited only ${waited} ms`);
    assert.ok(Date.now() - started < 5000);
    assert.equal(retries.length, 1);
    assert.equal(retries[0].delayMs, 1000);
    assert.equal(retries[0].error.kind, 'rate-limit');
  });
});

test('llm: 503 then success is retried with backoff', async () => {
  await withServer(async (server) => {
    server.script({ kind: 'status', status: 503 }, { kind: 'status', status: 503 }, { text: 'third time' });
    const result = await provider(server).complete(ask);
    assert.equal(result.text, 'third time');
    assert.equal(server.requests.length, 3);
  });
});

test('llm: 500 forever ends with a server error after 1 + maxRetries attempts', async () => {
  await withServer(async (server) => {
    server.defaultReply = { kind: 'status', status: 500, message: 'upstream exploded' };
    const err = await rejection(provider(server, { maxRetries: 2 }).complete(ask));
    assert.equal(err.kind, 'server');
    assert.equal(err.attempts, 3);
    assert.equal(server.requests.length, 3);
    assert.match(err.message, /failed \(HTTP 500\).*upstream exploded.*Gave up after 3 attempts/);
  });
});

test('llm: an exhausted quota (429 insufficient_quota) is not retried', async () => {
  await withServer(async (server) => {
    server.script({ kind: 'status', status: 429, code: 'insufficient_quota', message: 'You exceeded your current quota.' });
    const err = await rejection(provider(server).complete(ask));
    assert.equal(err.kind, 'rate-limit');
    assert.match(err.message, /quota .* is used up/);
    assert.equal(server.requests.length, 1);
  });
});

test('llm: a retry-after longer than the allowed wait fails at once instead of hanging', async () => {
  await withServer(async (server) => {
    server.script({ kind: 'status', status: 429, headers: { 'retry-after': '3600' } });
    const started = Date.now();
    const err = await rejection(provider(server, { maxRetryAfterMs: 10_000 }).complete(ask));
    assert.equal(err.kind, 'rate-limit');
    assert.match(err.message, /asks to wait 3600 s/);
    assert.ok(Date.now() - started < 5000);
  });
});

test('llm: a stalled stream ends with a timeout within the idle time, keeping what arrived', async () => {
  await withServer(async (server) => {
    server.script({ kind: 'stall', firstText: 'The agent first' });
    const deltas: string[] = [];
    const started = Date.now();
    const err = await rejection(provider(server, { idleTimeoutMs: 300 }).complete({ ...ask, onDelta: (t) => deltas.push(t) }));
    const elapsed = Date.now() - started;
    assert.equal(err.kind, 'timeout');
    assert.match(err.message, /stopped arriving/);
    assert.ok(elapsed >= 250 && elapsed < 3000, `took ${elapsed} ms`);
    assert.deepEqual(deltas, ['The agent first'], 'text shown before the stall was delivered');
    assert.equal(server.requests.length, 1, 'a stream that already showed text is not re-requested');
  });
});

test('llm: a reply that does not start within timeoutMs is a timeout', async () => {
  await withServer(async (server) => {
    server.script({ text: 'too late', delayMs: 5000 });
    const started = Date.now();
    const err = await rejection(provider(server, { timeoutMs: 300 }).complete(ask));
    assert.equal(err.kind, 'timeout');
    assert.match(err.message, /No reply from http:\/\/127\.0\.0\.1:\d+\/v1 within 300 ms/);
    assert.ok(Date.now() - started < 3000);
  });
});

test('llm: a slow reply inside the timeout is simply waited for', async () => {
  await withServer(async (server) => {
    server.script({ text: 'worth the wait', delayMs: 400 });
    const result = await provider(server, { timeoutMs: 3000 }).complete(ask);
    assert.equal(result.text, 'worth the wait');
  });
});

test('llm: malformed JSON, in a whole reply or inside a stream, is a malformed error', async () => {
  await withServer(async (server) => {
    server.script({ kind: 'malformed' }, { kind: 'malformed' });
    const whole = await rejection(provider(server, { stream: false, maxRetries: 0 }).complete(ask));
    assert.equal(whole.kind, 'malformed');
    assert.match(whole.message, /not valid JSON/);
    const streamed = await rejection(provider(server, { maxRetries: 0 }).complete(ask));
    assert.equal(streamed.kind, 'malformed');
  });
});

test('llm: a stream that stops without finishing is malformed, not a short answer', async () => {
  await withServer(async (server) => {
    server.script({ kind: 'cut', text: 'The agent ran pyt' });
    const err = await rejection(provider(server).complete(ask));
    assert.equal(err.kind, 'malformed');
    assert.match(err.message, /ended before the reply was complete/);
  });
});

test('llm: cancelling stops a waiting request and a retry wait at once', async () => {
  await withServer(async (server) => {
    server.script({ kind: 'stall' }, { kind: 'status', status: 429, headers: { 'retry-after': '30' } });
    const first = new AbortController();
    // Cancel once the server holds the request: cancelling earlier would leave the stall for the next one.
    void server.received(1).then(() => first.abort());
    let started = Date.now();
    const stalled = await rejection(provider(server).complete({ ...ask, signal: first.signal }));
    assert.equal(stalled.kind, 'cancelled');
    assert.ok(Date.now() - started < 5000);

    const second = new AbortController();
    started = Date.now();
    const p = provider(server, { onRetry: () => second.abort() }).complete({ ...ask, signal: second.signal });
    const waiting = await rejection(p);
    assert.equal(waiting.kind, 'cancelled');
    assert.ok(Date.now() - started < 5000, 'did not sit out the 30 s retry-after');
  });
});

test('llm: an endpoint that is not listening is a network error', async () => {
  const server = await startFakeOpenAiServer();
  const baseUrl = server.baseUrl;
  await server.close();
  const err = await rejection(createOpenAiProvider({ baseUrl, apiKey: KEY, model: 'm', maxRetries: 1, retryBaseDelayMs: 10 }).complete(ask));
  assert.equal(err.kind, 'network');
  assert.match(err.message, /Could not reach http:\/\/127\.0\.0\.1:\d+\/v1.*Gave up after 2 attempts/);
});

test('llm: a parameter the endpoint refuses (temperature on reasoning models) is dropped and the call retried', async () => {
  await withServer(async (server) => {
    server.script({ kind: 'status', status: 400, message: "Unsupported value: 'temperature' does not support 0 with this model." }, { text: 'fine' });
    const result = await provider(server).complete(ask);
    assert.equal(result.text, 'fine');
    assert.equal(server.requests[0].body.temperature, 0);
    assert.equal('temperature' in server.requests[1].body, false);
  });
});

test('llm: query parameters in the base URL (Azure api-version) are sent on every request', async () => {
  await withServer(async (server) => {
    const p = createOpenAiProvider({ baseUrl: `${server.baseUrl}?api-version=2024-10-21`, apiKey: KEY, model: 'm' });
    await p.complete(ask);
    assert.equal(server.requests[0].url, '/v1/chat/completions?api-version=2024-10-21');
    assert.equal(p.endpoint, server.baseUrl);
  });
});
