// The documents a newcomer reads: short enough to read, and every link in them leads somewhere.
import test from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from '../helpers/paths';

const DOCS = ['README.md', 'DEVELOPERS.md', ...fs.readdirSync(path.join(REPO_ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
}

function anchorsIn(file: string): Set<string> {
  const text = fs.readFileSync(path.join(REPO_ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1])));
}

test('the README stays short enough to read in ten minutes (at most 250 lines)', () => {
  const lines = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8').split('\n').length;
  assert.ok(lines <= 250, `README.md has ${lines} lines; move detail to docs/`);
});

test('every relative link and anchor in the README, DEVELOPERS.md and docs/ leads to something that exists', () => {
  const broken: string[] = [];
  for (const doc of DOCS) {
    const text = fs.readFileSync(path.join(REPO_ROOT, doc), 'utf8').replace(/```[\s\S]*?```/g, '');
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1];
      if (/^[a-z]+:/i.test(target)) continue; // http(s), command: and mailto: links
      const [file, anchor] = target.split('#');
      const resolved = file ? path.normalize(path.join(path.dirname(doc), file)) : doc;
      if (!fs.existsSync(path.join(REPO_ROOT, resolved))) { broken.push(`${doc}: ${target} (no ${resolved})`); continue; }
      if (anchor && resolved.endsWith('.md') && !anchorsIn(resolved).has(anchor)) broken.push(`${doc}: ${target} (no heading #${anchor} in ${resolved})`);
    }
  }
  assert.deepEqual(broken, []);
});

test("DEVELOPERS.md's layout table names every folder under src/core and src, and only folders that exist", () => {
  const developers = fs.readFileSync(path.join(REPO_ROOT, 'DEVELOPERS.md'), 'utf8');
  const table = developers.slice(developers.indexOf('## Layout'), developers.indexOf('\n## ', developers.indexOf('## Layout') + 1));
  for (const m of table.matchAll(/`((?:src|test|media|bench)\/[^`]*?)\/?`/g)) {
    assert.ok(fs.existsSync(path.join(REPO_ROOT, m[1])), `DEVELOPERS.md names ${m[1]}, which does not exist`);
  }
  const folders = fs.readdirSync(path.join(REPO_ROOT, 'src', 'core'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
  const missing = folders.filter((name) => !new RegExp('`' + name + '/`').test(table));
  assert.deepEqual(missing, [], 'folders of src/core the layout table does not describe');
  for (const top of fs.readdirSync(path.join(REPO_ROOT, 'src'))) assert.match(table, new RegExp('`src/' + top + '/`'), `src/${top} is missing from the layout table`);
});
