// A format's knowledge lives in its adapter: which file names its logs carry and which folders are
// one run. Every list the product keeps (the survey, the editor follower, the Explorer's menu in
// package.json, the open dialogs) is derived from the registry, so a new format is one file and one
// registry line: a throwaway adapter shows up in all of them.
import test from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FormatAdapter } from '../../src/core/formats/adapter';
import { dialogExtensions, explorerWhenClause, isRunFolder, isTrajectoryFileName, mayBeTrajectoryFileName } from '../../src/core/formats/fileNames';
import { FORMAT_ADAPTERS } from '../../src/core/formats/registry';
import { enumerateTrajectories } from '../../src/core/survey/enumerate';
import { REPO_ROOT, tempDir } from '../helpers/paths';

const THROWAWAY: FormatAdapter = {
  id: 'zz-agent',
  label: 'A format added by this test',
  fileNames: ['*.zzlog'],
  otherFileNames: ['*.zznote'],
  isRunFolder: (names) => names.includes('zz-session.marker'),
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
  for (const a of FORMAT_ADAPTERS) assert.ok(a.fileNames.length > 0, `${a.id} declares no file names`);
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
