import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { test } from 'node:test';
import { findStrategy, runCompaction } from '../../src/core/compaction';
import { bearingLinesOf, requestTerms } from '../../src/core/compaction/facts/bearing';
import { extractFacts } from '../../src/core/compaction/facts/facts';
import { FILL_SHARE, renderSections } from '../../src/core/compaction/facts/render';
import { loadTrajectory } from '../../src/core/open';
import { charEstimateCounter } from '../../src/core/tokens/counter';
import { builtRun } from '../helpers/builtRuns';
import { REPO_ROOT } from '../helpers/paths';

const builtRunOf = (reply: string) => builtRun((b) => { b.add({ kind: 'assistant', text: reply }); });

// Lines that only fill the room a summary has left (issue 22): what results showed that names the
// person's own terms, and what the agent stated between its calls. They never push out a line
// that was there without them, and never take a summary past FILL_SHARE of what it replaces.

const wild = (rel: string) => path.join(REPO_ROOT, 'wild', 'files', rel);
const ENDPOINT = 'dfinson__traceforge/openhands/demo_issue_tracker_get_endpoint.jsonl';
const WORKTREE = 'randlee__claude-history/agents/agent-aae161c.jsonl';

test("the person's terms are the request's identifiers, file names, routes and numbers, not its words", () => {
  const terms = requestTerms(['Add a `GET /tickets/{ticket_id}` endpoint to this FastAPI app that returns the matching ticket, or HTTP 404 if none. In 2025 see https://example.com/a/b and src/cmd/export.go; fix QF1003 in extractTextContent.']);
  for (const t of ['ticket_id', '/tickets/{ticket_id}', 'FastAPI', '404', 'src/cmd/export.go', 'export.go', 'QF1003', 'extractTextContent']) assert.ok(terms.includes(t), `${t} in ${JSON.stringify(terms)}`);
  for (const t of ['matching', 'ticket', 'endpoint', '2025', '/example.com/a/b']) assert.ok(!terms.includes(t), `${t} not in ${JSON.stringify(terms)}`);
});

test('the lines a result shows that name the most terms, in file order; not a listing entry, not what was said already', () => {
  const file = [
    '1\t"""Business logic layer."""',
    '2\tclass TicketService:',
    '3\t    def list_tickets(self) -> list[Ticket]:',
    '4\t    def get_ticket(self, ticket_id: int) -> Ticket | None:',
    '5\t        return self._repository.get_ticket(ticket_id)',
    '6\t    def archive_ticket(self, ticket_id: int) -> Ticket | None:',
  ].join('\n');
  assert.deepEqual(bearingLinesOf(file, ['ticket_id', 'get_ticket']), ['def get_ticket(self, ticket_id: int) -> Ticket | None:', 'return self._repository.get_ticket(ticket_id)']);
  assert.deepEqual(bearingLinesOf(file, ['ticket_id', 'get_ticket'], ['return self._repository.get_ticket(ticket_id)']), ['def get_ticket(self, ticket_id: int) -> Ticket | None:', 'def archive_ticket(self, ticket_id: int) -> Ticket | None:']);
  assert.deepEqual(bearingLinesOf('-rwxrwxrwx 1 1000 1000 2215 Jun 28 11:54 main.py\n-rw-r--r-- 1 u u 10 Jun 28 service.py', ['main.py']), []);
  assert.deepEqual(bearingLinesOf(file, []), []);
  // What the run's own edits wrote counts too, at half: two such identifiers make a line that bears on the run.
  const main = '@app.patch("/tickets/{ticket_id}/archive")\n    raise HTTPException(status_code=status.HTTP_404_NOT_FOUND, detail="Ticket not found")\nfrom fastapi import FastAPI';
  assert.deepEqual(bearingLinesOf(main, [], [], 2, ['HTTP_404_NOT_FOUND', 'HTTPException']), ['raise HTTPException(status_code=status.HTTP_404_NOT_FOUND, detail="Ticket not found")']);
  assert.deepEqual(bearingLinesOf(main, [], [], 2, ['HTTPException']), []);
});

test('a summary with room left says what the files the run read show of the request: the route and the method it asked for', async () => {
  const run = (await loadTrajectory(wild(ENDPOINT))).runs[0];
  const summary = (await runCompaction(run, { strategy: findStrategy('openhands-summary')!, range: '0:-2' }, { counter: charEstimateCounter })).summary ?? '';
  assert.match(summary, /app\/main\.py shows: @app\.get\("\/tickets\/\{ticket_id\}", response_model=Ticket\)/);
  assert.match(summary, /app\/service\.py shows: def get_ticket\(self, ticket_id: int\)/);
});

