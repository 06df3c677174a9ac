// The composition root: wires configuration, store, access control, refresh and the HTTP
// server. Nothing else constructs these; tests call `startApp` with their own config and clock.

import pino, { type Logger } from 'pino';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { AccessControl } from './access/access.js';
import { seoulDay, systemClock, type Clock } from './access/clock.js';
import { generateKey } from './access/keys.js';
import { StoreUsageCounter, type UsageCounter } from './access/usage.js';
import type { Config } from './config.js';
import { buildServer } from './http/server.js';
import { loadDemo } from './refresh/demo-load.js';
import { Refresher } from './refresh/pipeline.js';
import type { Source } from './sources/source.js';
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
  if (config.DATABASE_URL) throw new Error('DATABASE_URL (PostgreSQL) is not supported by this build yet; unset it to use SQLite');
  return openSqliteStore(join(config.DATA_DIR, 'service.sqlite'));
}

export async function createKey(store: Store, plan: Plan, name: string, clock: Clock = systemClock): Promise<string> {
  const { key, prefix, hash } = generateKey();
  await store.insertKey({ prefix, hash, name, plan, createdAt: clock().toISOString() });
  return key;
}

export async function startApp(config: Config, options: AppOptions = {}): Promise<App> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? pino({ level: config.LOG_LEVEL, base: { service: 'stock-data' } });
  const store = await openStore(config);
  const usage: UsageCounter = new StoreUsageCounter(store);
  const access = new AccessControl(store, usage, config.plans, clock);
  const holder = new DatasetHolder();
  const sources = options.sources ?? [];
  const refresher = new Refresher(store, holder, sources, clock, logger, sources.length ? sources.map((s) => s.name).join(',') : 'demo');

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
  });
  const url = await server.listen({ host: config.HOST, port: config.PORT });

  const ready = (async () => {
    if (!(await store.hasMarketData())) {
      if (sources.length > 0) {
        await refresher.run();
      } else {
        const asOf = options.demo?.asOf ?? seoulDay(clock());
        const loaded = await loadDemo(store, { asOf, size: config.DEMO_SIZE, scale: options.demo?.scale, seed: options.demo?.seed });
        logger.info({ ...loaded, asOf }, 'demo universe loaded');
      }
    }
    if (holder.current === null) await refresher.rebuild();
    if (config.REFRESH_SCHEDULE === 'hourly') refresher.schedule();
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
      refresher.stop();
      await server.close();
      await ready.catch(() => undefined);
      await store.close();
    },
  };
}
