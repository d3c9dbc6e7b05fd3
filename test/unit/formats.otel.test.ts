import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { loadTrajectory } from '../../src/core/open';
import type { Step } from '../../src/core/model';
import { fixture, writeTemp } from '../helpers/paths';
import { loadRun } from '../helpers/runs';

const kinds = (t: { steps: Step[] }) => t.steps.map((s) => s.kind);
const kv = (attrs: Record<string, unknown>) => Object.entries(attrs).map(([key, v]) => ({
  key, value: typeof v === 'number' ? (Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v }) : { stringValue: String(v) },
}));
const otlp = (spans: Record<string, unknown>[]) => ({ resourceSpans: [{ resource: { attributes: kv({ 'service.name': 'agent' }) }, scopeSpans: [{ scope: { name: 'test' }, spans }] }] });
const span = (spanId: string, name: string, start: number, attrs: Record<string, unknown>, parent?: string) => ({
  traceId: 'a1b2', spanId, ...(parent ? { parentSpanId: parent } : {}), name, kind: 1,
  startTimeUnixNano: String(1_760_000_000_000_000_000 + start * 1_000_000), endTimeUnixNano: String(1_760_000_000_000_000_000 + start * 1_000_000 + 500_000),
  attributes: kv(attrs), status: { code: 1 },
});

test('otel: real any-agent traces (console-exporter span objects) read as calls, results and usage', async () => {
  const t = await loadRun(fixture('otel/any-agent-openai.trace.json'));
  assert.equal(t.format, 'otel');
  assert.deepEqual(kinds(t), ['system', 'user', 'tool_call', 'tool_result', 'tool_call', 'tool_result', 'assistant']);
  assert.equal(t.steps[2].tool?.name, 'get_current_time');
  assert.equal(t.steps[3].answers, 2);
  assert.match(t.steps[3].text, /"timezone": "America\/New_York"/);
  assert.deepEqual(t.steps[2].usage, { model: 'mistral/mistral-small-latest', inputTokens: 269, outputTokens: 16, cost: 2.69e-5 + 4.8e-6 });
  assert.equal(t.meta.agent, 'any_agent');
  assert.equal(t.meta.recorded?.inputTokens, 269 + 359 + 392);
  const lc = await loadRun(fixture('otel/any-agent-langchain.trace.json'));
  assert.equal(lc.format, 'otel');
  assert.equal(lc.steps.filter((s) => s.kind === 'tool_call').length, 2);
});

test('otel: OTLP exports written one after another, pretty-printed, with the current gen_ai message attributes', async () => {
  const first = otlp([
    span('s1', 'invoke_agent weather', 0, { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'weather' }),
    span('s2', 'chat gpt-4.1', 1, {
      'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4.1', 'gen_ai.response.model': 'gpt-4.1-2025-04-14',
      'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: 'Answer with the tool.' }]),
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] }]),
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }], finish_reason: 'tool_call' }]),
      'gen_ai.usage.input_tokens': 120, 'gen_ai.usage.output_tokens': 18, 'gen_ai.usage.cache_read.input_tokens': 64,
    }, 's1'),
    span('s3', 'execute_tool get_weather', 2, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_weather', 'gen_ai.tool.call.id': 'call_1', 'gen_ai.tool.call.result': 'Sunny, 24°C' }, 's1'),
  ]);
  const second = otlp([
    span('s4', 'chat gpt-4.1', 3, {
      'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4.1',
      'gen_ai.input.messages': JSON.stringify([
        { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
        { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }] },
        { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: 'Sunny, 24°C' }] },
      ]),
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'It is sunny in Paris, 24°C.' }] }]),
      'gen_ai.usage.input_tokens': 160, 'gen_ai.usage.output_tokens': 11,
    }, 's1'),
  ]);
  const file = writeTemp('traces.jsonl', JSON.stringify(first, null, 2) + '\n' + JSON.stringify(second, null, 2) + '\n');
  const t = await loadRun(file);
  assert.equal(t.format, 'otel');
  assert.deepEqual(kinds(t), ['system', 'user', 'tool_call', 'tool_result', 'assistant'], 'the resent history and the tool message already answered by the tool span add nothing');
  assert.equal(t.steps[2].tool?.args, '{"city":"Paris"}');
  assert.equal(t.steps[3].answers, 2);
  assert.deepEqual(t.steps[2].usage, { model: 'gpt-4.1-2025-04-14', inputTokens: 120, outputTokens: 18, cachedInputTokens: 64 });
  assert.equal(t.steps[4].text, 'It is sunny in Paris, 24°C.');
  assert.equal(t.meta.agent, 'weather');
  assert.equal(t.steps[0].location?.line, 1, 'the first document starts on line 1');
  assert.ok((t.steps[4].location?.line ?? 0) > 1, 'the second document is found where it starts');
});

