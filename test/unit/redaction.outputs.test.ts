// What compaction writes is redacted too (issue 14): --out files (chat, ATIF, OpenHands exports),
// the --html report and extractive summaries carry no secret unless the user asks for --no-redact,
// and the CLI and the report say how many were removed.
import { fileOfRun } from '../../src/core/stats';
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { findStrategy, runCompaction } from '../../src/core/compaction';
import { saveCondensed } from '../../src/core/compaction/saveCondensed';
import { REPORT_DATA_ID } from '../../src/core/report/html';
import type { ReportViewModel } from '../../src/core/report/viewModel';
import { charEstimateCounter } from '../../src/core/tokens/counter';
import { runCli } from '../helpers/cli';
import { corpus, tempDir } from '../helpers/paths';
import { leakedFragments, SEEDED_SECRETS, type SeededSecret } from '../helpers/seededSecrets';
import { loadRun } from '../helpers/runs';

/** A chat-completions log whose tool outputs print every seeded secret, the last ones near the end (kept by any strategy). */
function seededChatFile(dir: string): string {
  const messages: Record<string, unknown>[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: `Deploy the app with ${SEEDED_SECRETS[0].text}` },
  ];
  SEEDED_SECRETS.forEach((s, i) => {
    const command = s.where === 'shell' ? s.text : `cat config/${i}.${s.where}`;
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command }) } }] });
    messages.push({ role: 'tool', tool_call_id: `c${i}`, content: `${s.text}\nexit code 0` });
  });
  messages.push({ role: 'assistant', content: 'Deployed.' });
  const file = path.join(dir, 'seeded.json');
  fs.writeFileSync(file, JSON.stringify(messages));
  return file;
}

function leaked(text: string, secrets: readonly SeededSecret[] = SEEDED_SECRETS): string[] {
  // Files are JSON: compare with the text as JSON would escape it, too.
  return secrets.filter((s) => leakedFragments(text, s.secret).length > 0 || leakedFragments(text, JSON.stringify(s.secret).slice(1, -1)).length > 0).map((s) => s.name);
}

function reportData(html: string): ReportViewModel {
  const m = new RegExp(`<script type="application/json" id="${REPORT_DATA_ID}">([\\s\\S]*?)</script>`).exec(html);
  assert.ok(m, 'report data block');
  return JSON.parse(m[1]) as ReportViewModel;
}

