import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { findStrategy, runCompaction } from '../../src/core/compaction';
import { checkAtif } from '../../src/core/formats/atifRules';
import { loadTrajectory } from '../../src/core/open';
import { extractEntities } from '../../src/core/report/entities';
import { charEstimateCounter } from '../../src/core/tokens/counter';
import { stepPreview } from '../../src/core/view/stepPresentation';
import { runCli } from '../helpers/cli';
import { fixture } from '../helpers/paths';

// The transcripts Cursor's editor agent keeps under ~/.cursor/projects/<slug>/agent-transcripts/.
// Before, the JSONL shape was "not a trajectory in any format we know" and the .txt shape plain
// text. The fixtures are written in the shape of real public transcripts (kylemath/InterpretCognates,
// kylemath/microgptJS, Lorlah/Return-It; no licence stated, so not copied) with texts of ours.

test('cursor-ide JSONL: the person\'s queries, the client\'s injected message apart, calls whose outcome the log never saved', async () => {
  const file = await loadTrajectory(fixture('cursor-ide/agent-transcript.jsonl'));
  const run = file.runs[0];
  assert.equal(run.format, 'cursor-ide');
  assert.match(run.title, /^The cart total is wrong for discounted items/, 'titled by what was typed, not the attached selection');
  assert.deepEqual(run.steps.filter((s) => s.kind === 'user').map((s) => /<user_query>\n(.*)/.exec(s.text)?.[1]?.slice(0, 20)), ['The cart total is wr', 'now add a test for a']);
  assert.ok(!run.steps.some((s) => s.kind === 'user' && /^<timestamp>/.test(s.text)), 'the time stamp is not the request');
  // The tree's row shows what was typed, not the selection Cursor attached before it.
  assert.equal(stepPreview(run.steps[0]), 'The cart total is wrong for discounted items (ticket SHOP-412). Fix total() in …');
  assert.equal(run.steps.find((s) => s.kind === 'environment')?.label, 'injected agent_skills');
  assert.deepEqual(run.steps.filter((s) => s.kind === 'tool_call').map((s) => s.tool!.name), ['ReadFile', 'Grep', 'ApplyPatch', 'Shell', 'StrReplace']);
  assert.equal(run.steps.filter((s) => s.kind === 'tool_result').length, 0);
  assert.equal(file.coverage?.unpairedCalls, 0, 'a log that saves no outcomes has no call missing its result');
  const r = await runCompaction(run, { strategy: findStrategy('openhands-summary')!, range: '0:-2' }, { counter: charEstimateCounter });
  assert.match(r.summary!, /USER_CONTEXT: The cart total is wrong for discounted items \(ticket SHOP-412\)/);
  assert.match(r.summary!, /src\/cart\.ts/, 'the patch names the file it changed');
  assert.match(r.summary!, /npx vitest run test\/cart\.test\.ts \(no result in the log\)/);
  assert.doesNotMatch(r.summary!, /no result yet/, 'nothing is pending: this log never saves results');
  const entities = extractEntities(run, run.steps.slice(0, -2).map((s) => s.index));
  assert.ok(entities.some((e) => e.kind === 'identifier' && e.text === 'SHOP-412'));
  assert.ok(entities.some((e) => e.kind === 'constraint' && /don't change the public API/.test(e.text)));
});

test('cursor-ide .txt: thinking, words and calls under user:/assistant:, multi-line arguments, the plan and the edit read', async () => {
  const file = await loadTrajectory(fixture('cursor-ide/agent-transcript.txt'));
  const run = file.runs[0];
  assert.equal(run.format, 'cursor-ide');
  assert.match(run.title, /^Set up the docs site for the weather-cli project/, 'titled by the query, not the links Cursor put first');
  assert.deepEqual(run.steps.map((s) => s.kind), ['user', 'thought', 'assistant', 'tool_call', 'tool_call', 'thought', 'tool_call', 'tool_call', 'tool_call', 'assistant', 'user', 'assistant']);
  const task = run.steps.find((s) => s.tool?.name === 'Task')!;
  assert.equal(JSON.parse(task.tool!.args).prompt, 'Open docs/index.html and list any page that failed to render.\n\nReport only the failures.', 'a value runs on over blank lines');
  const edit = JSON.parse(run.steps.find((s) => s.tool?.name === 'StrReplace')!.tool!.args);
  assert.equal(edit.new_string, '    "test": "vitest",\n    "docs": "typedoc src/index.ts"', 'an indented line of a value is not a key of its own');
  const r = await runCompaction(run, { strategy: findStrategy('openhands-summary')!, range: '0:9' }, { counter: charEstimateCounter });
  assert.match(r.summary!, /Read package\.json/, 'the to-do list the TodoWrite call wrote');
  assert.match(r.summary!, /package\.json \(edited\)|edited package\.json|package\.json/);
  assert.match(r.summary!, /npm run docs/);
  assert.match(r.summary!, /make sure `npm run docs` builds without warnings/);
  const converted = await runCli('convert', fixture('cursor-ide/agent-transcript.txt'), '--to', 'atif');
  assert.equal(converted.code, 0, converted.err);
  assert.deepEqual(checkAtif(JSON.parse(converted.out)), []);
});

test('cursor-ide: a plain-text file that merely opens with "user:" is not taken for a transcript', async () => {
  const { cursorIdeAdapter } = await import('../../src/core/formats/cursorIde');
  assert.equal(cursorIdeAdapter.sniff({ shape: 'text', text: 'user:\nadmin\npassword:\nhunter2\n' } as never, {} as never), 0);
  assert.ok(cursorIdeAdapter.sniff({ shape: 'text', text: 'user:\n<user_query>\nhi\n</user_query>\n\nassistant:\nHello.\n' } as never, {} as never) > 0.9);
});
