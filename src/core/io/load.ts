import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { FormatAdapter, ParsedInput, ParsedTrajectory } from '../formats/adapter';
import { FORMAT_ADAPTERS } from '../formats/registry';
import type { Trajectory, TrajectorySource, Warning } from '../model';
import { TrajectoryLoadError } from './errors';
import { decodeText, readInput } from './readInput';
import { isZip, readZipJson } from './zip';

export const DEFAULT_MAX_BYTES = 512 * 1024 * 1024;

export interface LoadOptions {
  /** Files larger than this are refused with a clear message. */
  maxBytes?: number;
  adapters?: readonly FormatAdapter[];
}

export interface Detection {
  adapter: FormatAdapter;
  confidence: number;
  tried: { id: string; confidence: number }[];
}

/** Asks every adapter how sure it is and takes the most confident; a near tie is an error, not a guess. */
export function detectFormat(input: ParsedInput, file: string, adapters = FORMAT_ADAPTERS): Detection {
  const tried = adapters
    .map((adapter) => ({ adapter, confidence: safeSniff(adapter, input, file) }))
    .sort((a, b) => b.confidence - a.confidence);
  const summary = tried.map((t) => ({ id: t.adapter.id, confidence: t.confidence }));
  const [best, second] = tried;
  if (!best || best.confidence < 0.3) {
    const names = adapters.map((a) => a.id).join(', ');
    throw new TrajectoryLoadError(file, 'unrecognized', `not a trajectory in any format we know (${describeShape(input)}). Formats tried: ${names}.`);
  }
  if (second && second.confidence >= best.confidence - 0.05 && best.confidence < 0.95) {
    throw new TrajectoryLoadError(file, 'ambiguous', `could be ${best.adapter.label} or ${second.adapter.label}; neither is certain. Formats tried: ${summary.map((t) => `${t.id} (${t.confidence.toFixed(2)})`).join(', ')}.`);
  }
  return { adapter: best.adapter, confidence: best.confidence, tried: summary };
}

function safeSniff(adapter: FormatAdapter, input: ParsedInput, file: string): number {
  try {
    return adapter.sniff(input, path.basename(file));
  } catch {
    return 0;
  }
}

function describeShape(input: ParsedInput): string {
  switch (input.shape) {
    case 'json': {
      const v = input.value;
      if (Array.isArray(v)) return `a JSON array of ${v.length} items`;
      if (v && typeof v === 'object') return `a JSON object with keys ${Object.keys(v).slice(0, 6).join(', ') || '(none)'}`;
      return `a JSON ${v === null ? 'null' : typeof v}`;
    }
    case 'jsonl': return `${input.records.length} JSON lines`;
    case 'text': return 'plain text';
    case 'folder': return `a folder of ${input.files.length} JSON files`;
  }
}

/** Parses already-read text; the extension and tests use this, the CLI goes through `loadTrajectory`. */
export function parseTrajectoryText(text: string, source: TrajectorySource, options: LoadOptions = {}): Trajectory {
  const { input, warnings, truncatedAtLine } = readInput(text, source.path);
  try {
    return parseInput(input, source, warnings, options);
  } catch (e) {
    // What survives of a broken document (`{"a": [1, 2,`) is rarely a trajectory; say it is broken JSON.
    if (truncatedAtLine !== undefined && e instanceof TrajectoryLoadError && e.code === 'unrecognized') {
      throw new TrajectoryLoadError(source.path, 'not-json', `not valid JSON: the document breaks off at line ${truncatedAtLine}, and the complete part before it is not a trajectory either.`);
    }
    throw e;
  }
}

export function parseInput(input: ParsedInput, source: TrajectorySource, warnings: Warning[], options: LoadOptions = {}): Trajectory {
  const { adapter } = detectFormat(input, source.path, options.adapters);
  let parsed: ParsedTrajectory;
  try {
    parsed = adapter.parse(input, { fileName: path.basename(source.path), warnings });
  } catch (e) {
    if (e instanceof TrajectoryLoadError) throw e;
    throw new TrajectoryLoadError(source.path, 'invalid', `looks like ${adapter.label} but could not be read: ${(e as Error).message}`);
  }
  const trajectory = toTrajectory(parsed, adapter.id, source, warnings);
  trajectory.records = countRecords(input);
  return trajectory;
}

/** Generic, so adapters need not care: the list that holds the events is the longest top-level one. */
function countRecords(input: ParsedInput): number {
  switch (input.shape) {
    case 'json': {
      const v = input.value;
      if (Array.isArray(v)) return v.length;
      if (v && typeof v === 'object') {
        const lengths = Object.values(v).filter(Array.isArray).map((a) => a.length);
        return lengths.length > 0 ? Math.max(...lengths) : 1;
      }
      return 1;
    }
    case 'jsonl': return input.records.length;
    case 'folder': return input.files.length;
    case 'text': return 1;
  }
}

function toTrajectory(parsed: ParsedTrajectory, format: string, source: TrajectorySource, warnings: Warning[]): Trajectory {
  return {
    records: parsed.runs ? parsed.runs.length : parsed.steps.length,
    format,
    title: parsed.title,
    source,
    steps: parsed.steps,
    runs: parsed.runs?.map((run) => toTrajectory(run, format, source, [])),
    meta: parsed.meta ?? {},
    warnings,
  };
}

/** Reads a trajectory from disk, a file or a folder of event files; never writes anything. */
export async function loadTrajectory(file: string, options: LoadOptions = {}): Promise<Trajectory> {
  let stat;
  try {
    stat = await fs.stat(file);
  } catch {
    throw new TrajectoryLoadError(file, 'not-found', 'no such file or folder.');
  }
  if (stat.isDirectory()) return loadFolder(file, options);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  if (stat.size > maxBytes) {
    throw new TrajectoryLoadError(file, 'too-large', `the file is ${formatBytes(stat.size)}, over the limit of ${formatBytes(maxBytes)}. Raise the limit (setting agentTraceLens.maxFileSizeMB, or --max-size-mb on the command line) to open it.`);
  }
  const bytes = await fs.readFile(file);
  if (isZip(bytes)) {
    // A zip of JSON files (Inspect `.eval`) reads like a folder of event files.
    const zip = readZipJson(bytes, file);
    return parseInput({ shape: 'folder', files: zip.files }, { path: file, size: stat.size, modified: stat.mtimeMs }, zip.warnings, options);
  }
  const text = decodeText(bytes, file);
  return parseTrajectoryText(text, { path: file, size: stat.size, modified: stat.mtimeMs }, options);
}

/** OpenHands V1 keeps a conversation as a folder of `event-*.json` files. */
async function loadFolder(dir: string, options: LoadOptions): Promise<Trajectory> {
  const names = (await fs.readdir(dir)).filter((n) => n.endsWith('.json')).sort(compareNatural);
  if (names.length === 0) throw new TrajectoryLoadError(dir, 'unrecognized', 'this folder holds no .json event files.');
  const warnings: Warning[] = [];
  const files: { name: string; value: unknown }[] = [];
  let size = 0;
  for (const name of names) {
    const full = path.join(dir, name);
    const bytes = await fs.readFile(full);
    size += bytes.length;
    try {
      files.push({ name, value: JSON.parse(decodeText(bytes, full)) });
    } catch (e) {
      warnings.push({ message: `${name} was skipped: ${(e as Error).message}` });
    }
  }
  return parseInput({ shape: 'folder', files }, { path: dir, size }, warnings, options);
}

function compareNatural(a: string, b: string): number {
  return a.localeCompare(b, undefined, { numeric: true });
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GB`;
}
