// Market data: securities, filings, bars, investor flows, FX, trade and sector exports. What the
// refresh writes from the sources and what the snapshot and the per-stock histories read. It
// stores and reads normalised records; it computes nothing.

import { sql, type Compilable, type CompiledQuery, type Kysely, type Transaction } from 'kysely';
import { dayNumber } from '../domain/calendar.js';
import { SOURCE_TERMS } from '../domain/source-terms.js';
import type {
  DailyBar,
  Dataset,
  FinancialReport,
  FlowDay,
  FxRate,
  InvestorFlow,
  Market,
  SnapshotBar,
  SectorExportMonth,
  Security,
  TradeMonth,
} from '../domain/model.js';
import { dateOfDay, type BarSeries, type MarketCapSeries } from '../domain/series.js';
import type { TtmStep } from '../domain/ttm.js';
import type { SplitEvent } from '../domain/price-change.js';
import { mergePack, packRead, type PackedBar } from './bar-packs.js';
import { writeBarSplits, writtenBars } from './bar-splits.js';
import { REPORT_FIGURES, reportRow, toReport } from './report-rows.js';
import { recentOfPack } from './report-packs.js';
import { decodeSteps, writeFilingDerivatives } from './ttm-steps.js';
import type { StoreDialect } from './dialect.js';
import { createBarsDateIndex } from './migrations.js';
import { groupById, groupRunsById, upsert, type QueryRunner, type RowRunner } from './queries.js';
import type { DB } from './schema.js';
import { columnOfRows, type ColumnType, type RowColumns, type SeriesReaders } from './series-readers.js';
import { seriesOf, type SeriesColumns, type SeriesKind } from './series-rows.js';

export interface StoredSecurity extends Security {
  id: number;
}

/** What a write took and what it skipped (reason -> count, e.g. `bars: unknown security`). */
export interface WriteReport {
  written: number;
  skipped: Record<string, number>;
  /** Up to ten skipped records as `KR:123456`, for the log and the run's report. */
  examples: string[];
}

/** A range of one stock's bars: dated in [from, to], the last `last` of them when given. */
export interface SeriesRange {
  from?: string;
  to: string;
  last?: number;
}

export interface MarketDataStore {
  /**
   * Upserts everything in one transaction: all of it lands, or none of it. Idempotent. A record
   * for a security the store does not know (and the same write does not bring) is not written:
   * it is skipped and counted in the answer, and the rest lands.
   */
  writeDataset(data: Partial<Dataset>): Promise<WriteReport>;
  /**
   * Upserts a stream of parts in ONE transaction, so a large load (the demo universe, a
   * backfill) can be generated piece by piece and still land all or nothing. `bulk`: a large
   * first load, for which the store may build secondary indexes once at the end.
   */
  writeDatasets(parts: Iterable<Partial<Dataset>> | AsyncIterable<Partial<Dataset>>, options?: { bulk?: boolean }): Promise<WriteReport>;
  hasMarketData(): Promise<boolean>;

  securities(): Promise<StoredSecurity[]>;
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
  /**
   * For each of `wanted` (a stock and a date), the close of the stock's last bar dated on or
   * before the date; null when it has none. In the order asked.
   */
  closesOnOrBefore(wanted: readonly { securityId: number; date: string }[]): Promise<(number | null)[]>;
  /** Per stock, its split events (found in its bars, kept beside them: ./bar-splits.ts) dated in (`after`, `through`], ascending. */
  splitEvents(after: string, through: string): Promise<Map<number, SplitEvent[]>>;
  /** Per stock (by security id), its last `count` bars dated in [`from`, `asOf`], ascending. */
  lastBars(from: string, asOf: string, count: number, slice?: UniverseSlice): Promise<Map<number, SnapshotBar[]>>;
  /** Per stock, its flows dated from its `count`-th last bar in [`from`, `asOf`] to `asOf`. */
  flowsOfLastBars(from: string, asOf: string, count: number, slice?: UniverseSlice): Promise<Map<number, FlowDay[]>>;
  flows(securityId: number): Promise<InvestorFlow[]>;
  /** Distinct trading dates of a market, ascending. */
  tradingDates(market: Market): Promise<string[]>;
  fx(): Promise<FxRate[]>;
  trade(): Promise<TradeMonth[]>;
  /** Every sector's monthly exports, or those of the months in [from, to] (YYYY-MM). */
  sectorExports(months?: { from: string; to: string }): Promise<SectorExportMonth[]>;
}

