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
import { loadDemo } from './refresh/demo-load.js';
import { Refresher } from './refresh/pipeline.js';
import type { Source } from './sources/source.js';
import { openPostgresStore } from './store/postgres.js';
import { openSqliteStore } from './store/sqlite.js';
import type { Plan, Store } from './store/store.js';
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
}

export interface App {
  store: Store;
  holder: DatasetHolder;
  refresher: Refresher;
  access: AccessControl;
  server: Awaited<ReturnType<typeof buildServer>>;
  url: string;
  /** Resolves when the first dataset is being served. */
  ready: Promise<void>;
  close(): Promise<void>;
}

export async function openStore(config: Config): Promise<Store> {
  if (config.DATABASE_URL) return openPostgresStore(config.DATABASE_URL);
  return openSqliteStore(join(config.DATA_DIR, 'service.sqlite'));
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
    const buffered = new BufferedUsageCounter(store, 1_000, (err: unknown) => logger?.warn({ errName: (err as Error).name }, 'usage counts not written yet; retrying'));
    return { usage: buffered, close: () => buffered.close(), check: null };
  }
  if (!config.REDIS_URL) return { usage: new StoreUsageCounter(store), close: async () => undefined, check: null };
  const redis = new RedisUsageCounter(config.REDIS_URL, config.REDIS_KEY_PREFIX);
  await redis.connect();
  return { usage: redis, close: () => redis.close(), check: () => redis.ping() };
}

/** Polls until another instance has published a dataset version (a concurrent first start). */
async function waitForVersion(store: Store, pollMs = 1_000): Promise<void> {
  while ((await store.datasetVersion()) === 0) await new Promise((r) => setTimeout(r, pollMs));
}

export async function createKey(store: Store, plan: Plan, name: string, clock: Clock = systemClock): Promise<string> {
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
  const store = await openStore(config);
  const counter = await openUsageCounter(config, store, logger);
  const access = new AccessControl(store, counter.usage, config.plans, clock);
  const holder = new DatasetHolder();
  const sources = options.sources ?? [];
  const refresher = new Refresher(store, holder, sources, clock, logger, {
    sourceLabel: sources.length ? sources.map((s) => s.name).join(',') : 'demo',
    cron: config.REFRESH_CRON,
  });

  if ((await store.countKeys()) === 0) {
    const key = await createKey(store, 'free', 'demo', clock);
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
    readinessChecks: [
      () => store.ping().then(
        () => null,
        () => 'database unreachable',
      ),
      ...(counter.check ? [counter.check] : []),
    ],
  });
  const url = await server.listen({ host: config.HOST, port: config.PORT });

  const ready = (async () => {
    if (!(await store.hasMarketData())) {
      // Instances starting together on one database: one loads, the others wait for it.
      if (await store.claimRefresh('bootstrap', 'first-start', clock().toISOString())) {
        if (sources.length > 0) {
          await refresher.run();
        } else {
          const asOf = options.demo?.asOf ?? seoulDay(clock());
          const loaded = await loadDemo(store, { asOf, size: config.DEMO_SIZE, scale: options.demo?.scale ?? config.DEMO_SCALE, seed: options.demo?.seed });
          logger.info({ ...loaded, asOf }, 'demo universe loaded');
          await store.bumpDatasetVersion();
        }
      } else {
        await waitForVersion(store);
      }
    }
    if (holder.current === null) await refresher.rebuild();
    if (config.REFRESH_SCHEDULE === 'hourly') refresher.schedule();
    else refresher.follow();
  })();
  ready.catch((err: unknown) => logger.error({ errName: (err as Error).name }, 'start-up load failed'));

  return {
    store,
    holder,
    refresher,
    access,
    server,
    url,
    ready,
    async close() {
      // Graceful: stop taking connections and finish in-flight requests, then close pools.
      refresher.stop();
      await server.close();
      await ready.catch(() => undefined);
      await counter.close();
      await store.close();
      if (flushLogs) clearInterval(flushLogs);
      destination?.flushSync();
    },
  };
}
