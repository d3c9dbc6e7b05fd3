import { normalizeModelId } from '../models';
import type { ResolvedPrice } from '../models';

// How a provider's prompt cache bills one request after another. Every provider serves a repeated
// prompt prefix at a discount; they differ in how a prefix gets into the cache:
// - `openai`: automatic. A prompt of 1,024 tokens or more whose start equals an earlier prompt's
//   is served from the cache for that shared prefix, counted in steps of 128 tokens. No write fee.
//   xAI, MiniMax and most OpenAI-compatible APIs cache the same way; DeepSeek too, in units of 64.
// - `anthropic`: explicit `cache_control` breakpoints, placed as Claude Code and the Claude Agent
//   SDK place them: after the system prompt (tools + system) and on the last message. A request
//   reads the longest cached prefix it can reach (the system breakpoint, or an earlier request's
//   breakpoint within 20 blocks before its own last one) and writes everything after it (5-minute
//   cache writes: 1.25× the input price; reads 0.1×).
// - `gemini`: implicit caching (Gemini 2.5 and later), like OpenAI's with a larger minimum.
// - `none`: every input token at the full price.
// A cached prefix lives for the provider's lifetime (`CacheLifetime`) from its last use: a request
// that comes after a longer idle gap (the log's timestamps) finds nothing cached and writes again.

export type CacheBehaviour = 'openai' | 'anthropic' | 'gemini' | 'none';
export const CACHE_BEHAVIOURS: readonly CacheBehaviour[] = ['openai', 'anthropic', 'gemini', 'none'];

/** How long a cached prefix lives after its last use, and why that figure. */
export interface CacheLifetime {
  seconds: number;
  /** `default`: the provider's published lifetime; `log`: what the log records (1-hour writes);
   *  `calibrated`: the lifetime whose hits match the cached tokens the log records per call; `user`. */
  source: 'default' | 'log' | 'calibrated' | 'user';
  /** In words, e.g. "5 minutes, refreshed on each hit (Anthropic's default)". */
  words: string;
}

const MINUTE = 60;
const HOUR = 3600;

/** The provider's lifetime when the log says nothing: Anthropic 5 min; OpenAI's in-memory cache 5–10 min of idle (the lower bound); DeepSeek's disk cache hours; Gemini's implicit cache publishes none (1 hour, as its explicit caches). */
export function defaultLifetime(behaviour: CacheBehaviour, model: string | undefined, retention?: string): CacheLifetime {
  const id = model ? normalizeModelId(model) : '';
  switch (behaviour) {
    case 'anthropic': return { seconds: 5 * MINUTE, source: 'default', words: '5 minutes, refreshed on each hit (Anthropic\'s default)' };
    case 'openai':
      if (isDeepSeek(id)) return { seconds: 24 * HOUR, source: 'default', words: '24 hours (DeepSeek\'s disk cache keeps prefixes for hours)' };
      if (retention === '24h') return { seconds: 24 * HOUR, source: 'log', words: '24 hours (the requests ask for prompt_cache_retention: 24h)' };
      return { seconds: 5 * MINUTE, source: 'default', words: '5 minutes of idle (OpenAI evicts after 5–10 minutes without use)' };
    case 'gemini': return { seconds: HOUR, source: 'default', words: '1 hour (Gemini publishes no lifetime for implicit caching; its explicit caches default to 1 hour)' };
    case 'none': return { seconds: 0, source: 'default', words: 'no cache' };
  }
}

/** Lifetimes tried when the log records cached tokens per call. */
export const LIFETIME_CANDIDATES: readonly number[] = [5 * MINUTE, 10 * MINUTE, HOUR, 24 * HOUR];

export function lifetimeWords(seconds: number): string {
  return seconds >= HOUR ? `${seconds / HOUR} hour${seconds === HOUR ? '' : 's'}` : `${seconds / MINUTE} minutes`;
}

/** Anthropic checks for a cached prefix at most this many blocks before a breakpoint. */
const ANTHROPIC_LOOKBACK_BLOCKS = 20;
const OPENAI_MINIMUM = 1024;
const OPENAI_STEP = 128;
/** DeepSeek's disk cache stores prefixes in units of 64 tokens, from the first unit on. */
const DEEPSEEK_UNIT = 64;

function isDeepSeek(id: string): boolean {
  return id.startsWith('deepseek');
}

/** The behaviour a model's provider has; `none` when the model has no cache-read price. */
export function cacheBehaviourFor(model: string | undefined, price: ResolvedPrice | undefined): CacheBehaviour {
  if (!price || price.cachedInput === undefined) return 'none';
  return providerCache(model, price.provider);
}

/** The cache of the provider `provider` names, or the model's family when it names none: OpenAI's automatic prefix cache by default. */
export function providerCache(model: string | undefined, provider?: string): Exclude<CacheBehaviour, 'none'> {
  const id = model ? normalizeModelId(model) : '';
  if (provider === 'anthropic' || id.startsWith('claude')) return 'anthropic';
  if (provider === 'google' || id.startsWith('gemini')) return 'gemini';
  return 'openai';
}

