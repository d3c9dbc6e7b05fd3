// `openhands-structured`: the OpenHands structured-summary condenser. Same forgetting as
// openhands-summary; the model must answer by calling `create_state_summary`, whose arguments
// follow the state-summary schema and are rendered as a readable markdown summary.

import type { ToolSpec } from '../../llm/provider';
import type { Run } from '../../model';
import { replaceRange, summaryStep } from '../assemble';
import {
  commandLines, constraintLines, decisionLines, doneTodoLines, finishedEarlierLines, earlierSummaryText, EXTRACTIVE_NOTE, extractFacts,
  failedEditLines, failingTestIds, filesChanged, installLines, lastAgentLine, laterRequests, openTodoLines, pendingCallLines, planLines,
  bounded, readLinesUnderRoot, taskLine, testLines, tidy, type Facts,
} from '../extract';
import { dropFillers, errorLinesKeepingLast, MUST_KEEP, outcomeLines, roomFillLines, type Ranked } from '../facts';
import type { StepRange, Strategy, StrategyContext, StrategyOutput } from '../types';
import { eventBlocks, forgottenEvents, OPENHANDS_OPTIONS, openHandsPolicy, openHandsSurvivor } from './openhandsCommon';
import { changeLinesWithin, charsBudget, countFor, DEFAULT_SUMMARY_CHARS, overShareWarning, rangeShareChars, rangeSteps, SUMMARY_SIZE_OPTIONS, summaryMaxChars } from './summaryBudget';

/**
 * Fields filled offline shrink to fit the summary's size: the lowest-ranked item of any field
 * goes first (then the oldest of its field); an item of rank 9 (the task, later requests, files
 * changed, the plan, the last error) goes last.
 */
function fitFields(fields: Record<string, Ranked[]>, joiners: Record<string, string>, budget: number, share = budget): Record<string, string> {
  let cut = 0;
  const renderStateSummary = (values: Record<string, unknown>) => renderState(values, share < budget);
  let within = budget;
  const render = () => {
    const out: Record<string, string> = Object.fromEntries(Object.entries(fields).map(([k, items]) => [k, items.map((i) => i.text).join(joiners[k] ?? '; ')]));
    if (cut) out.other_relevant_context = `${out.other_relevant_context ?? ''}\n(${cut} more items not shown, to keep the summary within ${within} characters)`.trim();
    return out;
  };
  // Items that only fill room (`within`) go first, while the whole is over the room they allow.
  dropFillers(Object.values(fields), () => renderStateSummary(render()).length);
  const lowest = (below: number) => {
    let victim: { k: string; i: number; rank: number } | undefined;
    for (const [k, items] of Object.entries(fields)) items.forEach((it, i) => { if (it.rank < below && (!victim || it.rank < victim.rank)) victim = { k, i, rank: it.rank }; });
    return victim;
  };
  // A short range: items below MUST_KEEP go until the summary is within its share of the range.
  const mustOnly = () => renderStateSummary(Object.fromEntries(Object.entries(fields).map(([k, items]) => [k, items.filter((i) => i.rank >= MUST_KEEP).map((i) => i.text).join(joiners[k] ?? '; ')]))).length;
  // Only where cutting gets there: when what must be kept is over the share already, nothing is cut for it.
  if (share < budget && mustOnly() <= share) {
    within = share;
    for (let v = lowest(MUST_KEEP); v && renderStateSummary(render()).length > share; v = lowest(MUST_KEEP)) {
      fields[v.k].splice(v.i, 1);
      cut++;
    }
    if (renderStateSummary(render()).length > share) within = budget;
  }
  while (renderStateSummary(render()).length > budget) {
    const victim = lowest(10);
    if (!victim) {
      // Only the fixed fields are left: the longest of them (the task) is shortened at a word end.
      const longest = Object.values(fields).flat().sort((a, b) => b.text.length - a.text.length)[0];
      const shorter = longest && longest.text.length > 120 ? bounded(longest.text, Math.max(120, Math.floor(longest.text.length * 0.7))) : undefined;
      if (!shorter || shorter.length >= longest.text.length) break;
      longest.text = shorter;
      continue;
    }
    fields[victim.k].splice(victim.i, 1);
    cut++;
  }
  return render();
}

type Field = [name: string, label: string, description: string];

