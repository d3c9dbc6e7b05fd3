import type { OpenTrajectory } from '../trajectoryStore';
import type { StepNode, TreeNode } from '../tree/nodes';
import type { TrajectoryTreeProvider } from '../tree/trajectoryTreeProvider';

/**
 * The tree node of one step, found by walking down from its file's root the way the tree lists it
 * (runs, groups of turns, turns, groups of steps, subagent branches), so `TreeView.reveal` gets a
 * node whose id and parents are the ones on screen. Undefined when the tree does not list the step
 * (the file is closed, or the filter hides the step).
 */
export function stepNodeFor(tree: TrajectoryTreeProvider, doc: OpenTrajectory, runIndex: number, stepIndex: number): StepNode | undefined {
  let node: TreeNode | undefined = tree.rootFor(doc.key);
  const holds = (n: TreeNode): boolean => {
    switch (n.type) {
      case 'run': return n.runIndex === runIndex;
      case 'turn': return n.runIndex === runIndex && n.turn.start <= stepIndex && stepIndex <= n.turn.end;
      case 'branch': return n.runIndex === runIndex && n.steps.some((s) => s.index === stepIndex);
      case 'step': return n.runIndex === runIndex && n.step.index === stepIndex;
      case 'group': return n.runIndex === runIndex && n.children().some(holds);
      default: return false;
    }
  };
  while (node && node.type !== 'step') node = tree.getChildren(node).find(holds);
  return node;
}
