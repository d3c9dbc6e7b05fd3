import { runCompaction, STRATEGIES, type CompactionResult } from '../../core/compaction';
import { redactOutgoing } from '../../core/llm/redact';
import { CACHE_BEHAVIOURS, type CacheBehaviour } from '../../core/pricing/promptCache';
import { rankByCost, RANKED_BY } from '../../core/simulate';
import type { Run } from '../../core/model';
import { reportHtmlFileRedacted } from '../../core/report/assets';
import type { ReportOptions } from '../../core/report/viewModel';
import { loadTrajectory } from '../../core/open';
import { priceFor, runDate } from '../../core/models';
import { replay, type ReplayResult } from '../../core/simulate';
import type { TokenCounter } from '../../core/tokens';
import { tokenizerFor } from '../../core/tokens';
import { memoizedCounter, tiktokenCounter } from '../../core/tokens';
import { parseCommandArgs, typedPaths, UsageError, type CliCommand, type CliIO } from '../args';
import { table } from '../render';
import { grid } from '../../core/view/textTable';
import { maxBytesOption, parseOptionPairs, pickRun, priceOption, requireStrategy, stringMeta } from './common';
import { billLines } from '../../core/pricing/billText';
import { savingText } from '../../core/pricing/runCost';
import { checkTargets, writeSafely } from '../../core/output/safeWrite';
import { isSurveyRequest, runSurveyCommand, SURVEY_OPTIONS_HELP, SURVEY_USAGE } from './surveyCli';
import { EXIT } from '../exitCodes';

// `simulate`: the whole run replayed under a strategy's trigger, without any model. The summary
// size comes from one offline (extractive) run of the strategy, or from --ratio.

