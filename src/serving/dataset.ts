// The read model the tools serve from: one immutable dataset snapshot, computed for the
// whole universe at refresh time and swapped atomically. Tools only look things up here;
// the per-stock histories (price bars, filings) are read through it on demand.

import type { Market, SectorExportMonth, Security, TradeMonth } from '../domain/model.js';
import type { AdjustedBars } from '../domain/adjusted.js';
import type { SeriesWindow } from '../domain/series.js';
import type { BandKey, BandType, PercentileEntry, RankingRow, SnapshotGroups, V3Inputs, V3Result, ValuationBandResult } from '../domain/results.js';
import type { SearchMatch, SearchQuery } from '../domain/search.js';
import type { PriceChanges } from '../domain/price-change.js';
import type { FilerNote } from '../domain/filer-basis.js';
import type { PercentileValues } from '../domain/snapshot.js';
import type { CoverageReport } from './coverage.js';

/** A listed stock as the dataset serves it: the security, and the id its histories are read by. */
export interface ServedSecurity extends Security {
  id: number;
}

export interface PriceRef {
  date: string;
  close: number;
  shares: number;
  marketCap: number;
}

export type V3Outcome =
  | {
      ok: true;
      inputs: V3Inputs;
      result: V3Result;
      targetPrice: number;
      referenceQuarter: string;
      disclosedOn: string;
      /** What fed supplyPct: trading days, KR days with an investor-flow row, and those rows' sources. */
      supply: { days: number; flowDays: number | null; sources: string[] };
    }
  | { ok: false; reason: string };

export interface CohortPercentiles {
  /** Sector name, or the market for the market cohort. */
  name: string;
  /** Stocks in the cohort. */
  members: number;
  metrics: PercentileEntry[];
}

export interface StockView {
  security: ServedSecurity;
  price: PriceRef | null;
  band: BandKey | null;
  v3: V3Outcome;
  /** Percentile 0..100 of the V3 score within the market; null when the stock has no score. */
  scorePercentile: number | null;
  /** Stocks of the same market with a V3 score. */
  scoreCohortSize: number;
  snapshot: SnapshotGroups;
  /**
   * The stock's 17 metrics' percentiles in its sector's cohort and in its market's, made the first
   * time they are asked for (most stocks never are between two refreshes) and kept.
   */
  percentiles: () => { sector: CohortPercentiles; market: CohortPercentiles };
  /** The 17 percentile metrics' raw values (each entry's `value` in `percentiles`), read without making the entries. */
  metricValues: PercentileValues;
  /** Split-consistent price change over 1, 3 and 12 months, percent (src/domain/price-change.ts). */
  priceChanges: PriceChanges;
  /** A foreign private issuer's note on how its figures were made (src/domain/filer-basis.ts); absent for every other stock. */
  filer?: FilerNote;
}

/** What one stock's snapshot answer (`get_stock_snapshot`) shows of its view: no V3, cohort or price change. */
export type StockFigures = Pick<StockView, 'security' | 'price' | 'snapshot' | 'filer'>;

/** How the last refresh went for one source. */
export interface SourceState {
  source: string;
  ok: boolean;
  /** When it was tried, ISO 8601 with offset. */
  at: string;
  error?: string;
  records?: number;
}

/** A refresh run's outcome from its sources' states (shown by /readyz). */
export { runOutcome } from '../domain/runs.js';

export interface SectorCount {
  market: Market;
  sector: string;
  stocks: number;
}

