import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { findStrategy, runCompaction } from '../../src/core/compaction';
import { loadTrajectory } from '../../src/core/open';
import { priceFor, runDate } from '../../src/core/models';
import { beforeAfterText } from '../../src/core/report/diffText';
import { isWebviewMessage } from '../../src/core/report/protocol';
import { buildReport } from '../../src/core/report/viewModel';

import { charEstimateCounter } from '../../src/core/tokens/counter';
import { corpus, REPO_ROOT } from '../helpers/paths';
import * as path from 'node:path';

const wildFile = (rel: string) => path.join(REPO_ROOT, 'wild', 'files', rel);

const counter = charEstimateCounter;

async function twoResults() {
  const t = (await loadTrajectory(corpus('openhands-eval/output.jsonl'))).runs[0];
  const a = await runCompaction(t, { strategy: findStrategy('openhands-summary')!, range: '5-40' }, { counter });
  const b = await runCompaction(t, { strategy: findStrategy('observation-masking')!, range: '5-40' }, { counter });
  return { t, a, b };
}

test('view model: the headline and the per-kind, per-tool and per-step numbers equal the compaction results', async () => {
  const { t, a, b } = await twoResults();
  const vm = buildReport([a, b], t, { model: 'gpt-4o', counter, generatedAt: '2025-01-01T00:00:00Z' });
  assert.equal(vm.results.length, 2, 'two strategies on the same range, for comparison');
  [a, b].forEach((r, i) => {
    const v = vm.results[i];
    assert.equal(v.strategy, r.strategy);
    assert.equal(v.headline.tokensBefore, r.tokensBefore);
    assert.equal(v.headline.tokensAfter, r.tokensAfter);
    assert.equal(v.headline.reduction, r.reduction);
    assert.equal(v.headline.tokenizer, r.tokenizer);
    assert.equal(v.headline.stepsAfter, r.condensed.steps.length);
    const sum = (xs: number[]) => xs.reduce((x, y) => x + y, 0);
    assert.equal(sum(v.byKind.map((k) => k.before)), r.tokensBefore);
    assert.equal(sum(v.byKind.map((k) => k.after)), r.tokensAfter);
    assert.equal(sum(v.steps.map((s) => s.tokensBefore)), r.tokensBefore);
    assert.deepEqual(v.steps.map((s) => s.fate), r.fates);
    assert.deepEqual(v.range, { start: r.range![0], end: r.range![1] });
    // The prices in force on the day the run happened (its first timestamp), or today's.
    const price = priceFor('gpt-4o', {}, runDate(t.steps))!;
    assert.ok(Math.abs(v.headline.cost!.perCallBefore - (r.tokensBefore * price.input) / 1e6) < 1e-12);
    assert.equal(v.headline.cost!.pricesAsOf, price.asOf);
  });
  assert.equal(vm.results[0].headline.modeLabel, 'extractive (no model)');
  assert.equal(vm.results[1].headline.modeLabel, 'deterministic');
  assert.ok(vm.results[0].summary && vm.results[0].summaryTokens > 0);
  assert.equal(vm.results[1].summary, null);
  assert.ok(vm.results[1].steps.some((s) => s.fate === 'masked'));
  assert.ok(vm.results[0].replay && vm.results[0].replay.series.length === t.steps.length);
});

test('view model: plain JSON that survives a round trip unchanged (it crosses postMessage and the HTML file)', async () => {
  const { t, a } = await twoResults();
  const vm = buildReport([a], t, { counter, generatedAt: '2025-01-01T00:00:00Z' });
  assert.deepEqual(JSON.parse(JSON.stringify(vm)), vm);
  assert.equal(vm.results[0].headline.cost === null, priceFor(t.meta.model) === undefined, 'no price known, so no cost is invented');
});

test('diff text: the left side holds the forgotten steps, the right side the summary and the survivors', async () => {
  const { t, a } = await twoResults();
  const { before, after } = beforeAfterText(a, t);
  for (let i = 5; i <= 40; i++) assert.ok(before.includes(`## Step ${i} ·`), `step ${i} on the left`);
  assert.ok(after.includes(a.summary!), 'the summary on the right');
  const survivors = a.fates.flatMap((f, i) => (f === 'kept' && i >= 5 && i <= 40 ? [i] : []));
  for (const i of survivors) assert.ok(after.includes(`## Step ${i} ·`), `kept step ${i} on the right too`);
  assert.ok(!after.includes('## Step 41 ·'), 'nothing after the range');
});

test('protocol: messages from the webview are checked before the host acts on them', () => {
  assert.ok(isWebviewMessage({ type: 'ready' }));
  assert.ok(isWebviewMessage({ type: 'openDiff', result: 1 }));
  assert.ok(isWebviewMessage({ type: 'rerun', request: { strategy: 'katalyst-chat', range: null, compare: true } }));
  assert.ok(!isWebviewMessage({ type: 'openDiff', result: '1' }));
  assert.ok(!isWebviewMessage({ type: 'rerun', request: { strategy: 3, range: null, compare: true } }));
  assert.ok(!isWebviewMessage({ type: 'eval', code: 'x' }));
  assert.ok(!isWebviewMessage(null));
});

test('view model: "Show prompt" applies to strategies that build a prompt, even offline, and not to masking', async () => {
  const { t, a, b } = await twoResults();
  const vm = buildReport([a, b], t, { counter, actions: { prompt: true } });
  assert.equal(vm.actions.prompt, true);
  assert.equal(a.mode, 'extractive');
  assert.equal(vm.results[0].hasPrompt, true, 'the extractive run still shows what would be sent');
  assert.match(a.prompt!.map((m) => m.content).join('\n'), /USER_CONTEXT/);
  assert.equal(vm.results[1].hasPrompt, false, 'observation masking never prompts a model');
  assert.equal(buildReport([a], t, { counter }).actions.prompt, false, 'the standalone HTML has no editor to open it in');
});

test("the forgotten range shows a step as a terminal would: no colour codes or bracketed-paste switches", async () => {
  // OpenHands' terminal output (wild/files/dfinson__traceforge): `ESC[?2004l` opens every observation.
  const t = (await loadTrajectory(wildFile('dfinson__traceforge/openhands/demo_issue_tracker_get_endpoint.jsonl'))).runs[0];
  assert.ok(t.steps.some((s) => s.text.includes('\u001b[?2004l')), 'the log holds the switch');
  const r = await runCompaction(t, { strategy: findStrategy('openhands-summary')!, range: '0-21' }, { counter });
  const vm = buildReport([r], t, { counter, generatedAt: '2025-01-01T00:00:00Z' });
  const texts = vm.results[0].forgotten.map((f) => f.text);
  assert.ok(texts.some((x) => x.startsWith('total 188')), JSON.stringify(texts.slice(0, 3)));
  // eslint-disable-next-line no-control-regex
  assert.ok(texts.every((x) => !/[\u0000-\u0008\u000b-\u001f\u007f]/.test(x)), 'a control character reached the panel');
});
