// `openhands-summary`: the OpenHands LLM summarizing condenser. One user message: what to track
// (the OpenHands section names), the previous summary, the forgotten events; the reply is the summary.

import type { Run } from '../../model';
import { replaceRange, summaryStep } from '../assemble';
import {
  commandLines, constraintLines, decisionLines, doneTodoLines, finishedEarlierLines, earlierSummaryText, EXTRACTIVE_NOTE, extractFacts,
  failedEditLines, filesChanged, gitLines, installLines, isInstall, lastAgentLine, laterRequests, openTodoLines, pendingCallLines, readLinesUnderRoot, renderSections,
  taskLine, taskTrackingLines, testLines, userRefLines, type Facts, type Section,
} from '../extract';
import { roomFillLines, errorLinesKeepingLast, must, outcomeLines } from '../facts';
import { changeLinesWithin, charsBudget, countFor, fillRoom, editGists, DEFAULT_SUMMARY_CHARS, rangeSteps, SUMMARY_SIZE_OPTIONS, summaryMaxChars } from './summaryBudget';
import type { StepRange, Strategy, StrategyContext, StrategyOutput } from '../types';
import { eventBlocks, forgottenEvents, OPENHANDS_OPTIONS, openHandsPolicy, openHandsSurvivor } from './openhandsCommon';

// Written for this project; the section names and wrappers are the ones OpenHands uses.
const INSTRUCTIONS = `You keep a running state summary for an interactive agent whose older history is about to be dropped.
Below are the agent's events that will be dropped, and the summary you wrote last time (if any). Fold both into one new summary.

If any of these events track tasks, you must include a TASK_TRACKING section, and copy every task ID and status exactly as it appears.

Track:

USER_CONTEXT: (what the user asked for, their goals and clarifications, stated briefly)
TASK_TRACKING: {the tasks in progress, each with its ID and status; never renumber them}
COMPLETED: (what has been finished, with a short note of the result)
PENDING: (what still has to be done)
CURRENT_STATE: (variables, data structures and any other state the agent relies on now)

For coding tasks, add:
CODE_STATE: {paths of relevant files, function signatures, data structures}
TESTS: {failing tests, error messages, test output}
CHANGES: {edits made to code and values changed}
DEPS: {dependencies, imports, external calls}
VERSION_CONTROL_STATUS: {repository state, branch, pull request, commits}

PRIORITIZE:
1. Shape the sections to the kind of task at hand
2. Keep the user's requirements and goals
3. Keep finished and unfinished work clearly apart
4. Keep every section short and to the point

SKIP: details that do not matter for this kind of task

Example formats:

A coding task:
USER_CONTEXT: Make the CSV exporter quote fields that contain commas
COMPLETED: Added quoting to write_row() in exporter.py; unit tests pass
PENDING: Update the changelog, open a pull request
CODE_STATE: write_row(row: list[str]) -> str in exporter.py
TESTS: test_write_row_with_comma now passes
CHANGES: fields containing "," are wrapped in double quotes
DEPS: none changed
VERSION_CONTROL_STATUS: branch quote-csv-fields, last commit 4e5f6a7

Another kind of task:
USER_CONTEXT: Plan a seven-day reading schedule from a list of 12 articles
COMPLETED: Days 1-4 scheduled, 7 articles placed
PENDING: Days 5-7
CURRENT_STATE: 5 articles left, longest one reserved for day 6`;

const CLOSING = 'Now write the new summary, following the rules above.';

function openHandsPrompt(trajectory: Run, range: StepRange, maxEventLength: number): string {
  const f = forgottenEvents(trajectory, range);
  return `${INSTRUCTIONS}\n\n${eventBlocks(f, maxEventLength)}\n${CLOSING}`;
}

