import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { FormatAdapter } from '../../src/core/formats/adapter';
import { FORMAT_ADAPTERS } from '../../src/core/formats/registry';
import { headOf, SNIFF_BYTES } from '../../src/core/io/sniffHead';
import { detectFormat, loadTrajectory } from '../../src/core/open';
import { readInput } from '../../src/core/io/readInput';
import { runCli } from '../helpers/cli';
import { fixture, writeTemp } from '../helpers/paths';
import { allRealFiles, realFileInput } from '../helpers/realFiles';
import { loadRun } from '../helpers/runs';

/** The formats of the first release; the adapters added since must not take their files. */
const FIRST_RELEASE = ['openai-chat', 'swe-agent', 'mini-swe-agent', 'katalyst', 'openhands-v0', 'openhands-eval', 'openhands-v1', 'claude-code', 'codex', 'inspect', 'openai-responses', 'anthropic'];
const OLD_ADAPTERS = FORMAT_ADAPTERS.filter((a) => FIRST_RELEASE.includes(a.id));

/** The format a real file is stored under: its folder in the corpus or in test/fixtures. */
function expectedFormat(file: string): string {
  const parts = file.split(path.sep);
  const at = Math.max(parts.lastIndexOf('corpus'), parts.lastIndexOf('fixtures'));
  return parts[at + 1];
}

test('detection: every corpus file and fixture is claimed by exactly one adapter, its own', () => {
  for (const file of allRealFiles()) {
    const head = headOf(realFileInput(file));
    const claims = FORMAT_ADAPTERS.filter((a) => a.sniff(head, path.basename(file)) > 0).map((a) => a.id);
    assert.deepEqual(claims, [expectedFormat(file)], file);
  }
});

/** Other shapes of the same content, as people save them: pretty or compact, cut short, one record, lines ↔ list. */
function variants(file: string): { name: string; text: string }[] {
  const text = fs.readFileSync(file, 'utf8');
  const input = readInput(text, file).input;
  const out: { name: string; text: string }[] = [];
  if (input.shape === 'json') {
    out.push({ name: 'compact', text: JSON.stringify(input.value) }, { name: 'pretty', text: JSON.stringify(input.value, null, 4) });
    if (Array.isArray(input.value)) {
      out.push({ name: 'first five', text: JSON.stringify(input.value.slice(0, 5)) });
      out.push({ name: 'as lines', text: input.value.map((v) => JSON.stringify(v)).join('\n') + '\n' });
    }
  }
  if (input.shape === 'jsonl') {
    const values = input.records.map((r) => r.value);
    out.push({ name: 'first three lines', text: values.slice(0, 3).map((v) => JSON.stringify(v)).join('\n') + '\n' });
    out.push({ name: 'as a list', text: JSON.stringify(values) });
    out.push({ name: 'first line alone', text: JSON.stringify(values[0]) });
  }
  return out;
}

test('detection: no corpus file or variant of one changes its format because of the adapters added since the first release', () => {
  const corpusFiles = allRealFiles().filter((f) => f.includes(`${path.sep}corpus${path.sep}`));
  let compared = 0;
  for (const file of corpusFiles) {
    for (const v of [{ name: 'as published', text: fs.readFileSync(file, 'utf8') }, ...variants(file)]) {
      const input = readInput(v.text, file).input;
      let before: string | undefined;
      try {
        before = detectFormat(input, file, OLD_ADAPTERS).adapter.id;
      } catch {
        continue; // the first release could not read it; new adapters may
      }
      assert.equal(detectFormat(input, file).adapter.id, before, `${path.basename(file)} ${v.name}`);
      compared++;
    }
  }
  assert.ok(compared >= 40, `compared ${compared} files and variants`);
});

test('detection: sniffers see the records within the first 64 KB of a file only, a long record counting for 8 KB', () => {
  const seen: number[] = [];
  const spy: FormatAdapter = { id: 'spy', label: 'spy', fileNames: ['*.jsonl'], sniff: (input) => { seen.push(input.shape === 'jsonl' ? input.records.length : -1); return 0.99; }, parse: () => ({ title: '', steps: [] }) };
  const line = (n: number) => ({ value: { role: 'user', content: 'x'.repeat(n) }, line: 1 });
  detectFormat({ shape: 'jsonl', records: Array.from({ length: 5000 }, () => line(1000)) }, 'big.jsonl', [spy]);
  assert.ok(seen[0] > 0 && seen[0] <= Math.ceil(SNIFF_BYTES / 1000), `saw ${seen[0]} records of 1 KB`);
  detectFormat({ shape: 'jsonl', records: [line(200_000), line(10), line(10)] }, 'huge-first.jsonl', [spy]);
  assert.equal(seen[1], 3, 'a first record over 64 KB does not hide the records after it');
  detectFormat({ shape: 'jsonl', records: Array.from({ length: 50 }, () => line(200_000)) }, 'all-huge.jsonl', [spy]);
  assert.equal(seen[2], 8, 'records of any size: at least eight are shown, and no more than 64 KB of 8 KB charges');
  const text = headOf({ shape: 'text', text: 'y'.repeat(SNIFF_BYTES * 3) });
  assert.equal(text.shape === 'text' && text.text.length, SNIFF_BYTES);
});

