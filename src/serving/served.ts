// The served dataset: a computed snapshot plus on-demand reads of one stock's history
// (price bars and filings) from the store, kept in a cache sized in bytes (./history.ts).

import { addDays } from '../domain/calendar.js';
import { isFinancialSector, NOT_APPLICABLE_TO_FINANCIALS } from '../domain/financials.js';
import type { FinancialReport, FlowDay, FxRate, Market, SectorExportMonth, SnapshotBar } from '../domain/model.js';
import type { BandKey, BandType, RankingRow, ValuationBandResult } from '../domain/results.js';
import type { AdjustedBars } from '../domain/adjusted.js';
import type { SeriesWindow } from '../domain/series.js';
import { listedAs, type ListingVersion } from '../domain/listings.js';
import { rankings } from '../domain/rankings.js';
import { searchStocks, type SearchMatch, type SearchQuery } from '../domain/search.js';
import type { MarketDataStore, StoredSecurity, UniverseSlice } from '../store/market-data.js';
import { normaliseCode, type PastDays, type SectorCount, type ServedDataset, type ServedSecurity, type SourceState, type StockView } from './dataset.js';
import { ApiError } from '../kernel/errors.js';
import { coverageOf, type CoverageReport } from './coverage.js';
import { RECENT_DAYS, SNAPSHOT_BARS, SNAPSHOT_QUARTERS, viewKey, type ComputedSnapshot, type DelistedSecurity, type UniverseData } from './build.js';
import { StockHistories } from './history.js';
import { readFewPriceChanges, readSlicePriceChanges } from './price-changes.js';
import type { PriceChanges, SplitEvent } from '../domain/price-change.js';
import { listedSharesWanted } from '../domain/snapshot.js';
import { SUPPLY_WINDOW_DAYS } from '../domain/v3.js';

/** The as-of answers of a dataset made without them: no earliest day, and every as-of call refused. */
const refuseAsOf = (): Promise<never> => Promise.reject(new ApiError('invalid_parameter', 'this dataset serves no as-of answers; allowed: omit asOf', { parameter: 'asOf' }));
const NO_PAST_DAYS: PastDays = { earliest: () => Promise.resolve(null), prepare: () => Promise.resolve(), resolve: refuseAsOf, universe: refuseAsOf, stock: refuseAsOf, view: refuseAsOf, ttmDisclosedBy: () => Promise.resolve(null) };

export interface DatasetOptions {
  /** A past day's dataset reads the served dataset's histories (through its own as-of date). */
  histories?: StockHistories;
  /** Makes the as-of answers of the dataset (src/serving/as-of.ts `pastDaysOf`). */
  past?: (served: SnapshotDataset) => PastDays;
}

export interface ServedMeta {
  version: number;
  updatedAt: string;
  source: string;
  nextRefreshAt: Date | null;
  sources: readonly SourceState[];
}

export class SnapshotDataset implements ServedDataset {
  readonly version: number;
  readonly updatedAt: string;
  readonly source: string;
  readonly nextRefreshAt: Date | null;
  readonly asOf: string;
  readonly sources: readonly SourceState[];
  /** The per-stock histories: this dataset's own, or (a past day's) the served dataset's. */
  readonly histories: StockHistories;
  private readonly pastOf: ((served: SnapshotDataset) => PastDays) | undefined;
  private pastDays: PastDays | null = null;

  constructor(
    readonly computed: ComputedSnapshot,
    meta: ServedMeta,
    readonly store: MarketDataStore,
    options: DatasetOptions = {},
  ) {
    this.version = meta.version;
    this.updatedAt = meta.updatedAt;
    this.source = meta.source;
    this.nextRefreshAt = meta.nextRefreshAt;
    this.sources = meta.sources;
    this.asOf = computed.asOf;
    this.histories = options.histories ?? new StockHistories(store, computed.asOf);
    this.pastOf = options.past;
  }

  /** As-of answers: made on first use by `options.past` (src/serving/as-of.ts); without it, none (`NO_PAST_DAYS`). */
  get past(): PastDays {
    return (this.pastDays ??= this.pastOf === undefined ? NO_PAST_DAYS : this.pastOf(this));
  }

