import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { test } from 'node:test';
import { findStrategy, runCompaction } from '../../src/core/compaction';
import { extractFacts } from '../../src/core/compaction/facts/facts';
import { loadTrajectory } from '../../src/core/open';
import { charEstimateCounter } from '../../src/core/tokens/counter';
import { REPO_ROOT } from '../helpers/paths';

// What a call was aimed at, the output under a harness's wrapper, and what an agent said beside
// its calls: three things summaries of unlabelled dev runs (wild/split.json: dev) left out.

const wild = (rel: string) => path.join(REPO_ROOT, 'wild', 'files', rel);
const summaryOf = async (file: string, strategy: string) =>
  (await runCompaction((await loadTrajectory(file)).runs[0], { strategy: findStrategy(strategy)!, range: '0:-2' }, { counter: charEstimateCounter })).summary ?? '';

test('a sub-agent call is named by the task it was given, a fetch by its link', async () => {
  // codemie-ai/codemie-code: two Claude Code `Task` calls whose reports both open "Perfect! …".
  const codemie = await summaryOf(wild('codemie-ai__codemie-code/session-9eda1058.jsonl'), 'openhands-summary');
  assert.match(codemie, /Task \("Explore codemie-code repository structure"\) → /);
  assert.match(codemie, /Task \("Deep dive into uncovered areas"\) → /);
  // marot/spotter: a sub-agent's two WebFetch calls, whose pages both open "> ## Documentation Index".
  const spotter = (await loadTrajectory(wild('marot__spotter/258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-a881341.jsonl'))).runs[0];
  const facts = extractFacts(spotter, spotter.steps.map((s) => s.index));
  assert.deepEqual(facts.outcomes.filter((o) => o.tool === 'WebFetch').map((o) => o.target),
    ['https://code.claude.com/docs/en/claude_code_docs_map.md', 'https://code.claude.com/docs/en/hooks.md']);
  for (const id of ['katalyst-tools', 'rolling-summary']) {
    const s = (await runCompaction(spotter, { strategy: findStrategy(id)!, range: '0:-2' }, { counter: charEstimateCounter })).summary ?? '';
    assert.match(s, /https:\/\/code\.claude\.com\/docs\/en\/hooks\.md/, `${id}: ${s}`);
  }
});

test("OpenHands' wrapper lines are not the output: a script's printed line and a viewed file's content are", async () => {
  // OpenHands/software-agent-sdk: `python hello.py` ends with `[Current working directory: …]` and
  // `[Python interpreter: …]`; the editor's view opens with "Here's the result of running `cat -n` on …:".
  const run = (await loadTrajectory(wild('OpenHands__software-agent-sdk/litellm_proxy__anthropic__claude-sonnet-4-20250514-1757015046.707.json'))).runs[0];
  const facts = extractFacts(run, run.steps.map((s) => s.index));
  const python = facts.commands.find((c) => c.command === 'python hello.py')!;
  assert.equal(python.outcome, 'exit 0 → Hello, World!');
  assert.match(facts.reads.find((r) => r.text.endsWith('/telemetry/hello.py'))?.gist ?? '', /^print\('Hello, World!'\)$/);
});

test("what a chat-completions agent says beside its tool calls is what it said, not hidden thinking", async () => {
  // The same OpenHands run, as OpenAI chat messages: "The `hello.py` file already exists …" goes
  // with a call to run it. The summary said "(no agent message in these steps)".
  const file = wild('OpenHands__software-agent-sdk/litellm_proxy__anthropic__claude-sonnet-4-20250514-1757015046.707.json');
  const run = (await loadTrajectory(file)).runs[0];
  const beside = run.steps.find((s) => s.kind === 'thought' && s.text.includes('already exists'))!;
  assert.equal(beside.label, 'text');
  const summary = await summaryOf(file, 'openhands-summary');
  assert.doesNotMatch(summary, /no agent message in these steps/);
  assert.match(summary, /already exists and contains exactly what you requested/);
});
