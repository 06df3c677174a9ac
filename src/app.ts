// The composition root: wires configuration, store, access control, refresh and the HTTP
// server. Nothing else constructs these; tests call `startApp` with their own config and clock.

import pino, { type Logger } from 'pino';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { AccessControl } from './access/access.js';
import { seoulDay, systemClock, type Clock } from './access/clock.js';
import { generateKey } from './access/keys.js';
import { RedisUsageCounter } from './access/redis-usage.js';
import { BufferedUsageCounter, StoreUsageCounter, type UsageCounter } from './access/usage.js';
import type { Config } from './config.js';
import { buildServer } from './http/server.js';
import { Claims, type Lease } from './refresh/claims.js';
import type { BulkPlan } from './refresh/bulk-sources.js';
import { loadDemoInWorker, type DemoLoadProgress, type StoreLocation } from './refresh/demo-load.js';
import { bulkFirstStart } from './refresh/first-start.js';
import { Importer } from './refresh/import.js';
import { Refresher } from './refresh/pipeline.js';
import { ProgressBoard } from './refresh/progress.js';
import { SnapshotDataset } from './refresh/served.js';
import type { Source } from './sources/source.js';
import { openPostgresStore } from './store/postgres.js';
import { openSqliteStore } from './store/sqlite.js';
import type { AccessStore, Plan } from './store/access-store.js';
import type { Store } from './store/store.js';
import { COVERAGE_META_KEY } from './tools/coverage.js';
import { DatasetHolder } from './tools/holder.js';

export const VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

export interface AppOptions {
  clock?: Clock;
  logger?: Logger;
  /** Real sources; none means the embedded demo universe. */
  sources?: Source[];
  /** Demo universe options for a first start (tests pass a small scale). */
  demo?: { scale?: number; seed?: number; asOf?: string };
  /** Called once with a freshly created demo key (the CLI prints it). */
  onDemoKey?: (key: string) => void;
  /**
   * The bulk files a first start with real sources reads (src/refresh/bulk-sources.ts
   * `bulkPlan`): `serve` passes one unless BULK_ON_FIRST_START=off; without it, the first start
   * is one API refresh.
   */
  bulk?: BulkPlan;
  /** `false`: the server is built but takes no connections; tests reach it by Fastify's `inject()`. */
  listen?: boolean;
}

export interface App {
  store: Store;
  holder: DatasetHolder;
  refresher: Refresher;
  access: AccessControl;
  server: Awaited<ReturnType<typeof buildServer>>;
  /** The address it listens on; '' when started with `listen: false`. */
  url: string;
  /** Resolves when the first dataset is being served (with real sources: the first with stocks). */
  ready: Promise<void>;
  /** Resolves when the first start's loading is over (a bulk first start goes on after `ready`). */
  loaded: Promise<void>;
  /** Per source: phase, done / total, bytes, calls of the day's allowance, ETA. */
  progress: ProgressBoard;
  close(): Promise<void>;
}

/**
 * `serving`: the service's own store, which reads histories on its series reader threads (SQLite).
 * Opening rebuilds the derived forms whose format changed (src/store/derived.ts) and logs it to
 * `logger`; without one (the CLI's commands) to stderr, so that their output stays theirs.
 */
export async function openStore(config: Config, serving = false, logger?: Logger): Promise<Store> {
  const log = logger ?? pino({ level: config.LOG_LEVEL }, pino.destination(2));
  if (config.DATABASE_URL) return openPostgresStore(config.DATABASE_URL, undefined, log);
  return openSqliteStore(join(config.DATA_DIR, 'service.sqlite'), { seriesReaders: serving ? config.SERIES_READERS : 0, log });
}

/**
 * Daily counters and burst windows: Redis when configured (shared by instances); else, on
 * PostgreSQL, the database (instances share it); else, on the embedded SQLite store that one
 * process owns, counted in memory and written to the store every second (docs/security.md).
 */
export async function openUsageCounter(
  config: Config,
  store: Store,
  logger?: Logger,
): Promise<{ usage: UsageCounter; close: () => Promise<void>; check: (() => Promise<string | null>) | null }> {
  if (!config.REDIS_URL && store.engine === 'sqlite') {
    const buffered = new BufferedUsageCounter(store.access, 1_000, (err: unknown) => logger?.warn({ errName: (err as Error).name }, 'usage counts not written yet; retrying'));
    return { usage: buffered, close: () => buffered.close(), check: null };
  }
  if (!config.REDIS_URL) return { usage: new StoreUsageCounter(store.access), close: async () => undefined, check: null };
  const redis = new RedisUsageCounter(config.REDIS_URL, config.REDIS_KEY_PREFIX);
  await redis.connect();
  return { usage: redis, close: () => redis.close(), check: () => redis.ping() };
}

/** Meta key of a first start from the bulk files: `bulk` while unfinished, then `done`. */
const FIRST_START = 'first-start';

/** How long a graceful stop may take before the last step (closing pools) is cut short. */
export const STOP_BUDGET_MS = 8_000;

