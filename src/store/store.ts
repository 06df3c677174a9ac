// The store: one interface over the database, one Kysely implementation for both engines.
// It stores and reads normalised records; it computes nothing.

import { Migrator, sql, type Compilable, type CompiledQuery, type Insertable, type Kysely, type SelectExpression, type Transaction } from 'kysely';
import { dayNumber } from '../domain/calendar.js';
import type {
  DailyBar,
  Dataset,
  FinancialReport,
  FiscalQuarter,
  FlowDay,
  FxRate,
  InvestorFlow,
  Market,
  SnapshotBar,
  SectorExportMonth,
  Security,
  TradeMonth,
} from '../domain/model.js';
import type { BarSeries, CloseSeries } from '../domain/series.js';
import { createBarsDateIndex, migrationProvider, type Engine } from './migrations.js';
import type { DB, ReportsTable } from './schema.js';

export type Plan = 'free' | 'paid';

export interface StoredSecurity extends Security {
  id: number;
}

export interface ApiKeyRecord {
  id: number;
  prefix: string;
  hash: string;
  name: string;
  plan: Plan;
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export interface ApiKeyListing extends ApiKeyRecord {
  callsToday: number;
}

/** Who holds a claim: an instance id, and the process to check for liveness. */
export interface ClaimHolder {
  instance: string;
  host: string;
  pid: number;
}

export interface SlotClaim extends ClaimHolder {
  slot: string;
  claimedAt: string;
  expiresAt: string;
  done: boolean;
}

export interface RefreshRun {
  id: number;
  startedAt: string;
  finishedAt: string | null;
  status: string;
  detail: string;
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

export interface Store {
  readonly engine: Engine;
  migrate(): Promise<void>;
  close(): Promise<void>;

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
  /** `barSeries` with only what the valuation band reads (date, close, shares). */
  closeSeries(securityId: number, range: SeriesRange): Promise<CloseSeries>;
  /**
   * Per stock, the filings a snapshot as of `asOf` can draw on: those disclosed on or before
   * `asOf` whose fiscal quarter is at most `quarters - 1` quarters before the latest such one.
   * Ordered by stock, fiscal year, quarter, disclosure.
   */
  recentReports(asOf: string, quarters: number): Promise<Map<number, FinancialReport[]>>;
  /** Per stock (by security id), its last `count` bars dated in [`from`, `asOf`], ascending. */
  lastBars(from: string, asOf: string, count: number): Promise<Map<number, SnapshotBar[]>>;
  /** Per stock, its flows dated from its `count`-th last bar in [`from`, `asOf`] to `asOf`. */
  flowsOfLastBars(from: string, asOf: string, count: number): Promise<Map<number, FlowDay[]>>;
  flows(securityId: number): Promise<InvestorFlow[]>;
  /** Distinct trading dates of a market, ascending. */
  tradingDates(market: Market): Promise<string[]>;
  fx(): Promise<FxRate[]>;
  trade(): Promise<TradeMonth[]>;
  sectorExports(): Promise<SectorExportMonth[]>;

  getMeta(key: string): Promise<string | null>;
  setMeta(key: string, value: string): Promise<void>;

  insertKey(key: Omit<ApiKeyRecord, 'id' | 'revokedAt' | 'lastUsedAt'>): Promise<ApiKeyRecord>;
  keyByHash(hash: string): Promise<ApiKeyRecord | null>;
  listKeys(day: string): Promise<ApiKeyListing[]>;
  /** Returns false when no live key has that prefix. */
  revokeKey(prefix: string, at: string): Promise<boolean>;
  setKeyPlan(prefix: string, plan: Plan): Promise<boolean>;
  touchKey(id: number, at: string): Promise<void>;
  countKeys(): Promise<number>;

  /**
   * Adds one call for the key on the day if its count is below `limit` and returns the new
   * count; null (nothing added) when the day is already full. One atomic statement.
   */
  incrementUsage(keyId: number, day: string, limit?: number): Promise<number | null>;
  usage(keyId: number, day: string): Promise<number>;
  /** Adds counted calls (key, day, calls) in one transaction: the buffered counter's flush. */
  addUsage(rows: readonly { keyId: number; day: string; calls: number }[]): Promise<void>;

