import { coverageWarning, describeCoverage } from '../../core/io/coverage';
import * as vscode from 'vscode';
import * as path from 'node:path';
import type { Run, Step, TrajectoryFile } from '../../core/model';
import { runOutcome } from '../../core/formats/runMeta';

import { turnsOf } from '../../core/steps';
import { displayOrder, kindLabel, oneLine, stepLabel, stepPreview } from '../../core/view/stepPresentation';
import { plural } from '../../core/view/plural';
import type { OpenTrajectory, TrajectoryStore } from '../trajectoryStore';
import { chunked, type StepNode, type TreeNode, type TurnNode } from './nodes';
import { stepIcon } from './icons';
import { errorSteps } from '../../core/find';
import type { TreeFilter } from '../find/stepFilter';

import { plainLabel } from '../../core/output/terminal';

/** Characters of a run's label when an outcome (a reward, resolved) follows it. */
const RUN_LABEL_WITH_OUTCOME = 44;

/** How sizes are written in descriptions and tooltips; token accounting swaps in its own. */
export interface SizeLabels {
  step(doc: OpenTrajectory, runIndex: number, step: Step): string;
  total(doc: OpenTrajectory, runIndex: number | undefined, steps: readonly Step[]): string;
  /** Extra tooltip lines for a step (token details, recorded usage). */
  stepDetails?(doc: OpenTrajectory, runIndex: number, step: Step): string[];
  /** Extra tooltip lines for a whole trajectory (breakdown by kind and tool). */
  totalDetails?(doc: OpenTrajectory): string[];
}

const charSizeLabels: SizeLabels = {
  step: (_d, _r, step) => `${step.text.length.toLocaleString('en-US')} chars`,
  total: (_d, _r, steps) => `${steps.reduce((n, s) => n + s.text.length, 0).toLocaleString('en-US')} chars`,
};

