import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { findStrategy, runCompaction, STRATEGIES } from '../../src/core/compaction';
import { fromDefaults } from '../../src/core/compaction/describeDefaults';
import { runTitle } from '../../src/core/formats/runMeta';
import { parseStepAddress } from '../../src/core/find/address';
import { replay } from '../../src/core/simulate';

import { filterSurveyRows, parseSurveyQuery, runLabel } from '../../src/core/survey/filter';
import type { SurveyTableRow } from '../../src/core/survey/protocol';
import { charEstimateCounter } from '../../src/core/tokens/counter';
import { describeTokenReport } from '../../src/core/tokens/describe';
import type { TokenReport } from '../../src/core/tokens/report';
import { contextText, logTokensText, statusOnEditor } from '../../src/core/view/statusText';
import { billRun } from '../../src/core/simulate';
import { stepDocument } from '../../src/core/view/stepPresentation';
import { selectionTarget, type TreeNode } from '../../src/extension/tree/nodes';
import { COLUMNS } from '../../src/webview/survey/columns';
import { corpus, fixture } from '../helpers/paths';
import { loadRun } from '../helpers/runs';

// What the extension's words and numbers say: issue 24's findings, each held here.

function report(perCallSame: boolean): TokenReport {
  const usage = { calls: 12, recorded: { inputTokens: 5000, outputTokens: 700 }, ours: { inputTokens: 4800, outputTokens: 690 }, difference: { inputTokens: -200, outputTokens: -10 } };
  return {
    tokenizer: { name: 'o200k_base', label: 'o200k_base', approximate: false },
    tokens: {
      total: 900, content: 800, overhead: 100, images: 0, imageCount: 0, imageRules: [], exact: true,
      byKind: { system: 0, user: 100, assistant: 100, thought: 0, tool_call: 293, tool_result: 307, compaction: 0, other: 100 } as TokenReport['tokens']['byKind'],
      byTool: { bash: { total: 600, calls: 293, results: 307 } } as unknown as TokenReport['tokens']['byTool'],
    },
    recorded: { totals: usage, perCall: perCallSame ? { ...usage } : { ...usage, calls: 11 } },
    cost: null,
    bill: billRun({ format: 'openai-chat', title: 'no calls', source: { path: 'none.json', size: 0 }, steps: [], meta: {}, warnings: [], records: 0 }),
  };
}

test('token tooltip: a tool line says its figures are tokens in calls and results, not counts of calls', () => {
  const text = describeTokenReport(report(true));
  const line = text.split('\n').find((l) => l.includes('bash'))!;
  assert.doesNotMatch(line, /calls 293/, 'read as "293 calls"');
  assert.match(line, /293 in calls, 307 in their results/);
});

test('token tooltip: log totals and per-call usage that say the same thing are one block', () => {
  const same = describeTokenReport(report(true));
  assert.equal(same.match(/^Recorded usage/gm)?.length, 1, same);
  assert.match(same, /log totals, the same per call/);
  const different = describeTokenReport(report(false));
  assert.equal(different.match(/^Recorded usage/gm)?.length, 2, 'different figures keep both blocks');
});

test('status bar: the log total and the context in use read differently, and only the context has a window', () => {
  const log = logTokensText(1100, true);
  const context = contextText({ inUse: 1100, limit: 1_000_000, toTrigger: 998_900, unit: 'tokens', agentRule: false, approx: true });
  assert.equal(log, '≈1.1k tok in log');
  assert.equal(context, 'context ≈1.1k / 1M tok · window full in ≈999k');
  assert.doesNotMatch(log, /%|of 1M/, 'the share of the window is the context entry\'s alone');
});

test('status bar: a plain file in the editor hides the entries; a panel or an open trajectory keeps them', () => {
  assert.equal(statusOnEditor('file', false), 'hide', 'package.json is not a run');
  assert.equal(statusOnEditor('untitled', false), 'keep', 'the prompt the report opened belongs to the run');
  assert.equal(statusOnEditor('file', true), 'keep');
  assert.equal(statusOnEditor(undefined, false), 'keep', 'a report or survey panel has focus');
  assert.equal(statusOnEditor('agent-trace-lens-step', false), 'keep', 'a step of the run shown');
});

test('whole-run replay: the trigger reads after "it compacts" for a strategy that recomputes and for one that does not', async () => {
  const t = await loadRun(corpus('mini-swe-agent/astropy__astropy-12907.traj.json'));
  for (const id of ['katalyst-tools', 'openhands-summary']) {
    const s = findStrategy(id)!;
    const r = await runCompaction(t, { strategy: s, options: {} }, { counter: charEstimateCounter });
    const rp = replay(t, { strategy: s, options: r.options, counter: charEstimateCounter, stepTokens: r.stepTokensBefore, sample: r });
    const sentence = `it compacts ${rp.trigger}`;
    assert.doesNotMatch(sentence, /whenever before/, sentence);
    assert.match(sentence, s.recomputes ? /^it compacts before every request once/ : /^it compacts whenever /, sentence);
  }
});

test('strategy picker: katalyst-tools says the observation length its option defaults to', () => {
  const s = findStrategy('katalyst-tools')!;
  const max = s.options.find((o) => o.name === 'observation_max_chars')!.default as number;
  assert.match(s.description, new RegExp(`cut to ${max.toLocaleString('en-US')} characters`));
  for (const other of STRATEGIES) assert.doesNotMatch(other.description, /\{\w+%?\}/, `${other.id}: a placeholder left in its description`);
});

