// ModelProvider over the `openai` package: any endpoint that speaks chat completions (OpenAI,
// Azure OpenAI v1, Ollama, vLLM, LM Studio, OpenRouter). Retries are our own loop (the client's
// are off) so a wait can be cancelled, reported, and capped; timeouts cover both the wait for a
// reply to start and silence inside a stream, which the client alone does not bound.

import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsBase,
} from 'openai/resources/chat/completions/completions';
import { LlmError, type LlmErrorKind } from './errors';
import type { CompletionRequest, CompletionResult, ModelProvider } from './provider';
import { addRedactions, redactSecrets } from './redact';
import { isLocalEndpoint } from './consent';
import { DEFAULT_MAX_OUTPUT_TOKENS, htmlTitle, replyCapChars } from './replyChecks';
import { backoffDelayMs, retryAfterMs, sleep } from './retry';

export interface RetryInfo {
  /** 1 for the first retry. */
  retry: number;
  delayMs: number;
  /** What went wrong with the previous attempt. */
  error: LlmError;
}

export interface OpenAiProviderOptions {
  /** e.g. https://api.openai.com/v1, http://127.0.0.1:11434/v1. Query parameters (Azure `api-version`) are kept. */
  baseUrl: string;
  /** From SecretStorage (extension) or OPENAI_API_KEY (CLI). Local servers may need none. */
  apiKey?: string;
  model: string;
  temperature?: number;
  /** Longest wait for a reply to start (first streamed chunk, or a whole non-streamed reply). Default 120 s. */
  timeoutMs?: number;
  /** Longest silence inside a streamed reply. Default 60 s. */
  idleTimeoutMs?: number;
  /**
   * Longest a whole request may take, retries and waits included; bytes that carry no reply (SSE
   * keep-alive comments) do not extend it. Default 300 s (DEFAULT_REQUEST_DEADLINE_MS).
   */
  requestDeadlineMs?: number;
  /** Retries after the first attempt, on 429, 5xx and connection failures. Default 3. */
  maxRetries?: number;
  /** First backoff delay when the server gives no retry-after. Default 1 s, doubling, capped by retryMaxDelayMs (20 s). */
  retryBaseDelayMs?: number;
  retryMaxDelayMs?: number;
  /** A retry-after longer than this ends the call at once with a rate-limit error. Default 60 s. */
  maxRetryAfterMs?: number;
  /** Stream the reply (deltas to onDelta). Default true. */
  stream?: boolean;
  /** Redact secrets from the messages before sending. Default true; the count is in the result. */
  redact?: boolean;
  /** Extra headers, e.g. OpenRouter's HTTP-Referer / X-Title. */
  headers?: Record<string, string>;
  onRetry?: (info: RetryInfo) => void;
  /** A fetch implementation (proxies, tests). */
  fetch?: typeof fetch;
  /**
   * Send the API key over plain http to a host that is not this machine. Default false: such a
   * call is refused before any request (CLI `--allow-http`, setting `agentTraceLens.llm.allowInsecureHttp`).
   */
  allowInsecureHttp?: boolean;
}

/**
 * Why the key must not go to `baseUrl` (plain http to another machine), or undefined when it may:
 * https, a loopback address, no key, or the user allowed it.
 */
export function insecureKeyRefusal(baseUrl: string, apiKey: string | undefined, allowInsecureHttp = false): string | undefined {
  if (!apiKey || allowInsecureHttp) return undefined;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined;
  }
  if (url.protocol === 'https:' || isLocalEndpoint(baseUrl)) return undefined;
  return (
    `Not sending the API key to ${displayEndpoint(baseUrl)}: it is plain ${url.protocol.replace(/:$/, '')} to another machine, where anyone on the way can read it. ` +
    'Use an https URL, or allow it explicitly (CLI --allow-http, setting agentTraceLens.llm.allowInsecureHttp).'
  );
}

