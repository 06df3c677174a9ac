// Market data: securities, filings, bars, investor flows, FX, trade and sector exports. What the
// refresh writes from the sources and what the snapshot and the per-stock histories read. It
// stores and reads normalised records; it computes nothing (the derived forms kept beside the
// records aside: ./derived.ts). This file holds the part's interface and the write's transaction;
// the writes and reads of each kind of record are in a file of their own:
//   ./market-securities.ts  securities        ./market-bars.ts     bars, bar packs, split events
//   ./market-reports.ts     filings, TTM steps, report packs
//   ./market-flows.ts       investor flows    ./market-economy.ts  FX, trade, sector exports
//   ./market-reads.ts       what they share: the store they run on, the bulk reads' machinery

import { sql, type Kysely, type Transaction } from 'kysely';
import type {
  DailyBar,
  Dataset,
  EuroReferenceRate,
  FinancialReport,
  FlowDay,
  FxRate,
  InvestorFlow,
  Market,
  SnapshotBar,
  SectorExportMonth,
  TradeMonth,
} from '../domain/model.js';
import type { BarSeries, MarketCapSeries } from '../domain/series.js';
import type { ListingVersion } from '../domain/listings.js';
import type { TtmStep } from '../domain/ttm.js';
import type { SplitEvent } from '../domain/price-change.js';
import type { StoreDialect } from './dialect.js';
import { deriveAfterWrite } from './delistings.js';
import { BarsData } from './market-bars.js';
import * as economy from './market-economy.js';
import { FlowsData } from './market-flows.js';
import { BulkReads, type MarketContext } from './market-reads.js';
import { ReportsData } from './market-reports.js';
import * as securityRows from './market-securities.js';
import { createBarsDateIndex } from './migrations.js';
import type { QueryRunner } from './queries.js';
import type { DB } from './schema.js';
import type { StoredSecurity, UniverseSlice } from './market-types.js';
import type { SeriesRange } from './series-rows.js';

export type { StoredSecurity, UniverseSlice } from './market-types.js';

/** What a write took and what it skipped (reason -> count, e.g. `bars: unknown security`). */
export interface WriteReport {
  written: number;
  skipped: Record<string, number>;
  /** Up to ten skipped records as `KR:123456`, for the log and the run's report. */
  examples: string[];
}

export type { SeriesRange } from './series-rows.js';

export interface WriteOptions {
  /**
   * The day the write's securities describe (`YYYY-MM-DD`: the run's data day): a name, sector
   * or exchange that differs from the one the store holds for that day starts a listing version
   * from it (src/domain/listings.ts). Absent: the write corrects the latest version in place.
   */
  asOf?: string;
  /** `writeDatasets` only: a large first load, for which the store may build secondary indexes once at the end. */
  bulk?: boolean;
}

export interface MarketDataStore {
  /**
   * Upserts everything in one transaction: all of it lands, or none of it. Idempotent. A record
   * for a security the store does not know (and the same write does not bring) is not written:
   * it is skipped and counted in the answer, and the rest lands.
   */
  writeDataset(data: Partial<Dataset>, options?: WriteOptions): Promise<WriteReport>;
  /**
   * Upserts a stream of parts in ONE transaction, so a large load (the demo universe, a
   * backfill) can be generated piece by piece and still land all or nothing.
   */
  writeDatasets(parts: Iterable<Partial<Dataset>> | AsyncIterable<Partial<Dataset>>, options?: WriteOptions & { bulk?: boolean }): Promise<WriteReport>;
  hasMarketData(): Promise<boolean>;

