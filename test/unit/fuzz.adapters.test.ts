// Property-based fuzzing of every adapter through the loader: real records (corpus files and
// fixtures, and a small sample in its published shape for the formats we hold no file of) are
// mutated — fields dropped or given the wrong type, huge and negative numbers, deep nesting,
// control characters and unicode, records duplicated or shuffled — and fed to the loader as text
// (or as a folder). Property: the loader returns well-formed steps or throws a TrajectoryLoadError
// that names the file; never anything else, and no case takes long. Fixed seed, case count printed.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import type { ParsedInput } from '../../src/core/formats/adapter';
import { FORMAT_ADAPTERS } from '../../src/core/formats/registry';
import { TrajectoryLoadError } from '../../src/core/io/errors';
import { detectFormat, parseInput, parseTrajectoryText } from '../../src/core/open';
import { readInput } from '../../src/core/io/readInput';
import { STEP_KINDS, TrajectoryFile, type Run } from '../../src/core/model';
import { REPO_ROOT, SHARED } from '../helpers/paths';
import { allRealFiles, realFileInput } from '../helpers/realFiles';

const SEED = 14014;
const CASES_PER_ADAPTER = Number(process.env.ATL_FUZZ_CASES ?? 250);

// ---- seeds ----------------------------------------------------------------------------------


/** Keeps a seed small so thousands of cases run in seconds: lists cut to 10 items, strings to 1,500 characters. */
function shrink(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.length > 1500 ? value.slice(0, 1500) : value;
  if (Array.isArray(value)) return value.slice(0, 10).map((v) => shrink(v, depth + 1));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shrink(v, depth + 1)]));
  return value;
}

function shrinkInput(input: ParsedInput): ParsedInput {
  switch (input.shape) {
    case 'json': return { shape: 'json', value: shrink(input.value) };
    case 'jsonl': return { shape: 'jsonl', records: input.records.slice(0, 12).map((r) => ({ ...r, value: shrink(r.value) })) };
    case 'folder': return { shape: 'folder', files: input.files.slice(0, 12).map((f) => ({ name: f.name, value: shrink(f.value) })) };
    case 'text': return { shape: 'text', text: input.text.slice(0, 6000) };
  }
}

