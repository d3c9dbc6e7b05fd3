import { createHash } from 'node:crypto';

// The wild set is split once: two thirds to develop on, one third locked and looked at only when
// a piece of work is finished. The choice is a seeded hash of the file's path, stratified by the
// expected format so every format with three files or more has one locked; a file added later
// gets its place the same way and never moves an earlier one.

export const SPLIT_SEED = 'agent-trace-lens/issue-20/wild';

export interface SplitFile {
  seed: string;
  method: string;
  files: Record<string, 'dev' | 'locked'>;
}

function hash(text: string): string {
  return createHash('sha256').update(`${SPLIT_SEED}\n${text}`).digest('hex');
}

/** Assigns every path not yet in `existing`; earlier assignments are kept as they are. */
export function assignSplit(paths: readonly string[], formatOf: (path: string) => string, existing?: SplitFile): SplitFile {
  const files: Record<string, 'dev' | 'locked'> = { ...(existing?.files ?? {}) };
  const byFormat = new Map<string, string[]>();
  for (const p of paths) {
    const f = formatOf(p);
    byFormat.set(f, [...(byFormat.get(f) ?? []), p]);
  }
  for (const [format, group] of byFormat) {
    // Rank by hash within the format; the format's own hash staggers where the locked third starts.
    const ranked = [...group].sort((a, b) => hash(a).localeCompare(hash(b)));
    const offset = parseInt(hash(`format:${format}`).slice(0, 8), 16) % 3;
    ranked.forEach((p, rank) => {
      if (files[p] === undefined) files[p] = (rank + offset) % 3 === 0 ? 'locked' : 'dev';
    });
  }
  const sorted = Object.fromEntries(Object.entries(files).sort(([a], [b]) => a.localeCompare(b)));
  return {
    seed: SPLIT_SEED,
    method: 'sha256(seed + "\\n" + path) ranks the files of each expected format; rank + (sha256(seed + "\\nformat:" + format) mod 3) ≡ 0 (mod 3) is locked. Earlier assignments never change.',
    files: sorted,
  };
}
