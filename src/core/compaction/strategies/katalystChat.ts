// `katalyst-chat`: Katalyst's conversation summarizer. System messages stay, the last N other
// messages stay, and everything else becomes one assistant message between the two markers.

import type { Step, Run } from '../../model';
import { replaceRange, summaryStep } from '../assemble';
import {
  commandLines, constraintLines, decisionLines, doneTodoLines, finishedEarlierLines, earlierSummaryText, EXTRACTIVE_NOTE, extractFacts,
  failedEditLines, filesChanged, gitLines, installLines, lastAgentLine, laterRequests, openTodoLines, pendingCallLines, readLines, readLinesUnderRoot,
  renderSections, taskLine, testLines, type Facts, type Section,
} from '../extract';
import { roomFillLines, errorLinesKeepingLast, must, outcomeLines } from '../facts';
import { changeLinesWithin, charsBudget, countFor, fillRoom, editGists, rangeSteps, SUMMARY_SIZE_OPTIONS, summaryMaxChars } from './summaryBudget';
import type { ForcedTrigger, OptionSpec, PolicyChoice, StepRange, Strategy, StrategyContext, StrategyOptions, StrategyOutput } from '../types';
import { fromDefaults } from '../describeDefaults';

const CHAT_SUMMARY_START = '[CONVERSATION SUMMARY]';
const CHAT_SUMMARY_END = '[END OF SUMMARY]';

function policy(trajectory: Run, options: StrategyOptions, _counter?: unknown, forced?: ForcedTrigger): PolicyChoice {
  const trigger = Number(options.trigger);
  const keepLast = Number(options.keep_last);
  const n = trajectory.steps.length;
  if (n <= trigger && !forced) return { range: null, reason: `${n} messages, not more than the trigger of ${trigger}.` };
  const others = trajectory.steps.filter((s) => s.kind !== 'system');
  if (others.length === 0 || others.length <= keepLast) return { range: null, reason: `only ${others.length} non-system messages, all among the last ${keepLast} kept.` };
  // keep_last 0 keeps none: everything but the system messages is summarized.
  const end = keepLast === 0 ? others[others.length - 1].index : others[others.length - keepLast].index - 1;
  return {
    range: [others[0].index, end],
    reason: `${n} messages ${forced ? `(over the ${forced.tokenBudget}-token budget)` : `> trigger ${trigger}`}: keep the system messages and the last ${keepLast} others, summarize the rest.`,
  };
}

/** Katalyst's transcript: `ROLE: content`, tool results as user lines, tool-call structure dropped. */
function transcriptOf(steps: readonly Step[]): string {
  const parts: string[] = [];
  for (const s of steps) {
    switch (s.kind) {
      case 'user': parts.push(`USER: ${s.text}`); break;
      case 'assistant': case 'thought': case 'compaction': parts.push(`ASSISTANT: ${s.text}`); break;
      case 'tool_result': parts.push(`USER: Tool Result (${s.toolName || 'unknown'}): ${s.text}`); break;
      case 'tool_call': break; // only an AI message's content is kept, not its tool calls
      case 'other': parts.push(`UNKNOWN: ${s.text}`); break;
      case 'system': break;
    }
  }
  return parts.join('\n\n');
}

function prompt(conversation: string): string {
  return `Write a summary of the CURRENT STATE this conversation has reached, focused on results rather than on how they were found.

KEY INSTRUCTION: describe outcomes and what exists now; leave out the process, the searching and the dead ends.

Context: the state to continue from. Cover:
1. The original request, in one line
2. Project structure (essential): the project root and main folder path, with the folder layout exactly as it is
3. Finished tasks: what was created or changed, each with its FULL path
4. The project now: files with full paths and what each is for, what works, what is configured
5. What does not exist yet
6. Technical setup
7. What the next task needs to know

RULES:
- Always give full paths.
- Keep the folder structure exactly as it is.
- Do not mention searches or things that were "looked for".
- Turn "searched for X" into "X does not exist yet" or "X was created in Y".
- Describe the result, not the journey.
- Say plainly what exists and what does not.
- For example, instead of "searched the routes for CRUD endpoints and found none", write "CRUD endpoints do not exist yet; the routes live in /app/api/routes.py".

CONVERSATION TO SUMMARIZE:
${conversation}

Reply with the summary only, with no comments before or after it.`;
}