/** The OpenHands sections, filled from the trajectory itself. */
function extractiveOpenHandsSummary(facts: Facts, budget = DEFAULT_SUMMARY_CHARS, counts = budget, fill = false): string {
  const task = taskLine(facts);
  const later = laterRequests(facts).map((r) => `later request: ${r}`);
  const constraints = constraintLines(facts).map((c) => `constraint: ${c}`);
  const refs = userRefLines(facts);
  const changed = filesChanged(facts);
  const sections: Section[] = [
    { heading: 'USER_CONTEXT:', inline: task ?? '(no user request in the log)', lines: [...must(later), ...constraints, ...(refs.length ? [`given: ${refs.join(', ')}`] : [])], priority: 5 },
    { heading: 'TASK_TRACKING:', lines: must(taskTrackingLines(facts)), empty: '(no task list in these steps)', priority: 5 },
    { heading: 'COMPLETED:', lines: [...must(changeLinesWithin(facts, budget)), ...doneTodoLines(facts).map((t) => `task ${t}`), ...finishedEarlierLines(facts).map((t) => ({ ...t, text: `task ${t.text}` }))], empty: `(nothing finished in these ${facts.stepCount} steps)`, priority: 4 },
    { heading: 'PENDING:', lines: [...openTodoLines(facts), ...failedEditLines(facts), ...pendingCallLines(facts)], empty: '(not stated in these steps)', priority: 4 },
    // What the commands that did not change anything showed: the state the agent relies on.
    { heading: 'CURRENT_STATE:', inline: lastAgentLine(facts), empty: '(no agent message in these steps)', lines: [...decisionLines(facts, countFor(4, counts), countFor(3, counts)), ...commandLines(facts, countFor(15, counts), ['read', 'run']).map((c) => `checked: ${c}`), ...outcomeLines(facts), ...(fill ? roomFillLines(facts) : [])], priority: 2 },
    { heading: 'CODE_STATE:', lines: [...changed.map((c) => `${c.file} (${c.action})`), ...readLinesUnderRoot(facts, (f) => `${f} (read)`)], empty: '(no file touched in these steps)', priority: 1 },
    { heading: 'TESTS:', lines: [...testLines(facts), ...errorLinesKeepingLast(facts)], empty: '(no test or error in these steps)', priority: 3 },
    // Only what changed files, the repository or the environment; reads and searches are not changes.
    // The files changed are listed under COMPLETED, failed edits under PENDING and installs under DEPS: said once each.
    { heading: 'CHANGES:', lines: [...must(changed.length ? [`files: the ${changed.length === 1 ? 'one' : changed.length} under COMPLETED`] : []), ...commandLines(facts, countFor(25, counts), ['change'], isInstall), ...editGists(facts, budget, fill)], empty: '(no change in these steps)', priority: 2 },
    { heading: 'DEPS:', lines: installLines(facts), empty: '(no dependency change in these steps)', priority: 1 },
    { heading: 'VERSION_CONTROL_STATUS:', lines: gitLines(facts), empty: '(no version control in these steps)', priority: 1 },
  ];
  const previous = earlierSummaryText(facts);
  if (previous.length) sections.unshift({ heading: 'PREVIOUS SUMMARY (carried forward):', lines: [], inline: `\n${previous.join('\n\n')}\n`, priority: 6 });
  return renderSections(sections, { header: [EXTRACTIVE_NOTE], budget, keepOnePerSection: true });
}

export const openHandsSummaryStrategy: Strategy = {
  id: 'openhands-summary',
  label: 'OpenHands LLM summarizing condenser',
  kind: 'llm',
  description: 'Keeps the first events and a recent tail, and replaces the middle with a summary in the OpenHands sections (USER_CONTEXT, COMPLETED, PENDING, CODE_STATE, …).',
  options: [...OPENHANDS_OPTIONS, ...SUMMARY_SIZE_OPTIONS],
  policy: openHandsPolicy,
  requestsPerFiring: () => 1,
  summaryBudget: charsBudget,
  async run(trajectory, range, ctx) {
    return runOpenHandsSummary(trajectory, range, ctx);
  },
};

async function runOpenHandsSummary(trajectory: Run, range: StepRange, ctx: StrategyContext): Promise<StrategyOutput> {
  const maxEventLength = Number(ctx.options.max_event_length);
  const f = forgottenEvents(trajectory, range);
  const prompt = [{ role: 'user' as const, content: openHandsPrompt(trajectory, range, maxEventLength) }];
  let summary: string;
  let mode: StrategyOutput['mode'] = 'extractive';
  if (ctx.llm) {
    const reply = await ctx.llm.complete({ messages: prompt });
    summary = reply.text;
    mode = 'llm';
  } else {
    const facts = extractFacts(trajectory, f.removed.map((s) => s.index));
    const room = summaryMaxChars(ctx.options, rangeSteps(trajectory, range));
    summary = fillRoom((counts, fill) => extractiveOpenHandsSummary(facts, room, counts, fill), room, rangeSteps(trajectory, range), true);
  }
  const { steps, fates } = replaceRange(trajectory, range, [summaryStep(summary, f.removed, 'user')], { survives: openHandsSurvivor(trajectory) });
  return { mode, steps, fates, summary, prompt, warnings: [] };
}
