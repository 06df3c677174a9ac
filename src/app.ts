// The serving process: wires configuration, store, access control, the refresh (the writer),
// the publisher (which serves each version the store publishes) and the HTTP server from the
// composition root's factories (./compose.ts). Tests call `startApp` with their own config and clock.

import pino, { type Logger } from 'pino';
import { AccessControl } from './access/access.js';
import { systemClock, type Clock } from './kernel/clock.js';
import { createKey, createRefresher, openStore, openUsageCounter, progressBoard, storeLocation, VERSION } from './compose.js';
import type { Config } from './config.js';
import { buildServer } from './http/server.js';
import { OAuthService } from './oauth/service.js';
import { bootstrap } from './refresh/bootstrap.js';
import type { BulkPlan } from './refresh/bulk-sources.js';
import { Claims } from './refresh/claims.js';
import { DividendBackfill, type DividendPass } from './refresh/dividends.js';
import type { Refresher } from './refresh/pipeline.js';
import type { ProgressBoard } from './refresh/progress.js';
import { COVERAGE_META_KEY } from './serving/coverage.js';
import { DatasetHolder } from './serving/holder.js';
import { Publisher } from './serving/publisher.js';
import type { SnapshotDataset } from './serving/served.js';
import { warmHistoriesOnSwap } from './serving/warming.js';
import { OpenDartSource } from './sources/opendart/source.js';
import type { Source } from './sources/source.js';
import type { Store } from './store/store.js';

export { createKey, openStore, openUsageCounter, VERSION } from './compose.js';

export interface AppOptions {
  clock?: Clock;
  logger?: Logger;
  /** Real sources; none means the embedded demo universe. */
  sources?: Source[];
  /** Demo universe options for a first start (tests pass a small scale). */
  demo?: { scale?: number; seed?: number; asOf?: string };
  /**
   * Called once with the demo key, created for the demo universe (no `sources`) on a store that
   * has never had a key; the CLI shows it on the terminal (stderr), never in the log stream.
   */
  onDemoKey?: (key: string) => void;
  /** Called when the store has no active key and none was created (the CLI says how to create one). */
  onNoKey?: () => void;
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
  holder: DatasetHolder<SnapshotDataset>;
  /** Serves each dataset version the store publishes (this process's refreshes at once, others' by polling). */
  publisher: Publisher;
  /** Writes: ingests the sources and publishes a dataset version per run. */
  refresher: Refresher;
  access: AccessControl;
  server: Awaited<ReturnType<typeof buildServer>>;
  /** The address it listens on; '' when started with `listen: false`. */
  url: string;
  /** Resolves when the first dataset is being served (with real sources: the first with stocks). */
  ready: Promise<void>;
  /** Resolves when the first start's loading is over (a bulk first start goes on after `ready`). */
  loaded: Promise<void>;
  /**
   * After `loaded`: the first pass of the dividend backfill that follows a bulk first start with a
   * DART key (refresh/dividends.ts); null when none ran. Later passes go on in the background.
   */
  dividends: Promise<DividendPass | null>;
  /** Per source: phase, done / total, bytes, calls of the day's allowance, ETA. */
  progress: ProgressBoard;
  close(): Promise<void>;
}

/** How long a graceful stop may take before the last step (closing pools) is cut short. */
export const STOP_BUDGET_MS = 8_000;

