// The store: one database, parts by what each serves, one Kysely implementation for both
// engines, whose differences its dialect holds (./dialect.ts). Callers take the part they need
// (typed against its small interface):
//   market   market data: the sources' records, the snapshot's and the histories' reads (./market-data.ts)
//   access   API keys and daily usage: the gate's per-call reads (./access-store.ts)
//   refresh  claims, dataset version, refresh runs, meta: refresh bookkeeping (./refresh-store.ts)
//   oauth    the OAuth authorization server's clients, codes and tokens (./oauth-store.ts)
// The store itself is the lifecycle: the dialect, migrations, the derived forms' rebuild
// (./derived.ts), readiness, closing.

import { sql, type Kysely } from 'kysely';
import { KyselyAccessStore, type AccessStore } from './access-store.js';
import type { StoreCapabilities, StoreDialect } from './dialect.js';
import { rebuildDerivedForms, type DerivedLog, type DerivedOptions, type DerivedRebuild } from './derived.js';
import { KyselyMarketDataStore, type MarketDataStore } from './market-data.js';
import { runMigrations } from './migrations.js';
import { KyselyOAuthStore, type OAuthStore } from './oauth-store.js';
import { QueryRunner } from './queries.js';
import { KyselyRefreshStore, type RefreshStore } from './refresh-store.js';
import type { DB } from './schema.js';
import type { SeriesReaders } from './series-readers.js';

export interface Store {
  /** What the deployment behind the store is (./dialect.ts). */
  readonly dialect: StoreCapabilities;
  readonly market: MarketDataStore;
  readonly access: AccessStore;
  readonly refresh: RefreshStore;
  readonly oauth: OAuthStore;
  migrate(): Promise<void>;
  close(): Promise<void>;
  /** A trivial query, for readiness. */
  ping(): Promise<void>;
  /**
   * After a large write (the first load, a refresh): folds SQLite's write-ahead log back into
   * the database and truncates it, so the log does not stay as large as the write was. Returns
   * false when a reader kept it from finishing (the next call retries); PostgreSQL: nothing to do.
   */
  checkpoint(): boolean;
}

/** The parts over one Kysely instance (one pool, one SQLite connection) and its dialect. */
export class KyselyStore implements Store {
  readonly market: MarketDataStore;
  readonly access: AccessStore;
  readonly refresh: RefreshStore;
  readonly oauth: OAuthStore;

  /** SQLite's series reader threads, when the store was opened with them. */
  readonly seriesReaders: SeriesReaders | undefined;

  constructor(
    readonly db: Kysely<DB>,
    /** What differs on this store's engine, SQLite's faster paths among it. */
    readonly dialect: StoreDialect,
  ) {
    this.seriesReaders = dialect.seriesReaders;
    this.market = new KyselyMarketDataStore(db, dialect, new QueryRunner(db, dialect.rawRows));
    // The access part's hot queries return row objects: it needs no array-row read.
    this.access = new KyselyAccessStore(db, new QueryRunner(db), dialect.dataVersion);
    this.refresh = new KyselyRefreshStore(db, dialect.sharedByInstances);
    this.oauth = new KyselyOAuthStore(db);
  }

  /** Applies the pending migrations, on `db` when given (a connection of this store's). */
  async migrate(db: Kysely<DB> = this.db): Promise<void> {
    await runMigrations(db, this.dialect.engine, await this.dialect.migrationTableSchema(db));
  }

  /**
   * Rebuilds, from the records, each derived form (bar packs, TTM steps, report packs) whose
   * stored format is not its code's (./derived.ts). The openers run it after the migrations.
   */
  async rebuildDerivedForms(options: DerivedOptions = {}): Promise<DerivedRebuild[]> {
    return rebuildDerivedForms({ db: this.db, dialect: this.dialect }, options);
  }

  async close(): Promise<void> {
    await this.seriesReaders?.close();
    await this.db.destroy();
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  checkpoint(): boolean {
    return this.dialect.checkpoint();
  }
}

/**
 * The last step of opening a store (./sqlite.ts, ./postgres.ts), after the migrations: every
 * derived form brought to its code's format (./derived.ts), so nothing reads or writes through
 * the store before. A store whose forms cannot be rebuilt is closed.
 */
export async function formsCurrent(store: KyselyStore, log: DerivedLog | undefined): Promise<KyselyStore> {
  try {
    await store.rebuildDerivedForms(log ? { log } : {});
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}
