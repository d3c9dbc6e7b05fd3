import type { Step, Turn } from './model';

type NewStep = Omit<Step, 'index' | 'turn'>;

/**
 * The empty object a step is copied onto. A `{}` has room for four fields in the object itself, so
 * a step's other fields went to a second array: about 30 bytes more per step, 1.2 MB on a 6 MB
 * session of short messages (issue 23: memory under 3× the input). Objects made by `new` get the
 * room their first instances used. Its prototype is Object's own: a step is still a plain object
 * (`deepStrictEqual`, `JSON.stringify`, structured clone see no difference).
 */
// eslint-disable-next-line @typescript-eslint/no-extraneous-class
const StepObject = function StepObject() {} as unknown as new () => object;
StepObject.prototype = Object.prototype;

/** `step` numbered `index`, on a `StepObject`: how `StepBuilder` and `StepRecorder` both make a step. */
function newStep(step: NewStep, index: number): Step {
  return Object.assign(new StepObject(), step, { index, turn: 0 });
}

/** What builds steps from a log's records: a `StepBuilder`, or a `StepRecorder` that keeps them for later. */
export interface StepSink {
  readonly steps: readonly Step[];
  add(step: NewStep): Step;
  closeOpenCalls(): void;
}

/**
 * Collects steps in order, numbers them and links tool results to the call they answer.
 * Every format adapter builds its steps through this so linking and turns behave the same everywhere.
 */
export class StepBuilder implements StepSink {
  readonly steps: Step[] = [];
  private readonly callsById = new Map<string, number>();
  /** Calls not yet answered, oldest first: a queue read from `openHead`, answered ones skipped
   * lazily (indexOf + splice per result is quadratic when thousands of calls wait for results). */
  private readonly openCalls: number[] = [];
  /**
   * Results that name a call not seen yet (Claude Code 2.1 writes parallel results before the
   * later calls): held until their call arrives, then placed right after it. `at` is where the
   * result stood, so one whose call never comes goes back there in `finish`.
   */
  private readonly early = new Map<string, { result: Step; at: number; seq: number }[]>();
  private earlySeq = 0;
  private openHead = 0;
  private readonly open = new Set<number>();
  /**
   * The log links results to calls by id: a result without one is not paired by position (a
   * call without an id then stays unanswered, and is counted so). Logs without ids pair by position.
   */
  linksByIdOnly = false;

  add(step: NewStep): Step {
    if (step.kind === 'tool_result' && step.answers === undefined) {
      // Built without `tool` rather than deleting it afterwards: `delete` turns every result into
      // a slow dictionary-mode object, about three times the memory on a million-step file.
      const { tool, ...rest } = step;
      const result = rest as Step;
      result.index = this.steps.length;
      result.turn = 0;
      const callId = tool?.callId;
      if (callId !== undefined && callId !== '' && !this.callsById.has(callId)) {
        result.tool = tool;
        const held = this.early.get(callId);
        const entry = { result, at: this.steps.length, seq: this.earlySeq++ };
        if (held) held.push(entry);
        else this.early.set(callId, [entry]);
        return result;
      }
      this.link(result, callId);
      if (result.answers === undefined && tool) result.tool = tool; // unlinked: keep the id it names
      this.steps.push(result);
      return result;
    }
    // Object.assign, not `{ ...step, index, turn }`: V8 (Node 20) runs a spread followed by more
    // properties about five times slower, which shows on files with a million steps. Onto a
    // `StepObject`, not `{}`: see there.
    return this.place(newStep(step, this.steps.length));
  }

  /**
   * A step made ahead of its place (`StepRecorder`), placed as it is rather than copied: numbered
   * here, linked as `add` links. A result is copied as `add` copies it.
   */
  adopt(step: Step): Step {
    if (step.kind === 'tool_result' && step.answers === undefined) return this.add(step);
    step.index = this.steps.length;
    step.turn = 0;
    return this.place(step);
  }

