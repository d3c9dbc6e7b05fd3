// The pieces of Aider's `.aider.chat.history.md`, line by line. Aider writes what the user typed
// as `#### ` lines and its own notices and command output as `> ` lines, both ending in two
// spaces (a Markdown line break); the model's replies are written as they came, so a reply's
// own `#### ` headings or `> ` quotes (without the two spaces) stay part of the reply.

export type Block =
  | { kind: 'session'; line: number; started: string; notices: string[] }
  | { kind: 'user'; line: number; text: string }
  | { kind: 'notice'; line: number; lines: string[] }
  | { kind: 'reply'; line: number; text: string };

const SESSION = /^# aider chat started at (.+?)\s*$/;
const USER = /^####( .*)?  $|^####\s*$/;
const NOTICE = /^>( .*)?  $|^>\s*$/;
// A notice of several lines gets the `> ` on its first line and the two spaces on its last, so a
// usage report whose Cost part wrapped starts with a Tokens line that has no line break of its own.
const WRAPPED_TOKENS = /^> Tokens: [\d.,]+[kM]? sent\b/;

/**
 * The lines of a text one at a time, as `text.split(/\r?\n/)` gives them, without an array of them:
 * a file of blank lines is a line per byte, and an array of its lines (and one of a reply's lines)
 * held 30 times the file (issue 23: 2 MB of blank lines peaked 58 MB above an empty run).
 */
class Lines {
  /** Index of the current line (0-based) and where it starts and ends (before its `\r\n` or `\n`). */
  index = -1;
  start = 0;
  end = -1;
  private next = 0;

  constructor(private readonly text: string) {}

  /** Moves to the next line; false after the last. */
  advance(): boolean {
    if (this.next > this.text.length) return false;
    this.index++;
    this.start = this.next;
    const nl = this.text.indexOf('\n', this.start);
    const stop = nl < 0 ? this.text.length : nl;
    this.end = nl > this.start && this.text.charCodeAt(nl - 1) === 13 ? nl - 1 : stop;
    this.next = nl < 0 ? this.text.length + 1 : nl + 1;
    return true;
  }

  get raw(): string {
    return this.text.slice(this.start, this.end);
  }

  /** A cursor at the same line, to look ahead without moving this one. */
  fork(): Lines {
    const copy = new Lines(this.text);
    copy.index = this.index;
    copy.start = this.start;
    copy.end = this.end;
    copy.next = this.next;
    return copy;
  }
}

/** Splits the file into sessions, user messages, notice blocks and replies, in order. */
export function aiderBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  // A reply is the text from its first line's start to its last line's end, cut out once.
  let reply: { line: number; start: number; end: number } | undefined;
  let inFence = false;
  let userEndsBefore = 0;
  const endReply = () => {
    if (reply) {
      const cut = text.slice(reply.start, reply.end);
      const body = trimNewlines(cut.includes('\r\n') ? cut.replace(/\r\n/g, '\n') : cut);
      if (body.trim() !== '') blocks.push({ kind: 'reply', line: reply.line, text: body });
    }
    reply = undefined;
    inFence = false;
  };
  const last = () => blocks[blocks.length - 1];
  const addNoticeLine = (lineText: string, line: number) => {
    const prev = last();
    // A usage report right under a session header (a request cut short) is a notice of its own.
    if (prev?.kind === 'session' && !/^Tokens: /.test(lineText)) prev.notices.push(lineText);
    else if (prev?.kind === 'notice' && prev.line + prev.lines.length === line) prev.lines.push(lineText);
    else blocks.push({ kind: 'notice', line, lines: [lineText] });
  };
  // A notice of several lines (Aider echoing `aider … --message <a message of many lines>`): the
  // indexes it spans, and the index before which none can end (a scan already found no end there).
  let noticeFrom = -1;
  let noticeTo = -1;
  let noEndBefore = -1;
  const noticeEnd = (at: Lines): number => {
    if (at.index < noEndBefore) return -1;
    const ahead = at.fork();
    while (ahead.advance()) {
      const raw = ahead.raw;
      if (SESSION.test(raw) || USER.test(raw)) { noEndBefore = ahead.index; return -1; }
      if (raw.endsWith('  ')) return ahead.index;
    }
    noEndBefore = ahead.index + 1;
    return -1;
  };
  const lines = new Lines(text);
  while (lines.advance()) {
    const i = lines.index;
    const raw = lines.raw;
    const line = i + 1;
    // Inside a code fence of a reply, every line is the reply's.
    if (reply && inFence) {
      reply.end = lines.end;
      if (/^\s*(```|~~~)/.test(raw)) inFence = false;
      continue;
    }
    // Outside a reply, a `> ` line without the two spaces opens a notice that ends at the first line with them.
    if (i > noticeTo && !reply && /^> \S/.test(raw) && !NOTICE.test(raw) && !WRAPPED_TOKENS.test(raw)) {
      const end = noticeEnd(lines);
      if (end > 0) { noticeFrom = i; noticeTo = end; }
    }
    if (i <= noticeTo) {
      addNoticeLine(i === noticeFrom ? raw.replace(/^>\s?/, '').trimEnd() : raw.trimEnd(), line);
      continue;
    }
    const session = SESSION.exec(raw);
    if (session) {
      endReply();
      blocks.push({ kind: 'session', line, started: session[1], notices: [] });
      continue;
    }
    if (USER.test(raw)) {
      endReply();
      const userText = raw.replace(/^####\s?/, '').trimEnd();
      const prev = last();
      // The next line of the same message continues it (tracked, not counted again: that is quadratic).
      if (prev?.kind === 'user' && userEndsBefore === line) prev.text += '\n' + userText;
      else blocks.push({ kind: 'user', line, text: userText });
      userEndsBefore = line + 1;
      continue;
    }
    // A Cost line after a Tokens line comes without the `> ` when the usage report wraps.
    if (NOTICE.test(raw) || WRAPPED_TOKENS.test(raw) || (/^Cost: \$/.test(raw) && last()?.kind === 'notice' && !reply)) {
      endReply();
      addNoticeLine(raw.replace(/^>\s?/, '').trimEnd(), line);
      continue;
    }
    if (!reply) {
      if (raw.trim() === '') continue;
      reply = { line, start: lines.start, end: lines.end };
    }
    reply.end = lines.end;
    if (/^\s*(```|~~~)/.test(raw)) inFence = true;
  }
  endReply();
  return blocks;
}