export class TrajectoryTreeProvider implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly roots = new Map<string, TreeNode>();
  private readonly subscription: vscode.Disposable;
  /** The Filter Steps query, when one is set: only matching steps (and their turns and runs) are listed. */
  filter: TreeFilter | undefined;

  constructor(private readonly store: TrajectoryStore, public sizes: SizeLabels = charSizeLabels) {
    this.subscription = store.onDidChange(() => this.refresh());
  }

  private refreshQueued = false;

  /**
   * Repaints the whole tree once, however many changes arrive in one tick: opening a file changes
   * the store and the token counts together, and VS Code would answer a second event with a second
   * full refresh 200 ms later (it debounces tree events with the first one let through).
   */
  refresh(): void {
    this.roots.clear();
    if (this.refreshQueued) return;
    this.refreshQueued = true;
    queueMicrotask(() => {
      this.refreshQueued = false;
      this.changed.fire(undefined);
    });
  }

  /** The root node of an open trajectory, for `TreeView.reveal`. */
  rootFor(key: string): TreeNode | undefined {
    if (this.roots.size === 0) this.getChildren();
    return this.roots.get(key);
  }

  getParent(node: TreeNode): TreeNode | undefined {
    return node.parent;
  }

  getChildren(node?: TreeNode): TreeNode[] {
    if (!node) {
      return this.store.all().map((doc) => {
        const root: TreeNode = this.roots.get(doc.key) ?? { type: 'trajectory', id: `t:${doc.key}:${doc.trajectory.source.modified ?? 0}${this.filterId()}`, doc };
        this.roots.set(doc.key, root);
        return root;
      });
    }
    const doc = node.doc;
    switch (node.type) {
      case 'trajectory': {
        const t = doc.trajectory;
        const warnings: TreeNode[] = t.warnings.length > 0 ? [{ type: 'warnings', id: `${node.id}/w`, parent: node, doc }] : [];
        if (t.holdsRuns) {
          return [...warnings, ...chunked(t.runs.map((run, runIndex) => ({ run, runIndex })).filter(({ runIndex }) => !this.filter?.active() || this.filter.count(doc, runIndex) > 0), node,
            ({ run, runIndex }, parent) => ({ type: 'run', id: `${node.id}/r${runIndex}`, parent, doc, run, runIndex }),
            (a, b) => `Runs ${a.runIndex}–${b.runIndex}`, 0)];
        }
        return [...warnings, ...this.turnNodes(node, 0)];
      }
      case 'run':
        return this.turnNodes(node, node.runIndex);
      case 'turn':
        return this.stepNodes(node, node.runIndex, node.steps);
      case 'branch':
        return this.stepNodes(node, node.runIndex, node.steps, false);
      case 'group':
        return node.children();
      case 'warnings':
        return doc.trajectory.warnings.map((w, i) => ({
          type: 'message', id: `${node.id}/${i}`, parent: node, doc, label: w.message, detail: w.line ? `line ${w.line}` : undefined,
        }));
      default:
        return [];
    }
  }

  private turnNodes(parent: TreeNode, runIndex: number): TreeNode[] {
    const run = parent.doc.trajectory.runs[runIndex];
    const filter = this.filter?.active() ? this.filter : undefined;
    const turns = turnsOf(run.steps).filter((turn) => !filter || filter.keepsAny(parent.doc, runIndex, run.steps.slice(turn.start, turn.end + 1)));
    return chunked(turns, parent,
      (turn, p): TurnNode => ({ type: 'turn', id: `${parent.id}/u${turn.index}`, parent: p, doc: parent.doc, run, runIndex, turn, steps: run.steps.slice(turn.start, turn.end + 1) }),
      (a, b) => `Turns ${a.index + 1}–${b.index + 1}`, runIndex);
  }

  /** Steps in display order; a subagent's consecutive steps fold into one branch node. */
  private stepNodes(parent: TreeNode, runIndex: number, steps: Step[], foldBranches = true): TreeNode[] {
    const items: ({ kind: 'step'; step: Step } | { kind: 'branch'; name: string; steps: Step[] })[] = [];
    const filter = this.filter?.active() ? this.filter : undefined;
    for (const step of displayOrder(steps)) {
      if (filter && !filter.keeps(parent.doc, runIndex, step)) continue;
      const last = items[items.length - 1];
      if (foldBranches && step.branch) {
        if (last?.kind === 'branch' && last.name === step.branch) last.steps.push(step);
        else items.push({ kind: 'branch', name: step.branch, steps: [step] });
      } else {
        items.push({ kind: 'step', step });
      }
    }
    return chunked(items, parent, (item, p): TreeNode => item.kind === 'step'
      ? { type: 'step', id: `${parent.id}/s${item.step.index}`, parent: p, doc: parent.doc, runIndex, step: item.step }
      : { type: 'branch', id: `${parent.id}/b${item.steps[0].index}`, parent: p, doc: parent.doc, runIndex, name: item.name, steps: item.steps },
    (a, b) => `Steps ${firstIndex(a)}–${lastIndex(b)}`, runIndex);
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    const Collapsed = vscode.TreeItemCollapsibleState.Collapsed;
    const doc = node.doc;
    switch (node.type) {
      case 'trajectory': {
        const t = doc.trajectory;
        const item = new vscode.TreeItem(plainLabel(t.title) || doc.uri.path.split('/').pop() || 'trajectory', vscode.TreeItemCollapsibleState.Expanded);
        const steps = t.runs.flatMap((r) => r.steps);
        item.description = `${rootIdentity(t)} · ${this.matchCount(doc)}${plural(steps.length, 'step')} · ${this.sizes.total(doc, undefined, steps)}`;
        const tooltip = new vscode.MarkdownString().appendText([
          doc.uri.fsPath,
          `Format: ${t.format}`,
          `${t.holdsRuns ? `${t.runs.length} runs, ` : ''}${plural(steps.length, 'step')}`,
          // What the reader did not understand, so a user never has to guess (issue 20).
          t.coverage ? `Coverage: ${describeCoverage(t.coverage)}` : '',
          t.coverage && coverageWarning(t.coverage) ? `⚠ ${coverageWarning(t.coverage)}` : '',
          t.warnings.length ? `${t.warnings.length} warning(s) while reading` : '',
        ].filter(Boolean).join('\n'));
        // The token report is a column-aligned table: a code block keeps its spacing.
        const details = this.sizes.totalDetails?.(doc) ?? [];
        if (details.length > 0) tooltip.appendCodeblock(details.join('\n'), 'text');
        item.tooltip = tooltip;
        item.iconPath = new vscode.ThemeIcon('list-tree');
        item.contextValue = 'trajectory';
        item.resourceUri = doc.uri;
        return withId(item, node.id);
      }
      case 'run': {
        const outcome = runOutcome(node.run.meta);
        // The outcome leads the description: a task of seventy characters in the label would push
        // it past a sidebar's edge, so a run with one is labelled shorter (its tooltip has it whole).
        const item = new vscode.TreeItem(plainLabel(outcome ? oneLine(node.run.title, RUN_LABEL_WITH_OUTCOME) : node.run.title), Collapsed);
        item.description = `${this.matchCount(doc, node.runIndex)}${outcome ? outcome + ' · ' : ''}${plural(node.run.steps.length, 'step')} · ${this.sizes.total(doc, node.runIndex, node.run.steps)}`;
        item.tooltip = runTooltip(node.run);
        item.iconPath = new vscode.ThemeIcon('run-all');
        item.contextValue = 'run';
        return withId(item, node.id);
      }
      case 'turn': {
        // While filtering, a turn opens on its matches unless the run has too many to list at once.
        const open = node.turn.index === 0 || (this.filter?.active() === true && this.filter.count(doc, node.runIndex) <= FILTER_EXPAND_MAX);
        const item = new vscode.TreeItem(`Turn ${node.turn.index + 1}`, open ? vscode.TreeItemCollapsibleState.Expanded : Collapsed);
        const firstUser = node.steps.find((s) => s.kind === 'user');
        const matches = this.filter?.active() ? node.steps.filter((s) => this.filter!.keeps(doc, node.runIndex, s)).length : 0;
        item.description = `${plural(node.steps.length, 'step')} · ${this.sizes.total(doc, node.runIndex, node.steps)}${matches ? ` · ${matches} ${matches === 1 ? 'match' : 'matches'}` : ''}${firstUser ? ' · ' + stepPreview(firstUser, 60) : ''}`;
        item.iconPath = new vscode.ThemeIcon('comment-discussion');
        item.contextValue = 'turn';
        return withId(item, node.id);
      }
      case 'group': {
        const item = new vscode.TreeItem(node.label, Collapsed);
        item.iconPath = new vscode.ThemeIcon('fold');
        item.contextValue = 'group';
        return withId(item, node.id);
      }
      case 'branch': {
        const item = new vscode.TreeItem(`subagent · ${plainLabel(node.name)}`, Collapsed);
        item.description = `${plural(node.steps.length, 'step')} · ${this.sizes.total(doc, node.runIndex, node.steps)}`;
        item.iconPath = new vscode.ThemeIcon('type-hierarchy-sub');
        item.contextValue = 'branch';
        return withId(item, node.id);
      }
      case 'step':
        return withId(this.stepItem(node), node.id);
      case 'warnings': {
        const item = new vscode.TreeItem(`${doc.trajectory.warnings.length} warning(s) while reading`, Collapsed);
        item.iconPath = new vscode.ThemeIcon('warning');
        return withId(item, node.id);
      }
      case 'message': {
        const item = new vscode.TreeItem(plainLabel(node.label));
        item.description = node.detail;
        item.tooltip = node.label;
        return withId(item, node.id);
      }
    }
  }

  private stepItem(node: StepNode): vscode.TreeItem {
    const { step, doc, runIndex } = node;
    const item = new vscode.TreeItem(stepLabel(step));
    const preview = stepPreview(step, 70);
    // Size first: a long preview is cut at the view's edge, and the count must stay visible.
    item.description = `${this.sizes.step(doc, runIndex, step)}${preview ? ' · ' + preview : ''}`;
    const failed = errorSteps((doc.trajectory.runs[runIndex] ?? doc.trajectory).steps).has(step.index);
    item.iconPath = stepIcon(step, failed);
    item.contextValue = `step+${step.kind}`;
    const tooltip = new vscode.MarkdownString();
    tooltip.appendMarkdown(`**${escapeMarkdown(stepLabel(step))}** — step ${step.index}`);
    const facts = [
      step.sourceId !== undefined ? `id ${step.sourceId}` : undefined,
      step.label && step.label !== step.kind ? `event ${step.label}` : undefined,
      step.timestamp,
      step.answers !== undefined ? `answers step ${step.answers}` : undefined,
      failed ? 'error' : undefined,
      step.location?.line ? `line ${step.location.line}` : undefined,
      step.location?.file ? `in ${path.basename(step.location.file)}` : undefined,
      ...(this.sizes.stepDetails?.(doc, runIndex, step) ?? [this.sizes.step(doc, runIndex, step)]),
    ].filter(Boolean) as string[];
    tooltip.appendText('\n' + facts.join(' · '));
    const sample = step.kind === 'tool_call' && step.tool ? step.tool.args : step.text;
    if (sample) tooltip.appendCodeblock(sample.length > 600 ? sample.slice(0, 600) + '\n…' : sample, 'text');
    item.tooltip = tooltip;
    item.command = { command: 'agentTraceLens.openStep', title: 'Show Step Content', arguments: [node] };
    item.accessibilityInformation = { label: `${kindLabel(step.kind)} ${step.tool?.name ?? step.toolName ?? ''}, step ${step.index}, ${preview}` };
    return item;
  }

  /** `12 matches · ` while a filter is set: early in the description, where the view's edge cannot cut it. */
  private matchCount(doc: OpenTrajectory, runIndex?: number): string {
    if (!this.filter?.active()) return '';
    const n = this.filter.count(doc, runIndex);
    return `${plural(n, 'match', 'matches')} · `;
  }

  /** Filtered rows get ids of their own, so VS Code opens them afresh and restores the old ones after. */
  private filterId(): string {
    return this.filter?.active() ? `~f${this.filter.generation}` : '';
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}