function storeLocation(config: Config): StoreLocation {
  return config.DATABASE_URL ? { databaseUrl: config.DATABASE_URL } : { sqliteFile: join(config.DATA_DIR, 'service.sqlite') };
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

/** Settles with `promise`, or after `ms` (resolving) if it has not by then. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise.catch(() => undefined), new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

export async function createKey(store: AccessStore, plan: Plan, name: string, clock: Clock = systemClock): Promise<string> {
  const { key, prefix, hash } = generateKey();
  await store.insertKey({ prefix, hash, name, plan, createdAt: clock().toISOString() });
  return key;
}

export async function startApp(config: Config, options: AppOptions = {}): Promise<App> {
  const clock = options.clock ?? systemClock;
  // Log lines go to stdout in batches (up to 4 KB, and at least every second), not one write
  // per line: at ~15,000 requests/s the per-line write was a tenth of the CPU. A crash can
  // lose the last second of lines; a graceful shutdown writes them all.
  const destination = options.logger ? null : pino.destination({ dest: 1, sync: false, minLength: 4096 });
  const flushLogs = destination ? setInterval(() => destination.flush(), 1_000).unref() : null;
  const logger = options.logger ?? pino({ level: config.LOG_LEVEL, base: { service: 'stock-data' } }, destination ?? undefined);
  const store = await openStore(config, true, logger);
  const counter = await openUsageCounter(config, store, logger);
  const access = new AccessControl(store.access, counter.usage, config.plans, clock);
  const holder = new DatasetHolder();
  const sources = options.sources ?? [];
  const claims = new Claims(store.refresh, logger);
  // One board: the refresh and the bulk import write to it; /readyz and health read it; the
  // CLI's `sources` reads it from the store's meta, where it is written at most every 2 s.
  let progressWritten: Promise<unknown> = Promise.resolve();
  const progress = new ProgressBoard(clock, {
    persist: (json) => {
      progressWritten = store.refresh.setMeta('progress', json).catch((err: unknown) => logger.warn({ errName: (err as Error).name }, 'progress not written'));
    },
  });
  const refresher = new Refresher(store, holder, sources, clock, logger, {
    sourceLabel: sources.length ? sources.map((s) => s.name).join(',') : 'demo',
    cron: config.REFRESH_CRON,
    instance: claims.holder.instance,
    progress,
  });
  // Aborted by close(): every start-up phase (waiting, loading, computing) ends on it.
  const stopping = new AbortController();
  /** What start-up is doing until the first dataset is served (/readyz says it). */
  let phase = 'starting';
  // After each swap the new dataset's history cache fills in the background, largest stocks
  // first (src/refresh/history.ts `warm`); the next swap, or close(), stops the previous fill.
  let warming = new AbortController();
  // Each swap follows a large write (the first load, a refresh here or by another process):
  // the write-ahead log is folded back and truncated before the histories' reads begin.
  holder.onSwap(() => {
    if (!store.checkpoint()) logger.info('write-ahead log not checkpointed: a reader was busy; the next swap retries');
  });
  holder.onSwap((data) => {
    warming.abort();
    warming = new AbortController();
    if (!(data instanceof SnapshotDataset) || stopping.signal.aborted) return;
    const started = Date.now();
    const signal = warming.signal;
    void data.warmHistories(signal).then(
      ({ read, held }) => logger.info({ version: data.version, stocks: held, read, ms: Date.now() - started, stopped: signal.aborted }, 'histories warmed'),
      () => undefined,
    );
  });

  // The CLI's `sources` prints the served dataset's coverage report from the store's meta.
  holder.onSwap((data) => {
    setImmediate(() => void store.refresh.setMeta(COVERAGE_META_KEY, JSON.stringify(data.coverage())).catch(() => undefined));
  });

  if ((await store.access.countKeys()) === 0) {
    const key = await createKey(store.access, 'free', 'demo', clock);
    options.onDemoKey?.(key);
  }

  const server = await buildServer({
    access,
    holder,
    clock,
    logger,
    version: VERSION,
    bodyLimit: config.BODY_LIMIT_BYTES,
    maxBatch: config.MAX_BATCH,
    allowedOrigins: config.allowedOrigins,
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
    startupPhase: () => phase,
    progress: () => progress.snapshot(),
    readinessChecks: [
      {
        name: 'database',
        check: () =>
          store.ping().then(
            () => null,
            () => 'database unreachable',
          ),
      },
      ...(counter.check ? [{ name: 'redis', check: counter.check }] : []),
    ],
  });
  let url = '';
  if (options.listen === false) await server.ready();
  else url = await server.listen({ host: config.HOST, port: config.PORT });

  // With real sources, start-up is ready once a dataset with stocks is served, even while a bulk
  // first start goes on loading; `loaded` says when that is over.
  let stocksServed: () => void = () => undefined;
  const firstStocks = new Promise<void>((resolve) => (stocksServed = resolve));
  holder.onSwap((data) => {
    if (data.sectors().some((s) => s.stocks > 0)) stocksServed();
  });
  let loading: Promise<void> = Promise.resolve();
  let bulkStarted = false;
  /**
   * The first start from the bulk files (src/refresh/first-start.ts), holding the `bootstrap`
   * claim until it is over. Marked unfinished in meta (`first-start`) until it is: a start that
   * finds it unfinished (the process was stopped or died meanwhile) runs it again, which is
   * idempotent (each batch an upsert; cursors set only where none is).
   */
  const bulkStart = async (plan: BulkPlan, lease: Lease): Promise<void> => {
    const signal = AbortSignal.any([stopping.signal, lease.lost]);
    try {
      await store.refresh.setMeta(FIRST_START, 'bulk');
      const importer = new Importer(store, clock, logger, progress, {
        publishEverySeconds: config.BULK_PUBLISH_SECONDS,
        // Fire and forget: a recompute must not hold the import's reading.
        onPublish: () => void refresher.catchUp().catch(() => undefined),
      });
      const report = await bulkFirstStart({ store, refresher, importer, plan, sources, logger, signal, onPhase: (p) => (phase = p) });
      await store.refresh.setMeta(FIRST_START, 'done');
      logger.info({ imported: report.imported.status, cursors: report.cursors }, 'first start done');
      await lease.finish();
    } catch (err) {
      await lease.release().catch(() => undefined);
      if (!signal.aborted) logger.error({ errName: (err as Error).name, err }, 'first start failed; the next start tries again, the hourly refresh goes on');
    }
  };
  const ready = (async () => {
    const signal = stopping.signal;
    // An empty store: one instance (the holder of the `bootstrap` claim) loads it, in one
    // transaction; the others wait, and take the claim over if its holder dies first.
    while (!signal.aborted && (await store.refresh.datasetVersion()) === 0 && !(await store.market.hasMarketData())) {
      const lease = await claims.acquire('bootstrap');
      if (lease === null) {
        phase = 'waiting for another instance to load the first dataset';
        await pause(500, signal);
        continue;
      }
      try {
        if (sources.length > 0 && options.bulk) {
          bulkStarted = true;
          loading = bulkStart(options.bulk, lease);
          // Serve as soon as stocks are there; the rest of the first start goes on.
          await Promise.race([loading, firstStocks]);
          break;
        }
        if (sources.length > 0) {
          phase = 'first refresh from the sources';
          await refresher.run();
        } else {
          const asOf = options.demo?.asOf ?? seoulDay(clock());
          phase = 'loading the demo universe';
          const loaded = await loadDemoInWorker(
            storeLocation(config),
            { asOf, now: clock(), size: config.DEMO_SIZE, scale: options.demo?.scale ?? config.DEMO_SCALE, ...(options.demo?.seed === undefined ? {} : { seed: options.demo.seed }) },
            {
              signal: AbortSignal.any([signal, lease.lost]),
              onProgress: (p: DemoLoadProgress) => (phase = `loading the demo universe: ${p.securities} of ${p.total} companies`),
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
    if (!bulkStarted && sources.length > 0 && options.bulk && (await store.refresh.getMeta(FIRST_START)) === 'bulk') {
      const lease = await claims.acquire('bootstrap');
      if (lease) {
        logger.info('an unfinished first start from the bulk files goes on');
        loading = bulkStart(options.bulk, lease);
      }
    }
    phase = 'computing the dataset';
    if (holder.current === null) await refresher.rebuild();
    signal.throwIfAborted();
    phase = 'serving';
    // While a first start loads, the versions it publishes are followed; the hourly runs begin
    // once it is done (they would only repeat its API refreshes meanwhile).
    refresher.follow();
    if (config.REFRESH_SCHEDULE === 'hourly') void loading.then(() => stopping.signal.aborted || refresher.schedule());
  })();
  const loaded = ready.then(() => loading);
  // Its failure is `ready`'s, reported there; unawaited, it must not end the process.
  loaded.catch(() => undefined);
  ready.catch((err: unknown) => {
    if (!stopping.signal.aborted) logger.error({ errName: (err as Error).name }, 'start-up load failed');
  });

  return {
    store,
    holder,
    refresher,
    access,
    server,
    url,
    ready,
    loaded,
    progress,
    async close() {
      // Graceful, whatever start-up is doing: stop start-up and the refresh (a load in progress
      // rolls back), stop taking connections and finish in-flight requests (cut after 5 s),
      // then write the buffered counts and close the pools. Bounded by STOP_BUDGET_MS.
      const deadline = Date.now() + STOP_BUDGET_MS;
      const left = () => Math.max(0, deadline - Date.now());
      stopping.abort(new Error('the service is stopping'));
      warming.abort();
      refresher.stop();
      const cut = setTimeout(() => server.server.closeAllConnections(), 5_000);
      await within(server.close(), left());
      clearTimeout(cut);
      await within(ready, left());
      await within(loading, left());
      await within(refresher.idle(), left());
      // The board's last state, when a source reported (never a write for the demo universe,
      // whose load may still hold the store's write lock).
      if (progress.snapshot().length > 0) {
        progress.flush();
        await within(progressWritten, left());
      }
      await within(counter.close(), left());
      await within(store.close(), left());
      if (flushLogs) clearInterval(flushLogs);
      destination?.flushSync();
    },
  };
}