/** Settles with `promise`, or after `ms` (resolving) if it has not by then. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise.catch(() => undefined), new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
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
  const access = new AccessControl(store.access, counter.usage, config.plans, clock, { authFailuresPerMinute: config.AUTH_FAILURES_PER_MINUTE });
  const holder = new DatasetHolder<SnapshotDataset>();
  const sources = options.sources ?? [];
  const claims = new Claims(store.refresh, logger);
  // One board: the refresh and the bulk import write to it; /readyz and health read it; the
  // CLI's `sources` reads it from the store's meta, where it is written at most every 2 s.
  const { board: progress, written: progressWritten } = progressBoard(store, clock, logger);
  // The publisher names the refresher's next scheduled run in each dataset it serves; the
  // refresher tells it of each version it publishes.
  const publisher = new Publisher(store, holder, clock, logger, {
    sourceLabel: sources.length ? sources.map((s) => s.name).join(',') : 'demo',
    nextRefreshAfter: (at) => refresher.nextRunAfter(at),
    asOfDays: config.AS_OF_CACHE_DAYS,
  });
  const refresher = createRefresher({
    store,
    sources,
    clock,
    logger,
    publisher,
    options: { cron: config.REFRESH_SCHEDULE === 'hourly' ? config.REFRESH_CRON : null, instance: claims.holder.instance, progress },
  });
  // Aborted by close(): every start-up phase (waiting, loading, computing) ends on it.
  const stopping = new AbortController();
  /** What start-up is doing until the first dataset is served (/readyz says it). */
  let phase = 'starting';
  // Each swap follows a large write (the first load, a refresh here or by another process):
  // the write-ahead log is folded back and truncated before the histories' reads begin.
  holder.onSwap(() => {
    if (!store.checkpoint()) logger.info('write-ahead log not checkpointed: a reader was busy; the next swap retries');
  });
  // After each swap the new dataset's history cache fills in the background, largest stocks
  // first; the next swap, or close(), stops the previous fill.
  const warming = warmHistoriesOnSwap(holder, logger);

  // The CLI's `sources` prints the served dataset's coverage report from the store's meta.
  holder.onSwap((data) => {
    setImmediate(() => void store.refresh.setMeta(COVERAGE_META_KEY, JSON.stringify(data.coverage())).catch(() => undefined));
  });

  // A key nobody asked for is created only for the demo universe, and only on a store that has
  // never had one: revoking every key and restarting does not bring a working key back.
  if (sources.length === 0 && !(await store.access.everHadKey())) {
    const key = await createKey(store.access, 'free', 'demo', clock);
    options.onDemoKey?.(key);
  } else if ((await store.access.countKeys()) === 0) options.onNoKey?.();

  const server = await buildServer({
    access,
    holder,
    clock,
    logger,
    version: VERSION,
    bodyLimit: config.BODY_LIMIT_BYTES,
    maxBatch: config.MAX_BATCH,
    allowedOrigins: config.allowedOrigins,
    publicOrigins: config.publicOrigins,
    oauth:
      config.OAUTH === 'on' && config.publicOrigin !== null
        ? new OAuthService({ origin: config.publicOrigin, store: store.oauth, access, allowLoopbackDocuments: config.OAUTH_LOOPBACK_CLIENT_DOCUMENTS === 'on' })
        : null,
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
    trustProxy: config.trustProxy,
    headersTimeoutMs: config.HEADERS_TIMEOUT_MS,
    maxConnections: config.MAX_CONNECTIONS,
    maxConnectionsPerAddress: config.MAX_CONNECTIONS_PER_ADDRESS,
    authFailureDelayMs: config.AUTH_FAILURE_DELAY_MS,
    maxWaitingRefusalsPerAddress: config.MAX_WAITING_REFUSALS_PER_ADDRESS,
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

  // With real sources, start-up is served once a dataset with stocks is, even while a bulk
  // first start goes on loading.
  let stocksServed: () => void = () => undefined;
  const firstStocks = new Promise<void>((resolve) => (stocksServed = resolve));
  holder.onSwap((data) => {
    if (data.sectors().some((s) => s.stocks > 0)) stocksServed();
  });
  // The first dataset in the store (./refresh/bootstrap.ts), then served; then the refreshes.
  // While a first start loads, the versions it publishes are served as they come; the hourly runs
  // begin once it is done (they would only repeat its API refreshes meanwhile).
  // With a DART key, the filings a bulk first start brings get their dividend sections afterwards.
  const dart = sources.find((s): s is OpenDartSource => s instanceof OpenDartSource);
  const start = bootstrap({
    store,
    claims,
    refresher,
    sources,
    clock,
    logger,
    progress,
    storeLocation: storeLocation(config),
    demo: {
      size: config.DEMO_SIZE,
      scale: options.demo?.scale ?? config.DEMO_SCALE,
      ...(options.demo?.seed === undefined ? {} : { seed: options.demo.seed }),
      ...(options.demo?.asOf === undefined ? {} : { asOf: options.demo.asOf }),
    },
    ...(options.bulk ? { bulk: options.bulk } : {}),
    bulkPublishSeconds: config.BULK_PUBLISH_SECONDS,
    signal: stopping.signal,
    onPhase: (p) => (phase = p),
    enough: firstStocks,
    // What a bulk first start publishes is served when no recompute is under way; else the poll's.
    onPublish: () => void publisher.catchUp().catch(() => undefined),
    ...(dart ? { dividends: new DividendBackfill({ store, source: dart, clock, logger, board: progress, reserve: config.DART_BACKFILL_RESERVE, onPublish: () => void publisher.catchUp().catch(() => undefined) }) } : {}),
  });
  const served = start.stored.then(async () => {
    phase = 'computing the dataset';
    if (holder.current === null) await publisher.rebuild();
    stopping.signal.throwIfAborted();
  });
  const ready = served.then(() => {
    phase = 'serving';
    publisher.follow();
    if (config.REFRESH_SCHEDULE === 'hourly') void start.loading().then(() => stopping.signal.aborted || refresher.schedule());
  });
  const loaded = ready.then(() => start.loading());
  // Its failure is `ready`'s, reported there; unawaited, it must not end the process.
  loaded.catch(() => undefined);
  const dividends = loaded.then(() => start.dividends());
  dividends.catch(() => undefined);
  ready.catch((err: unknown) => {
    if (!stopping.signal.aborted) logger.error({ errName: (err as Error).name }, 'start-up load failed');
  });

  return {
    store,
    holder,
    publisher,
    refresher,
    access,
    server,
    url,
    ready,
    loaded,
    dividends,
    progress,
    async close() {
      // Graceful, whatever start-up is doing: stop start-up and the refresh (a load in progress
      // rolls back), stop taking connections and finish in-flight requests (cut after 5 s),
      // then write the buffered counts and close the pools. Bounded by STOP_BUDGET_MS.
      const deadline = Date.now() + STOP_BUDGET_MS;
      const left = () => Math.max(0, deadline - Date.now());
      stopping.abort(new Error('the service is stopping'));
      warming.stop();
      refresher.stop();
      publisher.stop();
      const cut = setTimeout(() => server.server.closeAllConnections(), 5_000);
      await within(server.close(), left());
      clearTimeout(cut);
      await within(ready, left());
      await within(start.loading(), left());
      await within(refresher.idle(), left());
      await within(publisher.idle(), left());
      // The board's last state, when a source reported (never a write for the demo universe,
      // whose load may still hold the store's write lock).
      if (progress.snapshot().length > 0) {
        progress.flush();
        await within(progressWritten(), left());
      }
      await within(counter.close(), left());
      await within(store.close(), left());
      if (flushLogs) clearInterval(flushLogs);
      destination?.flushSync();
    },
  };
}