/** The endpoint answered with an HTML page (a proxy's error or login page) instead of chat completions. */
class HtmlReply extends Error {
  constructor(readonly status: number, readonly title: string | undefined) {
    super(`HTML page (HTTP ${status})`);
  }
}

/** The reply went past the size read for it: reading stopped. */
class ReplyTooLarge extends Error {
  constructor(readonly bytes: number) {
    super(`reply larger than ${bytes} bytes`);
  }
}

/** Raw bytes read of one reply: far above the characters of text kept, which the stream loop caps. */
function replyCapBytes(maxOutputTokens: number): number {
  return Math.max(2 * 1024 * 1024, replyCapChars(maxOutputTokens) * 64);
}

interface AttemptState {
  /** Called whenever bytes arrive: the idle timer counts silence, not total time. */
  onBytes?: () => void;
  /** When the whole request (all attempts) must be over, in ms since the epoch. */
  deadlineAt?: number;
  maxOutputTokens: number;
}

const ATTEMPT_HEADER = 'x-agent-trace-lens-attempt';

type Body = ChatCompletionCreateParamsBase & Record<string, unknown>;

const AZURE_HOST = /\.(?:openai\.azure\.com|cognitiveservices\.azure\.com|services\.ai\.azure\.com)$/i;

/** The base URL as shown to the user: no credentials, no query, no trailing slash. */
export function displayEndpoint(baseUrl: string): string {
  try {
    const u = new URL(baseUrl);
    u.username = '';
    u.password = '';
    u.search = '';
    return u.toString().replace(/\/+$/, '');
  } catch {
    return baseUrl.replace(/\/+$/, '');
  }
}

/** The overall deadline of one model request when none is set (CLI --request-deadline, setting agentTraceLens.llm.requestDeadlineSeconds). */
export const DEFAULT_REQUEST_DEADLINE_MS = 300_000;

export function createOpenAiProvider(options: OpenAiProviderOptions): ModelProvider {
  return new OpenAiProvider(options);
}

class OpenAiProvider implements ModelProvider {
  readonly endpoint: string;
  readonly model: string;
  private readonly client: OpenAI;
  private readonly apiKey: string;
  private readonly attempts = new Map<string, AttemptState>();
  private attemptCounter = 0;

  constructor(private readonly opts: OpenAiProviderOptions) {
    this.endpoint = displayEndpoint(opts.baseUrl);
    this.model = opts.model;
    this.apiKey = opts.apiKey ?? '';
    const url = new URL(opts.baseUrl);
    const defaultQuery = Object.fromEntries(url.searchParams);
    url.search = '';
    const headers: Record<string, string> = { ...opts.headers };
    // Azure's key-based auth reads `api-key`; its v1 API also accepts the Bearer header.
    if (AZURE_HOST.test(url.hostname) && this.apiKey) headers['api-key'] = this.apiKey;
    this.client = new OpenAI({
      baseURL: url.toString().replace(/\/+$/, ''),
      apiKey: this.apiKey,
      maxRetries: 0,
      timeout: this.timeoutMs,
      defaultHeaders: headers,
      defaultQuery: Object.keys(defaultQuery).length ? defaultQuery : undefined,
      fetch: this.guardedFetch(opts.fetch ?? globalThis.fetch),
      // The client would log raw replies; our errors carry what the user needs.
      logLevel: 'off',
    });
  }

