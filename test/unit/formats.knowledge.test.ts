// A format's knowledge lives in its adapter: which file names its logs carry, which folders are
// one run, how its agent compacts its context and what its agent's tools are called. Every list the
// product keeps (the survey, the editor follower, the Explorer's menu in package.json, the open
// dialogs, live follow's trigger, the fact layer's tool tables) is derived from the registry, so a
// new format is one file and one registry line: a throwaway adapter shows up in all of them.
import test from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { classifyCall } from '../../src/core/compaction/facts/calls';
import type { FormatAdapter } from '../../src/core/formats/adapter';
import { dialogExtensions, explorerWhenClause, isRunFolder, isTrajectoryFileName, mayBeTrajectoryFileName } from '../../src/core/formats/fileNames';
import { FORMAT_ADAPTERS } from '../../src/core/formats/registry';
import { compactionRuleFor } from '../../src/core/live/compactionTrigger';
import type { Step, Run } from '../../src/core/model';
import { enumerateTrajectories } from '../../src/core/survey/enumerate';
import { REPO_ROOT, tempDir } from '../helpers/paths';

const THROWAWAY: FormatAdapter = {
  id: 'zz-agent',
  label: 'A format added by this test',
  fileNames: ['*.zzlog'],
  otherFileNames: ['*.zznote'],
  isRunFolder: (names) => names.includes('zz-session.marker'),
  tools: { edit: ['zz_patch_file'], create: ['ZZ_New_File'], read: ['zz_look'], command: ['zz_run'] },
  compactionTrigger: { agent: 'ZZ Agent', unit: 'events', maxSize: 7, where: 'its own README' },
  sniff: () => 0,
  parse: () => ({ title: 'zz', steps: [], meta: {} }),
};
const WITH_IT = [...FORMAT_ADAPTERS, THROWAWAY];

interface MenuItem { command: string; when?: string }

function explorerMenuWhen(): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { contributes: { menus: Record<string, MenuItem[]> } };
  const item = manifest.contributes.menus['explorer/context'].find((m) => m.command === 'agentTraceLens.openFromExplorer');
  assert.ok(item?.when, 'package.json has an "Open as Trajectory" entry in the Explorer menu');
  return item.when;
}

test('every adapter says which file names its logs carry', () => {
  // A log with no name of its own (SpecStory's `<date>_<title>.md`) declares the weak names it may carry: offered, never surveyed.
  for (const a of FORMAT_ADAPTERS) assert.ok(a.fileNames.length > 0 || (a.otherFileNames?.length ?? 0) > 0, `${a.id} declares no file names`);
});

test("package.json's Explorer menu offers \"Open as Trajectory\" on exactly the names the adapters declare", () => {
  assert.equal(explorerMenuWhen(), explorerWhenClause(), 'update the when clause of agentTraceLens.openFromExplorer in package.json to this');
});

test('a throwaway adapter appears in every list: survey names, run folders, the follower, menus and dialogs', async () => {
  assert.equal(isTrajectoryFileName('run-1.zzlog'), false);
  assert.equal(isTrajectoryFileName('run-1.zzlog', WITH_IT), true, 'surveyed');
  assert.equal(isTrajectoryFileName('notes.zznote', WITH_IT), false, 'a weak name is offered, never surveyed');
  assert.equal(mayBeTrajectoryFileName('notes.zznote', WITH_IT), true, 'the editor follower and menus offer it');
  assert.equal(isRunFolder(['zz-session.marker', 'a.bin'], WITH_IT), true);
  assert.equal(isRunFolder(['zz-session.marker', 'a.bin']), false);
  assert.match(explorerWhenClause(WITH_IT), /zzlog/);
  assert.match(explorerWhenClause(WITH_IT), /zznote/);
  assert.ok(dialogExtensions(WITH_IT).includes('zzlog') && !dialogExtensions().includes('zzlog'));

  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'run-1.zzlog'), 'x');
  fs.writeFileSync(path.join(dir, 'notes.zznote'), 'x');
  fs.mkdirSync(path.join(dir, 'session'));
  fs.writeFileSync(path.join(dir, 'session', 'zz-session.marker'), '');
  fs.writeFileSync(path.join(dir, 'session', 'state.json'), '{}');
  assert.deepEqual((await enumerateTrajectories(dir)).map((e) => e.rel), ['session/state.json'], 'without the adapter: only the JSON file');
  assert.deepEqual((await enumerateTrajectories(dir, WITH_IT)).map((e) => e.rel), ['run-1.zzlog', 'session'], 'with it: its log, and its folder as one run');
});

