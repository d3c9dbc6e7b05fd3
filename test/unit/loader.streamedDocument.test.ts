import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { test } from 'node:test';
import fc from 'fast-check';
import { JsonDocumentScanner } from '../../src/core/io/jsonDocumentStream';
import { compactorOf } from '../../src/core/open/compactor';
import { readTrajectoryFile } from '../../src/core/io/readFile';
import { FORMAT_ADAPTERS } from '../../src/core/formats/registry';
import type { Run } from '../../src/core/model';
import { corpus, writeTemp } from '../helpers/paths';
import { otlpDocument } from '../helpers/hostilePayloads';
import { loadRun } from '../helpers/runs';

// Documents over 16 MB are read element by element so that the file's bytes, its text and the
// parsed value are never all held at once (issue 14: memory under 3× the input). What the user
// sees must not change: `streamDocumentBytes` lowers the threshold so small files take that path.

const STREAMED = { streamDocumentBytes: 1 };
const WHOLE = { streamDocumentBytes: Number.POSITIVE_INFINITY };

function comparable(t: Run): unknown {
  return { format: t.format, title: t.title, records: t.records, steps: t.steps, meta: t.meta, warnings: t.warnings };
}

for (const rel of ['openhands-v0/basic_gui_mode.json', 'swe-agent/marshmallow-code__marshmallow-1867.traj']) {
  test(`${rel}: read element by element, the same trajectory as read whole`, async () => {
    const file = corpus(rel);
    const whole = await loadRun(file, WHOLE);
    const streamed = await loadRun(file, STREAMED);
    assert.ok(whole.steps.length > 5);
    assert.deepEqual(comparable(streamed), comparable(whole));
  });
}

test('a cut-off document still loads its complete records with the line where it breaks', async () => {
  const events = JSON.parse(fs.readFileSync(corpus('openhands-v0/basic_gui_mode.json'), 'utf8')) as unknown[];
  const text = JSON.stringify(events, null, 1);
  const file = writeTemp('cut.json', text.slice(0, Math.floor(text.length * 0.7)));
  const whole = await loadRun(file, WHOLE);
  const streamed = await loadRun(file, STREAMED);
  assert.match(streamed.warnings[0]?.message ?? '', /ends abruptly.*before line \d+/);
  assert.deepEqual(comparable(streamed), comparable(whole));
});

test('a chat document whose one message is most of the file reads the same both ways', async () => {
  const big = 'INFO build ok\n'.repeat(20_000);
  const file = writeTemp('one-message.json', JSON.stringify({ model: 'gpt-4o', messages: [
    { role: 'user', content: 'Build it.' },
    { role: 'assistant', content: 'Running.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"cmd":"make"}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: big },
    { role: 'assistant', content: 'Done.' },
  ] }));
  const streamed = await loadRun(file, STREAMED);
  assert.deepEqual(comparable(streamed), comparable(await loadRun(file, WHOLE)));
  assert.ok(streamed.steps.some((s) => s.text === big));
});

test('a top-level "__proto__" key is a plain field, as JSON.parse makes it, not the object\'s prototype', () => {
  const text = '{"__proto__": {"polluted": true}, "messages": [{"role": "user", "content": "hi"}]}';
  const scanner = new JsonDocumentScanner(1024);
  scanner.push(Buffer.from(text));
  const value = scanner.value as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(value), Object.prototype);
  assert.equal((value as { polluted?: boolean }).polluted, undefined);
  assert.deepEqual(Object.keys(value), Object.keys(JSON.parse(text) as object));
  assert.deepEqual(Object.getOwnPropertyDescriptor(value, '__proto__')?.value, { polluted: true });
});

// A string past `bigStringBytes` is unescaped in pieces as its chunks arrive. Every cut must give
// what JSON.parse gives: inside an escape (`\`, `\u00`), between the halves of an escaped surrogate
// pair or of a UTF-8 character, in a run of backslashes, in a key, in a top-level value.
function scanInChunks(text: string, chunkBytes: number, bigStringBytes: number, nestBytes?: number): unknown {
  const scanner = new JsonDocumentScanner(1 << 30, { bigStringBytes, nestBytes });
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += chunkBytes) scanner.push(bytes.subarray(i, i + chunkBytes));
  assert.ok(scanner.finished);
  return scanner.value;
}

test('strings read in pieces equal JSON.parse at every chunk size, whatever escapes they hold', () => {
  const body = 'ok \\ "quoted" \\\\ \u00e9\u4e2d\ud83d\ude00 \n\t\u0001 \\u0041 end';
  const doc = JSON.stringify({
    model: 'm', note: body.repeat(3),
    messages: [
      { role: 'tool', content: body.repeat(5), [`${body}key`]: 1 },
      body.repeat(4),
      { nested: [[{ deep: body.repeat(2) }]], other: 'short' },
    ],
  });
  const expected = JSON.parse(doc);
  for (let chunk = 1; chunk <= 23; chunk++) {
    for (const big of [1, 7, 40]) assert.deepEqual(scanInChunks(doc, chunk, big), expected, `chunks of ${chunk} bytes, strings over ${big} bytes`);
  }
});

