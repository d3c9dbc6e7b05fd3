import * as readline from 'node:readline';
import { inContext } from '../../core/errors';
import {
  rangeText,
  runCompaction,
  STRATEGIES,
  type CompactionResult,
  type OutgoingRequest,
} from '../../core/compaction';
import { saveCondensed, SaveRefused, type ExportKind, type SaveOptions } from '../../core/compaction';
import { loadTrajectory } from '../../core/open';
import { describeOutgoing } from '../../core/llm/consent';
import { redactOutgoing } from '../../core/llm/redact';
import { createOpenAiProvider, insecureKeyRefusal } from '../../core/llm/openaiProvider';
import type { ModelProvider } from '../../core/llm/provider';
import type { Run, TrajectoryFile } from '../../core/model';
import { memoizedCounter, tiktokenCounter } from '../../core/tokens';
import { tokenizerFor } from '../../core/tokens';
import { parseCommandArgs, typedPaths, UsageError, type CliCommand, type CliIO } from '../args';
import { table } from '../render';
import { maxBytesOption, parseOptionPairs, pickRun, requireStrategy, stringMeta } from './common';
import { forgottenEntities } from '../../core/report/entities';
import { writeHtmlReport } from './simulate';
import { checkTargets } from '../../core/output/safeWrite';
import { EXIT } from '../exitCodes';

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
const DEFAULT_MODEL = 'gpt-4o-mini';