  /**
   * Claims a slot (a refresh hour, the first load) for `holder`: true for exactly one claimant
   * across instances. An unfinished claim of `deadInstance` (a holder the caller found gone:
   * refresh/claims.ts) is taken over; a finished one never.
   */
  claimSlot(slot: string, holder: ClaimHolder, at: string, expiresAt: string, deadInstance?: string): Promise<boolean>;
  slotClaim(slot: string): Promise<SlotClaim | null>;
  /** Extends the holder's lease; false when the claim is no longer its own. */
  renewClaim(slot: string, instance: string, expiresAt: string): Promise<boolean>;
  /** The claimed work landed: the claim is kept, done, and never taken over. */
  finishClaim(slot: string, instance: string): Promise<void>;
  /** Gives the claim up unfinished (a stop, a failure): the next claimant gets it at once. */
  releaseClaim(slot: string, instance: string): Promise<void>;
  /** The served dataset's version as recorded in the database; 0 before the first. */
  datasetVersion(): Promise<number>;
  /** Atomically increments the dataset version and returns the new one. */
  bumpDatasetVersion(): Promise<number>;
  /** A trivial query, for readiness. */
  ping(): Promise<void>;

  startRefreshRun(at: string): Promise<number>;
  finishRefreshRun(id: number, at: string, status: string, detail: string): Promise<void>;
  refreshRuns(limit: number): Promise<RefreshRun[]>;
}

const DATASET_VERSION = 'dataset_version';
/** The sector a source reports when it does not know one. */
export const UNCLASSIFIED = 'Unclassified';

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

// Rows per multi-row INSERT: keeps every statement under SQLite's and PostgreSQL's
// bound-parameter limits (32,766 and 65,535) for the widest table (reports, 25 columns).
const ROWS_PER_INSERT = 500;

function chunks<T>(rows: readonly T[], size = ROWS_PER_INSERT): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

const reportColumns = {
  revenue: 'revenue',
  costOfSales: 'cost_of_sales',
  operatingIncome: 'operating_income',
  netIncome: 'net_income',
  operatingCashFlow: 'operating_cash_flow',
  capex: 'capex',
  interestExpense: 'interest_expense',
  totalAssets: 'total_assets',
  currentAssets: 'current_assets',
  totalLiabilities: 'total_liabilities',
  currentLiabilities: 'current_liabilities',
  equity: 'equity',
  cash: 'cash',
  debt: 'debt',
  receivables: 'receivables',
  inventory: 'inventory',
  payables: 'payables',
  shares: 'shares',
} as const satisfies Record<string, keyof ReportsTable>;

type ItemKey = keyof typeof reportColumns;
const ITEM_KEYS = Object.keys(reportColumns) as ItemKey[];
const EMPTY_ITEMS = Object.fromEntries(ITEM_KEYS.map((k) => [k, null])) as Record<ItemKey, number | null>;
/** A filing's own columns, in the order `toReport` reads them. */
const REPORT_FIGURES = [
  'reports.fiscal_year',
  'reports.fiscal_quarter',
  'reports.period_end',
  'reports.disclosed_on',
  'reports.consolidated',
  ...ITEM_KEYS.map((k) => `reports.${reportColumns[k]}` as const),
  'reports.source',
] as const;
const REPORT_COLUMNS = ['securities.market', 'securities.code', ...REPORT_FIGURES] as const;
const FLOW_COLUMNS = ['securities.market', 'securities.code', 'flows.date', 'flows.foreign_net', 'flows.institution_net', 'flows.source'] as const;

export class KyselyStore implements Store {
  constructor(
    readonly db: Kysely<DB>,
    readonly engine: Engine,
    /** The engine's own array-row read, where it has one (SQLite): see `arrays`. */
    private readonly rawRows?: (sql: string, parameters: readonly unknown[]) => unknown[][],
    /** A number that changes whenever another connection commits (SQLite): see `keyCache`. */
    private readonly dataVersion?: () => number,
    /** The engine's prepared single-row writes (SQLite): see `upsert`. */
    private readonly rowRunner?: RowRunner,
  ) {}

  async migrate(): Promise<void> {
    await runMigrations(this.db, this.engine);
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }

  async writeDataset(data: Partial<Dataset>): Promise<WriteReport> {
    return this.writeDatasets([data]);
  }

