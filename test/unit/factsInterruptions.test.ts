import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { test } from 'node:test';
import { findStrategy, runCompaction } from '../../src/core/compaction';
import { SUMMARISING } from '../helpers/factLabels';
import { extractFacts } from '../../src/core/compaction/facts/facts';
import { loadTrajectory } from '../../src/core/open';
import { charEstimateCounter } from '../../src/core/tokens/counter';
import { REPO_ROOT, writeTemp } from '../helpers/paths';
import { loadRun } from '../helpers/runs';

// The person stopping the agent (Esc, a refused call) is theirs to say, as a request is: a summary
// that drops it reads as if the agent had given up on its own.

test('a Claude Code run the person interrupted: every summarising strategy says so', async () => {
  // codemie-ai/codemie-code (wild, dev): the person refused a write, then asked for something else.
  const run = (await loadTrajectory(path.join(REPO_ROOT, 'wild', 'files', 'codemie-ai__codemie-code', 'session-9eda1058.jsonl'))).runs[0];
  const stop = run.steps.find((s) => s.interruption)!;
  assert.equal(stop.text, '[Request interrupted by user for tool use]');
  assert.deepEqual(extractFacts(run, run.steps.map((s) => s.index)).requests.filter((r) => r.step === stop.index).map((r) => r.text),
    ['interrupted: [Request interrupted by user for tool use]']);
  for (const id of SUMMARISING) {
    const out = await runCompaction(run, { strategy: findStrategy(id)!, range: '0:-2' }, { counter: charEstimateCounter });
    // Katalyst's action trace keeps the conversation around it as it stands: the interruption with the person's messages.
    if (id === 'katalyst-tools') assert.equal(out.fates[stop.index], 'kept', `${id}: ${out.fates[stop.index]}`);
    else assert.match(out.summary ?? '', /interrupted: \[Request interrupted by user for tool use\]/, `${id}:\n${out.summary}`);
  }
});

test("Codex's turn_aborted (the person pressed Esc) and OpenHands' InterruptEvent are interruptions; other aborts are bookkeeping", async () => {
  const line = (type: string, payload: unknown) => JSON.stringify({ timestamp: '2026-06-02T10:00:00Z', type, payload });
  const codex = await loadRun(writeTemp('rollout-esc.jsonl', [
    line('session_meta', { id: 's1', cwd: '/w', cli_version: '0.99.0' }),
    line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Run the build' }] }),
    line('response_item', { type: 'function_call', name: 'shell', arguments: '{"command":["make"]}', call_id: 'c1' }),
    line('event_msg', { type: 'turn_aborted', reason: 'interrupted' }),
    line('event_msg', { type: 'turn_aborted', reason: 'replaced' }),
    line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Only the docs, please' }] }),
  ].join('\n') + '\n'));
  assert.deepEqual(codex.steps.filter((s) => s.interruption).map((s) => [s.kind, s.text]), [['environment', 'turn aborted: interrupted']]);
  const facts = extractFacts(codex, codex.steps.map((s) => s.index));
  assert.deepEqual(facts.requests.map((r) => r.text), ['Run the build', 'interrupted: turn aborted: interrupted', 'Only the docs, please']);

  const events = [
    { kind: 'MessageEvent', id: 'u1', source: 'user', llm_message: { role: 'user', content: [{ type: 'text', text: 'List the files' }] } },
    { kind: 'InterruptEvent', id: 'i1', source: 'user' },
    { kind: 'PauseEvent', id: 'p', source: 'user' },
  ];
  const openhands = await loadRun(writeTemp('events-interrupt.jsonl', events.map((e) => JSON.stringify(e)).join('\n') + '\n'));
  assert.deepEqual(openhands.steps.map((s) => [s.text, s.interruption ?? false]), [['List the files', false], ['conversation interrupted', true], ['conversation paused', false]]);
});