test('a quote after a run of backslashes ends the string only when the run is even, at every cut', () => {
  // Values ending in 0–5 backslashes, and quotes escaped after runs of them: the scanner finds each
  // quote natively and counts the backslashes back, so a cut inside a run must not change the answer.
  const values = [0, 1, 2, 3, 4, 5].flatMap((k) => ['\\'.repeat(k), `a${'\\'.repeat(k)}"b`, `${'\\'.repeat(k)}"`]);
  const doc = JSON.stringify({ items: values.map((v) => ({ text: v, after: 'x' })) });
  const expected = JSON.parse(doc);
  for (let chunk = 1; chunk <= 17; chunk++) {
    for (const big of [1, 1 << 20]) assert.deepEqual(scanInChunks(doc, chunk, big), expected, `chunks of ${chunk} bytes, strings over ${big} bytes`);
  }
});

test('a string read in pieces is checked as JSON.parse checks it: a raw control character is an error that names the byte', () => {
  const doc = `[{"content": "${'a'.repeat(50)}\u0001${'b'.repeat(50)}"}]`;
  assert.throws(() => scanInChunks(doc, 8, 4), (e: Error) => e instanceof SyntaxError && /control character.*byte \d+/i.test(e.message));
  assert.throws(() => scanInChunks(`[{"content": "${'a'.repeat(50)}\\u12"}]`, 8, 4), SyntaxError);
});

test('text in the file that looks like a placeholder stays text', () => {
  const doc = JSON.stringify({ messages: [{ content: '\u0000atl-big-string:0000000000000000:0', big: 'x'.repeat(100) }] });
  assert.deepEqual(scanInChunks(doc, 5, 10), JSON.parse(doc));
});

test('any JSON document reads the same in pieces as with JSON.parse (property, fixed seed)', () => {
  const value = fc.oneof(fc.string({ unit: 'binary' }), fc.jsonValue());
  fc.assert(fc.property(fc.array(value, { maxLength: 6 }), fc.integer({ min: 1, max: 64 }), fc.integer({ min: 0, max: 16 }), (items, chunk, big) => {
    const doc = JSON.stringify({ meta: items[0] ?? null, messages: items });
    assert.deepEqual(scanInChunks(doc, chunk, big), JSON.parse(doc));
  }), { seed: 14015, numRuns: 400 });
});

// An item past `nestBytes` (an OTLP export's one resourceSpans entry holding every span) is read by
// a scanner of its own, which streams its arrays in turn: the same value at every nesting and cut.
test('items read by nested scanners equal JSON.parse at every size and chunk (property, fixed seed)', () => {
  const value = fc.oneof(fc.string({ unit: 'binary' }), fc.jsonValue({ maxDepth: 4 }));
  const nested = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: 'small' }, value, fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(fc.string({ maxLength: 4 }), tie('node'), { maxKeys: 4 })),
  })).node;
  fc.assert(fc.property(fc.array(nested, { maxLength: 5 }), fc.integer({ min: 1, max: 48 }), fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 40 }), (items, chunk, big, nest) => {
    const doc = JSON.stringify({ meta: items[0] ?? null, resourceSpans: [{ scopeSpans: [{ spans: items }] }], messages: items });
    assert.deepEqual(scanInChunks(doc, chunk, big, nest), JSON.parse(doc));
    const array = JSON.stringify([items, { items }]);
    assert.deepEqual(scanInChunks(array, chunk, big, nest), JSON.parse(array));
  }), { seed: 23023, numRuns: 400 });
});

test('a compact stand-in replaces each streamed element with the path it sits at, nested items included', () => {
  const doc = JSON.stringify({ resourceSpans: [{ resource: {}, scopeSpans: [{ spans: [{ spanId: 'a' }, { spanId: 'b' }] }] }], other: [1] });
  const seen: string[] = [];
  const scanner = new JsonDocumentScanner(1 << 30, { nestBytes: 8, compact: (path, value) => {
    seen.push(path.join('/'));
    return path.at(-2) === 'spans' ? `span ${(value as { spanId: string }).spanId}` : value;
  } });
  const bytes = Buffer.from(doc);
  for (let i = 0; i < bytes.length; i += 5) scanner.push(bytes.subarray(i, i + 5));
  assert.ok(scanner.finished);
  assert.deepEqual(seen, ['resourceSpans/0/scopeSpans/0/spans/0', 'resourceSpans/0/scopeSpans/0/spans/1', 'resourceSpans/0/scopeSpans/0', 'resourceSpans/0', 'other/0']);
  assert.deepEqual((scanner.value as { resourceSpans: { scopeSpans: { spans: unknown[] }[] }[] }).resourceSpans[0].scopeSpans[0].spans, ['span a', 'span b']);
});

