import type { CliIO } from '../../src/cli/args';
import { main } from '../../src/cli/main';

/** Runs the CLI in-process and keeps what it prints. */
export async function runCli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIO = { out: (s) => { out += s; }, err: (s) => { err += s; }, interactive: false };
  const code = await main(argv, io);
  return { code, out, err };
}
