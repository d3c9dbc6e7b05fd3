import { pointerOf } from '../io/jsonScan';
import type { Step, TrajectoryMeta } from '../model';
import { isRecord } from '../steps';
import type { FormatAdapter, ParsedInput, ParsedTrajectory } from './adapter';
import { runMetadata, runTitle } from './runMeta';
import { sumUsage } from './usage';
import { extraOf } from '../meta';

// Files of many runs found by their shape, whoever wrote them: a JSON array, JSON Lines, or an
// object holding one such list, whose records each carry a trajectory in a format we read, under
// any key (`traj`, `trajectory`, `history`, `messages`, `events`, `steps`…) or as the record
// itself, beside metadata (task id, reward, resolved, feedback…). tau-bench results, OpenHands
// feedback datasets and resolver outputs, RL rollout dumps, JSON Lines of ATIF documents.

type Rec = Record<string, unknown>;

interface Records {
  items: { value: Rec; line?: number; pointer: (string | number)[] }[];
  /** The list's own key when the file is an object holding it. */
  listKey?: string;
}

/** Where the trajectory sits in a record: under `key`, or the record itself when key is undefined. */
interface Placement {
  key?: string;
  adapter: FormatAdapter;
  confidence: number;
}

const SELF = '';

const runsAdapter: FormatAdapter = {
  id: 'runs',
  label: 'File of many runs',
  fileNames: ['*.json', '*.jsonl', '*.ndjson'],
  sniff(input, fileName) {
    const records = recordsOf(input, fileName);
    if (!records || records.items.length === 0) return 0;
    // A format that reads the whole file itself (an evaluation output, a message list) keeps it.
    if (innerAdapters().some((a) => safeSniff(a, input, fileName) >= 0.5)) return 0;
    const sample = records.items.slice(0, 5);
    const placements = sample.map((r) => placementOf(r.value, fileName));
    const found = placements.filter((p): p is Placement => p !== undefined);
    if (found.length / sample.length < 0.6) return 0;
    // Records that are a trajectory under a key must say something else about the run.
    const withMetadata = sample.filter((r, i) => placements[i]?.key === SELF || Object.keys(r.value).length > 1).length;
    return withMetadata / sample.length >= 0.6 ? 0.85 : 0;
  },
  parse(input, ctx) {
    const records = recordsOf(input, ctx.fileName)!;
    const runs: ParsedTrajectory[] = [];
    records.items.forEach((record, i) => {
      const placement = placementOf(record.value, ctx.fileName);
      const where = record.line !== undefined ? `line ${record.line}` : `record ${i + 1}`;
      if (!placement) {
        ctx.warnings.push({ message: `${where} holds no trajectory in a format we read and was skipped.`, line: record.line });
        return;
      }
      const nested = placement.key === SELF ? record.value : valueAt(record.value, placement.key!);
      const inner: ParsedInput = { shape: 'json', value: nested };
      let parsed: ParsedTrajectory;
      try {
        parsed = placement.adapter.parse(inner, { fileName: ctx.fileName, warnings: ctx.warnings });
      } catch (e) {
        ctx.warnings.push({ message: `${where} looks like ${placement.adapter.label} but could not be read (${(e as Error).message}); it was skipped.`, line: record.line });
        return;
      }
      const prefix = placement.key === SELF ? record.pointer : [...record.pointer, placement.key!];
      const meta = runMetadata(record.value, placement.key, i);
      for (const run of parsed.runs && parsed.runs.length > 0 ? parsed.runs : [parsed]) {
        relocate(run.steps, record.line, prefix);
        runs.push({ ...run, format: placement.adapter.id, title: runTitle(meta, run.title), meta: { ...run.meta, ...meta } });
      }
    });
    const formats = [...new Set(runs.map((r) => r.format))];
    const recorded = sumUsage(runs.map((r) => r.meta?.recorded));
    const models = new Set(runs.map((r) => r.meta?.model).filter(Boolean));
    const meta: TrajectoryMeta = { recorded, model: models.size === 1 ? [...models][0] : undefined, extra: extraOf({ innerFormats: formats }) };
    const what = formats.length === 1 ? innerLabel(formats[0]) : 'mixed formats';
    return { title: `${runs.length} run${runs.length === 1 ? '' : 's'} (${what})${records.listKey ? ` in "${records.listKey}"` : ''}`, steps: [], runs, meta };
  },
};

