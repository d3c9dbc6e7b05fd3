import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { findStrategy, runCompaction, type CompactionResult } from '../../src/core/compaction';
import { loadTrajectory } from '../../src/core/open';
import type { Run } from '../../src/core/model';

import { StepBuilder } from '../../src/core/steps';
import { charEstimateCounter } from '../../src/core/tokens/counter';
import { corpus } from '../helpers/paths';

// The failures reported on offline (extractive) summaries of real runs, one test each: what a
// person debugging the run looks for in the summary, and what must never be in it.

async function run(file: string, runIndex = 0): Promise<Run> {
  return (await loadTrajectory(corpus(file))).runs[runIndex];
}

function compact(t: Run, id: string, range?: string, options?: Record<string, string | number>): Promise<CompactionResult> {
  return runCompaction(t, { strategy: findStrategy(id)!, range, options }, { counter: charEstimateCounter });
}

type Item = ['system' | 'user' | 'assistant' | 'thought', string] | ['call', string, string] | ['result', string] | ['error', string];

function trajectory(items: Item[]): Run {
  const b = new StepBuilder();
  let n = 0;
  for (const it of items) {
    if (it[0] === 'call') b.add({ kind: 'tool_call', text: it[2], tool: { name: it[1], args: it[2], callId: `c${++n}` } });
    else if (it[0] === 'result' || it[0] === 'error') b.add({ kind: 'tool_result', text: it[1], isError: it[0] === 'error' || undefined, tool: { name: '', args: '', callId: `c${n}` } });
    else b.add({ kind: it[0], text: it[1] });
  }
  const steps = b.finish();
  return { format: 'openai-chat', title: 't', source: { path: '/tmp/t.json', size: 0 }, steps, meta: {}, warnings: [], records: steps.length };
}

const SUMMARISING = ['openhands-summary', 'openhands-structured', 'katalyst-chat', 'summarizing-session', 'rolling-summary', 'hierarchical-summary', 'budget-schema'];

test('the task is the first real request: a /clear entry is not the task', async () => {
  const t = await run('claude-code/compact.jsonl');
  const r = await compact(t, 'openhands-summary', '1-5');
  assert.match(r.summary!, /USER_CONTEXT: how are you doing/);
  assert.doesNotMatch(r.summary!, /command-name|\/clear/);
});

test('rolling and hierarchical digests carry the whole task, not its first line', async () => {
  const t = await run('swe-agent/marshmallow-code__marshmallow-1867.traj');
  for (const id of ['rolling-summary', 'hierarchical-summary']) {
    const r = await compact(t, id, '1-30');
    assert.match(r.summary!, /TimeDelta serialization precision/, id);
    assert.match(r.summary!, /milliseconds/, `${id}: more of the issue than its first line`);
  }
});

