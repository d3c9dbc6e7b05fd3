import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { fakeChatModel, installFakeVscode, LanguageModelError, LanguageModelTextPart, LanguageModelToolCallPart, type SentRequest } from '../helpers/fakeVscodeLm';

const sent: SentRequest[] = [];
let parts: unknown[] | (() => never) = [];
const model = { get current() { return fakeChatModel(parts, sent); } };
// Each selectChatModels call returns a model that answers with whatever `parts` holds then.
installFakeVscode(new Proxy([] as unknown[], { get: (t, k) => (k === 'length' ? 1 : k === '0' ? model.current : Reflect.get(t, k)) }));
// Required after the fake is installed: the provider imports 'vscode' at load time.
const { selectLmProvider } = require('../../src/extension/lmProvider') as typeof import('../../src/extension/lmProvider');

test('vscode.lm: instructions travel as user messages, text streams to onDelta, and the endpoint says it is VS Code', async () => {
  parts = [new LanguageModelTextPart('USER_CONTEXT: fix '), new LanguageModelTextPart('ABC-123')];
  const provider = (await selectLmProvider())!;
  assert.match(provider.endpoint, /VS Code language model/);
  const deltas: string[] = [];
  const result = await provider.complete({
    messages: [{ role: 'system', content: 'You summarize.' }, { role: 'user', content: 'Events…' }, { role: 'assistant', content: 'ok' }],
    onDelta: (d) => deltas.push(d),
  });
  assert.equal(result.text, 'USER_CONTEXT: fix ABC-123');
  assert.deepEqual(deltas, ['USER_CONTEXT: fix ', 'ABC-123']);
  const request = sent[sent.length - 1];
  assert.deepEqual(request.messages.map((m) => m.role), ['user', 'user', 'assistant'], 'the LM API has no system role');
  assert.ok(request.options.justification, 'VS Code shows the justification when it asks for consent');
});

test('vscode.lm: a forced tool call requires the tool and returns its arguments; no call is an error', async () => {
  parts = [new LanguageModelToolCallPart('c1', 'record_state', { completed: ['edited card.py'] })];
  const provider = (await selectLmProvider())!;
  const tool = { name: 'record_state', description: 'state', parameters: { type: 'object' } };
  const result = await provider.complete({ messages: [{ role: 'user', content: 'x' }], tool });
  assert.deepEqual(result.toolArguments, { completed: ['edited card.py'] });
  const request = sent[sent.length - 1];
  assert.deepEqual(request.options.tools?.map((t) => t.name), ['record_state']);
  assert.equal(request.options.toolMode, 2, 'toolMode Required');
  parts = [new LanguageModelTextPart('I would rather chat.')];
  const chatty = (await selectLmProvider())!;
  await assert.rejects(chatty.complete({ messages: [{ role: 'user', content: 'x' }], tool }), /did not call record_state/);
});

test('vscode.lm: a refused permission becomes a message that says what to do; cancelling reaches the model', async () => {
  parts = () => { throw new LanguageModelError('denied', 'NoPermissions'); };
  const provider = (await selectLmProvider())!;
  await assert.rejects(provider.complete({ messages: [{ role: 'user', content: 'x' }] }), /Permission to use fake-gpt was denied/);
  parts = [new LanguageModelTextPart('partial')];
  const streaming = (await selectLmProvider())!;
  const abort = new AbortController();
  const pending = streaming.complete({ messages: [{ role: 'user', content: 'x' }], signal: abort.signal });
  abort.abort();
  await pending;
  assert.equal(sent[sent.length - 1].cancelled(), true, 'the abort signal cancels the VS Code request');
});

test('vscode.lm: a reply far larger than asked is cut off with an error (security.llm)', async () => {
  parts = Array.from({ length: 5000 }, () => new LanguageModelTextPart('x'.repeat(100)));
  const provider = (await selectLmProvider())!;
  const deltas: string[] = [];
  await assert.rejects(provider.complete({ messages: [{ role: 'user', content: 'x' }], maxOutputTokens: 100, onDelta: (d) => deltas.push(d) }), /far larger than asked \(100 tokens\)/);
  assert.ok(deltas.join('').length < 20_000, 'reading stopped near the cap');
});
