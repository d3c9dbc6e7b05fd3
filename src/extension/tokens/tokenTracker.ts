import * as vscode from 'vscode';
import type { Step, TrajectoryFile } from '../../core/model';

import type { RunBill } from '../../core/pricing/runCost';
import { billFileRuns } from '../../core/simulate';
import { imageLine, stepTotal, tokenReport, tokenizerLabel, TokenService, type TokenCounts } from '../../core/tokens';
import { describeTokenReport } from '../../core/tokens';
import { countFrom, extendEstimate } from '../../core/live/liveTokens';
import { allSteps } from '../../core/stats';
import { formatCount } from '../../core/view/stepPresentation';
import type { OpenTrajectory, TrajectoryStore } from '../trajectoryStore';
import type { SizeLabels } from '../tree/trajectoryTreeProvider';
import { setting } from '../settings';

/**
 * Exact counting starts once the tree has shown the file (see `shown`), or after this long if it
 * never is (the view closed). Handing 100 MB of text to the workers blocks the extension host for
 * a moment, and the tree's first paint waits on the same thread.
 */
const COUNT_FALLBACK_MS = 2_000;

interface DocTokens {
  counts: TokenCounts;
  /** Where each run's steps start in the flat list `counts.steps` is parallel to. */
  runOffsets: number[];
  abort: AbortController;
  /** Starts exact counting; a no-op after the first call. */
  countNow(): void;
}

/**
 * Token counts for every open trajectory: an estimate the moment a file opens, replaced by exact
 * counts as the worker threads deliver them. The tree and the status bar read from here.
 */