function extractiveSummary(facts: Facts, budget: number, counts = budget, fill = false): string {
  const changed = filesChanged(facts);
  const dirs = [...new Set([...changed.map((c) => c.file), ...readLines(facts)].map((f) => (f.includes('/') ? f.slice(0, f.lastIndexOf('/')) : '.')))];
  const sections: Section[] = [
    { heading: '1. Original request:', inline: taskLine(facts) ?? '(none in the log)', lines: [...must(laterRequests(facts).map((r) => `then: ${r}`)), ...constraintLines(facts).map((c) => `constraint: ${c}`)], priority: 5 },
    { heading: '2. Project structure (folders touched):', lines: dirs, empty: '(no file touched in these steps)', priority: 1 },
    { heading: '3. Completed tasks:', lines: [...must(changeLinesWithin(facts, budget)), ...must(doneTodoLines(facts)), ...finishedEarlierLines(facts), ...editGists(facts, budget, fill)], empty: '(nothing finished in these steps)', priority: 4 },
    { heading: '4. Current project state:', lines: [...testLines(facts), ...errorLinesKeepingLast(facts), ...commandLines(facts, countFor(15, counts)), ...outcomeLines(facts), ...(fill ? roomFillLines(facts) : []), ...readLinesUnderRoot(facts, (f) => `read ${f}`)], empty: '(no command or test in these steps)', priority: 2 },
    { heading: '5. Not yet done:', lines: [...must(openTodoLines(facts)), ...failedEditLines(facts), ...pendingCallLines(facts)], empty: '(not stated in these steps)', priority: 4 },
    // What changed the setup: installs, and git commands that changed the repository (not `git status`).
    { heading: '6. Technical setup:', lines: [...installLines(facts), ...gitLines(facts, ['change'])], empty: '(no setup change in these steps)', priority: 1 },
    { heading: '7. Next task context:', inline: lastAgentLine(facts, 300) ?? '(none)', lines: [...decisionLines(facts, countFor(3, counts), countFor(3, counts)), ...earlierSummaryText(facts).map((p) => `earlier summary ${p}`)], priority: 3 },
  ];
  return renderSections(sections, { header: [EXTRACTIVE_NOTE], budget });
}

async function run(trajectory: Run, range: StepRange, ctx: StrategyContext): Promise<StrategyOutput> {
  const inRange = trajectory.steps.slice(range[0], range[1] + 1);
  const summarized = inRange.filter((s) => s.kind !== 'system');
  const messages = [{ role: 'user' as const, content: prompt(transcriptOf(summarized)) }];
  let text: string;
  let mode: StrategyOutput['mode'] = 'extractive';
  if (ctx.llm) {
    text = (await ctx.llm.complete({ messages, temperature: 0.3 })).text;
    mode = 'llm';
  } else {
    // The summary's wrappers count against its size.
    const facts = extractFacts(trajectory, summarized.map((s) => s.index));
    const room = summaryMaxChars(ctx.options, rangeSteps(trajectory, range)) - CHAT_SUMMARY_START.length - CHAT_SUMMARY_END.length - 2;
    text = fillRoom((counts, fill) => extractiveSummary(facts, room, counts, fill), room, rangeSteps(trajectory, range), true);
  }
  const summary = `${CHAT_SUMMARY_START}\n${text}\n${CHAT_SUMMARY_END}`;
  const { steps, fates } = replaceRange(trajectory, range, [summaryStep(summary, summarized, 'assistant', 'katalyst chat history')], {
    survives: (s) => s.kind === 'system',
  });
  return { mode, steps, fates, summary, prompt: messages, warnings: [] };
}

const katalystChatOptions: OptionSpec[] = [
  { name: 'trigger', type: 'integer', default: 50, min: 1, max: 100_000, help: 'Summarize when there are more messages than this, system messages included (KATALYST_CHAT_SUMMARY_TRIGGER).' },
  { name: 'keep_last', type: 'integer', default: 10, min: 0, max: 10_000, help: 'Recent non-system messages kept verbatim (KATALYST_CHAT_SUMMARY_KEEP_LAST_N).' },
  ...SUMMARY_SIZE_OPTIONS,
];

export const katalystChatStrategy: Strategy = {
  id: 'katalyst-chat',
  label: 'Katalyst conversation summarizer',
  kind: 'llm',
  description: fromDefaults('Keeps the system messages and the last {keep_last} other messages, and puts one assistant summary of the rest between [CONVERSATION SUMMARY] and [END OF SUMMARY].', katalystChatOptions),
  options: katalystChatOptions,
  policy,
  summaryBudget: charsBudget,
  requestsPerFiring: () => 1,
  run,
  // Katalyst returns the conversation unchanged when the summary fails.
  async fallback(trajectory) {
    return {
      mode: 'deterministic',
      steps: trajectory.steps.map((s) => ({ step: s, origin: s.index })),
      fates: trajectory.steps.map(() => 'kept'),
      summary: null,
      prompt: null,
      warnings: ['The conversation was left unchanged, as Katalyst does when its summary fails.'],
    };
  },
};
