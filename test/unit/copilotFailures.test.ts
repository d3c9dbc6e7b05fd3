import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { findStrategy, runCompaction } from '../../src/core/compaction';
import { extractFacts } from '../../src/core/compaction/extract';
import { commandEffect } from '../../src/core/compaction/facts/calls';
import { charEstimateCounter } from '../../src/core/tokens/counter';
import { parseRunText } from '../helpers/runs';
import { runCli } from '../helpers/cli';
import { fixture } from '../helpers/paths';

// GitHub Copilot's agent in VS Code on Windows (a real session-state events.jsonl, sweep 7; its
// licence keeps it out of the repository, so the shape is rebuilt here with texts of ours): the
// shell tool runs through pwsh, which was missing, and each call failed with `success: false` and
// the harness's `<exited with error: …>`. The summary said "checked: … (→ operable program or
// batch file.)" and "TESTS: (no test or error in these steps)"; the deletion the task needed
// never happened.
function copilotEvents(): string {
  let n = 0;
  const ev = (type: string, data: object) => JSON.stringify({ type, data, id: `e${n}`, timestamp: `2026-04-02T04:40:${String(10 + n++).padStart(2, '0')}.000Z` });
  const failure = "<exited with error: PowerShell 6+ (pwsh) is not available. Please install it from https://aka.ms/powershell. Error: Error: Command failed: pwsh.exe --version\n'pwsh.exe' is not recognized as an internal or external command,\r\noperable program or batch file.\r\n>";
  const command = 'Remove-Item -Path "C:\\notes\\old draft.md" -Force';
  return [
    ev('session.start', { sessionId: 's1', selectedModel: 'claude-haiku-4.5', context: { cwd: 'C:\\notes' } }),
    ev('user.message', { content: 'Rename old draft.md to draft.md: write the new file, then delete the old one.' }),
    ev('assistant.message', { messageId: 'm1', model: 'claude-haiku-4.5', content: '', toolRequests: [{ toolCallId: 't1', name: 'powershell', arguments: { command, description: 'Delete the old file' }, type: 'function' }] }),
    ev('tool.execution_start', { toolCallId: 't1', toolName: 'powershell', arguments: { command } }),
    ev('tool.execution_complete', { toolCallId: 't1', model: 'claude-haiku-4.5', success: false, error: { message: failure, code: 'failure' } }),
    ev('assistant.message', { messageId: 'm2', model: 'claude-haiku-4.5', content: 'The old file is gone.', toolRequests: [] }),
  ].join('\n');
}

test('copilot: a shell call that failed with `<exited with error: …>` is a failed change with its message, in the facts and the summary', async () => {
  const run = parseRunText(copilotEvents(), { path: 'events.jsonl', size: 0, modified: 0 });
  const facts = extractFacts(run, run.steps.map((s) => s.index));
  const [remove] = facts.commands;
  assert.equal(remove.effect, 'change', 'Remove-Item deletes a file');
  assert.equal(remove.ok, false);
  assert.ok(remove.outcome.startsWith('failed: PowerShell 6+ (pwsh) is not available. Please install it'), `was: "→ operable program or batch file."; now: ${remove.outcome}`);
  assert.ok(facts.errors[0]?.text.startsWith('PowerShell 6+ (pwsh) is not available.'), JSON.stringify(facts.errors));
  const r = await runCompaction(run, { strategy: findStrategy('openhands-summary')!, range: '0:-2' }, { counter: charEstimateCounter });
  assert.match(r.summary!, /^TESTS:\n {2}- PowerShell 6\+ \(pwsh\) is not available\./m);
  assert.match(r.summary!, /^CHANGES:\n {2}- Remove-Item -Path "C:\\notes\\old draft\.md" -Force \(failed: PowerShell 6\+/m);
  assert.doesNotMatch(r.summary!, /operable program or batch file/);
});

test('PowerShell commands are classed by effect: Remove-Item, Set-Content, New-Item and Move-Item change files; Get-ChildItem only looks', () => {
  for (const c of ['Remove-Item -Path a.md -Force', 'Set-Content notes.md "x"', 'New-Item -ItemType File b.md', 'Move-Item a.md b.md', 'del a.md', 'Copy-Item a b']) assert.equal(commandEffect(c), 'change', c);
  assert.equal(commandEffect('Get-ChildItem -Filter "*draft*" | Select-Object Name'), 'read');
});

test('copilot: the system prompt and tool definitions the shutdown records are in every replayed request, so the replay bills what the log did', async () => {
  // A real session (test/fixtures/SOURCES.md): two calls, $0.104 as recorded; 23,627 of each prompt's
  // 24,166 tokens are the system prompt and tool definitions, which the log counts but does not hold.
  const { code, out, err } = await runCli('simulate', fixture('copilot-cli/events.jsonl'), '--strategy', 'openhands-summary', '--json');
  assert.equal(code, 0, err);
  const r = JSON.parse(out) as { bill: { cost: number; modelled: number; difference: number }; notes: string[] };
  assert.ok(Math.abs(r.bill.difference) < 0.1, `modelled $${r.bill.modelled} against $${r.bill.cost} recorded (was −95% without the hidden prompt)`);
  assert.ok(r.notes.some((n) => n.includes('every request also carries the 23,627 tokens of the system prompt (10,530) and tool definitions (13,097) Copilot\'s session.shutdown records')), r.notes.join('\n'));
});