// The registry hands this adapter the list of formats a run may be in (see `manyRunsAdapter` below), so
// this file never imports the registry and the two form no import circle.
let knownAdapters: () => readonly FormatAdapter[] = () => [];

/** The `runs` adapter, reading runs in any of the formats `adapters()` lists (itself excluded). */
export function manyRunsAdapter(adapters: () => readonly FormatAdapter[]): FormatAdapter {
  knownAdapters = adapters;
  return runsAdapter;
}

function innerAdapters(): readonly FormatAdapter[] {
  return knownAdapters().filter((a) => a.id !== 'runs');
}

function innerLabel(id: string | undefined): string {
  return innerAdapters().find((a) => a.id === id)?.label ?? String(id);
}

function safeSniff(a: FormatAdapter, input: ParsedInput, fileName: string): number {
  try {
    return a.sniff(input, fileName);
  } catch {
    return 0;
  }
}

function recordsOf(input: ParsedInput, fileName: string): Records | undefined {
  if (input.shape === 'jsonl') {
    return { items: input.records.filter((r) => isRecord(r.value)).map((r) => ({ value: r.value as Rec, line: r.line, pointer: [] })) };
  }
  if (input.shape !== 'json') return undefined;
  const v = input.value;
  if (Array.isArray(v)) return { items: v.map((value, i) => ({ value, pointer: [i] as (string | number)[] })).filter((r): r is { value: Rec; pointer: (string | number)[] } => isRecord(r.value)) };
  if (!isRecord(v)) return undefined;
  // `{results: [...]}`: an object whose one list of records is the runs.
  const lists = Object.entries(v).filter(([, list]) => Array.isArray(list) && list.length > 0 && list.every(isRecord));
  // Several lists (τ²-bench: `tasks` beside `simulations`): the runs are the one whose first
  // records carry a trajectory.
  const runLists = lists.length === 1 ? lists : lists.filter(([, list]) => (list as Rec[]).slice(0, 3).every((r) => placementOf(r, fileName) !== undefined));
  if (runLists.length !== 1) return undefined;
  const [key, list] = runLists[0];
  return { listKey: key, items: (list as Rec[]).map((value, i) => ({ value, pointer: [key, i] })) };
}

/** The key of a record whose value is a trajectory (or the record itself), with the adapter that reads it. */
function placementOf(record: Rec, fileName: string): Placement | undefined {
  let best: Placement | undefined;
  const consider = (key: string, value: unknown) => {
    if (!Array.isArray(value) && !isRecord(value)) return;
    const input: ParsedInput = { shape: 'json', value };
    for (const adapter of innerAdapters()) {
      const confidence = safeSniff(adapter, input, fileName);
      if (confidence >= 0.6 && (!best || confidence > best.confidence)) best = { key, adapter, confidence };
    }
  };
  consider(SELF, record);
  if (best && best.confidence >= 0.9) return best;
  best = undefined;
  for (const [key, value] of Object.entries(record)) consider(key, parseIfJson(value));
  return best;
}

/** Some datasets keep the trajectory as a JSON string. */
function parseIfJson(value: unknown): unknown {
  if (typeof value !== 'string' || !/^\s*[[{]/.test(value) || value.length < 20) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function valueAt(record: Rec, key: string): unknown {
  return parseIfJson(record[key]);
}

/** Steps point into the nested value; make their locations point into the file. */
function relocate(steps: Step[], line: number | undefined, prefix: (string | number)[]): void {
  for (const step of steps) {
    if (line !== undefined) step.location = { line };
    else if (step.location?.pointer !== undefined) step.location = { pointer: pointerOf(...prefix) + step.location.pointer };
    else step.location = { pointer: pointerOf(...prefix) };
  }
}
