import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { findStrategy, runCompaction } from '../../src/core/compaction';
import { exitCodeOf } from '../../src/core/compaction/facts/outcomes';
import { answersNo } from '../../src/core/compaction/facts/verdict';
import { commandOf } from '../../src/core/compaction/facts/calls';
import { errorSteps, findSteps, parseQuery } from '../../src/core/find';
import { loadTrajectory } from '../../src/core/open';

import { charEstimateCounter } from '../../src/core/tokens/counter';
import type { Run } from '../../src/core/model';
import { allRealFiles } from '../helpers/realFiles';
import * as path from 'node:path';
import { extractFacts } from '../../src/core/compaction/extract';
import { REPO_ROOT, writeTemp } from '../helpers/paths';

// One verdict for every tool (compaction/facts/verdict.ts): the log's error flag and exit status
// decide, the text only when the log records neither; a text that says there was no error is none.

async function runs(file: string): Promise<Run[]> {
  return (await loadTrajectory(file)).runs;
}

test('on every corpus file and fixture: every flagged step and every non-zero exit is an error, and no result with exit 0 and no flag is one', async () => {
  let flagged = 0, zero = 0, nonZero = 0;
  const formats = new Set<string>();
  for (const file of allRealFiles()) {
    for (const run of await runs(file)) {
      const errors = errorSteps(run.steps);
      for (const s of run.steps) {
        if (s.isError) { flagged++; formats.add(run.format); assert.ok(errors.has(s.index), `${file} step ${s.index}: flagged by the log, not an error`); }
        if (s.kind !== 'tool_result') continue;
        const code = exitCodeOf(s);
        if (code === 0 && !s.isError) { zero++; formats.add(run.format); assert.ok(!errors.has(s.index), `${file} step ${s.index}: exit 0, no flag, shown as an error:\n${s.text.slice(0, 300)}`); }
        const call = s.answers !== undefined ? run.steps[s.answers] : undefined;
        if (code !== undefined && code !== 0 && !answersNo(call ? commandOf(call) : undefined, code)) { nonZero++; assert.ok(errors.has(s.index), `${file} step ${s.index}: exit ${code}, not an error`); }
      }
    }
  }
  assert.ok(flagged > 0 && zero > 20 && nonZero > 10 && formats.size >= 5, `${flagged} flagged, ${zero} exit 0, ${nonZero} non-zero, formats ${[...formats]}`);
});

// Gemini CLI's shell tool prints this report after every command (real outputs, the first from a
// public session export; `Error: (none)` is its line for "no error").
const geminiShell = (command: string, output: string, code: number) =>
  `Command: ${command}\nDirectory: (root)\nOutput: ${output}\nError: (none)\nExit Code: ${code}\nSignal: 0\nBackground PIDs: (none)\nProcess Group PGID: 271975`;

function geminiSession(calls: { command: string; output: string; code: number }[]): string {
  const messages: unknown[] = [{ id: 'u1', timestamp: '2025-10-10T06:59:39.894Z', type: 'user', content: 'Set up the shim for the CLI and build it.' }];
  calls.forEach((c, i) => messages.push({
    id: `g${i}`, timestamp: '2025-10-10T06:59:40.000Z', type: 'gemini', content: '', model: 'gemini-2.5-pro',
    tokens: { input: 10, output: 5, cached: 0, thoughts: 0, tool: 0, total: 15 },
    toolCalls: [{ id: `run_shell_command-${i}`, name: 'run_shell_command', args: { command: c.command }, status: 'success', timestamp: '2025-10-10T06:59:40.500Z',
      result: [{ functionResponse: { id: `run_shell_command-${i}`, name: 'run_shell_command', response: { output: geminiShell(c.command, c.output, c.code) } } }] }],
  }));
  return JSON.stringify({ sessionId: 'cdd63974-c2a3-4f1c-931d-cce1db22ec03', projectHash: 'f53b', startTime: '2025-10-10T06:59:39.894Z', lastUpdated: '2025-10-10T06:59:41.751Z', messages });
}

