// When the agent that wrote a log compacts its own context, and how close the log is to it now.
// Each format's adapter says how its agent compacts (`FormatAdapter.compactionTrigger`; the rules
// come from the agents themselves, see ../shared/reference/compaction-2026.md and
// openhands-condensers.md): on tokens, as the compaction strategy that reproduces the agent
// computes it, so the live view and the replay agree (Claude Code at window − min(output, 20,000)
// − 13,000, 167,000 of 200,000; Codex at 90% of the model's window); or on events, as OpenHands
// condensers do once the view holds more than `max_size` of them.

import { findStrategy } from '../compaction';
import type { Strategy, StrategyOptions } from '../compaction';
import type { FormatAdapter } from '../formats/adapter';
import { FORMAT_ADAPTERS } from '../formats/registry';
import type { Run, Step, TrajectoryFile } from '../model';

import { contextWindowOf } from '../models';
import { modelNamed } from '../meta';

export interface CompactionRule {
  /** The agent whose rule this is, e.g. `Claude Code`. */
  agent: string;
  /** What the trigger counts. */
  unit: 'tokens' | 'events';
  /** The context size at which the agent compacts. */
  limit: number;
  /** The model's context window in tokens, when known. */
  window?: number;
  /** The rule in words, for a tooltip. */
  description: string;
  /** False when no rule of the agent is known and the limit is only the model's window. */
  agentRule: boolean;
}

export interface ContextStatus {
  rule: CompactionRule;
  /** Tokens (or events) in the agent's context now: what came after its last compaction. */
  inUse: number;
  /** `limit − inUse`: how far the agent is from compacting; negative past the trigger. */
  toTrigger: number;
  /** `inUse / limit`. */
  share: number;
  /** Index of the first step of the current context (the last compaction, or 0). */
  since: number;
  /** Compactions the log holds so far. */
  compactions: number;
  /** The prompt of the last model request as the provider recorded it (tokens), when the log has it. */
  recordedPrompt?: number;
}

function defaultsOf(strategy: Strategy): StrategyOptions {
  return Object.fromEntries(strategy.options.map((o) => [o.name, o.default]));
}

/**
 * The compaction rule of the agent that wrote `t` (one run), from its format's adapter (among
 * `adapters`, the registry's by default), or the model's window when none is known.
 */
export function compactionRuleFor(t: Run, adapters: readonly FormatAdapter[] = FORMAT_ADAPTERS): CompactionRule | undefined {
  const model = modelNamed(t);
  const known = contextWindowOf(model);
  const n = (x: number) => x.toLocaleString('en-US');
  const trigger = adapters.find((a) => a.id === t.format)?.compactionTrigger;
  if (trigger?.unit === 'events') {
    return {
      agent: trigger.agent, unit: 'events', limit: trigger.maxSize, window: known, agentRule: true,
      description: `${trigger.agent} condenses once the view holds more than max_size events: ${trigger.maxSize}, from ${trigger.where}. The view is every event since the start less those a condensation forgot.`,
    };
  }
  const strategy = trigger ? findStrategy(trigger.strategy) : undefined;
  if (trigger && strategy?.agentTrigger) {
    // The window the log records (Codex's turn context), else the model's.
    const recorded = typeof t.meta.contextWindow === 'number' ? t.meta.contextWindow : undefined;
    const window = recorded ?? known;
    const rule = strategy.agentTrigger({ ...defaultsOf(strategy), ...(window ? { context_window: window } : {}) }, recorded !== undefined);
    return { agent: trigger.agent, unit: 'tokens', limit: rule.limit, window: rule.window, agentRule: true, description: rule.description };
  }
  if (!known) return undefined;
  return {
    agent: t.format, unit: 'tokens', limit: known, window: known, agentRule: false,
    description: `No automatic compaction of ${t.format} logs is known; the limit shown is the model's context window (${n(known)} tokens${model ? ` for ${model}` : ''}).`,
  };
}

/**
 * The agent's context now and its distance to the agent's trigger. `tokensOf(i)` gives the tokens
 * of step `i` of `run` (counted or estimated). Side branches (subagents) have contexts of their
 * own and are left out.
 */
export function contextStatus(trajectory: TrajectoryFile, tokensOf: (index: number) => number): ContextStatus | undefined {
  const runs = trajectory.runs;
  const run = runs[runs.length - 1];
  if (!run) return undefined;
  const rule = compactionRuleFor(run);
  if (!rule) return undefined;
  const main = run.steps.filter((s) => !s.branch);
  const compactionSteps = main.filter((s) => s.kind === 'compaction');
  const last = compactionSteps[compactionSteps.length - 1];
  const since = last?.index ?? 0;
  const inUse = rule.unit === 'events' ? eventsInView(main) : main.filter((s) => s.index >= since).reduce((n, s) => n + tokensOf(s.index), 0);
  const recorded = [...main].reverse().find((s) => s.index >= since && s.usage?.inputTokens !== undefined)?.usage;
  return {
    rule, inUse, toTrigger: rule.limit - inUse, share: inUse / rule.limit, since, compactions: compactionSteps.length,
    recordedPrompt: recorded ? recorded.inputTokens! + (recorded.outputTokens ?? 0) : undefined,
  };
}

/**
 * OpenHands' view: the events of the log less those a condensation forgot (by id, or by an
 * inclusive id range) and less the condensations themselves; a summary takes one place.
 */
function eventsInView(steps: readonly Step[]): number {
  const ids = new Set<string>();
  const forgotten = new Set<string>();
  const ranges: [number, number][] = [];
  let summary = false;
  for (const s of steps) {
    if (s.kind === 'compaction') {
      for (const id of s.compaction?.forgottenIds ?? []) forgotten.add(id);
      const r = s.compaction?.forgottenRange;
      if (r) ranges.push([Number(r[0]), Number(r[1])]);
      if (s.compaction?.summary) summary = true;
      if (s.sourceId !== undefined) forgotten.add(s.sourceId);
      continue;
    }
    ids.add(s.sourceId ?? `#${s.index}`);
  }
  let n = 0;
  for (const id of ids) {
    if (forgotten.has(id)) continue;
    const num = Number(id);
    if (ranges.some(([a, b]) => num >= a && num <= b)) continue;
    n++;
  }
  return n + (summary ? 1 : 0);
}

/** A compaction step in one line, for a notice: which compaction, its trigger and size before, when the log says. */
export function describeCompaction(step: Step): string {
  const c = step.compaction;
  const parts = [
    c?.trigger ? `${c.trigger} compaction` : 'compaction',
    c?.tokensBefore !== undefined ? `${c.tokensBefore.toLocaleString('en-US')} tokens before` : undefined,
    c?.forgottenIds ? `${c.forgottenIds.length} events forgotten` : undefined,
    c?.summary ? `summary of ${c.summary.length.toLocaleString('en-US')} characters` : undefined,
  ].filter(Boolean);
  return `step ${step.index}: ${parts.join(', ')}`;
}