test('otel: spans without message content still become steps with their tool, model and usage; traces become runs', async () => {
  const doc = otlp([
    span('a', 'chat claude-sonnet-4', 0, { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'claude-sonnet-4', 'gen_ai.usage.input_tokens': 40, 'gen_ai.usage.output_tokens': 9, 'gen_ai.usage.cache_read.input_tokens': 2000 }),
    span('b', 'execute_tool bash', 1, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'bash' }),
    { ...span('c', 'chat claude-sonnet-4', 2, { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'claude-sonnet-4', 'gen_ai.usage.input_tokens': 55, 'gen_ai.usage.output_tokens': 4 }), traceId: 'other' },
  ]);
  const t = await loadTrajectory(writeTemp('trace.json', JSON.stringify(doc)));
  assert.equal(t.format, 'otel');
  assert.equal(t.runs?.length, 2);
  const run = t.runs![0];
  assert.deepEqual(kinds(run), ['assistant', 'tool_call', 'tool_result']);
  assert.match(run.steps[0].label ?? '', /content not recorded/);
  // Cached reads larger than input_tokens: the provider counted them apart, so the prompt is their sum.
  assert.deepEqual(run.steps[0].usage, { model: 'claude-sonnet-4', inputTokens: 2040, outputTokens: 9, cachedInputTokens: 2000 });
  assert.equal(run.steps[1].tool?.name, 'bash');
  assert.equal(t.meta.recorded?.inputTokens, 2040 + 55);
});

test('otel: Jaeger JSON with the older gen_ai.prompt.N / completion.N attributes', async () => {
  const tags = (attrs: Record<string, unknown>) => Object.entries(attrs).map(([key, value]) => ({ key, type: typeof value === 'number' ? 'int64' : 'string', value }));
  const t = await loadRun(writeTemp('jaeger.json', JSON.stringify({ data: [{ traceID: 't1', processes: {}, spans: [{
    traceID: 't1', spanID: 'x1', operationName: 'openai.chat', references: [], startTime: 1_760_000_000_000_000, duration: 900,
    tags: tags({
      'llm.request.type': 'chat', 'gen_ai.system': 'openai', 'gen_ai.request.model': 'gpt-4o',
      'gen_ai.prompt.0.role': 'system', 'gen_ai.prompt.0.content': 'Be terse.', 'gen_ai.prompt.1.role': 'user', 'gen_ai.prompt.1.content': 'List files',
      'gen_ai.completion.0.role': 'assistant', 'gen_ai.completion.0.tool_calls.0.id': 'c9', 'gen_ai.completion.0.tool_calls.0.name': 'ls', 'gen_ai.completion.0.tool_calls.0.arguments': '{"dir":"."}',
      'gen_ai.usage.prompt_tokens': 30, 'gen_ai.usage.completion_tokens': 7,
    }),
  }] }] })));
  assert.equal(t.format, 'otel');
  assert.deepEqual(kinds(t), ['system', 'user', 'tool_call']);
  assert.deepEqual(t.steps[2].tool, { name: 'ls', args: '{"dir":"."}', callId: 'c9' });
  assert.deepEqual(t.steps[2].usage, { model: 'gpt-4o', inputTokens: 30, outputTokens: 7 });
});

test('otel: the console exporter\'s span stream with OpenInference attributes', async () => {
  const consoleSpan = (id: string, name: string, iso: string, attributes: Record<string, unknown>, parent: string | null) => ({
    name, context: { trace_id: '0xabc', span_id: id, trace_state: '[]' }, kind: 'SpanKind.INTERNAL', parent_id: parent,
    start_time: iso, end_time: iso, status: { status_code: 'UNSET' }, attributes, events: [], links: [], resource: { attributes: {}, schema_url: '' },
  });
  const stream = [
    consoleSpan('0x2', 'ChatCompletion', '2026-02-01T10:00:01.000000Z', {
      'openinference.span.kind': 'LLM', 'llm.model_name': 'gpt-4o-mini',
      'llm.input_messages.0.message.role': 'user', 'llm.input_messages.0.message.content': 'What is 2+2?',
      'llm.output_messages.0.message.role': 'assistant', 'llm.output_messages.0.message.content': '4',
      'llm.token_count.prompt': 12, 'llm.token_count.completion': 1,
    }, '0x1'),
    consoleSpan('0x1', 'Agent run', '2026-02-01T10:00:00.000000Z', { 'openinference.span.kind': 'AGENT' }, null),
  ].map((s) => JSON.stringify(s, null, 4)).join('\n');
  const t = await loadRun(writeTemp('spans.txt', stream));
  assert.equal(t.format, 'otel');
  assert.deepEqual(kinds(t), ['user', 'assistant']);
  assert.deepEqual(t.steps[1].usage, { model: 'gpt-4o-mini', inputTokens: 12, outputTokens: 1 });
  assert.equal(t.steps[1].timestamp, '2026-02-01T10:00:01.000Z');
});

