// The store: one database, three parts by what each serves, one Kysely implementation for both
// engines. Callers take the part they need (typed against its small interface):
//   market   market data: the sources' records, the snapshot's and the histories' reads (./market-data.ts)
//   access   API keys and daily usage: the gate's per-call reads (./access-store.ts)
//   refresh  claims, dataset version, refresh runs, meta: refresh bookkeeping (./refresh-store.ts)
// The store itself is the lifecycle: the engine, migrations, readiness, closing.

import { sql, type Kysely } from 'kysely';
import { KyselyAccessStore, type AccessStore } from './access-store.js';
import { KyselyMarketDataStore, type MarketDataStore } from './market-data.js';
import { runMigrations, type Engine } from './migrations.js';
import { QueryRunner, type ArrayRows, type RowRunner } from './queries.js';
import { KyselyRefreshStore, type RefreshStore } from './refresh-store.js';
import type { DB } from './schema.js';

export interface Store {
  readonly engine: Engine;
  readonly market: MarketDataStore;
  readonly access: AccessStore;
  readonly refresh: RefreshStore;
  migrate(): Promise<void>;
  close(): Promise<void>;
  /** A trivial query, for readiness. */
  ping(): Promise<void>;
}

/** The three parts over one Kysely instance (one pool, one SQLite connection). */
export class KyselyStore implements Store {
  readonly market: MarketDataStore;
  readonly access: AccessStore;
  readonly refresh: RefreshStore;

  constructor(
    readonly db: Kysely<DB>,
    readonly engine: Engine,
    /** The engine's own array-row read, where it has one (SQLite): see `QueryRunner.arrays`. */
    rawRows?: ArrayRows,
    /** A number that changes whenever another connection commits (SQLite): see the access part's key cache. */
    dataVersion?: () => number,
    /** The engine's prepared single-row writes (SQLite): see `upsert`. */
    rowRunner?: RowRunner,
  ) {
    this.market = new KyselyMarketDataStore(db, engine, new QueryRunner(db, rawRows), rowRunner);
    // The access part's hot queries return row objects: it needs no array-row read.
    this.access = new KyselyAccessStore(db, new QueryRunner(db), dataVersion);
    this.refresh = new KyselyRefreshStore(db, engine);
  }

  async migrate(): Promise<void> {
    await runMigrations(this.db, this.engine);
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }
}