test('strategy descriptions are filled from the option defaults, and a name that is not an option fails at once', () => {
  const options = [{ name: 'keep', type: 'integer' as const, default: 12_000, min: 0, max: 1e6, help: '' }, { name: 'share', type: 'number' as const, default: 0.835, min: 0, max: 1, help: '' }];
  assert.equal(fromDefaults('keeps {keep} tokens at {share%}', options), 'keeps 12,000 tokens at 83.5%');
  assert.throws(() => fromDefaults('keeps {kept}', options), /kept/);
});

test('step document: an ATIF compaction step lists its summaries once', async () => {
  const t = await loadRun(fixture('atif/terminus-2-context-summarization.trajectory.json'));
  const step = t.steps.find((s) => s.kind === 'compaction')!;
  const doc = stepDocument(step).content;
  const first = step.compaction!.summary!.split('\n').find((l) => l.trim().length > 20)!;
  assert.equal(doc.split(first).length - 1, 1, `"${first}" appears more than once`);
});

const doc = { key: '/runs/a.jsonl' } as TreeNode['doc'];
const other = { key: '/runs/b.jsonl' } as TreeNode['doc'];

test('Compact Trajectory…: a selected file or run is the target, no question asked', () => {
  const root = { type: 'trajectory', id: 'r', doc } as TreeNode;
  const step = { type: 'step', id: 's', doc, runIndex: 2 } as unknown as TreeNode;
  const run = { type: 'run', id: 'u', doc, runIndex: 2 } as unknown as TreeNode;
  assert.deepEqual(selectionTarget([root]), { doc });
  assert.deepEqual(selectionTarget([run, step]), { doc, runIndex: 2 });
  assert.equal(selectionTarget([]), undefined, 'nothing selected: ask');
  assert.equal(selectionTarget([root, { type: 'trajectory', id: 'o', doc: other } as TreeNode]), undefined, 'two files: ask');
});

function row(over: Partial<SurveyTableRow>): SurveyTableRow {
  return {
    file: 'runs.jsonl', run: 0, runsInFile: 1, name: 'a run', format: 'swe-agent', task: 'django-1', model: 'gpt-4o', steps: 40, tokens: 20_000,
    approximateTokens: false, requests: 20, costModelled: 0.3, cache: 'openai', costRecorded: null, cost: 0.3, costLabel: 'modelled', outcome: '', ...over,
  };
}

const table: SurveyTableRow[] = [
  row({ run: 0, runsInFile: 3, reward: 1, outcome: 'reward 1', format: 'codex', model: 'gpt-5-codex', costModelled: 0.9, tokens: 90_000 }),
  row({ run: 1, runsInFile: 3, reward: 0, outcome: 'reward 0', format: 'codex', model: 'gpt-5-codex' }),
  row({ run: 2, runsInFile: 3, reward: 0.5, outcome: 'reward 0.5', format: 'codex' }),
  row({ file: 'b.traj', resolved: true, outcome: 'resolved', model: 'claude-sonnet-4' }),
  row({ file: 'c.traj', resolved: false, failed: true, outcome: 'not resolved · failed', costModelled: null }),
];
const keep = (q: string) => filterSurveyRows(table, parseSurveyQuery(q)).map(runLabel);

test('survey filter: fields as in the tree\'s query language, and "reward 1" keeps no run with reward 0', () => {
  assert.deepEqual(keep('reward 1'), ['runs.jsonl#0']);
  assert.deepEqual(keep('reward:1'), ['runs.jsonl#0']);
  assert.deepEqual(keep('reward>0'), ['runs.jsonl#0', 'runs.jsonl#2']);
  assert.deepEqual(keep('resolved:true'), ['b.traj']);
  assert.deepEqual(keep('resolved:false'), ['c.traj']);
  assert.deepEqual(keep('format:codex'), ['runs.jsonl#0', 'runs.jsonl#1', 'runs.jsonl#2']);
  assert.deepEqual(keep('cost>0.5'), ['runs.jsonl#0'], 'an unknown cost never matches');
  assert.deepEqual(keep('tokens>50k'), ['runs.jsonl#0']);
  assert.deepEqual(keep('model:claude'), ['b.traj']);
  assert.deepEqual(keep('is:error'), ['c.traj']);
  assert.deepEqual(keep('format:codex /reward 0\\.?5?$/'), ['runs.jsonl#1', 'runs.jsonl#2']);
  assert.equal(keep('').length, table.length);
  assert.throws(() => parseSurveyQuery('kind:tool_call'), /picks steps/);
  assert.throws(() => parseSurveyQuery('cost>cheap'), /needs a number/);
});

test('one numbering: the Survey, the tree and Go to Step name run N as the CLI\'s FILE#N does, from 0', () => {
  const first = table[0];
  assert.equal(COLUMNS[0].text(first), 'runs.jsonl#0', 'the Survey\'s Run column');
  assert.equal(runTitle({ runIndex: 0 }, 'fix the bug'), '#0: fix the bug', 'the tree\'s run title');
  assert.deepEqual(parseStepAddress('2:0', [3, 3, 3]), { run: 2, step: 0 }, 'Go to Step');
});
