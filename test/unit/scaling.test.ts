// Scaling property (issue 23): every adapter, the redactor, the fact layer and search run on
// inputs of size n and 8n, and neither time nor memory may grow more than 12× and 10×. The
// only timing in the unit suite: a ratio of the same code on the same machine, best of three
// runs, n grown until one run takes over 50 ms. Real files (the corpus and fixtures, one per
// adapter) are scaled by repeating their longest list; the red team's payload shapes of
// issue 23 come from test/helpers/hostilePayloads.ts.
import { fileOfRun } from '../../src/core/stats';
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import type { ParsedInput } from '../../src/core/formats/adapter';
import { FORMAT_ADAPTERS } from '../../src/core/formats/registry';
import { extractFacts } from '../../src/core/compaction/facts';
import { findInTrajectory, matchRanges, parseQuery } from '../../src/core/find';
import { detectFormat, parseInput, parseTrajectoryText } from '../../src/core/open';
import { readInput } from '../../src/core/io/readInput';
import { redactSecrets } from '../../src/core/llm/redact';
import type { Run, TrajectoryFile } from '../../src/core/model';

import { aiderBlanks, atifFanout, base64NearPrivateKey, clineXmlParameters, geminiRewinds, opencodeEventRows, opencodeSummaries, otlpDocument, spanStream } from '../helpers/hostilePayloads';
import { corpus, REPO_ROOT, SHARED } from '../helpers/paths';
import { allRealFiles, realFileInput } from '../helpers/realFiles';
import { parseRunText } from '../helpers/runs';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const MAX_TIME_RATIO = 12;
const MAX_MEMORY_RATIO = 10;
const MIN_MS = 50;
/** Below this much retained memory, a ratio measures the collector's noise, not the code. */
const MEMORY_FLOOR = 4 * 1024 * 1024;

interface Case<I> {
  name: string;
  /** The input of size n (built outside the timing). */
  make(n: number): I;
  run(input: I): unknown;
  /** Largest n tried while looking for a 50 ms run. */
  maxN?: number;
}

interface Figure { n: number; ms: number; bytes: number }

/** CPU milliseconds of this process (not wall time: the machine may be shared). */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function measure<I>(c: Case<I>, n: number, runs: number): Figure {
  let input: I | undefined = c.make(n);
  const times: number[] = [];
  const kept: number[] = [];
  for (let r = 0; r < runs; r++) {
    gc();
    const t0 = cpuMs();
    let out: unknown = c.run(input);
    times.push(cpuMs() - t0);
    gc();
    const withResult = process.memoryUsage().heapUsed;
    void (out as { length?: number } | undefined)?.length; // keep `out` alive to here
    out = undefined;
    gc();
    kept.push(Math.max(0, withResult - process.memoryUsage().heapUsed));
  }
  input = undefined;
  // The largest retained figure: the sweeper may not have returned a dropped result's pages yet,
  // which reads as less retained, never more.
  return { n, ms: Math.min(...times), bytes: Math.max(...kept) };
}

/** n grows until one run takes over MIN_MS; then n and 8n, best of three each (after a warm-up run). */
function scaling<I>(c: Case<I>): { small: Figure; large: Figure } {
  let n = 1;
  while (n < (c.maxN ?? 1 << 20) && measure(c, n, 1).ms < MIN_MS) n *= 2;
  measure(c, n, 1);
  return { small: measure(c, n, 3), large: measure(c, 8 * n, 3) };
}

function check<I>(c: Case<I>): void {
  let { small, large } = scaling(c);
  const ratios = (a: Figure, b: Figure) => ({ time: b.ms / Math.max(a.ms, 1), memory: Math.max(b.bytes, MEMORY_FLOOR) / Math.max(a.bytes, MEMORY_FLOOR) });
  // A busy machine can stretch one timing, and a collection that ran early read one result as
  // smaller than it is (a run of CI read 0.6 MB where every other reads 9.5; the suite runs files
  // side by side): over a bound, measure again, up to three times, and keep the best reading.
  const excess = (r: { time: number; memory: number }) => Math.max(r.time / MAX_TIME_RATIO, r.memory / MAX_MEMORY_RATIO);
  for (let retry = 0; retry < 3 && excess(ratios(small, large)) > 1; retry++) {
    const again = scaling(c);
    if (excess(ratios(again.small, again.large)) < excess(ratios(small, large))) ({ small, large } = again);
  }
  const { time, memory } = ratios(small, large);
  const line = `${c.name}: n=${small.n} ${small.ms.toFixed(0)} ms ${(small.bytes / 1e6).toFixed(1)} MB → 8n ${large.ms.toFixed(0)} ms ${(large.bytes / 1e6).toFixed(1)} MB (×${time.toFixed(1)} time, ×${memory.toFixed(1)} memory)`;
  console.log(line);
  assert.ok(time <= MAX_TIME_RATIO, `time grew more than ${MAX_TIME_RATIO}× for 8× the input: ${line}`);
  assert.ok(memory <= MAX_MEMORY_RATIO, `memory grew more than ${MAX_MEMORY_RATIO}× for 8× the input: ${line}`);
}

