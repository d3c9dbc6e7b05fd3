import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { FormatAdapter } from '../formats/adapter';
import { isRunFolder, isTrajectoryFileName } from '../formats/fileNames';
import { FORMAT_ADAPTERS } from '../formats/registry';

// Every trajectory under a folder: files with a name some format's logs carry (each adapter says
// which; the loader's detection decides the format), and folders an adapter reads as one run
// (OpenHands event stores, Cline task folders). Sorted by relative path, so the order is the same on every machine.

export interface SurveyEntry {
  /** Absolute path of the file or event folder. */
  path: string;
  /** Relative to the surveyed folder, `/`-separated: the row's `file` and the shard key. */
  rel: string;
  /** Set when the entry is reported rather than read (a link out of the folder, a pipe): the reason. */
  skip?: string;
}

const SKIPPED_DIRS = new Set(['node_modules', '.git', '.hg', '.svn', '__pycache__']);

/** Whether the folder itself is one run (an event store or a Cline task folder) that the loader reads whole. */
export async function isOneRunFolder(dir: string, adapters: readonly FormatAdapter[] = FORMAT_ADAPTERS): Promise<boolean> {
  const names = (await fs.readdir(dir, { withFileTypes: true })).filter((d) => d.isFile()).map((d) => d.name);
  return isRunFolder(names, adapters) && !names.some((n) => !n.toLowerCase().endsWith('.json') && isTrajectoryFileName(n, adapters));
}

/** The runs' files under `root` (a folder, or one file of many runs), in a stable order. */
export async function enumerateTrajectories(root: string, adapters: readonly FormatAdapter[] = FORMAT_ADAPTERS): Promise<SurveyEntry[]> {
  const stat = await fs.stat(root);
  if (!stat.isDirectory()) return [{ path: path.resolve(root), rel: path.basename(root) }];
  const out: SurveyEntry[] = [];
  const base = path.resolve(root);
  const realBase = await fs.realpath(base);
  // Links are followed when they stay inside the surveyed folder (Hugging Face caches, DVC and
  // git-annex keep runs as links to blobs elsewhere in the tree); a link out of it is reported.
  const visited = new Set<string>([realBase]);
  const walk = async (dir: string): Promise<void> => {
    const dirents = await fs.readdir(dir, { withFileTypes: true });
    const kinds = await Promise.all(dirents.map((d) => kindOf(path.join(dir, d.name), d, realBase)));
    const names = dirents.filter((_, i) => kinds[i].kind === 'file').map((d) => d.name);
    if (dir !== base && isRunFolder(names, adapters)) {
      out.push({ path: dir, rel: relative(base, dir) });
      return;
    }
    for (const [i, d] of dirents.entries()) {
      const full = path.join(dir, d.name);
      const k = kinds[i];
      if (k.kind === 'dir') {
        if (SKIPPED_DIRS.has(d.name) || visited.has(k.real)) continue;
        visited.add(k.real);
        await walk(full);
      } else if (isTrajectoryFileName(d.name, adapters)) {
        if (k.kind === 'file') out.push({ path: full, rel: relative(base, full) });
        else if (k.kind === 'skip') out.push({ path: full, rel: relative(base, full), skip: k.reason });
      }
    }
  };
  if (await isOneRunFolder(base, adapters)) return [{ path: base, rel: path.basename(base) }];
  await walk(base);
  return out.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}

type Kind = { kind: 'file' | 'dir'; real: string } | { kind: 'skip'; reason: string } | { kind: 'other' };

async function kindOf(full: string, d: import('node:fs').Dirent, realBase: string): Promise<Kind> {
  if (d.isFile()) return { kind: 'file', real: full };
  if (d.isDirectory()) return { kind: 'dir', real: await fs.realpath(full).catch(() => full) };
  if (!d.isSymbolicLink()) return { kind: 'skip', reason: 'not a regular file (a named pipe, device or socket); not read' };
  let real: string;
  try {
    real = await fs.realpath(full);
  } catch {
    return { kind: 'skip', reason: 'a symbolic link to nothing (its target is missing)' };
  }
  const rel = path.relative(realBase, real);
  if (rel.startsWith('..') || path.isAbsolute(rel)) {
    const both = commonFolder(realBase, real);
    return { kind: 'skip', reason: `a symbolic link out of the surveyed folder (to ${real}); not followed${both !== path.parse(both).root ? ` (survey ${both}, which holds both, to follow it)` : ''}` };
  }
  const stat = await fs.stat(real).catch(() => undefined);
  if (stat?.isFile()) return { kind: 'file', real };
  if (stat?.isDirectory()) return { kind: 'dir', real };
  return { kind: 'skip', reason: 'a symbolic link to something that is not a regular file; not read' };
}

function commonFolder(a: string, b: string): string {
  const x = a.split(path.sep), y = b.split(path.sep);
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  return x.slice(0, i).join(path.sep) || path.sep;
}

function relative(base: string, full: string): string {
  return path.relative(base, full).split(path.sep).join('/');
}

/** `I/N` with 1 ≤ I ≤ N; throws a plain Error with the reason otherwise. */
export function parseShard(text: string): { index: number; count: number } {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = m ? Number(m[1]) : NaN, count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count) throw new Error(`--shard takes I/N with 1 ≤ I ≤ N (e.g. 2/8), not "${text}".`);
  return { index, count };
}

/** FNV-1a of the relative path: the same shard for a run on every machine and every run of the survey. */
export function shardOf(rel: string, count: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < rel.length; i++) {
    h ^= rel.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return (h % count) + 1;
}

export function inShard(entries: readonly SurveyEntry[], shard: { index: number; count: number } | undefined): SurveyEntry[] {
  return shard ? entries.filter((e) => shardOf(e.rel, shard.count) === shard.index) : [...entries];
}
