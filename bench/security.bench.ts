// `npm run bench`: bounded work on the red-team inputs of issue 14. Each command runs in a child
// process; its wall time and peak RSS (from /usr/bin/time -v, else the child's own maxRSS) are
// printed beside the target. Sizes are configurable so a quick run is possible on a shared machine:
//   ATL_BENCH_SEC_OPENHANDS_MB  the OpenHands V0 file (default 600)
//   ATL_BENCH_SEC_MESSAGE_MB    the single message (default 200)
//   ATL_BENCH_SEC_RUN_KB        the base64 log with blank areas (default 300)
//   ATL_BENCH_SEC_ISSUE23=0     skips issue 23's red-team payloads (ATIF fan-out, OTLP, span stream, …)
//   ATL_BENCH_SEC_STOP_S        stops one of those runs after this many seconds (default 60)
//   ATL_BENCH_SEC_REPEATS       runs of each of those payloads; the median peak is shown (default 3)
// Inputs are generated in a temporary folder and removed afterwards.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { corpus, REPO_ROOT } from '../test/helpers/paths';
import { aiderBlanks, atifFanout, base64NearPrivateKey, clineXmlParameters, geminiRewinds, opencodeSummaries, otlpDocument, sized, spanStream } from '../test/helpers/hostilePayloads';

const MB = 1024 * 1024;
const OPENHANDS_MB = Number(process.env.ATL_BENCH_SEC_OPENHANDS_MB ?? 600);
const MESSAGE_MB = Number(process.env.ATL_BENCH_SEC_MESSAGE_MB ?? 200);
const RUN_KB = Number(process.env.ATL_BENCH_SEC_RUN_KB ?? 300);
const CLI = path.join(REPO_ROOT, 'out', 'src', 'cli', 'main.js');
const TIME = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

/** Writes `parts()` to `file` piece by piece, never holding the whole input in this process. */
function writeStreamed(file: string, parts: Iterable<string>): number {
  const fd = fs.openSync(file, 'w');
  try {
    for (const part of parts) fs.writeSync(fd, part);
  } finally {
    fs.closeSync(fd);
  }
  return fs.statSync(file).size;
}

/** An OpenHands V0 event list of at least `mb` MB: the corpus run's events repeated with fresh ids. */
function* openHandsEvents(mb: number): Generator<string> {
  const events = JSON.parse(fs.readFileSync(corpus('openhands-v0/basic_gui_mode.json'), 'utf8')) as { id: number; cause?: number }[];
  const body = events.slice(1);
  const blockBytes = Buffer.byteLength(JSON.stringify(body));
  const copies = Math.ceil((mb * MB) / blockBytes);
  yield '[' + JSON.stringify(events[0]);
  let id = events[0].id + 1;
  for (let c = 0; c < copies; c++) {
    const shift = id - body[0].id;
    let chunk = '';
    for (const e of body) {
      chunk += ',' + JSON.stringify({ ...e, id: e.id + shift, ...(typeof e.cause === 'number' ? { cause: e.cause + shift } : {}) });
    }
    id += body.length;
    yield chunk;
  }
  yield ']';
}

/** A chat log whose one tool output is `mb` MB of build-log lines. */
function* singleMessage(mb: number): Generator<string> {
  yield JSON.stringify({ messages: [
    { role: 'system', content: 'You are an agent.' }, { role: 'user', content: 'Build it.' },
    { role: 'assistant', content: 'Running the build.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"cmd":"make"}' } }] },
  ] }).slice(0, -2) + ',{"role":"tool","tool_call_id":"c1","content":"';
  yield* buildLog(mb);
  yield '"},{"role":"assistant","content":"Done."}]}';
}

