import { constants as fsConstants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Warning } from '../model';

// Which entries of an event folder are read, and how. A folder from an untrusted repository may
// hold a FIFO (opening it blocks forever), a link to /dev/zero (reading it never ends) or a link to
// a file outside the folder (/etc/passwd, whose lines would land in the warnings). Only regular
// files are read, only when they resolve inside the folder, and only up to the size seen when the
// file was opened.

export interface FolderEntry {
  name: string;
  full: string;
}

/** The `.json` entries that are regular files inside `dir` (links resolved); the rest become warnings. */
export async function safeFolderEntries(dir: string, names: readonly string[], warnings: Warning[]): Promise<FolderEntry[]> {
  const realDir = await fs.realpath(dir);
  const kept: FolderEntry[] = [];
  for (const name of names) {
    const full = path.join(dir, name);
    let real: string;
    try {
      real = await fs.realpath(full);
    } catch {
      warnings.push({ message: `${name} was skipped: it is a link that leads nowhere.` });
      continue;
    }
    const rel = path.relative(realDir, real);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) {
      warnings.push({ message: `${name} was skipped: it is a link that leads out of the folder.` });
      continue;
    }
    // lstat of the resolved path: what the link finally points at.
    const stat = await fs.lstat(real).catch(() => undefined);
    if (!stat || !stat.isFile()) {
      warnings.push({ message: `${name} was skipped: it is ${describeKind(stat)}, not a regular file.` });
      continue;
    }
    kept.push({ name, full: real });
  }
  return kept;
}

function describeKind(stat: import('node:fs').Stats | undefined): string {
  if (!stat) return 'gone';
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a named pipe (FIFO)';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSocket()) return 'a socket';
  return 'a special file';
}

/**
 * A regular file's bytes up to its size when opened. Opened with O_NONBLOCK so that a file swapped
 * for a FIFO between the check and the open cannot block, and checked again through the handle.
 */
export async function readRegularFile(file: string, name: string): Promise<Buffer> {
  const handle = await fs.open(file, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0) | (fsConstants.O_NOFOLLOW ?? 0));
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error(`${name} is not a regular file`);
    const size = stat.size;
    const bytes = Buffer.allocUnsafe(size);
    let at = 0;
    while (at < size) {
      const { bytesRead } = await handle.read(bytes, at, size - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return bytes.subarray(0, at);
  } finally {
    await handle.close();
  }
}
