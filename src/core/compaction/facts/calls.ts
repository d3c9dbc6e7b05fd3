// What a tool call does, for every agent whose logs we read: edits (with the file and whether it
// creates, changes or deletes it), reads, shell commands, to-do lists, searches. The tool names and
// argument keys are the published ones of each agent: each format's adapter declares its agent's
// edit, create, read and command tools (`FormatAdapter.tools`); the names many agents share (the
// OpenHands/SWE-agent/Anthropic editors, `bash`, `apply_patch`, to-do lists, searches) are here.
// Every name applies to every log: a name adds a reading of a call, never limits one to a format.

import type { FormatAdapter } from '../../formats/adapter';
import { FORMAT_ADAPTERS } from '../../formats/registry';
import type { Step } from '../../model';
import { argsObject } from '../text';
import { OPENING_NOISE } from './outcomes';
import { carriesPatch, PATCH_ENVELOPE, shellJoin } from '../../shellWords';

export { carriesPatch };

type CallKind = 'edit' | 'read' | 'shell' | 'todo' | 'search' | 'list' | 'finish' | 'other';

/** A call that is neither a command, an edit nor a read (a search, a sub-agent, an MCP tool): told by what it returned. */
export function returnsFinding(kind: CallKind): boolean {
  return kind !== 'shell' && kind !== 'edit' && kind !== 'read';
}
export type EditAction = 'created' | 'edited' | 'deleted';

interface FileTouch {
  file: string;
  action: EditAction;
}

export interface CallInfo {
  kind: CallKind;
  tool: string;
  /** Files this call writes (edit) or, for reads, the files it reads. */
  edits: FileTouch[];
  reads: string[];
  /** The shell command, for shell calls and text-mode agents' commands. */
  command?: string;
  args?: Record<string, unknown>;
}

/** Keys under which agents put the file a tool works on. */
const PATH_KEYS = ['path', 'file_path', 'filePath', 'absolutePath', 'absolute_path', 'AbsolutePath', 'target_file', 'TargetFile', 'filename', 'file', 'notebook_path', 'uri'];

const EDITOR_TOOLS = /^(str_replace_editor|str_replace_based_edit_tool|text_editor|file_editor|edit_tool)$/i;
const EDITOR_WRITES: Record<string, EditAction> = { create: 'created', str_replace: 'edited', insert: 'edited', undo_edit: 'edited', write: 'edited', edit: 'edited', append: 'edited' };
const DELETE_TOOLS = /^(delete_file|remove_file|delete)$/i;
const PATCH_TOOLS = /^(apply_patch|patch|applypatch)$/i;
const TODO_TOOLS = /^(todowrite|todo_write|write_todos|manage_todo_list|update_plan|task_tracker|update_todos?|todo)$/i;
const SEARCH_TOOLS = /^(grep|grep_search|search|search_files|search_file|search_dir|find_file|glob|codebase_search|file_search|semantic_search|websearch|web_search|google_web_search)$/i;
const LIST_TOOLS = /^(ls|list|list_files|list_directory|list_dir)$/i;
const READ_HINT = /read|view/i;
const WRITE_HINT = /write|edit|create|replace|patch|delete|save|append/i;
const FINISH_TOOLS = /^(finish|submit|attempt_completion|task_complete|complete_task|exit)$/i;

/** Edit, create, read and command tools no single agent owns: harnesses and many agents use them. */
const SHARED_TOOLS = {
  create: ['new_file'],
  edit: ['multi_edit', 'edit_file', 'edit_files', 'search_replace', 'modify_file', 'update_file'],
  read: ['view', 'view_file', 'open_file', 'cat_file', 'get_file', 'file_read'],
  command: ['bash', 'bash_command', 'sh', 'run_command', 'run', 'command', 'cmd', 'powershell', 'ipython'],
} as const;

/** Tool names by what they do, lowercase: the shared ones and every adapter's. */
interface ToolTables {
  create: ReadonlySet<string>;
  edit: ReadonlySet<string>;
  read: ReadonlySet<string>;
  shell: ReadonlySet<string>;
}

const tablesOf = new WeakMap<readonly FormatAdapter[], ToolTables>();

/** The tables for a list of adapters (the registry's by default), made once per list. */
function toolTables(adapters: readonly FormatAdapter[]): ToolTables {
  let tables = tablesOf.get(adapters);
  if (tables) return tables;
  const of = (kind: keyof typeof SHARED_TOOLS) => new Set([...SHARED_TOOLS[kind], ...adapters.flatMap((a) => a.tools?.[kind] ?? [])].map((n) => n.toLowerCase()));
  tables = { create: of('create'), edit: of('edit'), read: of('read'), shell: of('command') };
  tablesOf.set(adapters, tables);
  return tables;
}

/**
 * What `call` does. `result` lets text-mode editors name their file (`[File: a.py (12 lines total)]`);
 * `adapters` are the formats whose agents' tool names are known (the registry's).
 */
