// Redaction of a whole trajectory before any strategy sees it: secrets go before any text is cut
// (a middle cut that removes a PEM block's BEGIN line can no longer leave its body behind), and
// everything made from the result (summaries, condensed files, reports) starts out redacted.

import { addRedactions, redactSecrets } from '../llm/redact';
import type { Step, Trajectory } from '../model';

export interface RedactedTrajectory {
  trajectory: Trajectory;
  /** Secrets removed from the steps' text and tool arguments. */
  count: number;
  kinds: Record<string, number>;
}

/** A copy of `t` whose step texts and tool arguments are redacted; `t` is not changed. */
export function redactTrajectory(t: Trajectory): RedactedTrajectory {
  const total = { count: 0, kinds: {} as Record<string, number> };
  const clean = (s: string): string => {
    const r = redactSecrets(s);
    if (r.count === 0) return s;
    addRedactions(total, r);
    return r.text;
  };
  const steps: Step[] = t.steps.map((s) => {
    const text = clean(s.text);
    const args = s.tool ? clean(s.tool.args) : undefined;
    if (text === s.text && (!s.tool || args === s.tool.args)) return s;
    return { ...s, text, ...(s.tool ? { tool: { ...s.tool, args: args! } } : {}) };
  });
  const title = clean(t.title);
  if (total.count === 0) return { trajectory: t, count: 0, kinds: {} };
  return { trajectory: { ...t, title, steps }, count: total.count, kinds: total.kinds };
}

/**
 * For `--no-redact`: output steps the strategy kept as they were get their own text back (they were
 * redacted only so that nothing cut or sent could leak). Text the strategy made stays redacted.
 */
export function restoreKeptSteps<T extends { step: Omit<Step, 'index' | 'turn'>; origin?: number }>(out: T[], redacted: Trajectory, original: Trajectory): T[] {
  if (redacted === original) return out;
  return out.map((o) => {
    if (o.origin === undefined) return o;
    const r = redacted.steps[o.origin];
    const orig = original.steps[o.origin];
    if (!r || !orig) return o;
    const sameText = o.step.text === r.text;
    const sameArgs = !o.step.tool || !r.tool || o.step.tool.args === r.tool.args;
    if (!sameText && !sameArgs) return o;
    return {
      ...o,
      step: {
        ...o.step,
        ...(sameText ? { text: orig.text } : {}),
        ...(sameArgs && o.step.tool && orig.tool ? { tool: { ...o.step.tool, args: orig.tool.args } } : {}),
      },
    };
  });
}
