// Result shapes of the calculations: what the tools serve (the tools add `updatedAt` and
// `source`). Field names are camelCase, as in the rankings row. An undefined number
// is `null` with a `reason`, never NaN, Infinity or a made-up 0.

import type { FiscalQuarter, Market } from './model.js';

export type BandKey = 'mega' | 'xlarge' | 'large' | 'mid' | 'small';
export const BAND_KEYS: readonly BandKey[] = ['mega', 'xlarge', 'large', 'mid', 'small'];

/** A fiscal quarter, e.g. `2025Q3` (fiscal year and quarter of the fiscal year). */
export interface QuarterRef {
  fiscalYear: number;
  fiscalQuarter: FiscalQuarter;
  periodEnd: string;
  /** The latest disclosure date among the filings this figure was derived from. */
  disclosedOn: string;
}

/** Inputs of the V3 formula for one stock, as of one date. */
export interface V3Inputs {
  /** TTM net income (controlling) in 100-million-won units; US converted at `usdKrw`. */
  ttmNiEok: number;
  /** TTM net income vs TTM four quarters earlier, percent. */
  yoy: number;
  /** Supply/demand score, percent. */
  supplyPct: number;
  /** Latest discrete quarter net income vs the same quarter a year earlier, as a fraction. */
  momentum: number;
  /** Won per dollar used for a US stock's ttmNiEok; null for KR. */
  usdKrw: number | null;
}

export interface V3Result {
  score: number;
  expectedReturn: number;
  gapPct: number;
}

/** One stock's row in the rankings (the published columns plus market, currency and band). */
export interface RankingRow {
  ticker: string;
  name: string;
  /** English name where known (KR: the source's; US: the name); null when unknown. */
  nameEn?: string | null;
  market: Market;
  currency: 'KRW' | 'USD';
  band: BandKey;
  marketCap: number;
  currentPrice: number;
  targetPrice: number;
  gapPct: number;
  score: number;
  yoy: number;
  ttmNiEok: number;
  supplyPct: number;
  momentumPct: number;
}

export interface Formula {
  score: string;
  expectedReturn: string;
  targetPrice: string;
  gap: string;
  backtest: string;
}

export type Grade = 'A+' | 'A' | 'B+' | 'B' | 'C+' | 'C' | 'D';

/** A number that may be undefined for a stated reason. */
export interface Measured {
  value: number | null;
  /** Why `value` is null; absent when it is a number. */
  reason?: string;
}

export interface SnapshotMetric extends Measured {
  /** `x` (multiple), `%`, `days`, `KRW`, `USD`. */
  unit: string;
  /** The latest fiscal quarter the figure uses, e.g. `2025Q3`; null for none. */
  referenceQuarter: string | null;
  /** Disclosure date of that quarter's filing (as used point in time). */
  disclosedOn: string | null;
  /** Date of the closing price used; null when no price enters the metric. */
  priceDate: string | null;
  /**
   * How a per-share figure was taken where there is more than one way (EPS: `reported basic EPS`
   * or `net income / shares ...`, docs/calculations.md); absent elsewhere.
   */
  basis?: string;
  /**
   * True where a later version of a filing the figure uses (an amendment, or a period filed
   * again) changed it: the figure is the latest version's, `firstKnown` the figure as the first
   * versions gave it (docs/calculations.md, "Amendments and restated figures"). Absent elsewhere.
   */
  restated?: true;
  /** The figure from the first-known version of each filing, and the date that figure became known; only beside `restated`. */
  firstKnown?: { value: number | null; disclosedOn: string | null };
}

export type SnapshotMetricKey =
  | 'per'
  | 'pbr'
  | 'evEbit'
  | 'roe'
  | 'roic'
  | 'operatingMargin'
  | 'revenueYoy'
  | 'epsYoy'
  | 'netDebtRatio'
  | 'interestCoverage'
  | 'currentRatio'
  | 'operatingCashFlow'
  | 'fcfYield'
  | 'cfToNi'
  | 'ccc'
  | 'eps'
  | 'dividendPerShare'
  | 'dividendPerShareFy'
  | 'dividendYield';

/** Snapshot metrics in their six published groups. */
export interface SnapshotGroups {
  valuation: { per: SnapshotMetric; pbr: SnapshotMetric; evEbit: SnapshotMetric };
  profitability: { roe: SnapshotMetric; roic: SnapshotMetric; operatingMargin: SnapshotMetric };
  growth: { revenueYoy: SnapshotMetric; epsYoy: SnapshotMetric };
  stability: { netDebtRatio: SnapshotMetric; interestCoverage: SnapshotMetric; currentRatio: SnapshotMetric };
  cashGeneration: { operatingCashFlow: SnapshotMetric; fcfYield: SnapshotMetric };
  earningsQuality: { cfToNi: SnapshotMetric; ccc: SnapshotMetric };
  /** Per-share figures: TTM EPS, dividends per share (TTM and the last fiscal year) and the dividend yield. */
  perShare: { eps: SnapshotMetric; dividendPerShare: SnapshotMetric; dividendPerShareFy: SnapshotMetric; dividendYield: SnapshotMetric };
}

export const PERCENTILE_METRICS = [
  'per',
  'pbr',
  'psr',
  'evEbit',
  'roe',
  'roic',
  'operatingMargin',
  'netMargin',
  'revenueYoy',
  'operatingIncomeYoy',
  'epsYoy',
  'netDebtRatio',
  'interestCoverage',
  'currentRatio',
  'fcfYield',
  'cfToNi',
  'ccc',
] as const;
export type PercentileMetricKey = (typeof PERCENTILE_METRICS)[number];

export interface PercentileEntry extends Measured {
  metric: PercentileMetricKey;
  unit: string;
  /** 0..100 within the cohort's stocks that have a value; null when this stock has none. */
  percentile: number | null;
  /** Number of stocks in the cohort with a value for this metric. */
  cohortSize: number;
}

export type BandType = 'per' | 'pbr' | 'psr';

export interface ValuationBandYear {
  year: number;
  days: number;
  min: number;
  median: number;
  max: number;
}

export interface ValuationBandResult {
  type: BandType;
  from: string;
  to: string;
  daysUsed: number;
  /** Days in the window whose denominator was missing or not positive. */
  daysExcluded: number;
  p5: number | null;
  median: number | null;
  p95: number | null;
  min: number | null;
  max: number | null;
  current: { date: string; value: number | null; percentile: number | null; reason?: string } | null;
  years: ValuationBandYear[];
  reason?: string;
}

export type Interval = 'day' | 'week' | 'month';

export interface PriceBar {
  /** The last trading day in the bar. */
  date: string;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  tradedValue: number;
}

export interface TradeTotalRow {
  month: string;
  exports: number;
  imports: number;
  balance: number;
  exportsYoyPct: number | null;
  importsYoyPct: number | null;
}

export interface SectorSeries {
  rank: number;
  sector: string;
  /** Exports summed over the 24 months ending at the window's last month, USD. */
  cumulative24m: number;
  series: { month: string; exports: number; yoyPct: number | null }[];
}