  securities(): Promise<StoredSecurity[]>;
  /** Every security's listing versions (its name, sector and exchange over time) by security id, ascending by day. */
  listingVersions(): Promise<Map<number, ListingVersion[]>>;
  reports(securityId?: number): Promise<FinancialReport[]>;
  bars(securityId: number, from?: string, to?: string): Promise<DailyBar[]>;
  /**
   * One stock's bars dated in [`from`, `to`] as columns (the last `last` of them when given),
   * ascending: the per-request history reads, with no object per bar.
   */
  barSeries(securityId: number, range: SeriesRange): Promise<BarSeries>;
  /** The stock's TTM step function: `ttmTimeline` of all its filings, kept beside them (./ttm-steps.ts). */
  ttmSteps(securityId: number): Promise<TtmStep[]>;
  /** What the valuation band reads of `barSeries`: the day and its market cap (close x shares, the IEEE product of the two stored doubles). */
  marketCapSeries(securityId: number, range: SeriesRange): Promise<MarketCapSeries>;
  /**
   * Per stock, the filings a snapshot as of `asOf` can draw on: those disclosed on or before
   * `asOf` whose fiscal quarter is at most `quarters - 1` quarters before the latest such one.
   * Ordered by stock, fiscal year, quarter, disclosure.
   */
  recentReports(asOf: string, quarters: number, slice?: UniverseSlice): Promise<Map<number, FinancialReport[]>>;
  /** One stock's `recentReports` (its entry there, or none), by a key lookup compiled once: one request's read. */
  stockRecentReports(security: StoredSecurity, asOf: string, quarters: number): Promise<FinancialReport[]>;
  /**
   * For each of `wanted` (a stock and a date), the close of the stock's last bar dated on or
   * before the date; null when it has none. In the order asked. `here`: on the calling thread
   * even where the store has reader threads (a caller that keeps them busy with other reads).
   */
  closesOnOrBefore(wanted: readonly { securityId: number; date: string }[], here?: boolean): Promise<(number | null)[]>;
  /** As `closesOnOrBefore`, the listed shares of that bar (as the feed gives them: not adjusted for later splits). */
  listedSharesOnOrBefore(wanted: readonly { securityId: number; date: string }[]): Promise<(number | null)[]>;
  /** Per stock, its split events (found in its bars, kept beside them: ./bar-splits.ts) dated in (`after`, `through`], ascending. */
  splitEvents(after: string, through: string): Promise<Map<number, SplitEvent[]>>;
  /** One stock's split events dated on or before `through`, ascending: what a split-adjusted price history divides out. */
  stockSplitEvents(securityId: number, through: string): Promise<SplitEvent[]>;
  /** Per stock (by security id), its last `count` bars dated in [`from`, `asOf`], ascending. */
  lastBars(from: string, asOf: string, count: number, slice?: UniverseSlice): Promise<Map<number, SnapshotBar[]>>;
  /** Per stock, its flows dated from its `count`-th last bar in [`from`, `asOf`] to `asOf`. */
  flowsOfLastBars(from: string, asOf: string, count: number, slice?: UniverseSlice): Promise<Map<number, FlowDay[]>>;
  /** One stock's `lastBars` (its entry there, or none), by a key range compiled once: one request's read. */
  stockLastBars(securityId: number, from: string, asOf: string, count: number): Promise<SnapshotBar[]>;
  /** One stock's flows dated in [`from`, `through`], ascending, as `flowsOfLastBars` gives them. */
  stockFlows(securityId: number, from: string, through: string): Promise<FlowDay[]>;
  flows(securityId: number): Promise<InvestorFlow[]>;
  /** Distinct trading dates of a market, ascending. */
  tradingDates(market: Market): Promise<string[]>;
  /** Each security's first bar date (by security id); a security without bars has none. */
  firstBarDates(): Promise<Map<number, string>>;
  fx(): Promise<FxRate[]>;
  /** The ECB's euro reference rates published on or after `from` (all when absent), by currency and day. */
  referenceRates(from?: string): Promise<EuroReferenceRate[]>;
  trade(): Promise<TradeMonth[]>;
  /** Every sector's monthly exports, or those of the months in [from, to] (YYYY-MM). */
  sectorExports(months?: { from: string; to: string }): Promise<SectorExportMonth[]>;
}

/**
 * The part over one Kysely instance: the write's transaction here, each kind of record's writes
 * and reads in its own file (see the top of this file).
 */
export class KyselyMarketDataStore implements MarketDataStore {
  private readonly ctx: MarketContext;
  private readonly barsData: BarsData;
  private readonly reportsData: ReportsData;
  private readonly flowsData: FlowsData;