test('later requests are kept whole, each once', async () => {
  const t = await run('openhands-v0/basic_interactions.json');
  const r = await compact(t, 'openhands-summary', '1-4');
  assert.match(r.summary!, /No, I mean by Goldbach's conjecture!/);
  assert.match(r.summary!, /Finish please/);
  const follow = trajectory([
    ['system', 'sys'], ['user', 'Write a CSV exporter.'], ['assistant', 'Done: export.py.'],
    ['user', 'Two more things.\nQuote fields that contain commas.\nAnd keep the header row in the order of the model fields.'],
    ['assistant', 'Both done.'], ['user', 'Thanks.'], ['assistant', 'You are welcome.'],
  ]);
  const s = (await compact(follow, 'openhands-summary', '1-5')).summary!;
  assert.match(s, /Quote fields that contain commas\. And keep the header row in the order of the model fields\./);
});

test('edits that failed are reported as failed, not as edits', async () => {
  const t = await run('swe-agent/pydicom__pydicom-1458.traj');
  const r = await compact(t, 'openhands-summary', '1-24');
  assert.doesNotMatch(r.summary!, /numpy_handler\.py \(edited\)|edited \S*numpy_handler\.py/);
  assert.match(r.summary!, /numpy_handler\.py failed[^\n]*SyntaxError: unmatched/);
  const done = await compact(t, 'openhands-summary', '1-30');
  assert.match(done.summary!, /edited \S*numpy_handler\.py/, 'the edit at step 28 went through');
});

test("Cline's write_to_file and replace_in_file with absolutePath count as edits", async () => {
  const items: Item[] = [['system', 'sys'], ['user', '<task>\nAdd a dark mode toggle to the settings page.\n</task>']];
  for (let i = 0; i < 13; i++) {
    const tool = i % 2 ? 'replace_in_file' : 'write_to_file';
    items.push(['call', tool, JSON.stringify({ absolutePath: `/home/dev/app/src/theme${i}.ts`, content: 'x', task_progress: '- [x] read settings\n- [ ] add toggle' })], ['result', `[${tool} for 'src/theme${i}.ts'] Result:\nThe content was successfully saved to src/theme${i}.ts.`]);
  }
  items.push(['assistant', 'Done.']);
  const r = await compact(trajectory(items), 'openhands-summary', '2-27');
  assert.doesNotMatch(r.summary!, /COMPLETED: \(none/);
  assert.match(r.summary!, /theme12\.ts/);
  assert.match(r.summary!, /TASK_TRACKING:[\s\S]*add toggle \[pending\]/);
});

test('commands without an exit code are kept, with what they printed', async () => {
  const t = await run('swe-agent/marshmallow-code__marshmallow-1867.traj');
  const r = await compact(t, 'openhands-summary', '1-35');
  assert.match(r.summary!, /python reproduce\.py[^\n]*344/);
});

test('errors come from tool output, never from a listing of source code', async () => {
  const t = trajectory([
    ['system', 'sys'], ['user', 'Why does the event log stay empty?'],
    ['call', 'bash', '{"command": "cat monitor.py"}'], ['result', "import json\nprint('Error-related events:')\nValueError: raised when the log is empty\nevents = json.load(open('log.json'))\n"],
    ['call', 'bash', '{"command": "python monitor.py"}'], ['result', 'Traceback (most recent call last):\n  File "monitor.py", line 3, in <module>\nKeyError: \'events\'\n[The command completed with exit code 1.]'],
    ['assistant', 'The key is missing.'],
  ]);
  for (const id of SUMMARISING) {
    const r = await compact(t, id, '2-5');
    // The source may be quoted as what the file holds (`monitor.py (read): print('Error-related events:')`), never as an error.
    const quoted = r.summary!.split('\n').filter((l) => /Error-related events|ValueError/.test(l));
    assert.ok(quoted.every((l) => /monitor\.py(?: \(read\))?: |monitor\.py \(print/.test(l)) && !/ValueError/.test(r.summary!), `${id}:\n${r.summary}`);
    assert.match(r.summary!, /KeyError: 'events'/, id);
  }
});

test('a summary already in the range is carried forward with its task-tracking ids', async () => {
  const previous = 'USER_CONTEXT: migrate the billing jobs\nTASK_TRACKING:\n- T-17 port invoice job [done]\n- T-18 port refund job [in progress]\nCOMPLETED: invoice job';
  const b = new StepBuilder();
  b.add({ kind: 'system', text: 'sys' });
  b.add({ kind: 'user', text: 'Migrate the billing jobs to the new queue.' });
  b.add({ kind: 'compaction', text: previous, compaction: { summary: previous } });
  for (let i = 0; i < 6; i++) {
    b.add({ kind: 'tool_call', text: `{"command": "make job${i}"}`, tool: { name: 'execute_bash', args: `{"command": "make job${i}"}`, callId: `k${i}` } });
    b.add({ kind: 'tool_result', text: 'ok\n[The command completed with exit code 0.]', tool: { name: '', args: '', callId: `k${i}` } });
  }
  const steps = b.finish();
  const t: Run = { format: 'openhands-v0', title: 't', source: { path: '/tmp/t.json', size: 0 }, steps, meta: {}, warnings: [], records: steps.length };
  for (const id of SUMMARISING) {
    const r = await compact(t, id, '2-12');
    assert.match(r.summary!, /T-17/, id);
    assert.match(r.summary!, /T-18 port refund job/, id);
  }
});

test('to-do lists reach PENDING and TASK_TRACKING', async () => {
  const t = await run('claude-code/crud.jsonl');
  const r = await compact(t, 'openhands-summary', '1-9');
  assert.match(r.summary!, /TASK_TRACKING:[\s\S]*Read the JOKE\.md file \[in_progress\]/);
  assert.match(r.summary!, /PENDING:[\s\S]*Delete the JOKE\.md file/);
});

test('no summary holds a control character or a line repeated more than twice', async () => {
  const runs = [await run('swe-agent/marshmallow-code__marshmallow-1867.traj'), await run('claude-code/compact.jsonl'), await run('mini-swe-agent/astropy__astropy-12907.traj.json')];
  for (const t of runs) {
    for (const id of SUMMARISING) {
      const r = await compact(t, id, `1:-1`);
      if (!r.summary) continue;
      // eslint-disable-next-line no-control-regex
      assert.doesNotMatch(r.summary, /[\x00-\x08\x0b-\x1f\x7f-\x9f]/, `${t.title} ${id}: control character`);
      const counts = new Map<string, number>();
      for (const line of r.summary.split('\n').filter((l) => l.trim())) counts.set(line, (counts.get(line) ?? 0) + 1);
      const repeated = [...counts].filter(([, n]) => n > 2);
      assert.deepEqual(repeated, [], `${t.title} ${id}: repeated lines`);
    }
  }
});

test('hierarchical-summary offline: the newest content survives the caps, and level 3 is filled', async () => {
  const t = await run('mini-swe-agent/astropy__astropy-12907.traj.json');
  const r = await compact(t, 'hierarchical-summary');
  assert.ok(r.range && r.range[1] > 140, `range ${r.range}`);
  assert.match(r.summary!, /Early conversation:/);
  assert.match(r.summary!, /separable\.py/, 'the fix at step 88 (sed -i on separable.py) is still named');
  assert.match(r.summary!, /git diff astropy\/modeling\/separable\.py/, 'and the last steps summarized');
});

test('katalyst-tools offline says what a long group of calls did, within its character budget', async () => {
  const t = await run('mini-swe-agent/astropy__astropy-12907.traj.json');
  const r = await compact(t, 'katalyst-tools');
  const body = /\[PREVIOUS ACTIONS SUMMARY\]\n([\s\S]*?)\n\[END OF SUMMARY\]/.exec(r.summary!)![1];
  assert.match(body, /bash \(\d+ calls\)/);
  assert.match(body, /separable\.py/);
  assert.match(body, /ModuleNotFoundError: No module named 'erfa'/);
  // The budget is the listing it replaces: the grouping of the last calls, as the prompt shows it.
  const listing = /TOOL INTERACTIONS:\n([\s\S]*?)\n\nSUMMARY/.exec(r.prompt![0].content)![1];
  assert.ok(body.length <= listing.length, `${body.length} characters, listing ${listing.length}`);
});