  stock(code: string): StockView {
    const { market, code: normalised } = normaliseCode(code);
    const key = viewKey(market, normalised);
    // Not served is not unknown: while no stock is served (the first load) any code may be one
    // that is coming, and a code the store lists without a served view is coming for sure.
    this.requireStocks();
    const view = this.computed.views.get(key);
    if (view === undefined) {
      const delisted = this.computed.delisted.get(key);
      if (delisted !== undefined) throw delistedError(delisted.security, delisted.delistedOn);
      if (this.listedKeys().has(key)) {
        throw new ApiError('data_unavailable', `${market === 'KR' ? `the KR stock ${normalised}` : `the US stock ${normalised}`} is listed but not loaded yet (no price yet); try again after the next refresh`);
      }
      throw new ApiError('not_found', notFoundDetail(market, normalised, this.source));
    }
    return view;
  }

  /** data_unavailable while the dataset holds no stock: the first load has not brought any yet. */
  private requireStocks(): void {
    if (this.computed.views.size === 0) {
      throw new ApiError('data_unavailable', 'no stock is served yet: the first load from the sources is under way or failed (GET /readyz shows each source and its next try); try again later');
    }
  }

  private listedKeyCache: Set<string> | null = null;
  private listedKeys(): Set<string> {
    return (this.listedKeyCache ??= new Set(this.computed.listed.map((s) => viewKey(s.market, s.code))));
  }

  private coverageReport: CoverageReport | null = null;
  coverage(): CoverageReport {
    return (this.coverageReport ??= coverageOf(this.asOf, this.computed.views.values(), this.computed.listed));
  }

  rankings(markets: readonly Market[], bands: readonly BandKey[], limit: number, offset = 0): { rows: RankingRow[]; totalCount: number } {
    this.requireStocks();
    return rankings(this.computed.rankings, { markets, bands, limit, offset });
  }

  stocks(): Iterable<StockView> {
    this.requireStocks();
    return this.computed.views.values();
  }

  search(query: SearchQuery): { matches: SearchMatch[]; totalCount: number } {
    this.requireStocks();
    return searchStocks(this.computed.search, query);
  }

  trade() {
    return this.computed.trade;
  }

  sectorExports() {
    return this.computed.sectorExports;
  }

  private sectorCounts: SectorCount[] | null = null;
  sectors(): readonly SectorCount[] {
    if (this.sectorCounts === null) {
      const counts = new Map<string, SectorCount>();
      for (const { security } of this.computed.views.values()) {
        const key = `${security.market}\u0000${security.sector}`;
        const entry = counts.get(key);
        if (entry === undefined) counts.set(key, { market: security.market, sector: security.sector, stocks: 1 });
        else entry.stocks++;
      }
      this.sectorCounts = [...counts.values()].sort((a, b) => (a.market === b.market ? (a.sector < b.sector ? -1 : a.sector > b.sector ? 1 : 0) : a.market < b.market ? -1 : 1));
    }
    return this.sectorCounts;
  }

  /**
   * Fills the history cache in the background, largest market cap first (`StockHistories.warm`),
   * until it is full or `signal` aborts. Returns how many stocks it read and how many it found held or read.
   */
  warmHistories(signal: AbortSignal): Promise<{ read: number; held: number }> {
    const bySize = [...this.computed.views.values()]
      .filter((v) => v.price !== null)
      .sort((a, b) => (b.price?.marketCap ?? 0) - (a.price?.marketCap ?? 0) || a.security.id - b.security.id)
      .map((v) => v.security.id);
    return this.histories.warm(bySize, signal);
  }

  priceBars(view: Pick<StockView, 'security'>, window: SeriesWindow, adjust: boolean, through = this.asOf): Promise<AdjustedBars> {
    if (through < this.histories.asOf) return this.histories.priceBarsThrough(view.security.id, window, adjust, through);
    return this.histories.priceBarsOrDays(view.security.id, window, adjust);
  }

  valuationBand(view: Pick<StockView, 'security'>, type: BandType, from: string, through = this.asOf): Promise<ValuationBandResult> {
    if (type === 'psr' && isFinancialSector(view.security.sector)) {
      // PSR does not exist for financial companies (src/domain/financials.ts): no band of it either.
      const none: ValuationBandResult = { type, from, to: through, daysUsed: 0, daysExcluded: 0, p5: null, median: null, p95: null, min: null, max: null, current: null, years: [] };
      return Promise.resolve({ ...none, reason: NOT_APPLICABLE_TO_FINANCIALS });
    }
    return this.histories.band(view.security.id, type, from, through < this.histories.asOf ? through : this.histories.asOf);
  }
}

/**
 * Why a code finds no stock, in terms true for what is served: the demo's companies and codes
 * are invented (a real company's code is not there by design); real data covers what its
 * sources list (US: companies filing 10-K/10-Q or 20-F/40-F with the SEC).
 */
