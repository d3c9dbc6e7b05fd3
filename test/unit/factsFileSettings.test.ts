import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { test } from 'node:test';
import { findStrategy, runCompaction } from '../../src/core/compaction';
import { settingsOf } from '../../src/core/compaction/facts/fileSettings';
import { loadTrajectory } from '../../src/core/open';
import { charEstimateCounter } from '../../src/core/tokens/counter';
import { fixture, REPO_ROOT } from '../helpers/paths';
import { loadRun } from '../helpers/runs';

// A Codex run (EdouardZemb/test-framework) reads its agent's config and its sprint status; it then
// answers in French and picks the story in review. The files' first lines are comments.
const RUN = path.join(REPO_ROOT, 'wild', 'files', 'EdouardZemb__test-framework', 'rollout-2026-02-04T20-56-42-019c2a3a-7de1-7c11-8099-326909cfa51a.jsonl');

test('a summary with room left says what the configuration files read set', async () => {
  const run = (await loadTrajectory(RUN)).runs[0];
  const summary = (await runCompaction(run, { strategy: findStrategy('openhands-summary')!, range: '0:-2' }, { counter: charEstimateCounter })).summary ?? '';
  assert.match(summary, /_bmad\/bmm\/config\.yaml sets: .*user_name: Edouard · communication_language: French/);
  // Forty stories in `backlog`; the one in `review` is what the agent works on next.
  assert.match(summary, /sprint-status\.yaml sets: .*0-1-configurer-un-projet-via-config-yaml: review/);
  assert.ok(!/sets: .*0-2-definir/.test(summary), 'a story in backlog is not news');
});

test('settings: scalar values only, comments cut off, secrets never, and only from configuration files', () => {
  const env = 'DATABASE_URL=postgres://db/app\nOPENAI_API_KEY=sk-live-123\nSESSION_SECRET=abc\nDEBUG=true\n';
  assert.deepEqual(settingsOf('.env', env), ['DATABASE_URL: postgres://db/app', 'DEBUG: true']);
  const yaml = '# generated\nname: dev-story\nstory_file: "" # auto-discovered if empty\nvars: {a: 1}\nintent: Add the docstring\n  without changing behavior\nconstraints:\n- No renames\n- "Keep it short"\n';
  assert.deepEqual(settingsOf('workflow.yaml', yaml), ['name: dev-story', 'intent: Add the docstring without changing behavior', 'constraints: No renames; Keep it short']);
  // The rows of a list of records are data: `- type: plan_step` and its fields are no settings.
  assert.deepEqual(settingsOf('plan.yaml', 'actions:\n- type: plan_step\n  index: 1\n  summary: Review it\nmodel: codex\n'), ['model: codex']);
  assert.deepEqual(settingsOf('package.json', '{\n  "name": "atl",\n  "version": "0.1.0",\n  "scripts": {\n    "test": "node --test"\n  }\n}'), ['name: atl', 'version: 0.1.0', 'test: node --test']);
  // Numbered as a read tool prints it.
  assert.deepEqual(settingsOf('pyproject.toml', '     1→[project]\n     2→requires-python = ">=3.11"\n'), ['requires-python: >=3.11']);
  assert.deepEqual(settingsOf('app.py', 'DEBUG = True\n'), []);
  // A value still a template is not what the setting is.
  assert.deepEqual(settingsOf('config.yaml', 'project_knowledge: "{project-root}/docs"\nuser_name: Edouard\n'), ['user_name: Edouard']);
  // A task file's front matter, as Kimi's ReadFile numbers it; the body is not read.
  const task = '<system>3 lines read</system>\n     1\t---\n     2\tid: T-20260602-doc-link-audit\n     3\tstatus: ready\n     4\t---\n     5\tnote: body\n';
  assert.deepEqual(settingsOf('tasks/T-20260602-doc-link-audit.md', task), ['id: T-20260602-doc-link-audit', 'status: ready']);
  assert.deepEqual(settingsOf('README.md', '# Title\nkey: value\n'), []);
});

test('npm scripts whose names hold a colon keep their whole name, and a JSON value is read with its escapes', async () => {
  // The root package.json of a real Cline task (tomjnsn/agentlogs), as Cline's read_file returned it.
  const run = await loadRun(fixture('cline/agentlogs-feedback-after-completion.json'));
  const read = run.steps.find((s) => s.kind === 'tool_result' && s.text.startsWith("[read_file for 'package.json'] Result:"))!;
  const lines = settingsOf('package.json', read.text, 20);
  assert.ok(lines.some((l) => /^dev:docs: docker run --rm -it -p 3333:3333 -v "\$\(pwd\)\/docs:\/app"/.test(l)), lines.join('\n'));
  assert.ok(lines.includes('db:generate: bun --cwd packages/web db:generate'), lines.join('\n'));
  assert.ok(!lines.some((l) => /^(?:dev|db): (?:docs|generate)"/.test(l)), 'not cut at the colon inside the name');
});