export const simulateCommand: CliCommand = {
  name: 'simulate',
  summary: 'replay a run (or every run under a FOLDER) as if a strategy had compacted it, and bill both',
  options: [
    ['--strategy ID|all|ID,ID…', 'the strategy to replay (several are ranked by cost); compact --strategy list names them'],
    ['--option NAME=VALUE', 'a strategy option (repeatable; one strategy only)'],
    ['--ratio R', 'summary size ÷ forgotten size (default: measured on an offline run)'],
    ['--budget TOKENS', 'compact when the context reaches TOKENS instead of the strategy\'s own trigger'],
    ['--cache BEHAVIOUR', 'prompt cache: openai, anthropic, gemini or none (default: from the model)'],
    ['--model-failures', 'count the re-asks a strategy makes when a reply fails its checks'],
    ['--model M', 'tokenizer and prices of M instead of the log\'s model'],
    ['--price IN,CACHED,WRITE,OUT', 'price every call at these USD per million tokens (cached or write may be empty: 3,,,15)'],
    ['--run N', 'run N of a file of many runs (from 0)'],
    ['--json', 'the result as JSON (a FOLDER: JSON Lines, then {"total": …})'],
    ['--html REPORT.html', 'also write the before/after report (one strategy)'],
    ['--no-redact', 'keep secrets in the --html report'],
    ['--force', 'replace an existing --html file'],
    ['--max-size-mb N', 'refuse files larger than N MB (default 512)'],
    ...SURVEY_OPTIONS_HELP,
  ],
  example: 'agent-trace-lens simulate samples/demo-trajectory.json --strategy all',
  exitCodes: [EXIT.input, EXIT.writeRefused],
  usage: `simulate FILE|FOLDER --strategy ID|all|ID,ID… [--option NAME=VALUE]... [--ratio R] [--budget TOKENS] [--cache openai|anthropic|gemini|none]
                  [--model-failures] [--model M] [--price IN,CACHED,WRITE,OUT] [--run N] [--json] [--html REPORT.html] [--no-redact] [--force]
    Replays the run as if the agent had compacted with the strategy whenever its trigger fired,
    beside the run as it happened, and bills both as the provider would, prompt cache included
    (--cache overrides the behaviour chosen from the model). Where the log records usage per call,
    prompt sizes and prices are calibrated on it and the modelled bill is checked against it. The run
    as it happened is billed from the usage the log records, each call at its own model's price;
    --model prices every call as M, --price at your rates (USD per million tokens).
    --budget fires on a token count instead of the strategy's own trigger; --ratio sets summary size ÷
    forgotten size (default: measured on an offline run of the strategy); --model-failures counts the
    re-asks a strategy makes when a reply fails its checks. Several strategies are ranked by cost
    with caching. --html writes the before/after report of that offline run, replay included, with
    secrets redacted (--no-redact keeps them), to a new file (--force replaces an existing one; the
    trajectory itself never).` + SURVEY_USAGE,
  async run(args, io) {
    if (await isSurveyRequest(args)) return runSurveyCommand('simulate', args, io);
    const { values, positionals } = parseCommandArgs(args, {
      strategy: { type: 'string' },
      option: { type: 'string', multiple: true },
      ratio: { type: 'string' },
      budget: { type: 'string' },
      cache: { type: 'string' },
      'model-failures': { type: 'boolean' },
      model: { type: 'string' },
      price: { type: 'string' },
      run: { type: 'string' },
      json: { type: 'boolean' },
      'max-size-mb': { type: 'string' },
      html: { type: 'string' },
      'no-redact': { type: 'boolean' },
      force: { type: 'boolean' },
    });
    if (positionals.length !== 1) throw new UsageError('simulate takes exactly one FILE.');
    // Only the --html report is an output here; it is redacted unless --no-redact.
    const redact = values.html !== undefined && values['no-redact'] !== true;
    // What is printed (paths, tool names, warnings) is an exit too.
    const printRedacted = values['no-redact'] !== true;
    const strategies = values.strategy === 'all' ? [...STRATEGIES]
      : values.strategy?.includes(',') ? values.strategy.split(',').map((id) => requireStrategy('simulate', id.trim()))
      : [requireStrategy('simulate', values.strategy)];
    const ratio = numberOption('--ratio', values.ratio, 0);
    const budget = numberOption('--budget', values.budget, 1);
    const cache = cacheOption(values.cache);
    if (values.html && strategies.length > 1) throw new UsageError('--html takes one strategy.');
    // Where the report goes is checked before anything is read.
    const overwrite = values.force === true;
    if (values.html !== undefined) await checkTargets([{ path: values.html, label: '--html' }], { inputs: [positionals[0]], overwrite });
    const loaded = await loadTrajectory(positionals[0], { maxBytes: maxBytesOption(values['max-size-mb']) });
    const trajectory = pickRun(loaded, values.run, io);

    const model = values.model ?? stringMeta(trajectory.meta.model);
    const tokenizer = tokenizerFor(model);
    const counter = memoizedCounter(tiktokenCounter(tokenizer.encoding, tokenizer.approximate));
    const userPrice = priceOption(values.price);
    const price = userPrice ? { ...userPrice, matched: 'your --price', asOf: 'settings', source: 'settings' } : priceFor(model, {}, runDate(trajectory.steps));
    const fixedModel = values.model !== undefined || userPrice !== undefined;
    const results: ReplayResult[] = [];
    for (const strategy of strategies) {
      // Offline on purpose: the replay needs the strategy's shape and a size ratio, not a model's words.
      const sample: CompactionResult = await runCompaction(trajectory, { strategy, options: strategies.length === 1 ? parseOptionPairs(values.option ?? []) : {} }, { counter, redactOutputs: redact });
      results.push(replay(trajectory, {
        strategy, options: sample.options, counter, stepTokens: sample.stepTokensBefore, sample,
        summaryRatio: ratio, tokenBudget: budget, price, model, cache, modelFailures: values['model-failures'] === true, fixedModel,
      }));
      if (values.html) {
        await writeHtmlReport(values.html, positionals[0], sample, trajectory, { model, counter, replay: { summaryRatio: ratio, tokenBudget: budget, cache }, redact }, io, overwrite);
      }
    }
    const extra = { tokenizer: counter.tokenizer, approximateTokens: counter.approximate };
    if (results.length === 1) {
      if (values.json) io.out(JSON.stringify(redactOutgoing({ ...results[0], ...extra }, { redact: printRedacted, keep: typedPaths(positionals[0], values.html) })) + '\n');
      else io.out(redactOutgoing(renderReplay(results[0], counter), { redact: printRedacted, keep: typedPaths(positionals[0], values.html) }));
      return 0;
    }
    const ranked = rankByCost(results);
    if (values.json) io.out(JSON.stringify(redactOutgoing({ rankedBy: RANKED_BY, results: ranked.map((r) => ({ ...r, ...extra })) }, { redact: printRedacted, keep: typedPaths(positionals[0], values.html) })) + '\n');
    else io.out(redactOutgoing(renderRanking(ranked, counter), { redact: printRedacted, keep: typedPaths(positionals[0], values.html) }));
    return 0;
  },
};

