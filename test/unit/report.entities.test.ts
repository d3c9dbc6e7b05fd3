import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { findStrategy, runCompaction } from '../../src/core/compaction';
import { loadTrajectory } from '../../src/core/io/load';
import type { Step } from '../../src/core/model';
import { extractEntities, forgottenEntities, survival } from '../../src/core/report/entities';
import { runsOf } from '../../src/core/stats';
import { charEstimateCounter } from '../../src/core/tokens/counter';
import { corpus } from '../helpers/paths';

function step(index: number, kind: Step['kind'], text: string, tool?: Step['tool']): Step {
  return { index, kind, text, turn: 0, ...(tool ? { tool } : {}) };
}

const forgotten: Step[] = [
  step(0, 'user', 'Order ABC123 fails; see https://example.com/issues/7 and ticket PAY-42.'),
  step(1, 'tool_call', '', { name: 'bash', args: JSON.stringify({ command: 'pytest tests/test_card.py -x' }) }),
  step(2, 'tool_result', 'FAILED tests/test_card.py::test_float - ValueError: could not convert string to float: \'1,5\'\nexit code: 1'),
  step(3, 'assistant', 'The bug is in `parse_amount()` inside src/billing/card.py.'),
];

test('entities: ids, test names, errors, commands, URLs and files are found in the forgotten steps', () => {
  const found = extractEntities(forgotten);
  const has = (kind: string, text: string) => found.some((e) => e.kind === kind && e.text === text);
  assert.ok(has('identifier', 'ABC123'), 'an upper-case code mixing letters and digits');
  assert.ok(has('identifier', 'PAY-42'), 'a ticket id');
  assert.ok(has('test', 'tests/test_card.py::test_float'));
  assert.ok(has('error', "ValueError: could not convert string to float: '1,5'"));
  assert.ok(has('command', 'pytest tests/test_card.py -x'));
  assert.ok(has('url', 'https://example.com/issues/7'));
  assert.ok(has('file', 'src/billing/card.py'));
  assert.ok(has('identifier', 'parse_amount'));
  assert.ok(!found.some((e) => e.kind === 'file' && e.text.includes('::')), 'a test id is not also counted as a file');
});

test('entities: a summary that drops an id or a test name shows them as lost', () => {
  const summary = 'Card parsing fails for comma decimals (ValueError: could not convert string to float). Fix parse_amount() in billing/card.py; ticket PAY-42.';
  const marked = survival(extractEntities(forgotten), summary);
  const kept = (text: string) => marked.find((e) => e.text === text)?.kept;
  assert.equal(kept('ABC123'), false);
  assert.equal(kept('tests/test_card.py::test_float'), false);
  assert.equal(kept('PAY-42'), true);
  assert.equal(kept('src/billing/card.py'), true, 'a shortened path still names the file');
  assert.equal(kept("ValueError: could not convert string to float: '1,5'"), true, 'the error class with most of its message');
  assert.equal(kept('https://example.com/issues/7'), false);
});

test('entities: class names in a source listing are not reported as errors', () => {
  const listing = step(0, 'tool_result', 'def f(x):\n    if not x:\n        raise ValueError("empty")\n    except KeyError:\n        pass\n');
  assert.deepEqual(extractEntities([listing]).filter((e) => e.kind === 'error'), []);
});

test('entities: on a SWE-agent run, every entity occurs in the forgotten steps and every lost one is absent from the condensed context', async () => {
  const t = runsOf(await loadTrajectory(corpus('swe-agent/marshmallow-code__marshmallow-1867.traj')))[0];
  const r = await runCompaction(t, { strategy: findStrategy('openhands-summary')!, options: { max_size: 20 } }, { counter: charEstimateCounter });
  const entities = forgottenEntities(t, r);
  assert.ok(entities.length >= 10, `${entities.length} entities`);
  const forgottenText = t.steps.filter((s) => r.fates[s.index] !== 'kept').map((s) => `${s.text}\n${s.tool?.args ?? ''}`).join('\n').toLowerCase();
  const condensedText = r.condensed.steps.map((s) => `${s.text}\n${s.tool?.args ?? ''}`).join('\n').toLowerCase();
  for (const e of entities) {
    if (e.kind !== 'command') assert.ok(forgottenText.includes(e.text.toLowerCase()), `"${e.text}" is not in the forgotten steps`);
    if (!e.kept) assert.ok(!condensedText.includes(e.text.toLowerCase()), `"${e.text}" is marked lost but the condensed context names it`);
  }
  // The run's own reproduction script survives; the files an `ls` listed once do not.
  assert.equal(entities.find((e) => e.text === 'reproduce.py')?.kept, true);
  assert.equal(entities.find((e) => e.text === 'pyproject.toml')?.kept, false);
  assert.ok(entities.some((e) => e.kind === 'command' && e.text === 'python reproduce.py'));
});
