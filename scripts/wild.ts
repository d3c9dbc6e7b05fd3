// `npm run wild -- DIR [--json] [--split dev|locked]`: the wild-log evaluation (issue 20 §5).
// Every file under DIR is opened as a user would open it and measured against the issue's bars.
// Expected formats come from a SOURCES.md table beside or above DIR (its `file` and `format`
// columns); the split from split.json there. Nothing is written.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeCoverage } from '../src/core/io/coverage';
import { forTerminal } from '../src/core/output/terminal';
import { checkFile, recordsAccountedFor, type WildRow } from './wild/check';
import { assignSplit, type SplitFile } from './wild/split';

interface Options { dir: string; json: boolean; split?: 'dev' | 'locked'; makeSplit: boolean }

function parseArgs(argv: string[]): Options {
  let json = false;
  let makeSplit = false;
  let split: Options['split'];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json') json = true;
    else if (a === '--make-split') makeSplit = true;
    else if (a === '--split') {
      const v = argv[++i];
      if (v !== 'dev' && v !== 'locked') throw new Error('--split takes dev or locked');
      split = v;
    } else if (a.startsWith('--split=')) {
      const v = a.slice('--split='.length);
      if (v !== 'dev' && v !== 'locked') throw new Error('--split takes dev or locked');
      split = v;
    } else rest.push(a);
  }
  if (rest.length !== 1) throw new Error('usage: npm run wild -- DIR [--json] [--split dev|locked] [--make-split]');
  return { dir: path.resolve(rest[0]), json, split, makeSplit };
}

/** The nearest file named `name` in DIR or a folder above it (up to three levels). */
function findUp(dir: string, name: string): string | undefined {
  let d = dir;
  for (let i = 0; i < 4; i++) {
    const f = path.join(d, name);
    if (fs.existsSync(f)) return f;
    d = path.dirname(d);
  }
  return undefined;
}