test('detection: a Claude Code session whose first line is a 77 KB queued prompt is still Claude Code', async () => {
  // Claude Code 2.1 writes a message typed while the agent works as a queue-operation line first; a
  // long pasted prompt made it the only record the sniffers saw, and the file "no format we know".
  const session = fs.readFileSync(fixture('claude-code/codemie-cache-rewrites.jsonl'), 'utf8');
  const queued = JSON.stringify({ type: 'queue-operation', operation: 'enqueue', timestamp: '2026-01-02T14:21:20.000Z', sessionId: 's', content: `Fact check this pasted conversation:\n${'lorem ipsum dolor sit amet '.repeat(2900)}` });
  assert.ok(queued.length > 77_000);
  const file = writeTemp('long-queued-prompt.jsonl', `${queued}\n${session}`);
  assert.equal((await loadTrajectory(file)).format, 'claude-code');
});

test('unknown files: the conversation found inside opens with a warning naming its JSON path, and stats --json reports it', async () => {
  const file = writeTemp('export.json', JSON.stringify({
    exportedAt: '2026-01-01', app: { name: 'chat-ui' },
    conversation: { id: 'c1', title: 'Dates', payload: { messages: [
      { role: 'system', content: 'Be brief.' }, { role: 'user', content: 'What day is it?' }, { role: 'assistant', content: 'Thursday.' },
    ] } },
  }));
  const t = await loadRun(file);
  assert.equal(t.format, 'openai-chat');
  assert.equal(t.meta.jsonPath, '/conversation/payload/messages');
  assert.match(t.warnings[0].message, /No format we know matches this file; opened the 3 OpenAI chat-completions messages found at JSON path \/conversation\/payload\/messages/);
  assert.equal(t.steps[1].location?.pointer, '/conversation/payload/messages/1');
  const stats = JSON.parse((await runCli('stats', file, '--json')).out) as { format: string; jsonPath: string };
  assert.equal(stats.jsonPath, '/conversation/payload/messages');
  // Anthropic blocks and Responses items are found too, also inside JSON Lines.
  const anthropic = await loadRun(writeTemp('dump.jsonl', [
    JSON.stringify({ kind: 'meta', v: 1 }),
    JSON.stringify({ kind: 'conversation', turns: [{ role: 'user', content: 'ls' }, { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'bash', input: { cmd: 'ls' } }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'a b' }] }] }),
  ].join('\n') + '\n'));
  assert.equal(anthropic.format, 'anthropic');
  assert.equal(anthropic.meta.jsonPath, '/1/turns');
  assert.equal(anthropic.steps[0].location?.line, 2);
});

test('unknown files: with no conversation inside, the message says what the file holds, and the CLI exits 2', async () => {
  const file = writeTemp('metrics.json', JSON.stringify({ run: 'r1', scores: [{ task: 'a', value: 1 }, { task: 'b', value: 0 }], notes: 'x' }));
  const r = await runCli('stats', file, '--json');
  assert.equal(r.code, 2);
  assert.match(r.err, /it is a JSON object with keys run, scores, notes; "scores" is a list of 2 objects with keys task, value, and no list of chat messages/);
});

test('loader: pretty-printed documents one after another read as records, each at its first line; a cut-off last one is a warning', async () => {
  const docs = [{ resourceSpans: [] }, { resourceSpans: [] }, { resourceSpans: [] }].map((d) => JSON.stringify(d, null, 2)).join('\n');
  const read = readInput(docs, 'x.json');
  assert.equal(read.input.shape, 'jsonl');
  assert.deepEqual(read.input.shape === 'jsonl' && read.input.records.map((r) => r.line), [1, 4, 7]);
  const cut = readInput(docs + '\n{\n  "resourceSpans": [', 'x.json');
  assert.equal(cut.input.shape === 'jsonl' && cut.input.records.length, 3);
  assert.match(cut.warnings[0].message, /ends mid-document at line 10/);
});
