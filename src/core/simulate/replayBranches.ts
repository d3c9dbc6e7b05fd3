// Subagents in the run as it happened: each side branch sent requests of its own, on its own
// model, from a context and a prompt cache of its own (its own system prompt and tools), and the
// log records their usage beside the main line's. Each branch is replayed as a run of its own and
// billed the same in both runs (a strategy compacts the main line's context only).

import type { Step } from '../model';
import { priceFor, runDate, type Cost, type ResolvedPrice } from '../models';
import { cacheBehaviourFor, PromptCache, type CacheBehaviour } from '../pricing/promptCache';
import { addTokens, type BillTokens, type ModelBill } from '../pricing/runCost';
import { calibrate, recordedCacheTiming, type RecordedCall } from './calibration';
import { Ledger, type Scale, type SideTotals } from './replayBilling';
import { rawRun, requestStarts } from './replayRaw';

export interface BranchContext {
  /** The main line's model and price (the user's when `fixedModel`), and its scale where a branch records no usage. */
  model: string | undefined;
  price: ResolvedPrice | undefined;
  fixedModel: boolean;
  cache: CacheBehaviour | undefined;
  lifetimeSeconds: number;
  mainScale: Scale;
  ownTokenizer: boolean;
  calibrating: boolean;
}

export interface BranchesBill {
  branches: number;
  requests: number;
  totals: SideTotals;
  /** The dollars by kind (null when a price or rate is missing). */
  cost: Cost | null;
  /** Requests whose usage the log records, and the modelled cost of just those (like with like). */
  recordedRequests: number;
  modelledRecordedCost: number | null;
  modelledRecordedTokens: BillTokens;
  recordedCalls: RecordedCall[];
  notes: string[];
}

/** Replays every side branch of the run; undefined when it has none with a request. */
export function replayBranches(steps: readonly Step[], stepTokens: readonly number[], ctx: BranchContext): BranchesBill | undefined {
  const byBranch = new Map<string, number[]>();
  steps.forEach((s, t) => { if (s.branch) { const list = byBranch.get(s.branch) ?? []; list.push(t); byBranch.set(s.branch, list); } });
  const at = runDate(steps);
  const prices = new Map<string, ResolvedPrice | undefined>();
  const priceOf = (m: string | undefined): ResolvedPrice | undefined => {
    if (ctx.fixedModel || !m || m === ctx.model) return ctx.price;
    if (!prices.has(m)) prices.set(m, priceFor(m, {}, at));
    return prices.get(m);
  };
  let out: BranchesBill | undefined;
  for (const [name, indices] of byBranch) {
    // The branch's steps as a main line of their own.
    const own = indices.map((t) => ({ ...steps[t], branch: undefined }));
    const tokens = indices.map((t) => stepTokens[t]);
    const raw = rawRun(own, tokens, requestStarts(own));
    if (raw.requests.length === 0) continue;
    const outputs = new Map(raw.requestSteps.map((step, i) => [step, raw.outputs[i]]));
    const calibration = ctx.calibrating ? calibrate(raw.recordedCalls, ctx.ownTokenizer, outputs, raw.requestSteps[0]) : null;
    const models = raw.models.map((m) => (ctx.fixedModel ? ctx.model : m ?? ctx.model));
    const model = models.find((m) => m !== undefined);
    const price = priceOf(model);
    const cache = ctx.cache ?? cacheBehaviourFor(model, price);
    const recordedCache = recordedCacheTiming(calibration, raw.recordedCalls, raw.requestSteps, models, cache === 'none' ? undefined : cache === 'anthropic');
    const ledger = new Ledger(price, new PromptCache(cache, model, calibration?.warmCache ?? 0, ctx.lifetimeSeconds, calibration ?? {}), calibration ?? ctx.mainScale, true,
      { idleMs: raw.idleMs, models: models, prices: models.map(priceOf), ...recordedCache.timing }, model ?? '');
    raw.requests.forEach((r, i) => { ledger.request(r); ledger.output(raw.outputs[i]); });
    const totals = ledger.totals();
    const recorded = ledger.recordedPart(raw);
    const note = calibration
      ? `subagent ${name}: ${raw.requests.length} request${raw.requests.length === 1 ? '' : 's'} on ${model ?? 'the main model'}, its own context and cache, ${calibration.note.replace(/^calibrated/, 'prompt sizes calibrated')}`
      : `subagent ${name}: ${raw.requests.length} request${raw.requests.length === 1 ? '' : 's'} on ${model ?? 'the main model'}, its own context and cache; it records no usage, so the main line's hidden prompt (system prompt, tool definitions) is assumed for it`;
    const bill: BranchesBill = {
      branches: 1, requests: raw.requests.length, totals, cost: ledger.costBreakdown(),
      recordedRequests: recorded.requests, modelledRecordedCost: totals.cost === null ? null : recorded.cost, modelledRecordedTokens: recorded.tokens, recordedCalls: raw.recordedCalls, notes: [note],
    };
    out = out ? mergeBranches(out, bill) : bill;
  }
  return out;
}

function mergeBranches(a: BranchesBill, b: BranchesBill): BranchesBill {
  return {
    branches: a.branches + b.branches, requests: a.requests + b.requests, totals: addSides(a.totals, b.totals),
    cost: a.cost && b.cost ? addCosts(a.cost, b.cost) : null,
    recordedRequests: a.recordedRequests + b.recordedRequests,
    modelledRecordedCost: a.modelledRecordedCost === null || b.modelledRecordedCost === null ? null : a.modelledRecordedCost + b.modelledRecordedCost,
    modelledRecordedTokens: addTokens(a.modelledRecordedTokens, b.modelledRecordedTokens),
    recordedCalls: [...a.recordedCalls, ...b.recordedCalls], notes: [...a.notes, ...b.notes],
  };
}

/** Two sides' bills as one: per-model rows merged by model. */
export function addSides(a: SideTotals, b: SideTotals): SideTotals {
  const rows = new Map<string, ModelBill>();
  for (const r of [...(a.byModel ?? []), ...(b.byModel ?? [])]) {
    const row = rows.get(r.model);
    if (!row) { rows.set(r.model, { ...r }); continue; }
    row.calls += r.calls; row.input += r.input; row.cachedInput += r.cachedInput; row.cacheWrite += r.cacheWrite; row.output += r.output;
    row.cost = row.cost === null || r.cost === null ? null : row.cost + r.cost;
  }
  return {
    requests: a.requests + b.requests, input: a.input + b.input, uncachedInput: a.uncachedInput + b.uncachedInput,
    cachedInput: a.cachedInput + b.cachedInput, cacheWrite: a.cacheWrite + b.cacheWrite, output: a.output + b.output,
    cost: a.cost === null || b.cost === null ? null : a.cost + b.cost,
    byModel: [...rows.values()].sort((x, y) => (y.cost ?? 0) - (x.cost ?? 0)),
  };
}

export function addCosts(a: Cost, b: Cost): Cost {
  return { ...a, input: a.input + b.input, cachedInput: a.cachedInput + b.cachedInput, cacheWrite: a.cacheWrite + b.cacheWrite, output: a.output + b.output, total: a.total + b.total };
}