/** A Claude Code session whose one tool result is `mb` MB, on one JSON Lines record. */
function* claudeCodeSession(mb: number): Generator<string> {
  const base = { isSidechain: false, userType: 'external', cwd: '/repo', sessionId: 's1', version: '2.0.14', gitBranch: 'main' };
  const model = 'claude-sonnet-4-5-20250929';
  const usage = { input_tokens: 10, output_tokens: 5 };
  yield JSON.stringify({ ...base, parentUuid: null, type: 'user', uuid: 'u1', timestamp: '2026-01-01T00:00:00Z', message: { role: 'user', content: 'Build it.' } }) + '\n';
  yield JSON.stringify({ ...base, parentUuid: 'u1', type: 'assistant', uuid: 'a1', timestamp: '2026-01-01T00:00:01Z', message: { model, id: 'm1', type: 'message', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'make' } }], usage } }) + '\n';
  const [before, after] = JSON.stringify({ ...base, parentUuid: 'a1', type: 'user', uuid: 'u2', timestamp: '2026-01-01T00:00:02Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: '@@' }] } }).split('@@');
  yield before;
  yield* buildLog(mb);
  yield after + '\n';
  yield JSON.stringify({ ...base, parentUuid: 'u2', type: 'assistant', uuid: 'a2', timestamp: '2026-01-01T00:00:03Z', message: { model, id: 'm2', type: 'message', role: 'assistant', content: [{ type: 'text', text: 'Done.' }], usage } }) + '\n';
}

/** `mb` MB of build-log lines, escaped as they are inside a JSON string. */
function* buildLog(mb: number): Generator<string> {
  const line = 'INFO 2026-01-01 12:00:00 building module src/core/io/load.ts ok (1234 ms)\\n';
  const chunk = line.repeat(Math.ceil(MB / line.length));
  for (let n = 0; n < mb; n++) yield chunk;
}

/** A chat log with a base64 screenshot whose blank areas are long runs of one character class. */
function base64Log(kb: number): string {
  const runs = Math.max(1, Math.round((kb * 1024) / 100_000));
  const shot = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA' + Array.from({ length: runs }, (_, i) => 'A'.repeat(70_000) + `Zm9v${i}` + '/'.repeat(30_000)).join('QUJD') + '==';
  return JSON.stringify({ messages: [
    { role: 'system', content: 'You are an agent.' }, { role: 'user', content: 'Fix the layout bug in the screenshot.' },
    { role: 'assistant', content: 'Taking a screenshot.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'screenshot', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: shot },
    { role: 'assistant', content: 'The header overlaps; fixed.' },
  ] });
}

interface Run { ms: number; rssMB: number; code: number | null; err: string; cpuMs?: number }

/** Preloaded into the CLI's process: prints its peak RSS at exit, as /usr/bin/time -v words it. */
const PEAK_PRELOAD = path.join(os.tmpdir(), `atl-bench-peak-rss-${process.pid}.js`);
fs.writeFileSync(PEAK_PRELOAD, `process.on('exit', () => { const u = process.resourceUsage(); process.stderr.write('Maximum resident set size (kbytes): ' + u.maxRSS + '\\nCPU microseconds: ' + (u.userCPUTime + u.systemCPUTime) + '\\n'); });\n`);
process.on('exit', () => fs.rmSync(PEAK_PRELOAD, { force: true }));

/**
 * Runs the CLI as its own main module (so it starts as `agent-trace-lens` does, collector settings
 * included); with `timeoutMs`, the child itself (not /usr/bin/time, which would leave it running)
 * is killed then, and the peak RSS comes from the child's own process.resourceUsage().maxRSS.
 */
function run(args: string[], timeoutMs?: number): Run {
  const start = performance.now();
  const r = TIME && !timeoutMs
    ? spawnSync(TIME, ['-v', process.execPath, CLI, ...args], { encoding: 'utf8', maxBuffer: 64 * MB })
    : spawnSync(process.execPath, ['-r', PEAK_PRELOAD, CLI, ...args], { encoding: 'utf8', maxBuffer: 64 * MB, timeout: timeoutMs, killSignal: 'SIGKILL' });
  const ms = performance.now() - start;
  const kb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr)?.[1] ?? NaN);
  const cpu = /CPU microseconds: (\d+)/.exec(r.stderr)?.[1];
  const err = r.signal ? `stopped after ${((timeoutMs ?? 0) / 1000).toFixed(0)} s (${r.signal})` : r.stderr.split('\n').filter((l) => l.startsWith('agent-trace-lens:')).pop() ?? '';
  return { ms, rssMB: kb / 1024, code: r.status, err, cpuMs: cpu === undefined ? undefined : Number(cpu) / 1000 };
}

function line(label: string, value: string): void {
  console.log(`  ${label.padEnd(44)} ${value}`);
}

