// The composition root's factories: every process (the service, app.ts; the CLI's commands,
// cli/main.ts) builds its store, counters, progress board and refresh (the writer) here, so that
// the parts are wired one way. The serving process adds its publisher (app.ts), which the
// refresher tells of each version; a process that does not serve builds none, computes no
// snapshot, and loads no serving code (this module names the publisher only as a type).

import pino, { type Logger } from 'pino';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { applyKeyPepper, generateKey, keyHashScheme, PLAIN_SCHEME } from './access/keys.js';
import { RedisUsageCounter } from './access/redis-usage.js';
import { BufferedUsageCounter, StoreUsageCounter, type UsageCounter } from './access/usage.js';
import { ConfigError, type Config } from './config.js';
import { systemClock, type Clock } from './kernel/clock.js';
import type { StoreLocation } from './refresh/demo-load.js';
import { Refresher, type RefresherOptions, type SourceStatus } from './refresh/pipeline.js';
import { ProgressBoard } from './refresh/progress.js';
import type { Publisher } from './serving/publisher.js';
import type { Source } from './sources/source.js';
import { openPostgresStore } from './store/postgres.js';
import { openSqliteStore } from './store/sqlite.js';
import type { AccessStore, Plan } from './store/access-store.js';
import type { Store } from './store/store.js';

export const VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

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
    // A store whose keys are hashed otherwise than KEY_PEPPER says is a configuration error; a
    // store that could not be read is not.
    const mismatch = await store.access.keyHashScheme().then(
      (stored) => (stored ?? PLAIN_SCHEME) !== keyHashScheme(config.KEY_PEPPER),
      () => false,
    );
    await store.close();
    throw mismatch ? new ConfigError(`invalid configuration: KEY_PEPPER: ${(err as Error).message}`) : err;
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
  if (!config.REDIS_URL && !store.dialect.sharedByInstances) {
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

/**
 * The refresh (the writer): ingests `sources` into the store and publishes a version per run.
 * With `publisher` (a serving process), each version is served as soon as it is published.
 */
export function createRefresher(deps: {
  store: Pick<Store, 'market' | 'refresh'>;
  sources: readonly Source[];
  clock: Clock;
  logger: Logger;
  publisher?: Pick<Publisher, 'publish'>;
  options?: Omit<RefresherOptions, 'onPublish'>;
}): Refresher {
  const { publisher } = deps;
  return new Refresher(deps.store, deps.sources, deps.clock, deps.logger, {
    ...deps.options,
    ...(publisher ? { onPublish: (version: number, sources: readonly SourceStatus[]) => publisher.publish(version, sources) } : {}),
  });
}