export function classifyCall(call: Step, result?: Step, adapters: readonly FormatAdapter[] = FORMAT_ADAPTERS): CallInfo {
  const tool = call.tool?.name ?? '';
  const args = argsObject(call);
  const info: CallInfo = { kind: 'other', tool, edits: [], reads: [], args };
  if (!call.tool) return info;
  const tables = toolTables(adapters);
  const base = unprefixed(tool);
  if (args) classifyJson(info, base, args, tables, result);
  else classifyText(info, base, call.tool.args, tables, result);
  return info;
}

/**
 * A tool's own name without the server or extension that namespaces it (MCP's
 * `mcp__github__create_repository`, Goose's `developer__text_editor`): what the tool does is in
 * the last part.
 */
function unprefixed(tool: string): string {
  const at = tool.lastIndexOf('__');
  return at > 0 && at < tool.length - 2 ? tool.slice(at + 2) : tool;
}

function pathOf(args: Record<string, unknown>): string | undefined {
  for (const key of PATH_KEYS) {
    const v = args[key];
    if (typeof v === 'string' && v.trim() !== '') return v.trim();
  }
  return undefined;
}

/**
 * Whether a read tool's result lists a folder rather than showing a file: OpenHands' editor says
 * so; Copilot's `view` of a directory prints its entries, one bare name a line. A path whose last
 * part has an extension is a file whatever its lines look like.
 */