  /**
   * fetch with what the client does not do: bytes arriving keep the watchdog quiet, the body is
   * cut off past a size, and an HTML page is named as one instead of failing as bad JSON or SSE.
   */
  private guardedFetch(base: typeof fetch): typeof fetch {
    return async (input, init) => {
      const headers = new Headers(init?.headers);
      const id = headers.get(ATTEMPT_HEADER);
      headers.delete(ATTEMPT_HEADER);
      const state = id ? this.attempts.get(id) : undefined;
      const res = await base(input, { ...init, headers });
      state?.onBytes?.();
      const type = res.headers.get('content-type') ?? '';
      if (/\btext\/html\b|application\/xhtml/i.test(type)) {
        const head = await readHead(res, 65_536);
        throw new HtmlReply(res.status, htmlTitle(head));
      }
      if (!res.body) return res;
      const limit = replyCapBytes(state?.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS);
      let seen = 0;
      const counted = res.body.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            seen += chunk.byteLength;
            state?.onBytes?.();
            if (seen > limit) {
              controller.error(new ReplyTooLarge(limit));
              return;
            }
            controller.enqueue(chunk);
          },
        }),
      );
      return new Response(counted, { status: res.status, statusText: res.statusText, headers: res.headers });
    };
  }

  private get timeoutMs(): number {
    return this.opts.timeoutMs ?? 120_000;
  }

  private get deadlineMs(): number {
    return this.opts.requestDeadlineMs ?? DEFAULT_REQUEST_DEADLINE_MS;
  }

  private deadlineError(attempts?: number): LlmError {
    return new LlmError(
      'timeout',
      `The request to ${this.endpoint} did not finish within its deadline of ${seconds(this.deadlineMs)} (CLI --request-deadline, setting agentTraceLens.llm.requestDeadlineSeconds).`,
      { endpoint: this.endpoint, retryable: false, ...(attempts ? { attempts } : {}) },
    );
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    const refusal = insecureKeyRefusal(this.opts.baseUrl, this.apiKey, this.opts.allowInsecureHttp);
    if (refusal) throw new LlmError('request', refusal, { endpoint: this.endpoint, retryable: false });
    const redactions = { count: 0, kinds: {} as Record<string, number> };
    const messages = request.messages.map((m) => {
      if (this.opts.redact === false) return { ...m };
      const r = redactSecrets(m.content);
      addRedactions(redactions, r);
      return { role: m.role, content: r.text };
    });
    let body: Body = {
      model: this.model,
      messages,
      temperature: request.temperature ?? this.opts.temperature ?? 0,
    };
    // Always bounded: the model is told the size, and the reply is read only so far (see streamed loop).
    const maxOutputTokens = request.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
    body.max_tokens = maxOutputTokens;
    if (request.tool) {
      const { name, description, parameters } = request.tool;
      body.tools = [{ type: 'function', function: { name, description, parameters } }];
      body.tool_choice = { type: 'function', function: { name } };
    }
    const streaming = this.opts.stream !== false;
    if (streaming) body.stream_options = { include_usage: true };

    const maxRetries = this.opts.maxRetries ?? 3;
    const deadlineAt = Date.now() + this.deadlineMs;
    const adjusted = new Set<string>();
    let retries = 0;
    for (let attempt = 1; ; attempt++) {
      const progress = { deltas: 0 };
      const id = String(++this.attemptCounter);
      const state: AttemptState = { maxOutputTokens };
      this.attempts.set(id, state);
      try {
        state.deadlineAt = deadlineAt;
        const result = streaming
          ? await this.attemptStreamed(body, request, progress, id, state)
          : await this.attemptWhole(body, request, id, state);
        this.attempts.delete(id);
        return { ...result, redactions };
      } catch (e) {
        this.attempts.delete(id);
        const err = this.toLlmError(e, request.signal, attempt, maxOutputTokens);
        // Some endpoints refuse a parameter (reasoning models: temperature, max_tokens;
        // older servers: stream_options). Drop or rename it once and try again.
        const fixed = err.kind === 'request' && err.status === 400 ? compatFix(body, err.message, adjusted) : undefined;
        if (fixed) {
          body = fixed;
          continue;
        }
        const retryable = ['rate-limit', 'server', 'network'].includes(err.kind) && err.details.retryable !== false;
        // Text already shown to the user is not re-requested: a retry would repeat it.
        if (!retryable || retries >= maxRetries || progress.deltas > 0) throw this.finalError(err, attempt);
        const asked = (e instanceof APIError ? retryAfterMs(e.headers) : undefined);
        const maxAfter = this.opts.maxRetryAfterMs ?? 60_000;
        if (asked !== undefined && asked > maxAfter) {
          throw new LlmError(
            err.kind,
            `${err.message} The endpoint asks to wait ${Math.ceil(asked / 1000)} s before retrying; not waiting that long.`,
            { ...err.details, attempts: attempt },
          );
        }
        retries++;
        const delayMs =
          asked ??
          backoffDelayMs(retries, {
            baseDelayMs: this.opts.retryBaseDelayMs ?? 1000,
            maxDelayMs: this.opts.retryMaxDelayMs ?? 20_000,
          });
        if (Date.now() + delayMs >= deadlineAt) throw this.deadlineError(attempt);
        this.opts.onRetry?.({ retry: retries, delayMs, error: err });
        try {
          await sleep(delayMs, request.signal);
        } catch {
          throw new LlmError('cancelled', 'Cancelled while waiting to retry.', { endpoint: this.endpoint, attempts: attempt });
        }
      }
    }
  }

  private finalError(err: LlmError, attempts: number): LlmError {
    const retried = attempts > 1 && ['rate-limit', 'server', 'network'].includes(err.kind);
    const message = retried ? `${err.message} Gave up after ${attempts} attempts.` : err.message;
    return new LlmError(err.kind, message, { ...err.details, attempts });
  }

  /** One request with a watchdog: aborts when no reply starts in time or the stream goes quiet. */
  private async withWatchdog<T>(
    request: CompletionRequest,
    state: AttemptState,
    run: (signal: AbortSignal, onActivity: () => void) => Promise<T>,
  ): Promise<T> {
    const controller = new AbortController();
    const onUserAbort = () => controller.abort();
    request.signal?.addEventListener('abort', onUserAbort, { once: true });
    if (request.signal?.aborted) controller.abort();
    let phase: 'start' | 'idle' = 'start';
    let timedOut: 'start' | 'idle' | 'deadline' | undefined;
    let timer: NodeJS.Timeout | undefined;
    // The overall deadline: one timer that nothing re-arms, so keep-alive bytes cannot extend it.
    const deadline = setTimeout(() => {
      timedOut = 'deadline';
      controller.abort();
    }, Math.max(0, (state.deadlineAt ?? Date.now() + this.deadlineMs) - Date.now()));
    const arm = (ms: number) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = phase;
        controller.abort();
      }, ms);
    };
    arm(this.timeoutMs);
    const onActivity = () => {
      phase = 'idle';
      arm(this.opts.idleTimeoutMs ?? 60_000);
    };
    // Response headers are not a reply yet (a reasoning model may think a while before streaming);
    // once the body flows, any bytes count as activity, parsed into chunks or not.
    let bodyStarted = false;
    state.onBytes = () => {
      if (!bodyStarted) {
        bodyStarted = true;
        return;
      }
      onActivity();
    };
    try {
      const result = await run(controller.signal, onActivity);
      // The client's stream ends quietly when aborted; make that an error here.
      if (controller.signal.aborted) throw new APIUserAbortError();
      return result;
    } catch (e) {
      if (request.signal?.aborted) throw new LlmError('cancelled', 'Cancelled.', { endpoint: this.endpoint });
      if (timedOut === 'deadline') throw this.deadlineError();
      if (timedOut === 'start') {
        throw new LlmError('timeout', `No reply from ${this.endpoint} within ${seconds(this.timeoutMs)}.`, {
          endpoint: this.endpoint,
        });
      }
      if (timedOut === 'idle') {
        const idle = seconds(this.opts.idleTimeoutMs ?? 60_000);
        throw new LlmError('timeout', `The reply from ${this.endpoint} stopped arriving (nothing for ${idle}).`, {
          endpoint: this.endpoint,
        });
      }
      throw e;
    } finally {
      clearTimeout(timer);
      clearTimeout(deadline);
      request.signal?.removeEventListener('abort', onUserAbort);
    }
  }

  private attemptStreamed(body: Body, request: CompletionRequest, progress: { deltas: number }, id: string, state: AttemptState): Promise<CompletionResult> {
    return this.withWatchdog(request, state, async (signal, onActivity) => {
      const stream = await this.client.chat.completions.create(
        { ...body, stream: true } as ChatCompletionCreateParamsBase & { stream: true },
        { signal, headers: { [ATTEMPT_HEADER]: id } },
      );
      const capChars = replyCapChars(state.maxOutputTokens);
      let received = 0;
      // Until the first chunk the start timeout still runs: reasoning models think before streaming.
      let text = '';
      let model = this.model;
      let finishReason: string | undefined;
      let usage: CompletionResult['usage'];
      const calls: { name: string; args: string }[] = [];
      for await (const chunk of stream as AsyncIterable<ChatCompletionChunk>) {
        onActivity();
        if (!chunk || typeof chunk !== 'object' || !Array.isArray(chunk.choices)) {
          throw this.malformed('a stream chunk without `choices`', JSON.stringify(chunk));
        }
        if (chunk.model) model = chunk.model;
        if (chunk.usage) usage = { inputTokens: chunk.usage.prompt_tokens, outputTokens: chunk.usage.completion_tokens };
        for (const choice of chunk.choices) {
          const delta = choice.delta ?? {};
          received += (typeof delta.content === 'string' ? delta.content.length : 0) +
            (delta.tool_calls ?? []).reduce((n, tc) => n + (tc.function?.arguments?.length ?? 0), 0);
          if (received > capChars) throw this.tooLarge(`${received.toLocaleString('en-US')} characters`, state.maxOutputTokens);
          if (typeof delta.content === 'string' && delta.content) {
            text += delta.content;
            progress.deltas++;
            request.onDelta?.(delta.content);
          }
          for (const tc of delta.tool_calls ?? []) {
            const slot = (calls[tc.index ?? 0] ??= { name: '', args: '' });
            if (tc.function?.name) slot.name += tc.function.name;
            if (tc.function?.arguments) slot.args += tc.function.arguments;
          }
          if (choice.finish_reason) finishReason = choice.finish_reason;
        }
      }
      if (signal.aborted) throw new APIUserAbortError();
      if (!finishReason) {
        throw new LlmError('malformed', `The stream from ${this.endpoint} ended before the reply was complete.`, {
          endpoint: this.endpoint,
        });
      }
      return this.finish(request, { text, model, finishReason, usage, calls: calls.filter(Boolean) });
    });
  }

  private attemptWhole(body: Body, request: CompletionRequest, id: string, state: AttemptState): Promise<CompletionResult> {
    return this.withWatchdog(request, state, async (signal) => {
      const reply = (await this.client.chat.completions.create(
        { ...body, stream: false } as ChatCompletionCreateParamsBase & { stream: false },
        { signal, headers: { [ATTEMPT_HEADER]: id } },
      )) as ChatCompletion | string;
      const choice = typeof reply === 'object' && reply && Array.isArray(reply.choices) ? reply.choices[0] : undefined;
      if (!choice || typeof choice.message !== 'object' || !choice.message) {
        throw this.malformed('a reply without `choices[0].message`', typeof reply === 'string' ? reply : JSON.stringify(reply));
      }
      const message = choice.message;
      const text = typeof message.content === 'string' ? message.content : '';
      const size = text.length + (message.tool_calls ?? []).reduce((n, tc) => n + (tc.type === 'function' ? tc.function.arguments?.length ?? 0 : 0), 0);
      if (size > replyCapChars(state.maxOutputTokens)) throw this.tooLarge(`${size.toLocaleString('en-US')} characters`, state.maxOutputTokens);
      if (text) request.onDelta?.(text);
      const calls = (message.tool_calls ?? []).flatMap((tc) =>
        tc.type === 'function' ? [{ name: tc.function.name, args: tc.function.arguments }] : [],
      );
      const u = (reply as ChatCompletion).usage;
      return this.finish(request, {
        text,
        model: (reply as ChatCompletion).model || this.model,
        finishReason: choice.finish_reason ?? undefined,
        usage: u ? { inputTokens: u.prompt_tokens, outputTokens: u.completion_tokens } : undefined,
        calls,
      });
    });
  }

  /** Builds the result; with a forced tool, parses its arguments (or says clearly why not). */
  private finish(
    request: CompletionRequest,
    r: { text: string; model: string; finishReason?: string; usage?: CompletionResult['usage']; calls: { name: string; args: string }[] },
  ): CompletionResult {
    const result: CompletionResult = { text: r.text, model: r.model, finishReason: r.finishReason, usage: r.usage };
    if (!request.tool) return result;
    const name = request.tool.name;
    const call = r.calls.find((c) => c.name === name) ?? r.calls[0];
    // Some local models ignore tool_choice and answer with the JSON as text.
    const raw = call?.args ?? jsonInText(r.text);
    if (raw === undefined) {
      throw this.malformed(`no call to the function "${name}" (the model answered with text)`, r.text);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.trim() === '' ? '{}' : raw);
    } catch {
      const cut = r.finishReason === 'length' ? ' (the reply was cut off at the output-token limit)' : '';
      throw this.malformed(`arguments for "${name}" that are not valid JSON${cut}`, raw);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw this.malformed(`arguments for "${name}" that are not a JSON object`, raw);
    }
    result.toolArguments = parsed as Record<string, unknown>;
    return result;
  }

  private tooLarge(what: string, maxOutputTokens: number): LlmError {
    return new LlmError(
      'malformed',
      `The reply from ${this.endpoint} is far larger than asked (max_tokens ${maxOutputTokens}): stopped reading after ${what}.`,
      { endpoint: this.endpoint, retryable: false },
    );
  }

  private malformed(what: string, sample: string): LlmError {
    const excerpt = this.scrub(sample).slice(0, 200);
    return new LlmError('malformed', `The model endpoint ${this.endpoint} sent ${what}: ${excerpt}`, { endpoint: this.endpoint });
  }

  /** Server text for a message: without the key (some servers echo it) or any other secret. */
  private scrub(text: string): string {
    let t = String(text ?? '');
    if (this.apiKey.length >= 4) t = t.split(this.apiKey).join('[REDACTED:api-key]');
    return redactSecrets(t).text.replace(/\s+/g, ' ').trim();
  }

  private toLlmError(e: unknown, signal: AbortSignal | undefined, attempt: number, maxOutputTokens: number): LlmError {
    if (e instanceof LlmError) return e;
    const ep = this.endpoint;
    const make = (kind: LlmErrorKind, message: string, status?: number, retryable?: boolean) =>
      new LlmError(kind, message, { status, endpoint: ep, attempts: attempt, retryable });
    const html = findCause(e, HtmlReply);
    if (html) {
      const transient = html.status >= 500 || html.status === 429;
      return make(
        transient ? 'server' : 'malformed',
        `The endpoint ${ep} answered with an HTML page (HTTP ${html.status}${html.title ? `, "${this.scrub(html.title)}"` : ''}) instead of a chat-completions reply: is a proxy, gateway or login page in the way?`,
        html.status,
        transient,
      );
    }
    const big = findCause(e, ReplyTooLarge);
    if (big) return this.tooLarge(`${big.bytes.toLocaleString('en-US')} bytes`, maxOutputTokens);
    if (signal?.aborted || e instanceof APIUserAbortError) return make('cancelled', 'Cancelled.');
    if (e instanceof APIConnectionTimeoutError) return make('timeout', `No reply from ${ep} within ${seconds(this.timeoutMs)}.`);
    if (e instanceof APIConnectionError) {
      const code = causeCode(e);
      return make('network', `Could not reach ${ep}${code ? ` (${code})` : ''}. Check the base URL and that the server is running.`);
    }
    if (e instanceof APIError) {
      const status = e.status as number | undefined;
      const body = e.error as { message?: unknown; code?: unknown } | undefined;
      const said = this.scrub(typeof body?.message === 'string' ? body.message : e.message).slice(0, 300);
      const detail = said ? ` The server said: ${said}` : '';
      if (status === 401) {
        const why = this.apiKey
          ? 'rejected the API key'
          : 'requires an API key, and none is set';
        return make('auth', `The endpoint ${ep} ${why} (HTTP 401). Check the key configured for this endpoint.${detail}`, 401);
      }
      if (status === 403) {
        return make('auth', `The endpoint ${ep} refused access (HTTP 403): the key may not be allowed to use model "${this.model}".${detail}`, 403);
      }
      if (status === 429) {
        const quota = body?.code === 'insufficient_quota' || e.code === 'insufficient_quota';
        return make(
          'rate-limit',
          quota
            ? `The account's quota at ${ep} is used up (HTTP 429, insufficient_quota).${detail}`
            : `The endpoint ${ep} is rate limiting requests (HTTP 429).${detail}`,
          429,
          !quota,
        );
      }
      if (status === undefined) return make('server', `The endpoint ${ep} reported an error in the middle of the reply.${detail}`);
      if (status >= 500) return make('server', `The endpoint ${ep} failed (HTTP ${status}).${detail}`, status);
      const hint = status === 404 ? ` Check the base URL and the model name "${this.model}".` : '';
      return make('request', `The endpoint ${ep} refused the request (HTTP ${status}).${hint}${detail}`, status);
    }
    if (e instanceof SyntaxError) return make('malformed', `The reply from ${ep} was not valid JSON.`);
    const message = e instanceof Error ? e.message : String(e);
    return make('network', `Talking to ${ep} failed: ${this.scrub(message).slice(0, 300)}`);
  }
}

