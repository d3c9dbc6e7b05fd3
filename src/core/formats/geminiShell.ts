// Gemini CLI's shell tool (run_shell_command) answers the model in lines. Until late 2025 every
// field came on every call (`Command:`, `Directory:`, `Output:`, `Error: (none)`, `Exit Code: 0`,
// `Signal: (none)`, `Background PIDs: (none)`, `Process Group PGID: …`); since then `Output: …`
// comes first and the others only when they say something: `Error: …` when the command could not
// run, `Exit Code: N` only when N is not 0, `Signal: N` when a signal ended it, then the PIDs. So a
// result of that shape that names no exit code, no signal and no error exited 0; the session
// records such a call as a success either way, and a non-zero one too (its `status` is the tool's,
// not the command's).

const TRAILER = /^(Process Group PGID|Background PIDs|Signal|Exit Code): (.*)$/;

/** The exit status a Gemini CLI shell answer states or, in the later shape, implies; undefined when it says neither. */
export function geminiShellExit(text: string): number | undefined {
  const lines = text.trimEnd().split('\n');
  const fields = new Map<string, string>();
  let at = lines.length - 1;
  for (; at > 0; at--) {
    const m = TRAILER.exec(lines[at].trimEnd());
    if (!m) break;
    fields.set(m[1], m[2]);
  }
  const stated = fields.get('Exit Code');
  if (stated !== undefined) return /^-?\d+$/.test(stated) ? Number(stated) : undefined;
  // The later shape: `Output:` first, a process group last; nothing said of a signal or an error.
  const later = lines[0].startsWith('Output: ') && /^\d+$/.test(fields.get('Process Group PGID') ?? '');
  if (!later || fields.has('Signal') || /^Error: /.test(lines[at] ?? '')) return undefined;
  return 0;
}