  /** A step that is not an unlinked result, numbered: indexed if it is a call, pushed, and any results held for it placed after it. */
  private place(full: Step): Step {
    if (full.kind === 'tool_call' && full.tool) {
      if (full.tool.callId) this.callsById.set(full.tool.callId, full.index);
      this.openCalls.push(full.index);
      this.open.add(full.index);
    }
    this.steps.push(full);
    const held = full.kind === 'tool_call' && full.tool?.callId ? this.early.get(full.tool.callId) : undefined;
    if (held) {
      this.early.delete(full.tool!.callId!);
      for (const { result } of held) {
        delete result.tool; // rare: the slow-object cost of `delete` does not matter here
        result.index = this.steps.length;
        this.link(result, full.tool!.callId);
        this.steps.push(result);
      }
    }
    return full;
  }

  /** Links a result to its call: by call id when the log has one, else to the oldest unanswered call. */
  private link(result: Step, callId: string | undefined): void {
    let callIndex: number | undefined;
    if (callId !== undefined) callIndex = this.callsById.get(callId);
    if (callIndex === undefined && callId === undefined && !this.linksByIdOnly) callIndex = this.oldestOpen();
    if (callIndex === undefined) return;
    this.open.delete(callIndex);
    result.answers = callIndex;
    const call = this.steps[callIndex];
    if (call?.tool && !result.toolName) result.toolName = call.tool.name;
  }

  /** Results whose call never came go back where the log wrote them; later steps renumber. */
  private placeUnclaimed(): void {
    const unclaimed = [...this.early.values()].flat().sort((a, c) => a.at - c.at || a.seq - c.seq);
    this.early.clear();
    const old = this.steps.slice();
    this.steps.length = 0;
    const newIndex: number[] = [];
    let k = 0;
    for (let i = 0; i <= old.length; i++) {
      while (k < unclaimed.length && unclaimed[k].at === i) {
        unclaimed[k].result.index = this.steps.length;
        this.steps.push(unclaimed[k++].result);
      }
      if (i === old.length) break;
      newIndex[i] = this.steps.length;
      old[i].index = this.steps.length;
      this.steps.push(old[i]);
    }
    for (const s of this.steps) if (s.answers !== undefined && newIndex[s.answers] !== undefined) s.answers = newIndex[s.answers];
  }

  /** Forget unanswered calls, e.g. at a new user message, so a later result cannot link across turns. */
  closeOpenCalls(): void {
    this.openCalls.length = 0;
    this.openHead = 0;
    this.open.clear();
  }

  private oldestOpen(): number | undefined {
    while (this.openHead < this.openCalls.length && !this.open.has(this.openCalls[this.openHead])) this.openHead++;
    return this.openCalls[this.openHead];
  }

  finish(): Step[] {
    if (this.early.size > 0) this.placeUnclaimed();
    assignTurns(this.steps);
    return this.steps;
  }
}

/**
 * Steps put in a new order, numbered again from 0: each result's `answers` follows its call (given
 * by object in `callOf`, as numbers change), and turns are derived again.
 */
export function renumberSteps(ordered: Step[], callOf: ReadonlyMap<Step, Step>): Step[] {
  const position = new Map<Step, number>();
  ordered.forEach((s, i) => position.set(s, i));
  for (const s of ordered) {
    s.index = position.get(s)!;
    if (s.answers !== undefined) s.answers = position.get(callOf.get(s)!);
  }
  assignTurns(ordered);
  return ordered;
}

/** Which call each result of `steps` answers, by object (see `renumberSteps`). */
export function callsByResult(steps: readonly Step[]): Map<Step, Step> {
  const callOf = new Map<Step, Step>();
  for (const s of steps) if (s.answers !== undefined && steps[s.answers]) callOf.set(s, steps[s.answers]);
  return callOf;
}

/**
 * A turn starts at a real user message. System steps, bookkeeping (`other`) and consecutive user
 * messages before any agent activity stay in the same turn, so a system prompt plus the task
 * make turn 0, even when a log records state changes first.
 */
export function assignTurns(steps: Step[]): void {
  const turns = new TurnCounter();
  for (const step of steps) step.turn = turns.next(step);
}

/** Turn numbers one step at a time, for a list that grows (the replay's context). */
export class TurnCounter {
  private turn = 0;
  private agentActedInTurn = false;

  /** A counter that continues from this one's state without changing it. */
  clone(): TurnCounter {
    const copy = new TurnCounter();
    copy.turn = this.turn;
    copy.agentActedInTurn = this.agentActedInTurn;
    return copy;
  }

