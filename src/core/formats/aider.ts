import type { RecordedUsage, Step, TrajectoryMeta } from '../model';
import { StepBuilder } from '../steps';
import type { FormatAdapter, ParsedTrajectory } from './adapter';
import { aiderBlocks, editBlocks, tokenReport, wholeFileBlocks, type Block } from './aiderMarkdown';
import { titleFromSteps } from './chatMessages';
import { recordedUsage, sumUsage } from './usage';
import { injectedLabel, type InjectedRule, labelWith } from './injected';

// Aider's chat history (`.aider.chat.history.md`): every session it was started in, one after
// another. User messages and /commands, the model's replies with their SEARCH/REPLACE edits as
// tool calls ("Applied edit to …" answers them), shell commands the user agreed to run with
// their output, and the `Tokens: … Cost: …` line after each reply as that reply's usage.

const MODEL_NOTICE = /^(?:Main model|Models?): (\S+)/; // "Models: X with …, weak model Y" up to 0.50
/** "Model: X with whole edit format": how the model writes its edits in this session. */
const EDIT_FORMAT = /^(?:Main model|Models?): \S+ with ([\w-]+) edit format/;
/**
 * A Python exception as Aider prints it when the model call fails (`litellm.APIConnectionError: …`,
 * `openai.BadRequestError: …`): the type's name, then a colon, at the start of a line.
 */
const EXCEPTION_LINE = /^((?:[a-z_]\w*\.)*[A-Z]\w*(?:Error|Exception))(?: - |: |$)/gm;
/** `Commit 22f6ebc feat: add shutdown script`: the commit Aider made of its edits. */
const AUTO_COMMIT = /^Commit ([0-9a-f]{7,40}) (.+)$/;
const TRACEBACK = /^Traceback \(most recent call last\):$/m;

/** The type of the last exception a notice prints (`litellm.APIError`), if any. */
function lastException(text: string): string | undefined {
  let last: string | undefined;
  for (const m of text.matchAll(EXCEPTION_LINE)) last = m[1];
  return last;
}
/** A reasoning model's thinking, as Aider writes it before the answer (`<thinking-content-<hash>>`). */
const REASONING_BLOCK = /^\s*<(thinking-content-[0-9a-f]+|thinking|think)>([\s\S]*?)<\/\1>\s*/;

/** What Aider writes on a user line that the person did not write as a request. */
export const AIDER_INJECTED: readonly InjectedRule[] = [
  // Aider asks before adding a file the model named; the answer is a confirmation, not a turn.
  { name: 'add-file confirmation', match: /^Add .+ to the chat\?/, label: (t) => labelWith('add-file confirmation', /\[[^\]]*\]:\s*(\S+)/.exec(t)?.[1]) },
  { name: 'create-file confirmation', match: /^Create new file\?/, label: () => 'create-file confirmation' },
];

/** The label of a session's start when its header is all the session holds. */
const BARE_START = 'session header';

const ROUNDED_COUNT = /^> Tokens: .*\d[kM] (?:sent|cache write|cache hit|received)/m;