  constructor(db: Kysely<DB>, dialect: StoreDialect, queries: QueryRunner) {
    this.ctx = { db, dialect, queries };
    const bulk = new BulkReads(this.ctx);
    this.barsData = new BarsData(this.ctx, bulk);
    this.reportsData = new ReportsData(this.ctx, () => this.securities());
    this.flowsData = new FlowsData(this.ctx, bulk);
  }

  async writeDataset(data: Partial<Dataset>, options: WriteOptions = {}): Promise<WriteReport> {
    return this.writeDatasets([data], { ...(options.asOf === undefined ? {} : { asOf: options.asOf }) });
  }

  async writeDatasets(parts: Iterable<Partial<Dataset>> | AsyncIterable<Partial<Dataset>>, options: WriteOptions = {}): Promise<WriteReport> {
    const { db, dialect } = this.ctx;
    const report: WriteReport = { written: 0, skipped: {}, examples: [] };
    await db.transaction().execute(async (trx) => {
      // Writes of market data take turns (PostgreSQL; SQLite has one writer anyway): taken
      // first, before any row is locked, so two writes cannot deadlock.
      await dialect.marketWriteTurn(trx);
      // A bulk load (the demo universe into an empty store) builds the bars-by-date index once
      // at the end instead of row by row; in the same transaction, so a failed load leaves it.
      if (options.bulk) await sql`drop index bars_date`.execute(trx);
      let ids: Map<string, number> | null = null;
      const barsWritten = new Map<Market, { latest: string; ids: Set<number> }>();
      for await (const part of parts) {
        if (ids === null || (part.securities?.length ?? 0) > 0) {
          await securityRows.writeSecurities(trx, dialect.rowRunner, part.securities ?? []);
          ids = await securityRows.securityIds(trx);
        }
        if ((part.securities?.length ?? 0) > 0 || (part.formerNames?.length ?? 0) > 0) {
          // Each company's name, sector and exchange over time (src/domain/listings.ts).
          const unplaced = await securityRows.writeListings(trx, ids, part.securities ?? [], options.asOf ?? null, part.formerNames ?? []);
          if (unplaced > 0) report.skipped['formerNames: unknown security'] = (report.skipped['formerNames: unknown security'] ?? 0) + unplaced;
        }
        report.written += part.securities?.length ?? 0;
        await this.writePart(trx, part, ids, report);
        for (const bar of part.bars ?? []) {
          const id = ids.get(`${bar.market}:${bar.code}`);
          if (id === undefined) continue;
          const written = barsWritten.get(bar.market);
          if (written === undefined) barsWritten.set(bar.market, { latest: bar.date, ids: new Set([id]) });
          else {
            written.ids.add(id);
            if (bar.date > written.latest) written.latest = bar.date;
          }
        }
      }
      if (options.bulk) await createBarsDateIndex(trx as unknown as Kysely<unknown>);
      // Which codes have left their market's listing, from the bars as now stored (./delistings.ts).
      if (barsWritten.size > 0) await deriveAfterWrite(trx, barsWritten);
    });
    return report;
  }

  private async writePart(trx: Transaction<DB>, data: Partial<Dataset>, ids: Map<string, number>, report: WriteReport): Promise<void> {
    // One record for a company nobody placed must not stop the others (one bad record never
    // stops the rest): it is left out and counted.
    const idOf = (row: { market: Market; code: string }): number => ids.get(`${row.market}:${row.code}`) as number;
    const known = <T extends { market: Market; code: string }>(kind: string, rows: readonly T[] | undefined): readonly T[] => {
      const out: T[] = [];
      for (const row of rows ?? []) {
        const key = `${row.market}:${row.code}`;
        if (ids.has(key)) {
          out.push(row);
          continue;
        }
        const reason = `${kind}: unknown security`;
        report.skipped[reason] = (report.skipped[reason] ?? 0) + 1;
        if (report.examples.length < 10 && !report.examples.includes(key)) report.examples.push(key);
      }
      report.written += out.length;
      return out;
    };
    await this.barsData.write(trx, known('bars', data.bars), idOf);
    await this.reportsData.write(trx, known('reports', data.reports), idOf);
    await this.flowsData.write(trx, known('flows', data.flows), idOf);
    report.written += (data.fx?.length ?? 0) + (data.referenceRates?.length ?? 0) + (data.trade?.length ?? 0) + (data.sectorExports?.length ?? 0);
    await economy.writeEconomy(trx, this.ctx.dialect.rowRunner, data);
  }