/** A body with the parameter the endpoint refused removed or renamed, once per parameter. */
function compatFix(body: Body, message: string, done: Set<string>): Body | undefined {
  const fix = (key: string, change: (b: Body) => void): Body | undefined => {
    if (done.has(key) || !(key in body)) return undefined;
    done.add(key);
    const next = { ...body };
    change(next);
    return next;
  };
  if (/temperature/i.test(message)) return fix('temperature', (b) => delete b.temperature);
  if (/max_tokens/i.test(message) && /max_completion_tokens/i.test(message)) {
    return fix('max_tokens', (b) => {
      b.max_completion_tokens = b.max_tokens;
      delete b.max_tokens;
    });
  }
  if (/stream_options/i.test(message)) return fix('stream_options', (b) => delete b.stream_options);
  return undefined;
}

/** The first JSON object in a text answer (bare or in a ```json fence), if any. */
function jsonInText(text: string): string | undefined {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const candidate = (fenced ? fenced[1] : text).trim();
  const start = candidate.indexOf('{');
  const end = candidate.lastIndexOf('}');
  return start >= 0 && end > start ? candidate.slice(start, end + 1) : undefined;
}

/** `e` or the first error of class `type` in its cause chain. */
function findCause<T extends Error>(e: unknown, type: new (...args: never[]) => T): T | undefined {
  let c: unknown = e;
  for (let i = 0; i < 6 && c; i++) {
    if (c instanceof type) return c;
    c = (c as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Up to `max` bytes of a response body, as text. */
async function readHead(res: Response, max: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let n = 0;
  try {
    while (n < max) {
      const { done, value } = await reader.read();
      if (done || !value) break;
      parts.push(value);
      n += value.byteLength;
    }
  } catch {
    // what arrived is enough for a message
  } finally {
    void reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(parts).toString('utf8').slice(0, max);
}

function causeCode(e: Error): string | undefined {
  let c: unknown = e.cause;
  for (let i = 0; i < 4 && c; i++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    c = (c as { cause?: unknown }).cause;
  }
  return undefined;
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}
