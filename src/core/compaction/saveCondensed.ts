// Writing a condensed trajectory to a new file, shared by the CLI's --out and the extension's
// "Save Condensed Trajectory": pick the richest format the source allows, and refuse any path
// that is the original file (by name or through a link).

import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Trajectory } from '../model';
import { toAtif } from '../formats/atifExport';
import { canExportOpenHands, toChatMessages, toOpenHandsV0Events } from './export';
import type { CompactionResult } from './types';
import { redactDeep } from '../llm/redact';

export type ExportKind = 'chat' | 'openhands' | 'atif';

export class SaveRefused extends Error {}

export interface SaveOptions {
  /**
   * Redact secrets in the file (default true): every string of the export, including events an
   * OpenHands export copies from the original file. `--no-redact` / `agentTraceLens.redactOutputs: false` keep them.
   */
  redact?: boolean;
  /** Filled with the number of values redacted while writing (secrets the runner already removed are in `result.secretsRemoved`). */
  redacted?: { count: number; kinds: Record<string, number> };
}

/** OpenHands V0 events when the source is one and whole events were forgotten; chat messages otherwise. */
export function defaultExportKind(loaded: Trajectory, trajectory: Trajectory, result: CompactionResult): ExportKind {
  return loaded === trajectory && canExportOpenHands(trajectory, result) ? 'openhands' : 'chat';
}

export async function isSameFile(a: string, b: string): Promise<boolean> {
  if (path.resolve(a) === path.resolve(b)) return true;
  const [ra, rb] = await Promise.all([realpathOrUndefined(a), realpathOrUndefined(b)]);
  return ra !== undefined && ra === rb;
}

/**
 * Writes the condensed trajectory to `target`, which must not be the source file. `loaded` is
 * the whole file as loaded, `trajectory` the run that was compacted (the same object for
 * single-run files). Returns the absolute path written.
 */
export async function saveCondensed(target: string, loaded: Trajectory, trajectory: Trajectory, result: CompactionResult, kind?: ExportKind, options: SaveOptions = {}): Promise<string> {
  const source = loaded.source.path;
  const absolute = path.resolve(target);
  if (await isSameFile(absolute, source)) {
    throw new SaveRefused('the condensed trajectory must go to a new file: the original trajectory is never overwritten.');
  }
  const chosen = kind ?? defaultExportKind(loaded, trajectory, result);
  let value: unknown;
  if (chosen === 'openhands') {
    if (loaded !== trajectory || !canExportOpenHands(trajectory, result)) {
      throw new SaveRefused('an OpenHands export needs an OpenHands V0 event list in which this compaction forgot whole events.');
    }
    value = toOpenHandsV0Events(JSON.parse(await fs.readFile(source, 'utf8')), trajectory, result);
  } else if (chosen === 'atif') {
    value = toAtif(result.condensed);
  } else {
    value = toChatMessages(result);
  }
  if (options.redact !== false) value = redactDeep(value, options.redacted ?? { count: 0, kinds: {} });
  await fs.writeFile(absolute, JSON.stringify(value, null, 2) + '\n');
  return absolute;
}

async function realpathOrUndefined(p: string): Promise<string | undefined> {
  try {
    return await fs.realpath(p);
  } catch {
    return undefined;
  }
}
