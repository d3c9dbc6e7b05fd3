// Which steps to compact: parsing what the user typed, and widening a range so that a tool call
// and its result are always kept or compacted together.

import type { Step } from '../model';
import type { StepRange } from './types';

export const RANGE_HELP =
  'Steps are numbered from 0, as in the tree. Write A-B for steps A through B (both included), ' +
  'or A:B like a Python slice (B excluded, negative numbers count from the end): ' +
  ':-10 is all but the last 10 steps, -10: the last 10, 5: step 5 to the end.';

export type RangeParse = { range: StepRange } | { error: string };

const INT = '(-?\\d+)';

/** Parses `12-40`, `12:40`, `:-10`, `-10:`, `5:` or a single step `7` against a trajectory of `stepCount` steps. */
export function parseRange(text: string, stepCount: number): RangeParse {
  const t = text.trim();
  if (stepCount <= 0) return { error: 'The trajectory has no steps to compact.' };
  const last = stepCount - 1;
  const bounds = `the trajectory has ${stepCount} steps (0–${last})`;

  let m = new RegExp(`^(\\d+)\\s*-\\s*(\\d+)$`).exec(t);
  if (m || /^\d+$/.test(t)) {
    const a = Number(m ? m[1] : t);
    const b = Number(m ? m[2] : t);
    if (a > b) return { error: `"${t}" starts after it ends. ${RANGE_HELP}` };
    if (b > last) return { error: `Step ${b} does not exist: ${bounds}. ${RANGE_HELP}` };
    return { range: [a, b] };
  }

  m = new RegExp(`^${INT}?\\s*:\\s*${INT}?$`).exec(t);
  if (m && (m[1] !== undefined || m[2] !== undefined)) {
    const resolve = (v: string | undefined, dflt: number) => {
      if (v === undefined) return dflt;
      const n = Number(v);
      return n < 0 ? Math.max(0, stepCount + n) : Math.min(n, stepCount);
    };
    const start = resolve(m[1], 0);
    const end = resolve(m[2], stepCount); // exclusive
    if (end <= start) return { error: `"${t}" selects no steps: ${bounds}. ${RANGE_HELP}` };
    return { range: [start, end - 1] };
  }
  return { error: `"${t}" is not a range. ${RANGE_HELP}` };
}

export function formatRange(range: StepRange): string {
  return range[0] === range[1] ? `step ${range[0]}` : `steps ${range[0]}–${range[1]}`;
}

export interface Widening {
  range: StepRange;
  /** Present when the range had to grow; says which pairs pulled it wider. */
  note?: string;
}

/**
 * Grows `range` until no tool call inside it has its result outside, and no result inside it has
 * its call outside. Repeats because pulling in one pair can cut another (parallel calls).
 */
export function widenToPairs(steps: readonly Step[], range: StepRange): Widening {
  let [start, end] = range;
  const pulled: string[] = [];
  const resultsOf = new Map<number, number[]>();
  for (const s of steps) {
    if (s.kind === 'tool_result' && s.answers !== undefined) {
      const list = resultsOf.get(s.answers) ?? [];
      list.push(s.index);
      resultsOf.set(s.answers, list);
    }
  }
  let changed = true;
  while (changed) {
    changed = false;
    // One log event can make several steps (a thought and its call): keep them together too.
    while (start > 0 && sameEvent(steps[start - 1], steps[start])) {
      pulled.push(`step ${start - 1} of the same event`);
      start--;
      changed = true;
    }
    while (end < steps.length - 1 && sameEvent(steps[end], steps[end + 1])) {
      pulled.push(`step ${end + 1} of the same event`);
      end++;
      changed = true;
    }
    for (let i = start; i <= end; i++) {
      const s = steps[i];
      if (s.kind === 'tool_result' && s.answers !== undefined && s.answers < start) {
        pulled.push(`result ${i} of call ${s.answers}`);
        start = s.answers;
        changed = true;
      }
      for (const r of resultsOf.get(i) ?? []) {
        if (r > end) {
          pulled.push(`call ${i} and its result ${r}`);
          end = r;
          changed = true;
        }
      }
    }
  }
  if (start === range[0] && end === range[1]) return { range };
  return {
    range: [start, end],
    note: `Widened ${formatRange(range)} to ${formatRange([start, end])} so that no tool call is separated from its result and no event is split (${pulled.join('; ')}).`,
  };
}

function sameEvent(a: Step, b: Step): boolean {
  return a.sourceId !== undefined && a.sourceId === b.sourceId;
}

/** True when no tool call and its result fall on different sides of the boundary of `inside`. */
export function pairsWhole(steps: readonly Step[], inside: (index: number) => boolean): boolean {
  return steps.every((s) => s.kind !== 'tool_result' || s.answers === undefined || inside(s.index) === inside(s.answers));
}