function listsFolder(path: string, result: Step | undefined): boolean {
  if (!result) return false;
  if (/^Here's the files and directories/.test(result.text)) return true;
  const base = path.replace(/[\\/]+$/, '').split(/[\\/]/).pop() ?? '';
  if (/.\.[A-Za-z0-9]{1,8}$/.test(base)) return false;
  const lines = result.text.split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.length >= 2 && lines.every((l) => l.length <= 100 && /^[\w.@+-]+\/?$/.test(l));
}

/** The file a text-mode editor reports it is showing: SWE-agent's `[File: path (N lines total)]`. */
function fileHeaderOf(result: Step | undefined): string | undefined {
  const m = result && /\[File: ([^\n]+?) \(\d+ lines total\)\]/.exec(result.text);
  return m?.[1].trim();
}

function classifyJson(info: CallInfo, tool: string, args: Record<string, unknown>, tables: ToolTables, result?: Step): void {
  const name = tool.toLowerCase();
  const path = pathOf(args);
  const sub = typeof args.command === 'string' ? args.command : undefined;
  if (EDITOR_TOOLS.test(tool)) {
    if (sub === 'view' && path) {
      // Viewing a folder lists it: what a listing shows is not a file the run read.
      if (listsFolder(path, result)) { info.kind = 'list'; return; }
      info.kind = 'read';
      info.reads.push(path);
      return;
    }
    if (sub && EDITOR_WRITES[sub] && path) { info.kind = 'edit'; info.edits.push({ file: path, action: EDITOR_WRITES[sub] }); return; }
  }
  if (PATCH_TOOLS.test(tool) || (typeof args.patch === 'string' && !path)) {
    const patch = [args.input, args.patch, args.patchText, args.patch_text, args.diff].find((v) => typeof v === 'string') as string | undefined;
    if (patch) { info.kind = 'edit'; info.edits.push(...patchTouches(patch)); return; }
  }
  // A list of the files a change touched, each with its kind (Codex exec's file_change item).
  const changes = Array.isArray(args.changes) ? args.changes.filter((c): c is Record<string, unknown> => !!c && typeof c === 'object' && typeof (c as Record<string, unknown>).path === 'string') : [];
  if (changes.length > 0 && changes.length === (args.changes as unknown[]).length) {
    info.kind = 'edit';
    for (const c of changes) info.edits.push({ file: String(c.path), action: c.kind === 'add' ? 'created' : c.kind === 'delete' ? 'deleted' : 'edited' });
    return;
  }
  if (TODO_TOOLS.test(tool)) { info.kind = 'todo'; return; }
  if (tables.create.has(name) && (path ?? fileHeaderOf(result))) { info.kind = 'edit'; info.edits.push({ file: (path ?? fileHeaderOf(result))!, action: 'created' }); return; }
  if (DELETE_TOOLS.test(tool) && path) { info.kind = 'edit'; info.edits.push({ file: path, action: 'deleted' }); return; }
  if (tables.edit.has(name)) {
    const multi = Array.isArray(args.replacements) ? args.replacements : undefined;
    const files = multi ? multi.map((r) => (r && typeof r === 'object' ? pathOf(r as Record<string, unknown>) : undefined)).filter((f): f is string => !!f) : [];
    // SWE-agent 1.x edits the open file: `edit {search, replace}` names no path, its result does.
    const file = path ?? fileHeaderOf(result);
    for (const f of [...(file ? [file] : []), ...files]) info.edits.push({ file: f, action: 'edited' });
    if (info.edits.length) { info.kind = 'edit'; return; }
  }
  if (tables.read.has(name)) {
    const many = Array.isArray(args.paths) ? args.paths.filter((p): p is string => typeof p === 'string') : [];
    const files = [...(path ? [path] : []), ...many];
    if (path && many.length === 0 && listsFolder(path, result)) { info.kind = 'list'; return; }
    if (files.length) { info.kind = 'read'; info.reads.push(...files); return; }
  }
  // A tool no table names that says it reads or views, given a file and no text to write: a read.
  if (path && READ_HINT.test(tool) && !WRITE_HINT.test(tool) && !['content', 'new_string', 'old_string', 'new_str', 'text', 'patch'].some((k) => k in args)) {
    if (listsFolder(path, result)) { info.kind = 'list'; return; }
    info.kind = 'read';
    info.reads.push(path);
    return;
  }
  const command = commandArg(args, sub, tables.shell.has(name));
  if (command !== undefined && (tables.shell.has(name) || !EDITOR_TOOLS.test(tool))) {
    info.kind = 'shell';
    info.command = command;
    addShellTouches(info, command);
    return;
  }
  if (SEARCH_TOOLS.test(tool)) {
    info.kind = 'search';
    // A search in one named file (Grep's `path: D:\repo\src\palette.go`) reads that file, as `grep x a.go` does.
    if (path && namesOneFile(path)) info.reads.push(path);
    return;
  }
  if (LIST_TOOLS.test(tool)) { info.kind = 'list'; return; }
  if (FINISH_TOOLS.test(tool)) { info.kind = 'finish'; return; }
}

/** A path that names one file: no wildcard, and a last part with an extension (`palette.go`, not `src` or `*.ts`). */
const namesOneFile = (path: string) => !/[*?[\]{}]/.test(path) && /(?:^|[\\/])[^\\/]*[^\\/.]\.[A-Za-z][A-Za-z0-9]{0,7}$/.test(path);

/**
 * The command a call's arguments carry. `code` is a program in some language (a browser's or a
 * notebook's REPL): a command only for a tool the tables name as one (`ipython`, `execute_ipython_cell`).
 */
function commandArg(args: Record<string, unknown>, sub: string | undefined, shellTool = false): string | undefined {
  for (const key of ['command', 'cmd', 'script', 'code', 'keystrokes']) {
    if (key === 'code' && !shellTool) continue;
    // Terminus types its commands as keystrokes ending in a newline.
    const v = key === 'keystrokes' && typeof args[key] === 'string' ? (args[key] as string).replace(/\n$/, '') : args[key];
    if (typeof v === 'string' && v.trim() !== '' && !(key === 'command' && sub && (EDITOR_WRITES[sub] || sub === 'view'))) return unwrapShell(v);
    if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string')) return shellJoin(v as string[]);
  }
  return undefined;
}

/**
 * The same wrapper written as one string, `/bin/zsh -lc 'mkdir -p out'` (Codex exec), reads as
 * `mkdir -p out`: a login shell or a shell named by its path is the harness's. A `bash -c '…'` the
 * agent typed itself is the command it ran, and is read as typed.
 */
function unwrapShell(command: string): string {
  const head = /^(?:\S*\/)?(?:ba|z)?sh\s+-lc\s+|^\/\S*\/(?:ba|z)?sh\s+-c\s+/.exec(command);
  if (!head) return command;
  const word = oneShellWord(command.slice(head[0].length).trimEnd());
  return word ?? command;
}

/** `text` read as one shell word (quoted pieces joined, as the shell joins them), or undefined when it is more than one. */
function oneShellWord(text: string): string | undefined {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'") {
      const close = text.indexOf("'", i + 1);
      if (close < 0) return undefined;
      out += text.slice(i + 1, close);
      i = close;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === '\\' && /["\\$`]/.test(text[j + 1] ?? '')) j++;
        out += text[j];
      }
      if (j >= text.length) return undefined;
      i = j;
    } else if (/\s/.test(c)) return undefined;
    else if (c === '\\') out += text[++i] ?? '';
    else out += c;
  }
  return out;
}