test('redaction: compact --out and --html carry no seeded secret, and the CLI says how many were removed', async () => {
  const dir = tempDir('atl-redact-out-');
  const file = seededChatFile(dir);
  for (const [strategy, exportKind] of [['observation-masking', 'chat'], ['openhands-summary', 'atif'], ['trim-last-turns', 'chat']] as const) {
    const out = path.join(dir, `${strategy}.${exportKind}.json`);
    const html = path.join(dir, `${strategy}.html`);
    const r = await runCli('compact', file, '--strategy', strategy, '--out', out, '--export', exportKind, '--html', html);
    assert.equal(r.code, 0, r.err);
    const written = fs.readFileSync(out, 'utf8');
    assert.deepEqual(leaked(written), [], `${strategy} --out`);
    assert.match(written, /\[REDACTED:/);
    const report = fs.readFileSync(html, 'utf8');
    assert.deepEqual(leaked(report), [], `${strategy} --html`);
    assert.match(r.out, /Secrets removed from the outputs: (\d+)/);
    assert.ok(Number(/Secrets removed from the outputs: (\d+)/.exec(r.out)![1]) >= SEEDED_SECRETS.length);
    assert.match(r.err, /HTML report written to .* \(\d+ secret values redacted\)/);
    const data = reportData(report);
    assert.ok(data.results[0].warnings.some((w) => /^Redacted: \d+ secret values in this run are shown as \[REDACTED:…\]/.test(w)), data.results[0].warnings.join('\n'));
  }
});

test('redaction: --no-redact keeps the steps\' own text in --out and --html, and says so', async () => {
  const dir = tempDir('atl-redact-keep-');
  const file = seededChatFile(dir);
  const out = path.join(dir, 'kept.json');
  const html = path.join(dir, 'kept.html');
  const r = await runCli('compact', file, '--strategy', 'observation-masking', '--out', out, '--html', html, '--no-redact');
  assert.equal(r.code, 0, r.err);
  // observation-masking keeps the latest outputs verbatim: their secrets are in the file as they were.
  const last = SEEDED_SECRETS.slice(-3);
  assert.deepEqual(leaked(fs.readFileSync(out, 'utf8'), last), last.map((s) => s.name));
  assert.ok(leaked(fs.readFileSync(html, 'utf8')).length > 0);
  assert.match(r.out, /Outputs are not redacted \(--no-redact\)/);
  assert.match(r.err, /HTML report written to .* \(not redacted\)/);
});

test('redaction: simulate --html is redacted as well', async () => {
  const dir = tempDir('atl-redact-sim-');
  const file = seededChatFile(dir);
  const html = path.join(dir, 'sim.html');
  const r = await runCli('simulate', file, '--strategy', 'openhands-summary', '--html', html);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(leaked(fs.readFileSync(html, 'utf8')), []);
});

test('redaction: extractive summaries of every summarising strategy carry no seeded secret; --no-redact keeps kept steps as they were', async () => {
  const dir = tempDir('atl-redact-ext-');
  const t = await loadRun(seededChatFile(dir));
  const range = `1-${t.steps.length - 4}`;
  for (const id of ['openhands-summary', 'openhands-structured', 'katalyst-chat', 'budget-schema', 'rolling-summary', 'hierarchical-summary', 'claude-code-compact', 'codex-compact', 'langchain-summarization', 'summarizing-session', 'katalyst-tools']) {
    const r = await runCompaction(t, { strategy: findStrategy(id)!, range }, { counter: charEstimateCounter });
    assert.notEqual(r.mode, 'llm');
    assert.deepEqual(leaked(r.summary ?? ''), [], `${id} summary`);
    assert.deepEqual(leaked(r.condensed.steps.map((s) => `${s.text}\n${s.tool?.args ?? ''}`).join('\n')), [], `${id} condensed`);
    assert.ok((r.secretsRemoved?.count ?? 0) >= SEEDED_SECRETS.length, `${id}: ${r.secretsRemoved?.count}`);
  }
  const kept = await runCompaction(t, { strategy: findStrategy('openhands-summary')!, range }, { counter: charEstimateCounter, redactOutputs: false });
  assert.equal(kept.secretsRemoved, undefined);
  const tail = kept.condensed.steps.slice(-4).map((s) => s.text).join('\n');
  assert.ok(leaked(tail).length > 0, 'kept steps keep their text with redactOutputs: false');
});

test('redaction: an OpenHands export copies events from the original file, redacted', async () => {
  const dir = tempDir('atl-redact-oh-');
  const secret = SEEDED_SECRETS.find((s) => s.name === 'GitHub classic PAT')!;
  // A real OpenHands V0 log, with a token in the last command's output (kept verbatim by the export).
  const events = JSON.parse(fs.readFileSync(corpus('openhands-v0/wrong_initial_state.json'), 'utf8')) as Record<string, any>[];
  const last = [...events].reverse().find((e) => e.observation === 'run' || e.action === 'run')!;
  if (last.observation) last.content = `${last.content}\n${secret.text}`;
  else last.args.command = `${last.args.command} && ${secret.text}`;
  events[0].message = `${events[0].message}\n${secret.text}`;
  const file = path.join(dir, 'oh.json');
  fs.writeFileSync(file, JSON.stringify(events));
  const t = await loadRun(file);
  assert.equal(t.format, 'openhands-v0');
  const r = await runCompaction(t, { strategy: findStrategy('openhands-summary')!, range: '2:-2' }, { counter: charEstimateCounter });
  const redacted = { count: 0, kinds: {} as Record<string, number> };
  const out = await saveCondensed(path.join(dir, 'oh.condensed.json'), fileOfRun(t), t, r, 'openhands', { redacted });
  const text = fs.readFileSync(out, 'utf8');
  assert.match(text, /"action": "condensation"/);
  assert.deepEqual(leaked(text, [secret]), []);
  assert.ok(redacted.count >= 2, `the copied original events were redacted on the way out (${redacted.count})`);
  const raw = await saveCondensed(path.join(dir, 'oh.raw.json'), fileOfRun(t), t, r, 'openhands', { redact: false });
  assert.deepEqual(leaked(fs.readFileSync(raw, 'utf8'), [secret]), [secret.name]);
});

test('redaction: convert --to atif, to a file or to standard output, carries no seeded secret unless --no-redact', async () => {
  const dir = tempDir('atl-redact-atif-');
  const file = seededChatFile(dir);
  const out = path.join(dir, 'seeded.atif.json');
  const r = await runCli('convert', file, '--to', 'atif', '--out', out);
  assert.equal(r.code, 0, r.err);
  const written = fs.readFileSync(out, 'utf8');
  assert.deepEqual(leaked(written), [], 'convert --out');
  assert.match(r.err, /\((\d+) secret values redacted\)/);
  const printed = await runCli('convert', file, '--to', 'atif');
  assert.equal(printed.code, 0, printed.err);
  assert.deepEqual(leaked(printed.out), [], 'convert to standard output');
  assert.match(printed.err, /secret values redacted in the ATIF printed/);
  // Asked to keep them, the export is the run as it was: every secret is there.
  const kept = await runCli('convert', file, '--to', 'atif', '--no-redact');
  assert.equal(kept.code, 0, kept.err);
  assert.equal(leaked(kept.out).length, SEEDED_SECRETS.length);
});

test('redaction: the path the user typed is printed as typed: a random run id in an Inspect file name is not a secret, a token in one is', async () => {
  const dir = tempDir('typed-path');
  // Inspect names its logs <time>_<task>_<random id>.eval; this one keeps its upstream name.
  const file = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'inspect', '2025-11-07T10-59-47-05-00_websearch-addition-problem_LqPDntDnkk4h2fSqQ8i6CE.eval');
  const summaryFile = path.join(dir, 'summary_Q7mZpL2vRx9KdT4wYbN8sE.json');
  for (const args of [['stats', file], ['stats', file, '--json'], ['diff', file, file], ['compact', corpus('swe-agent/pydicom__pydicom-1458.traj'), '--strategy', 'observation-masking', '--out', summaryFile]]) {
    const printed = await runCli(...args);
    assert.equal(printed.code, 0, printed.out + printed.err);
    // diff shortens a long name to its start: there, only that nothing in it is replaced.
    if (args[0] !== 'diff') assert.ok(/LqPDntDnkk4h2fSqQ8i6CE|Q7mZpL2vRx9KdT4wYbN8sE/.test(printed.out), `${args.join(' ')} prints the file's name as typed:\n${printed.out.slice(0, 400)}`);
    assert.doesNotMatch(printed.out, /REDACTED/, `${args.join(' ')}: ${printed.out.slice(0, 400)}`);
  }
  // A token shape that names itself is still replaced, in the path as anywhere.
  const token = `ghp_${'Ab3dE'.repeat(7)}x`;
  const named = path.join(dir, `run-${token}.eval`);
  fs.copyFileSync(file, named);
  const { out } = await runCli('stats', named);
  assert.ok(!out.includes(token), out.slice(0, 300));
  assert.match(out, /run-\[REDACTED:github-token\]\.eval/);
});
