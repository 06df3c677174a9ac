// The stores a store-touching suite runs on, each opened fresh: SQLite, SQLite with a series
// reader thread (reads that go to the thread take that path), and PostgreSQL when
// TEST_DATABASE_URL is set (skipped otherwise); and a store on a database that earlier migrations made
// (`openMigratedFrom`), as a later migration finds a deployed one.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, sql, SqliteDialect } from 'kysely';
import pg from 'pg';
import { migrationProvider } from '../../src/store/migrations.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { KyselyStore } from '../../src/store/store.js';
import { freshSchema, PG_SKIP } from './pg.js';
import { tempDir } from './tmp.js';

export interface StorePlace {
  name: string;
  skip: string | false;
  open(): Promise<{ store: KyselyStore; cleanup: () => Promise<void> }>;
}

export const STORE_PLACES: readonly StorePlace[] = [
  {
    name: 'SQLite',
    skip: false,
    async open() {
      const tmp = tempDir();
      return { store: await openSqliteStore(join(tmp.dir, 'db.sqlite')), cleanup: async () => tmp.cleanup() };
    },
  },
  {
    name: 'SQLite with a reader thread',
    skip: false,
    async open() {
      const tmp = tempDir();
      return { store: await openSqliteStore(join(tmp.dir, 'db.sqlite'), { seriesReaders: 1 }), cleanup: async () => tmp.cleanup() };
    },
  },
  {
    name: 'PostgreSQL',
    skip: PG_SKIP,
    async open() {
      const schema = await freshSchema();
      return { store: await openPostgresStore(schema.url, 2), cleanup: schema.drop };
    },
  },
];

/**
 * A store opened on a database that the migrations up to `migration` made and `fill` filled:
 * what a later migration finds in a deployed store.
 */
export async function openMigratedFrom(engine: { name: string }, migration: string, fill: (db: Kysely<unknown>) => Promise<void>): Promise<{ store: KyselyStore; cleanup: () => Promise<void> }> {
  const prepare = async (db: Kysely<unknown>, kind: 'sqlite' | 'postgres') => {
    const schema = kind === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined;
    const migrator = new Migrator({ db, provider: migrationProvider(kind), ...(schema ? { migrationTableSchema: schema } : {}) });
    assert.equal((await migrator.migrateTo(migration)).error, undefined);
    await fill(db);
    await db.destroy();
  };
  if (engine.name.startsWith('SQLite')) {
    const tmp = tempDir();
    const file = join(tmp.dir, 'db.sqlite');
    await prepare(new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Database(file) }) }), 'sqlite');
    return { store: await openSqliteStore(file), cleanup: async () => tmp.cleanup() };
  }
  const schema = await freshSchema();
  await prepare(new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: schema.url, max: 1 }) }) }), 'postgres');
  return { store: await openPostgresStore(schema.url, 2), cleanup: schema.drop };
}
