import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadTrajectory, parseTrajectoryText } from '../../src/core/open';
import { coverageWarning, describeCoverage, skippedCount } from '../../src/core/io/coverage';
import { computeStats } from '../../src/core/stats';
import { corpus, fixture, REPO_ROOT } from '../helpers/paths';
import { loadRun, parseRunText } from '../helpers/runs';

// Issue 20 §4: every open says what the reader did not understand.

const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures');

test('coverage: every record of a Claude Code session is either read into a step or named as skipped', async () => {
  const t = await loadRun(corpus('claude-code/crud.jsonl'));
  const c = t.coverage!;
  assert.equal(c.records, fs.readFileSync(corpus('claude-code/crud.jsonl'), 'utf8').trim().split('\n').length);
  assert.equal(c.read + skippedCount(c), c.records, 'no record unaccounted for');
  // The session's file-history snapshots are bookkeeping: skipped, by their type name.
  const snapshots = fs.readFileSync(corpus('claude-code/crud.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"type":"file-history-snapshot"')).length;
  assert.ok(snapshots > 0);
  assert.equal(c.skipped['file-history-snapshot'], snapshots);
  assert.equal(c.unpairedCalls, 0, 'every call in this session has its result');
  assert.equal(c.unpairedResults, 0);
});

test('coverage: a record the adapter skips on purpose carries its name and counts as named', async () => {
  const t = await loadRun(corpus('codex/crud.jsonl'));
  const c = t.coverage!;
  const tokenLines = fs.readFileSync(corpus('codex/crud.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"type":"token_count"')).length;
  assert.ok(tokenLines > 0);
  assert.equal(c.skipped['token_count (usage)'], tokenLines);
  assert.ok(c.named >= tokenLines, `named ${c.named}`);
  assert.equal(c.read + skippedCount(c), c.records);
});

test('coverage: stats prints it, stats --json carries it, and more than 1% skipped is a warning', async () => {
  const t = await loadTrajectory(corpus('claude-code/compact.jsonl'));
  const s = computeStats(t);
  assert.deepEqual(Object.keys(s.coverage!).sort(), ['named', 'read', 'records', 'skipped', 'unlocatedSteps', 'unpairedCalls', 'unpairedResults']);
  const warning = coverageWarning(t.coverage!);
  assert.ok(warning && /records \(\d+%\) became no step: .*file-history-snapshot.*; 1 of them of a kind the reader does not know\.$/.test(warning), warning);
  assert.ok(s.warnings.includes(warning!));
  assert.match(describeCoverage(t.coverage!), /^read \d+ of \d+ records into steps; skipped \d+ file-history-snapshot/);
});

test('coverage: an event stream whose skipped records the reader all names says so in its warning, not only that they became no step', async () => {
  // OpenCode's event stream: 85 of 107 rows are a part's earlier states, usage read onto a step, session bookkeeping.
  const t = await loadTrajectory(fixture('opencode-events/traceforge-db-events.jsonl'));
  assert.equal(t.coverage!.named, skippedCount(t.coverage!));
  assert.match(coverageWarning(t.coverage!) ?? '', /^85 of 107 records \(79%\) became no step, each of a kind the reader names .*: 34 message\.part\.updated \(an earlier state/);
});

test('coverage: a run read whole has no coverage warning', async () => {
  const t = await loadTrajectory(corpus('mini-swe-agent/sphinx-doc__sphinx-9711.traj.json'));
  assert.equal(t.coverage!.read, t.coverage!.records);
  assert.equal(coverageWarning(t.coverage!), undefined);
  assert.ok(!computeStats(t).warnings.some((w) => w.includes('became no step')));
});

test('coverage: calls without results and results without calls are counted', () => {
  const messages = [
    { role: 'user', content: 'list files' },
    { role: 'assistant', content: null, tool_calls: [
      { id: 'a', type: 'function', function: { name: 'ls', arguments: '{}' } },
      { id: 'b', type: 'function', function: { name: 'cat', arguments: '{}' } },
    ] },
    { role: 'tool', tool_call_id: 'a', content: 'x.txt' },
    { role: 'tool', tool_call_id: 'zzz', content: 'from nowhere' },
  ];
  const t = parseTrajectoryText(JSON.stringify(messages), { path: 'chat.json', size: 1 });
  assert.equal(t.coverage!.unpairedCalls, 1, 'call b has no result');
  assert.equal(t.coverage!.unpairedResults, 1, 'result zzz answers no call');
  assert.match(describeCoverage(t.coverage!), /1 call without a result; 1 result without a call/);
});

test('coverage: a file of many runs counts runs as its records', async () => {
  const t = await loadTrajectory(corpus('openhands-eval/output.jsonl'));
  assert.equal(t.coverage!.records, t.runs!.length);
  assert.equal(t.coverage!.read, t.runs!.filter((r) => r.steps.length > 0).length);
});

test('coverage: fixtures of every format account for all their records', async () => {
  for (const dir of fs.readdirSync(FIXTURES)) {
    const folder = path.join(FIXTURES, dir);
    if (!fs.statSync(folder).isDirectory() || dir === 'entities' || dir === 'facts') continue;
    for (const name of fs.readdirSync(folder)) {
      const file = path.join(folder, name);
      let t;
      try {
        t = await loadRun(file);
      } catch {
        continue; // not every fixture is a trajectory on its own (Cline metadata, READMEs)
      }
      const c = t.coverage!;
      assert.ok(c, file);
      assert.equal(c.read + skippedCount(c), c.records, file);
    }
  }
});

test('coverage: Gemini CLI model turns recorded as `type: "model"` (API parts, no id) are read; other items are named', async () => {
  // The real hello-world session, its reply written as some versions write the model's turns.
  const session = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'gemini-cli', 'session-hello-world.json'), 'utf8')) as { messages: Record<string, unknown>[] };
  const reply = session.messages.find((m) => m.type === 'gemini')!;
  const text = String(reply.content);
  const { id: _id, content: _content, ...rest } = reply;
  session.messages = [session.messages[0], { ...rest, type: 'model', parts: [{ text }] }, { type: 'checkpoint', tag: 'before-edit' }];
  const t = parseRunText(JSON.stringify(session), { path: 'session-model-turns.json', size: 0 });
  assert.equal(t.format, 'gemini-cli');
  assert.equal(t.steps.find((s) => s.kind === 'assistant')?.text, text);
  const c = t.coverage!;
  assert.equal(c.read + skippedCount(c), c.records);
  assert.equal(c.skipped['checkpoint (not a message)'], 1);
  assert.equal(c.skipped.model, undefined, 'the model turn is read, not skipped');
});

