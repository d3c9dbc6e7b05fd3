import type { TrajectoryMeta } from '../model';
import { isRecord } from '../steps';
import { nameTable, plainTable } from '../names';

// What a record of a file of many runs says about its run, beside the trajectory: which task,
// how it scored. Shown on the run's node in the tree and kept in `meta` (and in ATIF `extra`).

const TASK_KEYS = ['task_id', 'taskId', 'problem_id', 'question_id', 'sample_id', 'id'];
const NUMBERED: ['reward' | 'score', string[]][] = [
  ['reward', ['reward', 'rewards', 'final_reward', 'return']],
  ['score', ['score', 'scores', 'accuracy']],
];

export function runMetadata(record: Record<string, unknown>, trajectoryKey: string | undefined, index: number): TrajectoryMeta {
  const meta: TrajectoryMeta = { runIndex: index };
  const pick = (keys: string[]) => keys.map((k) => record[k]).find((v) => v !== undefined && v !== null);
  const task = pick(TASK_KEYS) ?? (isRecord(record.issue) ? record.issue.number : undefined);
  if (task !== undefined && !isRecord(task)) meta.taskId = String(task);
  if (typeof record.instance_id === 'string' || typeof record.instance_id === 'number') meta.instanceId = String(record.instance_id);
  for (const [name, keys] of NUMBERED) {
    // τ²-bench keeps the reward with how it was reached: `reward_info: {reward, db_check, …}`.
    const v = pick(keys) ?? (name === 'reward' && isRecord(record.reward_info) ? record.reward_info.reward : undefined);
    if (typeof v === 'number' || typeof v === 'boolean') meta[name] = v;
    else if (isRecord(v)) meta[name] = v; // per-metric scores
  }
  const resolved = record.resolved ?? record.success ?? (isRecord(record.test_result) ? record.test_result.resolved : undefined);
  if (typeof resolved === 'boolean') meta.resolved = resolved;
  if (record.feedback !== undefined && record.feedback !== null) meta.feedback = typeof record.feedback === 'string' ? record.feedback : JSON.stringify(record.feedback);
  if (typeof record.trial === 'number') meta.trial = record.trial;
  if (typeof record.error === 'string' && record.error) meta.error = record.error;
  if (isRecord(record.issue) && typeof record.issue.title === 'string') meta.task = record.issue.title;
  // The other plain fields, so nothing the record said about the run is hidden.
  const other = nameTable<string | number | boolean>();
  for (const [k, v] of Object.entries(record)) {
    if (k === trajectoryKey || TASK_KEYS.includes(k) || ['instance_id', 'reward', 'score', 'resolved', 'success', 'feedback', 'trial', 'error'].includes(k)) continue;
    if ((typeof v === 'string' && v.length <= 200) || typeof v === 'number' || typeof v === 'boolean') other[k] = v;
    if (Object.keys(other).length >= 12) break;
  }
  if (Object.keys(other).length > 0) meta.recordFields = plainTable(other);
  return meta;
}

/** A run's node title: its task and outcome first, then what the trajectory itself says. */
export function runTitle(meta: TrajectoryMeta, innerTitle: string): string {
  const who = meta.instanceId ?? (meta.taskId !== undefined ? `task ${String(meta.taskId)}` : `#${Number(meta.runIndex)}`);
  const task = typeof meta.task === 'string' ? meta.task : innerTitle;
  const short = task.length > 70 ? task.slice(0, 69) + '…' : task;
  return `${who}: ${short}`;
}

/** One line of the metadata that says how the run went, for the tree and the CLI. */
export function runOutcome(meta: TrajectoryMeta): string {
  const parts: string[] = [];
  if (typeof meta.reward === 'number') parts.push(`reward ${meta.reward}`);
  if (typeof meta.score === 'number') parts.push(`score ${meta.score}`);
  if (typeof meta.resolved === 'boolean') parts.push(meta.resolved ? 'resolved' : 'not resolved');
  if (typeof meta.feedback === 'string') parts.push(`feedback ${meta.feedback.length > 30 ? meta.feedback.slice(0, 29) + '…' : meta.feedback}`);
  if (typeof meta.trial === 'number') parts.push(`trial ${meta.trial}`);
  if (typeof meta.error === 'string') parts.push('failed');
  return parts.join(' · ');
}