export function notFoundDetail(market: Market, code: string, source: string): string {
  const what = market === 'KR' ? `no KR stock has the code ${code}` : `no US stock has the ticker ${code}`;
  if (source === 'demo') return `${what}: the demo universe is invented (its companies and codes are not real ones); find one by name with search_stocks (GET /stocks?q=)`;
  return market === 'KR'
    ? `${what} among the served stocks; find one by name with search_stocks (GET /stocks?q=)`
    : `${what} among the served stocks (covered: companies filing 10-K/10-Q or 20-F/40-F with the SEC); find one by name with search_stocks (GET /stocks?q=)`;
}

/**
 * A stock that left its market by the date served: not_found, saying when it was delisted (its
 * last trading day, also as the problem's `delistedOn`). Its history is kept.
 */
export function delistedError(security: Pick<ServedSecurity, 'market' | 'code' | 'name'>, delistedOn: string): ApiError {
  const what = security.market === 'KR' ? `the KR stock ${security.code}` : `the US stock ${security.code}`;
  return new ApiError('not_found', `${what} (${security.name}) was delisted: its last trading day was ${delistedOn}; its history is kept, and answers as of a day on or before ${delistedOn} include it`, {
    delistedOn,
  });
}

/**
 * Stocks per slice of the universe's reads: at full size (8,700 stocks) a slice's three reads
 * take ~10-20 ms together instead of 0.5-0.6 s for the filings alone in one read.
 */
export const STOCKS_PER_READ = 250;
/** Sector exports are read a decade at a time, the first decade taking everything before it. */
const EXPORTS_FIRST_YEAR = 1990;

/**
 * What `loadUniverse` reads besides each stock's filings, bars, flows and price changes: with a
 * part, no trade or sector exports (as-of answers serve neither); `fx` as given, else read; and
 * with `securities`, those instead of every security the store lists, read as one request's few
 * (without turns of the event loop, each stock's own split events).
 */
export interface UniversePart {
  securities?: readonly ServedSecurity[];
  fx?: readonly FxRate[];
  /**
   * With `securities`: only what their figures need (`stockFigures` in ./build.ts): their filings,
   * last bar, split events and listed shares; no flows, price changes or rates.
   */
  figuresOnly?: boolean;
  /**
   * Each security's listing versions (`MarketDataStore.listingVersions`): given, every security
   * the universe lists (`listedOn`) takes the name, sector and exchange of its version valid on
   * the day; absent, those the store holds as today's. `securities` are taken as given.
   */
  listings?: ReadonlyMap<number, readonly ListingVersion[]>;
  /**
   * Every security the store lists and each one's first bar date (`MarketDataStore.securities`
   * and `firstBarDates`), as a caller holds them for a dataset version: `listedOn` takes the day's
   * from these instead of reading both (~0.1 s at full size), and the days share the objects.
   */
  stored?: StoredUniverse;
}

/** What `listedOn` picks a day's securities from. */
export interface StoredUniverse {
  securities: readonly StoredSecurity[];
  firstBars: ReadonlyMap<number, string>;
}

/**
 * Reads from the store what the builder needs for the whole universe (or `only` a part), and no more: per stock
 * the filings of its last SNAPSHOT_QUARTERS fiscal quarters and its last SNAPSHOT_BARS bars
 * (with the flows of their dates). `computeSnapshot` gives the same result on this as on every
 * filing and bar: it uses nothing older (test/serving/served.test.ts checks it).
 */
export async function loadUniverse(store: MarketDataStore, asOf: string, stocksPerRead = STOCKS_PER_READ, only?: UniversePart): Promise<UniverseData> {
  if (only?.securities !== undefined) return { ...(await loadListed(store, asOf, only.securities, stocksPerRead, only)), delisted: [] };
  const { securities, delisted } = await listedOn(store, asOf, only?.listings, only?.stored);
  return { ...(await loadListed(store, asOf, securities, stocksPerRead, only)), delisted };
}

/**
 * The securities listed on `day` (docs/calculations.md, "The universe of a day"), with `listings`
 * as they were listed that day (their names, sectors and exchanges): those whose
 * first bar is on or before it (or that have no bar: listed by a filing source, not priced yet),
 * less those delisted before it (a delisted code is listed through its last trading day); and
 * those delisted by `day` (its last trading day before it), kept apart with that day. From
 * `stored` where given, else from the store.
 */
