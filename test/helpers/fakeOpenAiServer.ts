// A real HTTP server on 127.0.0.1 that speaks enough of the chat-completions protocol for the
// provider tests: JSON and SSE replies, tool calls, usage, and scripted faults. Every request is
// recorded (headers and parsed body) so a test can check exactly what left the client.

import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type FakeReply =
  /** A normal answer; streamed in pieces of `chunkSize` characters when the request asks to stream. */
  | { kind?: 'text'; text: string; chunkSize?: number; finishReason?: string; usage?: FakeUsage; delayMs?: number }
  /** A forced function call with these raw argument characters (may be deliberately broken JSON). */
  | { kind: 'tool'; name?: string; arguments: string; chunkSize?: number; usage?: FakeUsage; delayMs?: number }
  /** An HTTP error with an OpenAI-style error body. */
  | { kind: 'status'; status: number; message?: string; code?: string; headers?: Record<string, string>; delayMs?: number }
  /** Headers (and, streaming, the first text chunk) are sent, then nothing until the server closes. */
  | { kind: 'stall'; firstText?: string }
  /** A 200 whose body is not valid JSON (streaming: a `data:` line that is not JSON). */
  | { kind: 'malformed'; body?: string }
  /** A stream that stops without a finish reason or [DONE], as when a connection drops. */
  | { kind: 'cut'; text: string }
  /**
   * A reply that never ends: streamed, a chunk of `text` every `intervalMs` (0: as fast as the socket
   * takes them); not streamed, a JSON body that never closes. Stops when the client goes away.
   */
  | { kind: 'endless'; text?: string; intervalMs?: number; raw?: boolean }
  /** An HTML page (a proxy's error or login page) with this status, text/html. */
  | { kind: 'html'; status?: number; title?: string }
  /** An SSE stream that sends only keep-alive comments (`: keep-alive`), one every `intervalMs`, and never a reply. */
  | { kind: 'keepalive'; intervalMs?: number };

export interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body (undefined if it was not JSON). */
  body: any;
  at: number;
}

export interface FakeOpenAiServer {
  /** e.g. http://127.0.0.1:43121/v1 */
  readonly baseUrl: string;
  readonly requests: ReceivedRequest[];
  /** Queue replies for the next requests, in order; when the queue is empty, `defaultReply` is used. */
  script(...replies: FakeReply[]): void;
  /** Resolves once `count` requests in all have arrived, so a test can act on a request in flight. */
  received(count: number): Promise<void>;
  defaultReply: FakeReply;
  close(): Promise<void>;
}

const DEFAULT_USAGE: FakeUsage = { prompt_tokens: 42, completion_tokens: 7 };

