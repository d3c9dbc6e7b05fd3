import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Step } from '../../src/core/model';
import { forTerminal, plainLabel } from '../../src/core/output/terminal';
import { oneLine, stepLabel, stepPreview } from '../../src/core/view/stepPresentation';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/paths';

// Issue 14, "clean output": what a log carries (tool names, summaries, titles, file names) reaches
// the terminal with its escape sequences, C1 controls and bidi overrides shown, not obeyed.

const CLEAR = '\u001b[2J\u001b[H';
const CLIPBOARD = '\u001b]52;c;cm0gLXJmIH4K\u0007'; // OSC 52: writes "rm -rf ~" to the clipboard
const TITLE = '\u001b]0;owned\u001b\\'; // OSC 0 ended by ST
const BIDI = '\u202eexe.txt\u202c and \u2066isolated\u2069';
const C1 = '\u009b31mred\u009d0;t\u009c';
const PAYLOADS = [CLEAR, CLIPBOARD, TITLE, BIDI, C1];

/** Anything a terminal would act on: ESC, BEL, other C0 but \n and \t, C1, bidi controls. */
// eslint-disable-next-line no-control-regex
const ACTIVE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

function hostileTrajectory(): string {
  const tool = `bash${CLEAR}${TITLE}`;
  const chat = [
    { role: 'system', content: `You are a coding agent.${C1}` },
    { role: 'user', content: `Fix the card test ${BIDI}` },
    { role: 'assistant', content: `Looking ${CLIPBOARD}`, tool_calls: [{ id: 'call_1', type: 'function', function: { name: tool, arguments: JSON.stringify({ command: `printf '${CLEAR}'` }) } }] },
    { role: 'tool', tool_call_id: 'call_1', content: `error: test failed ${CLIPBOARD}${TITLE}\nexit code 1` },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_2', type: 'function', function: { name: `edit${C1}`, arguments: '{"path":"card.py"}' } }] },
    { role: 'tool', tool_call_id: 'call_2', content: `ok ${BIDI}` },
    { role: 'assistant', content: `Fixed it ${CLEAR}` },
    { role: 'user', content: `Run everything ${TITLE}` },
    { role: 'assistant', content: 'All pass.' },
  ];
  const file = path.join(tempDir('atl-term-'), `evil\u202egnp.json`);
  fs.writeFileSync(file, JSON.stringify(chat));
  return file;
}

function assertInert(text: string, where: string): void {
  const m = ACTIVE.exec(text);
  assert.equal(m, null, `${where}: U+${m?.[0].charCodeAt(0).toString(16).padStart(4, '0')} reached the terminal at ${m?.index}`);
}

test('terminal: forTerminal shows every control and bidi character as \\uXXXX and keeps newlines, tabs and text', () => {
  assert.equal(forTerminal(`a\tb\nc ${CLEAR}`), 'a\tb\nc \\u001b[2J\\u001b[H');
  assert.equal(forTerminal(CLIPBOARD), '\\u001b]52;c;cm0gLXJmIH4K\\u0007');
  assert.equal(forTerminal('\u202eabc\u2069'), '\\u202eabc\\u2069');
  assert.equal(forTerminal('\u0085\u009b\r\u007f'), '\\u0085\\u009b\\u000d\\u007f');
  assert.equal(forTerminal('plain ünïcode — 漢字 😀 \u05d0\u05d1'), 'plain ünïcode — 漢字 😀 \u05d0\u05d1');
  for (const p of PAYLOADS) assertInert(forTerminal(p), JSON.stringify(p));
  // Inside a JSON string the escapes are JSON's own: the value reads back unchanged.
  const json = JSON.stringify({ name: `x${C1}${BIDI}` });
  assert.equal((JSON.parse(forTerminal(json)) as { name: string }).name, `x${C1}${BIDI}`);
});

test('terminal: stats (text and --json) prints tool names, titles and the file name inert', async () => {
  const file = hostileTrajectory();
  const text = await runCli('stats', file);
  assert.equal(text.code, 0, text.err);
  assertInert(text.out, 'stats');
  assert.ok(text.out.includes('bash\\u001b[2J\\u001b[H\\u001b]0;owned\\u001b\\'), 'the tool name is shown, its escapes visible');
  assert.ok(text.out.includes('evil\\u202egnp.json'), 'the file name with its override shown');
  const json = await runCli('stats', file, '--json');
  assert.equal(json.code, 0, json.err);
  assertInert(json.out, 'stats --json');
  const parsed = JSON.parse(json.out) as { tools: Record<string, number> };
  assert.ok(`bash${CLEAR}${TITLE}` in parsed.tools, 'the JSON still holds the exact name');
  assert.ok(`edit${C1}` in parsed.tools);
});

test('terminal: compact (text, --json, --show-prompt) prints summaries and warnings inert', async () => {
  const file = hostileTrajectory();
  for (const strategy of ['openhands-summary', 'observation-masking', 'katalyst-chat']) {
    const text = await runCli('compact', file, '--strategy', strategy, '--show-prompt');
    assert.equal(text.code, 0, `${strategy}: ${text.err}`);
    assertInert(text.out, `compact ${strategy}`);
    assertInert(text.err, `compact ${strategy} (stderr)`);
    const json = await runCli('compact', file, '--strategy', strategy, '--json', '--show-prompt');
    assert.equal(json.code, 0, json.err);
    assertInert(json.out, `compact ${strategy} --json`);
    JSON.parse(json.out);
  }
  // Converted to ATIF on standard output: inert, and the document keeps the exact names.
  const atif = await runCli('convert', file, '--to', 'atif');
  assertInert(atif.out, 'convert');
  const doc = JSON.parse(atif.out) as { steps: { tool_calls?: { function_name: string }[] }[] };
  assert.deepEqual(doc.steps.flatMap((s) => s.tool_calls ?? []).map((c) => c.function_name), [`bash${CLEAR}${TITLE}`, `edit${C1}`]);
});

test('terminal: an error message naming a hostile file is inert too', async () => {
  const dir = tempDir('atl-term-');
  const missing = path.join(dir, `gone${CLEAR}.json`);
  const r = await runCli('stats', missing);
  assert.equal(r.code, 2);
  assertInert(r.err, 'error');
  assert.match(r.err, /gone\\u001b\[2J/);
});

test('terminal: tree labels and descriptions drop colour codes, controls and bidi marks', () => {
  const step = (over: Partial<Step>): Step => ({ index: 0, kind: 'tool_call', text: '', ...over } as Step);
  assert.equal(plainLabel(`\u001b[31mred\u001b[0m ${TITLE}title ${CLIPBOARD}x \u202eevil\u202c \u009b1mC1`), 'red title x evil C1');
  assert.equal(stepLabel(step({ tool: { name: `\u001b[1;32mbash\u001b[0m${CLEAR}`, args: '{}', callId: 'c' } })), 'tool call · bash');
  assert.equal(stepLabel(step({ kind: 'tool_result', toolName: `edit\u2066\u009b31m` })), 'observation · edit');
  const preview = stepPreview(step({ kind: 'assistant', text: `Done${CLEAR}\n\n\u001b[33mwarning\u001b[0m: ${BIDI}` }), 80);
  assertInert(preview, 'preview');
  assert.equal(preview, 'Done warning: exe.txt and isolated');
  assert.equal(oneLine(`a\u200fb\u061cc`, 10), 'abc');
});