/** Text-mode agents (SWE-agent, mini-swe-agent text) name the command as the tool; the rest is its arguments. */
function classifyText(info: CallInfo, tool: string, rawArgs: string, tables: ToolTables, result?: Step): void {
  const text = rawArgs.trim();
  const firstArg = text.split(/\s+/)[0]?.replace(/^["']|["']$/g, '') ?? '';
  // Arguments that open as JSON but do not parse (cut short in the log) or a redaction's
  // placeholder (`[REDACTED_ARGUMENTS len=46 sha=…]`) are a structured call's, not a command line
  // (the shell's `[ -f x ]` and `{ a; b; }` have a space after their bracket).
  if (/^(?:\{["'}]|\[(?!\s))/.test(text)) { info.kind = 'other'; return; }
  if (tables.shell.has(tool.toLowerCase())) {
    info.kind = 'shell';
    info.command = text;
    addShellTouches(info, text);
    return;
  }
  if (PATCH_TOOLS.test(tool)) { info.kind = 'edit'; info.edits.push(...patchTouches(text)); return; }
  if (/^(edit|insert|append)$/.test(tool)) {
    const file = fileHeaderOf(result);
    if (file) { info.kind = 'edit'; info.edits.push({ file, action: 'edited' }); return; }
  }
  if (/^create$/.test(tool) && firstArg) { info.kind = 'edit'; info.edits.push({ file: fileHeaderOf(result) ?? firstArg, action: 'created' }); return; }
  if (/^open$/.test(tool) && firstArg) { info.kind = 'read'; info.reads.push(firstArg); return; }
  if (SEARCH_TOOLS.test(tool)) { info.kind = 'search'; info.command = `${tool} ${text}`.trim(); return; }
  if (FINISH_TOOLS.test(tool)) { info.kind = 'finish'; return; }
  if (/^(goto|scroll_up|scroll_down)$/.test(tool)) { info.kind = 'other'; return; }
  // Anything else a text-mode agent runs is a shell command: `python reproduce.py`, `rm x.py`.
  info.kind = 'shell';
  info.command = `${tool} ${text}`.trim();
  addShellTouches(info, info.command);
}

/** Files named by an apply_patch envelope (`*** Update File: a.py`) or a unified diff (`+++ b/a.py`). */
function patchTouches(patch: string): FileTouch[] {
  const out: FileTouch[] = [];
  for (const m of patch.matchAll(/^\*\*\* (Add|Update|Delete) File: (.+)$/gm)) {
    out.push({ file: m[2].trim(), action: m[1] === 'Add' ? 'created' : m[1] === 'Delete' ? 'deleted' : 'edited' });
  }
  for (const m of patch.matchAll(/^\*\*\* Move to: (.+)$/gm)) out.push({ file: m[1].trim(), action: 'created' });
  if (out.length === 0) {
    for (const m of patch.matchAll(/^\+\+\+ (?:b\/)?(\S+)/gm)) if (m[1] !== '/dev/null') out.push({ file: m[1], action: 'edited' });
  }
  return out;
}

// A shell word may hold spaces when it was quoted or escaped (`Sample\ Project\ Demo\ Prep.vtt`).
// A Windows drive (`D:/oh-my-posh/src/a.go`) may lead the path.
// Letters of any script: a path may hold Chinese or accented folder names (`参考仓库源代码/SKILL.md`).
const FILE_TOKEN = /^(?:[A-Za-z]:(?=\/))?(?:\.{0,2}\/)?[\p{L}\p{N}_.@+-]+(?: [\p{L}\p{N}_.@+-]+)*(?:\/[\p{L}\p{N}_.@+-]+(?: [\p{L}\p{N}_.@+-]+)*)*$/u;
// A file has an extension that starts with a letter: `a.py`, `x.h`; not `repo__0.1` or `2.0`.
const looksLikeFile = (t: string) => FILE_TOKEN.test(t) && /\.[A-Za-z][A-Za-z0-9]{0,7}$/.test(t);
// What `cat`, `head` or `sed -n` is given is a file even without an extension: a path
// (`.git/hooks/post-commit`, `~/.config/entire/contexts.json.lock`), a dotfile (`.gitignore`), a
// capitalised name (`Makefile`, `LICENSE`). A count (`head -n 50`) is not.
const looksLikeReadFile = (t: string) => {
  const p = t.replace(/^~\//, './');
  return looksLikeFile(p) || (FILE_TOKEN.test(p) && /\p{L}/u.test(p) && (/\/[^/]*\p{L}/u.test(p) || /^\.[\w-]+$/.test(p) || /^[A-Z][A-Za-z]+$/.test(p)));
};

/**
 * `command` with each heredoc's body (data, not commands) cut to the line that opens it, followed by
 * `mark`. A body whose closing word never comes runs to the end of the script, as bash reads it
 * ("here-document delimited by end-of-file"): an `apply_patch << 'PATCH'` that lost its last line is
 * still one patch, not its lines run as commands. Not a here-string (`<<<`), not a shift (`1 << 2`).
 */
export function withoutHeredocBodies(command: string, mark = ''): string {
  return command.replace(/(?<!<)<<(?!<)-?\s*['"]?([A-Za-z_]\w*)['"]?[^\n]*\n[\s\S]*?(?:\n\t*\1\b|$)/g, (m) => `${m.split('\n')[0]}${mark}`);
}

/** Splits `cd x && sed -i … a.py; cat b.py | head` into its simple commands, quotes respected. */
export function shellSegments(command: string): string[] {
  return shellList(command).map((c) => c.segment);
}

/**
 * The simple commands of a shell line, each with the separator written before it (`&&`, `||`,
 * `;`, a newline, a pipe's `|`; '' before the first), quotes respected.
 */
export function shellList(command: string): { segment: string; after: string }[] {
  const list: { segment: string; after: string }[] = [];
  let current = '';
  let after = '';
  let quote: string | null = null;
  const end = (separator: string) => {
    if (current.trim()) list.push({ segment: current.trim(), after });
    current = '';
    after = separator;
  };
  // A heredoc body is data, not commands: cut it off before splitting.
  const body = withoutHeredocBodies(command);
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (quote) {
      current += ch;
      if (ch === quote && body[i - 1] !== '\\') quote = null;
      continue;
    }
    if (ch === '"' || ch === "'") { quote = ch; current += ch; continue; }
    const two = body.slice(i, i + 2);
    if (two === '&&' || two === '||') { end(two); i++; continue; }
    if (ch === ';' || ch === '\n' || (ch === '|' && body[i + 1] !== '|')) { end(ch); continue; }
    current += ch;
  }
  end('');
  return list;
}

/** The words of a simple command, quotes removed, redirections (`> f`, `2>&1`, `<<EOF`) left out. */
function words(segment: string): string[] {
  const out: string[] = [];
  let skipNext = false;
  // A backslash keeps a space or a shell character in its word (`Demo\ Prep.vtt`); before a letter
  // it is a Windows path's separator and stays.
  for (const m of segment.matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|((?:\\[\s'"()&;|<>$`]|[^\s\\]|\\(?![\s'"()&;|<>$`]))+)/g)) {
    const bare = m[3]?.replace(/\\([\s'"()&;|<>$`])/g, '$1');
    if (skipNext) { skipNext = false; continue; }
    if (bare !== undefined && /^\d*(?:>>?|<<-?|<|&>)/.test(bare)) {
      // `>` alone takes the next word as its target; `>file` and `2>&1` carry it.
      skipNext = /^\d*(?:>>?|<<-?|<|&>)$/.test(bare);
      continue;
    }
    out.push(m[1] ?? m[2] ?? bare);
  }
  return out;
}

/** Files a shell command writes (redirects, `sed -i`, `tee`, `touch`, `rm`, `mv`, `cp`) and reads (`cat`, `sed -n`, `head`…). */
function addShellTouches(info: CallInfo, command: string): void {
  // A patch fed to a program through a heredoc (`applypatch << 'PATCH'`) names the files it changes.
  if (PATCH_ENVELOPE.test(command)) info.edits.push(...patchTouches(command));
  const from = info.edits.length;
  addSegmentTouches(info, command);
  // A file the command wrote and then moved away (`awk … > /tmp/w.py && mv /tmp/w.py w.py`) was a
  // step on the way: what changed is where it went, and the file itself is gone.
  const own = info.edits.slice(from);
  const passedThrough = new Set(own.filter((e, i) => e.action === 'deleted' && own.slice(0, i).some((w) => w.file === e.file && w.action !== 'deleted')).map((e) => e.file));
  if (passedThrough.size) info.edits = [...info.edits.slice(0, from), ...own.filter((e) => !passedThrough.has(e.file))];
}

function addSegmentTouches(info: CallInfo, command: string): void {
  for (const segment of shellSegments(command)) {
    // A `>` inside quotes is text (a sed expression, an echo), not a redirect; a quoted target
    // (`cat > "drafts/03 plan.md" <<EOF`) is one word. Quotes are masked in place, so offsets hold.
    const masked = segment.replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, (q) => `${q[0]}${'_'.repeat(q.length - 2)}${q[q.length - 1]}`);
    for (const m of masked.matchAll(/(?:^|[^>&\d])>>?\s*/g)) {
      const word = /^(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([^\s;&|<>]+))/.exec(segment.slice(m.index + m[0].length));
      const target = word ? (word[1] ?? word[2] ?? word[3]) : '';
      if (!target.startsWith('/dev/') && !target.startsWith('&') && looksLikeFile(target)) info.edits.push({ file: target, action: 'edited' });
    }
    const w = words(segment);
    const cmd = w[0];
    const operands = w.slice(1).filter((x) => !x.startsWith('-'));
    if (editsInPlace(cmd, w.slice(1))) {
      // The first operand is the script (`s/a/b/`), unless it came after -e; the rest are the files.
      for (const f of operands.slice(1).filter(looksLikeFile)) info.edits.push({ file: f, action: 'edited' });
    } else if (cmd === 'sed' || cmd === 'cat' || cmd === 'head' || cmd === 'tail' || cmd === 'nl' || cmd === 'less' || cmd === 'more' || cmd === 'bat' || POWERSHELL_READ.test(cmd)) {
      // PowerShell's paths are Windows paths: `app\service.py` is `app/service.py`.
      const named = POWERSHELL_READ.test(cmd) ? operands.map((o) => o.replace(/\\/g, '/')) : operands;
      const files = (cmd === 'sed' ? named.slice(1) : named).filter(looksLikeReadFile);
      info.reads.push(...files);
    } else if (cmd === 'grep' || cmd === 'rg') {
      info.reads.push(...searchedPaths(w.slice(1)).filter(looksLikeFile));
    } else if (POWERSHELL_WRITES.test(cmd)) {
      const action = /^(?:remove-item|ri|del|erase)$/i.test(cmd) ? 'deleted' as const : /^(?:new-item|ni)$/i.test(cmd) ? 'created' as const : 'edited' as const;
      // New-Item makes folders too: only `-ItemType File` (or no type, with a file's name) is a file.
      const folder = action === 'created' && w.some((x, i) => /^-itemtype$/i.test(w[i - 1] ?? '') && !/^file$/i.test(x));
      if (!folder) info.edits.push(...powershellPaths(w.slice(1)).filter(looksLikeFile).map((f) => ({ file: f, action })));
    } else if (cmd === 'tee') {
      info.edits.push(...operands.filter(looksLikeFile).map((f) => ({ file: f, action: 'edited' as const })));
    } else if (cmd === 'touch') {
      info.edits.push(...operands.filter(looksLikeFile).map((f) => ({ file: f, action: 'created' as const })));
    } else if (cmd === 'rm') {
      info.edits.push(...operands.filter(looksLikeFile).map((f) => ({ file: f, action: 'deleted' as const })));
    } else if ((cmd === 'mv' || cmd === 'cp') && operands.length === 2) {
      if (cmd === 'mv' && looksLikeFile(operands[0])) info.edits.push({ file: operands[0], action: 'deleted' });
      if (looksLikeFile(operands[1])) info.edits.push({ file: operands[1], action: 'created' });
    }
  }
}

// grep's and rg's options that take a value (`-g '*.md'`, `-A 3`); with `-e`/`-f` every operand is a path.
const SEARCH_VALUE_OPTIONS = /^(?:-[ABCefgmMtTd]|--(?:glob|iglob|type|type-not|max-count|max-depth|context|after-context|before-context|regexp|file|include|exclude|exclude-dir))$/;

/** The paths a grep or rg searches: its operands past the pattern, the values of its options left out. */
function searchedPaths(args: readonly string[]): string[] {
  if (args.includes('--files')) return []; // rg --files lists the files it would search: it reads none
  const operands: string[] = [];
  let patternGiven = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '-e' || a === '-f' || a === '--regexp' || a === '--file') patternGiven = true;
    if (SEARCH_VALUE_OPTIONS.test(a)) { i++; continue; }
    if (!a.startsWith('-')) operands.push(a);
  }
  return patternGiven ? operands : operands.slice(1);
}

// PowerShell's commands that write, make or remove a file (`… | Set-Content -Encoding UTF8 out.md`).
const POWERSHELL_WRITES = /^(?:set-content|add-content|out-file|new-item|ni|remove-item|ri|del|erase)$/i;
// Their parameters that take a value which is not the path.
const POWERSHELL_VALUE_PARAMS = /^-(?:encoding|value|itemtype|type|width|stream|filter|include|exclude|delimiter|name)$/i;

/** The paths a PowerShell command names (`-Path`/`-LiteralPath`/`-FilePath`, else its first operand), as slashed paths. */
function powershellPaths(args: readonly string[]): string[] {
  const named: string[] = [];
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (/^-(?:path|literalpath|filepath)$/i.test(a)) { if (args[i + 1]) named.push(args[++i]); continue; }
    if (POWERSHELL_VALUE_PARAMS.test(a)) { i++; continue; }
    if (!a.startsWith('-')) operands.push(a);
  }
  return (named.length > 0 ? named : operands.slice(0, 1)).map((p) => p.replace(/\\/g, '/'));
}


/** Whether the command is an apply_patch envelope and nothing else, past a `cd` into where it applies. */
export function onlyPatch(command: string): boolean {
  return carriesPatch(command) && shellSegments(command).filter((s) => !/^\s*cd\s/.test(s)).length === 1;
}

/** The shell command a call ran, if it ran one (text-mode commands included). */
export function commandOf(call: Step): string | undefined {
  const info = classifyCall(call);
  return info.kind === 'shell' ? info.command : undefined;
}

export type CommandEffect = 'read' | 'change' | 'run';

/**
 * Whether a stream editor rewrites its files: `sed -i`, `sed -i ''`, `perl -pi -e`, `perl -i -0777
 * -pe`, `ruby -pi`, `gawk -i inplace`. Perl's and Ruby's -i may be bundled with other switches.
 */
function editsInPlace(cmd: string, args: readonly string[]): boolean {
  if (cmd === 'sed') return args.some((a) => /^-[nErsuz]*i/.test(a) || a.startsWith('--in-place'));
  // Only switches that take no argument may come before it in a bundle (`-Ilib` is an include path).
  if (cmd === 'perl' || cmd === 'ruby') return args.some((a) => /^-[0-9lnpasw]*i/.test(a));
  if (cmd === 'awk' || cmd === 'gawk') return args.some((a, i) => a === 'inplace' && args[i - 1] === '-i');
  return false;
}

// Programs that only look: they print files, listings, searches, state.
const LOOKS = /^(?:cat|head|tail|less|more|bat|nl|wc|ls|ll|la|tree|find|fd|grep|egrep|fgrep|rg|ag|ack|awk|cut|sort|uniq|diff|cmp|file|stat|du|df|pwd|cd|pushd|popd|echo|printf|which|type|whereis|command|env|printenv|date|whoami|id|uname|hostname|ps|jq|yq|xxd|od|hexdump|strings|md5sum|sha\d*sum|realpath|readlink|dirname|basename|true|false|test|\[|sleep|history|man|help|source|\.|export|set|column|tr|sed|view|open|locate|lsof|free|nproc|python3? -V|node -v)$/;
// PowerShell's own (its names are case-insensitive): a Codex or Claude Code run on Windows reads with
// `Get-Content app\service.py -Raw` and lists with `Get-ChildItem` or `dir`.
const POWERSHELL_READ = /^(?:get-content|gc)$/i;
const POWERSHELL_LOOKS = /^(?:get-content|gc|get-childitem|gci|dir|select-string|sls|get-location|get-item|test-path|resolve-path|select-object|select|where-object|where|sort-object|format-table|ft|format-list|fl|measure-object|measure|write-output|write-host|out-host|out-string|get-date)$/i;
// …and its commands that change files (`Remove-Item`, `Set-Content`, `New-Item`, and their aliases).
const POWERSHELL_CHANGES = /^(?:remove-item|ri|del|erase|rd|move-item|mi|move|copy-item|cpi|copy|new-item|ni|set-content|sc|add-content|ac|out-file|rename-item|rni|clear-content|clc|expand-archive|compress-archive)$/i;
const GIT_LOOKS = /^(?:show|diff|log|status|blame|grep|ls-files|ls-tree|rev-parse|describe|shortlog|reflog|cat-file|whatchanged|config|remote|branch|tag|help|version)$/;
const CHANGES = /^(?:mkdir|touch|rm|rmdir|mv|cp|ln|chmod|chown|tee|patch|truncate|dd|install|unzip|gunzip|untar|rsync|scp|kill|pkill|killall|systemctl|service|docker|kubectl|terraform|useradd|crontab)$/;
const INSTALLERS = /^(?:pip3?|uv|poetry|conda|mamba|npm|yarn|pnpm|bun|apt|apt-get|brew|cargo|gem|go|composer|dnf|yum|apk|pipx|rustup|nvm)$/;

/** A segment's program without what runs it (`sudo`, `timeout 60`, `FOO=1`) and its path, and the program's arguments. */
function programOf(segment: string): { cmd: string; args: string[] } {
  let w = words(segment);
  while (w.length && (/^\w+=/.test(w[0]) || /^(?:sudo|time|nohup|timeout|xargs|env|exec|nice)$/.test(w[0]) || (/^\d+[smh]?$/.test(w[0]) && w.length > 1))) w = w.slice(1);
  while (w.length && w[0].startsWith('-') && w.length > 1) w = w.slice(1); // xargs -0, timeout -s KILL
  return { cmd: (w[0] ?? '').replace(/^.*\//, ''), args: w.slice(1) };
}

// What an installer does to a project's dependencies: adds, removes, upgrades or links them.
const INSTALL_VERBS = /^(?:install|add|remove|uninstall|update|upgrade|get|i|ci|link|unlink)$/;

/** A program that adds, removes or upgrades a dependency: `npm ci`, `uv pip install`, `python -m pip uninstall`. */
function installs(cmd: string, args: readonly string[]): boolean {
  if (INSTALLERS.test(cmd)) return args.some((a) => INSTALL_VERBS.test(a));
  return /^python\d*(?:\.\d+)?$/.test(cmd) && args[0] === '-m' && args[1] === 'pip' && args.some((a) => /^(?:install|uninstall)$/.test(a));
}

/** Whether any part of a shell command installs or removes a dependency (the DEPS a summary lists). */
export function installsDependency(command: string): boolean {
  return shellSegments(command).some((segment) => {
    const { cmd, args } = programOf(segment);
    return installs(cmd, args);
  });
}

/**
 * What a shell command does to the world: `read` when every part only looks (`cat`, `sed -n`,
 * `rg`, `git show`, `ls`), `change` when a part changes files, the repository or the environment
 * (`sed -i`, a redirect, `git commit`, `pip install`, `rm`), else `run` (scripts, tests, builds).
 */
export function commandEffect(command: string): CommandEffect {
  if (PATCH_ENVELOPE.test(command)) return 'change';
  let effect: CommandEffect = 'read';
  for (const segment of shellSegments(command)) {
    const unquoted = segment.replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, '""');
    if (/(?:^|[^>&\d2])>>?\s*(?!\/dev\/|&)[^\s;&|<>]/.test(unquoted)) return 'change';
    const { cmd, args } = programOf(segment);
    if (!cmd) continue;
    if (cmd === 'sed' || cmd === 'perl' || cmd === 'awk' || cmd === 'gawk' || cmd === 'ruby') {
      if (editsInPlace(cmd, args)) return 'change';
      // A perl or ruby script runs a program; sed and awk without -i only print.
      if ((cmd === 'perl' || cmd === 'ruby') && effect === 'read') effect = 'run';
      continue;
    }
    if (cmd === 'git') {
      const at = args.findIndex((a) => !a.startsWith('-') && !/^[\w.-]+=/.test(a));
      const sub = args[at] ?? '';
      // `git worktree list`, `git stash list`, `git submodule status`: a subcommand that only reports.
      const reports = /^(?:worktree|stash|submodule|notes)$/.test(sub) && /^(?:list|show|status)$/.test(args[at + 1] ?? '');
      if (reports) continue;
      if (!GIT_LOOKS.test(sub) || (sub === 'branch' && args.some((a) => /^-[dDmM]$/.test(a) || !a.startsWith('-') && a !== 'branch'))) return 'change';
      continue;
    }
    if (cmd === 'find' && args.some((a) => a === '-delete' || a === '-exec' && /\b(rm|sed|mv|chmod)\b/.test(args.join(' ')))) return 'change';
    if (installs(cmd, args)) return 'change';
    if (/^python\d*(?:\.\d+)?$/.test(cmd) && args[0] === '-m' && /^(?:pip|venv)$/.test(args[1] ?? '')) return args[1] === 'venv' ? 'change' : 'run';
    if ((cmd === 'curl' && args.some((a) => /^-[oO]$|^--output$/.test(a))) || cmd === 'wget') return 'change';
    if (cmd === 'tar' && args.some((a) => /^-?\w*[xc]/.test(a))) return 'change';
    if (CHANGES.test(cmd) || POWERSHELL_CHANGES.test(cmd)) return 'change';
    if (!LOOKS.test(cmd) && !POWERSHELL_LOOKS.test(cmd)) effect = 'run';
  }
  return effect;
}

/** Keys under which editors put the text an edit writes, and the text it replaces. */
const NEW_TEXT_KEYS = ['new_string', 'new_str', 'newString', 'new_text', 'replacement', 'content', 'file_text', 'contents', 'text'];
const OLD_TEXT_KEYS = ['old_string', 'old_str', 'oldString', 'old_text'];

// A line that says nothing on its own: blank, a bracket, a bare keyword, a comment marker (and,
// as for a file's opening, an import or a shebang).
const BARE_LINE = /^[\s{}()[\];,<>/*#'"`|-]*$|^(?:else|end|fi|done|\}\s*else\s*\{|return;?|pass|break;?)$/;

/**
 * What an edit call puts into its file that was not there: the lines of its new text missing from
 * the text it replaces (each pair of a multi-edit), a written file's lines, a patch's `+` lines.
 * In order, each once, without lines that say nothing on their own. From the call's arguments,
 * whatever the tool: a hint the summary may show beside the file, never a verdict.
 */
export function addedLines(args: Record<string, unknown> | undefined, command?: string): string[] {
  const out: string[] = [];
  const add = (newText: string, oldText = '') => {
    const old = new Set(oldText.split('\n').map((l) => l.trim()));
    for (const raw of newText.split('\n')) {
      const line = raw.trim();
      if (line && !BARE_LINE.test(line) && !OPENING_NOISE.test(line) && !old.has(line) && !out.includes(line)) out.push(line);
    }
  };
  const pair = (o: Record<string, unknown>) => {
    const n = NEW_TEXT_KEYS.map((k) => o[k]).find((v): v is string => typeof v === 'string');
    const o2 = OLD_TEXT_KEYS.map((k) => o[k]).find((v): v is string => typeof v === 'string');
    if (n !== undefined) add(n, o2);
  };
  if (args) {
    pair(args);
    if (Array.isArray(args.edits)) for (const e of args.edits) if (e && typeof e === 'object') pair(e as Record<string, unknown>);
  }
  const patch = command ?? (typeof args?.input === 'string' ? args.input : typeof args?.patch === 'string' ? args.patch : undefined);
  if (patch && (carriesPatch(patch) || /^\+\+\+ /m.test(patch))) add(patch.split('\n').filter((l) => /^\+(?!\+\+)/.test(l)).map((l) => l.slice(1)).join('\n'));
  return out;
}
