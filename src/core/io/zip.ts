import { unzipSync } from 'fflate';
import type { Warning } from '../model';
import { TrajectoryLoadError } from './errors';
import { decodeText } from './readInput';

// Some logs are zip archives of JSON files (Inspect AI `.eval`). The loader turns such an archive
// into the same `folder` input a directory of event files gives, so adapters never see bytes.

/** True when the bytes open with a zip local-file header (`PK\x03\x04`). */
export function isZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
}

export interface ZipJson {
  files: { name: string; value: unknown }[];
  warnings: Warning[];
}

/** The archive's `.json` entries, parsed, in archive order; entries that fail to parse become warnings. */
export function readZipJson(bytes: Uint8Array, file: string): ZipJson {
  let entries: Record<string, Uint8Array>;
  try {
    // Inflate only the JSON entries: archives may also carry large binary attachments.
    entries = unzipSync(bytes, { filter: (entry) => entry.name.endsWith('.json') });
  } catch (e) {
    throw new TrajectoryLoadError(file, 'invalid', `this zip archive could not be read: ${(e as Error).message}.`);
  }
  const files: { name: string; value: unknown }[] = [];
  const warnings: Warning[] = [];
  for (const [name, data] of Object.entries(entries)) {
    if (data.length === 0) continue;
    try {
      files.push({ name, value: JSON.parse(decodeText(data, `${file}!${name}`)) });
    } catch (e) {
      warnings.push({ message: `${name} inside the archive was skipped: ${(e as Error).message}` });
    }
  }
  if (files.length === 0) throw new TrajectoryLoadError(file, 'unrecognized', 'this zip archive holds no readable .json files.');
  return { files, warnings };
}