  async writeDatasets(parts: Iterable<Partial<Dataset>> | AsyncIterable<Partial<Dataset>>, options: { bulk?: boolean } = {}): Promise<WriteReport> {
    const report: WriteReport = { written: 0, skipped: {}, examples: [] };
    await this.db.transaction().execute(async (trx) => {
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
    // One record for a company nobody placed must not stop the others (DESIGN.md section 6:
    // "one bad record never stops the rest"): it is left out and counted.
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
    await upsert(
      this.rowRunner,
      trx,
      'bars',
      ['security_id', 'date'],
      known('bars', data.bars).map((b) => ({
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
    await upsert(
      this.rowRunner,
      trx,
      'reports',
      ['security_id', 'fiscal_year', 'fiscal_quarter', 'consolidated', 'disclosed_on'],
      known('reports', data.reports).map((r) => reportRow(idOf(r), r)),
    );
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
    const rows = await this.arrays(
      q.orderBy('reports.security_id').orderBy('reports.fiscal_year').orderBy('reports.fiscal_quarter').orderBy('reports.disclosed_on'),
    );
    return rows.map((r) => toReport(r, r[0] as Market, r[1] as string, 2));
  }

  async recentReports(asOf: string, quarters: number): Promise<Map<number, FinancialReport[]>> {
    // The latest fiscal quarter per stock (as an ordinal, year * 4 + quarter), then one range
    // of the (security, fiscal year, ...) key per stock from the first year the window reaches.
    if (!Number.isInteger(quarters) || quarters < 1) throw new Error(`recentReports: quarters must be a positive integer, not ${quarters}`);
    const ordinal = sql<number>`reports.fiscal_year * 4 + reports.fiscal_quarter`;
    // A literal, so both engines divide integers (a bound number is a REAL in SQLite).
    const back = sql.lit(quarters);
    const latest = this.db
      .selectFrom('reports')
      .where('reports.disclosed_on', '<=', asOf)
      .groupBy('reports.security_id')
      .select(['reports.security_id', sql<number>`max(${ordinal})`.as('o')]);
    const rows = await this.arrays(
      this.db
        .with('latest', () => latest)
        .selectFrom('latest')
        .crossJoin('reports')
        .whereRef('reports.security_id', '=', 'latest.security_id')
        .where('reports.fiscal_year', '>=', sql<number>`(latest.o - ${back}) / 4`)
        .where(ordinal, '>', sql<number>`latest.o - ${back}`)
        .where('reports.disclosed_on', '<=', asOf)
        .select(['reports.security_id', ...REPORT_FIGURES])
        .orderBy('reports.security_id')
        .orderBy('reports.fiscal_year')
        .orderBy('reports.fiscal_quarter')
        .orderBy('reports.disclosed_on'),
    );
    // Market and code from the securities (one string each per stock, not per filing).
    const names = new Map((await this.securities()).map((sec) => [sec.id, sec]));
    return groupById(rows, (r, id) => {
      const sec = names.get(id);
      return sec ? toReport(r, sec.market, sec.code, 1) : null;
    });
  }

  private barsQuery() {
    return this.db.selectFrom('bars').innerJoin('securities', 'securities.id', 'bars.security_id').select(BAR_COLUMNS);
  }

  async bars(securityId: number, from?: string, to?: string): Promise<DailyBar[]> {
    let q = this.barsQuery().where('bars.security_id', '=', securityId);
    if (from !== undefined) q = q.where('bars.date', '>=', from);
    if (to !== undefined) q = q.where('bars.date', '<=', to);
    return (await this.arrays(q.orderBy('bars.date'))).map(toBar);
  }

  async barSeries(securityId: number, range: SeriesRange): Promise<BarSeries> {
    const rows = await this.seriesRows('barSeries', ['bars.date', 'bars.open', 'bars.high', 'bars.low', 'bars.close', 'bars.volume', 'bars.traded_value', 'bars.shares'], securityId, range);
    const n = rows.length;
    const series = {
      days: new Int32Array(n),
      open: new Float64Array(n),
      high: new Float64Array(n),
      low: new Float64Array(n),
      close: new Float64Array(n),
      volume: new Float64Array(n),
      tradedValue: new Float64Array(n),
      shares: new Float64Array(n),
    };
    const reversed = range.last !== undefined;
    for (let k = 0; k < n; k++) {
      const r = rows[reversed ? n - 1 - k : k] as unknown[];
      series.days[k] = dayNumber(r[0] as string);
      series.open[k] = Number(r[1]);
      series.high[k] = Number(r[2]);
      series.low[k] = Number(r[3]);
      series.close[k] = Number(r[4]);
      series.volume[k] = Number(r[5]);
      series.tradedValue[k] = Number(r[6]);
      series.shares[k] = Number(r[7]);
    }
    return series;
  }

  async closeSeries(securityId: number, range: SeriesRange): Promise<CloseSeries> {
    const rows = await this.seriesRows('closeSeries', ['bars.date', 'bars.close', 'bars.shares'], securityId, range);
    const n = rows.length;
    const series = { days: new Int32Array(n), close: new Float64Array(n), shares: new Float64Array(n) };
    const reversed = range.last !== undefined;
    for (let k = 0; k < n; k++) {
      const r = rows[reversed ? n - 1 - k : k] as unknown[];
      series.days[k] = dayNumber(r[0] as string);
      series.close[k] = Number(r[1]);
      series.shares[k] = Number(r[2]);
    }
    return series;
  }

  /**
   * One key range of `bars` as row arrays, newest first when `last` is given. Compiled once per
   * shape (building and compiling with Kysely cost ~4% of an uncached history call).
   */
  private seriesRows(name: string, columns: readonly SelectExpression<DB, 'bars'>[], securityId: number, range: SeriesRange): Promise<unknown[][]> {
    const limited = range.last !== undefined;
    const run = this.hotArrays(`${name}${limited ? 'Last' : ''}`, (p) => {
      const q = this.db
        .selectFrom('bars')
        .select(columns)
        .where('bars.security_id', '=', p.number(0))
        .where('bars.date', '>=', p.text(1))
        .where('bars.date', '<=', p.text(2));
      return limited ? q.orderBy('bars.date', 'desc').limit(p.number(3)) : q.orderBy('bars.date');
    });
    const values: unknown[] = [securityId, range.from ?? '', range.to];
    if (limited) values.push(range.last);
    return run(values);
  }

  /**
   * Each stock's window start: the date of its `count`-th last bar in [`from`, `asOf`], or
   * `from` when it has fewer (a correlated probe of the (security, date) key), as the CTE
   * `starts` (security_id, start) that lastBars and flowsOfLastBars read from. PostgreSQL
   * materialises it, so the probe runs once per stock; left inline it re-ran the probe for every
   * candidate row (3 s for a 40-stock universe). SQLite keeps it inline: it evaluates the bound
   * once per stock when it seeks the inner key range, and the rows come out in key order with
   * no sort.
   */
  private withWindowStarts(from: string, asOf: string, count: number) {
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
      (cte) => (this.engine === 'postgres' ? cte('starts').materialized() : cte('starts').notMaterialized()),
      (db) => db.selectFrom('securities').select(['securities.id as security_id', sql<string>`coalesce((${probe}), ${from})`.as('start')]),
    );
  }

  async lastBars(from: string, asOf: string, count: number): Promise<Map<number, SnapshotBar[]>> {
    // Stock by stock, each a range of the (security, date) key. Driven from bars instead,
    // SQLite either walks the whole table in key order or makes one key lookup per bar through
    // bars_date. CROSS JOIN fixes SQLite's join order.
    const rows = await this.arrays(
      this.withWindowStarts(from, asOf, count)
        .selectFrom('starts')
        .crossJoin('bars')
        .whereRef('bars.security_id', '=', 'starts.security_id')
        .whereRef('bars.date', '>=', 'starts.start')
        .where('bars.date', '<=', asOf)
        .select(['bars.security_id', 'bars.date', 'bars.close', 'bars.traded_value', 'bars.shares', 'bars.market_cap'])
        .orderBy('starts.security_id')
        .orderBy('bars.date'),
    );
    return groupById(rows, (r) => ({ date: r[1] as string, close: Number(r[2]), tradedValue: Number(r[3]), shares: Number(r[4]), marketCap: Number(r[5]) }));
  }

  private flowsQuery() {
    return this.db
      .selectFrom('flows')
      .innerJoin('securities', 'securities.id', 'flows.security_id')
      .select(FLOW_COLUMNS);
  }

  async flowsOfLastBars(from: string, asOf: string, count: number): Promise<Map<number, FlowDay[]>> {
    // As lastBars: one key range per stock.
    const rows = await this.arrays(
      this.withWindowStarts(from, asOf, count)
        .selectFrom('starts')
        .crossJoin('flows')
        .whereRef('flows.security_id', '=', 'starts.security_id')
        .whereRef('flows.date', '>=', 'starts.start')
        .where('flows.date', '<=', asOf)
        .select(['flows.security_id', 'flows.date', 'flows.foreign_net', 'flows.institution_net'])
        .orderBy('starts.security_id')
        .orderBy('flows.date'),
    );
    return groupById(rows, (r) => ({ date: r[1] as string, foreignNet: Number(r[2]), institutionNet: Number(r[3]) }));
  }

  async flows(securityId: number): Promise<InvestorFlow[]> {
    const rows = await this.arrays(this.flowsQuery().where('flows.security_id', '=', securityId).orderBy('flows.date'));
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

  async sectorExports(): Promise<SectorExportMonth[]> {
    const rows = await this.db.selectFrom('sector_exports').selectAll().orderBy('month').orderBy('sector').execute();
    return rows.map((r) => ({ month: r.month, sector: r.sector, exports: Number(r.exports), source: r.source }));
  }

  async getMeta(key: string): Promise<string | null> {
    const row = await this.db.selectFrom('meta').select('value').where('key', '=', key).executeTakeFirst();
    return row?.value ?? null;
  }

  async setMeta(key: string, value: string): Promise<void> {
    await this.db
      .insertInto('meta')
      .values({ key, value })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
      .execute();
  }

  async insertKey(key: Omit<ApiKeyRecord, 'id' | 'revokedAt' | 'lastUsedAt'>): Promise<ApiKeyRecord> {
    const row = await this.db
      .insertInto('api_keys')
      .values({ prefix: key.prefix, hash: key.hash, name: key.name, plan: key.plan, created_at: key.createdAt })
      .returning('id')
      .executeTakeFirstOrThrow();
    this.keysChanged();
    return { ...key, id: row.id, revokedAt: null, lastUsedAt: null };
  }

  async keyByHash(hash: string): Promise<ApiKeyRecord | null> {
    const version = this.dataVersion?.();
    if (version !== undefined) {
      if (version !== this.keyCacheVersion) {
        this.keyCache.clear();
        this.keyCacheVersion = version;
      }
      const hit = this.keyCache.get(hash);
      if (hit !== undefined) return hit;
    }
    const generation = this.keyGeneration;
    const run = this.hot('keyByHash', (p) => this.db.selectFrom('api_keys').selectAll().where('hash', '=', p.text(0)));
    const [row] = await run([hash]);
    if (!row) return null; // unknown keys are not cached: a key created later is found at once
    const key = toKey(row);
    // Not cached when a key changed while the lookup ran: it may have read the old row.
    if (version !== undefined && generation === this.keyGeneration && version === this.dataVersion?.()) {
      if (this.keyCache.size >= 10_000) this.keyCache.clear();
      this.keyCache.set(hash, key);
    }
    return key;
  }

  /**
   * Known keys by hash, on engines that can tell cheaply whether anything else wrote to the
   * database since (SQLite's data_version, which changes on every commit of another
   * connection, such as `keys revoke` from the CLI; read at most once per millisecond). Any
   * such commit, and any key change made through this store, empties it, so a revocation or a
   * plan change counts from the next call.
   */
  private readonly keyCache = new Map<string, ApiKeyRecord>();
  private keyCacheVersion: number | undefined;
  private keyGeneration = 0;

  private keysChanged(): void {
    this.keyCache.clear();
    this.keyGeneration += 1;
  }

  async listKeys(day: string): Promise<ApiKeyListing[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .leftJoin('usage', (j) => j.onRef('usage.key_id', '=', 'api_keys.id').on('usage.day', '=', day))
      .selectAll('api_keys')
      .select('usage.calls')
      .orderBy('api_keys.id')
      .execute();
    return rows.map((r) => ({ ...toKey(r), callsToday: Number(r.calls ?? 0) }));
  }

  async revokeKey(prefix: string, at: string): Promise<boolean> {
    const res = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: at })
      .where('prefix', '=', prefix)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    this.keysChanged();
    return Number(res.numUpdatedRows) > 0;
  }

  async setKeyPlan(prefix: string, plan: Plan): Promise<boolean> {
    const res = await this.db.updateTable('api_keys').set({ plan }).where('prefix', '=', prefix).executeTakeFirst();
    this.keysChanged();
    return Number(res.numUpdatedRows) > 0;
  }

  async touchKey(id: number, at: string): Promise<void> {
    await this.db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
  }

  async countKeys(): Promise<number> {
    const row = await this.db
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async incrementUsage(keyId: number, day: string, limit = Number.POSITIVE_INFINITY): Promise<number | null> {
    if (limit <= 0) return null;
    // One conditional upsert, so concurrent requests (and instances sharing one PostgreSQL)
    // neither lose a count nor slip past the quota.
    const bounded = Number.isFinite(limit);
    const run = this.hot(bounded ? 'incrementUsageBelow' : 'incrementUsage', (p) =>
      this.db
        .insertInto('usage')
        .values({ key_id: p.number(0), day: p.text(1), calls: 1 })
        .onConflict((oc) => {
          const update = oc.columns(['key_id', 'day']).doUpdateSet({ calls: sql`usage.calls + 1` });
          return bounded ? update.where('usage.calls', '<', p.number(2)) : update;
        })
        .returning('calls'),
    );
    const [row] = await run(bounded ? [keyId, day, limit] : [keyId, day]);
    return row === undefined ? null : Number(row.calls);
  }

  async usage(keyId: number, day: string): Promise<number> {
    const run = this.hot('usage', (p) => this.db.selectFrom('usage').select('calls').where('key_id', '=', p.number(0)).where('day', '=', p.text(1)));
    const [row] = await run([keyId, day]);
    return Number(row?.calls ?? 0);
  }

  async addUsage(rows: readonly { keyId: number; day: string; calls: number }[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      for (const row of rows) {
        await trx
          .insertInto('usage')
          .values({ key_id: row.keyId, day: row.day, calls: row.calls })
          .onConflict((oc) => oc.columns(['key_id', 'day']).doUpdateSet({ calls: sql`usage.calls + ${row.calls}` }))
          .execute();
      }
    });
  }

  /**
   * Runs a query and gives its rows as arrays of column values in select order: the bulk
   * reads (filings, bars, flows) are materialised once, as domain objects, not first as row
   * objects (SQLite's row objects cost three times its arrays on the recompute's reads).
   */
  private async arrays(query: Compilable<unknown>): Promise<unknown[][]> {
    const compiled = query.compile();
    if (this.rawRows) return this.rawRows(compiled.sql, compiled.parameters);
    const result = await this.db.executeQuery(compiled);
    return result.rows.map((row) => Object.values(row as object) as unknown[]);
  }

  private readonly hotQueries = new Map<string, { sql: CompiledQuery; slots: number[] }>();

  /** `hot` whose rows come as arrays of column values in select order (see `arrays`). */
  private hotArrays(name: string, build: (p: Placeholders) => Compilable<unknown>): (values: readonly unknown[]) => Promise<unknown[][]> {
    const run = this.hot<object>(name, build);
    const compiled = this.hotQueries.get(name) as { sql: CompiledQuery; slots: number[] };
    const raw = this.rawRows;
    if (raw === undefined) return async (values) => (await run(values)).map((row) => Object.values(row) as unknown[]);
    return async (values) => {
      const parameters = [...compiled.sql.parameters];
      compiled.slots.forEach((slot, i) => (parameters[slot] = values[i]));
      return raw(compiled.sql.sql, parameters);
    };
  }

  /**
   * A query run on every request (key lookup, usage count), built and compiled by Kysely once
   * and then executed with new parameter values: building and compiling cost as much as
   * running the statement. The builder is called with placeholders (sentinel values); their
   * positions in the compiled parameters are where each call's values go.
   */
  private hot<R>(name: string, build: (p: Placeholders) => Compilable<R>): (values: readonly unknown[]) => Promise<R[]> {
    let entry = this.hotQueries.get(name);
    if (entry === undefined) {
      const sentinels: unknown[] = [];
      const placeholders: Placeholders = {
        text: (i) => (sentinels[i] = `\u0000placeholder${i}`) as string,
        number: (i) => (sentinels[i] = -987_654_321 - i) as number,
      };
      const compiled = build(placeholders).compile();
      const slots = sentinels.map((v) => compiled.parameters.indexOf(v));
      if (slots.some((s) => s < 0)) throw new Error(`hot query ${name}: a placeholder did not reach the parameters`);
      entry = { sql: compiled, slots };
      this.hotQueries.set(name, entry);
    }
    const { sql: compiled, slots } = entry;
    return async (values) => {
      const parameters = [...compiled.parameters];
      slots.forEach((slot, i) => (parameters[slot] = values[i]));
      const result = await this.db.executeQuery<R>({ ...compiled, parameters });
      return result.rows;
    };
  }

  async claimSlot(slot: string, holder: ClaimHolder, at: string, expiresAt: string, deadInstance?: string): Promise<boolean> {
    // One statement: of several claimants (or several taking over one dead holder) exactly one
    // row version wins; PostgreSQL re-checks the WHERE on the row it locked.
    const row = await this.db
      .insertInto('refresh_claims')
      .values({ slot, instance: holder.instance, claimed_at: at, host: holder.host, pid: holder.pid, expires_at: expiresAt, done: 0 })
      .onConflict((oc) =>
        oc
          .column('slot')
          .doUpdateSet({
            instance: sql.ref('excluded.instance'),
            claimed_at: sql.ref('excluded.claimed_at'),
            host: sql.ref('excluded.host'),
            pid: sql.ref('excluded.pid'),
            expires_at: sql.ref('excluded.expires_at'),
          })
          .where('refresh_claims.done', '=', 0)
          // Nothing matches '' (instance ids are never empty): no dead holder named, no takeover.
          .where('refresh_claims.instance', '=', deadInstance ?? ''),
      )
      .returning('instance')
      .executeTakeFirst();
    return row?.instance === holder.instance;
  }

  async slotClaim(slot: string): Promise<SlotClaim | null> {
    const r = await this.db.selectFrom('refresh_claims').selectAll().where('slot', '=', slot).executeTakeFirst();
    if (!r) return null;
    return { slot: r.slot, instance: r.instance, host: r.host, pid: Number(r.pid), claimedAt: r.claimed_at, expiresAt: r.expires_at, done: Number(r.done) === 1 };
  }

  async renewClaim(slot: string, instance: string, expiresAt: string): Promise<boolean> {
    const res = await this.db
      .updateTable('refresh_claims')
      .set({ expires_at: expiresAt })
      .where('slot', '=', slot)
      .where('instance', '=', instance)
      .where('done', '=', 0)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  async finishClaim(slot: string, instance: string): Promise<void> {
    await this.db.updateTable('refresh_claims').set({ done: 1 }).where('slot', '=', slot).where('instance', '=', instance).execute();
  }

  async releaseClaim(slot: string, instance: string): Promise<void> {
    await this.db.deleteFrom('refresh_claims').where('slot', '=', slot).where('instance', '=', instance).where('done', '=', 0).execute();
  }

  async datasetVersion(): Promise<number> {
    return Number((await this.getMeta(DATASET_VERSION)) ?? 0);
  }

  async bumpDatasetVersion(): Promise<number> {
    const row = await this.db
      .insertInto('meta')
      .values({ key: DATASET_VERSION, value: '1' })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value: sql<string>`cast(cast(meta.value as integer) + 1 as text)` }))
      .returning('value')
      .executeTakeFirstOrThrow();
    return Number(row.value);
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  async startRefreshRun(at: string): Promise<number> {
    const row = await this.db
      .insertInto('refresh_runs')
      .values({ started_at: at, status: 'running', detail: '' })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async finishRefreshRun(id: number, at: string, status: string, detail: string): Promise<void> {
    await this.db.updateTable('refresh_runs').set({ finished_at: at, status, detail }).where('id', '=', id).execute();
  }

  async refreshRuns(limit: number): Promise<RefreshRun[]> {
    const rows = await this.db.selectFrom('refresh_runs').selectAll().orderBy('id', 'desc').limit(limit).execute();
    return rows.map((r) => ({ id: r.id, startedAt: r.started_at, finishedAt: r.finished_at, status: r.status, detail: r.detail }));
  }
}

/** Applies every pending migration in order; a no-op when the schema is current. */
export async function runMigrations(db: Kysely<DB>, engine: Engine): Promise<void> {
  // PostgreSQL: pin Kysely's own bookkeeping tables to the connection's schema. Left unset,
  // the migrator takes a kysely_migration_lock table in ANY schema of the database as its own
  // (another application's, or another deployment's) and then fails to find it on its path.
  const schema =
    engine === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined;
  const migrator = new Migrator({ db, provider: migrationProvider(engine), ...(schema ? { migrationTableSchema: schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

type Table = keyof DB;

/** Stand-ins for a hot query's parameters, by position in the values passed at run time. */
interface Placeholders {
  text(index: number): string;
  number(index: number): number;
}

/**
 * Inserts rows in chunks; a row whose key exists replaces every non-key column (the
 * `excluded` row is SQLite's and PostgreSQL's name for the proposed one). This is what makes
 * every write idempotent.
 */
/** Runs one statement once per row of values, inside the current transaction (SQLite). */
export type RowRunner = (sql: string, rows: readonly unknown[][]) => void;

async function upsert<T extends Table>(
  runRows: RowRunner | undefined,
  trx: Transaction<DB>,
  table: T,
  key: readonly string[],
  rows: readonly Insertable<DB[T]>[],
  /** Update expressions replacing `excluded.<column>` for some columns. */
  overrides: Record<string, unknown> = {},
): Promise<void> {
  const first = rows[0] as Record<string, unknown> | undefined;
  if (first === undefined) return;
  const columns = Object.keys(first);
  const update = columns.filter((c) => !key.includes(c));
  // Kysely cannot type a table chosen at run time; the rows were typed against DB[T] above.
  const db = trx as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const set: Record<string, unknown> = Object.fromEntries(update.map((c) => [c, overrides[c] ?? sql.ref(`excluded.${c}`)]));
  if (runRows) {
    // One single-row statement, compiled by Kysely once and run per row with that row's values:
    // its parameters are the row's values in column order, then the update's own.
    const one = db
      .insertInto(table as string)
      .values(first)
      .onConflict((oc) => oc.columns(key as string[]).doUpdateSet(set))
      .compile();
    const tail = one.parameters.slice(columns.length);
    if (one.parameters.length >= columns.length && columns.every((c, i) => Object.is(one.parameters[i], first[c]))) {
      runRows(
        one.sql,
        rows.map((row) => {
          const values: unknown[] = columns.map((c) => (row as Record<string, unknown>)[c] ?? null);
          values.push(...tail);
          return values;
        }),
      );
      return;
    }
  }
  for (const part of chunks(rows)) {
    await db
      .insertInto(table as string)
      .values(part as Record<string, unknown>[])
      .onConflict((oc) => oc.columns(key as string[]).doUpdateSet(set))
      .execute();
  }
}

function reportRow(securityId: number, r: FinancialReport): ReportsTable {
  const items = Object.fromEntries(ITEM_KEYS.map((k) => [reportColumns[k], r[k]])) as Pick<ReportsTable, (typeof reportColumns)[ItemKey]>;
  return {
    security_id: securityId,
    fiscal_year: r.fiscalYear,
    fiscal_quarter: r.fiscalQuarter,
    consolidated: r.consolidated ? 1 : 0,
    disclosed_on: r.disclosedOn,
    period_end: r.periodEnd,
    ...items,
    source: r.source,
  };
}


// PostgreSQL's driver may hand back numeric columns as strings; SQLite gives numbers.
function toNumberOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : Number(v);
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

/** A filing from an array row whose REPORT_FIGURES start at `at`. */
function toReport(r: unknown[], market: Market, code: string, at: number): FinancialReport {
  // Every key in one order (one hidden class for all reports), then the items in column order.
  const report = {
    market,
    code,
    fiscalYear: r[at] as number,
    fiscalQuarter: r[at + 1] as FiscalQuarter,
    periodEnd: r[at + 2] as string,
    disclosedOn: r[at + 3] as string,
    consolidated: Number(r[at + 4]) === 1,
    ...EMPTY_ITEMS,
    source: r[at + 5 + ITEM_KEYS.length] as string,
  };
  for (let i = 0; i < ITEM_KEYS.length; i++) report[ITEM_KEYS[i] as ItemKey] = toNumberOrNull(r[at + 5 + i]);
  return report;
}

/**
 * Array rows ordered by security id (their first column) as lists per id; `map` makes each
 * row's object (null skips the row).
 */
function groupById<T>(rows: readonly unknown[][], map: (row: unknown[], id: number) => T | null): Map<number, T[]> {
  const out = new Map<number, T[]>();
  let id = Number.NaN;
  let list: T[] = [];
  for (const row of rows) {
    const rowId = Number(row[0]);
    if (rowId !== id) {
      id = rowId;
      list = out.get(id) ?? [];
      out.set(id, list);
    }
    const item = map(row, id);
    if (item !== null) list.push(item);
  }
  return out;
}

function toKey(r: {
  id: number;
  prefix: string;
  hash: string;
  name: string;
  plan: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}): ApiKeyRecord {
  return {
    id: r.id,
    prefix: r.prefix,
    hash: r.hash,
    name: r.name,
    plan: r.plan === 'paid' ? 'paid' : 'free',
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
    lastUsedAt: r.last_used_at,
  };
}