/** The shortest prompt (or prefix) the provider caches, for this model. */
export function minimumCacheable(behaviour: CacheBehaviour, model: string | undefined): number {
  const id = model ? normalizeModelId(model) : '';
  switch (behaviour) {
    case 'openai': return isDeepSeek(id) ? DEEPSEEK_UNIT : OPENAI_MINIMUM;
    case 'anthropic':
      if (/^claude-(opus-4-[5-9]|haiku-4-5)/.test(id)) return 4096;
      if (/^claude-(3-5-)?haiku|^claude-3-haiku/.test(id)) return 2048;
      return 1024;
    case 'gemini': return /^gemini-2\./.test(id) ? 2048 : 4096;
    case 'none': return Infinity;
  }
}

/** One request as the cache sees it. Token figures are of the whole prompt the provider receives. */
export interface CacheRequest {
  prompt: number;
  /** Where a breakpoint on the last message ends: the prompt without the few tokens that prime the reply. */
  lastMessageEnd?: number;
  /** Tokens at the start of the prompt that are the same as at the start of the previous request's prompt. */
  unchanged: number;
  /** Tokens of the system prompt (tools and instructions) at the start: Anthropic's first breakpoint. */
  system: number;
  /** Blocks (context entries) in the prompt, and in its unchanged start: for Anthropic's lookback. */
  blocks: number;
  unchangedBlocks: number;
  /** Milliseconds since the previous request's reply, from the log's timestamps (unknown: no expiry). */
  idleMs?: number;
  /** Tokens the log records this request reading from the cache where that is far less than the previous request left there (a miss the log shows): it reads no more, and what it had cached beyond goes. */
  cachedAtMost?: number;
  /** Tokens the log records this request reading where that is far more than the previous request left (requests the log does not show cached them): it reads that much, within its prompt. */
  cachedAtLeast?: number;
  /**
   * Tokens the log records this request reading, taken only where the cache was reset before it
   * (an idle gap past the lifetime, or another model): requests the log does not show kept that
   * much warm (Claude Code's system prompt and tools, shared by its sessions). Read up to `warmBound`.
   */
  servedAfterReset?: number;
  /** The most a `servedAfterReset` read may cover: the whole last message for the run as logged, the system prefix for a replay under a strategy. */
  warmBound?: number;
}

/** How the input of one request is billed: the three add up to the prompt. */
export interface CacheBill {
  uncached: number;
  cached: number;
  written: number;
}

interface CachedPrefix {
  tokens: number;
  blocks: number;
}

/** What a log's recorded cache reads show (`Calibration.smallestRead`, `Calibration.replyCached`). */
export interface RecordedCacheReads {
  /** The smallest cache read the log records, where it records one: the provider caches prefixes that short for this model. */
  smallestRead?: number;
  /**
   * Whether the provider's automatic cache held each reply for the next request, as the recorded
   * reads show: a read past the previous prompt says yes; three reads or more that never go past it
   * say no (a deepseek-reasoner run reads exactly its previous prompt, in 64-token units). Unset: too
   * few reads to tell.
   */
  replyCached?: boolean;
}

/** The cache state of one run, request after request. */
export class PromptCache {
  private readonly minimum: number;
  /** Automatic caches count cached tokens in whole units of this size. */
  private readonly step: number;
  /** Anthropic: prefixes written by earlier requests that still match the context. */
  private prefixes: CachedPrefix[] = [];
  private systemCached = 0;
  /** What the next request can find cached at most: the previous prompt (OpenAI and Gemini: and its reply, unless the log shows otherwise). */
  private previousPrompt = 0;
  private first = true;
  /** Whether the cache holds each reply, as the log's reads show (undefined: they do not say). */
  private readonly replyCached?: boolean;
  /** Requests that found the cache expired after an idle gap longer than the lifetime. */
  expiries = 0;
  /** Requests after a reset that the log records still reading from the cache (`servedAfterReset`). */
  warmAfterReset = 0;

  /**
   * `warm`: tokens at the start of the first prompt already in the cache when the log begins (a
   * shared system prompt from an earlier session), as the first recorded call shows.
   * `recorded`: what the log's own cache reads show (a run's `Calibration` is one): the smallest
   * read, and whether the cache held each reply.
   */
  constructor(readonly behaviour: CacheBehaviour, model: string | undefined, private readonly warm = 0, readonly lifetimeSeconds = Infinity, recorded: RecordedCacheReads = {}) {
    // A read the log records below the published minimum shows the provider caches shorter prefixes for this model.
    this.minimum = Math.min(minimumCacheable(behaviour, model), recorded.smallestRead ?? Infinity);
    this.replyCached = recorded.replyCached;
    this.step = behaviour === 'openai' && isDeepSeek(model ? normalizeModelId(model) : '') ? DEEPSEEK_UNIT : OPENAI_STEP;
  }

