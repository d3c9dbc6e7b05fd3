import * as fs from 'node:fs';
import * as path from 'node:path';
import { corpus, fixture, tempDir } from './paths';

// A folder of real runs for the survey tests, assembled in a temp folder from the corpus (read in
// place elsewhere; copied here only because a survey needs them under one folder).

export interface SurveyFolder {
  dir: string;
  /** Files and event folders that hold runs, relative to `dir`. */
  entries: string[];
  /** Runs the folder holds in all (a file of many runs counts each). */
  runs: number;
  /** The file no adapter claims. */
  bad: string;
}

const SINGLE = [
  'mini-swe-agent/astropy__astropy-12907.traj.json',
  'mini-swe-agent/sphinx-doc__sphinx-9711.traj.json',
  'swe-agent/marshmallow-code__marshmallow-1867.traj',
  'swe-agent/pydicom__pydicom-1458.traj',
  'claude-code/crud.jsonl',
  'claude-code/compact.jsonl',
  'codex/crud.jsonl',
  'openhands-v0/basic.json',
];
const MANY = 'openhands-eval/output.jsonl';
export const RUNS_IN_MANY = 3;

/** `copies` copies of each corpus run under nested folders, the OpenHands eval output (3 runs), a Cline task folder and a bad file. */
export function surveyFolder(copies = 1): SurveyFolder {
  const dir = tempDir('atl-survey-');
  const entries: string[] = [];
  for (let c = 0; c < copies; c++) {
    for (const rel of SINGLE) {
      const target = path.join(`batch-${c}`, rel);
      fs.mkdirSync(path.join(dir, path.dirname(target)), { recursive: true });
      fs.copyFileSync(corpus(rel), path.join(dir, target));
      entries.push(target.split(path.sep).join('/'));
    }
  }
  fs.mkdirSync(path.join(dir, 'evals'), { recursive: true });
  fs.copyFileSync(corpus(MANY), path.join(dir, 'evals', 'output.jsonl'));
  entries.push('evals/output.jsonl');
  const task = path.join(dir, 'cline', 'task-crud');
  fs.mkdirSync(task, { recursive: true });
  for (const name of fs.readdirSync(fixture('cline/task-crud'))) fs.copyFileSync(fixture(`cline/task-crud/${name}`), path.join(task, name));
  entries.push('cline/task-crud');
  fs.writeFileSync(path.join(dir, 'notes.json'), JSON.stringify({ hello: 'not a trajectory', list: [1, 2, 3] }));
  fs.writeFileSync(path.join(dir, 'README.txt'), 'not looked at: not a trajectory file name');
  entries.push('notes.json');
  return { dir, entries: entries.sort(), runs: copies * SINGLE.length + RUNS_IN_MANY + 1, bad: 'notes.json' };
}