/** Samples in the published shapes of the formats no corpus file or fixture holds. */
const SAMPLES: ParsedInput[] = [
  { shape: 'json', value: { input: 'Build the todo API', output: 'Done.', intermediate_steps: [
    [{ tool: 'list_files', tool_input: { path: 'app' }, log: 'Thought: Look at the layout.\nAction: list_files\nAction Input: {"path": "app"}' }, '{"files": ["main.py"]}'],
    [{ tool: 'read_file', tool_input: "{'path': 'app/main.py'}", log: '' }, 'from fastapi import FastAPI'],
  ] } },
  { shape: 'json', value: { model: 'claude-sonnet-4-5', system: 'Be brief.', messages: [
    { role: 'user', content: 'List the files.' },
    { role: 'assistant', content: [{ type: 'text', text: 'Listing.' }, { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'ls' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.py\nb.py' }] },
    { role: 'assistant', content: [{ type: 'thinking', thinking: 'Two files.', signature: 'x' }, { type: 'text', text: 'a.py and b.py.' }] },
  ] } },
  { shape: 'json', value: { model: 'gpt-4.1', input: [
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'List the files.' }] },
    { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Use ls.' }] },
    { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'shell', arguments: '{"cmd":"ls"}' },
    { type: 'function_call_output', call_id: 'call_1', output: 'a.py\nb.py' },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a.py and b.py.' }] },
  ] } },
  // Claude Managed Agents session events (no public log of them yet: the shape of the events reference).
  { shape: 'jsonl', records: [
    { id: 'sevt_1', type: 'user.message', processed_at: '2026-05-02T10:00:00Z', content: [{ type: 'text', text: 'List the files.' }] },
    { id: 'sevt_2', type: 'agent.tool_use', processed_at: '2026-05-02T10:00:01Z', name: 'bash', input: { command: 'ls' } },
    { id: 'sevt_3', type: 'agent.tool_result', processed_at: '2026-05-02T10:00:02Z', tool_use_id: 'sevt_2', content: [{ type: 'text', text: 'a.py' }] },
    { id: 'sevt_4', type: 'span.model_request_end', processed_at: '2026-05-02T10:00:03Z', model_usage: { input_tokens: 10, output_tokens: 3 } },
    { id: 'sevt_5', type: 'agent.message', processed_at: '2026-05-02T10:00:04Z', content: [{ type: 'text', text: 'a.py' }] },
  ].map((value, i) => ({ value, line: i + 1 })) },
  // A Goose ≤ 1.9 session file (no public log of it found: the shapes Goose's own types serialise to).
  { shape: 'jsonl', records: [
    { working_dir: '/w', description: 'List', schedule_id: null, message_count: 3, accumulated_input_tokens: 10, accumulated_output_tokens: 3 },
    { id: 'm1', role: 'user', created: 1745000000, content: [{ type: 'text', text: 'List the files.' }] },
    { id: 'm2', role: 'assistant', created: 1745000001, content: [{ type: 'toolRequest', id: 't1', toolCall: { status: 'success', value: { name: 'developer__shell', arguments: { command: 'ls' } } } }] },
    { id: 'm3', role: 'user', created: 1745000002, content: [{ type: 'toolResponse', id: 't1', toolResult: { status: 'success', value: [{ type: 'text', text: 'a.py' }] } }] },
  ].map((value, i) => ({ value, line: i + 1 })) },
];

interface Seed { adapter: string; label: string; input: ParsedInput }

function seeds(): Seed[] {
  const out: Seed[] = [];
  const add = (input: ParsedInput, label: string) => {
    for (const candidate of [shrinkInput(input), input]) {
      try {
        out.push({ adapter: detectFormat(candidate, label).adapter.id, label, input: candidate });
        return;
      } catch { /* the shrunk seed lost its shape: try the whole one */ }
    }
  };
  for (const file of allRealFiles()) add(realFileInput(file), path.relative(path.dirname(SHARED), file));
  add(readInput(fs.readFileSync(path.join(REPO_ROOT, 'samples', 'demo-trajectory.json'), 'utf8'), 'demo').input, 'samples/demo-trajectory.json');
  SAMPLES.forEach((s, i) => add(s, `sample ${i}`));
  return out;
}

// ---- mutations --------------------------------------------------------------------------------

const NASTY_STRINGS = [
  '', ' ', '\u0000', '\u001b[2J\u001b]52;c;aGk=\u0007', '\u202eevil\u202c', 'A'.repeat(20_000), '😀'.repeat(300), '\ud800', 'e\u0301\u0301\u0301',
  '<|endoftext|>', '{"role":"user"', 'null', '\r\n\r\n', '\\u0000', 'Ω≈ç√∫˜µ≤≥÷', '中文字符',
];
const NASTY_VALUES: unknown[] = [null, true, false, 0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, -0, 1e-320, [], {}, [null], { role: null }, ...NASTY_STRINGS];

type Op =
  | { kind: 'delete' | 'duplicate' | 'reverse'; path: number[] }
  | { kind: 'replace'; path: number[]; value: unknown }
  | { kind: 'nest'; path: number[]; depth: number }
  | { kind: 'string'; path: number[]; insert: string; at: number; cut: boolean };

const pathArb = fc.array(fc.nat(1000), { minLength: 0, maxLength: 8 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constantFrom('delete' as const, 'duplicate' as const, 'reverse' as const), path: pathArb }),
  fc.record({ kind: fc.constant('replace' as const), path: pathArb, value: fc.constantFrom(...NASTY_VALUES) }),
  fc.record({ kind: fc.constant('nest' as const), path: pathArb, depth: fc.integer({ min: 50, max: 3000 }) }),
  fc.record({ kind: fc.constant('string' as const), path: pathArb, insert: fc.oneof(fc.constantFrom(...NASTY_STRINGS), fc.string({ unit: 'binary', maxLength: 40 })), at: fc.nat(), cut: fc.boolean() }),
);

function clone<T>(v: T): T {
  return v === undefined ? v : structuredClone(v);
}

