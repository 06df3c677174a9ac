// The composition root's factories: every process (the service, app.ts; the CLI's commands,
// cli/main.ts) builds its store, counters, progress board, refresh (the writer) and, where it
// serves, its publisher (the reader of each new version) here, so that the parts are wired one
// way. A process that does not serve builds no publisher and computes no snapshot.

import pino, { type Logger } from 'pino';
import { join } from 'node:path';
import { systemClock, type Clock } from './access/clock.js';
import { applyKeyPepper, generateKey } from './access/keys.js';
import { RedisUsageCounter } from './access/redis-usage.js';
import { BufferedUsageCounter, StoreUsageCounter, type UsageCounter } from './access/usage.js';
import type { Config } from './config.js';
import type { StoreLocation } from './refresh/demo-load.js';
import { Refresher, type RefresherOptions } from './refresh/pipeline.js';
import { ProgressBoard } from './refresh/progress.js';
import type { DatasetHolder } from './serving/holder.js';
import { Publisher } from './serving/publisher.js';
import type { SnapshotDataset } from './serving/served.js';
import type { Source } from './sources/source.js';
import { openPostgresStore } from './store/postgres.js';
import { openSqliteStore } from './store/sqlite.js';
import type { AccessStore, Plan } from './store/access-store.js';
import type { Store } from './store/store.js';

/**
 * `serving`: the service's own store, which reads histories on its series reader threads (SQLite).
 * Opening rebuilds the derived forms whose format changed (src/store/derived.ts) and logs it to
 * `logger`; without one (the CLI's commands) to stderr, so that their output stays theirs.
 */
export async function openStore(config: Config, serving = false, logger?: Logger): Promise<Store> {
  const log = logger ?? pino({ level: config.LOG_LEVEL }, pino.destination(2));
  const store = config.DATABASE_URL
    ? await openPostgresStore(config.DATABASE_URL, undefined, log)
    : await openSqliteStore(join(config.DATA_DIR, 'service.sqlite'), { seriesReaders: serving ? config.SERIES_READERS : 0, log });
  // Key hashes in the configured form (KEY_PEPPER) before any key is looked up or created.
  try {
    if ((await applyKeyPepper(store.access, config.KEY_PEPPER)) === 'peppered') log.info('stored API key hashes peppered with KEY_PEPPER');
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}

/** Where a process other than this one (the demo load's worker) opens the same store. */
export function storeLocation(config: Config): StoreLocation {
  return config.DATABASE_URL ? { databaseUrl: config.DATABASE_URL } : { sqliteFile: join(config.DATA_DIR, 'service.sqlite') };
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

export async function createKey(store: AccessStore, plan: Plan, name: string, clock: Clock = systemClock): Promise<string> {
  const { key, prefix, hash } = generateKey();
  await store.insertKey({ prefix, hash, name, plan, createdAt: clock().toISOString() });
  return key;
}

/**
 * The board every source's progress goes to; written to the store's meta (at most every 2 s)
 * for the CLI's `sources` and for other processes. `written()`: the last write under way.
 */
export function progressBoard(store: Pick<Store, 'refresh'>, clock: Clock, logger?: Logger): { board: ProgressBoard; written: () => Promise<unknown> } {
  let written: Promise<unknown> = Promise.resolve();
  const board = new ProgressBoard(clock, {
    persist: (json) => {
      written = store.refresh.setMeta('progress', json).catch((err: unknown) => logger?.warn({ errName: (err as Error).name }, 'progress not written'));
    },
  });
  return { board, written: () => written };
}

/** The served dataset's `source`: `demo` with no real source configured, else the sources' names. */
export function sourceLabel(sources: readonly Pick<Source, 'name'>[]): string {
  return sources.length ? sources.map((s) => s.name).join(',') : 'demo';
}

/**
 * The refresh (the writer): ingests `sources` into the store and publishes a version per run.
 * With `publisher` (a serving process), each version is served as soon as it is published.
 */
export function createRefresher(deps: {
  store: Pick<Store, 'market' | 'refresh'>;
  sources: readonly Source[];
  clock: Clock;
  logger: Logger;
  publisher?: Publisher;
  options?: Omit<RefresherOptions, 'onPublish'>;
}): Refresher {
  const { publisher } = deps;
  return new Refresher(deps.store, deps.sources, deps.clock, deps.logger, {
    ...deps.options,
    ...(publisher ? { onPublish: (version: number, sources: Parameters<Publisher['publish']>[1]) => publisher.publish(version, sources) } : {}),
  });
}

/**
 * The publisher of a serving process: serves each dataset version the store publishes, naming
 * `sources` and, with `refresher`, when its next scheduled run is due.
 */
export function createPublisher(deps: {
  store: Pick<Store, 'market' | 'refresh'>;
  holder: DatasetHolder<SnapshotDataset>;
  sources: readonly Pick<Source, 'name'>[];
  clock: Clock;
  logger: Logger;
  schedule: { nextRunAfter(at: Date): Date | null } | null;
}): Publisher {
  const { schedule } = deps;
  return new Publisher(deps.store, deps.holder, deps.clock, deps.logger, {
    sourceLabel: sourceLabel(deps.sources),
    ...(schedule ? { nextRefreshAfter: (at: Date) => schedule.nextRunAfter(at) } : {}),
  });
}
