// The embedded default engine: one SQLite file under DATA_DIR, WAL mode so readers never
// wait for the hourly refresh's write transaction.

import Database from 'better-sqlite3';
import { Kysely, sql, SqliteDialect } from 'kysely';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DerivedLog } from './derived.js';
import type { StoreDialect } from './dialect.js';
import type { DB } from './schema.js';
import type { RowRunner } from './queries.js';
import { SeriesReaders } from './series-readers.js';
import { statementCache } from './sqlite-statements.js';
import { formsCurrent, KyselyStore } from './store.js';

export interface SqliteOptions {
  /**
   * Threads that read one stock's bars for the per-request histories (./series-readers.ts): 0,
   * the default, reads them on the calling thread (the CLI, tests, one-off tools); the service
   * passes SERIES_READERS. Not for ':memory:', which no other connection can open.
   */
  seriesReaders?: number;
  /** Where the derived forms' rebuild at open logs (./derived.ts). */
  log?: DerivedLog;
}

/** Mode 0600 (read and write by the owner only) for each of these files that exists. */
export function ownerOnly(...files: string[]): void {
  for (const f of files) if (existsSync(f)) chmodSync(f, 0o600);
}

export async function openSqliteStore(file: string, options: SqliteOptions = {}): Promise<KyselyStore> {
  // The store holds the API keys' hashes: its folder is the owner's alone (0700 where this
  // creates it; an existing folder keeps its mode) and its files are 0600. SQLite gives the
  // write-ahead log and shared-memory files it creates later the database file's mode.
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const database = new Database(file);
  if (file !== ':memory:') ownerOnly(file, `${file}-wal`, `${file}-shm`);
  database.pragma('journal_mode = WAL');
  // NORMAL is durable across application crashes in WAL mode; only an OS crash can lose the
  // last transactions, never corrupt the file.
  database.pragma('synchronous = NORMAL');
  database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  database.pragma('foreign_keys = ON');
  // A checkpoint that empties the log also cuts the file back to this size (SQLite otherwise
  // keeps the file as large as the largest transaction made it, reusing it from the start).
  database.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  // Kysely's statements and the row runner's share one cache (both in object mode); the bulk
  // reads have their own, since raw mode is a property of a statement.
  const statements = statementCache(database, 256);
  const rawStatements = statementCache(database, 64, true);
  const arrayRows = (text: string, parameters: readonly unknown[]) => rawStatements(text).all(...parameters) as unknown[][];
  const store = new KyselyStore(
    new Kysely<DB>({ dialect: new SqliteDialect({ database: { close: () => database.close(), prepare: statements } }) }),
    sqliteDialect(database, {
      rawRows: arrayRows,
      dataVersion: changeCounter(database),
      rowRunner: rowRunner(statements),
      ...(file !== ':memory:' && (options.seriesReaders ?? 0) > 0 ? { seriesReaders: new SeriesReaders(file, options.seriesReaders ?? 0) } : {}),
    }),
  );
  // Kysely runs SQLite migrations outside a transaction (its SQLite adapter does not claim
  // transactional DDL, which SQLite has): a process killed between two statements of one
  // migration would leave tables its next start fails to create again. One transaction around
  // them all, on the one connection Kysely uses: a killed migration leaves nothing. Deferred,
  // so a start with nothing to migrate only reads (the CLI during a first load's write).
  database.exec('begin');
  try {
    await store.migrate();
    database.exec('commit');
  } catch (err) {
    if (database.inTransaction) database.exec('rollback');
    throw err;
  }
  return formsCurrent(store, options.log);
}

/** SQLite's faster paths, made by `openSqliteStore` on its connection. */
type SqlitePaths = Pick<StoreDialect, 'rawRows' | 'dataVersion' | 'rowRunner' | 'seriesReaders'>;

/**
 * SQLite as the store's dialect (./dialect.ts): one file on one host, served by one process;
 * one writer at a time, whose write lock comes with a transaction's first write.
 */
export function sqliteDialect(database: Database.Database, paths: SqlitePaths): StoreDialect {
  return {
    engine: 'sqlite',
    sharedByInstances: false,
    // SQLite evaluates the probe once per stock when it seeks the inner key range, and the rows
    // come out in key order with no sort: left inline.
    windowStarts: 'notMaterialized',
    // One writer at a time anyway: the transaction's first write waits for the write lock.
    marketWriteTurn: async () => undefined,
    // A write first takes the write lock, so what follows reads what no one else changes. Two
    // processes opening at once share the batches this way.
    rebuildBatchTurn: async (trx, metaKey) => {
      await trx.updateTable('meta').set({ value: sql<string>`value` }).where('key', '=', metaKey).execute();
    },
    rebuildAlone: (_conn, _onWait, rebuild) => rebuild(),
    migrationTableSchema: async () => undefined,
    ...paths,
    checkpoint: () => checkpoint(database),
  };
}

/** How long a statement waits for another connection's lock. */
const BUSY_TIMEOUT_MS = 5000;

/** What the write-ahead log may keep on disk after a checkpoint has emptied it. */
export const WAL_SIZE_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * `wal_checkpoint(TRUNCATE)`: copies the log's pages into the database and truncates the log
 * to zero bytes. It waits for readers through the busy handler, shortened here so the serving
 * thread (better-sqlite3 is synchronous) is held at most ~0.2 s by a long read; a checkpoint
 * cut short by one returns false and leaves the log to the next call (or SQLite's own
 * automatic checkpoints, which `journal_size_limit` then trims).
 */
function checkpoint(database: Database.Database): boolean {
  if (database.memory || database.inTransaction) return true;
  database.pragma('busy_timeout = 200');
  try {
    const [result] = database.pragma('wal_checkpoint(TRUNCATE)') as { busy: number; log: number; checkpointed: number }[];
    return result === undefined || result.busy === 0;
  } catch {
    return false;
  } finally {
    database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
}

/**
 * SQLite's `PRAGMA data_version`, which changes when another connection commits (the CLI's
 * `keys revoke`), read at most once per millisecond: the pragma opens a read transaction
 * (about 5 us, 8% of a cached call's CPU when read on every call). A revocation therefore
 * counts for every request that starts a millisecond after its commit; the CLI command takes
 * far longer than that to exit.
 */
function changeCounter(database: Database.Database): () => number {
  const pragma = database.prepare('PRAGMA data_version').pluck();
  let readAt = Number.NEGATIVE_INFINITY;
  let version = 0;
  return () => {
    const now = performance.now();
    if (now - readAt >= 1) {
      version = pragma.get() as number;
      readAt = now;
    }
    return version;
  };
}

/**
 * Bulk writes as one prepared single-row statement run per row: better-sqlite3 runs a
 * prepared statement in a few microseconds, where building, compiling and binding multi-row
 * inserts through Kysely costs more than SQLite's own work (60% of a demo load through Kysely).
 * Runs on the connection Kysely's transaction holds, so it is part of that transaction.
 */
function rowRunner(prepare: (sql: string) => Database.Statement): RowRunner {
  return (text, rows) => {
    const statement = prepare(text);
    for (const row of rows) statement.run(row);
  };
}