test('a list a sink takes goes to it element by element, each stand-in made at its own index; other lists stay in the document', () => {
  const doc = JSON.stringify({ info: { id: 's' }, messages: [{ n: 0 }, { n: 1 }, { n: 2 }], tags: ['x'] });
  const compacted: string[] = [];
  const taken: [unknown, number][] = [];
  const offered: unknown[] = [];
  const scanner = new JsonDocumentScanner(1 << 30, {
    compact: (path, value) => {
      compacted.push(path.join('/'));
      return value;
    },
    openSink: (root, key, first) => {
      offered.push([key, JSON.stringify(root), first]);
      return key === 'messages' ? { add: (value, index) => taken.push([value, index]) } : undefined;
    },
  });
  const bytes = Buffer.from(doc);
  for (let i = 0; i < bytes.length; i += 3) scanner.push(bytes.subarray(i, i + 3));
  assert.ok(scanner.finished);
  // The opener sees the document as far as read, the list holding only its first element.
  assert.deepEqual(offered[0], ['messages', JSON.stringify({ info: { id: 's' }, messages: [{ n: 0 }] }), { n: 0 }]);
  assert.deepEqual(taken, [[{ n: 0 }, 0], [{ n: 1 }, 1], [{ n: 2 }, 2]]);
  assert.deepEqual(compacted, ['messages/0', 'messages/1', 'messages/2', 'tags/0']);
  assert.deepEqual(scanner.value, { info: { id: 's' }, messages: [], tags: ['x'] });
  assert.ok(scanner.sink);
});

test('an OTLP export read in parts, its spans read as they arrive, opens as the same trace as read whole', async () => {
  const doc = JSON.parse(otlpDocument(300)) as { resourceSpans: { scopeSpans: { spans: Record<string, unknown>[] }[] }[] };
  const spans = doc.resourceSpans[0].scopeSpans[0].spans;
  // A parent loop and an error span, so the cut link and its warning come out the same both ways.
  spans.find((s) => s.spanId === 'l0')!.parentSpanId = 'l1';
  spans.find((s) => s.spanId === 'l1')!.parentSpanId = 'l0';
  spans.find((s) => s.spanId === 't5')!.status = { code: 2, message: 'boom' };
  const file = writeTemp('trace-in-parts.json', JSON.stringify(doc));
  const whole = await loadRun(file, WHOLE);
  const inParts = { streamDocumentBytes: 1, chunkBytes: 4096, nestBytes: 10_000 };
  const streamed = await loadRun(file, inParts);
  // Read that way, the spans in the document are stand-ins (nothing to walk), not the raw spans.
  const read = await readTrajectoryFile(file, fs.statSync(file).size, { ...inParts, compactElement: compactorOf(FORMAT_ADAPTERS) }, () => undefined);
  const value = read.result?.input.shape === 'json' ? read.result.input.value as typeof doc : undefined;
  assert.deepEqual(Object.keys(value!.resourceSpans[0].scopeSpans[0].spans[0]), []);
  assert.equal(whole.format, 'otel');
  assert.ok(whole.steps.length > 800);
  assert.match(whole.warnings.map((w) => w.message).join('\n'), /in a loop/);
  assert.deepEqual(comparable(streamed), comparable(whole));
  assert.deepEqual(streamed.coverage, whole.coverage);
});

// JSON Lines records past `longLineBytes` are read as their bytes arrive (a Claude Code session
// whose one tool result is 200 MB): the same records as gathering each line and parsing it.
test('long JSON Lines records read as they arrive give the same trajectory, bad lines still named', async () => {
  for (const rel of ['claude-code/crud.jsonl', 'claude-code/compact.jsonl', 'codex/crud.jsonl']) {
    const file = corpus(rel);
    const whole = await loadRun(file, { longLineBytes: Number.POSITIVE_INFINITY });
    const streamed = await loadRun(file, { longLineBytes: 64, chunkBytes: 1000 });
    assert.ok(whole.steps.length > 5);
    assert.deepEqual(comparable(streamed), comparable(whole));
  }
  const big = 'INFO build ok \\u00e9 \\ud83d\\ude00 "quoted"\n'.repeat(2_000);
  const lines = [
    JSON.stringify({ role: 'user', content: 'Build it.' }),
    JSON.stringify({ role: 'assistant', content: 'Running.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"cmd":"make"}' } }] }),
    JSON.stringify({ role: 'tool', tool_call_id: 'c1', content: big }),
    `{"role": "tool", "content": "${'x'.repeat(500)}`, // cut off mid-record
    JSON.stringify({ role: 'assistant', content: 'Done.' }),
  ];
  const file = writeTemp('long-lines.jsonl', lines.join('\n') + '\n');
  const whole = await loadRun(file, { longLineBytes: Number.POSITIVE_INFINITY });
  const streamed = await loadRun(file, { longLineBytes: 100, chunkBytes: 777 });
  // The cut-off line is named either way; only the parser's words for what is wrong differ.
  const byLine = (t: Run) => ({ ...(comparable(t) as object), warnings: t.warnings.map((w) => w.line) });
  assert.deepEqual(byLine(streamed), byLine(whole));
  assert.ok(streamed.steps.some((s) => s.text === big));
  assert.match(streamed.warnings.map((w) => w.message).join('\n'), /line 4 is not valid JSON/);
});