  next(step: Step): number {
    if (step.kind === 'user' && this.agentActedInTurn) {
      this.turn++;
      this.agentActedInTurn = false;
    } else if (step.kind !== 'user' && step.kind !== 'system' && step.kind !== 'other' && step.kind !== 'environment' && step.kind !== 'tool_result' && !step.branch) {
      // A subagent's steps (a branch) are not the main agent acting: they open no turn of their own.
      // Nor is a result: it follows the call that acted, or (a file that opens with the result of a
      // call made before it, a compaction agent's) it is context carried over.
      this.agentActedInTurn = true;
    }
    return this.turn;
  }
}

export function turnsOf(steps: readonly Step[]): Turn[] {
  const turns: Turn[] = [];
  for (const step of steps) {
    const last = turns[turns.length - 1];
    if (last && last.index === step.turn) last.end = step.index;
    else turns.push({ index: step.turn, start: step.index, end: step.index });
  }
  return turns;
}

/** Text of any JSON-ish value, for steps whose content is structured. */
export function textOf(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    // Content-part arrays (`[{type:'text', text}]`, MCP's content list) read as their text, joined;
    // what a part holds but is not text (an image, audio, a linked resource) is named, not dumped.
    const parts = value.map((part) => {
      if (part && typeof part === 'object') {
        const p = part as Record<string, unknown>;
        if (typeof p.text === 'string') return p.text;
        if (p.type === 'image_url' || p.type === 'image') return '[image]';
        if (p.type === 'audio') return '[audio]';
        const resource = isRecord(p.resource) ? p.resource : p.type === 'resource_link' ? p : undefined;
        if (resource) return typeof resource.text === 'string' ? resource.text : `[resource ${String(resource.uri ?? '')}]`.replace(' ]', ']');
      }
      return typeof part === 'string' ? part : JSON.stringify(part);
    });
    return parts.filter((t) => t !== '').join('\n');
  }
  if (typeof value === 'object') return JSON.stringify(value, null, 2);
  return String(value);
}

/** Arguments as a string: JSON objects are stringified, strings kept as the model wrote them. */
export function argsOf(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A slash command the person typed (`/init`, `/model opus`): the client records it as its own event, labelled with the command. */
export const isTypedCommand = (step: Pick<Step, 'kind' | 'label'>) => step.kind === 'environment' && /^\/[\w:.-]+/.test(step.label ?? '');

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The steps of one record, made when the record is read and placed later (`replay`): for a log
 * whose later lines may still drop or replace a record (Gemini CLI's rewinds), so the record need
 * not be kept in a second form until the end. Steps are made as `StepBuilder.add` makes them and
 * numbered from 0 here; `replay` hands the same objects to a builder, which numbers them again
 * (issue 23: a 6 MB session of short messages held each message and its steps at once).
 */
export class StepRecorder implements StepSink {
  readonly steps: Step[] = [];
  /** Where open calls were closed: before the step at each position. */
  private closes: number[] | undefined;

  add(step: NewStep): Step {
    const made = newStep(step, this.steps.length);
    this.steps.push(made);
    return made;
  }

  closeOpenCalls(): void {
    (this.closes ??= []).push(this.steps.length);
  }

  /** True when this is one step, with open calls closed before it at most: what `replayOne` replays from the step alone. */
  get isOneStep(): boolean {
    return this.steps.length === 1 && (this.closes === undefined || (this.closes.length === 1 && this.closes[0] === 0));
  }

  /** True when open calls were closed before the first step. */
  get closesFirst(): boolean {
    return this.closes !== undefined && this.closes[0] === 0;
  }

  /** Does to `into` what was done here, in order. */
  replay(into: StepBuilder): void {
    let c = 0;
    for (let i = 0; i <= this.steps.length; i++) {
      while (this.closes !== undefined && c < this.closes.length && this.closes[c] === i) {
        into.closeOpenCalls();
        c++;
      }
      if (i < this.steps.length) into.adopt(this.steps[i]);
    }
  }
}

/** Replays what a one-step recorder kept (`StepRecorder.isOneStep`) from its step alone. */
export function replayOne(into: StepBuilder, step: Step, closesFirst: boolean): void {
  if (closesFirst) into.closeOpenCalls();
  into.adopt(step);
}
