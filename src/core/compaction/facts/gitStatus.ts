// What `git status` said of the working tree, in one line: the branch, how it stands against its
// upstream, and what is changed (`On branch next · Your branch and 'origin/next' have diverged, and
// have 2 and 5 different commits each · 3 modified, 1 untracked`). Its first line alone ("On
// branch next") hid the state a person takes over the run from. A few changed files are named
// (`modified: README.md; 13 untracked`): which file is changed is what the person checks next.

import { cleanText } from './hygiene';

// `git status`, and what `git checkout` / `git switch` print of the branch they moved to.
const BRANCH = /^(?:On branch \S+|HEAD detached (?:at|from) \S+|Not currently on any branch\.?|Switched to (?:a new )?branch '[^']+'|Already on '[^']+'|Reset branch '[^']+')$/;
const UPSTREAM = /^Your branch (?:is|and) /;
const ENTRY = /^(modified|new file|deleted|renamed|copied|typechange|both modified|both added|deleted by us|deleted by them|added by us|added by them):\s+\S/;
const SHORT_ENTRY = /^([ MADRCUT?!])([ MADRCUT?!]) \S/;
// Up to this many files of one kind are named; more are counted.
const NAMED = 3;
// `git status -sb` opens with `## branch...upstream [ahead 1, behind 2]`: the same branch and upstream
// as the long format's first lines, kept as git printed them.
const SHORT_BRANCH = /^## (?:No commits yet on |Initial commit on )?(?:\S+?(?:\.\.\.\S+)?(?: \[(?:ahead|behind|gone)[^\]]*\])?|HEAD \(no branch\))$/;
const HEADING = /^(?:Changes to be committed|Changes not staged for commit|Untracked files|Unmerged paths|Ignored files):$/;

/** `git status` (long or short), `git checkout` or `git switch` as one line, or undefined when the text is not their output. */
export function gitStatusGist(text: string): string | undefined {
  const raw = cleanText(text).split('\n').map((l) => l.trimEnd());
  const lines = raw.map((l) => l.trim());
  const parts: string[] = [];
  const counts = new Map<string, string[]>();
  const count = (what: string, file: string) => counts.set(what, [...(counts.get(what) ?? []), file]);
  let section = '';
  let clean = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const entry = ENTRY.exec(line);
    const short = SHORT_ENTRY.exec(raw[i]);
    if (BRANCH.test(line)) parts.push(line.replace(/\.$/, ''));
    else if (SHORT_BRANCH.test(line)) parts.push(line);
    else if (UPSTREAM.test(line)) {
      // "Your branch and 'origin/next' have diverged," goes on: "and have 2 and 5 different commits each, respectively."
      const more = /,$/.test(line) && /^and have /.test(lines[i + 1] ?? '') ? ` ${lines[i + 1].replace(/, respectively\.?$|\.$/, '')}` : '';
      // Up to date is no news: two words say it.
      parts.push(/^Your branch is up to date with /.test(line) ? 'up to date' : `${line.replace(/[.,]$/, '')}${more}`);
    } else if (HEADING.test(line)) section = line;
    else if (/^nothing to commit\b/.test(line)) clean = true;
    else if (line === '') section = ''; // a section of the long format ends with a blank line
    else if (entry) count(entry[1] === 'new file' ? 'added' : entry[1], line.slice(line.indexOf(':') + 1).trim());
    else if (section === 'Untracked files:' && !line.startsWith('(')) count('untracked', line);
    else if (short && !section) {
      const [, x, y] = short;
      const code = x === '?' ? 'untracked' : x === '!' ? 'ignored' : [x, y].includes('D') ? 'deleted' : [x, y].includes('A') ? 'added' : [x, y].includes('R') ? 'renamed' : [x, y].includes('U') ? 'unmerged' : 'modified';
      count(code, raw[i].slice(3).trim());
    }
  }
  if (counts.size) parts.push([...counts].map(([what, files]) => (files.length <= NAMED ? `${what}: ${files.join(', ')}` : `${files.length} ${what}`)).join('; '));
  else if (clean) parts.push('nothing to commit, working tree clean');
  return parts.length ? parts.join(' · ') : undefined;
}
