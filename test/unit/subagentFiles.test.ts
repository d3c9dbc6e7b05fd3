import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { toAtif } from '../../src/core/formats/atifExport';
import { describeCoverage } from '../../src/core/io/coverage';
import { turnsOf } from '../../src/core/steps';
import { fixture, tempDir } from '../helpers/paths';
import { loadRun, parseRunText } from '../helpers/runs';

// Logs that keep a subagent in a file of its own beside them: Claude Code 2.1 and Harbor.

test('claude-code 2.1: a Task subagent kept in <session>/subagents/agent-<id>.jsonl is read into a branch, between its call and its result', async () => {
  const session = fixture('claude-code/copilot-chat-parallel-tasks.jsonl');
  const run = await loadRun(session);
  const branch = run.steps.filter((s) => s.branch === 'ac47f8c');
  assert.equal(branch.length, 6, 'the subagent file\'s six steps');
  const subFile = fixture('claude-code/b3a7bd3c-5a10-4e7b-8ff0-7fc0cd6d1093/subagents/agent-ac47f8c.jsonl');
  assert.ok(branch.every((s) => s.location?.file === subFile), 'each step says which file its record is in');
  // The call the result line names (toolUseResult.agentId) started it; its result follows the branch.
  const call = run.steps.find((s) => s.kind === 'tool_call' && s.tool?.name === 'Task' && /sleep 4/.test(s.tool.args))!;
  const result = run.steps.find((s) => s.answers === call.index)!;
  assert.equal(branch[branch.length - 1].index, result.index - 1);
  assert.ok(branch[0].index > call.index);
  // The subagent's own call is answered inside the branch.
  const subCall = branch.find((s) => s.kind === 'tool_call')!;
  assert.equal(subCall.tool?.name, 'Bash');
  assert.equal(run.steps[run.steps.find((s) => s.answers === subCall.index)!.index].branch, 'ac47f8c');
  // The prompt the main agent gave it is not a turn of the person's.
  assert.equal(branch[0].kind, 'other');
  assert.equal(branch[0].text, 'Run: sleep 4');
  assert.equal(run.steps.filter((s) => s.kind === 'user').length, 1);
  assert.equal(turnsOf(run.steps).length, 1);
  // Numbers stay consistent: every step at its index, every result after its call.
  run.steps.forEach((s, i) => assert.equal(s.index, i));
  for (const s of run.steps) if (s.answers !== undefined) assert.equal(run.steps[s.answers].kind, 'tool_call');
  // Two of the four subagents' files were not kept upstream: the coverage names them.
  const line = describeCoverage(run.coverage!);
  assert.match(line, /1 subagent file read beside it as branches/);
  assert.match(line, /3 subagent files named but not read: b3a7bd3c-5a10-4e7b-8ff0-7fc0cd6d1093\/subagents\/agent-\w+\.jsonl \(not beside the log\)/);
  // Claude Code bills the subagent's calls too, and the session's own lines do not count them.
  const alone = await loadRun(session, { subagentFiles: false });
  assert.equal(alone.steps.length, run.steps.length - 6);
  assert.equal(run.meta.recorded!.outputTokens! - alone.meta.recorded!.outputTokens!, branch.reduce((n, s) => n + (s.usage?.outputTokens ?? 0), 0));
  assert.ok(run.meta.recorded!.outputTokens! > alone.meta.recorded!.outputTokens!);
});

test('claude-code 2.1: converted to ATIF, the subagent stays a branch (Harbor\'s is_sidechain and agent_id)', async () => {
  const run = await loadRun(fixture('claude-code/copilot-chat-parallel-tasks.jsonl'));
  const doc = toAtif(run) as { steps: { extra?: { is_sidechain?: boolean; agent_id?: string } }[] };
  const marked = doc.steps.filter((s) => s.extra?.is_sidechain === true);
  assert.ok(marked.length > 0);
  assert.ok(marked.every((s) => s.extra?.agent_id === 'ac47f8c'));
  const back = parseRunText(JSON.stringify(doc), { path: path.join(tempDir(), 'back.json'), size: 0 });
  assert.equal(back.steps.length, run.steps.length);
  assert.equal(back.steps.filter((s) => s.branch === 'ac47f8c').length, 6);
  assert.equal(back.steps.filter((s) => s.kind === 'tool_call').length, run.steps.filter((s) => s.kind === 'tool_call').length);
});

