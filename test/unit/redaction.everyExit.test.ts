// Issue 23 part 3: the secret-shape suite (test/helpers/secretShapes.ts, at least 100 shapes with
// bodies made at test time) placed in text, JSON keys, tool names, file names and an earlier
// compaction's summary, in three formats (chat JSON, Claude Code JSONL, OpenHands events): none
// may reach the fake model's request bodies, the HTML report, --out, ATIF, --json or what the CLI
// prints (compact, search, stats).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { redactSecrets } from '../../src/core/llm/redact';
import { runCli } from '../helpers/cli';
import { startFakeOpenAiServer } from '../helpers/fakeOpenAiServer';
import { tempDir } from '../helpers/paths';
import { leakedFragments } from '../helpers/seededSecrets';
import { MUST_SURVIVE, secretShapes, type SecretShape } from '../helpers/secretShapes';

const SHAPES = secretShapes();
/** Short enough for a file name, and a shape the rules know. */
const IN_FILE_NAME = SHAPES.find((s) => s.name === 'GitHub classic PAT')!;

function leaked(text: string): string[] {
  // Outputs are often JSON: look for each secret as written and as JSON escapes it.
  return SHAPES.filter((s) => leakedFragments(text, s.secret).length > 0 || leakedFragments(text, JSON.stringify(s.secret).slice(1, -1)).length > 0).map((s) => s.name);
}

/**
 * Every shape as text and in an earlier summary; every token that names itself (a known prefix) also
 * as a JSON key in tool arguments, as a tool name and in a file path. (A password or a prefix-less
 * value is a secret only beside its `password=` or in its URL, so it goes in text only.)
 */
function placements(s: SecretShape, i: number) {
  const selfNamed = s.where === 'text';
  return {
    text: `${s.text}\nexit code 0`,
    args: JSON.stringify(selfNamed ? { [s.secret]: 'value', path: `/srv/${s.secret}/config` } : { command: `cat config/${i}.${s.where}` }),
    tool: selfNamed ? s.secret : 'bash',
    file: selfNamed ? `cat /home/ada/${s.secret}.txt  # ${i}` : `cat config/${i}.${s.where}`,
  };
}
const EARLIER_SUMMARY = `Summary of the earlier work: the agent configured the deploy with these values:\n${SHAPES.map((s) => s.text).join('\n')}`;

function chatFile(dir: string): string {
  const messages: Record<string, unknown>[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: `This session continues an earlier one. ${EARLIER_SUMMARY}` },
  ];
  SHAPES.forEach((s, i) => {
    const p = placements(s, i);
    messages.push({ role: 'assistant', content: p.file, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: p.tool, arguments: p.args } }] });
    messages.push({ role: 'tool', tool_call_id: `c${i}`, content: p.text });
  });
  messages.push({ role: 'assistant', content: 'Deployed.' });
  const file = path.join(dir, `chat-${IN_FILE_NAME.secret}.json`);
  fs.writeFileSync(file, JSON.stringify(messages));
  return file;
}

