// The consent step before content is sent to a model: what the person is shown, where their
// remembered answers live (per endpoint), and the decision itself. The UI that asks is injected:
// a modal in the extension, a prompt or `--yes` in the CLI.

import { costOf, priceFor, type PriceOverrides } from '../models';
import { describeRedactions } from './redact';

export interface OutgoingSummary {
  /** Base URL or "VS Code: <model>". */
  endpoint: string;
  model: string;
  inputTokens: number;
  /** Requests the run will make (every chunk, merge and retry it plans); shown when more than one. */
  requests?: number;
  /** When retries could take the run past `requests`: the most it may make. */
  maxRequests?: number;
  /** From estimateCost; undefined when no price is known for the model. */
  estimatedCost?: { usd: number; pricesAsOf: string };
  redactions: { count: number; kinds: Record<string, number> };
  /** Name of the tokenizer behind `inputTokens`, shown next to the number. */
  tokenizer?: string;
}

/** True for loopback addresses: the content stays on this machine. */
export function isLocalEndpoint(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  host = host.replace(/^\[|\]$/g, '');
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '::1' ||
    host === '0:0:0:0:0:0:0:1' ||
    host === '0.0.0.0' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) ||
    /^::ffff:127\./.test(host)
  );
}

/** The lines a person reads before agreeing to send. */
export function describeOutgoing(s: OutgoingSummary): string[] {
  const local = isLocalEndpoint(s.endpoint);
  const where = local
    ? `${s.endpoint} (a server on this machine: the content stays here)`
    : s.endpoint.startsWith('VS Code:')
      ? `${s.endpoint} (through VS Code's language model access)`
      : `${s.endpoint} (the content leaves this machine)`;
  const tokens = `about ${s.inputTokens.toLocaleString('en-US')} tokens${s.tokenizer ? ` (${s.tokenizer})` : ''}`;
  const requests = (s.requests && s.requests > 1 ? ` in ${s.requests} requests` : s.maxRequests && s.maxRequests > 1 ? ' in 1 request' : '') +
    (s.maxRequests && s.maxRequests > (s.requests ?? 1) ? ` (up to ${s.maxRequests} if a reply has to be asked again)` : '');
  const cost =
    s.estimatedCost !== undefined
      ? `${formatUsd(s.estimatedCost.usd)} (prices of ${s.estimatedCost.pricesAsOf})`
      : local
        ? 'none expected (local server)'
        : 'unknown (no price known for this model)';
  return [
    `Send to: ${where}`,
    `Model: ${s.model}`,
    `Input: ${tokens}${requests}`,
    `Estimated cost: ${cost}`,
    `Secrets redacted before sending: ${describeRedactions(s.redactions)}`,
  ];
}

function formatUsd(n: number): string {
  if (n > 0 && n < 0.01) return 'less than $0.01';
  return `about $${n.toFixed(2)}`;
}

/**
 * Dollars for sending `inputTokens` and getting about `expectedOutputTokens` back, from the shared
 * price table (settings override it); undefined when the model's price is unknown.
 */
export function estimateCost(
  model: string,
  inputTokens: number,
  expectedOutputTokens: number,
  overrides?: PriceOverrides,
): { usd: number; pricesAsOf: string } | undefined {
  const price = priceFor(model, overrides, new Date());
  if (!price) return undefined;
  const cost = costOf({ input: inputTokens, output: expectedOutputTokens }, price);
  return { usd: cost.total, pricesAsOf: cost.pricesAsOf };
}

/** Remembered answers, keyed by endpoint. The extension backs it with a Memento; the CLI's `--yes` answers yes. */
export interface ConsentStore {
  /** true/false when the person chose to remember an answer for this endpoint; undefined otherwise. */
  get(endpointKey: string): boolean | undefined | Promise<boolean | undefined>;
  set(endpointKey: string, allowed: boolean): void | Promise<void>;
}

/** What the person answered to the prompt. */
export type ConsentAnswer = 'allow-once' | 'allow-always' | 'deny' | 'deny-always';

/** The key a consent is remembered under: scheme, host, port and path; never credentials or query. */
export function consentKey(endpoint: string): string {
  try {
    const u = new URL(endpoint);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`.toLowerCase();
  } catch {
    return endpoint.trim().toLowerCase();
  }
}

/** A store in memory (tests, one CLI run). */
export class MemoryConsentStore implements ConsentStore {
  private readonly answers = new Map<string, boolean>();
  get(key: string): boolean | undefined {
    return this.answers.get(key);
  }
  set(key: string, allowed: boolean): void {
    this.answers.set(key, allowed);
  }
}

/** The CLI's `--yes`: every endpoint is allowed without asking. */
export const alwaysAllow: ConsentStore = { get: () => true, set: () => undefined };

export interface ConsentDecision {
  allowed: boolean;
  /** True when a remembered answer decided and nobody was asked. */
  remembered: boolean;
}

/**
 * Asks only when no answer is remembered for this endpoint; remembers the answer when the person
 * chose "always" (or "never"). `ask` gets the lines from describeOutgoing.
 */
export async function decideConsent(
  summary: OutgoingSummary,
  store: ConsentStore,
  ask: (lines: string[]) => Promise<ConsentAnswer>,
): Promise<ConsentDecision> {
  const key = consentKey(summary.endpoint);
  const known = await store.get(key);
  if (known !== undefined) return { allowed: known, remembered: true };
  const answer = await ask(describeOutgoing(summary));
  if (answer === 'allow-always') await store.set(key, true);
  if (answer === 'deny-always') await store.set(key, false);
  return { allowed: answer === 'allow-once' || answer === 'allow-always', remembered: false };
}
