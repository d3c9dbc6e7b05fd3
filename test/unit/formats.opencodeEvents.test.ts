import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { loadTrajectory } from '../../src/core/open';
import { billRunAsHappened } from '../../src/core/simulate';
import { runCompaction } from '../../src/core/compaction/runner';
import { findStrategy } from '../../src/core/compaction/registry';
import { charEstimateCounter } from '../../src/core/tokens';
import { fixture } from '../helpers/paths';

// OpenCode's sync events, the rows of `opencode.db`'s event table (dfinson/traceforge's capture of
// a real OpenCode 1.17 session): "not a trajectory in any format we know" before.

test('opencode events: the rows rebuild the session, each message and part at its last state, read as OpenCode reads its export', async () => {
  const loaded = await loadTrajectory(fixture('opencode-events/traceforge-db-events.jsonl'));
  assert.equal(loaded.format, 'opencode');
  const run = loaded.runs[0];
  // The title a later session.updated row gave the session, not "New session - …".
  assert.equal(run.title, 'FastAPI: GET /tickets/{ticket_id} endpoint and service wiring');
  assert.equal(run.meta.model, 'gpt-5');
  // Each tool part is written pending, running and completed: one call and one result each.
  const calls = run.steps.filter((s) => s.kind === 'tool_call');
  const results = run.steps.filter((s) => s.kind === 'tool_result');
  assert.equal(calls.length, 12);
  assert.deepEqual(results.map((r) => r.answers), calls.map((c) => c.index));
  assert.deepEqual([...new Set(calls.map((c) => c.tool!.name))].sort(), ['apply_patch', 'bash', 'glob', 'grep', 'read']);
  assert.ok(results.every((r) => r.text !== ''), 'every result is its completed output, not a pending row');
  assert.equal(run.steps[0].kind, 'user');
  assert.match(run.steps[0].text, /Add a GET \/tickets\/\{ticket_id\} endpoint/);
  // Six step-finish parts: six model calls, and the cost they record is the bill.
  const bill = billRunAsHappened(run);
  assert.equal(bill.billing.modelCalls, 6);
  assert.equal(bill.bill.label, 'recorded');
  assert.ok(Math.abs(bill.bill.cost! - 0.0506) < 0.0001, String(bill.bill.cost));
  // Each row that makes no step says why: a replaced state, a message's info, a call's usage.
  const coverage = JSON.stringify(loaded.coverage);
  assert.match(coverage, /an earlier state of a part a later row replaces/);
  assert.match(coverage, /step-finish: a model call's usage, read/);
});

test('opencode: what the read tool read is summarised by the file\'s own lines, not by OpenCode\'s <path>, <type> and <content> wrapper or a blank line\'s number', async () => {
  const run = (await loadTrajectory(fixture('opencode-events/traceforge-db-events.jsonl'))).runs[0];
  const out = await runCompaction(run, { strategy: findStrategy('openhands-summary')! }, { counter: charEstimateCounter });
  const code = /CODE_STATE:\n((?:  - .*\n)+)/.exec(out.summary!)![1];
  assert.match(code, /app\\service\.py \(read\): """Business logic layer for ticket operations\.""" · class TicketService:/);
  assert.doesNotMatch(code, /<path>|<type>|<content>| · \d+:/);
});