test("Gemini CLI: `Error: (none)` with exit code 0 is no error anywhere; the one exit code 1 is, in is:error and in the summaries", async () => {
  const file = writeTemp('session.json', geminiSession([
    { command: 'mkdir -p ~/.local/shims', output: '(empty)', code: 0 },
    { command: 'python3 -m venv .venv', output: '(empty)', code: 0 },
    { command: 'ls -la', output: 'total 8\ndrwxr-xr-x 2 user user 4096 .', code: 0 },
    { command: './install-shim.sh', output: 'Error: target shim binary not found', code: 1 },
    { command: 'cargo build', output: 'Finished `dev` profile [unoptimized + debuginfo] target(s) in 6.61s', code: 0 },
    { command: 'ls target', output: 'debug', code: 0 },
  ]));
  const [run] = await runs(file);
  assert.equal(run.format, 'gemini-cli');
  const errors = [...errorSteps(run.steps)];
  assert.equal(errors.length, 1, `errors at ${errors}`);
  assert.match(run.steps[errors[0]].text, /target shim binary not found/);
  assert.deepEqual(findSteps(run.steps, parseQuery('is:error')), errors, 'search is:error finds the same step');
  for (const id of ['openhands-summary', 'katalyst-tools', 'codex-compact']) {
    const r = await runCompaction(run, { strategy: findStrategy(id)!, range: '1:' }, { counter: charEstimateCounter });
    assert.doesNotMatch(r.summary ?? '', /Error: \(none\)/, `${id}: ${r.summary}`);
    assert.match(r.summary ?? '', /target shim binary not found/, `${id} keeps the real failure`);
  }
});

test('Cline: every api_req_failed entry is an error', async () => {
  const ts = 1_760_000_000_000;
  const file = writeTemp('ui_messages.json', JSON.stringify([
    { ts, type: 'say', say: 'task', text: 'Add a README section about installing.' },
    { ts: ts + 1, type: 'say', say: 'api_req_started', text: JSON.stringify({ request: 'x', tokensIn: 10, tokensOut: 2 }) },
    { ts: ts + 2, type: 'say', say: 'text', text: 'I will read the README first.' },
    { ts: ts + 3, type: 'ask', ask: 'api_req_failed', text: '429 Rate limit exceeded. Please try again later.' },
    { ts: ts + 4, type: 'say', say: 'api_req_started', text: JSON.stringify({ request: 'y', tokensIn: 12, tokensOut: 3 }) },
    { ts: ts + 5, type: 'say', say: 'text', text: 'Retrying.' },
  ]));
  const [run] = await runs(file);
  assert.equal(run.format, 'cline');
  const failed = run.steps.filter((s) => /Rate limit/.test(s.text));
  assert.equal(failed.length, 1);
  assert.ok(errorSteps(run.steps).has(failed[0].index), 'api_req_failed is an error');
  assert.equal(errorSteps(run.steps).size, 1);
});

test('katalyst-tools never says "no result recorded" for a tool whose calls have results in the log', async () => {
  let groups = 0;
  for (const file of allRealFiles()) {
    for (const run of await runs(file)) {
      const r = await runCompaction(run, { strategy: findStrategy('katalyst-tools')!, range: '0:-2' }, { counter: charEstimateCounter }).catch(() => undefined);
      if (!r?.summary || !r.range) continue;
      const head = r.summary.split('\nRecent actions and observations:')[0];
      for (const m of head.matchAll(/^(.+?)(?: \(\d+ calls\))?: (.*)$/gm)) {
        groups++;
        if (!/no result recorded/.test(m[2])) continue;
        const answered = run.steps.some((s) => s.kind === 'tool_result' && s.answers !== undefined && s.index <= r.range![1] && run.steps[s.answers].tool?.name === m[1]);
        assert.ok(!answered, `${file}: "${m[0]}" but the log holds results of ${m[1]}`);
      }
    }
  }
  assert.ok(groups > 20, `${groups} groups`);
});