function claudeCodeFile(dir: string): string {
  const base = { isSidechain: false, userType: 'external', cwd: '/work', sessionId: 's1', version: '2.0.13' };
  const lines: unknown[] = [];
  let n = 0;
  const uuid = () => `u${++n}`;
  lines.push({ ...base, type: 'user', uuid: uuid(), timestamp: '2026-01-01T00:00:00Z', message: { role: 'user', content: 'Deploy the app.' } });
  lines.push({ ...base, type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', uuid: uuid(), timestamp: '2026-01-01T00:00:01Z', compactMetadata: { trigger: 'auto', preTokens: 150000 } });
  lines.push({ ...base, type: 'user', isCompactSummary: true, uuid: uuid(), timestamp: '2026-01-01T00:00:02Z', message: { role: 'user', content: `This session is being continued from a previous conversation. ${EARLIER_SUMMARY}` } });
  SHAPES.forEach((s, i) => {
    const p = placements(s, i);
    lines.push({ ...base, type: 'assistant', uuid: uuid(), timestamp: '2026-01-01T00:01:00Z', message: { id: `msg_${i}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: p.file }, { type: 'tool_use', id: `toolu_${i}`, name: p.tool, input: JSON.parse(p.args) }] } });
    lines.push({ ...base, type: 'user', uuid: uuid(), timestamp: '2026-01-01T00:01:01Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: p.text }] } });
  });
  const file = path.join(dir, 'session.jsonl');
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return file;
}

function openHandsFile(dir: string): string {
  const events: unknown[] = [];
  let id = 0;
  const at = '2026-01-01T00:00:00';
  events.push({ id: id++, timestamp: at, source: 'user', message: 'Deploy the app.', action: 'message', args: { content: 'Deploy the app.', image_urls: null, wait_for_response: false } });
  events.push({ id: id++, timestamp: at, source: 'agent', message: 'Condensed', action: 'condensation', args: { forgotten_events_start_id: 0, forgotten_events_end_id: 0, summary: EARLIER_SUMMARY, summary_offset: 1 } });
  SHAPES.forEach((s, i) => {
    const p = placements(s, i);
    const callId = `call_${i}`;
    events.push({ id: id++, timestamp: at, source: 'agent', message: p.file, action: 'run', args: { command: p.file, thought: p.text }, tool_call_metadata: { function_name: p.tool, tool_call_id: callId, model_response: { choices: [{ message: { tool_calls: [{ id: callId, type: 'function', function: { name: p.tool, arguments: p.args } }] } }] }, total_calls_in_response: 1 } });
    events.push({ id: id++, timestamp: at, source: 'agent', message: 'ran', observation: 'run', content: p.text, extras: { command: p.file, exit_code: 0 }, cause: id - 2 });
  });
  const file = path.join(dir, 'openhands.json');
  fs.writeFileSync(file, JSON.stringify(events));
  return file;
}

test('redaction suite: at least 100 shapes, each removed from bare text; ids, hashes, images, names and paths survive', () => {
  assert.ok(SHAPES.length >= 100, `${SHAPES.length} shapes`);
  const missed = SHAPES.filter((s) => leakedFragments(redactSecrets(s.text).text, s.secret).length > 0).map((s) => s.name);
  assert.deepEqual(missed, []);
  for (const text of MUST_SURVIVE) assert.equal(redactSecrets(text).text, text);
});

const FORMATS = [['chat JSON', chatFile], ['Claude Code JSONL', claudeCodeFile], ['OpenHands events', openHandsFile]] as const;

for (const [label, make] of FORMATS) {
  test(`redaction suite (${label}): no shape reaches the model, --out, --html, ATIF, --json or the printed output`, { timeout: 240_000 }, async () => {
    const dir = tempDir('atl-every-exit-');
    const file = make(dir);
    // The file holds every shape in every place (else this test proves nothing).
    assert.equal(leaked(fs.readFileSync(file, 'utf8')).length, SHAPES.length);

    const server = await startFakeOpenAiServer();
    try {
      server.defaultReply = { kind: 'tool', arguments: JSON.stringify({ summary: 'The agent deployed the app.', user_context: 'deploy', completed_tasks: 'deploy', pending_tasks: 'none', current_state: 'done' }) };
      const exits: Record<string, string> = {};
      for (const strategy of ['openhands-summary', 'observation-masking']) {
        const out = path.join(dir, `${strategy}.out.json`);
        const html = path.join(dir, `${strategy}.html`);
        const r = await runCli('compact', file, '--strategy', strategy, '--base-url', server.baseUrl, '--yes', '--out', out, '--html', html, '--show-prompt');
        assert.ok(r.code === 0 || r.code === 3, r.err);
        exits[`${strategy} --out`] = fs.readFileSync(out, 'utf8');
        exits[`${strategy} --html`] = fs.readFileSync(html, 'utf8');
        exits[`${strategy} printed`] = r.out + r.err;
        const j = await runCli('compact', file, '--strategy', strategy, '--base-url', server.baseUrl, '--yes', '--json', '--show-prompt');
        exits[`${strategy} --json`] = j.out + j.err;
      }
      const offline = await runCli('compact', file, '--strategy', 'openhands-structured');
      exits['offline compact printed'] = offline.out + offline.err;
      const atif = path.join(dir, 'out.atif.json');
      assert.equal((await runCli('convert', file, '--to', 'atif', '--out', atif)).code, 0);
      exits['convert --to atif --out'] = fs.readFileSync(atif, 'utf8');
      exits['convert --to atif (stdout)'] = (await runCli('convert', file, '--to', 'atif')).out;
      exits['stats --json'] = (await runCli('stats', file, '--json')).out;
      exits['stats'] = (await runCli('stats', file)).out;
      exits['search'] = (await runCli('search', file, 'exit code')).out;
      exits['search --json'] = (await runCli('search', file, 'exit', '--json')).out;
      exits['diff'] = (await runCli('diff', file, file)).out;
      exits['diff --json'] = (await runCli('diff', file, file, '--json')).out;
      exits['model requests'] = server.requests.map((r) => JSON.stringify(r.body)).join('\n');
      assert.ok(server.requests.length >= 1, 'the model was asked');

      const leaks = Object.entries(exits).flatMap(([where, text]) => leaked(text).map((name) => `${where}: ${name}`));
      assert.deepEqual(leaks, []);
      // The prompt line counts what was removed from what was sent.
      assert.match(exits['openhands-summary printed'], /redacted\s+([1-9]\d*) in the prompt sent/);
    } finally {
      await server.close();
    }
  });
}

test('redaction suite: --no-redact keeps search and stats output as the log has it', async () => {
  const dir = tempDir('atl-every-exit-');
  const file = chatFile(dir);
  const plain = await runCli('search', file, 'exit code', '--no-redact');
  assert.ok(leaked(plain.out).length > 50, 'search --no-redact prints the log as it is');
  const stats = await runCli('stats', file, '--json', '--no-redact');
  assert.ok(leaked(stats.out).includes(IN_FILE_NAME.name), 'stats --no-redact keeps the file name');
});