/** `| file | … | format | …` rows: expected format by path relative to the table's folder. */
function expectedFormats(sourcesFile: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!sourcesFile) return out;
  const lines = fs.readFileSync(sourcesFile, 'utf8').split('\n').filter((l) => l.startsWith('|'));
  const header = lines[0]?.split('|').map((c) => c.trim().toLowerCase()) ?? [];
  const fileCol = header.indexOf('file');
  const formatCol = header.indexOf('format');
  if (fileCol < 0 || formatCol < 0) return out;
  const base = path.dirname(sourcesFile);
  for (const line of lines.slice(2)) {
    const cells = line.split('|').map((c) => c.trim());
    // `[name]` is a format we do not mean to read: the file should be refused, not misread.
    const format = cells[formatCol]?.replace(/`/g, '').split(/\s/)[0];
    if (cells[fileCol] && format) out.set(path.resolve(base, cells[fileCol]), format);
  }
  return out;
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(full));
    else if (entry.isFile() && !/^(SOURCES\.md|split\.json|README\.md)$/.test(entry.name)) out.push(full);
  }
  return out.sort();
}

function pct(n: number, d: number): string {
  return d === 0 ? 'n/a' : `${((100 * n) / d).toFixed(1)}%`;
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const sources = findUp(opts.dir, 'SOURCES.md');
  const expected = expectedFormats(sources);
  let files = listFiles(opts.dir);
  if (opts.makeSplit) {
    // Written beside SOURCES.md; files already placed keep their place (the split is made once).
    const target = path.join(sources ? path.dirname(sources) : opts.dir, 'split.json');
    const existing = fs.existsSync(target) ? (JSON.parse(fs.readFileSync(target, 'utf8')) as SplitFile) : undefined;
    const base = path.dirname(target);
    const made = assignSplit(files.map((f) => path.relative(base, f)), (rel) => expected.get(path.resolve(base, rel)) ?? 'unknown', existing);
    fs.writeFileSync(target, JSON.stringify(made, null, 1) + '\n');
    const locked = Object.values(made.files).filter((v) => v === 'locked').length;
    process.stdout.write(`${target}: ${Object.keys(made.files).length - locked} dev, ${locked} locked\n`);
    return;
  }
  if (opts.split) {
    const splitFile = findUp(opts.dir, 'split.json');
    if (!splitFile) throw new Error(`--split needs a split.json in ${opts.dir} or a folder above it`);
    const split = JSON.parse(fs.readFileSync(splitFile, 'utf8')) as { files: Record<string, string> };
    const base = path.dirname(splitFile);
    files = files.filter((f) => split.files[path.relative(base, f)] === opts.split);
  }
  const rows: WildRow[] = [];
  for (const f of files) rows.push(await checkFile(f, expected.get(f)));
  const rel = (f: string) => path.relative(opts.dir, f);
  const summary = summarise(rows);
  if (opts.json) {
    process.stdout.write(JSON.stringify({ dir: opts.dir, split: opts.split ?? 'all', summary, files: rows.map((r) => ({ ...r, file: rel(r.file) })) }, null, 1) + '\n');
    return;
  }
  const out: string[] = [];
  for (const r of rows) {
    const fmt = r.error ? `NOT READ (${r.error.split(': ').slice(1).join(': ').slice(0, 90)})` : r.format;
    const mark = r.formatOk === false ? '✗' : r.formatOk ? '✓' : '?';
    out.push(`${mark} ${rel(r.file)}  [${r.expected ?? 'no expectation'} → ${fmt}]`);
    if (r.error) continue;
    const c = r.coverage!;
    out.push(`    coverage: ${describeCoverage(c)} (named ${c.named})`);
    out.push(`    turns ${r.turns} · user steps ${r.userSteps} · user-role records ${r.userRoleRecords} · usage ${r.usage}, ${r.priced}`);
    out.push(`    atif: ${r.atif.ok ? 'kept' : 'LOST'} steps ${r.atif.stepsBefore}→${r.atif.stepsAfter}, calls ${r.atif.callsBefore}→${r.atif.callsAfter}${r.atif.error ? ` (${r.atif.error})` : ''}`);
    if (r.markup.count > 0) out.push(`    markup in ${r.markup.count} label(s): ${r.markup.examples.join(' | ')}`);
  }
  out.push('', summaryLine(summary));
  process.stdout.write(forTerminal(out.join('\n')) + '\n');
}

interface Summary {
  files: number;
  rightFormat: [number, number];
  noUnpaired: [number, number];
  noMarkup: [number, number];
  recordsAccounted: [number, number];
  atifKept: [number, number];
}

function summarise(rows: readonly WildRow[]): Summary {
  const withExpectation = rows.filter((r) => r.expected);
  const read = rows.filter((r) => !r.error);
  const { accounted, records } = recordsAccountedFor(rows);
  return {
    files: rows.length,
    rightFormat: [withExpectation.filter((r) => r.formatOk).length, withExpectation.length],
    noUnpaired: [read.filter((r) => r.coverage!.unpairedCalls === 0 && r.coverage!.unpairedResults === 0).length, read.length],
    noMarkup: [read.filter((r) => r.markup.count === 0).length, read.length],
    recordsAccounted: [accounted, records],
    atifKept: [read.filter((r) => r.atif.ok).length, read.length],
  };
}

/** One line against the issue's bars: ≥97% right format, no unpaired call, no markup, ≥99% records, ATIF keeps all. */
function summaryLine(s: Summary): string {
  const bar = (name: string, [n, d]: [number, number], goal: number) => `${name} ${n}/${d} ${pct(n, d)}${d > 0 && n / d >= goal ? ' ✓' : ' ✗'} (bar ${goal * 100}%)`;
  return [
    `${s.files} files`,
    bar('right format', s.rightFormat, 0.97),
    bar('no unpaired call/result', s.noUnpaired, 1),
    bar('no markup in labels', s.noMarkup, 1),
    bar('records read or named', s.recordsAccounted, 0.99),
    bar('ATIF keeps steps and calls', s.atifKept, 1),
  ].join(' · ');
}

main().catch((e) => {
  process.stderr.write(`wild: ${(e as Error).message}\n`);
  process.exit(2);
});
