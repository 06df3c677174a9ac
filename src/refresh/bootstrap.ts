// A start's first dataset in the store: with an empty store, one instance (the holder of the
// `bootstrap` claim) loads it (the demo universe, one API refresh, or the bulk files) while the
// others wait. Serving it is the caller's (app.ts, with serving/publisher.ts). A bulk first start
// goes on loading once what it stored is enough to serve, and a start that finds one unfinished
// goes on with it. After a bulk first start, with a DART key, the dividend backfill
// (./dividends.ts) walks in the background, one instance at a time (the `dividend-backfill`
// claim), on later starts too until it is done.

import type { Logger } from 'pino';
import { seoulDay, type Clock } from '../kernel/clock.js';
import type { DemoOptions } from '../sources/demo/index.js';
import type { Source } from '../sources/source.js';
import type { Store } from '../store/store.js';
import type { BulkPlan } from './bulk-sources.js';
import type { Claims, Lease } from './claims.js';
import { dividendBackfillPending, wantDividendBackfill, type DividendBackfill, type DividendPass } from './dividends.js';
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
  /**
   * Resolves when what a bulk first start has stored so far is enough to serve (app.ts: a dataset
   * with stocks is served); `stored` resolves then, while the first start goes on loading.
   */
  enough: Promise<void>;
  /** Told of each version a bulk first start publishes (a serving process serves it); never awaited. */
  onPublish?: (version: number) => void;
  /**
   * The dividend backfill (with a DART key): run after a bulk first start, and on any start
   * while one is wanted and unfinished. Without it (no key) nothing is called.
   */
  dividends?: DividendBackfill;
}

export interface Bootstrap {
  /**
   * Resolves when the store holds a first dataset version (with real sources and the bulk files:
   * when `enough` resolves, while the rest of the first start goes on); rejects when the load
   * fails or the service stops first.
   */
  stored: Promise<void>;
  /** The bulk first start under way (settled at once when there is none); never rejects. */
  loading(): Promise<void>;
  /**
   * The dividend backfill's first pass (the day's allowance; null when none ran here): resolves
   * when it ends, while later passes go on after the allowance renews. Never rejects.
   */
  dividends(): Promise<DividendPass | null>;
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
  const { store, claims, refresher, sources, clock, logger, progress, signal } = o;
  let loading: Promise<void> = Promise.resolve();
  let bulkStarted = false;
  let dividends: Promise<DividendPass | null> = Promise.resolve(null);
  let dividendsStarted = false;

  /**
   * The dividend backfill in the background under its claim (another instance's, or a finished
   * one, means nothing to do here); a stop gives the claim back, the next start goes on.
   */
  const startDividends = (): void => {
    const backfill = o.dividends;
    if (!backfill || dividendsStarted || signal.aborted) return;
    dividendsStarted = true;
    let firstPass: (pass: DividendPass | null) => void = () => undefined;
    dividends = new Promise((resolve) => (firstPass = resolve));
    void (async () => {
      try {
        if (!(await dividendBackfillPending(store.refresh))) return;
        const lease = await claims.acquire('dividend-backfill');
        if (!lease) return;
        try {
          const done = await backfill.walk(AbortSignal.any([signal, lease.lost]), firstPass);
          if (done) await lease.finish();
          else await lease.release();
        } catch (err) {
          await lease.release().catch(() => undefined);
          if (!signal.aborted) logger.error({ errName: (err as Error).name, err }, 'dividend backfill failed; the next start goes on with it');
        }
      } catch (err) {
        logger.warn({ errName: (err as Error).name }, 'dividend backfill not started');
      } finally {
        firstPass(null);
      }
    })();
  };

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
      // The bulk release has no dividend section: the filings it brings lack the dividend.
      await wantDividendBackfill(store.refresh);
      const importer = new Importer(store, clock, logger, progress, {
        publishEverySeconds: o.bulkPublishSeconds,
        // Fire and forget: serving a version must not hold the import's reading.
        onPublish: (version) => o.onPublish?.(version),
      });
      const report = await bulkFirstStart({ store, refresher, importer, plan, sources, logger, signal: stopped, onPhase: o.onPhase });
      await store.refresh.setMeta(FIRST_START, 'done');
      logger.info({ imported: report.imported.status, cursors: report.cursors }, 'first start done');
      await lease.finish();
    } catch (err) {
      await lease.release().catch(() => undefined);
      if (!stopped.aborted) logger.error({ errName: (err as Error).name, err }, 'first start failed; the next start tries again, the hourly refresh goes on');
      return;
    }
    startDividends();
  };

  const stored = (async () => {
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
          // Served as soon as stocks are there; the rest of the first start goes on.
          await Promise.race([loading, o.enough]);
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
    // A store with market data and no version yet (written by a load that published none): its
    // first version, so that what it holds is served.
    if ((await store.refresh.datasetVersion()) === 0) await store.refresh.bumpDatasetVersion();
    signal.throwIfAborted();
    // A dividend backfill wanted by an earlier bulk first start and not finished goes on.
    if (!bulkStarted && (await store.refresh.getMeta(FIRST_START)) !== 'bulk') startDividends();
  })();

  return { stored, loading: () => loading, dividends: () => loading.then(() => dividends) };
}