test('Codex 0.5x–0.6x: an output written as {"output", "metadata": {"exit_code"}} is read for its status and its text', async () => {
  // Prometheus-AGS/prometheus-parking-lot-rs (wild dev split): apply_patch answers in this shape.
  const real = (await loadTrajectory(path.join(REPO_ROOT, 'wild', 'files', 'Prometheus-AGS__prometheus-parking-lot-rs', 'rollout-2025-12-06T15-11-37-019af581-86ce-7d23-b9c6-0f99353d36af.jsonl'))).runs[0];
  const wrapped = real.steps.filter((s) => s.kind === 'tool_result' && s.text.startsWith('{"output":'));
  assert.ok(wrapped.length >= 10, `${wrapped.length}`);
  assert.deepEqual([...new Set(wrapped.map((s) => s.exitCode))], [0], 'each status is read from its metadata');
  const facts = extractFacts(real, real.steps.map((s) => s.index));
  assert.ok(facts.outcomes.some((o) => /^Success\. Updated the following files:/.test(o.said ?? '')), 'what it said, not its JSON');
  assert.ok(!facts.outcomes.some((o) => /^\{"output"/.test(o.said ?? '')));
  // The same shape with a failing status (built from the real line, exit_code changed): an error everywhere.
  const line = (type: string, payload: object) => JSON.stringify({ timestamp: '2025-12-06T21:16:59.589Z', type, payload });
  const file = writeTemp('rollout-exit.jsonl', [
    line('session_meta', { id: 's', timestamp: '2025-12-06T21:11:37.934Z', cwd: '/w', originator: 'codex_cli_rs', cli_version: '0.63.0' }),
    line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'fix the build' }] }),
    line('response_item', { type: 'function_call', name: 'shell', arguments: '{"command":["bash","-lc","./build.sh"]}', call_id: 'c1' }),
    line('response_item', { type: 'function_call_output', call_id: 'c1', output: JSON.stringify({ output: '/usr/bin/env: ‘bash\\r’: No such file or directory\n', metadata: { exit_code: 127, duration_seconds: 0.1 } }) }),
  ].join('\n'));
  const run = (await loadTrajectory(file)).runs[0];
  const result = run.steps.find((s) => s.kind === 'tool_result')!;
  assert.equal(result.exitCode, 127);
  assert.deepEqual([...errorSteps(run.steps)], [result.index]);
});

test("Kimi CLI: a listing whose status line says `<system>ERROR: Command failed with exit code: 1.</system>` failed, and the loss report names that error", async () => {
  // A real Kimi session (limeflash/kimi-plugin-cc, read as chat messages): `ls` of folders that are
  // not there exits 1 under output that lists the ones that are.
  const [run] = await runs(path.join(REPO_ROOT, 'wild', 'files', 'limeflash__kimi-plugin-cc', 'real-session.jsonl'));
  const failedAt = run.steps.findIndex((s) => s.kind === 'tool_result' && s.text.startsWith('<system>ERROR: Command failed with exit code: 1.</system>'));
  assert.ok(failedAt > 0);
  assert.ok([...errorSteps(run.steps)].includes(failedAt), 'the tree and is:error mark it');
  const facts = extractFacts(run, run.steps.map((s) => s.index));
  assert.deepEqual(facts.errors.map((e) => [e.step, e.text]), [[failedAt, 'ERROR: Command failed with exit code: 1.']]);
  // `<system>Command executed successfully.</system>` over the next listing is no error.
  assert.ok(!facts.errors.some((e) => /executed successfully/.test(e.text)));
});

test('Copilot CLI: a view that answered "File too large to read at once" read nothing, and that answer is the error', async () => {
  // softwaresalt/agent-engram (wild dev split): the log says the call succeeded; the file never reached the model.
  const [run] = await runs(path.join(REPO_ROOT, 'wild', 'files', 'softwaresalt__agent-engram', 'events.jsonl'));
  const refusal = run.steps.find((s) => s.kind === 'tool_result' && s.text.startsWith('File too large to read at once (46.3 KB).'))!;
  assert.ok([...errorSteps(run.steps)].includes(refusal.index), 'the tree and is:error mark it');
  const facts = extractFacts(run, run.steps.map((s) => s.index));
  assert.match(facts.errors.find((e) => e.step === refusal.index)?.text ?? '', /^File too large to read at once \(46\.3 KB\)\. Consider using tools like grep/);
  assert.ok(facts.reads.some((r) => r.step === refusal.answers && r.failed), 'the view is not a read that went through');
});
