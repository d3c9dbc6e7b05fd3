// Worker-thread entry: compaction, strategy policies, reports and replays run here, never on the
// extension host's thread, so a heavy count (a long log, a base64 screenshot) cannot freeze the
// window. Bundled as dist/compactionWorker.js; tsc emits it beside client.js, where the client looks.
import { parentPort } from 'node:worker_threads';
import { findStrategy, resolveOptions, runCompaction } from '../compaction';
import type { CompletionResult, ModelProvider } from '../llm/provider';
import { buildReport, replayFor } from '../report/viewModel';
import type { TokenCounter } from '../tokens/counter';
import { countWithTiktoken, memoizedCounter, tiktokenCounter } from '../tokens/tiktokenCounter';
import type { CounterSpec, HostMessage, HostRequest, WorkerMessage } from './protocol';

const port = parentPort!;
const aborts = new Map<number, AbortController>();
const calls = new Map<number, { resolve: (v: never) => void; reject: (e: Error) => void }>();
let nextCall = 1;

function send(message: WorkerMessage): void {
  port.postMessage(message);
}

/** Asks the host and waits for its answer (a model reply, a consent decision). */
function ask<T>(make: (callId: number) => WorkerMessage): Promise<T> {
  const callId = nextCall++;
  return new Promise<T>((resolve, reject) => {
    calls.set(callId, { resolve: resolve as (v: never) => void, reject });
    send(make(callId));
  });
}

function counterOf(spec: CounterSpec): TokenCounter {
  return memoizedCounter(tiktokenCounter(spec.encoding, spec.approximate));
}

function strategyOf(id: string) {
  const strategy = findStrategy(id);
  if (!strategy) throw new Error(`unknown strategy ${id}`);
  return strategy;
}

async function handle(request: HostRequest): Promise<unknown> {
  switch (request.type) {
    case 'compact': {
      const abort = new AbortController();
      aborts.set(request.id, abort);
      const id = request.id;
      const provider: ModelProvider | undefined = request.model && {
        endpoint: request.model.endpoint,
        model: request.model.model,
        complete: (req) => ask<CompletionResult>((callId) => {
          const { signal: _signal, onDelta: _onDelta, ...plain } = req;
          return { type: 'complete', id, callId, request: plain };
        }),
      };
      return runCompaction(request.trajectory, { strategy: strategyOf(request.strategy), range: request.range, options: request.options }, {
        counter: counterOf(request.counter),
        provider,
        signal: abort.signal,
        priceOverrides: request.priceOverrides as never,
        onProgress: (message) => send({ type: 'progress', id, message }),
        confirm: (outgoing) => ask<boolean>((callId) => ({ type: 'confirm', id, callId, outgoing })),
      });
    }
    case 'policy': {
      const strategy = strategyOf(request.strategy);
      return strategy.policy(request.trajectory, resolveOptions(strategy, request.options), counterOf(request.counter));
    }
    case 'report':
      return buildReport(request.results, request.trajectory, { ...request.options, counter: request.counter && counterOf(request.counter) });
    case 'replay':
      return replayFor(request.result, request.trajectory, { ...request.options, counter: request.counter && counterOf(request.counter) });
    case 'count':
      return request.texts.map((t) => countWithTiktoken(request.encoding, t));
  }
}

port.on('message', (message: HostMessage) => {
  switch (message.type) {
    case 'abort': aborts.get(message.id)?.abort(); return;
    case 'completed': settle(message.callId, (c) => c.resolve(message.result as never)); return;
    case 'completeFailed': settle(message.callId, (c) => c.reject(new Error(message.message))); return;
    case 'confirmed': settle(message.callId, (c) => c.resolve(message.allowed as never)); return;
  }
  const request = message;
  handle(request).then(
    (value) => send({ type: 'done', id: request.id, value }),
    (e: Error) => send({ type: 'failed', id: request.id, name: e?.name ?? 'Error', message: e?.message ?? String(e) }),
  ).finally(() => aborts.delete(request.id));
});

function settle(callId: number, fn: (c: { resolve: (v: never) => void; reject: (e: Error) => void }) => void): void {
  const pending = calls.get(callId);
  calls.delete(callId);
  if (pending) fn(pending);
}
