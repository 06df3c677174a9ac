// The embedded default engine: one SQLite file under DATA_DIR, WAL mode so readers never
// wait for the hourly refresh's write transaction.

import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, type SqliteDatabase } from 'kysely';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DB } from './schema.js';
import { KyselyStore, type RowRunner } from './store.js';

export async function openSqliteStore(file: string): Promise<KyselyStore> {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const database = new Database(file);
  database.pragma('journal_mode = WAL');
  // NORMAL is durable across application crashes in WAL mode; only an OS crash can lose the
  // last transactions, never corrupt the file.
  database.pragma('synchronous = NORMAL');
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = ON');
  const dataVersion = changeCounter(database);
  const store = new KyselyStore(new Kysely<DB>({ dialect: new SqliteDialect({ database: reusingStatements(database) }) }), 'sqlite', arrayRows(database), dataVersion, rowRunner(database));
  await store.migrate();
  return store;
}

/**
 * The database as Kysely sees it, with prepared statements reused by SQL text. Kysely
 * prepares every query anew, and for the small statements of every request (key lookup,
 * usage count) preparing costs as much as running. Bounded, because multi-row inserts vary
 * in row count. Safe because statements are only run with all() and run(), never left open
 * in an iterate().
 */
function reusingStatements(database: Database.Database, max = 256): SqliteDatabase {
  const statements = new Map<string, Database.Statement>();
  return {
    close: () => database.close(),
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = database.prepare(sql);
        if (statements.size >= max) statements.clear();
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}

/**
 * Rows as arrays of column values (better-sqlite3's raw mode) for the store's bulk reads.
 * Its own statements: raw mode is a property of a statement, and Kysely's must stay in
 * object mode.
 */
function arrayRows(database: Database.Database, max = 64): (sql: string, parameters: readonly unknown[]) => unknown[][] {
  const statements = new Map<string, Database.Statement>();
  return (sql, parameters) => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = database.prepare(sql).raw(true);
      if (statements.size >= max) statements.clear();
      statements.set(sql, statement);
    }
    return statement.all(...parameters) as unknown[][];
  };
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
 * inserts through Kysely cost more than SQLite's own work (the demo load was 60% Kysely).
 * Runs on the connection Kysely's transaction holds, so it is part of that transaction.
 */
function rowRunner(database: Database.Database, max = 64): RowRunner {
  const statements = new Map<string, Database.Statement>();
  return (sql, rows) => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = database.prepare(sql);
      if (statements.size >= max) statements.clear();
      statements.set(sql, statement);
    }
    for (const row of rows) statement.run(row);
  };
}
