import { strict as assert } from 'node:assert';
import { test } from 'node:test';
// nodes.ts imports only types from the VS Code side, so its grouping runs under plain Node.
import { chunked, GROUP_SIZE, type GroupNode, type TreeNode } from '../../src/extension/tree/nodes';

const root = { type: 'trajectory', id: 't', doc: {} } as unknown as TreeNode;
type Leaf = { type: 'message'; id: string; label: string };

function leaves(nodes: TreeNode[], seen = { rows: 0, maxLevel: 0 }): Leaf[] {
  seen.maxLevel = Math.max(seen.maxLevel, nodes.length);
  return nodes.flatMap((n) => (n.type === 'group' ? leaves((n as GroupNode).children(), seen) : [n as unknown as Leaf]));
}

test('a 50,000-step level is split so no level lists more than a few hundred rows, and children are built only when expanded', () => {
  const items = Array.from({ length: 50_000 }, (_, i) => i);
  let built = 0;
  const make = (i: number, parent: TreeNode) => {
    built++;
    return { type: 'message', id: `${parent.id}/${i}`, parent, doc: parent.doc, label: `step ${i}` } as TreeNode;
  };
  const top = chunked(items, root, make, (a, b) => `Steps ${a}–${b}`, 0);
  assert.ok(top.length <= GROUP_SIZE, `top level has ${top.length} rows`);
  assert.equal(built, 0, 'no step row exists before a group is expanded');
  assert.equal((top[0] as GroupNode).label, 'Steps 0–39999');
  const seen = { rows: 0, maxLevel: 0 };
  const all = leaves(top, seen);
  assert.equal(all.length, 50_000);
  assert.deepEqual(all.slice(0, 3).map((l) => l.label), ['step 0', 'step 1', 'step 2']);
  assert.equal(all[49_999].label, 'step 49999');
  assert.ok(seen.maxLevel <= GROUP_SIZE, `some level lists ${seen.maxLevel} rows`);
  assert.equal(new Set(all.map((l) => l.id)).size, 50_000, 'every row has its own id, so VS Code keeps expansion state');
});

test('a short level is listed as is, without groups', () => {
  const top = chunked([1, 2, 3], root, (i, p) => ({ type: 'message', id: `${p.id}/${i}`, parent: p, doc: p.doc, label: String(i) }) as TreeNode, () => 'unused', 0);
  assert.deepEqual(top.map((n) => n.type), ['message', 'message', 'message']);
});
