import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { test } from 'node:test';
import { extractFacts } from '../../src/core/compaction/extract';
import { excerptsOf } from '../../src/core/compaction/facts/excerpts';
import { excerptLines, renderSections } from '../../src/core/compaction/facts/render';
import { findStrategy } from '../../src/core/compaction/registry';
import { runCompaction } from '../../src/core/compaction/runner';
import { loadTrajectory } from '../../src/core/open';
import { charEstimateCounter } from '../../src/core/tokens';
import { addCall, builtRun } from '../helpers/builtRuns';
import { REPO_ROOT } from '../helpers/paths';

// A summary written without a model used to stop at its lists: on a 39-step Codex session it said
// the file and the fix in 2,900 of its 8,000 characters and left out what the agent found
// ("Recharts wraps SVG text to fit that width"). Room it has left is now filled with lines quoted
// from the steps, the most telling first, never past a 70% reduction of the whole context.

const wild = (rel: string) => path.join(REPO_ROOT, 'wild', 'files', rel);
const AGENTLOGS = wild('tomjnsn__agentlogs/images.jsonl'); // Codex, 39 steps (wild dev split)
const CCVIEWER = wild('d-kimuson__claude-code-viewer/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl'); // Claude Code, 29 steps

const QUOTED = /^ {2}- step \d+: "/m;

test('a summary with room left quotes what the agent found, within its budget and a 70% reduction, in every strategy that fills room', async () => {
  const run = (await loadTrajectory(AGENTLOGS)).runs[0];
  for (const id of ['openhands-summary', 'openhands-structured', 'katalyst-chat', 'claude-code-compact', 'langchain-summarization', 'budget-schema']) {
    const r = await runCompaction(run, { strategy: findStrategy(id)!, range: '0:-2' }, { counter: charEstimateCounter });
    assert.match(r.summary!, /Recharts wraps SVG text to fit that width/, id);
    // 70% of the characters; in tokens, with each message's overhead, a little less.
    assert.ok(r.reduction >= 0.65, `${id}: reduction ${r.reduction}`);
    const within = /within ([\d,]+) characters/.exec(r.summarySize ?? '');
    if (within) assert.ok(r.summary!.length <= Number(within[1].replace(/,/g, '')) + 200, `${id}: ${r.summary!.length} over ${within[1]}`);
  }
});

test('where the steps kept already put a 70% reduction out of reach, nothing is quoted', async () => {
  const run = (await loadTrajectory(CCVIEWER)).runs[0];
  const r = await runCompaction(run, { strategy: findStrategy('openhands-summary')!, range: '0:-2' }, { counter: charEstimateCounter });
  assert.ok(r.reduction < 0.7, `reduction ${r.reduction}`);
  assert.doesNotMatch(r.summary!, QUOTED);
  // The same range's facts allow no room for quotes at all.
  const facts = extractFacts(run, run.steps.filter((s) => (r.fates[s.index] ?? 'kept') !== 'kept').map((s) => s.index));
  assert.equal(excerptLines(facts)[0]?.within ?? 0, 0);
});

test('summarizing-session quotes in what its 400 tokens leave, and keeps to them', async () => {
  const run = (await loadTrajectory(AGENTLOGS)).runs[0];
  const r = await runCompaction(run, { strategy: findStrategy('summarizing-session')!, range: '0:-2' }, { counter: charEstimateCounter });
  assert.match(r.summary!, QUOTED, 'its sections leave room: a quote fills it (was: none)');
  assert.ok(charEstimateCounter.count(r.summary!) <= 400, `${charEstimateCounter.count(r.summary!)} tokens`);
});

// A chunk digest's quotes: items of their own, in quotation marks, between the digest's "; ".
const DIGEST_QUOTE = /(?:^|; |: )"[^"\n]{6,}"(?=; |$)/m;

test('rolling and hierarchical summaries quote in the room their 150-token chunk digests leave, and not where the range has none', async () => {
  const run = (await loadTrajectory(AGENTLOGS)).runs[0];
  for (const id of ['rolling-summary', 'hierarchical-summary']) {
    const r = await runCompaction(run, { strategy: findStrategy(id)!, range: '0:-2' }, { counter: charEstimateCounter });
    assert.match(r.summary!, DIGEST_QUOTE, `${id}: a chunk with room left quotes its steps (was: none)`);
    assert.ok(r.reduction >= 0.65, `${id}: reduction ${r.reduction}`);
    // The first 13 steps of 39: the steps kept already put a 70% reduction out of reach, so no chunk has room to quote.
    const t = await runCompaction(run, { strategy: findStrategy(id)!, range: '0:12' }, { counter: charEstimateCounter });
    assert.doesNotMatch(t.summary!, DIGEST_QUOTE, id);
  }
});