test('otel: the JS SDK\'s own span objects with the Vercel AI SDK\'s ai.* attributes read as a tool loop, wrappers named', async () => {
  // Shaped as the OpenTelemetry JS SDK's ReadableSpan serializes (`spanContext`, `parentSpanContext`,
  // `[s, ns]` times, status code 2 = error), with the attributes the AI SDK writes
  // (Arize-ai/openinference's openinference-vercel fixtures use this shape, without parents).
  const js = (spanId: string, name: string, at: number, attributes: Record<string, unknown>, parent?: string, code = 0) => ({
    name, spanContext: { traceId: 'f00d', spanId }, ...(parent ? { parentSpanContext: { traceId: 'f00d', spanId: parent } } : {}),
    attributes: { 'ai.operationId': name, 'operation.name': name, ...attributes }, status: { code }, startTime: [1_770_131_992 + at, 242_000_000], endTime: [1_770_131_992 + at, 900_000_000], events: [],
  });
  const user = { role: 'user', content: [{ type: 'text', text: 'What is the Fed rate?' }] };
  const asked = { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'webSearch', input: { query: 'fed rate 2024' } }] };
  const answered = { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', toolName: 'webSearch', output: { type: 'json', value: { rate: '5.25%' } } }] };
  const spans = [
    js('w', 'ai.generateText', 0, { 'ai.prompt': '{"prompt":"What is the Fed rate?"}', 'ai.response.text': 'It is 5.25%.' }),
    js('g1', 'ai.generateText.doGenerate', 1, { 'ai.prompt.messages': JSON.stringify([user]), 'ai.model.id': 'gpt-4o-mini', 'ai.response.toolCalls': JSON.stringify([{ toolCallId: 'call_1', toolName: 'webSearch', input: '{"query":"fed rate 2024"}' }]), 'ai.usage.inputTokens': 40, 'ai.usage.outputTokens': 12 }, 'w'),
    js('t1', 'ai.toolCall', 2, { 'ai.toolCall.name': 'webSearch', 'ai.toolCall.id': 'call_1', 'ai.toolCall.args': '{"query":"fed rate 2024"}', 'ai.toolCall.result': '{"rate":"5.25%"}' }, 'w'),
    js('t2', 'ai.toolCall', 3, { 'ai.toolCall.name': 'fetchPage', 'ai.toolCall.id': 'call_2', 'ai.toolCall.args': '{"url":"x"}' }, 'w', 2),
    js('g2', 'ai.generateText.doGenerate', 4, { 'ai.prompt.messages': JSON.stringify([user, asked, answered]), 'ai.model.id': 'gpt-4o-mini', 'ai.response.text': 'It is 5.25%.', 'ai.usage.promptTokens': 90, 'ai.usage.completionTokens': 8 }, 'w'),
  ];
  const t = await loadRun(writeTemp('all-spans.json', JSON.stringify(spans)));
  assert.equal(t.format, 'otel');
  assert.deepEqual(kinds(t), ['user', 'tool_call', 'tool_result', 'tool_call', 'tool_result', 'assistant']);
  const [, call, result, failedCall, failed, reply] = t.steps;
  assert.equal(call.tool?.name, 'webSearch');
  assert.equal(result.answers, call.index, 'the tool span answers the call the model made, by id');
  assert.equal(result.text, '{"rate":"5.25%"}');
  assert.equal(failedCall.tool?.name, 'fetchPage');
  assert.equal(failed.isError, true, 'status code 2 is an error');
  assert.equal(reply.text, 'It is 5.25%.');
  assert.equal(t.steps[0].timestamp, '2026-02-03T15:19:53.242Z', 'times from [seconds, nanoseconds]');
  assert.equal(t.meta.recorded?.inputTokens, 130);
  assert.equal(t.meta.recorded?.outputTokens, 20);
  assert.equal(t.meta.model, 'gpt-4o-mini');
  assert.ok(t.coverage && t.coverage.skipped['other span (no model or tool call)'] === 1, 'the generateText wrapper is named, not lost');
});

test('otel: an AI SDK structured-output reply (ai.response.object) is the model\'s JSON, labelled as structured output', async () => {
  const spans = [{
    name: 'ai.generateObject.doGenerate', spanContext: { traceId: 'beef', spanId: 'o1' }, status: { code: 0 }, startTime: [1_770_131_992, 0], endTime: [1_770_131_993, 0], events: [],
    attributes: { 'ai.operationId': 'ai.generateObject.doGenerate', 'ai.prompt.messages': JSON.stringify([{ role: 'user', content: [{ type: 'text', text: 'A recipe for eggs.' }] }]), 'ai.response.object': '{"name":"Scrambled Eggs"}', 'ai.model.id': 'gpt-4o-mini' },
  }];
  const t = await loadRun(writeTemp('object-spans.json', JSON.stringify(spans)));
  assert.deepEqual(kinds(t), ['user', 'assistant']);
  assert.equal(t.steps[1].text, '{"name":"Scrambled Eggs"}');
  assert.equal(t.steps[1].label, 'ai.generateObject.doGenerate (structured output)');
});
