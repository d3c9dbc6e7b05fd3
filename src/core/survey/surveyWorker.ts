// Worker-thread entry of the survey: loads and measures one file at a time, returns its rows.
// Bundled as dist/surveyWorker.js; tsc emits it beside pool.js, where the pool looks for it.
import { parentPort } from 'node:worker_threads';
import { surveyEntry } from './measure';
import type { WorkRequest, WorkReply } from './pool';

parentPort?.on('message', (request: WorkRequest) => {
  surveyEntry(request.entry, request.job).then(
    (lines) => parentPort!.postMessage({ id: request.id, lines } satisfies WorkReply),
    (e: unknown) => parentPort!.postMessage({ id: request.id, error: (e as Error)?.message ?? String(e) } satisfies WorkReply),
  );
});
