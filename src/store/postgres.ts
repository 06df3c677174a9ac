// PostgreSQL, selected by DATABASE_URL: the same Kysely store and migrations as SQLite, with a
// pooled `pg` client. Several API instances share one database.

import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { DerivedLog } from './derived.js';
import type { DB } from './schema.js';
import { runMigrations } from './migrations.js';
import { formsCurrent, KyselyStore } from './store.js';

// float8 and int4 already parse to numbers; COUNT(*) and other int8 values come back as text.
// Every int8 we read (counts) is far below 2^53, so parsing it to a number is exact.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

const MIGRATION_LOCK = 727_001;

/** `log`: where the derived forms' rebuild at open logs (./derived.ts). */
export async function openPostgresStore(url: string, poolSize = 10, log?: DerivedLog): Promise<KyselyStore> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 10_000 });
  // A broken idle connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // Nor one that is checked out but between queries when the server goes away (a server
  // shutdown's FATAL arrives as an 'error' event with no query to take it): the query that
  // follows fails, and the pool drops the client when it comes back (it is no longer queryable).
  pool.on('connect', (client) => client.on('error', () => undefined));
  const store = new KyselyStore(new Kysely<DB>({ dialect: new PostgresDialect({ pool }) }), 'postgres');
  // Instances starting together must not race to create the schema: the migrations run on one
  // connection holding a session advisory lock, so the second instance waits, then finds
  // nothing to do.
  await store.db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`.execute(conn);
    try {
      await runMigrations(conn, 'postgres');
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`.execute(conn);
    }
  });
  return formsCurrent(store, log);
}
