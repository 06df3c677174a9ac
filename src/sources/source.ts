// A data source is an adapter at the edge: it fetches (or generates), parses the upstream's
// own format and returns normalised records. It never touches the store; the refresh
// pipeline stores what it returns, in one transaction, and keeps its cursor.

import type { Dataset, Market } from '../domain/model.js';
import type { UsdSeries } from '../domain/reference-rates.js';
import type { MeterState } from './meter.js';
import type { ProgressSink } from './progress.js';

export interface SourceLogger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
}

export interface SourceContext {
  /** The date the run treats as today (Asia/Seoul), `YYYY-MM-DD`. Passed in, never read from the clock. */
  asOf: string;
  /**
   * The instant of the run, passed in by the refresh (never read from the clock). Price
   * adapters take only sessions closed by then in each market's own time zone; without it
   * they go by `asOf` alone.
   */
  now?: Date;
  /** What the last successful run of this source returned as `cursor`; null on the first run. */
  cursor: string | null;
  /** Optional explicit range for a backfill run (`YYYY-MM-DD`). */
  range?: { from: string; to: string };
  /** The HTTP client to use; tests pass one that talks to a loopback server. */
  fetch: typeof fetch;
  signal?: AbortSignal;
  log: SourceLogger;
  /** Where the source reports how far it is (phase, done / total, calls of the day's allowance); optional. */
  progress?: ProgressSink;
  /**
   * The day's call count the last run of this source reported (`SourceResult.calls`), so the
   * count against a daily allowance survives a restart; optional (the source's own meter counts
   * within a process either way).
   */
  calls?: MeterState | null;
  /**
   * The listed codes of a market as the store holds them (placed by the price and filing
   * sources). For an adapter whose upstream answers one stock per call (KIS's investor trend)
   * and has no listing of its own to walk; the others ignore it. Optional: without it such an
   * adapter asks nothing.
   */
  universe?: (market: Market) => Promise<readonly string[]>;
  /**
   * The ECB's reference rates as the store holds them, each currency's daily USD series (placed by
   * the ECB source, src/sources/ecb). For SEC's foreign filers without a USD convenience
   * translation; the others ignore it. Optional: without it such a filer's filings are not taken.
   */
  usdRates?: () => Promise<ReadonlyMap<string, UsdSeries>>;
}

export interface SourceResult {
  data: Partial<Dataset>;
  /** Opaque marker of how far this run got, handed back next time for incremental fetching. */
  cursor: string;
  /**
   * Records the adapter read but could not take, by reason (`company.json status 013`,
   * `preferred or derivative ticker`, ...): counted and reported, never a reason to fail the run.
   */
  skipped?: Record<string, number>;
  /** Calls made in the current Seoul day, for the next run's `ctx.calls` (sources with a call meter). */
  calls?: MeterState;
}

export interface Source {
  /** Stable name reported in `source` fields and in refresh status, e.g. `opendart`. */
  readonly name: string;
  /**
   * How long one run of this source may take, where it paces a long walk itself within its own
   * budget (Polygon's free plan: 5 calls a minute); the refresh's default (ten minutes) otherwise.
   */
  readonly timeoutMs?: number;
  ingest(ctx: SourceContext): Promise<SourceResult>;
}