/**
 * Leading and trailing newlines cut by index: `/\n+$/` retries at every newline of an inner run of
 * blank lines, which is quadratic in the run (200 KB of blank lines took 15 s).
 */
function trimNewlines(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) === 10) start++;
  while (end > start && text.charCodeAt(end - 1) === 10) end--;
  return text.slice(start, end);
}

export interface TokenReport {
  sent?: number;
  received?: number;
  cacheWrite?: number;
  cacheHit?: number;
  messageCost?: number;
  sessionCost?: number;
}

/**
 * `Tokens: 2.4k sent, 1.1k cache write, 800 cache hit, 156 received. Cost: $0.0058 message, $0.021 session.`
 * Aider before 0.52 wrote exact counts with thousands separators (`12,963 sent`) and, before 0.50,
 * `request` where later versions write `message`.
 */
export function tokenReport(text: string): TokenReport | undefined {
  if (!/Tokens: /.test(text)) return undefined;
  const count = (what: string): number | undefined => {
    const m = new RegExp(`(\\d[\\d,]*(?:\\.\\d+)?)(k|M)? ${what}`).exec(text);
    return m ? Math.round(Number(m[1].replace(/,/g, '')) * (m[2] === 'k' ? 1000 : m[2] === 'M' ? 1_000_000 : 1)) : undefined;
  };
  const report: TokenReport = { sent: count('sent'), received: count('received'), cacheWrite: count('cache write'), cacheHit: count('cache hit') };
  const cost = /Cost: \$([\d.]+) (?:message|request), \$([\d.]+) session/.exec(text);
  if (cost) {
    report.messageCost = Number(cost[1]);
    report.sessionCost = Number(cost[2]);
  }
  return report;
}

export interface EditBlock {
  path: string;
  search: string;
  replace: string;
  /** `whole` edit format: the file's new content (no search or replace). */
  content?: string;
  start: number;
  end: number;
}

/**
 * SEARCH/REPLACE blocks in a reply, in both fencings Aider uses: the file name on the line
 * before the fence (`diff`), or as the fence's first line (`diff-fenced`).
 */
export function editBlocks(reply: string): EditBlock[] {
  const blocks: EditBlock[] = [];
  const pattern = /(?:^|\n)(?:([^\n`]+)\n)?(```[^\n]*)\n(?:([^\n<]+)\n)?<<<<<<< SEARCH\n([\s\S]*?)\n?=======\n([\s\S]*?)\n?>>>>>>> REPLACE\n```/g;
  for (let m = pattern.exec(reply); m; m = pattern.exec(reply)) {
    const path = (m[3] ?? m[1] ?? '').trim();
    blocks.push({ path, search: m[4], replace: m[5], start: m.index, end: m.index + m[0].length });
  }
  return blocks;
}

/**
 * Files a reply writes whole, as Aider's `whole` edit format asks: the path alone on a line, then
 * the file in a fence. Only read in a session whose model line says that format.
 */
export function wholeFileBlocks(reply: string): EditBlock[] {
  const blocks: EditBlock[] = [];
  const pattern = /(?:^|\n)([^\s`][^\n`]*)\n```[^\n]*\n([\s\S]*?)\n?```(?=\n|$)/g;
  for (let m = pattern.exec(reply); m; m = pattern.exec(reply)) {
    const path = m[1].trim().replace(/^\*\*(.+)\*\*$|^`(.+)`$/, '$1$2');
    // A path has no spaces and ends in a name: prose before an example ("For example:") is not one.
    if (!/^[^\s:]+$|^[A-Za-z]:\\[^\s]+$/.test(path) || /[:;,]$/.test(path)) continue;
    blocks.push({ path, search: '', replace: '', content: m[2], start: m.index, end: m.index + m[0].length });
  }
  return blocks;
}
