import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { runCli } from '../helpers/cli';
import { corpus } from '../helpers/paths';
import { EXIT } from '../../src/cli/exitCodes';

// Every command answers --help and -h with its own text; a saving below zero reads as extra cost.

const COMMANDS = ['stats', 'simulate', 'compact', 'convert', 'search', 'diff', 'survey'];

test('cli help: every command answers --help and -h with its usage, options, an example and its exit codes', async () => {
  for (const name of COMMANDS) {
    for (const flag of ['--help', '-h']) {
      const r = await runCli(name, flag);
      assert.equal(r.code, 0, `${name} ${flag}: ${r.err}`);
      assert.equal(r.err, '', `${name} ${flag} prints on stdout`);
      assert.match(r.out, new RegExp(`^Usage: agent-trace-lens ${name} `), `${name} ${flag} starts with its own usage`);
      assert.match(r.out, /\nOptions:\n {2}--/, `${name}: options`);
      assert.match(r.out, new RegExp(`\\nExample:\\n {2}agent-trace-lens ${name} `), `${name}: an example of itself`);
      assert.match(r.out, /\nExit codes:\n {2}0 {2}success\n {2}1 {2}wrong usage/, `${name}: exit codes`);
      assert.match(r.out, /\n {2}70 an unexpected error/);
      assert.doesNotMatch(r.out, /Unknown option/);
    }
  }
  // After other arguments too, and a command's exit codes are its own.
  const compact = await runCli('compact', 'some.json', '--strategy', 'x', '--help');
  assert.equal(compact.code, 0);
  assert.match(compact.out, /\n {2}3 {2}a model was asked for/);
  assert.match(compact.out, /\n {2}4 {2}an output was refused/);
  const search = await runCli('search', '-h');
  assert.doesNotMatch(search.out, /\n {2}3 {2}/, 'search never asks a model');
  assert.match((await runCli('help', 'diff')).out, /^Usage: agent-trace-lens diff A B/);
});

test('cli help: the top-level --help lists every command with one line and the exit codes', async () => {
  const r = await runCli('--help');
  assert.equal(r.code, 0);
  for (const name of COMMANDS) assert.match(r.out, new RegExp(`\\n {2}${name} \\S`), name);
  assert.match(r.out, /\n {2}stats FILE\|FOLDER +format/);
  assert.match(r.out, /\n {2}diff A B +compare two runs/);
  assert.match(r.out, /<command> --help/);
  for (const code of Object.values(EXIT)) assert.match(r.out, new RegExp(`\\n {2}${code} +\\S`), `exit code ${code}`);
});

test('cli help: wrong usage of one command prints that command\'s usage, not every command\'s', async () => {
  const r = await runCli('convert', corpus('codex/crud.jsonl'), '--to', 'yaml');
  assert.equal(r.code, EXIT.usage);
  assert.match(r.err, /--to takes atif/);
  assert.match(r.err, /Usage: agent-trace-lens convert FILE/);
  assert.doesNotMatch(r.err, /agent-trace-lens compact FILE/);
});

test('cli simulate: a strategy that costs more reads "costs $X more", never "saved $-X"', async () => {
  const file = corpus('codex/crud.jsonl');
  const json = JSON.parse((await runCli('simulate', file, '--strategy', 'all', '--json')).out);
  const dearer = json.results.filter((r: { cost: { saved: number } | null }) => r.cost && r.cost.saved < 0);
  assert.ok(dearer.length > 0, 'some strategy costs more on this run');
  const text = (await runCli('simulate', file, '--strategy', 'all')).out;
  assert.doesNotMatch(text, /\$-/);
  for (const r of dearer) assert.match(text, new RegExp(`${r.strategy} .*costs \\$[0-9.]+ more`), r.strategy);
  const one = await runCli('simulate', file, '--strategy', dearer[0].strategy);
  assert.doesNotMatch(one.out, /\$-|saves \$-/);
  assert.match(one.out, /costs \$[0-9.]+ more over the run/);
});