export const compactCommand: CliCommand = {
  name: 'compact',
  summary: 'compact a run with one strategy (offline, or with a model you name); write the result and a report',
  usage: `compact FILE --strategy ID [--range A:B] [--option NAME=VALUE]... [--model M] [--base-url URL] [--yes]
        [--json] [--out FILE] [--export chat|openhands|atif] [--run N] [--show-prompt] [--html REPORT.html] [--force]
        [--no-redact] [--allow-http] [--request-deadline SECONDS]
    Compact a trajectory with one strategy; --strategy list shows them. --out and --html write new
    files (--force replaces existing ones; the trajectory and its folder never); both are checked
    before any work. The key comes from OPENAI_API_KEY; with no key and no --base-url it runs
    extractive (offline). Secrets are redacted in what is sent and in --out/--html files
    (--no-redact: not in the files). The key goes only to https or this machine unless --allow-http.`,
  options: [
    ['--strategy ID|list', 'the strategy; list prints every strategy and its options'],
    ['--range A:B', 'the steps to compact (default: the strategy\'s own choice)'],
    ['--option NAME=VALUE', 'a strategy option (repeatable)'],
    ['--model M', 'the model to ask (default gpt-4o-mini); also its tokenizer'],
    ['--base-url URL', 'an OpenAI-compatible endpoint (default https://api.openai.com/v1 when a key is set)'],
    ['--yes', 'send without asking (needed when there is no terminal)'],
    ['--json', 'the result as one JSON object'],
    ['--out FILE', 'write the compacted trajectory'],
    ['--export KIND', 'the --out format: chat, openhands or atif'],
    ['--run N', 'run N of a file of many runs (from 0)'],
    ['--show-prompt', 'print the prompt that was (or would be) sent'],
    ['--html REPORT.html', 'write the before/after report'],
    ['--force', 'replace existing --out/--html files'],
    ['--no-redact', 'keep secrets in --out and --html (never in what is sent)'],
    ['--allow-http', 'let the key go to a plain-http endpoint on another machine'],
    ['--request-deadline SECONDS', 'the longest one model request may take in all, retries included (default 300; keep-alives do not extend it)'],
    ['--max-size-mb N', 'refuse files larger than N MB (default 512)'],
  ],
  example: 'agent-trace-lens compact samples/demo-trajectory.json --strategy openhands-summary --html report.html',
  exitCodes: [EXIT.input, EXIT.modelFallback, EXIT.writeRefused],
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      strategy: { type: 'string' },
      range: { type: 'string' },
      option: { type: 'string', multiple: true },
      model: { type: 'string' },
      'base-url': { type: 'string' },
      yes: { type: 'boolean' },
      json: { type: 'boolean' },
      out: { type: 'string' },
      export: { type: 'string' },
      run: { type: 'string' },
      'show-prompt': { type: 'boolean' },
      'max-size-mb': { type: 'string' },
      html: { type: 'string' },
      'no-redact': { type: 'boolean' },
      'allow-http': { type: 'boolean' },
      force: { type: 'boolean' },
      'request-deadline': { type: 'string' },
    });
    if (values.strategy === 'list') {
      io.out(describeStrategies());
      return 0;
    }
    if (positionals.length !== 1) throw new UsageError('compact takes exactly one FILE.');
    const strategy = requireStrategy('compact', values.strategy);
    if (values.export && !['chat', 'openhands', 'atif'].includes(values.export)) throw new UsageError('--export takes chat, openhands or atif.');
    const options = parseOptionPairs(values.option ?? []);

    const redact = values['no-redact'] !== true;
    const deadlineMs = deadlineOption(values['request-deadline']);
    const file = positionals[0];
    // Where the results go is checked before the trajectory is read or any model is asked.
    const overwrite = values.force === true;
    await checkTargets([
      values.out !== undefined ? { path: values.out, label: '--out' } : undefined,
      values.html !== undefined ? { path: values.html, label: '--html' } : undefined,
    ], { inputs: [file], overwrite });

    const key = process.env.OPENAI_API_KEY?.trim() || undefined;
    const baseUrl = values['base-url'] ?? (key ? DEFAULT_BASE_URL : undefined);
    const model = values.model ?? DEFAULT_MODEL;
    // Refused before anything is read or sent: the key never travels in the clear to another machine.
    const refusal = baseUrl && strategy.kind === 'llm' ? insecureKeyRefusal(baseUrl, key, values['allow-http'] === true) : undefined;
    if (refusal) throw new UsageError(`--base-url: ${refusal}`);

    const loaded = await loadTrajectory(file, { maxBytes: maxBytesOption(values['max-size-mb']) });
    const trajectory = pickRun(loaded, values.run, io);

    const provider: ModelProvider | undefined = baseUrl && strategy.kind === 'llm' ? createOpenAiProvider({ baseUrl, apiKey: key, model, allowInsecureHttp: values['allow-http'] === true, requestDeadlineMs: deadlineMs }) : undefined;
    const tokenizer = tokenizerFor(provider ? model : values.model ?? stringMeta(trajectory.meta.model));
    const counter = memoizedCounter(tiktokenCounter(tokenizer.encoding, tokenizer.approximate));

    let confirm: ((o: OutgoingRequest) => Promise<boolean>) | undefined;
    if (values.yes) confirm = async () => true;
    else if (io.interactive) confirm = (o) => askOnTerminal(o, counter.tokenizer, io);
    else if (provider) io.err(`agent-trace-lens: nothing will be sent to ${provider.endpoint}: sending needs --yes, and there is no terminal to ask on. Running the extractive mode instead.\n`);

    const result: CompactionResult = await runCompaction(trajectory, { strategy, range: values.range, options }, {
      counter,
      provider,
      confirm,
      redactOutputs: redact,
      onProgress: values.json ? undefined : (m) => io.err(`${m}\n`),
      onDelta: values.json ? undefined : (d) => io.err(d),
    });

    let written: string | undefined;
    const redactedOnWrite = { count: 0, kinds: {} as Record<string, number> };
    if (values.out !== undefined) written = await writeExport(values.out, loaded, trajectory, result, values.export as ExportKind | undefined, { redact, redacted: redactedOnWrite, overwrite });

    if (values.html !== undefined) await writeHtmlReport(values.html, file, result, trajectory, { model: values.model ?? stringMeta(trajectory.meta.model), counter, redact }, io, overwrite);
    const entities = forgottenEntities(trajectory, result).map(({ text, kind, detail, kept, where, firstStep, neededLater }) => ({ text, kind, ...(detail ? { detail } : {}), kept, where, firstStep, neededLater }));
    const removed = secretsRemovedFromOutputs(result, redactedOnWrite.count, redact);
    // What is printed is an exit like the files: the same pass (the summary, warnings, entities, paths).
    if (values.json) io.out(JSON.stringify(redactOutgoing({ ...jsonReport(result, written, values['show-prompt'] === true), secretsRemoved: removed, fallbackReason: result.fallbackReason ?? null, entities }, { redact, keep: typedPaths(file, values.out, values.html) })) + '\n');
    else io.out(redactOutgoing(renderResult(result, written, values['show-prompt'] === true), { redact, keep: typedPaths(file, values.out, values.html) }) + (removed === null ? 'Outputs are not redacted (--no-redact).\n' : removed > 0 ? `Secrets removed from the outputs: ${removed}.\n` : ''));
    if (provider && result.fallbackReason) {
      io.err(`agent-trace-lens: a model was asked for (${provider.model} at ${provider.endpoint}) but the result is the strategy's fall-back: ${result.fallbackReason}. Exit code 3.\n`);
      return EXIT_MODEL_FALLBACK;
    }
    return 0;
  },
};




/** --request-deadline in seconds (a positive number, at most a day), as milliseconds; the provider's default when absent. */
function deadlineOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const s = Number(value);
  if (!Number.isFinite(s) || s <= 0 || s > 86_400) throw new UsageError(`--request-deadline takes seconds, a number above 0 and at most 86400, not "${value}".`);
  return s * 1000;
}