// ---- real files, scaled ----------------------------------------------------------------------

type Path = (string | number)[];

/** Every list in a JSON value (six levels deep at most), longest first: the places to repeat. */
function listsOf(value: unknown): Path[] {
  const found: { path: Path; length: number }[] = [];
  const walk = (v: unknown, p: Path) => {
    if (Array.isArray(v)) found.push({ path: p, length: v.length });
    if (p.length >= 6 || v === null || typeof v !== 'object') return;
    const entries: [string | number, unknown][] = Array.isArray(v) ? v.slice(0, 20).map((x, i) => [i, x]) : Object.entries(v);
    for (const [k, child] of entries) walk(child, [...p, k]);
  };
  walk(value, []);
  return found.filter((f) => f.length > 0).sort((x, y) => y.length - x.length).slice(0, 8).map((f) => f.path);
}

/** `value` with the list at `at` repeated k times (the same items again: real content, k times as much). */
function repeatList(value: unknown, k: number, at: Path | undefined): unknown {
  const copy = structuredClone(value);
  if (!at) return copy;
  let list = copy as Record<string | number, unknown>;
  for (const key of at) list = list[key] as Record<string | number, unknown>;
  const items = [...(list as unknown as unknown[])];
  for (let i = 1; i < k; i++) for (const item of items) (list as unknown as unknown[]).push(item);
  return copy;
}

function repeatLongest(value: unknown, k: number): unknown {
  return repeatList(value, k, listsOf(value)[0]);
}

/** The input with its `which`-th longest list (each file's, for a folder) repeated k times. */
function scaled(input: ParsedInput, k: number, which = 0): { text?: string; input: ParsedInput } {
  switch (input.shape) {
    case 'json': return { text: JSON.stringify(repeatList(input.value, k, listsOf(input.value)[which])), input };
    case 'jsonl': {
      const [first, ...rest] = input.records.map((r) => JSON.stringify(r.value));
      const lines = [first];
      for (let i = 0; i < k; i++) for (const line of rest) lines.push(line);
      return { text: lines.join('\n') + '\n', input };
    }
    case 'text': return { text: input.text.repeat(k), input };
    case 'folder': return { input: { shape: 'folder', files: input.files.map((f) => ({ name: f.name, value: repeatList(f.value, k, listsOf(f.value)[which]) })) } };
  }
}

function parseScaled(s: { text?: string; input: ParsedInput }, name: string): TrajectoryFile {
  const source = { path: path.join('/tmp', name), size: s.text?.length ?? 0 };
  return s.text !== undefined ? parseTrajectoryText(s.text, source) : parseInput(s.input, source, []);
}

const stepCount = (t: TrajectoryFile) => t.runs.reduce((n, r) => n + r.steps.length, 0);

