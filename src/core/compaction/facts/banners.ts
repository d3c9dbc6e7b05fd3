// A line a shell prints before every command's output, whatever the command (nvm's "Now using node
// v22.20.0 (npm v10.9.3)" from a profile, a login greeting). It is told by the log itself: it opens
// the results of many different programs. It says nothing of any one command, so the fact layer
// reads each result without it; "On branch main", which only `git` prints, is not one. A terminal
// harness (Terminus) shows the command after its prompt first: that echo goes too.

import type { Step } from '../../model';
import { classifyCall, withoutHeredocBodies } from './calls';
import { firstOutputLine } from './outcomes';

const MIN_RESULTS = 5;
const MIN_PROGRAMS = 3;
// How far into a result a banner can sit: below a wrapper's few header lines.
const HEAD_LINES = 6;
const PRINTS_ONLY_WHAT_IT_READS = /^(?:cat|ls|head|tail|sed|wc|pwd|echo|nl|tree|find|grep|rg)$/;

// A run is read for facts once per compaction, and a replay compacts it many times: the banners are
// the run's, found once (again when a followed run has grown).
const found = new WeakMap<readonly Step[], { length: number; banners: Set<string> }>();

/** The lines that open the results of at least three different programs, five times or more. */
export function shellBanners(steps: readonly Step[], resultOf: ReadonlyMap<number, Step>): Set<string> {
  const cached = found.get(steps);
  if (cached && cached.length === steps.length) return cached.banners;
  const banners = findBanners(steps, resultOf);
  found.set(steps, { length: steps.length, banners });
  return banners;
}

function findBanners(steps: readonly Step[], resultOf: ReadonlyMap<number, Step>): Set<string> {
  const opening = new Map<string, number[]>();
  for (const [call, result] of resultOf) {
    const head = result.text.slice(0, 2000);
    const line = firstOutputLine(head);
    // A banner has a word in it and comes before the command's own output ("(no output)" alone is the output).
    if (line && /\p{L}/u.test(line) && head.trim() !== line) opening.set(line, [...(opening.get(line) ?? []), call]);
  }
  const banners = new Set<string>();
  for (const [line, calls] of opening) {
    if (calls.length < MIN_RESULTS) continue;
    const programs = new Set<string>();
    let beforeFileText = false;
    for (const i of calls) {
      // The program that printed last: a script's output comes from its last command.
      const command = steps[i]?.tool ? classifyCall(steps[i]).command : undefined;
      const program = command ? sourceProgram(command) : undefined;
      if (program) programs.add(program);
      // A line printed before what `cat` or `ls` shows came from the shell, not the command; a
      // traceback's or a test run's header opens the output of several launchers of one program.
      if (program && PRINTS_ONLY_WHAT_IT_READS.test(program)) beforeFileText = true;
      if (programs.size >= MIN_PROGRAMS && beforeFileText) break;
    }
    if (programs.size >= MIN_PROGRAMS && beforeFileText) banners.add(line);
  }
  return banners;
}

/**
 * The program whose output a command shows: the last command of a script, and of a pipeline its
 * first stage (`pytest -x | tail -30` shows what pytest printed).
 */
function sourceProgram(command: string): string | undefined {
  const last = withoutHeredocBodies(command).split(/&&|\|\||;|\n/).map((x) => x.trim()).filter(Boolean).pop();
  return last?.split(/\|/)[0].trim().replace(/^(?:\w+=\S*\s+)+/, '').split(/\s+/)[0];
}

/** `result` without the banner lines among its first lines (after a wrapper's `Exit code:` / `Output:` header, if any). */
export function withoutBanners(result: Step | undefined, banners: ReadonlySet<string>): Step | undefined {
  if (!result || banners.size === 0) return result;
  // Only the head is split: a result of millions of lines is not.
  let end = -1;
  for (let n = 0; n < HEAD_LINES; n++) {
    end = result.text.indexOf('\n', end + 1);
    if (end < 0) break;
  }
  const head = end < 0 ? result.text : result.text.slice(0, end);
  const kept = head.split('\n').filter((l) => !banners.has(l.trim()));
  if (kept.length === head.split('\n').length) return result;
  return { ...result, text: kept.join('\n') + (end < 0 ? '' : result.text.slice(end)) };
}

/** `result` without a terminal's echo of `command` after its prompt (`root@host:/app# mkdir x`) as its first line. */
export function withoutEcho(result: Step | undefined, command: string | undefined): Step | undefined {
  const first = command?.trim().split('\n')[0].trim();
  if (!result || !first) return result;
  const text = result.text.replace(/^\s*\n/, '');
  const end = text.indexOf('\n');
  const line = (end < 0 ? text : text.slice(0, end)).trimEnd();
  return line.endsWith(first) && /[$#>%] ?$/.test(line.slice(0, line.length - first.length).trimEnd() + ' ') && line.length > first.length
    ? { ...result, text: end < 0 ? '' : text.slice(end + 1) }
    : result;
}