/** The container holding the node the path leads to, and the node's key there. */
function locate(root: { v: unknown }, p: number[]): { parent: Record<string, unknown> | unknown[]; key: string | number } {
  let parent: Record<string, unknown> | unknown[] = root as unknown as Record<string, unknown>;
  let key: string | number = 'v';
  for (const n of p) {
    const node: unknown = (parent as Record<string, unknown>)[key as string];
    if (Array.isArray(node) && node.length > 0) { parent = node; key = n % node.length; continue; }
    if (node && typeof node === 'object') {
      const keys = Object.keys(node);
      if (keys.length === 0) break;
      parent = node as Record<string, unknown>;
      key = keys[n % keys.length];
      continue;
    }
    break;
  }
  return { parent, key };
}

function nested(depth: number): unknown {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { content: v };
  return v;
}

/** Applies `op` in place (the caller cloned the seed); deep nesting goes last, as nothing after it clones. */
function mutateValue(value: unknown, op: Op): unknown {
  const root = { v: value };
  const { parent, key } = locate(root, op.path);
  const get = () => (parent as Record<string, unknown>)[key as string];
  const set = (v: unknown) => { (parent as Record<string, unknown>)[key as string] = v; };
  switch (op.kind) {
    case 'delete':
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else if (parent !== (root as unknown)) delete (parent as Record<string, unknown>)[key as string];
      break;
    case 'duplicate': if (Array.isArray(parent)) parent.splice(key as number, 0, clone(get())); break;
    case 'reverse': { const node = get(); if (Array.isArray(node)) node.reverse(); else if (Array.isArray(parent)) parent.reverse(); break; }
    case 'replace': set(clone(op.value)); break;
    case 'nest': set(nested(op.depth)); break;
    case 'string': {
      const node = get();
      const s = typeof node === 'string' ? node : JSON.stringify(node) ?? '';
      const at = s.length === 0 ? 0 : op.at % (s.length + 1);
      set(op.cut ? s.slice(0, at) + op.insert : s.slice(0, at) + op.insert + s.slice(at));
      break;
    }
  }
  return root.v;
}

function mutateInput(input: ParsedInput, unordered: Op[]): ParsedInput {
  const ops = [...unordered.filter((o) => o.kind !== 'nest'), ...unordered.filter((o) => o.kind === 'nest')];
  switch (input.shape) {
    case 'json': return { shape: 'json', value: ops.reduce(mutateValue, clone(input.value)) };
    case 'jsonl': {
      const values = ops.reduce(mutateValue, clone(input.records.map((r) => r.value))) as unknown[];
      return { shape: 'jsonl', records: (Array.isArray(values) ? values : [values]).map((value, i) => ({ value, line: i + 1 })) };
    }
    case 'folder': {
      const files = ops.reduce(mutateValue, clone(input.files)) as { name: unknown; value: unknown }[];
      return { shape: 'folder', files: (Array.isArray(files) ? files : []).filter((f) => f && typeof f === 'object' && typeof f.name === 'string').map((f) => ({ name: f.name as string, value: f.value })) };
    }
    case 'text': {
      let text = input.text;
      for (const op of ops) {
        const at = text.length === 0 ? 0 : (op.path[0] ?? 0) * 7919 % (text.length + 1);
        if (op.kind === 'string') text = text.slice(0, at) + op.insert + (op.cut ? '' : text.slice(at));
        else if (op.kind === 'delete') text = text.slice(0, at) + text.slice(at + 200);
        else if (op.kind === 'duplicate') text = text.slice(0, at) + text.slice(at, at + 300) + text.slice(at);
        else if (op.kind === 'replace') text = text.slice(0, at) + String(JSON.stringify(op.value)) + text.slice(at);
      }
      return { shape: 'text', text };
    }
  }
}

/** Through the loader as a user would meet it: text from a file, or a folder of event files. */
function load(input: ParsedInput, file: string): TrajectoryFile {
  switch (input.shape) {
    case 'json': return parseTrajectoryText(JSON.stringify(input.value) ?? 'null', { path: file, size: 0 });
    case 'jsonl': return parseTrajectoryText(input.records.map((r) => JSON.stringify(r.value) ?? 'null').join('\n') + '\n', { path: file, size: 0 });
    case 'text': return parseTrajectoryText(input.text, { path: file, size: 0 });
    case 'folder': return parseInput(input, { path: file, size: 0 }, []);
  }
}

