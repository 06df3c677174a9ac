// What differs between the store's two engines, held by one object per engine (`sqliteDialect`
// in ./sqlite.ts, `postgresDialect` in ./postgres.ts): what the rest of the service asks of the
// deployment, how market-data writers take turns, a query plan the SQL cannot state for both, and
// SQLite's faster paths. Every other file of the store is one Kysely implementation for both
// engines and asks the dialect, never which engine it runs on. The migrations keep their own
// frozen table of DDL differences, keyed by `engine` (./migrations.ts).

import type { Kysely, Transaction } from 'kysely';
import type { Engine } from './migrations.js';
import type { ArrayRows, RowRunner } from './queries.js';
import type { DB } from './schema.js';
import type { SeriesReaders } from './series-readers.js';

/** What the service outside the store may ask of the deployment a store stands for. */
export interface StoreCapabilities {
  /** The engine's name: the key of the migrations' DDL differences. */
  readonly engine: Engine;
  /**
   * Several service instances share the store, possibly from other hosts (PostgreSQL). False:
   * one host, and one serving process that owns the store (SQLite's file, which the CLI may open
   * beside it). Claims renew a lease only where this is true, and check the holder's process
   * where it is false (src/refresh/claims.ts); the usage counts are kept in the serving process's
   * memory only where it is false (`openUsageCounter`, src/app.ts).
   */
  readonly sharedByInstances: boolean;
}

export interface StoreDialect extends StoreCapabilities {
  /**
   * How the snapshot reads' window starts are planned (the CTE `starts` of one correlated key
   * probe per stock: ./market-reads.ts): `materialized` runs the probe once per stock;
   * `notMaterialized` leaves it inline for the planner.
   */
  readonly windowStarts: 'materialized' | 'notMaterialized';

  /**
   * Takes the market-data writers' turn, first in a write's transaction, before any row is
   * locked: a write merges its bars into the stored packs and derives TTM steps from the stored
   * filings, neither of which sees what another write in flight has not committed.
   */
  marketWriteTurn(trx: Transaction<DB>): Promise<void>;
  /**
   * Takes the market-data writers' turn first in a derived-forms rebuild batch (./derived.ts),
   * which reads the records before it writes: what it reads no other writer changes before it
   * commits. `metaKey`: a meta entry the batch may write (an engine whose write lock comes with
   * the first write takes it by writing that entry unchanged).
   */
  rebuildBatchTurn(trx: Transaction<DB>, metaKey: string): Promise<void>;
  /**
   * Runs the derived forms' rebuild on `conn` as the one instance rebuilding: others wait (after
   * `onWait`) until it is done, then find the forms current. An engine whose batches already
   * take turns through its write lock runs it as it is.
   */
  rebuildAlone<T>(conn: Kysely<DB>, onWait: () => void, rebuild: () => Promise<T>): Promise<T>;
  /** The schema Kysely's migration bookkeeping tables are pinned to; undefined: the engine's one. */
  migrationTableSchema(db: Kysely<DB>): Promise<string | undefined>;

  /** The engine's own array-row read: see `QueryRunner.arrays`. */
  readonly rawRows?: ArrayRows;
  /** The engine's prepared single-row writes: see `upsert`. */
  readonly rowRunner?: RowRunner;
  /** A number that changes whenever another connection commits: see the access part's key cache. */
  readonly dataVersion?: () => number;
  /** Threads that read one stock's bars for the histories (./series-readers.ts); closed with the store. */
  readonly seriesReaders?: SeriesReaders;
  /** See `Store.checkpoint`. */
  checkpoint(): boolean;
}
