import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { test } from 'node:test';
import { shellBanners } from '../../src/core/compaction/facts/banners';
import { extractFacts } from '../../src/core/compaction/facts/facts';
import { loadTrajectory } from '../../src/core/open';
import type { Run, Step } from '../../src/core/model';
import { corpus, REPO_ROOT } from '../helpers/paths';

// A line the shell prints before every command's output (nvm from a profile, Homebrew's shellenv
// failing) is told by the log: it opens the output of `cat` and of other programs alike.

const wild = (rel: string) => path.join(REPO_ROOT, 'wild', 'files', rel);

function bannersOf(run: Run): string[] {
  const resultOf = new Map<number, Step>();
  for (const s of run.steps) if (s.kind === 'tool_result' && s.answers !== undefined && !resultOf.has(s.answers)) resultOf.set(s.answers, s);
  return [...shellBanners(run.steps, resultOf)];
}

test("a profile's line before every command's output is the shell's, and a file read is told without it", async () => {
  // Codex (wild dev split): nvm prints "Now using node v22.20.0 (npm v10.9.3)" before every command.
  const run = (await loadTrajectory(wild('Prometheus-AGS__prometheus-parking-lot-rs/rollout-2025-12-06T15-11-37-019af581-86ce-7d23-b9c6-0f99353d36af.jsonl'))).runs[0];
  assert.deepEqual(bannersOf(run), ['Now using node v22.20.0 (npm v10.9.3)']);
  const facts = extractFacts(run, run.steps.map((s) => s.index));
  const arch = facts.reads.find((r) => r.text === 'docs/ARCHITECTURE.md');
  assert.match(arch?.gist ?? '', /^# Architectural Design Document: `prometheus_parking_lot`/);
  assert.ok(!facts.commands.some((c) => /Now using node/.test(c.outcome)), facts.commands.filter((c) => /Now using node/.test(c.outcome)).map((c) => c.outcome).join('\n'));
});

test("a program's own header is not a banner: pytest's session line, a traceback's first line, Sphinx's version", async () => {
  for (const file of [
    wild('MQFacultyOfArts__PromptGrimoireTool/c6ee6a00-7b0f-4ea5-abbf-86617c7fd63a.jsonl'), // `uv run pytest …`, `pytest … | tail`
    corpus('mini-swe-agent/astropy__astropy-12907.traj.json'), // several scripts that end in a traceback
    corpus('mini-swe-agent/sphinx-doc__sphinx-9711.traj.json'), // scripts that end in sphinx-build
  ]) {
    const run = (await loadTrajectory(file)).runs[0];
    assert.deepEqual(bannersOf(run), [], file);
  }
});

test("a terminal harness's echo of the command after its prompt is not what the command printed", async () => {
  const run = (await loadTrajectory(path.join(REPO_ROOT, 'test', 'fixtures', 'atif', 'terminus-2-context-summarization.trajectory.json'))).runs[0];
  const facts = extractFacts(run, run.steps.map((s) => s.index));
  const cat = facts.commands.find((c) => c.command === 'cat hello.txt');
  assert.equal(cat?.outcome, '→ Hello, world!');
  assert.ok(!facts.commands.some((c) => /New Terminal Output|root@CONTAINER_ID/.test(c.outcome)), facts.commands.map((c) => c.outcome).join('\n'));
});
