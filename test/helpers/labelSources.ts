// Where a labelled run lives: a corpus file (../shared/corpus), a fixture of ours (test/fixtures),
// or a file of the wild-log set (wild/files, issue 20; beside this worktree while that set is on
// its own branch). A wild file that is not there is reported, not counted.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { corpus, REPO_ROOT } from './paths';

export interface LabelSource {
  corpus?: string;
  fixture?: string;
  wild?: string;
}

const WILD_DIRS = [path.join(REPO_ROOT, 'wild', 'files'), path.resolve(REPO_ROOT, '..', 'wild20', 'wild', 'files')];

/** The file a label names, or undefined for a wild-log file that is not on this machine. */
export function labelSourcePath(l: LabelSource): string | undefined {
  if (l.corpus) return corpus(l.corpus);
  if (l.fixture) return path.join(REPO_ROOT, 'test', 'fixtures', l.fixture);
  if (l.wild) return WILD_DIRS.map((d) => path.join(d, l.wild!)).find((f) => fs.existsSync(f));
  throw new Error('a label names no corpus, fixture or wild file');
}
