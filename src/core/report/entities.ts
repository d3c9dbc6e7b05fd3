import type { CompactionResult } from '../compaction';
import { extractFacts, failedEdits, filesChanged, filesRead, sameTest, withoutWorkdir } from '../compaction';
import type { Step, Run } from '../model';
import { argsObject } from '../compaction';

// The loss report: the things a compaction forgot that the run acted on, read from the fact layer
// (files changed by edits that went through and files read, commands with their exit status,
// failing test ids, errors, ids, URLs and constraints the user gave, to-do items), each with the
// step that introduced it, where it survives (the summary, the rest of the context, or nowhere),
// and whether the run needed it again after the forgotten range. Paths seen only in directory
// listings, prose words and version strings are not entities.

export type EntityKind = 'file' | 'command' | 'test' | 'error' | 'url' | 'identifier' | 'constraint' | 'todo';

export interface Entity {
  text: string;
  kind: EntityKind;
  /** What the run did with it: `edited`, `read`, `exit 1`, `failing`, `in_progress`… */
  detail?: string;
  /** A command's whole text, when `text` shortens it (a heredoc's body, a long script): which command it is. */
  whole?: string;
  /** Index of the first forgotten step that introduced it. */
  firstStep: number;
  /** How many times the forgotten steps met it. */
  mentions: number;
}

export type Where = 'summary' | 'context' | 'lost';

export interface SurvivalEntity extends Entity {
  kept: boolean;
  where: Where;
  /** True when the run met it again after the forgotten range. */
  neededLater: boolean;
  /** The first step after the range that needed it. */
  laterStep?: number;
}

/** The critical entities of the steps in `indices`, in the order they were introduced. */
export function extractEntities(trajectory: Run, indices: Iterable<number>): Entity[] {
  const f = extractFacts(trajectory, indices);
  const out = new Map<string, Entity>();
  // Rows that stand for the same check run with other counts: their detail says so.
  const varied = new Set<Entity>();
  // Each entity's outcomes as a list: an outcome may hold a comma itself.
  const outcomes = new Map<Entity, string[]>();
  const note = (kind: EntityKind, text: string, step: number, detail?: string, whole?: string) => {
    const t = text.trim();
    if (t.length < 2) return;
    // Two scripts that begin alike and differ in their heredoc's body are two commands; one run
    // again with another count or timeout (`workmux capture x -n 120`, then `-n 60`) is one.
    // The same error about another temporary file (`…/.rustup/tmp/ry1fzx…_file: Operation not permitted`) is one too.
    const key = `${kind}\u0000${kind === 'command' ? sameCheck(whole ?? t) : kind === 'error' ? sameError(t) : t}`;
    const prev = out.get(key);
    if (prev) {
      prev.mentions++;
      if (kind === 'command' && (prev.whole ?? prev.text) !== (whole ?? t)) varied.add(prev);
      prev.firstStep = Math.min(prev.firstStep, step);
      // A command run twice keeps both outcomes: `exit 1, exit 0`; three say enough, the latest
      // always among them (a script run five times until it printed the flag ends with the flag).
      const seen = outcomes.get(prev) ?? (prev.detail ? [prev.detail] : []);
      if (detail && seen[seen.length - 1] !== detail) {
        const kept = seen.filter((d) => d !== detail);
        const now = [...(kept.length >= 3 ? kept.slice(0, 2) : kept), detail];
        outcomes.set(prev, now);
        prev.detail = now.join(', ');
      }
    }
    else out.set(key, { text: t, kind, firstStep: step, mentions: 1, ...(detail ? { detail } : {}), ...(whole && whole !== t ? { whole } : {}) });
  };
  const firstEditStep = (file: string) => f.edits.find((e) => e.file === file || file.endsWith(`/${e.file}`) || e.file.endsWith(`/${file}`))?.step ?? f.span?.[0] ?? 0;
  for (const c of filesChanged(f)) note('file', c.file, firstEditStep(c.file), c.actions.join(', '));
  for (const r of filesRead(f)) note('file', r, f.reads.find((x) => x.text === r || r.endsWith(`/${x.text}`))?.step ?? 0, 'read');
  for (const e of failedEdits(f)) note('error', e.error ?? `edit of ${e.file} failed`, e.step);
  // Codex's editor run through the shell (`applypatch <<'PATCH'`) is told by the files it changed.
  // A call the harness refused ran nothing: its refusal is an error, not a command run.
  for (const c of f.commands) if (!c.onlyPatch && !c.refused) note('command', withoutWorkdir(c.longCommand), c.step, c.exitCode !== undefined ? `exit ${c.exitCode}` : c.outcome, c.wholeCommand);
  // A test pytest heads `TestX.test_y` in one run and names `tests/a.py::TestX::test_y` in another is one test.
  const named = f.tests.flatMap((t) => t.failing).filter((id) => id.includes('::'));
  const namedElsewhere = (id: string) => !id.includes('::') && named.some((n) => sameTest(id, n));
  for (const t of f.tests) for (const id of t.failing) if (!namedElsewhere(id)) note('test', id, t.step, 'failing');
  for (const e of [...f.errors, ...f.moreErrors]) note('error', e.text, e.step);
  // The shell's own complaint in a command that went through (`zsh:1: command not found: av-44n`) is an error a tool reported.
  for (const c of f.commands) if (c.shellSaid) note('error', c.shellSaid, c.step);
  for (const r of f.userRefs) note(r.kind, r.text, r.step);
  for (const c of f.constraints) note('constraint', c.text, c.step);
  if (f.plan) for (const item of f.plan.items) note('todo', item.text, f.plan.step, item.status);
  for (const e of varied) e.detail = `${e.detail ? `${e.detail} · ` : ''}run ${e.mentions} times, with other counts`;
  return tellApart([...out.values()]).sort((a, b) => a.firstStep - b.firstStep);
}