// Field order of the rendering, grouped under its headers.
const GROUPS: [title: string, fields: Field[]][] = [
  ['Core Information', [
    ['user_context', 'User Context', 'What the user needs: requirements, goals and clarifications, briefly.'],
    ['completed_tasks', 'Completed Tasks', 'Tasks finished so far, each with a short result.'],
    ['pending_tasks', 'Pending Tasks', 'Tasks not done yet.'],
    ['current_state', 'Current State', 'Variables, data structures and other state that matter now.'],
  ]],
  ['Code Changes', [
    ['files_modified', 'Files Modified', 'Files created or changed.'],
    ['function_changes', 'Function Changes', 'Functions created or changed.'],
    ['data_structures', 'Data Structures', 'Important data structures used or changed.'],
    ['dependencies', 'Dependencies', 'Dependencies or imports added or changed.'],
  ]],
  ['Testing Status', [
    ['tests_written', 'Tests Written', 'Were tests written? true, false or unknown.'],
    ['tests_passing', 'Tests Passing', 'Do all tests pass now? true, false or unknown.'],
    ['failing_tests', 'Failing Tests', 'Names or descriptions of tests that fail.'],
    ['error_messages', 'Error Messages', 'The important error messages seen.'],
  ]],
  ['Version Control', [
    ['branch_created', 'Branch Created', 'Was a branch created? true, false or unknown.'],
    ['branch_name', 'Branch Name', 'The branch being worked on, if known.'],
    ['commits_made', 'Commits Made', 'Were commits made? true, false or unknown.'],
    ['pr_created', 'PR Created', 'Was a pull request opened? true, false or unknown.'],
    ['pr_status', 'PR Status', "One of 'draft', 'open', 'merged', 'closed' or 'unknown'."],
  ]],
  ['Additional Context', [
    ['other_relevant_context', 'Other Relevant Context', 'Anything important that fits nowhere above.'],
  ]],
];

const CREATE_STATE_SUMMARY: ToolSpec = {
  name: 'create_state_summary',
  description: 'Record a complete summary of where the interaction stands, so the work can go on after the older history is dropped. user_context, completed_tasks and pending_tasks must not be empty.',
  parameters: {
    type: 'object',
    properties: Object.fromEntries(GROUPS.flatMap(([, fields]) => fields.map(([name, , description]) => [name, { type: 'string', description }]))),
    required: ['user_context', 'completed_tasks', 'pending_tasks'],
  },
};

const INSTRUCTIONS = `You keep a running state summary for an interactive software agent whose older history is about to be dropped.
The summary exists so that:
1. the context survives when the history grows too large to keep,
2. no work is lost when older events are removed to stay within the token limit,
3. the agent can carry on as if nothing had been removed.

You are given the events that will be dropped and the summary you wrote last time, if any. Capture:
- what the user explicitly asked for
- the work already done
- the tasks still open
- the current state of code, variables and data structures
- the version-control state (branch, commits, pull request)

Answer by calling create_state_summary.`;

function structuredPrompt(trajectory: Run, range: StepRange, maxEventLength: number): string {
  return `${INSTRUCTIONS}\n\n${eventBlocks(forgottenEvents(trajectory, range), maxEventLength)}`;
}

/**
 * `# State Summary` with one block per group and `**Label**: value` per field. `omitUnknown` (a
 * short range written without a model) leaves out the fields nothing in the steps filled, and says so once.
 */
function renderStateSummary(values: Record<string, unknown>, omitUnknown = false): string {
  return renderState(values, omitUnknown);
}

function renderState(values: Record<string, unknown>, omitUnknown: boolean): string {
  const blocks = ['# State Summary'];
  const left: string[] = [];
  for (const [title, fields] of GROUPS) {
    const shown = fields.filter(([name]) => !omitUnknown || !/^(unknown)?$/.test(stringValue(values[name]).trim()) || !left.push(name));
    if (shown.length) blocks.push(`## ${title}\n${shown.map(([name, label]) => `**${label}**: ${stringValue(values[name])}`).join('\n')}`);
  }
  if (left.length) blocks.push('(The other fields: not known from these steps.)');
  return tidy(blocks.join('\n\n'));
}

