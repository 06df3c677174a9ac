// Loads the embedded demo universe into an empty store: generated stock by stock and written
// in one transaction, so an interrupted first start leaves an empty store, not half a universe.
//
// `loadDemoInWorker` runs the load on a worker thread with its own connection: generating
// and writing 2.6 M bars, building the bars-by-date index and committing are seconds of
// synchronous work (better-sqlite3), which on the main thread would leave /healthz and every
// request unanswered until they end. Stopping it (a shutdown) aborts between parts and rolls
// the transaction back; a worker stuck in one long statement is terminated.

import { setImmediate as turn } from 'node:timers/promises';
import { startWorker } from '../runtime/worker.js';
import type { Dataset } from '../domain/model.js';
import { generateDemo, type DemoOptions } from '../sources/demo/index.js';
import type { Store } from '../store/store.js';

const SECURITIES_PER_PART = 4;

export interface DemoLoadProgress {
  securities: number;
  total: number;
}

export async function loadDemo(
  store: Pick<Store, 'market' | 'refresh'>,
  options: DemoOptions,
  control: { signal?: AbortSignal; onProgress?: (p: DemoLoadProgress) => void } = {},
): Promise<{ securities: number; ms: number }> {
  const started = performance.now();
  const demo = generateDemo(options);
  const total = demo.securities.length;
  async function* parts(): AsyncGenerator<Partial<Dataset>> {
    yield { securities: demo.securities, fx: demo.fx, trade: demo.trade, sectorExports: demo.sectorExports };
    for (let i = 0; i < total; i += SECURITIES_PER_PART) {
      // Between parts: a stop throws here, inside the store's transaction, which rolls back.
      await turn();
      control.signal?.throwIfAborted();
      const group = demo.securities.slice(i, i + SECURITIES_PER_PART);
      yield {
        bars: group.flatMap((s) => demo.barsFor(s)),
        reports: group.flatMap((s) => demo.reportsFor(s)),
        flows: group.flatMap((s) => demo.flowsFor(s)),
      };
      control.onProgress?.({ securities: Math.min(total, i + SECURITIES_PER_PART), total });
    }
  }
  // Undated: the invented companies hold their names, sectors and exchanges over all their history.
  await store.market.writeDatasets(parts(), { bulk: true });
  await store.refresh.setMeta('demo_as_of', options.asOf);
  return { securities: total, ms: Math.round(performance.now() - started) };
}

/** Where the worker opens its own connection to the same store. */
export type StoreLocation = { databaseUrl: string } | { sqliteFile: string };

export type WorkerMessage =
  | { type: 'progress'; progress: DemoLoadProgress }
  | { type: 'done'; result: { securities: number; ms: number } }
  | { type: 'failed'; name: string; message: string };

/** How long a stopped worker gets to roll back before it is terminated. */
const ABORT_GRACE_MS = 3_000;

export function loadDemoInWorker(
  location: StoreLocation,
  options: DemoOptions,
  control: { signal?: AbortSignal; onProgress?: (p: DemoLoadProgress) => void } = {},
): Promise<{ securities: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const worker = startWorker(new URL('./demo-load-worker', import.meta.url), import.meta.url, { location, options });
    let settled = false;
    let killer: NodeJS.Timeout | undefined;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      control.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = () => {
      worker.postMessage('abort');
      killer = setTimeout(() => void worker.terminate(), ABORT_GRACE_MS);
      killer.unref();
    };
    if (control.signal?.aborted) onAbort();
    else control.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (message: WorkerMessage) => {
      if (message.type === 'progress') control.onProgress?.(message.progress);
      else if (message.type === 'done') settle(() => resolve(message.result));
      else settle(() => reject(Object.assign(new Error(message.message), { name: message.name })));
    });
    worker.on('error', (err) => settle(() => reject(err)));
    worker.on('exit', (code) => {
      clearTimeout(killer);
      settle(() => reject(control.signal?.aborted ? control.signal.reason : new Error(`demo load worker exited with ${code}`)));
    });
  });
}