/** Exit code when a model was asked for and the result is the strategy's fall-back (README: Command line). */
const EXIT_MODEL_FALLBACK = EXIT.modelFallback;

/** Secrets kept out of the outputs (null when outputs are not redacted). */
function secretsRemovedFromOutputs(result: CompactionResult, onWrite: number, redact: boolean): number | null {
  if (!redact) return null;
  return (result.secretsRemoved?.count ?? 0) + onWrite;
}

async function askOnTerminal(o: OutgoingRequest, counter: string, io: CliIO): Promise<boolean> {
  const lines = describeOutgoing({
    endpoint: o.endpoint, model: o.model, inputTokens: o.inputTokens, requests: o.maxCalls, maxRequests: o.maxRequests,
    estimatedCost: o.estimatedCost, redactions: { count: o.redactions, kinds: o.redactionKinds }, tokenizer: counter,
  });
  io.err(`About to send content to a model:\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer: string = await new Promise((resolve) => rl.question('Send it? [y/N] ', resolve));
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

async function writeExport(out: string, loaded: TrajectoryFile, trajectory: Run, result: CompactionResult, kind: ExportKind | undefined, options: SaveOptions): Promise<string> {
  try {
    return await saveCondensed(out, loaded, trajectory, result, kind, options);
  } catch (e) {
    if (e instanceof SaveRefused) throw inContext('--out', e);
    throw e;
  }
}

function jsonReport(r: CompactionResult, written: string | undefined, withPrompt: boolean) {
  const fates: Record<string, number> = {};
  for (const f of r.fates) fates[f] = (fates[f] ?? 0) + 1;
  return {
    strategy: r.strategy,
    mode: r.mode,
    range: r.range,
    tokensBefore: r.tokensBefore,
    tokensAfter: r.tokensAfter,
    reduction: r.reduction,
    summary: r.summary,
    summarySize: r.summarySize ?? null,
    llm: r.llm,
    warnings: r.warnings,
    rangeSource: r.rangeSource,
    rangeReason: r.rangeReason,
    widened: r.widened ?? null,
    tokenizer: r.tokenizer,
    approximateTokens: r.approximateTokens,
    imageNote: r.imageNote ?? null,
    stepsBefore: r.fates.length,
    stepsAfter: r.condensed.steps.length,
    fates,
    redactions: r.redactions,
    options: r.options,
    out: written ?? null,
    ...(withPrompt ? { prompt: r.prompt, promptTool: r.promptTool ?? null } : {}),
  };
}

function renderResult(r: CompactionResult, written: string | undefined, withPrompt: boolean): string {
  const approx = r.approximateTokens ? '≈' : '';
  let text = `${r.label} (${r.strategy}), ${r.mode} mode\n`;
  text += table([
    ['range', r.range ? `${r.range[0]}–${r.range[1]} (${r.rangeSource})` : 'nothing to compact'],
    ['why', r.rangeReason],
    ['steps', `${r.fates.length} → ${r.condensed.steps.length}`],
    ['tokens', `${approx}${r.tokensBefore.toLocaleString('en-US')} → ${approx}${r.tokensAfter.toLocaleString('en-US')} (${r.tokenizer})`],
    ...(r.imageNote ? [['images', r.imageNote] as [string, string]] : []),
    ['reduction', `${(r.reduction * 100).toFixed(1)}%`],
    ['model', r.llm ? `${r.llm.model} at ${r.llm.baseUrl}: ${r.llm.calls} request(s), ${r.llm.inputTokens} in / ${r.llm.outputTokens} out` : 'none'],
    ['redacted', `${r.redactions} in the prompt${r.llm ? ' sent' : ''}`],
    ...(written ? [['written', written] as [string, string]] : []),
  ]);
  if (r.warnings.length) text += `\nWarnings\n${r.warnings.map((w) => `  - ${w}`).join('\n')}\n`;
  if (r.summary) text += `\nSummary${r.summarySize ? `: ${r.summarySize}` : ''}\n${r.summary}\n`;
  if (withPrompt && r.prompt) text += `\nPrompt\n${r.prompt.map((m) => `--- ${m.role} ---\n${m.content}`).join('\n')}\n`;
  return text;
}

function describeStrategies(): string {
  return STRATEGIES.map((s) => {
    const opts = s.options.map((o) => `    ${o.name}=${o.default}  (${rangeText(o)}) ${o.help}`).join('\n');
    return `${s.id}  (${s.kind})  ${s.label}\n  ${s.description}\n${opts}`;
  }).join('\n\n') + '\n';
}
