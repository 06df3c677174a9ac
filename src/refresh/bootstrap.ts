// A start's first dataset: with an empty store, one instance (the holder of the `bootstrap`
// claim) loads it (the demo universe, one API refresh, or the bulk files) while the others wait;
// then the dataset is computed and served. A bulk first start goes on loading after the first
// stocks are served, and a start that finds one unfinished goes on with it.

import type { Logger } from 'pino';
import { seoulDay, type Clock } from '../kernel/clock.js';
import type { DatasetHolder } from '../serving/holder.js';
import type { DemoOptions } from '../sources/demo/index.js';
import type { Source } from '../sources/source.js';
import type { Store } from '../store/store.js';
import type { BulkPlan } from './bulk-sources.js';
import type { Claims, Lease } from './claims.js';
import { loadDemoInWorker, type DemoLoadProgress, type StoreLocation } from './demo-load.js';
import { bulkFirstStart } from './first-start.js';
import { Importer } from './import.js';
import type { Refresher } from './pipeline.js';
import type { ProgressBoard } from './progress.js';

/** Meta key of a first start from the bulk files: `bulk` while unfinished, then `done`. */
const FIRST_START = 'first-start';

export interface BootstrapOptions {
  store: Store;
  claims: Claims;
  refresher: Refresher;
  holder: DatasetHolder;
  /** Real sources; none means the embedded demo universe. */
  sources: readonly Source[];
  clock: Clock;
  logger: Logger;
  progress: ProgressBoard;
  /** Where the demo load's worker opens the store. */
  storeLocation: StoreLocation;
  /** The demo universe's size and scale; `asOf` defaults to the Seoul date when it is loaded. */
  demo: { size: DemoOptions['size']; scale: number; seed?: number; asOf?: string };
  /** The bulk files a first start with real sources reads; without it, the first start is one API refresh. */
  bulk?: BulkPlan;
  /** How often a bulk first start publishes what it has stored so far (seconds). */
  bulkPublishSeconds: number;
  /** Aborted when the service stops: every phase (waiting, loading, computing) ends on it. */
  signal: AbortSignal;
  /** What start-up is doing, for /readyz, until the first dataset is served. */
  onPhase: (phase: string) => void;
}

export interface Bootstrap {
  /**
   * Resolves when the first dataset is served (with real sources and the bulk files: the first
   * with stocks, while the rest of the first start goes on); rejects when the load fails or the
   * service stops first.
   */
  served: Promise<void>;
  /** The bulk first start under way (settled at once when there is none); never rejects. */
  loading(): Promise<void>;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

export function bootstrap(o: BootstrapOptions): Bootstrap {
  const { store, claims, refresher, holder, sources, clock, logger, progress, signal } = o;
  // With real sources, start-up is served once a dataset with stocks is, even while a bulk
  // first start goes on loading.
  let stocksServed: () => void = () => undefined;
  const firstStocks = new Promise<void>((resolve) => (stocksServed = resolve));
  holder.onSwap((data) => {
    if (data.sectors().some((s) => s.stocks > 0)) stocksServed();
  });
  let loading: Promise<void> = Promise.resolve();
  let bulkStarted = false;

  /**
   * The first start from the bulk files (./first-start.ts), holding the `bootstrap` claim until
   * it is over. Marked unfinished in meta (`first-start`) until it is: a start that finds it
   * unfinished (the process was stopped or died meanwhile) runs it again, which is idempotent
   * (each batch an upsert; cursors set only where none is).
   */
  const bulkStart = async (plan: BulkPlan, lease: Lease): Promise<void> => {
    const stopped = AbortSignal.any([signal, lease.lost]);
    try {
      await store.refresh.setMeta(FIRST_START, 'bulk');
      const importer = new Importer(store, clock, logger, progress, {
        publishEverySeconds: o.bulkPublishSeconds,
        // Fire and forget: a recompute must not hold the import's reading.
        onPublish: () => void refresher.catchUp().catch(() => undefined),
      });
      const report = await bulkFirstStart({ store, refresher, importer, plan, sources, logger, signal: stopped, onPhase: o.onPhase });
      await store.refresh.setMeta(FIRST_START, 'done');
      logger.info({ imported: report.imported.status, cursors: report.cursors }, 'first start done');
      await lease.finish();
    } catch (err) {
      await lease.release().catch(() => undefined);
      if (!stopped.aborted) logger.error({ errName: (err as Error).name, err }, 'first start failed; the next start tries again, the hourly refresh goes on');
    }
  };

  const served = (async () => {
    // An empty store: one instance (the holder of the `bootstrap` claim) loads it, in one
    // transaction; the others wait, and take the claim over if its holder dies first.
    while (!signal.aborted && (await store.refresh.datasetVersion()) === 0 && !(await store.market.hasMarketData())) {
      const lease = await claims.acquire('bootstrap');
      if (lease === null) {
        o.onPhase('waiting for another instance to load the first dataset');
        await pause(500, signal);
        continue;
      }
      try {
        if (sources.length > 0 && o.bulk) {
          bulkStarted = true;
          loading = bulkStart(o.bulk, lease);
          // Serve as soon as stocks are there; the rest of the first start goes on.
          await Promise.race([loading, firstStocks]);
          break;
        }
        if (sources.length > 0) {
          o.onPhase('first refresh from the sources');
          await refresher.run();
        } else {
          const asOf = o.demo.asOf ?? seoulDay(clock());
          o.onPhase('loading the demo universe');
          const loaded = await loadDemoInWorker(
            o.storeLocation,
            { asOf, now: clock(), size: o.demo.size, scale: o.demo.scale, ...(o.demo.seed === undefined ? {} : { seed: o.demo.seed }) },
            {
              signal: AbortSignal.any([signal, lease.lost]),
              onProgress: (p: DemoLoadProgress) => o.onPhase(`loading the demo universe: ${p.securities} of ${p.total} companies`),
            },
          );
          logger.info({ ...loaded, asOf }, 'demo universe loaded');
          await store.refresh.bumpDatasetVersion();
        }
        await lease.finish();
      } catch (err) {
        await lease.release().catch(() => undefined);
        throw err;
      }
    }
    signal.throwIfAborted();
    // A bulk first start that did not finish (stopped, or its process died) goes on in the
    // background while what it stored is served; its claim tells whether another instance has it.
    if (!bulkStarted && sources.length > 0 && o.bulk && (await store.refresh.getMeta(FIRST_START)) === 'bulk') {
      const lease = await claims.acquire('bootstrap');
      if (lease) {
        logger.info('an unfinished first start from the bulk files goes on');
        loading = bulkStart(o.bulk, lease);
      }
    }
    o.onPhase('computing the dataset');
    if (holder.current === null) await refresher.rebuild();
    signal.throwIfAborted();
  })();

  return { served, loading: () => loading };
}
