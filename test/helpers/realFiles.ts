import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ParsedInput } from '../../src/core/formats/adapter';
import { FORMAT_ADAPTERS } from '../../src/core/formats/registry';
import { readInput } from '../../src/core/io/readInput';
import { isZip, readZipJson } from '../../src/core/io/zip';
import { REPO_ROOT, SHARED } from './paths';

/**
 * Every real trajectory the tests read: the shared corpus and our own fixtures (files and task
 * folders) under test/fixtures/<format id>/. Other fixture folders (entities/, labels written by
 * hand) hold no trajectories.
 */
export function allRealFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string, depth: number) => {
    for (const name of fs.readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      if (name === 'SOURCES.md') continue;
      if (fs.statSync(full).isDirectory()) {
        // A folder of its own (a Cline task) is one trajectory; otherwise look inside.
        if (fs.existsSync(path.join(full, 'api_conversation_history.json')) || fs.existsSync(path.join(full, 'ui_messages.json'))) files.push(full);
        else if (depth < 3) walk(full, depth + 1);
      } else files.push(full);
    }
  };
  walk(path.join(SHARED, 'corpus'), 0);
  const ids = new Set(FORMAT_ADAPTERS.map((x) => x.id));
  for (const dir of fs.readdirSync(path.join(REPO_ROOT, 'test', 'fixtures')).sort()) {
    if (ids.has(dir)) walk(path.join(REPO_ROOT, 'test', 'fixtures', dir), 1);
  }
  return files;
}

/** A real file's input as the loader hands it to the adapters: a task folder or a zip (`.eval`) as a folder of JSON files, else the text read. */
export function realFileInput(file: string): ParsedInput {
  if (fs.statSync(file).isDirectory()) {
    return { shape: 'folder', files: fs.readdirSync(file).filter((n) => n.endsWith('.json')).sort().map((name) => ({ name, value: JSON.parse(fs.readFileSync(path.join(file, name), 'utf8')) as unknown })) };
  }
  const bytes = fs.readFileSync(file);
  if (isZip(bytes)) return { shape: 'folder', files: readZipJson(bytes, file).files };
  return readInput(bytes.toString('utf8'), file).input;
}

/** The wild-log set's files of one part, as `wild/split.json` places them (`{ files: { "files/…": "dev" | "locked" } }`); none without the set. */
export function wildSplitFiles(part: 'dev' | 'locked', wildDir = path.join(REPO_ROOT, 'wild')): string[] {
  const split = path.join(wildDir, 'split.json');
  if (!fs.existsSync(split)) return [];
  const assigned = (JSON.parse(fs.readFileSync(split, 'utf8')) as { files?: Record<string, string> }).files ?? {};
  return Object.entries(assigned).filter(([, v]) => v === part).map(([k]) => path.resolve(wildDir, k)).filter((f) => fs.existsSync(f));
}