export interface ServedDataset {
  /** Increases with every swap; part of every ETag. */
  readonly version: number;
  /** When this snapshot was computed, ISO 8601 with offset. */
  readonly updatedAt: string;
  /** The date the snapshot treats as today (Asia/Seoul). */
  readonly asOf: string;
  /** `demo`, or the real sources' names joined with commas. */
  readonly source: string;
  /**
   * When the next scheduled refresh is due (the configured schedule's next run after this
   * snapshot was computed); responses may be cached until then. Null when no refresh is scheduled.
   */
  readonly nextRefreshAt: Date | null;
  /** The last refresh's outcome per source (empty for the demo universe). */
  readonly sources: readonly SourceState[];
  /**
   * Finds a stock by code: six digits are KR, anything else a US ticker. Throws not_found for a
   * code nobody lists, data_unavailable for one the store lists but the dataset does not hold,
   * and for any code while the dataset holds no stock at all (the first load).
   */
  stock(code: string): StockView;
  /** How many listed stocks each tool answers with values, and why the rest are null (computed once per dataset). */
  coverage(): CoverageReport;
  /** Rows [offset, offset + limit) of the sorted, filtered rankings, and how many passed the filter. */
  rankings(markets: readonly Market[], bands: readonly BandKey[], limit: number, offset?: number): { rows: RankingRow[]; totalCount: number };
  /** Every served stock, in no particular order (the screener's universe); data_unavailable while none is served. */
  stocks(): Iterable<StockView>;
  /** Stocks by name, English name, code or ticker, best first (src/domain/search.ts): an index lookup. */
  search(query: SearchQuery): { matches: SearchMatch[]; totalCount: number };
  trade(): readonly TradeMonth[];
  sectorExports(): readonly SectorExportMonth[];
  /** Every sector of the served stocks with how many it has, by market then name. */
  sectors(): readonly SectorCount[];
  /**
   * The stock's bars by day, week or month in a window (`resampleSeries` on its whole daily
   * history): days as a range of the held columns (the answer writes them from there), weeks and
   * months as objects; split-adjusted when `adjust` (src/domain/adjusted.ts), with the split
   * events that fall within them.
   */
  priceBars(view: Pick<StockView, 'security'>, window: SeriesWindow, adjust: boolean, through?: string): Promise<AdjustedBars>;
  /** The stock's valuation band from `from` to `through` (default `asOf`) (`valuationBandOfSeries` on its bars and TTM steps). */
  valuationBand(view: Pick<StockView, 'security'>, type: BandType, from: string, through?: string): Promise<ValuationBandResult>;
  /** Answers as of a past day (src/serving/as-of.ts). */
  readonly past: PastDays;
}

/** What an answer as of a day states it used: the day, its last session and its last disclosure. */
export interface AsOfUse {
  /** The day answered for. */
  date: string;
  /** The last trading day whose close the answer used; null when it used none. */
  lastSession: string | null;
  /** The disclosure date of the latest filing the answer used; null when it used none. */
  lastDisclosure: string | null;
  /** Present when the day asked for is after the latest data day, which answers instead. */
  note?: string;
}

/** A day as-of answers are given for: the day itself, or the served day for a later one. */
export interface AnsweredDay {
  date: string;
  /** Whether the served dataset answers (the day asked for is its as-of date or later). */
  served: boolean;
  note?: string;
}

/** The whole universe as it was on a day. */
export interface PastDay {
  data: ServedDataset;
  /** What the day's list answers used (the universe's last session and last disclosure). */
  asOf: AsOfUse;
  /** What one stock's answer used. */
  asOfStock(view: StockView): AsOfUse;
}

/**
 * Answers as of a past day: every figure computed from what the store knew that day (a filing
 * from its disclosure date, a price from its session's close). Each method throws
 * invalid_parameter for a day before `earliest()`.
 */
export interface PastDays {
  /** The first day the store holds both prices and a TTM (src/serving/as-of.ts); null while it holds none. */
  earliest(): Promise<string | null>;
  /**
   * Reads what every as-of answer of the version uses (the earliest day; every security, its
   * first bar and its listing versions; the rates) and keeps it, so that the first as-of call
   * does not wait for those reads. Run in the background after a swap.
   */
  prepare(): Promise<void>;
  /** Which day answers for `day`; throws invalid_parameter (naming the earliest day) for one before `earliest()`. */
  resolve(day: string): Promise<AnsweredDay>;
  /** The day's universe (rankings, screen, search, score and percentile cohorts), computed once per day and kept. */
  universe(day: string): Promise<PastDay>;
  /** One stock's figures as of the day (its snapshot and price), without the day's universe unless that is held. */
  stock(code: string, day: string): Promise<{ view: StockFigures; asOf: AsOfUse }>;
  /**
   * The stock a history answer (price history, valuation band) as of `day` reads: the served one,
   * or a code delisted since, for a day it was listed; else the served dataset's not_found.
   */
  view(code: string, day: string): Promise<Pick<StockView, 'security'>>;
  /** The disclosure date of the latest filing in the stock's TTM as of `through` (the valuation band's). */
  ttmDisclosedBy(view: Pick<StockView, 'security'>, through: string): Promise<string | null>;
}

/** `BRK.B`, `brk-b` and `Brk.b` are one ticker; KR codes are six digits. */
export function normaliseCode(code: string): { market: Market; code: string } {
  return /^\d{6}$/.test(code) ? { market: 'KR', code } : { market: 'US', code: code.toUpperCase().replace(/-/g, '.') };
}
