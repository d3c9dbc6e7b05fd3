// Backoff for retried requests: exponential with jitter, or what the server asks for in
// `retry-after` / `retry-after-ms`. Sleeping is cancellable, so a cancel during a wait is immediate.

export interface BackoffOptions {
  /** First delay; doubles each attempt. */
  baseDelayMs: number;
  /** Ceiling for the computed delay (not for a server's retry-after). */
  maxDelayMs: number;
}

/** Delay in ms the server asked for, from `retry-after-ms`, `retry-after` (seconds or an HTTP date). */
export function retryAfterMs(headers: { get(name: string): string | null } | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers.get('retry-after');
  if (!raw) return undefined;
  const seconds = Number.parseFloat(raw);
  if (Number.isFinite(seconds) && /^\s*[\d.]+\s*$/.test(raw)) return Math.max(0, seconds * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Delay before retry number `retry` (1 = first retry): base·2^(retry-1), capped, with up to 50% jitter. */
export function backoffDelayMs(retry: number, opts: BackoffOptions, random = Math.random): number {
  const exp = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** Math.max(0, retry - 1));
  // Jitter spreads retries from many clients hit by the same outage.
  return Math.round(exp * (0.5 + random() * 0.5));
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