function report(label: string, r: Run, inputMB: number | undefined, targetMs?: number): void {
  const outcome = r.code === 0 ? 'exit 0' : `exit ${r.code}: ${r.err.slice(0, 160)}`;
  const time = `${(r.ms / 1000).toFixed(1)} s${targetMs ? ` (target ≤ ${targetMs / 1000} s: ${r.ms <= targetMs ? 'met' : 'MISSED'})` : ''}`;
  const rss = inputMB ? `, peak RSS ${r.rssMB.toFixed(0)} MB = ${(r.rssMB / inputMB).toFixed(2)}× input (target < 3×: ${r.rssMB < 3 * inputMB && r.code === 0 ? 'met' : 'MISSED'})` : `, peak RSS ${r.rssMB.toFixed(0)} MB`;
  line(label, `${time}${rss}; ${outcome}`);
}

/**
 * Issue 23's red-team payloads, each opened by the CLI in a child process, with its time and peak
 * RSS beside the bound (under 5 s; under 3× the input in memory). A Node process holds about
 * 40–60 MB before it reads anything, so memory is given as peak RSS above that of the same
 * command on a one-line file, divided by the input's size.
 */
const STOP_MS = Number(process.env.ATL_BENCH_SEC_STOP_S ?? 60) * 1000;
/** Runs of each payload; the median peak is shown (ATL_BENCH_SEC_REPEATS). */
const REPEATS = Math.max(1, Number(process.env.ATL_BENCH_SEC_REPEATS ?? 3));

