import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { findStrategy } from '../../src/core/compaction/registry';
import { commandEffect, installsDependency } from '../../src/core/compaction/facts/calls';
import { readGist } from '../../src/core/compaction/facts/outcomes';
import { runCompaction } from '../../src/core/compaction/runner';
import { charEstimateCounter } from '../../src/core/tokens';
import { corpus } from '../helpers/paths';
import { loadRun } from '../helpers/runs';

// What a helper saw in openhands-summary on a real mini-swe-agent 2.3 run (SWE-bench astropy-12907,
// deepseek): CODE_STATE and DEPS were a heading over "(3 more not shown)" and nothing else, the ten
// pip installs sat under CHANGES, and CURRENT_STATE said "(no agent message in these steps)" above
// the agent's own words.

function sections(summary: string): Map<string, { inline: string; lines: string[] }> {
  const out = new Map<string, { inline: string; lines: string[] }>();
  let current: { inline: string; lines: string[] } | undefined;
  for (const line of summary.split('\n')) {
    const heading = /^([A-Z_]+):(.*)$/.exec(line);
    if (heading) out.set(heading[1], (current = { inline: heading[2].trim(), lines: [] }));
    else if (current && line.startsWith('  - ')) current.lines.push(line.slice(4));
  }
  return out;
}

test('openhands-summary: every section with lines shows one, installs are DEPS not CHANGES, and CURRENT_STATE does not deny the agent\'s words it lists', async () => {
  const run = await loadRun(corpus('mini-swe-agent/astropy__astropy-12907.traj.json'));
  const out = await runCompaction(run, { strategy: findStrategy('openhands-summary')! }, { counter: charEstimateCounter });
  const s = sections(out.summary!);
  for (const [name, { lines }] of s) {
    assert.ok(lines.length === 0 || lines.some((l) => !/^\(\d+ (?:more )?not shown\)$/.test(l)), `${name} is only a count: ${JSON.stringify(lines)}`);
  }
  assert.ok(s.get('DEPS')!.lines.some((l) => /pip install/.test(l)), 'the installs are dependencies');
  assert.ok(!s.get('CHANGES')!.lines.some((l) => /pip (?:un)?install/.test(l)), `no install under CHANGES: ${s.get('CHANGES')!.lines.join(' | ')}`);
  assert.ok(s.get('CHANGES')!.lines.some((l) => /sed -i .*astropy\/modeling\/separable\.py/.test(l)), 'the edit is the change');
  const state = s.get('CURRENT_STATE')!;
  assert.ok(state.lines.length > 0);
  assert.doesNotMatch(state.inline, /no agent message/);
});

test('a read file\'s gist skips a blank line\'s bare number, as Copilot CLI\'s view ("2.") and OpenCode\'s read ("2:") print it', () => {
  // Copilot CLI 1.0's view of .agents/product-boundary.md (EntityProcess/agentv, MIT), its first lines.
  assert.equal(readGist('1. # Product Boundary\n2. \n3. This file expands the summary in [AGENTS.md](../AGENTS.md).'), '# Product Boundary · This file expands the summary in [AGENTS.md](../AGENTS.md).');
  assert.equal(readGist('<path>app/service.py</path>\n<type>file</type>\n<content>\n1: """Business logic layer for ticket operations."""\n2: \n3: class TicketService:'), '"""Business logic layer for ticket operations.""" · class TicketService:');
});

test('an install is read once, by the shell reading that classes commands: what DEPS lists is what CHANGES leaves out', () => {
  for (const c of ['cd app && npm ci', 'sudo apt-get install -y jq', 'uv pip install -e .', 'python3 -m pip uninstall -y requests', 'timeout 300 cargo add serde']) {
    assert.ok(installsDependency(c), c);
    assert.equal(commandEffect(c), 'change', c);
  }
  // A command that names an installer without running it (the old word match took `echo … pip install`).
  for (const c of ['pip list', 'npm test', 'echo "run pip install first"', 'grep -r "npm install" docs']) assert.ok(!installsDependency(c), c);
});
