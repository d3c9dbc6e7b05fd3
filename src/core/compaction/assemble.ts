// Building blocks for strategies: the summary step, and a condensed step list in which a range is
// replaced by new steps while chosen steps of the range survive.

import type { Step, Run } from '../model';
import { eventId } from './text';
import type { OutputStep, StepFate, StepRange } from './types';

/** Labels of the steps strategies make; the export reads the summary's chat role from them. */
const SUMMARY_LABELS = {
  user: 'condensation',
  assistant: 'condensation:assistant',
  system: 'condensation:system',
} as const;

export type SummaryRole = keyof typeof SUMMARY_LABELS;

export function summaryRoleOf(step: Pick<Step, 'kind' | 'label'>): SummaryRole | undefined {
  if (step.kind !== 'compaction') return undefined;
  if (step.label === SUMMARY_LABELS.assistant) return 'assistant';
  if (step.label === SUMMARY_LABELS.system) return 'system';
  return 'user';
}

/** A compaction step holding `text`, recording which source events it replaces. */
export function summaryStep(text: string, forgotten: readonly Step[], role: SummaryRole = 'user', trigger?: string): OutputStep {
  const ids = forgotten.map(eventId);
  return {
    step: {
      kind: 'compaction',
      text,
      label: SUMMARY_LABELS[role],
      compaction: { summary: text, forgottenIds: [...new Set(ids)], trigger },
    },
  };
}

/** A synthetic ordinary step (the Agents SDK's shadow user line). */
export function syntheticStep(kind: Step['kind'], text: string, label: string): OutputStep {
  return { step: { kind, text, label } };
}

export function keep(step: Step): OutputStep {
  return { step, origin: step.index };
}

/** The step with its content replaced by `text`: images it carried go with the content it had. */
export function withText(step: Step, text: string): OutputStep {
  return { step: textOnly(step, text), origin: step.index };
}

export function textOnly(step: Step, text: string): Step {
  const { images: _images, ...rest } = step;
  return { ...rest, text };
}

export interface ReplaceOptions {
  /** Steps of the range that stay (OpenHands keeps the first user message; Katalyst the system messages). */
  survives?: (step: Step) => boolean;
  /** Fate of a removed step; default 'summarized'. */
  fate?: (step: Step) => StepFate;
}

/**
 * Everything outside `range` kept; inside it, survivors kept (in order), then `inserted`, and the
 * rest removed. Returns the condensed steps, every step's fate, and the removed steps.
 */
export function replaceRange(trajectory: Run, range: StepRange, inserted: OutputStep[], opts: ReplaceOptions = {}) {
  const [a, b] = range;
  const fates: StepFate[] = trajectory.steps.map(() => 'kept');
  const out: OutputStep[] = [];
  const removed: Step[] = [];
  const survivors: OutputStep[] = [];
  // A system prompt the log records again word for word (Copilot CLI at every turn) is in the
  // context once: a copy inside the range does not survive beside the one already kept.
  const systemTexts = new Set(trajectory.steps.slice(0, a).filter((s) => s.kind === 'system').map((s) => s.text));
  for (const step of trajectory.steps) {
    if (step.index < a || step.index > b) continue;
    const repeat = step.kind === 'system' && step.text !== '' && systemTexts.has(step.text);
    if (step.kind === 'system') systemTexts.add(step.text);
    const survives = opts.survives?.(step) === true;
    if (survives && !repeat) survivors.push(keep(step));
    else {
      removed.push(step);
      fates[step.index] = survives ? 'dropped' : opts.fate?.(step) ?? 'summarized';
    }
  }
  for (const step of trajectory.steps.slice(0, a)) out.push(keep(step));
  out.push(...survivors, ...inserted);
  for (const step of trajectory.steps.slice(b + 1)) out.push(keep(step));
  return { steps: out, fates, removed };
}