export class TokenTracker implements SizeLabels, vscode.Disposable {
  private readonly docs = new Map<string, DocTokens>();
  /** Each file's bill, kept while its steps and the price settings stay the same (a replay per hover is too slow). */
  private readonly bills = new Map<string, { steps: number; prices: string; bill: RunBill; runs: RunBill[] }>();
  private readonly billing = new Set<string>();
  private readonly changed = new vscode.EventEmitter<OpenTrajectory>();
  readonly onDidChange = this.changed.event;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly store: TrajectoryStore, private readonly service: TokenService, private readonly log: vscode.LogOutputChannel) {
    this.subscription = store.onDidChange(() => this.sync());
  }

  /** The model whose tokenizer counts: the setting, else the model the log names. */
  modelFor(doc: OpenTrajectory): string | undefined {
    const configured = setting('tokens.model');
    if (configured) return configured;
    const fromLog = doc.trajectory.meta.model ?? doc.trajectory.runs.find((r) => r.meta.model)?.meta.model;
    return typeof fromLog === 'string' ? fromLog : undefined;
  }

  /** Recount everything, e.g. after the model setting changed. */
  recountAll(): void {
    for (const entry of this.docs.values()) entry.abort.abort();
    this.docs.clear();
    this.sync();
    // These files are on screen already: nothing to wait for.
    for (const entry of this.docs.values()) entry.countNow();
  }

  counts(doc: OpenTrajectory): TokenCounts | undefined {
    return this.docs.get(doc.key)?.counts;
  }

  private sync(): void {
    const open = new Set(this.store.all().map((d) => d.key));
    for (const [key, entry] of this.docs) {
      if (!open.has(key)) {
        entry.abort.abort();
        this.docs.delete(key);
        this.bills.delete(key);
      }
    }
    for (const doc of this.store.all()) {
      const existing = this.docs.get(doc.key);
      if (existing && existing.counts.steps.length === flatLength(doc)) continue;
      existing?.abort.abort();
      this.start(doc);
    }
  }

  private start(doc: OpenTrajectory): void {
    const runs = doc.trajectory.runs;
    const runOffsets: number[] = [];
    let offset = 0;
    for (const run of runs) {
      runOffsets.push(offset);
      offset += run.steps.length;
    }
    const model = this.modelFor(doc);
    const abort = new AbortController();
    let started = false;
    const countNow = (): void => {
      if (started || abort.signal.aborted) return;
      started = true;
      clearTimeout(fallback);
      this.countExactly(doc, entry, model);
    };
    const fallback = setTimeout(countNow, COUNT_FALLBACK_MS);
    const entry: DocTokens = { counts: this.service.estimate(runs.flatMap((r) => r.steps), model), runOffsets, abort, countNow };
    this.docs.set(doc.key, entry);
    this.changed.fire(doc);
  }

  /**
   * A followed file grew (call before the store takes `trajectory`): steps before `keep` keep their
   * counts, the rest are estimated now and tokenized after; a count still running is cut short
   * and whatever it left as an estimate is counted again. False when the file is not tracked yet.
   */
  grew(doc: OpenTrajectory, trajectory: TrajectoryFile, keep: number): boolean {
    const entry = this.docs.get(doc.key);
    if (!entry) return false;
    entry.abort.abort();
    const abort = new AbortController();
    entry.abort = abort;
    const steps = allSteps(trajectory);
    const firstEstimate = entry.counts.steps.findIndex((t) => !t.exact);
    const from = Math.min(keep, entry.counts.steps.length, firstEstimate === -1 ? keep : firstEstimate);
    const model = this.modelFor({ ...doc, trajectory });
    const runOffsets: number[] = [];
    let offset = 0;
    for (const run of trajectory.runs) {
      runOffsets.push(offset);
      offset += run.steps.length;
    }
    entry.runOffsets = runOffsets;
    entry.counts = extendEstimate(this.service, entry.counts, steps, from, model);
    this.changed.fire(doc);
    const started = Date.now();
    countFrom(this.service, entry.counts, steps, from, { model, signal: abort.signal }).then((counts) => {
      if (abort.signal.aborted) return;
      entry.counts = counts;
      this.changed.fire(doc);
      this.log.info(`Counted ${steps.length - from} new step(s) of ${doc.key} in ${Date.now() - started} ms`);
    }, (e: unknown) => {
      if (!abort.signal.aborted) this.log.warn(`Token counting failed for ${doc.key}: ${(e as Error).message}`);
    });
    return true;
  }

  /** The tree has shown this file with its estimates: exact counting may take the thread now. */
  shown(doc: OpenTrajectory): void {
    this.docs.get(doc.key)?.countNow();
  }

  private countExactly(doc: OpenTrajectory, entry: DocTokens, model: string | undefined): void {
    const abort = entry.abort;
    const started = Date.now();
    this.service.countTrajectory(doc.trajectory, {
      model,
      signal: abort.signal,
      progressIntervalMs: 400,
      onProgress: (counts) => {
        if (abort.signal.aborted) return;
        entry.counts = counts;
        this.changed.fire(doc);
      },
    }).then((counts) => {
      if (abort.signal.aborted) return;
      entry.counts = counts;
      this.changed.fire(doc);
      this.log.info(`Counted ${doc.key} with ${tokenizerLabel(counts.tokenizer)} in ${Date.now() - started} ms (${counts.origin})`);
    }, (e: unknown) => {
      if (!abort.signal.aborted) this.log.warn(`Token counting failed for ${doc.key}: ${(e as Error).message}`);
    });
  }

  private tokensOf(doc: OpenTrajectory, runIndex: number, steps: readonly Step[]): { total: number; exact: boolean } | undefined {
    const entry = this.docs.get(doc.key);
    if (!entry) return undefined;
    const base = entry.runOffsets[runIndex] ?? 0;
    let total = 0;
    let exact = true;
    for (const s of steps) {
      const t = entry.counts.steps[base + s.index];
      if (!t) continue;
      total += stepTotal(t);
      exact &&= t.exact;
    }
    return { total, exact };
  }

  private approx(doc: OpenTrajectory, exact: boolean): string {
    const entry = this.docs.get(doc.key);
    return !exact || entry?.counts.tokenizer.approximate ? '≈' : '';
  }

  step(doc: OpenTrajectory, runIndex: number, step: Step): string {
    const t = this.tokensOf(doc, runIndex, [step]);
    return t ? `${this.approx(doc, t.exact)}${formatCount(t.total)} tok` : `${step.text.length} chars`;
  }

  total(doc: OpenTrajectory, runIndex: number | undefined, steps: readonly Step[]): string {
    if (runIndex === undefined) {
      const runs = doc.trajectory.runs;
      let total = 0;
      let exact = true;
      runs.forEach((run, i) => {
        const t = this.tokensOf(doc, i, run.steps);
        total += t?.total ?? 0;
        exact &&= t?.exact ?? false;
      });
      const tokenizer = this.docs.get(doc.key)?.counts.tokenizer;
      return `${this.approx(doc, exact)}${formatCount(total)} tok${tokenizer ? ` (${tokenizerLabel(tokenizer)})` : ''}`;
    }
    const t = this.tokensOf(doc, runIndex, steps);
    return t ? `${this.approx(doc, t.exact)}${formatCount(t.total)} tok` : '';
  }

  stepDetails(doc: OpenTrajectory, runIndex: number, step: Step): string[] {
    const entry = this.docs.get(doc.key);
    const t = entry?.counts.steps[(entry.runOffsets[runIndex] ?? 0) + step.index];
    if (!entry || !t) return [];
    const lines = [`${t.exact ? '' : '≈'}${(t.content + t.overhead).toLocaleString('en-US')} tokens (${t.content.toLocaleString('en-US')} content + ${t.overhead} chat framing), ${tokenizerLabel(entry.counts.tokenizer)}${t.exact ? '' : ', estimate until counted'}`];
    if (step.resent) lines.push('recorded again word for word: each request holds it once, so it adds no tokens here');
    for (const image of step.images ?? []) lines.push(imageLine(image));
    const u = step.usage;
    if (u && (u.inputTokens !== undefined || u.outputTokens !== undefined)) {
      lines.push(`recorded by the provider for this call: ${u.inputTokens ?? '?'} in, ${u.outputTokens ?? '?'} out${u.cachedInputTokens ? `, ${u.cachedInputTokens} cached` : ''}${u.cost !== undefined ? `, $${u.cost.toFixed(4)}` : ''}`);
    }
    return lines;
  }

  /**
   * The run's one cost, as `stats --tokens`, the Survey and the report show it: priced at the
   * log's own models (the tokens.model setting picks a tokenizer, not the bill).
   */
  billOf(doc: OpenTrajectory): RunBill | undefined {
    const prices = setting('prices');
    const key = JSON.stringify(prices);
    const steps = flatLength(doc);
    const kept = this.bills.get(doc.key);
    if (kept && kept.steps === steps && kept.prices === key) return kept.bill;
    // The replay behind a modelled bill counts every step (and loads a tokenizer on this thread):
    // only once the workers have counted the file and the tree is on screen, then the views redraw.
    const counted = this.docs.get(doc.key)?.counts.exact === true;
    if (counted && !this.billing.has(doc.key)) {
      this.billing.add(doc.key);
      setTimeout(() => {
        this.billing.delete(doc.key);
        if (!this.docs.has(doc.key)) return;
        try {
          // Counted with the service's counter: it knows every text the workers just counted.
          const { bill, runs } = billFileRuns(doc.trajectory, { overrides: prices, counterFor: (model) => this.service.counterFor(model) });
          this.bills.set(doc.key, { steps, prices: key, bill, runs });
          this.changed.fire(doc);
        } catch (e) {
          this.log.warn(`Could not price ${doc.key}: ${(e as Error).message}`);
        }
      }, 0);
    }
    return kept?.bill;
  }

  /** One run's part of `billOf` (the compare panel's cost of a run), once the file is billed. */
  runBillOf(doc: OpenTrajectory, runIndex: number): RunBill | undefined {
    return this.billOf(doc) && this.bills.get(doc.key)?.runs[runIndex];
  }

  /** The trajectory tooltip: the same token report the CLI prints (by kind, tool, recorded usage, cost). */
  totalDetails(doc: OpenTrajectory): string[] {
    const entry = this.docs.get(doc.key);
    if (!entry) return [];
    const prices = setting('prices');
    const bill = this.billOf(doc);
    const report = tokenReport(doc.trajectory, entry.counts, prices, bill ?? PRICING);
    const counting = report.tokens.exact ? [] : ['(estimates until the count finishes)'];
    return [...describeTokenReport(report).trim().split('\n'), ...counting];
  }

  dispose(): void {
    for (const entry of this.docs.values()) entry.abort.abort();
    this.subscription.dispose();
    this.changed.dispose();
    void this.service.dispose();
  }
}

/** Shown until the bill is made (a moment after the file opens). */
const PRICING: RunBill = {
  source: 'none', label: 'modelled', cost: null, reason: 'pricing…', recordedCost: null, pricedUsage: null, modelled: null, difference: null,
  calls: 0, tokens: { input: 0, cachedInput: 0, cacheWrite: 0, output: 0 }, byModel: [], pricesAsOf: '', note: 'pricing the run…',
};

function flatLength(doc: OpenTrajectory): number {
  return doc.trajectory.runs.reduce((n, r) => n + r.steps.length, 0);
}