test('atif: the subagents a Harbor summarization names by trajectory_path are read from the files beside it, after the handoff', async () => {
  const parent = fixture('atif/terminus-2-context-summarization.trajectory.json');
  const run = await loadRun(parent);
  const handoff = run.steps.find((s) => s.kind === 'compaction')!;
  const names = ['summary', 'questions', 'answers'].map((k) => `test-session-context-summarization-summarization-1-${k}`);
  const branches = [...new Set(run.steps.filter((s) => s.branch).map((s) => s.branch))];
  assert.deepEqual(branches, names);
  // All three follow the handoff step that names them, before the run goes on.
  const first = run.steps.findIndex((s) => s.branch);
  const last = run.steps.map((s) => Boolean(s.branch)).lastIndexOf(true);
  assert.equal(first, handoff.index + 1);
  assert.equal(run.steps[last + 1].kind, 'user', 'the answers handed to the next agent');
  assert.equal(run.steps.filter((s) => s.kind === 'user' && !s.branch).length, 2);
  assert.match(describeCoverage(run.coverage!), /3 subagent files read beside it as branches/);
  // Harbor's final metrics already count the subagents' calls: the run's total is not raised.
  assert.deepEqual(run.meta.recorded, { model: 'openai/gpt-4o', inputTokens: 7802, outputTokens: 1030, cachedInputTokens: 0, cost: 0.029804999999999998 });
  assert.equal(run.steps.reduce((n, s) => n + (s.usage?.inputTokens ?? 0), 0), 7802, 'the steps\' usage adds up to it now');
  // Converting the ATIF file gives it back unchanged: the subagents stay in their own files.
  assert.deepEqual(JSON.parse(JSON.stringify(toAtif(run))), JSON.parse(fs.readFileSync(parent, 'utf8')));
});

test('subagent files: a path the log gives that leads out of its folder is never read', () => {
  const dir = fs.mkdtempSync(path.join(tempDir(), 'refs-'));
  const inner = path.join(dir, 'run');
  fs.mkdirSync(inner);
  const sub = { schema_version: 'ATIF-v1.5', session_id: 'sub', agent: { name: 'x', version: '1' }, steps: [{ step_id: 1, source: 'user', message: 'secret' }] };
  fs.writeFileSync(path.join(dir, 'outside.json'), JSON.stringify(sub));
  const refs = ['../outside.json', path.join(dir, 'outside.json'), 'missing.json'].map((p) => ({ session_id: p, trajectory_path: p }));
  const doc = {
    schema_version: 'ATIF-v1.5', session_id: 'main', agent: { name: 'x', version: '1' },
    steps: [{ step_id: 1, source: 'user', message: 'go' }, { step_id: 2, source: 'system', message: 'handoff', observation: { results: [{ subagent_trajectory_ref: refs }] } }],
  };
  const file = path.join(inner, 'trajectory.json');
  fs.writeFileSync(file, JSON.stringify(doc));
  const run = parseRunText(JSON.stringify(doc), { path: file, size: 0 });
  assert.ok(!run.steps.some((s) => s.text === 'secret'));
  assert.equal(run.coverage?.subagentFiles?.read, 0);
  assert.deepEqual(run.coverage?.subagentFiles?.notRead.map((f) => f.path), ['../outside.json', path.join(dir, 'outside.json'), 'missing.json']);
});

test('subagent files: a followed session reads a subagent file again once it changed, and not before', () => {
  const dir = fs.mkdtempSync(path.join(tempDir(), 'follow-'));
  const session = path.join(dir, 'session.jsonl');
  const text = fs.readFileSync(fixture('claude-code/copilot-chat-parallel-tasks.jsonl'), 'utf8');
  fs.writeFileSync(session, text);
  const subDir = path.join(dir, 'b3a7bd3c-5a10-4e7b-8ff0-7fc0cd6d1093', 'subagents');
  fs.mkdirSync(subDir, { recursive: true });
  const subFile = path.join(subDir, 'agent-ac47f8c.jsonl');
  const lines = fs.readFileSync(fixture('claude-code/b3a7bd3c-5a10-4e7b-8ff0-7fc0cd6d1093/subagents/agent-ac47f8c.jsonl'), 'utf8').trimEnd().split('\n');
  // The subagent file as it stood after its first two lines: the prompt and one reply.
  fs.writeFileSync(subFile, lines.slice(0, 2).join('\n') + '\n');
  const read = () => parseRunText(text, { path: session, size: text.length }).steps.filter((s) => s.branch === 'ac47f8c').length;
  const early = read();
  assert.ok(early >= 1);
  assert.equal(read(), early, 'the same file reads the same');
  fs.writeFileSync(subFile, lines.join('\n') + '\n');
  assert.equal(read(), 6, 'the whole file once it was written');
});