export async function listedOn(
  store: MarketDataStore,
  day: string,
  listings?: ReadonlyMap<number, readonly ListingVersion[]>,
  stored?: StoredUniverse,
): Promise<{ securities: StoredSecurity[]; delisted: DelistedSecurity[] }> {
  const all = stored?.securities ?? (await store.securities());
  const firstBars = stored?.firstBars ?? (await store.firstBarDates());
  const securities: StoredSecurity[] = [];
  const delisted: DelistedSecurity[] = [];
  for (const today of all) {
    const s = listings === undefined ? today : listedAs(today, listings.get(today.id), day);
    if (s.delistedOn !== undefined && s.delistedOn < day) delisted.push({ security: s, delistedOn: s.delistedOn });
    else if ((firstBars.get(s.id) ?? day) <= day) securities.push(s);
  }
  return { securities, delisted };
}

async function loadListed(store: MarketDataStore, asOf: string, securities: readonly StoredSecurity[], stocksPerRead: number, only?: UniversePart): Promise<Omit<UniverseData, 'delisted'>> {
  const since = addDays(asOf, -RECENT_DAYS);
  // One read after another with a turn of the event loop between them: on SQLite each read is
  // synchronous, and run back to back they would hold a serving instance for all of them.
  // A few stocks (one request's) are read without those turns: each would queue it behind every other request.
  const few = only?.securities;
  const step = async <T>(read: () => Promise<T>): Promise<T> => {
    if (few === undefined) await new Promise((resolve) => setImmediate(resolve));
    return read();
  };
  const reports = new Map<number, FinancialReport[]>();
  const recentBars = new Map<number, SnapshotBar[]>();
  const recentFlows = new Map<number, FlowDay[]>();
  const recent: RecentReads = { reports, recentBars, recentFlows };
  // One request's few stocks are read by key; the universe a slice at a time, with every split
  // event through the day (a few rows for the universe), which its price changes and the KR
  // filings' per-share figures take.
  const krIds = new Set(securities.filter((s) => s.market === 'KR').map((s) => s.id));
  const splits = new Map<number, SplitEvent[]>();
  let priceChanges: Map<number, PriceChanges>;
  if (few === undefined) {
    const splitEvents = await step(() => store.splitEvents('', asOf));
    priceChanges = await readSlices(store, asOf, since, securities, stocksPerRead, step, recent, splitEvents);
    for (const [id, events] of splitEvents) if (krIds.has(id)) splits.set(id, events);
  } else {
    await readFew(store, asOf, since, few, recent, only?.figuresOnly === true);
    priceChanges = only?.figuresOnly === true ? new Map() : await readFewPriceChanges(store, recentBars);
    for (const id of krIds) {
      const events = await store.stockSplitEvents(id, asOf);
      if (events.length > 0) splits.set(id, events);
    }
  }
  // The listed shares at the period ends where a KR stock's EPS needs them (a key probe each, two
  // a stock at most, none where the filings state basic EPS).
  const wanted: { securityId: number; date: string }[] = [];
  for (const id of krIds) for (const date of listedSharesWanted(reports.get(id) ?? [], asOf)) wanted.push({ securityId: id, date });
  const listedShares = new Map<number, Map<string, number>>();
  const counts = wanted.length > 0 ? await step(() => store.listedSharesOnOrBefore(wanted)) : [];
  wanted.forEach(({ securityId, date }, i) => {
    const count = counts[i];
    if (count === null || count === undefined) return;
    let dates = listedShares.get(securityId);
    if (dates === undefined) listedShares.set(securityId, (dates = new Map()));
    dates.set(date, count);
  });
  const fx = only?.fx ?? (only?.figuresOnly === true ? [] : await step(() => store.fx()));
  const trade = only ? [] : await step(() => store.trade());
  // Sector exports (55 sectors a month since 1990) a decade at a time.
  const sectorExports: SectorExportMonth[] = [];
  const lastYear = Number(asOf.slice(0, 4));
  for (let year = EXPORTS_FIRST_YEAR; only === undefined; year += 10) {
    const months = { from: year === EXPORTS_FIRST_YEAR ? '0000-00' : `${year}-01`, to: year + 9 >= lastYear ? '9999-99' : `${year + 9}-12` };
    sectorExports.push(...(await step(() => store.sectorExports(months))));
    if (year + 9 >= lastYear) break;
  }
  // A window with fewer than four quarters says "fewer than four quarters disclosed", but a
  // stock with older quarters outside it must say which quarter is missing: those (few) stocks
  // get every filing.
  for (const [id, list] of reports) {
    if (new Set(list.map((r) => r.fiscalYear * 4 + r.fiscalQuarter)).size < 4) reports.set(id, await store.reports(id));
  }
  return { securities, reports, recentBars, recentFlows, fx, trade, sectorExports, priceChanges, splits, listedShares };
}