/** Formats no corpus file or fixture holds, in their published shapes. */
const SAMPLES: { name: string; text: string }[] = [
  { name: 'katalyst.txt', text: ['Create a todo app with FastAPI in mytodo/', 'Recent actions and observations:', ...Array.from({ length: 3 }, (_, i) => [
    'Thought: I should read the database module first.', 'Previous Action: read_file', `Previous Action Input: {'path': 'mytodo/app/db${i}.py', 'show': True}`,
    'Observation: {"content": "from sqlalchemy import create_engine"}']).flat(), 'Final Answer: done.'].join('\n') },
  { name: 'responses.json', text: JSON.stringify({ model: 'gpt-4.1', input: [
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'List the files.' }] },
    { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'shell', arguments: '{"cmd":"ls"}' },
    { type: 'function_call_output', call_id: 'call_1', output: 'a.py\nb.py' },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a.py and b.py.' }] },
  ] }) },
  { name: 'anthropic.json', text: JSON.stringify({ model: 'claude-sonnet-4-5', system: 'Be brief.', messages: [
    { role: 'user', content: 'List the files.' },
    { role: 'assistant', content: [{ type: 'text', text: 'Listing.' }, { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'ls' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.py\nb.py' }] },
  ] }) },
  { name: 'demo-trajectory.json', text: fs.readFileSync(path.join(REPO_ROOT, 'samples', 'demo-trajectory.json'), 'utf8') },
  // Managed Agents session events in the shapes of the events reference (no public log found yet).
  { name: 'managed-agents.events.jsonl', text: [
    { id: 'sevt_01', type: 'user.message', content: [{ type: 'text', text: 'Analyze the sort function in utils.py' }] },
    { id: 'sevt_02', type: 'span.model_request_start' },
    { id: 'sevt_03', type: 'agent.tool_use', name: 'read', input: { file_path: 'utils.py' } },
    { id: 'sevt_04', type: 'span.model_request_end', model_usage: { input_tokens: 1200, output_tokens: 80 } },
    { id: 'sevt_05', type: 'agent.tool_result', tool_use_id: 'sevt_03', content: [{ type: 'text', text: 'def sort(xs): ...' }] },
    { id: 'sevt_06', type: 'agent.message', content: [{ type: 'text', text: 'sort() is O(n log n).' }] },
  ].map((e) => JSON.stringify(e)).join('\n') + '\n' },
  // A Qwen Code chat recording in the ChatRecord shape (the real fixture is one line, which reads as a document).
  { name: 'qwen-code.jsonl', text: [
    { uuid: 'u1', parentUuid: null, sessionId: 's', timestamp: '2026-08-17T12:00:00.000Z', type: 'user', cwd: '/tmp/p', version: '0.21.13', message: { role: 'user', parts: [{ text: 'List the files' }] } },
    { uuid: 'a1', parentUuid: 'u1', sessionId: 's', timestamp: '2026-08-17T12:00:02.000Z', type: 'assistant', cwd: '/tmp/p', version: '0.21.13', model: 'qwen3-coder-plus', message: { role: 'model', parts: [{ functionCall: { id: 'call_1', name: 'list_directory', args: { path: '/tmp/p' } } }] }, usageMetadata: { promptTokenCount: 1200, candidatesTokenCount: 30 } },
    { uuid: 't1', parentUuid: 'a1', sessionId: 's', timestamp: '2026-08-17T12:00:03.000Z', type: 'tool_result', cwd: '/tmp/p', version: '0.21.13', message: { role: 'user', parts: [{ functionResponse: { id: 'call_1', name: 'list_directory', response: { output: 'a.txt' } } }] } },
  ].map((e) => JSON.stringify(e)).join('\n') + '\n' },
];

/** One real input per adapter: the first (smallest) that keeps its format and grows when scaled. */
function seedPerAdapter(): Map<string, { label: string; input: ParsedInput; which: number }> {
  const seeds = new Map<string, { label: string; input: ParsedInput; which: number }>();
  const candidates: { label: string; read: () => ParsedInput; size: number }[] = [];
  for (const file of allRealFiles()) {
    const size = fs.statSync(file).isDirectory() ? 0 : fs.statSync(file).size;
    if (size > 2_000_000) continue;
    candidates.push({ label: path.relative(path.dirname(SHARED), file), read: () => realFileInput(file), size });
  }
  for (const s of SAMPLES) candidates.push({ label: s.name, read: () => readInput(s.text, s.name).input, size: s.text.length });
  candidates.sort((a, b) => a.size - b.size);
  for (const c of candidates) {
    let input: ParsedInput;
    let id: string;
    try {
      input = c.read();
      id = detectFormat(input, c.label).adapter.id;
    } catch {
      continue;
    }
    if (seeds.has(id)) continue;
    // The longest list first; a list that adds no steps (an event log beside the messages) is passed over.
    for (let which = 0; which < (input.shape === 'json' || input.shape === 'folder' ? 8 : 1) && !seeds.has(id); which++) {
      try {
        const one = parseScaled(scaled(input, 1, which), path.basename(c.label));
        const two = parseScaled(scaled(input, 2, which), path.basename(c.label));
        if (two.format === id && stepCount(two) > stepCount(one) && stepCount(one) > 0) seeds.set(id, { label: c.label, input, which });
      } catch { /* this one does not scale by repetition: try the next */ }
    }
  }
  return seeds;
}

const seeds = seedPerAdapter();

/** Adapters whose records are states of keyed things (a repeated row changes nothing): a built input scales them, below. */
const BUILT: Record<string, (n: number) => string> = { 'opencode-events': (n) => opencodeEventRows(n * 100) };

test('every adapter has a real input that scales', () => {
  const missing = FORMAT_ADAPTERS.map((a) => a.id).filter((id) => !seeds.has(id) && !(id in BUILT));
  assert.equal(missing.join(', '), '', 'adapters with no input that scales');
});

for (const [id, make] of Object.entries(BUILT)) {
  test(`scaling: ${id} (a built input of keyed rows)`, () => {
    // The built input reads as what it holds: a call and its result for each request.
    assert.equal(parseRunText(make(1), { path: '/tmp/events.jsonl', size: 1 }).steps.filter((s) => s.kind === 'tool_result' && s.answers !== undefined).length, 100);
    check<string>({ name: id, make, run: (text) => parseTrajectoryText(text, { path: '/tmp/events.jsonl', size: text.length }) });
  });
}

for (const adapter of FORMAT_ADAPTERS) {
  const seed = seeds.get(adapter.id);
  if (!seed) continue;
  test(`scaling: ${adapter.id} (${seed.label} repeated)`, () => {
    check<{ text?: string; input: ParsedInput }>({ name: adapter.id, make: (n) => scaled(seed.input, n, seed.which), run: (s) => parseScaled(s, path.basename(seed.label)) });
  });
}

// ---- the red team's payload shapes -----------------------------------------------------------

const open = (name: string) => (text: string) => parseRunText(text, { path: `/tmp/${name}`, size: text.length });
const PAYLOADS: Case<string>[] = [
  { name: 'ATIF subagent fan-out (four deep)', make: (n) => atifFanout(n), run: open('fanout.json') },
  { name: 'OTLP document', make: (n) => otlpDocument(n * 100), run: open('trace.json') },
  { name: 'console span stream', make: (n) => spanStream(n * 100), run: open('spans.json') },
  { name: 'Gemini CLI $rewindTo', make: (n) => geminiRewinds(n * 100), run: open('session.jsonl') },
  { name: 'OpenCode summary messages', make: (n) => opencodeSummaries(n * 100), run: open('export.json') },
  { name: 'Aider run of blank lines', make: (n) => aiderBlanks(n * 1000), run: open('.aider.chat.history.md') },
  { name: 'Aider session of requests, replies and reflections (a real one\'s body repeated)', make: (n) => aiderSessionRepeated(n * 20), run: open('.aider.chat.history.md') },
  // Each `> ` line without the two spaces may open a notice of many lines: looked for once, not once per line.
  { name: 'Aider notices of many lines that never end', make: (n) => '# aider chat started at 2026-01-01 00:00:00\n' + '> aider --message x\n>\n'.repeat(n * 1000) + '#### fix it  \n', run: open('.aider.chat.history.md') },
  { name: 'Cline XML parameters that never close', make: (n) => clineXmlParameters(n * 1000), run: open('api_conversation_history.json') },
];
for (const c of PAYLOADS) test(`scaling: ${c.name}`, () => check(c));

/** One Aider session: a real history's header, then its requests, replies and reflection n times (one run, not n). */
function aiderSessionRepeated(n: number): string {
  const text = fs.readFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'aider', 'swarms-bot-minimax.aider.chat.history.md'), 'utf8');
  const body = text.indexOf('\n#### ');
  return text.slice(0, body) + text.slice(body).repeat(n);
}

