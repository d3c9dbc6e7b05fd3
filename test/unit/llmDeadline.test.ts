// Issue 23 part 6: every model request has an overall deadline, and keep-alive bytes do not extend it.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { LlmError } from '../../src/core/llm/errors';
import { createOpenAiProvider, DEFAULT_REQUEST_DEADLINE_MS } from '../../src/core/llm/openaiProvider';
import { startFakeOpenAiServer } from '../helpers/fakeOpenAiServer';

const ask = { messages: [{ role: 'user' as const, content: 'Summarise: the agent ran pytest.' }] };

test('llm deadline: an endpoint that sends only SSE keep-alives is cut off at the request deadline', { timeout: 30_000 }, async () => {
  const server = await startFakeOpenAiServer();
  try {
    server.defaultReply = { kind: 'keepalive', intervalMs: 40 };
    // Start and idle timeouts far above the deadline: the keep-alives keep the idle timer quiet anyway.
    const provider = createOpenAiProvider({ baseUrl: server.baseUrl, model: 'gpt-4o-mini', timeoutMs: 60_000, idleTimeoutMs: 60_000, requestDeadlineMs: 700 });
    let error: unknown;
    try {
      await provider.complete(ask);
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof LlmError, `expected a deadline error, got ${String(error)}`);
    assert.equal(error.kind, 'timeout');
    assert.match(error.message, /did not finish within its deadline of 0\.7 s|deadline/);
    assert.match(error.message, /--request-deadline/);
    assert.equal(server.requests.length, 1, 'a request past its deadline is not retried');
  } finally {
    await server.close();
  }
});

test('llm deadline: the default is stated and is 300 s', () => {
  assert.equal(DEFAULT_REQUEST_DEADLINE_MS, 300_000);
});