/** What `loadListed` reads per stock: its recent filings, bars and flows. */
interface RecentReads {
  reports: Map<number, FinancialReport[]>;
  recentBars: Map<number, SnapshotBar[]>;
  recentFlows: Map<number, FlowDay[]>;
}

/**
 * The universe's recent filings, bars and flows, a slice of `stocksPerRead` stocks at a time, and
 * from the bars and `splits` (every split event through `asOf`) the price changes.
 */
async function readSlices(
  store: MarketDataStore,
  asOf: string,
  since: string,
  securities: readonly StoredSecurity[],
  stocksPerRead: number,
  step: <T>(read: () => Promise<T>) => Promise<T>,
  { reports, recentBars, recentFlows }: RecentReads,
  splits: ReadonlyMap<number, readonly SplitEvent[]>,
): Promise<Map<number, PriceChanges>> {
  const ids = securities.map((s) => s.id).sort((a, b) => a - b);
  const slices: UniverseSlice[] = [];
  for (let k = 0; k < ids.length; k += stocksPerRead) {
    slices.push({ first: ids[k] as number, last: ids[Math.min(k + stocksPerRead, ids.length) - 1] as number, securities });
  }
  // The filings, and the bars and flows, in two sequences that run side by side: where the store
  // reads bars and flows on a reader thread (SQLite with SERIES_READERS), that thread reads them
  // while this one reads and unpacks the filings; elsewhere the reads take turns, one per turn of
  // the event loop.
  const readReports = async () => {
    for (const slice of slices) for (const [id, list] of await step(() => store.recentReports(asOf, SNAPSHOT_QUARTERS, slice))) reports.set(id, list);
  };
  // A slice's bars and flows are asked for together, and the next slice's before this one's are
  // kept, so that a reader thread always has the next read queued. The price changes start from
  // each stock's latest bar: a slice's are read on this thread once its bars are in, while the
  // reader thread reads the next slice's (this thread would otherwise wait for it).
  const priceChanges = new Map<number, PriceChanges>();
  const readSlice = (slice: UniverseSlice) => step(() => Promise.all([store.lastBars(since, asOf, SNAPSHOT_BARS, slice), store.flowsOfLastBars(since, asOf, SUPPLY_WINDOW_DAYS, slice)]));
  const readRecent = async () => {
    let next = slices.length > 0 ? readSlice(slices[0] as UniverseSlice) : null;
    for (let k = 0; next !== null; k++) {
      const [bars, flows] = await next;
      next = k + 1 < slices.length ? readSlice(slices[k + 1] as UniverseSlice) : null;
      for (const [id, list] of bars) recentBars.set(id, list);
      for (const [id, list] of flows) recentFlows.set(id, list);
      await step(() => readSlicePriceChanges(store, bars, splits, priceChanges));
    }
  };
  await Promise.all([readReports(), readRecent()]);
  return priceChanges;
}

/**
 * One request's few stocks' recent filings, bars and flows: the slices' entries for them, each
 * read by a key lookup or range compiled once (a slice's reads build their queries each time).
 * The flows start at the stock's SUPPLY_WINDOW_DAYS-th last bar, among its SNAPSHOT_BARS last.
 * With `figuresOnly`, the last bar alone and no flows.
 */
async function readFew(store: MarketDataStore, asOf: string, since: string, securities: readonly StoredSecurity[], { reports, recentBars, recentFlows }: RecentReads, figuresOnly: boolean): Promise<void> {
  for (const security of securities) {
    const filed = await store.stockRecentReports(security, asOf, SNAPSHOT_QUARTERS);
    if (filed.length > 0) reports.set(security.id, filed);
    const bars = await store.stockLastBars(security.id, since, asOf, figuresOnly ? 1 : SNAPSHOT_BARS);
    if (bars.length > 0) recentBars.set(security.id, bars);
    if (figuresOnly) continue;
    const start = bars.length >= SUPPLY_WINDOW_DAYS ? (bars[bars.length - SUPPLY_WINDOW_DAYS] as SnapshotBar).date : since;
    const flows = await store.stockFlows(security.id, start, asOf);
    if (flows.length > 0) recentFlows.set(security.id, flows);
  }
}
