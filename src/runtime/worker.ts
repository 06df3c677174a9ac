// Starting a worker thread whose entry is a module of this project, compiled or not.

import { Worker, type ResourceLimits } from 'node:worker_threads';

/**
 * `entry` is the worker module's URL without its extension, resolved from the caller
 * (`new URL('./x', import.meta.url)`), and `caller` the caller's `import.meta.url`. Compiled,
 * the worker is `x.js`. Under tsx (tests, `npm run cli`) it is `x.ts`, and Node 20 does not carry
 * tsx's loader into a worker: the worker registers it first.
 */
export function startWorker(entry: URL, caller: string, workerData: unknown, resourceLimits?: ResourceLimits): Worker {
  const options = { workerData, ...(resourceLimits ? { resourceLimits } : {}) };
  if (!caller.endsWith('.ts')) return new Worker(new URL(`${entry.href}.js`), options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(`${entry.href}.ts`)}); });`;
  return new Worker(bootstrap, { eval: true, ...options });
}
