import { main } from '../src/cli/main';

// One survey in a fresh process, so its peak memory is its own (worker threads included: they
// share the process). Prints one JSON line: { ms, lines, total, peakRssBytes }.
//   node survey.child.js stats DIR --json …

async function run(): Promise<void> {
  const argv = process.argv.slice(2);
  const start = performance.now();
  let lines = 0;
  let last = '';
  let err = '';
  const code = await main(argv, {
    out: (s) => { lines += s.split('\n').length - 1; last = s; },
    err: (s) => { err += s; },
    interactive: false,
  });
  const ms = performance.now() - start;
  let total: unknown;
  try { total = (JSON.parse(last) as { total: unknown }).total; } catch { total = undefined; }
  process.stdout.write(JSON.stringify({ code, ms, lines, total, peakRssBytes: process.resourceUsage().maxRSS * 1024, err: err.slice(0, 500) }) + '\n');
}

void run();