  hasMarketData(): Promise<boolean> {
    return securityRows.hasMarketData(this.ctx.db);
  }

  securities(): Promise<StoredSecurity[]> {
    return securityRows.securities(this.ctx.db);
  }

  listingVersions(): Promise<Map<number, ListingVersion[]>> {
    return securityRows.listingVersions(this.ctx.db);
  }

  reports(securityId?: number): Promise<FinancialReport[]> {
    return this.reportsData.reports(securityId);
  }

  recentReports(asOf: string, quarters: number, slice?: UniverseSlice): Promise<Map<number, FinancialReport[]>> {
    return this.reportsData.recentReports(asOf, quarters, slice);
  }

  ttmSteps(securityId: number): Promise<TtmStep[]> {
    return this.reportsData.ttmSteps(securityId);
  }

  stockRecentReports(security: StoredSecurity, asOf: string, quarters: number): Promise<FinancialReport[]> {
    return this.reportsData.stockRecentReports(security, asOf, quarters);
  }

  bars(securityId: number, from?: string, to?: string): Promise<DailyBar[]> {
    return this.barsData.bars(securityId, from, to);
  }

  barSeries(securityId: number, range: SeriesRange): Promise<BarSeries> {
    return this.barsData.barSeries(securityId, range);
  }

  marketCapSeries(securityId: number, range: SeriesRange): Promise<MarketCapSeries> {
    return this.barsData.marketCapSeries(securityId, range);
  }

  closesOnOrBefore(wanted: readonly { securityId: number; date: string }[], here = false): Promise<(number | null)[]> {
    return this.barsData.closesOnOrBefore(wanted, here);
  }

  listedSharesOnOrBefore(wanted: readonly { securityId: number; date: string }[]): Promise<(number | null)[]> {
    return this.barsData.listedSharesOnOrBefore(wanted);
  }

  splitEvents(after: string, through: string): Promise<Map<number, SplitEvent[]>> {
    return this.barsData.splitEvents(after, through);
  }

  stockSplitEvents(securityId: number, through: string): Promise<SplitEvent[]> {
    return this.barsData.stockSplitEvents(securityId, through);
  }

  lastBars(from: string, asOf: string, count: number, slice?: UniverseSlice): Promise<Map<number, SnapshotBar[]>> {
    return this.barsData.lastBars(from, asOf, count, slice);
  }

  tradingDates(market: Market): Promise<string[]> {
    return this.barsData.tradingDates(market);
  }

  firstBarDates(): Promise<Map<number, string>> {
    return this.barsData.firstBarDates();
  }

  flowsOfLastBars(from: string, asOf: string, count: number, slice?: UniverseSlice): Promise<Map<number, FlowDay[]>> {
    return this.flowsData.flowsOfLastBars(from, asOf, count, slice);
  }

  stockLastBars(securityId: number, from: string, asOf: string, count: number): Promise<SnapshotBar[]> {
    return this.barsData.stockLastBars(securityId, from, asOf, count);
  }

  stockFlows(securityId: number, from: string, through: string): Promise<FlowDay[]> {
    return this.flowsData.stockFlows(securityId, from, through);
  }

  flows(securityId: number): Promise<InvestorFlow[]> {
    return this.flowsData.flows(securityId);
  }

  fx(): Promise<FxRate[]> {
    return economy.fx(this.ctx.db);
  }

  referenceRates(from?: string): Promise<EuroReferenceRate[]> {
    return economy.referenceRates(this.ctx.db, from);
  }

  trade(): Promise<TradeMonth[]> {
    return economy.trade(this.ctx.db);
  }

  sectorExports(months?: { from: string; to: string }): Promise<SectorExportMonth[]> {
    return economy.sectorExports(this.ctx.db, months);
  }
}