/**
 * The stocks with ids in [first, last]: the recompute reads the universe a slice at a time, so
 * that no one read holds a serving instance's event loop for long (SQLite reads are synchronous).
 * `securities`, when the caller has them, spares a read of the securities list per slice.
 */
export interface UniverseSlice {
  first: number;
  last: number;
  securities?: readonly StoredSecurity[];
}

/** The sector a source reports when it does not know one. */
export const UNCLASSIFIED = 'Unclassified';

/** Securities whose stored packs one write reads at a time. */
const PACKS_PER_READ = 500;

/**
 * Stocks and dates per read of `closesOnOrBefore`: every read has this many (the last padded
 * with ones that find nothing), so that it is one statement, prepared once.
 */
const CLOSES_PER_READ = 128;

const BAR_COLUMNS = [
  'securities.market',
  'securities.code',
  'bars.date',
  'bars.open',
  'bars.high',
  'bars.low',
  'bars.close',
  'bars.volume',
  'bars.traded_value',
  'bars.shares',
  'bars.market_cap',
  'bars.source',
] as const;

const REPORT_COLUMNS = ['securities.market', 'securities.code', ...REPORT_FIGURES] as const;
/**
 * A flow row's source as a small integer for the recompute's bulk read (whose columns are
 * numbers, src/store/series-readers.ts): the position of the name in the source-terms table
 * (every adapter's name is there), 0 for a name it does not hold, read back as `unlisted source`.
 */
const FLOW_SOURCE_NAMES = SOURCE_TERMS.map((t) => t.source);
const FLOW_SOURCE_CODE = sql<number>`case flows.source ${sql.join(
  FLOW_SOURCE_NAMES.map((name, i) => sql`when ${sql.lit(name)} then ${sql.lit(i + 1)}`),
  sql` `,
)} else 0 end`;
const flowSourceOf = (code: number): string => FLOW_SOURCE_NAMES[code - 1] ?? 'unlisted source';

const FLOW_COLUMNS = ['securities.market', 'securities.code', 'flows.date', 'flows.foreign_net', 'flows.institution_net', 'flows.source'] as const;