// ---- redactor, fact layer, search ------------------------------------------------------------

/** A real run repeated: the mini-swe-agent corpus file's messages n times. */
function realRun(n: number): Run {
  const doc = JSON.parse(fs.readFileSync(corpus('mini-swe-agent/astropy__astropy-12907.traj.json'), 'utf8')) as unknown;
  const text = JSON.stringify(repeatLongest(doc, n));
  return open('run.traj.json')(text);
}

test('scaling: redactor on base64 lines near "PRIVATE KEY"', () => {
  check({ name: 'redactor, base64 near PRIVATE KEY', make: (n) => base64NearPrivateKey(n * 2000), run: (t: string) => redactSecrets(t) });
});

test('scaling: redactor on a real run\'s text', () => {
  check({ name: 'redactor, real text', make: (n) => realRun(n).steps.map((s) => s.text).join('\n'), run: (t: string) => redactSecrets(t) });
});

test('scaling: fact layer over a whole real run', () => {
  check({ name: 'facts', make: realRun, run: (t: Run) => extractFacts(t, t.steps.map((s) => s.index)) });
});

test('scaling: search (text, regex and filters) over a real run', () => {
  const queries = ['pytest', '/def \\w+\\(/', 'kind:tool_call tool:bash', 'is:error'].map((q) => parseQuery(q));
  check({ name: 'search', make: realRun, run: (t: Run) => queries.map((q) => findInTrajectory(fileOfRun(t), q).map((r) => r.steps.map((i) => matchRanges(t.steps[i].text, q)))) });
});
