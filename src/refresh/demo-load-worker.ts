// The demo load's worker thread (see demo-load.ts): opens its own connection to the store,
// loads, reports progress and the outcome, and stops between parts when told to.

import { parentPort, workerData } from 'node:worker_threads';
import type { DemoOptions } from '../sources/demo/index.js';
import { openPostgresStore } from '../store/postgres.js';
import { openSqliteStore } from '../store/sqlite.js';
import { loadDemo, type StoreLocation, type WorkerMessage } from './demo-load.js';

const { location, options } = workerData as { location: StoreLocation; options: DemoOptions };
const port = parentPort;
if (port === null) throw new Error('demo-load-worker runs as a worker thread');
const stop = new AbortController();
port.on('message', (message) => {
  if (message === 'abort') stop.abort(new Error('demo load stopped: the service is shutting down'));
});
const post = (message: WorkerMessage) => port.postMessage(message);

const store = 'databaseUrl' in location ? await openPostgresStore(location.databaseUrl, 1) : await openSqliteStore(location.sqliteFile);
try {
  const result = await loadDemo(store, options, { signal: stop.signal, onProgress: (progress) => post({ type: 'progress', progress }) });
  post({ type: 'done', result });
} catch (err) {
  post({ type: 'failed', name: (err as Error).name, message: (err as Error).message });
} finally {
  await store.close();
  port.close();
}