test('excerpts: findings and verdicts are quoted; secrets, tag-only lines, harness wrappers and a client\'s own wrapper never are', () => {
  const run = builtRun((b) => {
    b.add({ kind: 'user', text: 'The user has provided feedback on the results. Consider their input.\n<feedback>\nuse the staging database, account ACME-4471\n</feedback>' });
    b.add({ kind: 'assistant', text: 'Let me look at the config. The pool size in config/db.yaml is 5, which is too small for the load test.' });
    addCall(b, 'Bash', { command: 'cat .env' }, 'DATABASE_URL=postgres://db/app\napi_key = sk-live-abcdefghijklmnop1234\n</environment_details>\nExit code: 0');
    addCall(b, 'Bash', { command: 'pytest tests/test_pool.py' }, '============ 3 passed in 0.41s ============');
  });
  const ex = excerptsOf(run.steps, run.steps.map((s) => s.index), ['ACME-4471']);
  const texts = ex.map((e) => e.text);
  assert.ok(texts.includes('use the staging database, account ACME-4471'), texts.join('\n'));
  assert.ok(texts.includes('The pool size in config/db.yaml is 5, which is too small for the load test.'));
  assert.ok(texts.includes('3 passed in 0.41s'));
  assert.ok(!texts.some((t) => /provided feedback|sk-live|environment_details|Exit code/.test(t)), texts.join('\n'));
  // What the agent found outranks what it meant to do.
  const score = (t: string) => ex.find((e) => e.text.startsWith(t))?.score ?? -1;
  assert.ok(score('The pool size') > score('Let me look'));
});

test('excerpts: a line a tool repeats with only its ids changed is its template, ranked lower than the same line said once', () => {
  // Claude Code's Task tool, as a session-share run has it: each launch's result the same lines but for the agent's id.
  const launches = (ids: string[]) => builtRun((b) => {
    b.add({ kind: 'user', text: 'Write poems with sub-agents.' });
    for (const id of ids) addCall(b, 'Task', { description: 'Poem' }, `Async agent launched successfully.\nagentId: ${id} (internal ID - do not mention to user. Use to resume later if needed.)`);
  });
  const scoreOf = (ids: string[]) => {
    const run = launches(ids);
    return excerptsOf(run.steps, run.steps.map((s) => s.index), []).find((e) => e.text.startsWith('agentId: a9cad17'))?.score ?? -1;
  };
  const once = scoreOf(['a9cad17']);
  const repeated = scoreOf(['a9cad17', 'aa5ef13', 'ac27727', 'afbbf75']);
  assert.ok(repeated >= 0 && once - repeated >= 0.15, `said once ${once}, one of four ${repeated}`);
});

test('quoted lines leave the summary first and never repeat a line the summary already says', () => {
  const facts = extractFacts(builtRun((b) => {
    b.add({ kind: 'user', text: 'Fix the flaky test in tests/test_pool.py' });
    addCall(b, 'Bash', { command: 'pytest tests/test_pool.py' }, 'FAILED tests/test_pool.py::test_reuse - TimeoutError: pool exhausted after 30s');
    b.add({ kind: 'assistant', text: 'The pool is exhausted because connections are never returned in release_all().' });
  }), [0, 1, 2, 3]);
  const quotes = excerptLines(facts).map((l) => ({ ...l, within: 10_000 }));
  const said = 'the pool is exhausted because connections are never returned in release_all().';
  const text = renderSections([{ heading: 'STATE:', lines: [said, ...quotes] }], { budget: 10_000 });
  assert.equal(text.toLowerCase().split(said).length - 1, 1, text);
  // Over a small room the quotes go before anything else.
  const small = renderSections([{ heading: 'STATE:', lines: [said, ...quotes.map((q) => ({ ...q, within: 120 }))] }], { budget: 10_000 });
  assert.doesNotMatch(small, QUOTED);
  assert.match(small, /never returned in release_all/);
});