test("what the agent stated between its calls is a note; what it meant to do is not", async () => {
  const run = (await loadTrajectory(wild(WORKTREE))).runs[0];
  const notes = extractFacts(run, run.steps.map((s) => s.index)).notes.map((n) => n.text);
  assert.ok(notes.includes('The sed command duplicated content.'), JSON.stringify(notes));
  assert.ok(notes.includes('Both fixes are applied.'), JSON.stringify(notes));
  // "The sed command duplicated content. Let me fix this properly by reading the full file…": the intention is left out.
  assert.ok(notes.every((n) => !/\bLet me\b/.test(n)), JSON.stringify(notes));
});

test("how a long message ended is kept when there is room: the status after a poem, not a sign-off", async () => {
  // Claude Code (moredip/session-share): each poem arrives in a long message that ends with where the work stands.
  const run = (await loadTrajectory(wild('moredip__session-share/0ccf1a04-1b4c-43b6-8aa5-79e41db43a68.jsonl'))).runs[0];
  const closings = extractFacts(run, run.steps.map((s) => s.index)).notes.filter((n) => n.closing).map((n) => n.text);
  assert.ok(closings.includes('Still waiting on green and yellow curry poems.'), JSON.stringify(closings));
  const summary = (await runCompaction(run, { strategy: findStrategy('langchain-summarization')!, range: '0:-2' }, { counter: charEstimateCounter })).summary ?? '';
  assert.match(summary, /agent ended: Still waiting on green and yellow curry poems\./);
  // A sign-off says nothing of the run: the statement before it is how the message ended.
  const findings = Array.from({ length: 30 }, (_, i) => `Finding number ${i} holds.`).join(' ');
  const signOff = extractFacts(builtRunOf(`${findings}\n\nFeel free to ask for a pull request.`), [0]).notes;
  assert.deepEqual(signOff.filter((n) => n.closing).map((n) => n.text), ['Finding number 29 holds.']);
  // A message that ends with a list ends with what introduced it, not with its last item; a list of
  // sources ends with no statement at all.
  assert.ok(closings.includes('All four poems are now complete'), JSON.stringify(closings));
  assert.ok(!closings.some((c) => /\*\*Thai Green Curry\*\* - emerald|\]\(https?:/.test(c)), JSON.stringify(closings));
});

test('lines that only fill room go first, within their share, and are not counted as lines not shown', () => {
  const told = { heading: 'Done:', lines: ['edited app/main.py', 'pytest -q (→ 10 passed)'] };
  const filler = (n: number, within: number) => Array.from({ length: n }, (_, i) => ({ text: `app/x${i}.py shows: def get_ticket(ticket_id)`, rank: 0.6, within }));
  const roomy = renderSections([told, { heading: 'Found:', lines: filler(3, 10_000) }]);
  assert.equal((roomy.match(/shows:/g) ?? []).length, 3);
  const tight = renderSections([told, { heading: 'Found:', lines: filler(3, 90) }]);
  assert.ok(!tight.includes('shows:'), tight);
  assert.match(tight, /edited app\/main\.py/);
  assert.ok(!/more not shown/.test(tight), tight);
  // Over a budget they go before any other line, and say nothing of it.
  const budgeted = renderSections([told, { heading: 'Found:', lines: filler(6, 10_000) }], { budget: 140 });
  assert.match(budgeted, /pytest -q \(→ 10 passed\)/);
  assert.ok(!/more not shown/.test(budgeted.split('Found:')[1] ?? ''), budgeted);
});

test('on every labelled run, a summary that grew with them stays within FILL_SHARE of what it replaces', async () => {
  for (const rel of [ENDPOINT, WORKTREE, 'Mai0313__VibeCodingTracker/gemini.jsonl']) {
    const run = (await loadTrajectory(wild(rel))).runs[0];
    const replaced = extractFacts(run, run.steps.slice(0, -2).map((s) => s.index)).replacedChars;
    for (const id of ['openhands-summary', 'langchain-summarization', 'claude-code-compact', 'codex-compact', 'katalyst-chat', 'openhands-structured']) {
      const summary = (await runCompaction(run, { strategy: findStrategy(id)!, range: '0:-2' }, { counter: charEstimateCounter })).summary ?? '';
      if (!/ shows: |^\s*- agent(?: ended)?: /m.test(summary)) continue;
      // The share holds the sections; the strategy's own wrapper (its heading, the extractive note) comes on top.
      assert.ok(summary.length <= FILL_SHARE * replaced + 600, `${id} on ${rel}: ${summary.length} of ${replaced}`);
    }
  }
});