function cacheOption(value: string | undefined): CacheBehaviour | undefined {
  if (value === undefined) return undefined;
  if (!(CACHE_BEHAVIOURS as readonly string[]).includes(value)) throw new UsageError(`--cache takes one of ${CACHE_BEHAVIOURS.join(', ')}, not "${value}".`);
  return value as CacheBehaviour;
}

function numberOption(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min) throw new UsageError(`${name} takes a number of at least ${min}, not "${value}".`);
  return n;
}



const BLOCKS = '▁▂▃▄▅▆▇█';

/** The series as one line of block characters, `width` columns, on the scale `max`. */
function sparkline(values: readonly number[], max: number, width = 60): string {
  if (values.length === 0) return '';
  const cols = Math.min(width, values.length);
  let line = '';
  for (let c = 0; c < cols; c++) {
    const from = Math.floor((c * values.length) / cols);
    const to = Math.max(from + 1, Math.floor(((c + 1) * values.length) / cols));
    const peak = Math.max(...values.slice(from, to));
    line += BLOCKS[Math.min(BLOCKS.length - 1, Math.floor((peak / Math.max(1, max)) * (BLOCKS.length - 1) + 0.5))];
  }
  return line;
}

function renderReplay(r: ReplayResult, counter: TokenCounter): string {
  const n = (x: number) => `${counter.approximate && !r.calibration ? '≈' : ''}${Math.round(x).toLocaleString('en-US')}`;
  const raw = r.totals.raw, comp = r.totals.compacted;
  let text = `${r.label} (${r.strategy}) over the whole run: compacts ${r.trigger}\n`;
  text += table([
    ['steps', `${r.steps.toLocaleString('en-US')} (${r.modelCalls.toLocaleString('en-US')} requests by the agent)`],
    ['effect', `${r.effect}${r.effect === 'summarize' ? `; summary = ${(r.summaryRatio * 100).toFixed(1)}% of what it replaces` : ''}`],
    ['compactions', `${r.events.length} (${r.events.filter((e) => e.cacheBreak > 0).length} broke the prompt cache)`],
    ['largest context', `${n(r.peakRaw)} → ${n(r.peakCompacted)} (${counter.tokenizer})`],
  ]);
  text += `\nCost of the run as it happened\n${table(billLines(r.bill))}`;
  text += `\nBilled over the run (modelled; prompt cache: ${r.cache}, lifetime ${r.cacheTtl.words})\n`;
  text += grid([
    ['', 'no compaction', `with ${r.strategy}`],
    ['requests', String(raw.requests), `${comp.requests} (${r.summaryCalls} for summaries)`],
    ['input', n(raw.input), n(comp.input)],
    ['  uncached', n(raw.uncachedInput), n(comp.uncachedInput)],
    ['  cache reads', n(raw.cachedInput), n(comp.cachedInput)],
    ['  cache writes', n(raw.cacheWrite), n(comp.cacheWrite)],
    ['output', n(raw.output), n(comp.output)],
    ['cost', usdOrUnknown(raw.cost), usdOrUnknown(comp.cost)],
  ]);
  if (r.cost) text += `  ${savingText(r.cost.saved).text} over the run\n`;
  if (r.totals.raw.byModel && r.totals.raw.byModel.length > 1) {
    text += `  by model (no compaction): ${r.totals.raw.byModel.map((m) => `${m.model} ${usdOrUnknown(m.cost)} (${m.calls} requests)`).join(', ')}\n`;
  }
  if (r.recorded.calls > 0) {
    const rec = r.recorded;
    text += `\nAgainst what the log recorded (${rec.calls} calls)\n`;
    const rows: [string, string][] = [];
    if (rec.medianPromptDeviation !== null) rows.push(['prompt per call', `modelled within ${(rec.medianPromptDeviation * 100).toFixed(1)}% of recorded (median)`]);
    if (rec.cacheReads) {
      const r = rec.cacheReads;
      rows.push(['cache reads', `recorded ${r.recorded.toLocaleString('en-US')} over ${r.calls} calls, modelled ${r.modelled.toLocaleString('en-US')}${r.recorded > 0 ? ` (${r.modelled >= r.recorded ? '+' : ''}${((r.modelled - r.recorded) / r.recorded * 100).toFixed(1)}%)` : ''}`]);
    }
    if (rec.cost !== null) rows.push(['cost', `recorded ${usd(rec.cost)} (${rec.costSource === 'log' ? 'as the log says' : 'recorded usage priced'}), modelled ${usdOrUnknown(rec.modelledCost)}${rec.costDifference !== null ? ` (${rec.costDifference >= 0 ? '+' : ''}${(rec.costDifference * 100).toFixed(1)}%)` : ''}`]);
    // Calls that record their output alone (Copilot CLI's messages) give neither to compare.
    if (rows.length === 0) rows.push(['per call', 'the log records no prompt size or cost per call, only output tokens: nothing to compare']);
    text += table(rows);
  }
  text += `\nContext per step (scale ${n(r.peakRaw)} tokens)\n`;
  text += `  raw        ${sparkline(r.series.map((p) => p.tokensRaw), r.peakRaw)}\n`;
  text += `  compacted  ${sparkline(r.series.map((p) => p.tokensCompacted), r.peakRaw)}\n`;
  text += `\nHow these numbers are modelled\n${r.notes.map((line) => `  - ${line}`).join('\n')}\n`;
  return text;
}