test('coverage: a Claude Code tool_use without an id pairs by position only where the log carries no ids at all', async () => {
  const lines = fs.readFileSync(corpus('claude-code/crud.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { message?: { content?: unknown } });
  const blocks = (l: { message?: { content?: unknown } }) => (Array.isArray(l.message?.content) ? (l.message.content as Record<string, unknown>[]) : []);
  const calls = lines.flatMap(blocks).filter((b) => b.type === 'tool_use');
  assert.ok(calls.length >= 2);
  const text = (ls: unknown[]) => ls.map((l) => JSON.stringify(l)).join('\n');
  const read = (ls: unknown[], name: string) => parseRunText(text(ls), { path: name, size: 0 }).coverage!;

  // One call and its result lose their ids, the others keep theirs: that pair is not guessed.
  const oneId = String(calls[0].id);
  const someIds = structuredClone(lines);
  for (const b of someIds.flatMap(blocks)) {
    if (b.type === 'tool_use' && b.id === oneId) delete b.id;
    if (b.type === 'tool_result' && b.tool_use_id === oneId) delete b.tool_use_id;
  }
  const partial = read(someIds, 'some-ids.jsonl');
  assert.equal(partial.unpairedCalls, 1);
  assert.equal(partial.unpairedResults, 1);

  // No ids anywhere: calls and results pair by position, as the log leaves nothing else.
  for (const b of someIds.flatMap(blocks)) {
    if (b.type === 'tool_use') delete b.id;
    if (b.type === 'tool_result') delete b.tool_use_id;
  }
  const none = read(someIds, 'no-ids.jsonl');
  assert.equal(none.unpairedCalls, 0);
  assert.equal(none.unpairedResults, 0);
});

test('coverage: the action that closes an OpenHands run (finish) expects no observation and is not an unpaired call', async () => {
  for (const file of ['openhands-v0/basic.json', 'openhands-v0/basic_interactions.json', 'openhands-eval/output.jsonl']) {
    const t = await loadTrajectory(corpus(file));
    assert.equal(t.coverage!.unpairedCalls, 0, file);
  }
  const t = await loadRun(corpus('openhands-v0/basic.json'));
  const finish = t.steps.find((s) => s.kind === 'tool_call' && s.tool?.name === 'finish');
  assert.equal(finish?.tool?.expectsNoResult, true);
  // A call that is not the closing one still counts when its observation is missing.
  const events = JSON.parse(fs.readFileSync(corpus('openhands-v0/basic.json'), 'utf8')) as { observation?: string }[];
  const withoutObservation = events.filter((e) => e.observation === undefined);
  const cut = parseRunText(JSON.stringify(withoutObservation), { path: 'basic-cut.json', size: 0 });
  assert.equal(cut.format, 'openhands-v0');
  assert.equal(cut.coverage!.unpairedCalls, 1, 'the edit without its observation');
});

test('coverage: the calls a log ends on are pending, not unpaired; a call the agent went on past is unpaired', () => {
  const call = (id: string) => ({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'bash', arguments: '{"cmd":"ls"}' } }] });
  const answer = (id: string) => ({ role: 'tool', tool_call_id: id, content: 'ok' });
  const endsOnCall = [{ role: 'user', content: 'list' }, call('a'), answer('a'), call('b')];
  const stopped = parseTrajectoryText(JSON.stringify(endsOnCall), { path: 'stopped.json', size: 0 });
  assert.equal(stopped.coverage!.unpairedCalls, 0);
  assert.equal(stopped.coverage!.pendingCalls, 1);
  assert.match(describeCoverage(stopped.coverage!), /1 call the log ends before answering/);
  const skipped = [...endsOnCall, { role: 'assistant', content: 'Done.' }];
  const after = parseTrajectoryText(JSON.stringify(skipped), { path: 'skipped.json', size: 0 });
  assert.equal(after.coverage!.unpairedCalls, 1, 'the agent replied after it: its result is missing');
  assert.equal(after.coverage!.pendingCalls, undefined);
});
