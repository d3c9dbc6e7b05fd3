import { formatCount } from './stepPresentation';

// The two status-bar entries, in words that cannot be mistaken for each other: the first counts
// the whole log, the second the context the agent holds now (after its last compaction).

/** `≈1.1k tok in log`: every step of the file, counted. The share of a window is the context entry's. */
export function logTokensText(total: number, approx: boolean): string {
  return `${approx ? '≈' : ''}${formatCount(total)} tok in log`;
}

export interface ContextFigures {
  inUse: number;
  limit: number;
  /** Left before the trigger; negative once past it. */
  toTrigger: number;
  unit: 'tokens' | 'events';
  /** True when the limit is the agent's own compaction trigger, not just the model's window. */
  agentRule: boolean;
  approx: boolean;
}

/** `context ≈1.1k / 1M tok · window full in ≈999k`. */
export function contextText(c: ContextFigures): string {
  const tokens = c.unit === 'tokens';
  const amount = (n: number) => (tokens ? `${c.approx ? '≈' : ''}${formatCount(n)}` : String(n));
  const verb = c.agentRule ? (tokens ? 'compacts' : 'condenses') : 'window full';
  const distance = c.toTrigger >= 0 ? `${verb} in ${amount(c.toTrigger)}` : `${amount(-c.toTrigger)} past the trigger`;
  return `context ${amount(c.inUse)} / ${tokens ? formatCount(c.limit) : c.limit} ${tokens ? 'tok' : 'events'} · ${distance}`;
}

/**
 * Whether the status-bar entries stay when the active editor changes: a file that is not an open
 * trajectory (a plain package.json) hides them, so they never describe a run the user is not
 * looking at. No editor (a report or survey panel has focus), one of our own step documents or an
 * untitled document we opened for the run (the prompt, a condensed run) keeps them.
 */
export function statusOnEditor(scheme: string | undefined, isOpenTrajectory: boolean): 'keep' | 'hide' {
  if (scheme === undefined || isOpenTrajectory) return 'keep';
  return scheme === 'file' ? 'hide' : 'keep';
}