  /**
   * The reply of the latest request: automatic caches hold it as part of the conversation's prefix,
   * unless the log's own reads show they do not (`replyCached` false: Calibration.replyCached).
   */
  output(tokens: number): void {
    if ((this.behaviour === 'openai' || this.behaviour === 'gemini') && this.replyCached !== false) this.previousPrompt += tokens;
  }

  bill(r: CacheRequest): CacheBill {
    if (!this.first && r.idleMs !== undefined && r.idleMs > this.lifetimeSeconds * 1000 && this.behaviour !== 'none') {
      // Everything cached has expired: the next request writes (or misses) its prefix again.
      if (this.previousPrompt > 0 || this.prefixes.length > 0 || this.systemCached > 0) this.expiries++;
      this.prefixes = [];
      this.systemCached = 0;
      this.previousPrompt = 0;
      // Unless the log records this request reading from the cache all the same: that much stayed warm.
      const kept = Math.min(r.servedAfterReset ?? 0, r.warmBound ?? r.lastMessageEnd ?? r.prompt, r.prompt);
      if (kept > (r.cachedAtLeast ?? 0)) {
        this.warmAfterReset++;
        r = { ...r, cachedAtLeast: kept };
      }
    }
    if (this.first) {
      this.first = false;
      if (this.warm > 0) return this.warmStart(r);
    }
    const unchanged = Math.max(0, Math.min(r.unchanged, this.previousPrompt, r.prompt));
    // An automatic cache serves a prefix of the prompt: a miss the log records caps it (Anthropic's breakpoints below).
    const served = r.cachedAtMost ?? Infinity;
    this.previousPrompt = r.prompt;
    switch (this.behaviour) {
      case 'none': return { uncached: r.prompt, cached: 0, written: 0 };
      case 'openai': {
        const prefix = r.prompt < this.minimum || unchanged < this.minimum ? 0 : this.minimum + Math.floor((unchanged - this.minimum) / this.step) * this.step;
        const cached = Math.max(Math.min(served, prefix), Math.min(r.cachedAtLeast ?? 0, r.prompt));
        return { uncached: r.prompt - cached, cached, written: 0 };
      }
      case 'gemini': {
        const cached = Math.max(r.prompt >= this.minimum && unchanged >= this.minimum ? Math.min(served, unchanged) : 0, Math.min(r.cachedAtLeast ?? 0, r.prompt));
        return { uncached: r.prompt - cached, cached, written: 0 };
      }
      case 'anthropic': return this.anthropic(r, unchanged);
    }
  }

  /** The first request, with a prefix already cached before the log began. */
  private warmStart(r: CacheRequest): CacheBill {
    const warm = Math.min(this.warm, r.prompt);
    if (this.behaviour === 'anthropic') {
      // The warm prefix sits behind the system breakpoint: it is read, the rest written.
      const end = Math.max(warm, r.lastMessageEnd ?? r.prompt);
      this.prefixes.push({ tokens: end, blocks: r.blocks });
      if (r.system >= this.minimum) this.systemCached = r.system;
      this.previousPrompt = end;
      return { uncached: r.prompt - end, cached: warm, written: end - warm };
    }
    this.previousPrompt = warm;
    return this.bill({ ...r, unchanged: warm });
  }

  private anthropic(r: CacheRequest, unchanged: number): CacheBill {
    // Written prefixes grow request by request; one still matches only if the context is unchanged
    // up to its end, and the longest that matches is the last one kept.
    while (this.prefixes.length > 0) {
      const last = this.prefixes[this.prefixes.length - 1];
      if (last.tokens <= unchanged && last.blocks <= r.unchangedBlocks) break;
      this.prefixes.pop();
    }
    if (this.systemCached > 0 && (r.system !== this.systemCached || unchanged < r.system)) this.systemCached = 0;
    if (r.prompt < this.minimum) return { uncached: r.prompt, cached: 0, written: 0 };
    let read = this.systemCached;
    const last = this.prefixes[this.prefixes.length - 1];
    if (last && last.tokens > read && r.blocks - last.blocks <= ANTHROPIC_LOOKBACK_BLOCKS) read = last.tokens;
    if (r.cachedAtMost !== undefined && read > r.cachedAtMost) {
      // The log shows the cache served only this much (a breakpoint that far still held): the rest is written again.
      read = r.cachedAtMost;
      this.prefixes = this.prefixes.filter((p) => p.tokens <= read);
    }
    if (r.cachedAtLeast !== undefined && read < r.cachedAtLeast) read = Math.min(r.cachedAtLeast, r.lastMessageEnd ?? r.prompt);
    // The breakpoint on the last message writes everything after what was read, up to itself.
    const end = Math.max(read, r.lastMessageEnd ?? r.prompt);
    this.prefixes.push({ tokens: end, blocks: r.blocks });
    if (r.system >= this.minimum) this.systemCached = r.system;
    this.previousPrompt = end;
    return { uncached: r.prompt - end, cached: read, written: end - read };
  }
}
