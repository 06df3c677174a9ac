// PostgreSQL, selected by DATABASE_URL: the same Kysely store and migrations as SQLite, with a
// pooled `pg` client. Several API instances share one database.

import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { DerivedLog } from './derived.js';
import type { StoreDialect } from './dialect.js';
import type { DB } from './schema.js';
import { formsCurrent, KyselyStore } from './store.js';

// float8 and int4 already parse to numbers; COUNT(*) and other int8 values come back as text.
// Every int8 we read (counts) is far below 2^53, so parsing it to a number is exact.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

/** The session advisory lock the migrations run under. */
const MIGRATION_LOCK = 727_001;
/** The session advisory lock of a derived forms' rebuild (./derived.ts). */
const DERIVED_LOCK = 727_002;
/** The transaction advisory lock market-data writes (and the rebuild's batches) take in turn ('bars' in ASCII). */
const MARKET_WRITE_LOCK = 0x62617273;

/**
 * PostgreSQL as the store's dialect (./dialect.ts): several instances, possibly on other hosts,
 * share the database; writers take turns through advisory locks.
 */
export const postgresDialect: StoreDialect = {
  engine: 'postgres',
  sharedByInstances: true,
  // Materialised, the probe runs once per stock; left inline it re-ran for every candidate row
  // (3 s for a 40-stock universe).
  windowStarts: 'materialized',
  marketWriteTurn: async (trx) => {
    await sql`select pg_advisory_xact_lock(${MARKET_WRITE_LOCK})`.execute(trx);
  },
  rebuildBatchTurn: async (trx) => {
    await sql`select pg_advisory_xact_lock(${MARKET_WRITE_LOCK})`.execute(trx);
  },
  // The session lock belongs to `conn`: the rebuild runs on that one connection.
  async rebuildAlone(conn, onWait, rebuild) {
    const [row] = (await sql<{ locked: boolean }>`select pg_try_advisory_lock(${DERIVED_LOCK}) as locked`.execute(conn)).rows;
    if (row?.locked !== true) {
      onWait();
      await sql`select pg_advisory_lock(${DERIVED_LOCK})`.execute(conn);
    }
    try {
      return await rebuild();
    } finally {
      await sql`select pg_advisory_unlock(${DERIVED_LOCK})`.execute(conn);
    }
  },
  // Kysely's bookkeeping tables pinned to the connection's schema. Left unset, the migrator takes
  // a kysely_migration_lock table in ANY schema of the database as its own (another
  // application's, or another deployment's) and then fails to find it on its path.
  migrationTableSchema: async (db) => (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema,
  // Nothing to fold back: see `Store.checkpoint`.
  checkpoint: () => true,
};

/** `log`: where the derived forms' rebuild at open logs (./derived.ts). */
export async function openPostgresStore(url: string, poolSize = 10, log?: DerivedLog): Promise<KyselyStore> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 10_000 });
  // A broken idle connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // Nor one that is checked out but between queries when the server goes away (a server
  // shutdown's FATAL arrives as an 'error' event with no query to take it): the query that
  // follows fails, and the pool drops the client when it comes back (it is no longer queryable).
  pool.on('connect', (client) => client.on('error', () => undefined));
  const store = new KyselyStore(new Kysely<DB>({ dialect: new PostgresDialect({ pool }) }), postgresDialect);
  // Instances starting together must not race to create the schema: the migrations run on one
  // connection holding a session advisory lock, so the second instance waits, then finds
  // nothing to do.
  await store.db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`.execute(conn);
    try {
      await store.migrate(conn);
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`.execute(conn);
    }
  });
  return formsCurrent(store, log);
}
