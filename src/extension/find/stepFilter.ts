import * as vscode from 'vscode';
import { findSteps, isEmptyQuery, type FindQuery } from '../../core/find';
import type { Step, TrajectoryFile } from '../../core/model';
import { plural } from '../../core/view/plural';

import type { OpenTrajectory } from '../trajectoryStore';

/** What the tree asks a filter: which runs, turns and steps stay, and how many matched. */
export interface TreeFilter {
  /** Changes with every new query, so the tree can give filtered rows fresh ids (and expand them). */
  readonly generation: number;
  active(): boolean;
  keeps(doc: OpenTrajectory, runIndex: number, step: Step): boolean;
  /** Whether any step of `steps` (a turn, a run) matches. */
  keepsAny(doc: OpenTrajectory, runIndex: number, steps: readonly Step[]): boolean;
  /** Matches in a run, or in the whole file when `runIndex` is undefined. */
  count(doc: OpenTrajectory, runIndex?: number): number;
}

interface DocMatches {
  /** Per run, the matching step indices. */
  runs: Set<number>[];
  total: number;
}

/**
 * The Trajectories view's filter: one query applied to every open file. Matches are worked out per
 * file when the tree first asks and kept until the query, the file or its token counts change.
 */
export class StepFilter implements TreeFilter, vscode.Disposable {
  private query: FindQuery | undefined;
  private matches = new WeakMap<TrajectoryFile, DocMatches>();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  generation = 0;

  /** `tokensFor(doc)` gives a step's tokens in that file (exact once counted), for tokens>N. */
  constructor(private readonly tokensFor: (doc: OpenTrajectory) => ((runIndex: number, step: Step) => number) | undefined) {}

  get current(): FindQuery | undefined {
    return this.query;
  }

  active(): boolean {
    return this.query !== undefined;
  }

  /** Applies a query (undefined or an empty one clears the filter). */
  set(query: FindQuery | undefined): void {
    const next = query && !isEmptyQuery(query) ? query : undefined;
    if (next === undefined && this.query === undefined) return;
    this.query = next;
    this.matches = new WeakMap();
    this.generation++;
    void vscode.commands.executeCommand('setContext', 'agentTraceLens.filterActive', next !== undefined);
    this.changed.fire();
  }

  /** Token counts changed: a tokens>N filter is worked out again; others stand. */
  tokensChanged(): void {
    if (this.query && (this.query.minTokens !== undefined || this.query.maxTokens !== undefined)) {
      this.matches = new WeakMap();
      this.changed.fire();
    }
  }

  private of(doc: OpenTrajectory): DocMatches | undefined {
    const q = this.query;
    if (!q) return undefined;
    let m = this.matches.get(doc.trajectory);
    if (!m) {
      const tokens = q.minTokens !== undefined || q.maxTokens !== undefined ? this.tokensFor(doc) : undefined;
      const runs = doc.trajectory.runs.map((run, r) => new Set(findSteps(run.steps, q, tokens ? { tokensOf: (s) => tokens(r, s) } : {})));
      m = { runs, total: runs.reduce((n, s) => n + s.size, 0) };
      this.matches.set(doc.trajectory, m);
    }
    return m;
  }

  keeps(doc: OpenTrajectory, runIndex: number, step: Step): boolean {
    const m = this.of(doc);
    return !m || m.runs[runIndex]?.has(step.index) === true;
  }

  keepsAny(doc: OpenTrajectory, runIndex: number, steps: readonly Step[]): boolean {
    const m = this.of(doc);
    if (!m) return true;
    const set = m.runs[runIndex];
    if (!set || set.size === 0) return false;
    return steps.some((s) => set.has(s.index));
  }

  count(doc: OpenTrajectory, runIndex?: number): number {
    const m = this.of(doc);
    if (!m) return 0;
    return runIndex === undefined ? m.total : m.runs[runIndex]?.size ?? 0;
  }

  /** `12 matches for 'pytest'`. */
  describe(docs: readonly OpenTrajectory[]): string {
    if (!this.query) return '';
    const n = docs.reduce((sum, d) => sum + this.count(d), 0);
    return `${plural(n, 'match', 'matches')} for '${this.query.source.trim()}'`;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
