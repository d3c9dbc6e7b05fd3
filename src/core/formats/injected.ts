// Messages a client or harness writes with the user role that are not the person's turn: a
// background task's completion, a slash-command wrapper, a reminder, tool feedback, IDE context.
// Each adapter keeps its own table of rules; a match makes an `environment` step with the label.

export interface InjectedRule {
  /** What the rule recognises, for tests and for the coverage report. */
  name: string;
  /** Tested against the start of the message (leading white space removed). */
  match: RegExp;
  /** A readable label: `task finished: …`, `/compact`, never the wrapper's tags. */
  label: (text: string) => string;
  /** The message says the person stopped the agent: the step is a `Step.interruption`. */
  interruption?: true;
  /** The client rebuilds this context at the head of its history: the step is a `Step.sessionPrefix`. */
  sessionPrefix?: true;
}

/** What an injected message makes of its step: the label, and whether it is the person stopping the agent. */
export interface Injected {
  label: string;
  interruption?: true;
  sessionPrefix?: true;
}

/** Only the start of a message is looked at: injected messages say what they are up front. */
const HEAD = 4096;

/** The label of a step that says the person stopped the agent (`Step.interruption`), in every format. */
export const INTERRUPTED_LABEL = 'interrupted by the person';

/** The rule's reading when `text` is an injected message of `rules`, else undefined. */
export function injectedAs(rules: readonly InjectedRule[], text: string): Injected | undefined {
  const head = text.slice(0, HEAD).trimStart();
  for (const rule of rules) {
    if (rule.match.test(head)) return { label: rule.label(text), ...(rule.interruption ? { interruption: true as const } : {}), ...(rule.sessionPrefix ? { sessionPrefix: true as const } : {}) };
  }
  return undefined;
}

/** The rule's label when `text` is an injected message of `rules`, else undefined. */
export function injectedLabel(rules: readonly InjectedRule[], text: string): string | undefined {
  return injectedAs(rules, text)?.label;
}

/**
 * Context blocks a client puts inside a real user message (an opened file, a reminder, the
 * environment; Cursor's attached selections, images and web results before the `<user_query>`).
 */
const CONTEXT_BLOCKS = /<(system-reminder|environment_details|environment_context|ide_selection|ide_opened_file|attached_files|image_files|external_links)>[\s\S]*?<\/\1>/g;

/** A user message without the context blocks its client wrapped around the person's words. */
export function withoutContextBlocks(text: string): string {
  return text.replace(CONTEXT_BLOCKS, '');
}

/** The text inside the first `<tag>…</tag>`, on one line, or undefined. */
export function tagText(text: string, tag: string): string | undefined {
  const open = text.indexOf(`<${tag}>`);
  if (open < 0) return undefined;
  const start = open + tag.length + 2;
  const close = text.indexOf(`</${tag}>`, start);
  const inner = text.slice(start, close < 0 ? Math.min(text.length, start + 400) : close).replace(/\s+/g, ' ').trim();
  return inner === '' ? undefined : inner;
}

/** `label: detail` cut to a tree row's width. */
export function labelWith(label: string, detail: string | undefined, max = 100): string {
  if (!detail) return label;
  const full = `${label}: ${detail}`;
  return full.length > max ? full.slice(0, max - 1) + '…' : full;
}

/**
 * Tags agents and harnesses wrap text in (`<pr_description>`, `<returncode>0</returncode> <output>`,
 * `<system-reminder>`, Kimi's `<system>` status line on a tool's output, the `<analysis>` and `<summary>` of a compaction reply): a one-line view shows what they wrap, never the tags. Hyphenated and
 * underscored tag names, and names of several words (Codex's `<permissions instructions>`), are never
 * HTML; the plain names are the ones agents are known to use.
 */
const WRAPPER_TAG = /<\/?(?:[a-z]+[_-][a-z0-9_-]+|[a-z]+(?: [a-z]+)+|output|task|issue|thinking|think|reasoning|returncode|exception|warning|instructions|example|answer|problem_statement|analysis|summary|system)>/gi;

const RETURN_CODE = /<returncode>\s*(-?\d+)\s*<\/returncode>/i;

/**
 * Text without wrapper tags; a recorded exit status reads `exit 0 ·`, first, wherever the log put it
 * (mini-swe-agent 2 writes a command that timed out as `<exception>…</exception>` before its `<returncode>-1</returncode>`).
 */
export function withoutWrapperTags(text: string): string {
  const code = RETURN_CODE.exec(text);
  const rest = code ? text.slice(0, code.index) + text.slice(code.index + code[0].length) : text;
  return `${code ? `exit ${code[1]} · ` : ''}${rest.replace(WRAPPER_TAG, ' ')}`;
}

