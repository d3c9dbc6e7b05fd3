import { main } from '../src/cli/main';

// One survey in a fresh process, so its peak memory is its own (worker threads included: they
// share the process). Prints one JSON line: { ms, cpuMs, lines, total, peakRssBytes }; cpuMs counts
// every thread of the process, so cpuMs ÷ cores is the time on an idle machine of that many cores.
//   node survey.child.js stats DIR --json …

async function run(): Promise<void> {
  const argv = process.argv.slice(2);
  const start = performance.now();
  const cpu = process.cpuUsage();
  let lines = 0;
  let last = '';
  let err = '';
  const code = await main(argv, {
    out: (s) => { lines += s.split('\n').length - 1; last = s; },
    err: (s) => { err += s; },
    interactive: false,
  });
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  let total: unknown;
  try { total = (JSON.parse(last) as { total: unknown }).total; } catch { total = undefined; }
  process.stdout.write(JSON.stringify({ code, ms, cpuMs: (used.user + used.system) / 1000, lines, total, peakRssBytes: process.resourceUsage().maxRSS * 1024, err: err.slice(0, 500) }) + '\n');
}

void run();