function renderRanking(results: readonly ReplayResult[], counter: TokenCounter): string {
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  let text = `Strategies on this run, ranked by ${RANKED_BY}\n`;
  text += grid([
    ['strategy', 'cost', 'against no compaction', 'requests', 'input', 'cache reads', 'cache writes', 'compactions'],
    ...results.map((r) => [
      r.strategy, usdOrUnknown(r.totals.compacted.cost), r.cost ? savingText(r.cost.saved).text : '—', String(r.totals.compacted.requests),
      n(r.totals.compacted.input), n(r.totals.compacted.cachedInput), n(r.totals.compacted.cacheWrite), String(r.events.length),
    ] as string[]),
  ]);
  const first = results[0];
  if (first) text += `\nWithout compaction: ${usdOrUnknown(first.totals.raw.cost)} modelled, ${n(first.totals.raw.input)} input tokens (${counter.tokenizer}).\n`;
  if (first) text += `\nCost of the run as it happened\n${table(billLines(first.bill))}`;
  if (first) text += `\nHow these numbers are modelled\n${first.notes.filter((line) => !/^(Summaries|Effect):/.test(line)).map((line) => `  - ${line}`).join('\n')}\n`;
  return text;
}

function usd(x: number): string {
  return `$${x.toFixed(x !== 0 && Math.abs(x) < 0.01 ? 4 : 2)}`;
}

function usdOrUnknown(x: number | null): string {
  return x === null ? 'unknown' : usd(x);
}

/** Writes the self-contained before/after report (never over the trajectory, nor into its folder). */
export async function writeHtmlReport(out: string, source: string, result: CompactionResult, trajectory: Run, opts: ReportOptions, io?: CliIO, overwrite = false): Promise<string> {
  const { html, redactions } = reportHtmlFileRedacted([result], trajectory, opts);
  const target = await writeSafely(out, html, { inputs: [source], overwrite });
  io?.err(`HTML report written to ${target}${opts.redact === false ? ' (not redacted)' : redactions ? ` (${redactions} secret value${redactions === 1 ? '' : 's'} redacted)` : ''}\n`);
  return target;
}