export async function startFakeOpenAiServer(): Promise<FakeOpenAiServer> {
  const queue: FakeReply[] = [];
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const waiters: { count: number; resolve: () => void }[] = [];
  let counter = 0;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: any;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, at: Date.now() });
      for (const w of waiters.filter((w) => requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      if (req.method !== 'POST' || !/\/v1\/chat\/completions(\?|$)/.test(req.url ?? '')) {
        return sendJson(res, 404, { error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error' } });
      }
      const reply = queue.shift() ?? api.defaultReply;
      const delay = 'delayMs' in reply && reply.delayMs ? reply.delayMs : 0;
      const go = () => respond(reply, body ?? {}, res, ++counter);
      if (delay) {
        const t = setTimeout(() => {
          timers.delete(t);
          go();
        }, delay);
        timers.add(t);
      } else go();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  const api: FakeOpenAiServer = {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    defaultReply: { text: 'ok' },
    script: (...replies) => void queue.push(...replies),
    received: (count) => requests.length >= count ? Promise.resolve() : new Promise<void>((resolve) => void waiters.push({ count, resolve })),
    close: async () => {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return api;
}

function sendJson(res: http.ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
}

function respond(reply: FakeReply, body: any, res: http.ServerResponse, n: number): void {
  const model = typeof body.model === 'string' ? body.model : 'fake-model';
  const id = `chatcmpl-fake-${n}`;
  const stream = body.stream === true;
  const includeUsage = body.stream_options?.include_usage === true;
  const kind = reply.kind ?? 'text';

  if (reply.kind === 'status') {
    const type = reply.status === 401 ? 'invalid_request_error' : reply.status === 429 ? 'rate_limit_error' : 'server_error';
    return sendJson(res, reply.status, { error: { message: reply.message ?? `fake ${reply.status}`, type, code: reply.code ?? null } }, reply.headers);
  }
  if (reply.kind === 'malformed') {
    const broken = reply.body ?? '{"id": "chatcmpl-x", "choices": [ {"message": ';
    if (!stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(broken);
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: ${broken}\n\n`);
    return void res.end('data: [DONE]\n\n');
  }
  if (reply.kind === 'html') {
    const title = reply.title ?? '502 Bad Gateway';
    res.writeHead(reply.status ?? 200, { 'content-type': 'text/html; charset=utf-8' });
    return void res.end(`<!DOCTYPE html>\n<html><head><title>${title}</title></head><body><h1>${title}</h1><hr><center>nginx</center></body></html>\n`);
  }
  if (reply.kind === 'keepalive') {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let stopped = false;
    res.on('close', () => { stopped = true; });
    const beat = () => {
      if (stopped || res.destroyed) return;
      res.write(': keep-alive\n\n');
      setTimeout(beat, reply.intervalMs ?? 50).unref();
    };
    beat();
    return;
  }
  if (reply.kind === 'endless') {
    const piece = reply.text ?? 'and so on ';
    res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
    // raw: one SSE event that never ends (no blank line), so no chunk is ever complete.
    const unit = !stream
      ? piece.replace(/"/g, ' ')
      : reply.raw ? piece : sse(chunk(id, model, { content: piece }, null));
    if (!stream) res.write(`{"id":"${id}","object":"chat.completion","model":"${model}","choices":[{"index":0,"message":{"role":"assistant","content":"`);
    else if (reply.raw) res.write('data: {"id":"x","choices":[{"delta":{"content":"');
    else res.write(sse(chunk(id, model, { role: 'assistant', content: '' }, null)));
    let stopped = false;
    res.on('close', () => { stopped = true; });
    const pump = () => {
      if (stopped || res.destroyed) return;
      if (reply.intervalMs) {
        res.write(unit);
        setTimeout(pump, reply.intervalMs).unref();
        return;
      }
      // As fast as the socket drains: write until it asks to wait.
      while (!stopped && res.write(unit.repeat(64)));
      if (!stopped) res.once('drain', pump);
    };
    return void pump();
  }
  if (reply.kind === 'stall') {
    res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
    if (stream && reply.firstText) res.write(sse(chunk(id, model, { role: 'assistant', content: reply.firstText }, null)));
    return; // silence: the socket stays open until the client gives up or close() destroys it
  }

  const usage = ('usage' in reply && reply.usage) || DEFAULT_USAGE;
  const toolName = reply.kind === 'tool' ? (reply.name ?? body.tool_choice?.function?.name ?? 'fn') : '';
  const content = reply.kind === 'tool' ? '' : reply.kind === 'cut' ? reply.text : (reply as { text: string }).text;
  const args = reply.kind === 'tool' ? reply.arguments : '';
  const finish = reply.kind === 'tool' ? 'tool_calls' : ((reply as { finishReason?: string }).finishReason ?? 'stop');

  if (!stream) {
    const message: Record<string, unknown> = { role: 'assistant', content: kind === 'tool' ? null : content };
    if (kind === 'tool') {
      message.tool_calls = [{ id: `call_${n}`, type: 'function', function: { name: toolName, arguments: args } }];
    }
    return sendJson(res, 200, {
      id,
      object: 'chat.completion',
      created: 1_700_000_000,
      model,
      choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    });
  }

  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const size = ('chunkSize' in reply && reply.chunkSize) || 4;
  res.write(sse(chunk(id, model, { role: 'assistant', content: '' }, null)));
  if (kind === 'tool') {
    const pieces = split(args, size);
    res.write(sse(chunk(id, model, { tool_calls: [{ index: 0, id: `call_${n}`, type: 'function', function: { name: toolName, arguments: '' } }] }, null)));
    for (const p of pieces) res.write(sse(chunk(id, model, { tool_calls: [{ index: 0, function: { arguments: p } }] }, null)));
  } else {
    for (const p of split(content, size)) res.write(sse(chunk(id, model, { content: p }, null)));
  }
  if (kind === 'cut') return void res.end(); // dropped: no finish_reason, no [DONE]
  res.write(sse(chunk(id, model, {}, finish)));
  if (includeUsage) {
    res.write(sse({ id, object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }));
  }
  res.end('data: [DONE]\n\n');
}

function chunk(id: string, model: string, delta: Record<string, unknown>, finish: string | null) {
  return { id, object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: [{ index: 0, delta, finish_reason: finish }] };
}

function sse(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

function split(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
