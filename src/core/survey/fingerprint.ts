import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

// What a survey line records about the file it measured, so that `--resume` can tell a line about
// this very file from a stale or made-up one: size, modification time and a SHA-256 of the bytes
// (of an event folder: its regular files' names and bytes, in name order).

export interface SourceStamp {
  size: number;
  mtimeMs: number;
  sha256: string;
}

/** The stamp of a file or event folder now; undefined when it cannot be read. Links are followed. */
export async function stampOf(entryPath: string): Promise<SourceStamp | undefined> {
  try {
    const stat = await fs.stat(entryPath);
    if (stat.isFile()) return { size: stat.size, mtimeMs: Math.trunc(stat.mtimeMs), sha256: await hashFile(entryPath) };
    if (!stat.isDirectory()) return undefined;
    const hash = createHash('sha256');
    let size = 0, mtimeMs = 0;
    const names = (await fs.readdir(entryPath)).sort();
    for (const name of names) {
      const full = path.join(entryPath, name);
      const s = await fs.lstat(full);
      if (!s.isFile()) continue; // the loader skips these too
      size += s.size;
      mtimeMs = Math.max(mtimeMs, Math.trunc(s.mtimeMs));
      hash.update(`${name}\0${s.size}\0`).update(await hashFile(full)).update('\n');
    }
    return { size, mtimeMs, sha256: hash.digest('hex') };
  } catch {
    return undefined;
  }
}

async function hashFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  // Opened without blocking (a FIFO put there would otherwise wait for a writer forever).
  const handle = await fs.open(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    if (!(await handle.stat()).isFile()) throw new Error('not a regular file');
    const buffer = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
  return hash.digest('hex');
}

export function sameStamp(a: SourceStamp, b: SourceStamp): string | undefined {
  if (a.size !== b.size) return `its size is ${b.size} bytes, the line says ${a.size}`;
  if (a.mtimeMs !== b.mtimeMs) return `it was modified since (${new Date(b.mtimeMs).toISOString()})`;
  if (a.sha256 !== b.sha256) return 'its content differs (SHA-256)';
  return undefined;
}
