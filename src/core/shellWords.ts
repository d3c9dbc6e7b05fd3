// A command given as its words (`["bash", "-lc", "ls -la"]`) as the line a shell runs, for the
// tree's previews (core/view) and the fact layer (core/compaction) alike; and Codex's apply_patch
// envelope, which decides how such a line reads.

export const PATCH_ENVELOPE = /^\*\*\* (?:Add|Update|Delete) File: \S/m;

/** Whether a shell command carries an apply_patch envelope (its result then says whether the patch went in). */
export const carriesPatch = (command: string) => PATCH_ENVELOPE.test(command);

/**
 * `["bash", "-lc", "ls -la"]` (Codex's local_shell) reads as `ls -la`; so do the Windows shells it
 * runs through, `["powershell.exe", "-NoLogo", "-NoProfile", "-Command", "Get-ChildItem"]` and
 * `["cmd.exe", "/c", "dir"]`: the shell and its options are the harness's, the last word the agent's.
 */
export function shellJoin(argv: readonly string[]): string {
  if (argv.length === 3 && /^(ba|z)?sh$/.test(argv[0]) && /^-l?c$/.test(argv[1])) return argv[2];
  const last = argv.length - 1;
  if (last >= 2 && /^(?:.*[\\/])?(?:powershell|pwsh)(?:\.exe)?$/i.test(argv[0]) && /^-(?:command|c)$/i.test(argv[last - 1])) return argv[last];
  if (last === 2 && /^(?:.*[\\/])?cmd(?:\.exe)?$/i.test(argv[0]) && /^\/c$/i.test(argv[1])) return argv[2];
  // Codex's editor given its patch as one argument (`["apply_patch", "*** Begin Patch…"]`) reads as
  // the heredoc Codex's own prompt writes it as: one command whose body is data, not commands.
  if (last === 1 && /^apply_?patch$/.test(argv[0]) && carriesPatch(argv[1])) return `${argv[0]} <<'PATCH'\n${argv[1].replace(/\n?$/, '\n')}PATCH`;
  // Each argument one shell word again: `rg -n 'a b' src`, not `rg -n a b src`.
  return argv.map((a, i) => (i > 0 && /[\s;&|<>()$`"'\\*?#~]/.test(a) ? shellQuote(a) : a)).join(' ');
}

function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
