import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { readTrajectoryFile } from '../../src/core/io/readFile';
import type { Run, TrajectoryFile } from '../../src/core/model';
import { loadTrajectory, parseTrajectoryText } from '../../src/core/open';
import { elementSinkOpener, recordSinkOpener } from '../../src/core/open/streamed';
import { fixture, writeTemp } from '../helpers/paths';
import { geminiRewinds, opencodeSummaries, otlpDocument, spanStream } from '../helpers/hostilePayloads';

// Issue 23: a read that keeps nothing hands JSON Lines records to the adapter one by one
// (`recordParser`) and lets an OpenCode export's messages go as they become steps. What the tree
// shows must not change: each file opens to the same trajectory as its text parsed with every
// record kept (`parseTrajectoryText`), coverage and warnings included.

const jsonl = (lines: unknown[]) => lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n');

function shown(t: TrajectoryFile): unknown {
  const run = (r: Run) => ({ format: r.format, title: r.title, records: r.records, steps: r.steps, meta: r.meta, warnings: r.warnings, coverage: r.coverage });
  return { format: t.format, title: t.title, records: t.records, holdsRuns: t.holdsRuns, meta: t.meta, warnings: t.warnings, coverage: t.coverage, runs: t.runs.map(run) };
}

const stepsOf = (t: TrajectoryFile) => t.runs.flatMap((r) => r.steps);

async function sameEitherWay(file: string, streamed: boolean): Promise<TrajectoryFile> {
  const loaded = await loadTrajectory(file);
  const text = parseTrajectoryText(fs.readFileSync(file, 'utf8'), { path: file, size: fs.statSync(file).size });
  assert.deepEqual(shown(loaded), shown(text));
  // The records really went to a sink (or, for a document, did not): the comparison above is between two paths.
  const read = await readTrajectoryFile(file, fs.statSync(file).size, { openRecordSink: recordSinkOpener(file, {}), openElementSink: elementSinkOpener(file, {}) }, () => undefined);
  assert.equal(read.result?.sink !== undefined, streamed, `${file}: records handed on as read`);
  return loaded;
}

/** A Gemini CLI JSON Lines session past the records detection sees: repeated ids, `$set` histories, rewinds, a bad line, usage that cannot be a count, a cut-off end. */
function geminiSession(rounds: number): string {
  const lines: unknown[] = [{ sessionId: 's-1', projectHash: 'abc', startTime: '2026-03-01T10:00:00Z', lastUpdated: '2026-03-01T10:00:00Z', kind: 'main' }];
  for (let i = 0; i < rounds; i++) {
    const at = `2026-03-01T10:${String(i % 60).padStart(2, '0')}:00Z`;
    lines.push({ id: `u${i}`, timestamp: at, type: 'user', content: [{ text: `Fix test ${i} in math.py` }] });
    const draft = { id: `g${i}`, timestamp: at, type: 'gemini', content: '', model: 'gemini-2.5-pro' };
    lines.push(draft);
    lines.push({
      ...draft,
      thoughts: [{ subject: 'Plan', description: `Read test ${i} first.` }],
      toolCalls: [{ id: `c${i}`, name: 'read_file', args: { path: 'math.py' }, status: i % 9 === 0 ? 'error' : 'success', timestamp: at,
        result: [{ functionResponse: { id: `c${i}`, name: 'read_file', response: { output: `def add(a, b): return a - b  # ${i}` } } }] }],
      tokens: { input: i % 97 === 0 ? -1 : 1200, output: 40, cached: 800, thoughts: 25, tool: 10 },
    });
    if (i % 50 === 7) lines.push({ id: `w${i}`, timestamp: at, type: 'gemini', content: 'Deleting the tests.' }, { $rewindTo: `w${i}` });
    if (i % 200 === 99) lines.push({ $set: { lastUpdated: at, messages: [{ id: `s${i}`, timestamp: at, type: 'user', content: [{ text: `<state_snapshot>goal ${i}</state_snapshot>` }] }] } });
    if (i % 300 === 5) lines.push('{"id": "broken", ');
    if (i % 120 === 3) lines.push({ id: `i${i}`, timestamp: at, type: 'info', content: 'Chat history compressed.' }, { unknown: i });
  }
  return jsonl(lines) + '\n{"id": "u-last", "type": "us';
}

test('gemini-cli: a JSON Lines session read record by record opens as its records read whole, coverage and warnings included', async () => {
  const t = await sameEitherWay(writeTemp('session-2026-03-01T10-00-s1.jsonl', geminiSession(600)), true);
  assert.equal(t.format, 'gemini-cli');
  assert.ok(stepsOf(t).length > 2000);
  assert.ok(t.coverage && t.coverage.named > 0 && Object.keys(t.coverage.skipped).length >= 3, 'named and unnamed records are counted');
  assert.match(t.warnings.map((w) => w.message).join('\n'), /were rewound[\s\S]*/);
});

test('gemini-cli: the red team\'s $rewindTo payload reads the same either way', async () => {
  const t = await sameEitherWay(writeTemp('rewinds.jsonl', geminiRewinds(3000)), true);
  assert.equal(stepsOf(t).length, 6000);
  assert.equal(t.coverage?.named, 3001, 'the header and every rewind line are named');
});

test('otel: a console span stream and OTLP JSON Lines read span by span open as read whole', async () => {
  const stream = await sameEitherWay(writeTemp('spans.json', spanStream(800)), true);
  assert.equal(stream.format, 'otel');
  assert.equal(stepsOf(stream).length, 2400);
  const line = (i: number) => (JSON.parse(otlpDocument(2)) as { resourceSpans: { scopeSpans: { spans: { spanId: string; traceId: string }[] }[] }[] }).resourceSpans[0];
  const records = Array.from({ length: 1200 }, (_, i) => {
    const rs = line(i);
    for (const s of rs.scopeSpans[0].spans) {
      s.traceId = `t${i % 3}`;
      s.spanId = `${s.spanId}-${i}`;
    }
    return rs;
  });
  const lines = await sameEitherWay(writeTemp('traces.jsonl', jsonl(records) + '\n'), true);
  assert.equal(lines.runs.length, 3, 'one run per trace');
});

test('opencode: real exports, and ones past the size read in parts, open the same whether their messages are let go or handed on as read', async () => {
  for (const name of ['all-tools.json', 'crud.json']) await sameEitherWay(fixture(`opencode/${name}`), false);
  const real = JSON.parse(fs.readFileSync(fixture('opencode/all-tools.json'), 'utf8')) as { info: unknown; messages: unknown[] };
  const big = { ...real, messages: Array.from({ length: 40 }, () => real.messages).flat() };
  // Read in parts, each message goes to the adapter as it is read (`elementParser`): the same trajectory, coverage included.
  const t = await sameEitherWay(writeTemp('export.json', JSON.stringify(big)), true);
  assert.ok(fs.statSync(t.source.path).size > 1024 * 1024);
  assert.equal(t.title, 'Tools usage audit: undo all edits and writes', 'the session\'s info, read after its messages went by');
  const summaries = await sameEitherWay(writeTemp('summaries.json', opencodeSummaries(5000)), true);
  assert.equal(stepsOf(summaries).length, 10000);
  // `info` after the messages: what detection sees at the first message is no export yet, so the document is read whole, to the same trajectory.
  const late = await sameEitherWay(writeTemp('late-info.json', JSON.stringify({ messages: big.messages, info: real.info })), false);
  assert.deepEqual(stepsOf(late), stepsOf(t));
});