// A number given as an option's value (`-n 120`, `--timeout=900`, `--limit 20`): how much or how
// long, not what is checked. A positional number (`gh issue view 1391`) names what is checked.
const OPTION_NUMBER = /(\s--?[A-Za-z][\w-]*(?:=|\s+))\d+(?:\.\d+)?(?=[\s;&|)]|$)/g;

const ANY_NUMBER = '\u0001';

/** A command as the check it makes: its options' numeric values left out. */
function sameCheck(command: string): string {
  return command.replace(OPTION_NUMBER, `$1${ANY_NUMBER}`);
}

// A name in a temporary folder (`/tmp/`, `~/.rustup/tmp/`, macOS's `/var/folders/…/T/`); one a
// program picked at random (`tmp.Gtrekx29jH`, `ry1fzx2tyam4ymju_file`) mixes letters and digits.
const TEMP_NAME = /(\/(?:tmp|temp|T)\/)([^/\s:'"]+)/gi;
const RANDOM_NAME = /^(?=.*\d)(?=.*[a-z])[\w.-]{8,}$/i;

/** An error as what went wrong: the random names of temporary files left out. */
function sameError(text: string): string {
  return text.replace(TEMP_NAME, (whole, folder: string, name: string) => (RANDOM_NAME.test(name) ? `${folder}${ANY_NUMBER}` : whole));
}

/**
 * Commands shown alike (`cat <<'EOF' > patch.py … python3 patch.py`, twice, with other bodies) say
 * where they differ, so the report never lists two rows a reader cannot tell apart.
 */
function tellApart(entities: Entity[]): Entity[] {
  const byText = new Map<string, Entity[]>();
  for (const e of entities) if (e.kind === 'command' && e.whole) byText.set(e.text, [...(byText.get(e.text) ?? []), e]);
  for (const group of byText.values()) {
    if (group.length < 2) continue;
    for (const e of group) {
      const others = group.filter((o) => o !== e).map((o) => o.whole!);
      let at = 0;
      for (const o of others) {
        let i = 0;
        while (i < e.whole!.length && i < o.length && e.whole![i] === o[i]) i++;
        at = Math.max(at, i);
      }
      const from = e.whole!.lastIndexOf(' ', at) + 1;
      e.text = `${e.text} (…${e.whole!.slice(from, from + 60).trim()}…)`;
    }
  }
  return entities;
}

function normalize(s: string): string {
  return s.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** What a reader sees of each step still in the context up to `end`, one at a time. */
function* keptTexts(result: Pick<CompactionResult, 'condensed' | 'origins'>, end: number): Generator<string> {
  for (const [i, s] of result.condensed.steps.entries()) {
    const origin = result.origins[i];
    if (origin !== null && origin !== undefined && origin <= end) yield stepText(s);
  }
}

function words(s: string): string[] {
  return normalize(s).split(/[^\p{L}\p{N}_]+/u).filter((w) => w.length >= 4);
}

/**
 * How a reader would recognise an entity in a text: the strings to look for (normalized), and
 * which of them must be there. Kept apart from any one text so that a run's context can be
 * searched step by step, never joined into one more copy of itself.
 */
interface Probe {
  needles: string[];
  named(found: readonly boolean[]): boolean;
}

const anyFound = (found: readonly boolean[]) => found.includes(true);
const countFound = (found: readonly boolean[]) => found.filter(Boolean).length;

function probeOf(e: Pick<Entity, 'text' | 'kind'>): Probe | undefined {
  const needle = normalize(e.text.replace(/\s*\[…\]$/, ''));
  if (!needle) return undefined;
  switch (e.kind) {
    case 'file': {
      // Summaries shorten paths: `/testbed/src/a/b.py` is kept as `a/b.py`, `/testbed/setup.py` as `setup.py`.
      const parts = needle.split('/').filter((p) => p && p !== '.' && p !== '..');
      return { needles: parts.length > 1 ? [needle, parts.slice(parts.length > 2 ? -2 : -1).join('/')] : [needle], named: anyFound };
    }
    case 'command': {
      const cut = needle.length > 80 ? needle.slice(0, 80) : needle;
      // The same check run with another count (`-n 120` here, `-n 200` in the summary) names it too.
      const parts = sameCheck(cut).split(ANY_NUMBER).filter((p) => p.trim() !== '');
      return parts.length > 1 || parts[0] !== cut ? { needles: parts, named: (f) => f.every(Boolean) } : { needles: [cut], named: anyFound };
    }
    case 'error': {
      // `KeyError: 'card_id' not found`: the type must appear, and most words of the message.
      const colon = needle.indexOf(':');
      if (colon < 0) return { needles: [needle], named: anyFound };
      const w = words(needle.slice(colon + 1));
      return { needles: [needle.slice(0, colon), ...w], named: (f) => f[0] && (w.length === 0 || countFound(f.slice(1)) * 2 >= w.length) };
    }
    case 'test': {
      const name = needle.split('::').pop()!;
      return { needles: name.length >= 6 && name !== needle ? [needle, name] : [needle], named: anyFound };
    }
    case 'constraint':
    case 'todo': {
      const w = words(needle);
      return { needles: w, named: (f) => w.length > 0 && countFound(f) >= Math.ceil(w.length * 0.7) };
    }
    default:
      return { needles: [needle], named: anyFound };
  }
}

function namedIn(probe: Probe | undefined, haystack: string): boolean {
  return probe !== undefined && probe.named(probe.needles.map((n) => haystack.includes(n)));
}

/**
 * For each entity, whether the texts together name it: each needle may be in any of them. The
 * texts are normalized one at a time; a run's kept context is never held whole a second time.
 */
function namedInAny(probes: readonly (Probe | undefined)[], texts: Iterable<string>): boolean[] {
  const found = probes.map((p) => (p ? p.needles.map(() => false) : []));
  const named = probes.map(() => false);
  let open = probes.map((_, i) => i).filter((i) => probes[i] !== undefined);
  for (const text of texts) {
    if (open.length === 0) break;
    const haystack = normalize(text);
    open = open.filter((i) => {
      const probe = probes[i]!;
      const f = found[i];
      probe.needles.forEach((n, k) => { if (!f[k] && haystack.includes(n)) f[k] = true; });
      if (!probe.named(f)) return true;
      named[i] = true;
      return false;
    });
  }
  return named;
}

/**
 * What a reader of the step sees: a call's arguments decoded, since the log keeps them as JSON
 * (`"cd /testbed && find . -name \\"*.py\\""`) and a command with quotes or newlines would
 * otherwise never be found in the context that still holds it.
 */
function stepText(s: Pick<Step, 'text' | 'tool'>): string {
  if (!s.tool) return s.text;
  const decoded = Object.values(argsObject(s) ?? {}).filter((v): v is string => typeof v === 'string');
  return [s.tool.name, s.tool.args, ...decoded, s.text].join('\n');
}

/**
 * Each entity of the steps a compaction forgot, masked or trimmed: `summary` when the summary
 * names it, `context` when a step still in the context right after the compaction reads it (a
 * masked placeholder reads nothing; steps after the range come later in the run), else `lost`;
 * and whether a step after the range met it again.
 */
export function forgottenEntities(trajectory: Run, result: Pick<CompactionResult, 'fates' | 'condensed' | 'origins' | 'summary' | 'range'>): SurvivalEntity[] {
  const forgotten = trajectory.steps.filter((s) => (result.fates[s.index] ?? 'kept') !== 'kept').map((s) => s.index);
  if (forgotten.length === 0) return [];
  // A masked output is read with the call it answers, so that it can be understood; the call's own
  // entities (the command) then count as kept in the context, where the call still is.
  const calls = forgotten.map((i) => trajectory.steps[i].answers).filter((i): i is number => i !== undefined);
  const entities = extractEntities(trajectory, [...forgotten, ...calls]);
  const end = result.range ? result.range[1] : Math.max(...forgotten);
  const summary = normalize([result.summary ?? '', ...result.condensed.steps.filter((_, i) => result.origins[i] === null).map((s) => s.text)].join('\n'));
  const probes = entities.map(probeOf);
  const inContext = namedInAny(probes, keptTexts(result, end));
  const laterSteps = neededAt(entities, probes, trajectory.steps.filter((s) => s.index > end));
  return entities.map((e, i) => {
    const where: Where = summary && namedIn(probes[i], summary) ? 'summary' : inContext[i] ? 'context' : 'lost';
    const laterStep = laterSteps[i];
    return { ...e, kept: where !== 'lost', where, neededLater: laterStep !== undefined, ...(laterStep !== undefined ? { laterStep } : {}) };
  });
}

/**
 * For each entity, the first later step that needs it: one that names it again. A user's
 * constraint and an unfinished to-do bind the rest of the run, so the first later step needs them.
 * One pass over the later steps, each normalized only while it is looked at: holding them all
 * normalized cost more than the run itself on a 600 MB log.
 */
function neededAt(entities: readonly Entity[], probes: readonly (Probe | undefined)[], later: readonly Step[]): (number | undefined)[] {
  const found = new Array<number | undefined>(entities.length).fill(undefined);
  if (later.length === 0) return found;
  let open: number[] = [];
  entities.forEach((e, i) => {
    if (e.kind === 'constraint' || (e.kind === 'todo' && e.detail !== 'completed')) found[i] = later[0].index;
    else open.push(i);
  });
  open = open.filter((i) => probes[i] !== undefined);
  for (const step of later) {
    if (open.length === 0) break;
    const text = normalize(stepText(step));
    open = open.filter((i) => {
      if (!namedIn(probes[i], text)) return true;
      found[i] = step.index;
      return false;
    });
  }
  return found;
}