test('the names the product offered before are still offered, and an Aider history under any .md name can be opened', () => {
  for (const name of ['a.json', 'b.jsonl', 'c.ndjson', 'd.traj', 'e.traj.json', 'f.eval', '.aider.chat.history.md']) assert.ok(isTrajectoryFileName(name), name);
  assert.ok(mayBeTrajectoryFileName('aider-session-2026-03.md'), 'a renamed Aider history');
  assert.ok(!isTrajectoryFileName('README.md'), 'a survey reads no README');
  assert.ok(isRunFolder(['api_conversation_history.json', 'ui_messages.json', 'task_metadata.json']), 'a Cline task');
  assert.ok(isRunFolder(['0.json', '1.json', '2.json']), 'an OpenHands V0 event store');
  assert.ok(isRunFolder(['event-00000-a1b2.json', 'event-00001-c3d4.json', 'base_state.json'].slice(0, 2)), 'an OpenHands V1 event store');
});

function zzRun(steps: Step[]): Run {
  return { format: 'zz-agent', title: 'zz', source: { path: 'run.zzlog', size: 0 }, steps, meta: { model: 'gpt-4o' }, warnings: [], records: steps.length };
}

function call(index: number, name: string, args: string): Step {
  return { index, kind: 'tool_call', text: `${name} ${args}`, tool: { name, args } } as Step;
}

test("a throwaway adapter's compaction trigger is the one live follow shows for its logs", () => {
  const run = zzRun([call(0, 'zz_run', 'ls'), call(1, 'zz_run', 'ls')]);
  const without = compactionRuleFor(run)!;
  assert.equal(without.agentRule, false, 'without the adapter: only the model\'s window');
  assert.equal(without.limit, 128_000);
  const rule = compactionRuleFor(run, WITH_IT)!;
  assert.equal(rule.agent, 'ZZ Agent');
  assert.equal(rule.unit, 'events');
  assert.equal(rule.limit, 7);
  assert.equal(rule.agentRule, true);
  assert.match(rule.description, /its own README/);
  // An adapter may name the strategy that reproduces its agent's token trigger instead.
  const tokens: FormatAdapter = { ...THROWAWAY, compactionTrigger: { agent: 'ZZ Agent', unit: 'tokens', strategy: 'codex-compact' } };
  const byStrategy = compactionRuleFor(run, [...FORMAT_ADAPTERS, tokens])!;
  assert.equal(byStrategy.limit, Math.floor(128_000 * 0.9), "codex-compact's trigger on the model's window");
});

test("a throwaway adapter's tool names are read by the fact layer, in any log", () => {
  const edit = call(0, 'zz_patch_file', '{"path": "src/a.py", "diff": "…"}');
  const create = call(1, 'zz_new_file', '{"path": "src/b.py", "content": "x = 1"}');
  const read = call(2, 'zz_look', '{"path": "src/c.py"}');
  const run = call(3, 'zz_run', 'pytest -q');
  assert.equal(classifyCall(edit).kind, 'other', 'an unknown tool without the adapter');
  assert.deepEqual(classifyCall(edit, undefined, WITH_IT).edits, [{ file: 'src/a.py', action: 'edited' }]);
  assert.deepEqual(classifyCall(create, undefined, WITH_IT).edits, [{ file: 'src/b.py', action: 'created' }], 'names match whatever their case');
  assert.equal(classifyCall(read).kind, 'other');
  assert.deepEqual(classifyCall(read, undefined, WITH_IT).reads, ['src/c.py']);
  assert.equal(classifyCall(run).command, 'zz_run pytest -q', 'an unknown text-mode tool is read as a program of that name');
  assert.equal(classifyCall(run, undefined, WITH_IT).command, 'pytest -q', 'a command tool runs its argument');
});
