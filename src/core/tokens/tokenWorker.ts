// Worker-thread entry: counts batches of texts with tiktoken off the main thread.
// Bundled as dist/tokenWorker.js; tsc emits it beside workerPool.js, where the pool looks first.
import { parentPort } from 'node:worker_threads';
import { countWithTiktoken } from './tiktokenCounter';
import type { BatchReply, BatchRequest } from './workerPool';

parentPort?.on('message', (request: BatchRequest) => {
  let reply: BatchReply;
  try {
    const counts = new Uint32Array(request.texts.length);
    for (let i = 0; i < request.texts.length; i++) counts[i] = countWithTiktoken(request.encoding, request.texts[i]);
    reply = { id: request.id, counts };
  } catch (e) {
    reply = { id: request.id, error: (e as Error).message };
  }
  parentPort!.postMessage(reply);
});
