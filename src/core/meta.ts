import type { Run, TrajectoryMeta } from './model';
import { nameTable, setOwn } from './names';

/** Keeps `value` under `key` in `meta.extra` (made on first use, null prototype); undefined is not kept. */
export function setExtra(meta: TrajectoryMeta, key: string, value: unknown): void {
  if (value === undefined) return;
  meta.extra ??= nameTable<unknown>();
  setOwn(meta.extra, key, value);
}

/** The same metadata with more in its `extra` bag; `meta` is not changed. */
export function withExtra(meta: TrajectoryMeta, more: Record<string, unknown>): TrajectoryMeta {
  const out: TrajectoryMeta = { ...meta, extra: undefined };
  for (const [k, v] of Object.entries(meta.extra ?? {})) setExtra(out, k, v);
  for (const [k, v] of Object.entries(more)) setExtra(out, k, v);
  if (!out.extra) delete out.extra;
  return out;
}

/** An `extra` bag of the fields that are set (null prototype), or undefined when none is. */
export function extraOf(fields: Record<string, unknown>): Record<string, unknown> | undefined {
  const meta: TrajectoryMeta = {};
  for (const [k, v] of Object.entries(fields)) setExtra(meta, k, v);
  return meta.extra;
}

/** The model the log names for a run: its metadata, else the first recorded usage that names one. */
export function modelNamed(run: Pick<Run, 'meta' | 'steps'>): string | undefined {
  if (typeof run.meta.model === 'string' && run.meta.model) return run.meta.model;
  return run.steps.find((s) => s.usage?.model)?.usage?.model;
}
