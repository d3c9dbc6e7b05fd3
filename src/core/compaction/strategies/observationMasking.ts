// `observation-masking`: SWE-agent's `last_n_observations` history processor. The first
// observation (the task) and the last `n` stay; older ones become a placeholder that says how many
// lines were omitted. With `polling` > 1 the masked prefix only grows every `polling` steps.

import type { Step, Run } from '../../model';
import { keep, withText } from '../assemble';
import { lineCount } from '../text';
import type { IncrementalPolicy, PolicyChoice, StepFate, StepRange, Strategy, StrategyOptions } from '../types';

/** SWE-agent's placeholder, with its count of the images the output held. */
function maskPlaceholder(lines: number, images: number): string {
  return `Old environment output: (${lines} lines omitted)${images > 0 ? ` (${images} images omitted)` : ''}`;
}

const PLACEHOLDER = /^Old environment output: \(\d+ lines omitted\)(?: \(\d+ images omitted\))?$/;

/**
 * Observations as SWE-agent counts them: the task (the first user message, when it comes before
 * any tool output, is SWE-agent's first observation) and every tool result.
 */
function observationsOf(steps: readonly Step[]): Step[] {
  const results = steps.filter((s) => s.kind === 'tool_result');
  const task = steps.find((s) => s.kind === 'user');
  if (task && (results.length === 0 || task.index < results[0].index)) return [task, ...results];
  return results;
}

/** The observations SWE-agent would elide: obs[1 : floor(len/polling)*polling - n]. */
function omittedOf(steps: readonly Step[], options: StrategyOptions): Step[] {
  const obs = observationsOf(steps);
  const n = Number(options.n);
  const polling = Number(options.polling);
  const lastRemoved = Math.max(0, Math.floor(obs.length / polling) * polling - n);
  return obs.slice(1, lastRemoved);
}

function policy(trajectory: Run, options: StrategyOptions): PolicyChoice {
  const obs = observationsOf(trajectory.steps);
  const omitted = omittedOf(trajectory.steps, options);
  if (omitted.length === 0) return { range: null, reason: `${obs.length} observations: the first and the last ${options.n} are all kept.` };
  return {
    range: [omitted[0].index, omitted[omitted.length - 1].index],
    reason: `${obs.length} observations: keep the first and the last ${options.n} (polling ${options.polling}), mask ${omitted.length}.`,
  };
}

/** The policy above, kept up to date step by step: the same observations, counted as they come. */
function incrementalPolicy(options: StrategyOptions): IncrementalPolicy {
  const n = Number(options.n);
  const polling = Number(options.polling);
  const results: number[] = [];
  let task: number | undefined;
  return {
    push(step) {
      if (step.kind === 'user' && task === undefined) task = step.index;
      if (step.kind === 'tool_result') results.push(step.index);
    },
    range() {
      const withTask = task !== undefined && (results.length === 0 || task < results[0]);
      const count = results.length + (withTask ? 1 : 0);
      const at = (k: number) => (withTask ? (k === 0 ? task! : results[k - 1]) : results[k]);
      const lastRemoved = Math.max(0, Math.floor(count / polling) * polling - n);
      return lastRemoved > 1 ? [at(1), at(lastRemoved - 1)] : null;
    },
  };
}

export const observationMaskingStrategy: Strategy = {
  id: 'observation-masking',
  label: 'SWE-agent observation masking (last N observations)',
  kind: 'deterministic',
  pairSafe: true,
  description: 'Keeps the first observation and the last n tool outputs verbatim and replaces older tool outputs with "Old environment output: (N lines omitted)". Nothing is removed, so tool calls stay paired.',
  options: [
    { name: 'n', type: 'integer', default: 5, min: 1, max: 100_000, help: 'Recent observations kept verbatim (SWE-agent 0.7 configs use 5; the Complexity Trap paper used 10).' },
    { name: 'polling', type: 'integer', default: 1, min: 1, max: 1000, help: 'Grow the masked prefix only every this many observations, which keeps prompt caches valid longer.' },
  ],
  policy,
  incrementalPolicy,
  async run(trajectory, range: StepRange, ctx) {
    // With the policy's range this masks exactly what SWE-agent would; with a typed range, the
    // tool outputs inside it (a placeholder already in place is left alone, so re-runs change nothing).
    const fates: StepFate[] = trajectory.steps.map(() => 'kept');
    const first = observationsOf(trajectory.steps)[0];
    void ctx;
    const steps = trajectory.steps.map((s) => {
      const inside = s.index >= range[0] && s.index <= range[1];
      if (!inside || s.kind !== 'tool_result' || s === first || PLACEHOLDER.test(s.text)) return keep(s);
      fates[s.index] = 'masked';
      // SWE-agent counts the lines of the text parts only: an image's `[image]` line is no line of them.
      const textLines = s.images ? s.text.split('\n').filter((l) => l !== '[image]').join('\n') : s.text;
      return withText(s, maskPlaceholder(lineCount(textLines), s.images?.length ?? 0));
    });
    return { mode: 'deterministic', steps, fates, summary: null, prompt: null, warnings: [] };
  },
};