export const aiderAdapter: FormatAdapter = {
  id: 'aider',
  label: 'Aider chat history',
  fileNames: ['*.aider.chat.history.md'],
  otherFileNames: ['*.md'],
  tools: { read: ['add_to_chat'] },
  sniff(input, fileName) {
    if (input.shape !== 'text') return 0;
    const head = input.text.slice(0, 64 * 1024);
    if (/^\s*# aider chat started at \d{4}-\d{2}-\d{2}/.test(head)) return 0.98;
    // A history whose first session header was cut off still has Aider's user and notice lines.
    const marked = /\n#### .*  \n/.test(head) && /\n> (Tokens: |Aider v|Applied edit to )/.test(head);
    return marked || (fileName.endsWith('.aider.chat.history.md') && /\n#### /.test(head)) ? 0.9 : 0;
  },
  parse(input, ctx) {
    const text = input.shape === 'text' ? input.text : '';
    const sessions = splitSessions(aiderBlocks(text));
    const parsed = sessions.map((s) => parseSession(s.blocks, s.started));
    // A session header with nothing under it (Aider started and quit) is left out beside real sessions.
    let runs = parsed.filter((r) => r.meta?.recorded !== undefined || r.steps.some((s) => s.label !== BARE_START));
    if (runs.length === 0) {
      // Only headers: each session opens as its start, so the file reads (and converts) as what it is.
      runs = parsed.filter((r) => r.steps.length > 0);
      ctx.warnings.push({ message: `This Aider history holds no messages, only ${sessions.length === 1 ? 'a session header' : `${sessions.length} session headers`}: nothing was sent to a model.` });
      if (runs.length === 0) return { title: ctx.fileName, steps: [], meta: { agent: 'aider' } };
    }
    // Since 0.52 Aider rounds counts from a thousand up (2.4k, 13k); older lines are exact (12,963).
    if (runs.some((r) => r.steps.some((s) => s.usage)) && ROUNDED_COUNT.test(text)) {
      ctx.warnings.push({ message: 'Aider writes token counts from a thousand up rounded (2.4k, 13k); recorded usage from those lines is only that precise.' });
    }
    if (runs.length === 1) return runs[0];
    const recorded = sumUsage(runs.map((r) => r.meta?.recorded));
    return { title: `Aider chat history: ${runs.length} sessions`, steps: [], runs, meta: { agent: 'aider', model: runs[runs.length - 1].meta?.model, recorded } };
  },
};

function splitSessions(blocks: Block[]): { started?: string; blocks: Block[] }[] {
  const sessions: { started?: string; blocks: Block[] }[] = [];
  for (const block of blocks) {
    if (block.kind === 'session' || sessions.length === 0) sessions.push({ started: block.kind === 'session' ? block.started : undefined, blocks: [] });
    sessions[sessions.length - 1].blocks.push(block);
  }
  return sessions;
}

function parseSession(blocks: Block[], started: string | undefined): ParsedTrajectory {
  const b = new StepBuilder();
  const meta: TrajectoryMeta = { agent: 'aider', startTime: started };
  const usages: RecordedUsage[] = [];
  let lastReply: Step[] = [];
  let pendingShell: Step | undefined;
  // Since the person's last request: its text, whether a reply came, and Aider's notices since the
  // latest reply once that call's usage report closed it (what Aider may send back on its own).
  let request: string | undefined;
  let replied = false;
  let callEnded = false;
  let sinceReply: Step[] = [];
  let editFormat: string | undefined;
  for (const block of blocks) {
    const location = { line: block.line };
    switch (block.kind) {
      case 'session': {
        for (const n of block.notices) { meta.model = MODEL_NOTICE.exec(n)?.[1] ?? meta.model; editFormat = EDIT_FORMAT.exec(n)?.[1] ?? editFormat; }
        const version = block.notices.map((n) => /^Aider (v[\d.]+\S*)/.exec(n)?.[1]).find(Boolean);
        if (version) meta.version = version;
        if (block.notices.length > 0) b.add({ location, kind: 'other', text: block.notices.join('\n'), label: 'session start' });
        break;
      }
      case 'user': {
        const command = /^\/(\w[\w-]*)/.exec(block.text);
        if (command) {
          // `/ask X`, `/code X` switch mode; Aider then writes X itself as a second user line, the request.
          b.add({ location, kind: 'other', text: block.text, label: `/${command[1]}` });
          break;
        }
        const injected = injectedLabel(AIDER_INJECTED, block.text);
        if (injected !== undefined) {
          b.add({ location, kind: 'environment', text: block.text, label: injected });
          break;
        }
        if (block.text === request && !replied) {
          // The same request again with no reply between: sent again after an error, not a new request.
          b.add({ location, kind: 'environment', text: block.text, label: labelWith('request sent again', firstLine(block.text)) });
          break;
        }
        b.closeOpenCalls();
        b.add({ location, kind: 'user', text: block.text, label: 'user' });
        request = block.text;
        replied = false;
        callEnded = false;
        sinceReply = [];
        break;
      }
      case 'reply':
        // A reply with no request between it and the call before: Aider answered that call itself
        // (edit-format errors, lint or test output, files it added) and its notices are what it sent.
        if (replied && callEnded) for (const s of sinceReply) markReflection(s);
        lastReply = addReply(b, block.text, location, editFormat);
        replied = true;
        callEnded = false;
        sinceReply = [];
        break;
      case 'notice': {
        const usage = noticeUsage(block.lines, meta.model as string | undefined);
        if (usage) {
          usages.push(usage);
          const target = lastReply[lastReply.length - 1];
          if (target && !target.usage) target.usage = usage;
          callEnded = replied;
        }
        const from = b.steps.length;
        pendingShell = addNotices(b, block.lines, location, lastReply, pendingShell);
        for (let k = from; k < b.steps.length; k++) {
          const step = b.steps[k];
          if (step.kind !== 'other') continue;
          sinceReply.push(step);
          // Aider printing an exception: with a request and no reply yet, the model call failed;
          // after a traceback, Aider itself (or a call it made on its own) failed. Shell output is a result, not here.
          const exception = lastException(step.text);
          const callFailed = request !== undefined && !replied;
          if (exception && (callFailed || TRACEBACK.test(step.text))) {
            step.isError = true;
            step.label = labelWith(callFailed ? 'model call failed' : 'exception', exception);
          }
        }
        for (const n of block.lines) { meta.model = MODEL_NOTICE.exec(n)?.[1] ?? meta.model; editFormat = EDIT_FORMAT.exec(n)?.[1] ?? editFormat; }
        break;
      }
    }
  }
  const header = blocks[0]?.kind === 'session' ? blocks[0] : undefined;
  // A header and nothing else: the session's start is its one step (the caller decides whether to keep it).
  if (b.steps.length === 0 && header) b.add({ location: { line: header.line }, kind: 'other', text: `aider chat started at ${header.started}`, label: BARE_START });
  const steps = b.finish();
  meta.recorded = sumUsage(usages);
  return { title: titleFromSteps(steps, started ? `Aider session ${started}` : 'Aider session'), steps, meta };
}

/**
 * A notice Aider sent back to the model as a user message: an environment step, labelled by the
 * question the person answered to send it (`Attempt to fix lint errors? y`), else its first line
 * and marked failed.
 */
function markReflection(step: Step): void {
  const lines = step.text.split('\n');
  let detail: string | undefined;
  for (let k = lines.length - 1; k >= 0 && detail === undefined; k--) {
    const asked = CONFIRMATION.exec(lines[k]);
    if (asked) detail = `${asked[1]} ${asked[2]}`;
  }
  step.kind = 'environment';
  step.label = labelWith('aider reflection', detail ?? firstLine(step.text));
  // Aider asks before it sends back lint or test output or a file it added; what it sends unasked
  // is its verdict on the reply itself (edits it could not parse or apply): a failure of that reply.
  if (detail === undefined) step.isError = true;
}

/** An answered confirmation: `Add file to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y`, or `… errors? y`. */
const CONFIRMATION = /^([^?\n]{1,200}\?) (?:\([^\n]{0,200}\]: ?)?([A-Za-z][\w']{0,20})$/;

function firstLine(text: string): string {
  const line = text.trimStart();
  const end = line.indexOf('\n');
  return (end < 0 ? line : line.slice(0, end)).trim();
}

/** A reply: its prose as text, each SEARCH/REPLACE block (each whole file, in the `whole` format) as an `edit` tool call. */
function addReply(b: StepBuilder, reply: string, location: { line: number }, editFormat: string | undefined): Step[] {
  const start = b.steps.length;
  let text = reply;
  const reasoning = REASONING_BLOCK.exec(reply.slice(0, 1_000_000));
  if (reasoning) {
    b.add({ location, kind: 'thought', text: reasoning[2].trim(), label: 'thinking' });
    text = reply.slice(reasoning[0].length);
  }
  const edits = editFormat === 'whole' ? wholeFileBlocks(text) : editBlocks(text);
  if (edits.length === 0) {
    b.add({ location, kind: 'assistant', text, label: 'reply' });
    return b.steps.slice(start);
  }
  // The prose around the edits is the reply the person reads, not reasoning: `assistant` steps.
  let at = 0;
  for (const edit of edits) {
    const before = text.slice(at, edit.start).trim();
    if (before) b.add({ location, kind: 'assistant', text: before, label: 'reply' });
    const args = JSON.stringify(edit.content !== undefined ? { path: edit.path, content: edit.content } : { path: edit.path, search: edit.search, replace: edit.replace });
    b.add({ location, kind: 'tool_call', text: text.slice(edit.start, edit.end).trim(), label: edit.content !== undefined ? 'whole file' : 'edit block', tool: { name: 'edit', args, callId: `edit:${location.line}:${edit.start}` } });
    at = edit.end;
  }
  const after = text.slice(at).trim();
  if (after) b.add({ location, kind: 'assistant', text: after, label: 'reply' });
  return b.steps.slice(start);
}

/**
 * The files a notice line adds to the chat: `Added a.py to the chat` (`/add`, Aider ≥ 0.50 also
 * "Added a.py to the chat (read-only)"), or an answered "Add file to the chat? … y" (or "Add 2
 * files…") after the file names it asks about, one a line.
 */
function addedToChat(lines: readonly string[], k: number): string[] | undefined {
  const line = lines[k];
  const added = /^Added (\S.*?) to the chat(?: \(read-only\))?\.?$/.exec(line);
  if (added) return [added[1]];
  const asked = /^Add (?:file|(\d+) files) to the chat\? .*:\s*(\S+)\s*$/.exec(line);
  if (!asked || !/^y/i.test(asked[2])) return undefined;
  const names: string[] = [];
  for (let j = k - 1; j >= 0 && names.length < Number(asked[1] ?? 1); j--) {
    const name = lines[j].trim();
    if (!/^[\w./@+-]+\.\w+$|^[\w./@+-]*\/[\w.@+-]+$/.test(name)) break;
    names.unshift(name);
  }
  return names.length ? names : undefined;
}

function noticeUsage(lines: string[], model: string | undefined): RecordedUsage | undefined {
  const report = tokenReport(lines.join('\n'));
  if (!report) return undefined;
  // "sent" is LiteLLM's prompt_tokens, the whole prompt; cache hits and writes are parts of it. A real
  // line bears it out: "216k sent, 108k cache write, 1.4k received. Cost: $0.75" is Sonnet's price only so.
  return recordedUsage({ model, input: report.sent, output: report.received, cacheRead: report.cacheHit, cacheWrite: report.cacheWrite, cost: report.messageCost });
}

/**
 * Notices after a reply: applied edits answer the reply's edit calls; `Running cmd` and the lines
 * after it are a shell command the user agreed to run and its output. Returns a shell call still
 * waiting for its output.
 */
function addNotices(b: StepBuilder, lines: string[], location: { line: number }, reply: Step[], pending: Step | undefined): Step | undefined {
  let shell = pending;
  let output: string[] = [];
  let other: string[] = [];
  const flushOther = () => {
    const text = other.filter((l) => l.trim() !== '' && !/^(Tokens: |Cost: )/.test(l)).join('\n');
    if (text) b.add({ location, kind: 'other', text, label: 'notice' });
    other = [];
  };
  const flushOutput = () => {
    if (shell) b.add({ location, kind: 'tool_result', text: output.join('\n'), label: 'command output', tool: { name: '', args: '', callId: shell.tool?.callId } });
    shell = undefined;
    output = [];
  };
  // The reply's last edit of each path, built once (a reversed copy and a JSON.parse per
  // "Applied edit" line is quadratic when one reply edits many files).
  let lastEdit: Map<string, Step> | undefined;
  const editOf = (file: string) => {
    if (!lastEdit) {
      lastEdit = new Map();
      for (const s of reply) if (s.tool?.name === 'edit') lastEdit.set(String((JSON.parse(s.tool.args) as { path?: unknown }).path), s);
    }
    return lastEdit.get(file);
  };
  lines.forEach((line, k) => {
    const added = addedToChat(lines, k);
    if (added) {
      // Files the person let Aider put into the chat: their text goes to the model with the next
      // request, a read the client made (`/add a.py` -> "Added a.py to the chat"; or the files the
      // model named, each on a line, then "Add file to the chat? y").
      if (shell) flushOutput();
      other = other.filter((l) => !added.includes(l.trim()));
      flushOther();
      const callId = `add:${location.line}:${k}`;
      b.add({ location, kind: 'tool_call', text: added.join('\n'), label: 'added to the chat', byClient: true, tool: { name: 'add_to_chat', args: JSON.stringify({ paths: added }), callId } });
      b.add({ location, kind: 'tool_result', text: line, label: 'added to the chat', tool: { name: '', args: '', callId } });
      return;
    }
    const applied = /^Applied edit to (.+)$/.exec(line);
    const running = /^Running (.+)$/.exec(line);
    const commit = AUTO_COMMIT.exec(line);
    if (commit) {
      // Aider committed the edits itself (auto-commits): the commit it ran, answered by the line it printed.
      flushOther();
      flushOutput();
      const callId = `commit:${location.line}:${k}`;
      b.add({ location, kind: 'tool_call', text: line, label: 'auto-commit', byClient: true, tool: { name: 'git', args: JSON.stringify({ command: `git commit -m ${JSON.stringify(commit[2])}`, hash: commit[1] }), callId } });
      b.add({ location, kind: 'tool_result', text: line, label: 'commit', tool: { name: '', args: '', callId } });
    } else if (applied) {
      flushOther();
      const edit = editOf(applied[1]);
      b.add({ location, kind: 'tool_result', text: line, label: 'applied edit', tool: { name: '', args: '', callId: edit?.tool?.callId ?? `applied:${location.line}:${k}` } });
    } else if (running) {
      flushOther();
      flushOutput();
      shell = b.add({ location, kind: 'tool_call', text: running[1], label: 'shell command', byClient: true, tool: { name: 'shell', args: JSON.stringify({ command: running[1] }), callId: `shell:${location.line}:${k}` } });
    } else if (shell && !/^(Add command output to the chat\?|Tokens: |Cost: )/.test(line)) {
      output.push(line);
    } else {
      if (shell) flushOutput();
      other.push(line);
    }
  });
  flushOutput();
  flushOther();
  return undefined;
}