function issue23(dir: string): void {
  console.log(`\nIssue 23 red-team payloads (bounds: under 5 s; peak RSS above an empty run under 3× the input, or under 16 MB for a small input)`);
  const tiny = path.join(dir, 'tiny.jsonl');
  fs.writeFileSync(tiny, JSON.stringify({ role: 'user', content: 'hi' }) + '\n');
  const base = run(['stats', tiny], STOP_MS).rssMB;
  const secret = (kb: number) => JSON.stringify({ messages: [
    { role: 'user', content: 'Rotate the deploy key.' },
    { role: 'assistant', content: 'Reading it.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"cmd":"cat key"}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: base64NearPrivateKey(kb * 1024) },
  ] });
  // `tenfold`: the same shape at ten times the size, for inputs whose bound is the 16 MB floor: a
  // floor hides memory that grows with the input (2 MB of Aider blank lines once peaked 58 MB above
  // an empty run while 200 KB stayed under 16 MB), so their verdict also needs the tenfold run under 3×.
  const payloads: { label: string; name: string; text: string; tenfold?: () => string; args: (file: string) => string[] }[] = [
    { label: 'ATIF subagent fan-out, four deep', name: 'fanout.json', text: sized((n) => atifFanout(n), 9.8 * 1024, 10), tenfold: () => sized((n) => atifFanout(n), 98 * 1024, 10), args: (f) => ['stats', f] },
    { label: 'OTLP document, 23 MB', name: 'trace.json', text: sized(otlpDocument, 23 * MB), args: (f) => ['stats', f] },
    { label: 'console span stream, 15 MB', name: 'spans.json', text: sized(spanStream, 15 * MB), args: (f) => ['stats', f] },
    { label: 'Gemini CLI $rewindTo, 6 MB', name: 'session.jsonl', text: sized(geminiRewinds, 6 * MB), args: (f) => ['stats', f] },
    { label: 'OpenCode summary messages, 6 MB', name: 'export.json', text: sized(opencodeSummaries, 6 * MB), args: (f) => ['stats', f] },
    { label: 'Aider blank lines, 200 KB', name: '.aider.chat.history.md', text: aiderBlanks(200 * 1024), tenfold: () => aiderBlanks(2000 * 1024), args: (f) => ['stats', f] },
    { label: 'Cline XML parameters, 2 MB', name: 'api_conversation_history.json', text: sized(clineXmlParameters, 2 * MB, 1000), tenfold: () => sized(clineXmlParameters, 20 * MB, 1000), args: (f) => ['stats', f] },
    { label: 'base64 near "PRIVATE KEY", 300 KB: convert --to atif', name: 'key.json', text: secret(300), tenfold: () => secret(3000), args: (f) => ['convert', f, '--to', 'atif', '--out', f + '.atif.json', '--force'] },
  ];
  const rows: string[][] = [['payload', 'input', 'time', '/ 5 s', 'CPU', 'peak RSS', 'above empty', 'runs', '/ input', 'bound', '10× input: above / input', 'verdict']];
  const notes: string[] = [];
  for (const p of payloads) {
    const file = path.join(dir, p.name);
    fs.writeFileSync(file, p.text);
    const size = fs.statSync(file).size / MB;
    // Peak RSS of one run depends on when V8's concurrent collector happens to run (a 6 MB
    // session peaked 25 to 51 MB above an empty run in five runs of the same build): each payload
    // runs REPEATS times, and the run with the median peak is the one shown.
    const runs = Array.from({ length: REPEATS }, () => run(p.args(file), STOP_MS));
    const r = runs.sort((a, b) => a.rssMB - b.rssMB)[Math.floor(runs.length / 2)];
    const spread = runs.length > 1 ? `${Math.max(0, runs[0].rssMB - base).toFixed(0)}–${Math.max(0, runs[runs.length - 1].rssMB - base).toFixed(0)} MB` : '';
    const above = Math.max(0, r.rssMB - base);
    const inTime = r.ms < 5000 && r.code === 0;
    // A few MB above an empty run is the collector's slack, not the input: small files pass under 16 MB.
    const bound = Math.max(3 * size, 16);
    const tenfold = bound > 3 * size && p.tenfold ? tenfoldRun(file, p.tenfold(), p.args, base) : undefined;
    const inMemory = above < bound && r.code === 0 && (tenfold === undefined || (tenfold.code === 0 && tenfold.above < Math.max(3 * tenfold.size, 16)));
    const sizeText = size >= 1 ? `${size.toFixed(1)} MB` : `${(size * 1024).toFixed(1)} KB`;
    const known = !Number.isNaN(r.rssMB);
    rows.push([
      p.label, sizeText, `${(r.ms / 1000).toFixed(2)} s`, (r.ms / 5000).toFixed(2), r.cpuMs === undefined ? '' : `${(r.cpuMs / 1000).toFixed(2)} s`,
      known ? `${r.rssMB.toFixed(0)} MB` : 'unknown', known ? `${above.toFixed(0)} MB` : '', spread, known ? `${(above / size).toFixed(2)}×` : '',
      bound > 3 * size ? '< 16 MB' : '< 3×', tenfold ? (tenfold.code === 0 ? `${tenfold.above.toFixed(0)} MB / ${tenfold.size.toFixed(1)} MB = ${(tenfold.above / tenfold.size).toFixed(2)}×` : `exit ${tenfold.code}`) : '', r.code !== 0 ? `exit ${r.code}` : inTime && inMemory ? 'met' : `MISSED${inTime ? '' : ' time'}${inMemory ? '' : ' memory'}`,
    ]);
    if (r.code !== 0) notes.push(`${p.label}: ${r.err.slice(0, 160)}`);
    fs.rmSync(file, { force: true });
    fs.rmSync(file + '.atif.json', { force: true });
  }
  printTable(rows);
  for (const n of notes) console.log(`  ${n}`);
  console.log(`  "above empty": peak RSS minus that of the same CLI on a one-line file (${base.toFixed(0)} MB: Node and the CLI's code), the median of ${REPEATS} runs ("runs": the lowest and highest); "/ input" is that over the input's size.`);
  console.log(`  "10× input": for an input under the 16 MB floor, the same shape at ten times its size, median of ${REPEATS} runs; it too must stay under 3× (or 16 MB), so memory that grows with the input cannot hide under the floor.`);
  console.log(`  "time" is wall time (the bound); "CPU" the child's user + system time, which a busy machine does not inflate (load average now ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores).`);
}

/** The payload's shape at ten times its size, run REPEATS times beside `file`: the median peak above `base`, in MB, and the input's size. */
function tenfoldRun(file: string, text: string, args: (file: string) => string[], base: number): { above: number; size: number; code: number | null } {
  const big = path.join(path.dirname(file), 'tenfold', path.basename(file));
  fs.mkdirSync(path.dirname(big), { recursive: true });
  fs.writeFileSync(big, text);
  try {
    const runs = Array.from({ length: REPEATS }, () => run(args(big), STOP_MS)).sort((a, b) => a.rssMB - b.rssMB);
    const r = runs[Math.floor(runs.length / 2)];
    return { above: Math.max(0, r.rssMB - base), size: fs.statSync(big).size / MB, code: r.code };
  } finally {
    fs.rmSync(path.dirname(big), { recursive: true, force: true });
  }
}

/** Columns padded to their widest cell; text left, figures right. */
function printTable(rows: string[][]): void {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  for (const [i, r] of rows.entries()) {
    console.log('  ' + r.map((cell, c) => (c === 0 || c === r.length - 1 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ').trimEnd());
    if (i === 0) console.log('  ' + widths.map((w) => '-'.repeat(w)).join('  '));
  }
}

function main(): void {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npx tsc -p tsconfig.json\` first.`);
  console.log(`Security benchmark (issue 14, bounded work) — ${os.cpus().length} cores, Node ${process.version}, load average ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}`);
  console.log(`Peak RSS from ${TIME ? '/usr/bin/time -v' : 'the child\'s process.resourceUsage().maxRSS'}. Sizes: ATL_BENCH_SEC_OPENHANDS_MB=${OPENHANDS_MB}, ATL_BENCH_SEC_MESSAGE_MB=${MESSAGE_MB}, ATL_BENCH_SEC_RUN_KB=${RUN_KB}.\n`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atl-sec-bench-'));
  try {
    const b64 = path.join(dir, 'screenshot.json');
    fs.writeFileSync(b64, base64Log(RUN_KB));
    const b64KB = fs.statSync(b64).size / 1024;
    console.log(`Base64 screenshot log with blank areas: ${b64KB.toFixed(0)} KB`);
    report('stats --tokens', run(['stats', b64, '--tokens']), undefined, 10_000);
    report('compact --strategy openhands-summary --out', run(['compact', b64, '--strategy', 'openhands-summary', '--out', path.join(dir, 'b64.out.json')]), undefined, 10_000);

    if (process.env.ATL_BENCH_SEC_ISSUE23 !== '0') issue23(dir);

    if (MESSAGE_MB > 0) {
      for (const [label, name, parts] of [
        ['Chat log (one JSON document)', 'message.json', singleMessage(MESSAGE_MB)],
        ['Claude Code session (JSON Lines)', 'session.jsonl', claudeCodeSession(MESSAGE_MB)],
      ] as const) {
        const msg = path.join(dir, name);
        const size = writeStreamed(msg, parts) / MB;
        console.log(`\n${label}: ${size.toFixed(0)} MB file, one tool output of ${MESSAGE_MB} MB`);
        const out = path.join(dir, 'out');
        const each = (title: string, args: string[], inputMB = size) => {
          const writes = args.includes('--out') || args.includes('--html');
          report(title, run(writes ? [...args, '--force'] : args), inputMB);
          fs.rmSync(out, { force: true });
        };
        each('compact --strategy openhands-summary --out', ['compact', msg, '--strategy', 'openhands-summary', '--out', out]);
        each('compact --strategy katalyst-tools --html', ['compact', msg, '--strategy', 'katalyst-tools', '--html', out]);
        each('simulate --strategy observation-masking --html', ['simulate', msg, '--strategy', 'observation-masking', '--html', out]);
        each('convert --to atif --out', ['convert', msg, '--to', 'atif', '--out', out]);
        each('stats --tokens --no-token-cache', ['stats', msg, '--tokens', '--no-token-cache']);
        each('search error', ['search', msg, 'error']);
        each('diff (the file with itself; input = both)', ['diff', msg, msg], 2 * size);
        fs.rmSync(msg, { force: true });
      }
    }

    if (OPENHANDS_MB > 0) {
      const oh = path.join(dir, 'openhands.json');
      const size = writeStreamed(oh, openHandsEvents(OPENHANDS_MB)) / MB;
      console.log(`\nOpenHands V0 event list: ${size.toFixed(0)} MB`);
      report('compact --strategy observation-masking --out', run(['compact', oh, '--strategy', 'observation-masking', '--out', path.join(dir, 'oh.out.json')]), size);
      fs.rmSync(path.join(dir, 'oh.out.json'), { force: true });
      report('convert --to atif --out', run(['convert', oh, '--to', 'atif', '--out', path.join(dir, 'oh.atif.json')]), size);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main();