/** Turns open by themselves while filtering when a run has at most this many matches. */
const FILTER_EXPAND_MAX = 50;

function withId(item: vscode.TreeItem, id: string): vscode.TreeItem {
  item.id = id;
  return item;
}

function escapeMarkdown(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}

type StepItem = { kind: 'step'; step: Step } | { kind: 'branch'; steps: Step[] };
function firstIndex(item: StepItem): number {
  return item.kind === 'step' ? item.step.index : item.steps[0].index;
}
function lastIndex(item: StepItem): number {
  return item.kind === 'step' ? item.step.index : item.steps[item.steps.length - 1].index;
}

/** A run's record: its format, task and outcome, and the other fields its record had. */
function runTooltip(run: Run): vscode.MarkdownString {
  const m = run.meta;
  const lines = [
    run.title,
    `Format: ${run.format}`,
    ...(['taskId', 'instanceId', 'reward', 'score', 'resolved', 'feedback', 'trial', 'error', 'model'] as const)
      .filter((k) => m[k] !== undefined && m[k] !== null)
      .map((k) => `${k}: ${typeof m[k] === 'object' ? JSON.stringify(m[k]) : String(m[k])}`),
  ];
  const fields = Object.entries(m.recordFields ?? {});
  const tip = new vscode.MarkdownString().appendText(lines.join('\n'));
  if (fields.length > 0) tip.appendCodeblock(fields.map(([k, v]) => `${k}: ${String(v)}`).join('\n'), 'text');
  return tip;
}

/** Format, model and day, so open files with the same first prompt can be told apart. */
function rootIdentity(t: TrajectoryFile): string {
  const model = typeof t.meta.model === 'string' && t.meta.model !== '' ? plainLabel(t.meta.model) : undefined;
  const stamp = typeof t.meta.startTime === 'string' ? t.meta.startTime : t.runs.flatMap((r) => r.steps.slice(0, 5)).find((s) => s.timestamp)?.timestamp;
  const day = stamp && /^\d{4}-\d{2}-\d{2}/.test(stamp) ? stamp.slice(0, 10) : undefined;
  return [t.format, model, day].filter(Boolean).join(' · ');
}
