import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli';
import { REPORT_SCRIPT } from '../../src/core/report/assets';
import { REPORT_DATA_ID } from '../../src/core/report/html';
import type { ReportViewModel } from '../../src/core/report/viewModel';
import { corpus, REPO_ROOT, tempDir } from '../helpers/paths';

const run = runCli;

const SWE = corpus('swe-agent/marshmallow-code__marshmallow-1867.traj');

test('cli simulate --json: the documented fields, a series point per step, and less input and cost with compaction', async () => {
  const { code, out, err } = await run('simulate', SWE, '--strategy', 'openhands-summary', '--option', 'max_size=16', '--model', 'gpt-4o', '--json');
  assert.equal(code, 0, err);
  const j = JSON.parse(out);
  for (const key of ['strategy', 'steps', 'series', 'totalInputRaw', 'totalInputCompacted', 'summaryCalls', 'cost']) assert.ok(key in j, key);
  assert.equal(j.strategy, 'openhands-summary');
  assert.equal(j.series.length, j.steps);
  assert.deepEqual(Object.keys(j.series[0]).sort(), ['step', 'tokensCompacted', 'tokensRaw']);
  assert.ok(j.summaryCalls > 0, 'a 41-step run over max_size 16 is summarized');
  assert.ok(j.totalInputCompacted < j.totalInputRaw);
  assert.ok(j.cost.compacted.total < j.cost.raw.total);
  assert.equal(j.cost.model, 'gpt-4o');
  assert.equal(j.tokenizer, 'o200k_base');
});

test('cli simulate: --ratio and --budget change the replay; bad values are usage errors', async () => {
  const base = ['simulate', SWE, '--strategy', 'openhands-summary', '--json'];
  const plain = JSON.parse((await run(...base)).out);
  const set = JSON.parse((await run(...base, '--ratio', '0.5', '--budget', '2000')).out);
  assert.equal(set.ratioSource, 'user');
  assert.equal(set.summaryRatio, 0.5);
  assert.match(set.trigger, /2000 tokens/);
  assert.notDeepEqual(set.series, plain.series);
  assert.equal((await run(...base, '--ratio', 'lots')).code, 1);
  assert.equal((await run('simulate', SWE, '--strategy', 'no-such-strategy')).code, 1);
  const text = await run('simulate', SWE, '--strategy', 'observation-masking');
  assert.equal(text.code, 0, text.err);
  assert.match(text.out, /compacted\s+[▁▂▃▄▅▆▇█]+/);
});

test('cli compact --json lists the forgotten range\'s entities as {text, kind, kept, where, firstStep, neededLater}', async () => {
  const { code, out, err } = await run('compact', SWE, '--strategy', 'openhands-summary', '--option', 'max_size=20', '--json');
  assert.equal(code, 0, err);
  const j = JSON.parse(out);
  assert.ok(Array.isArray(j.entities) && j.entities.length > 0);
  for (const e of j.entities) {
    assert.deepEqual(Object.keys(e).filter((k) => k !== 'detail').sort(), ['firstStep', 'kept', 'kind', 'neededLater', 'text', 'where']);
    assert.equal(typeof e.kept, 'boolean');
    assert.equal(e.kept, e.where !== 'lost');
    assert.ok(Number.isInteger(e.firstStep) && j.range[0] <= e.firstStep && e.firstStep <= j.range[1]);
  }
  assert.ok(j.entities.some((e: { where: string }) => e.where === 'summary'), 'the extractive summary names what the run did');
});

test('cli compact --html writes one self-contained file whose headline equals the --json numbers',
  { skip: fs.existsSync(path.join(REPO_ROOT, 'dist', 'webview', REPORT_SCRIPT)) ? false : 'run npm run build first (dist/webview is missing)' },
  async () => {
    const file = path.join(tempDir(), 'report.html');
    const { code, out, err } = await run('compact', SWE, '--strategy', 'openhands-summary', '--option', 'max_size=20', '--json', '--html', file);
    assert.equal(code, 0, err);
    const j = JSON.parse(out);
    const html = fs.readFileSync(file, 'utf8');
    const bundle = fs.readFileSync(path.join(REPO_ROOT, 'dist', 'webview', REPORT_SCRIPT), 'utf8');
    assert.ok(html.includes(bundle.trim().slice(0, 2000)), 'the esbuild bundle is inlined (not a CommonJS module a page cannot run)');
    assert.ok(!/<(link|img)\b|\bsrc=/i.test(html.replace(/<script type="application\/json"[\s\S]*?<\/script>/, '')), 'nothing is loaded from elsewhere');
    const block = new RegExp(`<script type="application/json" id="${REPORT_DATA_ID}">([\\s\\S]*?)</script>`).exec(html);
    const report = JSON.parse(block![1]) as ReportViewModel;
    const h = report.results[0].headline;
    assert.equal(h.tokensBefore, j.tokensBefore);
    assert.equal(h.tokensAfter, j.tokensAfter);
    assert.equal(h.reduction, j.reduction);
    assert.equal(h.tokenizer, j.tokenizer);
    assert.deepEqual(report.results[0].entities.map((e) => [e.text, e.kind, e.kept]), j.entities.map((e: { text: string; kind: string; kept: boolean }) => [e.text, e.kind, e.kept]));
    assert.equal((await run('compact', SWE, '--strategy', 'openhands-summary', '--html', SWE)).code, 4, 'never over the trajectory (exit 4: refused write)');
  });