export class KyselyMarketDataStore implements MarketDataStore {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly dialect: StoreDialect,
    private readonly queries: QueryRunner,
  ) {
    this.rowRunner = dialect.rowRunner;
    this.seriesReaders = dialect.seriesReaders;
  }

  /** The engine's prepared single-row writes (SQLite): see `upsert`. */
  private readonly rowRunner: RowRunner | undefined;
  /**
   * Threads that read one stock's bars (SQLite): `barSeries` and `marketCapSeries` go to them, and
   * come back here when they cannot answer.
   */
  private readonly seriesReaders: SeriesReaders | undefined;

  /** `closesOnOrBefore`'s statement, compiled on first use. */
  private closesStatement: CompiledQuery | null = null;

  async writeDataset(data: Partial<Dataset>): Promise<WriteReport> {
    return this.writeDatasets([data]);
  }

  async writeDatasets(parts: Iterable<Partial<Dataset>> | AsyncIterable<Partial<Dataset>>, options: { bulk?: boolean } = {}): Promise<WriteReport> {
    const report: WriteReport = { written: 0, skipped: {}, examples: [] };
    await this.db.transaction().execute(async (trx) => {
      // Writes of market data take turns (PostgreSQL; SQLite has one writer anyway): taken
      // first, before any row is locked, so two writes cannot deadlock.
      await this.dialect.marketWriteTurn(trx);
      // A bulk load (the demo universe into an empty store) builds the bars-by-date index once
      // at the end instead of row by row; in the same transaction, so a failed load leaves it.
      if (options.bulk) await sql`drop index bars_date`.execute(trx);
      let ids: Map<string, number> | null = null;
      for await (const part of parts) {
        if (ids === null || (part.securities?.length ?? 0) > 0) {
          await this.writeSecurities(trx, part.securities ?? []);
          ids = await this.securityIds(trx);
        }
        report.written += part.securities?.length ?? 0;
        await this.writePart(trx, part, ids, report);
      }
      if (options.bulk) await createBarsDateIndex(trx as unknown as Kysely<unknown>);
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
    const bars = known('bars', data.bars);
    await upsert(
      this.rowRunner,
      trx,
      'bars',
      ['security_id', 'date'],
      bars.map((b) => ({
        security_id: idOf(b),
        date: b.date,
        open: b.open,
        high: b.high,
        low: b.low,
        close: b.close,
        volume: b.volume,
        traded_value: b.tradedValue,
        shares: b.shares,
        market_cap: b.marketCap,
        source: b.source,
      })),
    );
    await this.writePacks(trx, bars, idOf);
    await writeBarSplits(trx, writtenBars(bars.map((b) => ({ securityId: idOf(b), date: b.date, close: b.close, shares: b.shares }))), this.queries.rawRows, this.rowRunner);
    const reports = known('reports', data.reports);
    await upsert(
      this.rowRunner,
      trx,
      'reports',
      ['security_id', 'fiscal_year', 'fiscal_quarter', 'consolidated', 'disclosed_on'],
      reports.map((r) => reportRow(idOf(r), r)),
    );
    // The TTM step function and the report pack of each stock with new filings, from all of its
    // filings as now stored.
    await writeFilingDerivatives(trx, reports.map(idOf), { steps: true, packs: true }, this.rowRunner);
    await upsert(
      this.rowRunner,
      trx,
      'flows',
      ['security_id', 'date'],
      known('flows', data.flows).map((f) => ({
        security_id: idOf(f),
        date: f.date,
        foreign_net: f.foreignNet,
        institution_net: f.institutionNet,
        source: f.source,
      })),
    );
    report.written += (data.fx?.length ?? 0) + (data.trade?.length ?? 0) + (data.sectorExports?.length ?? 0);
    await upsert(this.rowRunner, trx, 'fx', ['date'], (data.fx ?? []).map((f) => ({ date: f.date, usd_krw: f.usdKrw, source: f.source })));
    await upsert(
      this.rowRunner,
      trx,
      'trade',
      ['month'],
      (data.trade ?? []).map((t) => ({ month: t.month, exports: t.exports, imports: t.imports, balance: t.balance, source: t.source })),
    );
    await upsert(
      this.rowRunner,
      trx,
      'sector_exports',
      ['month', 'sector'],
      (data.sectorExports ?? []).map((x) => ({ month: x.month, sector: x.sector, exports: x.exports, source: x.source })),
    );
  }

  /**
   * Rewrites the packs of the years `bars` touched (./bar-packs.ts), in the write's transaction:
   * each becomes its stored pack with the written bars merged in, which is its year's rows again.
   */
  private async writePacks(trx: Transaction<DB>, bars: readonly DailyBar[], idOf: (row: DailyBar) => number): Promise<void> {
    // The bars written per security and year, in the order given (security id x 10,000 + year).
    const touched = new Map<number, DailyBar[]>();
    for (const bar of bars) {
      const key = idOf(bar) * 10_000 + Number(bar.date.slice(0, 4));
      const group = touched.get(key);
      if (group === undefined) touched.set(key, [bar]);
      else group.push(bar);
    }
    const keys = [...touched.keys()];
    for (let i = 0; i < keys.length; i += PACKS_PER_READ) {
      const chunk = keys.slice(i, i + PACKS_PER_READ);
      const years = chunk.map((key) => key % 10_000);
      const stored = await trx
        .selectFrom('bar_packs')
        .select(['security_id', 'year', 'data'])
        .where('security_id', 'in', [...new Set(chunk.map((key) => Math.floor(key / 10_000)))])
        .where('year', '>=', Math.min(...years))
        .where('year', '<=', Math.max(...years))
        .execute();
      const held = new Map(stored.map((p) => [p.security_id * 10_000 + p.year, p.data]));
      const packs = chunk.map((key) => ({
        security_id: Math.floor(key / 10_000),
        year: key % 10_000,
        data: mergePack(held.get(key), writtenByDay(touched.get(key) as DailyBar[])),
      }));
      await upsert(this.rowRunner, trx, 'bar_packs', ['security_id', 'year'], packs);
    }
  }

  private async writeSecurities(trx: Transaction<DB>, securities: readonly Security[]): Promise<void> {
    await upsert(
      this.rowRunner,
      trx,
      'securities',
      ['market', 'code'],
      securities.map((s) => ({
        market: s.market,
        code: s.code,
        name: s.name,
        name_en: s.nameEn ?? null,
        exchange: s.exchange,
        sector: s.sector,
        currency: s.currency,
        fiscal_year_end_month: s.fiscalYearEndMonth,
        source: s.source,
      })),
      // A source that does not know a company's sector (FSC's price feed) must not erase the one
      // another source found (OpenDART's industry code).
      // Nor one without an English name (FSC, the filing list) the one OpenDART's company record gave.
      {
        sector: sql`case when excluded.sector = ${UNCLASSIFIED} then securities.sector else excluded.sector end`,
        name_en: sql`coalesce(excluded.name_en, securities.name_en)`,
      },
    );
  }

  private async securityIds(db: Kysely<DB>): Promise<Map<string, number>> {
    const rows = await db.selectFrom('securities').select(['id', 'market', 'code']).execute();
    return new Map(rows.map((r) => [`${r.market}:${r.code}`, r.id]));
  }

  async hasMarketData(): Promise<boolean> {
    const row = await this.db.selectFrom('securities').select('id').limit(1).executeTakeFirst();
    return row !== undefined;
  }

  async securities(): Promise<StoredSecurity[]> {
    const rows = await this.db.selectFrom('securities').selectAll().orderBy('market').orderBy('code').execute();
    return rows.map((r) => ({
      id: r.id,
      market: r.market as Market,
      code: r.code,
      name: r.name,
      ...(r.name_en !== null ? { nameEn: r.name_en } : {}),
      exchange: r.exchange,
      sector: r.sector,
      currency: r.currency === 'KRW' ? 'KRW' : 'USD',
      fiscalYearEndMonth: r.fiscal_year_end_month,
      source: r.source,
    }));
  }

  async reports(securityId?: number): Promise<FinancialReport[]> {
    let q = this.db
      .selectFrom('reports')
      .innerJoin('securities', 'securities.id', 'reports.security_id')
      .select(REPORT_COLUMNS);
    if (securityId !== undefined) q = q.where('reports.security_id', '=', securityId);
    const rows = await this.queries.arrays(
      q.orderBy('reports.security_id').orderBy('reports.fiscal_year').orderBy('reports.fiscal_quarter').orderBy('reports.disclosed_on'),
    );
    return rows.map((r) => toReport(r, r[0] as Market, r[1] as string, 2));
  }

  async recentReports(asOf: string, quarters: number, slice?: UniverseSlice): Promise<Map<number, FinancialReport[]>> {
    // Each stock's report pack (./report-packs.ts), its recent filings made into reports: one
    // value a stock instead of ~9 rows of 25 values.
    if (!Number.isInteger(quarters) || quarters < 1) throw new Error(`recentReports: quarters must be a positive integer, not ${quarters}`);
    let q = this.db.selectFrom('report_packs').select(['security_id', 'data']);
    if (slice) q = q.where('security_id', '>=', slice.first).where('security_id', '<=', slice.last);
    const rows = await this.queries.arrays(q.orderBy('security_id'));
    // Market and code from the securities (one string each per stock, not per filing).
    const names = byId(slice?.securities ?? (await this.securities()));
    const out = new Map<number, FinancialReport[]>();
    for (const [id, data] of rows) {
      const sec = names.get(Number(id));
      if (sec === undefined) continue;
      const recent = recentOfPack(data as Uint8Array, asOf, quarters, sec.market, sec.code);
      if (recent.length > 0) out.set(sec.id, recent);
    }
    return out;
  }

  private barsQuery() {
    return this.db.selectFrom('bars').innerJoin('securities', 'securities.id', 'bars.security_id').select(BAR_COLUMNS);
  }

  async bars(securityId: number, from?: string, to?: string): Promise<DailyBar[]> {
    let q = this.barsQuery().where('bars.security_id', '=', securityId);
    if (from !== undefined) q = q.where('bars.date', '>=', from);
    if (to !== undefined) q = q.where('bars.date', '<=', to);
    return (await this.queries.arrays(q.orderBy('bars.date'))).map(toBar);
  }

  async barSeries(securityId: number, range: SeriesRange): Promise<BarSeries> {
    return seriesOf('bars', await this.seriesColumns('bars', securityId, range));
  }

  async marketCapSeries(securityId: number, range: SeriesRange): Promise<MarketCapSeries> {
    return seriesOf('caps', await this.seriesColumns('caps', securityId, range));
  }

  async ttmSteps(securityId: number): Promise<TtmStep[]> {
    const run = this.queries.hotArrays('ttmSteps', (p) => this.db.selectFrom('ttm_steps').select('data').where('security_id', '=', p.number(0)));
    const [row] = await run([securityId]);
    return row === undefined ? [] : decodeSteps(row[0] as Uint8Array);
  }

  /** On the reader threads when there are any, else (or when they cannot answer) here. */
  private async seriesColumns(kind: SeriesKind, securityId: number, range: SeriesRange): Promise<SeriesColumns> {
    if (this.seriesReaders) {
      try {
        return await this.seriesReaders.columns(kind, securityId, range);
      } catch {
        // read here instead
      }
    }
    const read = packRead(kind, range);
    const run = this.queries.hotArrays(`barPacks${read.newestFirst ? 'Desc' : ''}`, (p) =>
      this.db
        .selectFrom('bar_packs')
        .select('data')
        .where('security_id', '=', p.number(0))
        .where('year', '>=', p.number(1))
        .where('year', '<=', p.number(2))
        .orderBy('year', read.newestFirst ? 'desc' : 'asc'),
    );
    const rows = await run([securityId, read.years.first, read.years.last]);
    return read.columnsOf(rows.map(([data]) => data as Uint8Array));
  }

  /**
   * Each stock's window start: the date of its `count`-th last bar in [`from`, `asOf`], or
   * `from` when it has fewer (a correlated probe of the (security, date) key), as the CTE
   * `starts` (security_id, start) that lastBars and flowsOfLastBars read from, planned as the
   * dialect says (`windowStarts`: PostgreSQL materialises it, SQLite keeps it inline).
   */
  private withWindowStarts(from: string, asOf: string, count: number, slice: UniverseSlice | undefined) {
    const probe = this.db
      .selectFrom('bars as nth')
      .select('nth.date')
      .where('nth.security_id', '=', sql.ref<number>('securities.id'))
      .where('nth.date', '>=', from)
      .where('nth.date', '<=', asOf)
      .orderBy('nth.date', 'desc')
      .limit(1)
      .offset(count - 1);
    return this.db.with(
      (cte) => cte('starts')[this.dialect.windowStarts](),
      (db) => {
        const starts = db.selectFrom('securities').select(['securities.id as security_id', sql<string>`coalesce((${probe}), ${from})`.as('start')]);
        return slice ? starts.where('securities.id', '>=', slice.first).where('securities.id', '<=', slice.last) : starts;
      },
    );
  }

  /**
   * A bulk read's rows as columns of `types`, on a reader thread when there are any, else here
   * (where a `nullableFloat` null is NaN as well).
   */
  private async rowColumns(query: Compilable<unknown>, types: readonly ColumnType[]): Promise<RowColumns> {
    const read = await this.onReader(query, types);
    if (read !== null) return read;
    const rows = await this.queries.arrays(query);
    return { count: rows.length, columns: types.map((type, c) => columnOfRows(rows, c, type, dayNumber)) };
  }

  /** A bulk read's rows as columns from a reader thread; null without one, or when it cannot answer. */
  private async onReader(query: Compilable<unknown>, types: readonly ColumnType[]): Promise<RowColumns | null> {
    if (!this.seriesReaders) return null;
    const compiled = query.compile();
    try {
      return await this.seriesReaders.rows(compiled.sql, compiled.parameters, types);
    } catch {
      return null; // read here instead
    }
  }

  /**
   * A bulk read's rows grouped by security id (the first column), on a reader thread when there
   * are any (the columns come back as a few buffers, and the serving thread only makes the
   * objects), else here, as arrays. `make` reads row `i` of the columns either way: from the
   * thread's typed arrays, or from the arrays' values as `Number` and the date texts as they are.
   */
  private async groupedRows<T>(query: Compilable<unknown>, types: readonly ColumnType[], make: (at: (column: number) => number, date: (column: number) => string) => T): Promise<Map<number, T[]>> {
    const read = await this.onReader(query, types);
    if (read !== null) {
      const { count, columns } = read;
      const ids = columns[0] as Int32Array;
      let i = 0;
      const at = (c: number) => (columns[c] as Float64Array | Int32Array)[i] as number;
      const date = (c: number) => dateOfDay((columns[c] as Int32Array)[i] as number);
      return groupRunsById(count, (row) => ids[row] as number, (row) => {
        i = row;
        return make(at, date);
      });
    }
    const rows = await this.queries.arrays(query);
    let row: unknown[] = [];
    const at = (c: number) => Number(row[c]);
    const date = (c: number) => row[c] as string;
    return groupById(rows, (r) => {
      row = r;
      return make(at, date);
    });
  }

  async closesOnOrBefore(wanted: readonly { securityId: number; date: string }[]): Promise<(number | null)[]> {
    // One key probe per stock and date, CLOSES_PER_READ to a statement compiled once; the row's
    // place (w.i) is a literal, so the parameters are the stocks and dates. Padding asks for
    // security 0, which no stock has. All reads are asked for at once: a reader thread answers
    // them back to back.
    const compiled = (this.closesStatement ??= sql`with w(i, security_id, date) as (values ${sql.join(
      Array.from({ length: CLOSES_PER_READ }, (_, i) => sql`(${sql.lit(i)}, cast(${0} as integer), ${''})`),
    )})
      select w.i, (select p.close from bars p where p.security_id = w.security_id and p.date <= w.date order by p.date desc limit 1) as close from w`.compile(this.db));
    const out: (number | null)[] = new Array<number | null>(wanted.length).fill(null);
    const reads: Promise<void>[] = [];
    for (let k = 0; k < wanted.length; k += CLOSES_PER_READ) {
      const parameters: unknown[] = [];
      for (let i = 0; i < CLOSES_PER_READ; i++) {
        const w = wanted[k + i];
        parameters.push(w?.securityId ?? 0, w?.date ?? '');
      }
      reads.push(
        this.rowColumns({ compile: () => ({ ...compiled, parameters }) }, ['int', 'nullableFloat']).then(({ count, columns: [places, closes] }) => {
          for (let r = 0; r < count; r++) {
            const at = k + (places?.[r] as number);
            const close = closes?.[r] as number;
            if (at < wanted.length && !Number.isNaN(close)) out[at] = close;
          }
        }),
      );
    }
    await Promise.all(reads);
    return out;
  }

  async splitEvents(after: string, through: string): Promise<Map<number, SplitEvent[]>> {
    const rows = await this.queries.arrays(
      this.db.selectFrom('bar_splits').select(['security_id', 'date', 'factor']).where('date', '>', after).where('date', '<=', through).orderBy('security_id').orderBy('date'),
    );
    return groupById(rows, (row) => ({ date: row[1] as string, factor: Number(row[2]) }));
  }

  async lastBars(from: string, asOf: string, count: number, slice?: UniverseSlice): Promise<Map<number, SnapshotBar[]>> {
    // Stock by stock, each a range of the (security, date) key. Driven from bars instead,
    // SQLite either walks the whole table in key order or makes one key lookup per bar through
    // bars_date. CROSS JOIN fixes SQLite's join order.
    return this.groupedRows(
      this.withWindowStarts(from, asOf, count, slice)
        .selectFrom('starts')
        .crossJoin('bars')
        .whereRef('bars.security_id', '=', 'starts.security_id')
        .whereRef('bars.date', '>=', 'starts.start')
        .where('bars.date', '<=', asOf)
        .select(['bars.security_id', 'bars.date', 'bars.close', 'bars.traded_value', 'bars.shares', 'bars.market_cap'])
        .orderBy('starts.security_id')
        .orderBy('bars.date'),
      ['int', 'day', 'float', 'float', 'float', 'float'],
      (at, date) => ({ date: date(1), close: at(2), tradedValue: at(3), shares: at(4), marketCap: at(5) }),
    );
  }

  private flowsQuery() {
    return this.db
      .selectFrom('flows')
      .innerJoin('securities', 'securities.id', 'flows.security_id')
      .select(FLOW_COLUMNS);
  }

  async flowsOfLastBars(from: string, asOf: string, count: number, slice?: UniverseSlice): Promise<Map<number, FlowDay[]>> {
    // As lastBars: one key range per stock.
    return this.groupedRows(
      this.withWindowStarts(from, asOf, count, slice)
        .selectFrom('starts')
        .crossJoin('flows')
        .whereRef('flows.security_id', '=', 'starts.security_id')
        .whereRef('flows.date', '>=', 'starts.start')
        .where('flows.date', '<=', asOf)
        .select(['flows.security_id', 'flows.date', 'flows.foreign_net', 'flows.institution_net', FLOW_SOURCE_CODE.as('source_code')])
        .orderBy('starts.security_id')
        .orderBy('flows.date'),
      ['int', 'day', 'float', 'float', 'int'],
      (at, date) => ({ date: date(1), foreignNet: at(2), institutionNet: at(3), source: flowSourceOf(at(4)) }),
    );
  }

  async flows(securityId: number): Promise<InvestorFlow[]> {
    const rows = await this.queries.arrays(this.flowsQuery().where('flows.security_id', '=', securityId).orderBy('flows.date'));
    return rows.map(toFlow);
  }

  async tradingDates(market: Market): Promise<string[]> {
    const rows = await this.db
      .selectFrom('bars')
      .innerJoin('securities', 'securities.id', 'bars.security_id')
      .where('securities.market', '=', market)
      .select('bars.date')
      .distinct()
      .orderBy('bars.date')
      .execute();
    return rows.map((r) => r.date);
  }

  async fx(): Promise<FxRate[]> {
    const rows = await this.db.selectFrom('fx').selectAll().orderBy('date').execute();
    return rows.map((r) => ({ date: r.date, usdKrw: Number(r.usd_krw), source: r.source }));
  }

  async trade(): Promise<TradeMonth[]> {
    const rows = await this.db.selectFrom('trade').selectAll().orderBy('month').execute();
    return rows.map((r) => ({
      month: r.month,
      exports: Number(r.exports),
      imports: Number(r.imports),
      balance: Number(r.balance),
      source: r.source,
    }));
  }

  async sectorExports(months?: { from: string; to: string }): Promise<SectorExportMonth[]> {
    let q = this.db.selectFrom('sector_exports').selectAll();
    if (months) q = q.where('month', '>=', months.from).where('month', '<=', months.to);
    const rows = await q.orderBy('month').orderBy('sector').execute();
    return rows.map((r) => ({ month: r.month, sector: r.sector, exports: Number(r.exports), source: r.source }));
  }
}

/** Securities by id, made once per list: the recompute passes one list with every slice of its reads. */
const securitiesById = new WeakMap<readonly StoredSecurity[], Map<number, StoredSecurity>>();
function byId(securities: readonly StoredSecurity[]): Map<number, StoredSecurity> {
  let map = securitiesById.get(securities);
  if (map === undefined) {
    map = new Map(securities.map((sec) => [sec.id, sec]));
    securitiesById.set(securities, map);
  }
  return map;
}

// The row mappers read arrays in the order of BAR_COLUMNS, FLOW_COLUMNS and REPORT_FIGURES.
// Number(): PostgreSQL's driver may hand back numeric columns as strings.

function toBar(r: unknown[]): DailyBar {
  return {
    market: r[0] as Market,
    code: r[1] as string,
    date: r[2] as string,
    open: Number(r[3]),
    high: Number(r[4]),
    low: Number(r[5]),
    close: Number(r[6]),
    volume: Number(r[7]),
    tradedValue: Number(r[8]),
    shares: Number(r[9]),
    marketCap: Number(r[10]),
    source: r[11] as string,
  };
}

function toFlow(r: unknown[]): InvestorFlow {
  return {
    market: r[0] as Market,
    code: r[1] as string,
    date: r[2] as string,
    foreignNet: Number(r[3]),
    institutionNet: Number(r[4]),
    source: r[5] as string,
  };
}

/**
 * One security's bars of a year as a pack merges them: ascending by day, the last one written
 * for a day standing (as the row upserts leave it). Most writes come in date order already.
 */
function writtenByDay(bars: readonly DailyBar[]): PackedBar[] {
  // The values in COLUMNS_OF.bars order (./series-rows.ts), as a pack holds them.
  const toPacked = (bar: DailyBar): PackedBar => ({ day: dayNumber(bar.date), values: [bar.open, bar.high, bar.low, bar.close, bar.volume, bar.tradedValue, bar.shares] });
  let ascending = true;
  for (let k = 1; k < bars.length && ascending; k++) ascending = (bars[k - 1] as DailyBar).date < (bars[k] as DailyBar).date;
  if (ascending) return bars.map(toPacked);
  const byDate = new Map<string, DailyBar>();
  for (const bar of bars) byDate.set(bar.date, bar);
  return [...byDate.keys()].sort().map((date) => toPacked(byDate.get(date) as DailyBar));
}