// ---- the property ----------------------------------------------------------------------------

function assertWellFormed(file: TrajectoryFile, where: string): void {
  assert.equal(typeof file.format, 'string');
  assert.ok(Array.isArray(file.warnings) && file.warnings.every((w) => typeof w.message === 'string'), `${where}: warnings`);
  assert.ok(file.runs.length > 0, `${where}: a file holds at least one run`);
  for (const [r, run] of file.runs.entries()) assertRunWellFormed(run, file.holdsRuns ? `${where} run ${r}` : where);
}

function assertRunWellFormed(t: Run, where: string): void {
  assert.ok(Array.isArray(t.steps), `${where}: steps`);
  assert.equal(typeof t.format, 'string');
  assert.ok(Array.isArray(t.warnings) && t.warnings.every((w) => typeof w.message === 'string'), `${where}: warnings`);
  let lastTurn = -Infinity;
  t.steps.forEach((s, i) => {
    assert.equal(s.index, i, `${where}: step ${i} index`);
    assert.ok(STEP_KINDS.includes(s.kind), `${where}: step ${i} kind ${s.kind}`);
    assert.equal(typeof s.text, 'string', `${where}: step ${i} text`);
    assert.ok(Number.isInteger(s.turn) && s.turn >= 0 && s.turn >= lastTurn, `${where}: step ${i} turn ${s.turn}`);
    lastTurn = s.turn;
    if (s.tool) assert.ok(typeof s.tool.name === 'string' && typeof s.tool.args === 'string', `${where}: step ${i} tool`);
    if (s.answers !== undefined) {
      assert.ok(Number.isInteger(s.answers) && s.answers >= 0 && s.answers < i, `${where}: step ${i} answers ${s.answers}`);
      assert.equal(t.steps[s.answers].kind, 'tool_call', `${where}: step ${i} answers a tool call`);
    }
  });
}

test('fuzz: every adapter, fed mutated real records through the loader, returns well-formed steps or a clean TrajectoryLoadError', { timeout: 300_000 }, () => {
  const all = seeds();
  const covered = new Set(all.map((s) => s.adapter));
  const missing = FORMAT_ADAPTERS.map((a) => a.id).filter((id) => !covered.has(id));
  assert.deepEqual(missing, [], 'every adapter has at least one seed detected as its own');

  let cases = 0;
  let loaded = 0;
  let refused = 0;
  let slowest = { ms: 0, where: '' };
  for (const adapter of FORMAT_ADAPTERS) {
    const mine = all.filter((s) => s.adapter === adapter.id);
    fc.assert(fc.property(fc.nat(mine.length - 1), fc.array(opArb, { minLength: 1, maxLength: 4 }), (pick, ops) => {
      const seed = mine[pick];
      const file = `/fuzz/${adapter.id}/${path.basename(seed.label)}`;
      const input = mutateInput(seed.input, ops);
      cases++;
      const start = performance.now();
      let result: TrajectoryFile | undefined;
      try {
        result = load(input, file);
      } catch (e) {
        assert.ok(e instanceof TrajectoryLoadError, `${file}: not a TrajectoryLoadError: ${(e as Error)?.stack ?? e}`);
        assert.ok(e.message.startsWith(file) && e.reason.length > 0, `${file}: the error names the file: ${e.message}`);
        refused++;
      }
      const ms = performance.now() - start;
      if (ms > slowest.ms) slowest = { ms, where: `${adapter.id} (${seed.label})` };
      if (result) {
        assertWellFormed(result, file);
        loaded++;
      }
    }), { seed: SEED, numRuns: CASES_PER_ADAPTER, includeErrorInReport: true });
  }
  console.log(`fuzz: ${cases} cases over ${FORMAT_ADAPTERS.length} adapters (${all.length} seeds), seed ${SEED}: ${loaded} loaded, ${refused} refused with a TrajectoryLoadError, slowest ${slowest.ms.toFixed(0)} ms (${slowest.where})`);
  assert.equal(cases, CASES_PER_ADAPTER * FORMAT_ADAPTERS.length);
});