function stringValue(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** The schema's fields, filled from the trajectory itself, within `budget` characters. */
function extractiveStateSummary(facts: Facts, budget = DEFAULT_SUMMARY_CHARS, share = budget): Record<string, string> {
  const gitText = facts.commands.map((c) => c.command).join('\n');
  const branch = /git (?:checkout -b|switch -c|branch)\s+([\w./-]+)/.exec(gitText)?.[1];
  const lastTest = facts.tests[facts.tests.length - 1];
  const changed = changeLinesWithin(facts, budget);
  const task = taskLine(facts, 1200);
  const r = (lines: string[], rank: number) => lines.map((text) => ({ text, rank }));
  const fixed = (text: string) => [{ text, rank: 10 }];
  const fields: Record<string, Ranked[]> = {
    user_context: [...fixed(task ?? '(no user request in the log)'), ...r(laterRequests(facts).map((q) => `Later request: ${q}`), 9), ...r(constraintLines(facts).map((c) => `Constraint: ${c}`), 5)],
    completed_tasks: changed.length + doneTodoLines(facts).length + finishedEarlierLines(facts).length ? [...r(changed, 9), ...r(doneTodoLines(facts), 9), ...finishedEarlierLines(facts), ...r(commandLines(facts, countFor(12, budget), ['change', 'run']).filter((c) => !/\(exit [1-9]|failed/.test(c)), 3)] : fixed(`(nothing finished in these ${facts.stepCount} steps)`),
    pending_tasks: openTodoLines(facts).length + failedEditLines(facts).length + pendingCallLines(facts).length ? [...r(openTodoLines(facts), 9), ...r(failedEditLines(facts), 4), ...r(pendingCallLines(facts), 3)] : fixed('(not stated in these steps)'),
    // With nothing changed, the scripts the run ran (and what they printed) are its state; else they are completed work.
    current_state: [...r([lastAgentLine(facts) ?? '', ...decisionLines(facts, countFor(3, budget), countFor(3, budget))].filter(Boolean), 2), ...(changed.length ? [] : r(commandLines(facts, countFor(8, budget), ['run']).map((c) => `ran: ${c}`), 1.5)), ...r(commandLines(facts, countFor(8, budget), ['read']).map((c) => `checked: ${c}`), 1), ...outcomeLines(facts)],
    files_modified: r(filesChanged(facts).map((c) => c.file), 9),
    function_changes: [],
    data_structures: [],
    dependencies: r(installLines(facts), 3),
    tests_written: fixed(filesChanged(facts).some((c) => /(^|\/)(test_[^/]*|[^/]*_test\.\w+|[^/]*\.(test|spec)\.\w+)$/.test(c.file)) ? 'true' : 'unknown'),
    // The verdict with the run that gave it: a passing suite is a milestone the schema has no other field for.
    tests_passing: fixed(`${lastTest?.ok === undefined ? 'unknown' : String(lastTest.ok)}${lastTest ? ` (${bounded(testLines(facts).pop()!, 160)})` : ''}`),
    failing_tests: [...r(failingTestIds(facts), 6), ...r(testLines(facts).filter((t) => /fail|error/i.test(t)), 4)],
    error_messages: [...errorLinesKeepingLast(facts), ...r(failedEditLines(facts), 4)],
    branch_created: fixed(branch ? 'true' : 'unknown'),
    branch_name: branch ? fixed(branch) : [],
    commits_made: fixed(/git commit\b/.test(gitText) ? 'true' : 'unknown'),
    pr_created: fixed('unknown'),
    pr_status: fixed('unknown'),
    other_relevant_context: [
      ...fixed(EXTRACTIVE_NOTE),
      ...(facts.plan ? [{ text: `Task list: ${planLines(facts).join('; ')}`, rank: 9 }] : []),
      ...(readLinesUnderRoot(facts).length ? r([`Files read: ${readLinesUnderRoot(facts).join('; ')}`], 1) : []),
      ...roomFillLines(facts),
      ...r(earlierSummaryText(facts).map((p) => `Earlier summary ${p}`), 8),
    ],
  };
  const out = fitFields(fields, { user_context: ' | ', current_state: ' | ', other_relevant_context: '\n' }, budget, share);
  out.other_relevant_context = tidy(out.other_relevant_context);
  return out;
}

export const openHandsStructuredStrategy: Strategy = {
  id: 'openhands-structured',
  label: 'OpenHands structured-summary condenser',
  kind: 'llm',
  description: 'Like openhands-summary, but the model fills a fixed state-summary schema through a forced function call; the result is shown as a readable summary.',
  options: [...OPENHANDS_OPTIONS, ...SUMMARY_SIZE_OPTIONS],
  policy: openHandsPolicy,
  requestsPerFiring: () => 1,
  summaryBudget: charsBudget,
  async run(trajectory, range, ctx) {
    return runStructured(trajectory, range, ctx);
  },
};

async function runStructured(trajectory: Run, range: StepRange, ctx: StrategyContext): Promise<StrategyOutput> {
  const f = forgottenEvents(trajectory, range);
  const prompt = [{ role: 'user' as const, content: structuredPrompt(trajectory, range, Number(ctx.options.max_event_length)) }];
  const warnings: string[] = [];
  let values: Record<string, unknown>;
  let mode: StrategyOutput['mode'] = 'extractive';
  let short = false;
  if (ctx.llm) {
    const reply = await ctx.llm.complete({ messages: prompt, tool: CREATE_STATE_SUMMARY });
    mode = 'llm';
    if (reply.toolArguments && typeof reply.toolArguments === 'object') {
      values = reply.toolArguments;
    } else {
      // OpenHands keeps going with an empty summary when the call cannot be read.
      warnings.push('The model did not return readable create_state_summary arguments; the summary is empty, as OpenHands does in this case.');
      values = {};
    }
  } else {
    const budget = summaryMaxChars(ctx.options, rangeSteps(trajectory, range));
    const share = rangeShareChars(f.removed, trajectory.steps, budget);
    values = extractiveStateSummary(extractFacts(trajectory, f.removed.map((s) => s.index)), budget, share);
    short = share < budget;
    const over = overShareWarning(renderStateSummary(values, short).length, share, budget);
    if (over) warnings.push(over);
  }
  const summary = renderStateSummary(values, short);
  const { steps, fates } = replaceRange(trajectory, range, [summaryStep(summary, f.removed, 'user')], { survives: openHandsSurvivor(trajectory) });
  return { mode, steps, fates, summary, prompt, promptTool: CREATE_STATE_SUMMARY, warnings };
}
