// The REST responses the dashboard reads, as the tools in src/tools/*.ts define them. The
// pieces the domain already declares (rows, bars, percentile entries, their key lists) are
// imported from src/domain, which has no imports of its own, so the page shares one
// definition with the server; the response envelopes are written out here.

import type { Currency, Market } from '../../src/domain/model.js';
import type { BandKey, BandType, Interval, PercentileEntry, PercentileMetricKey, PriceBar, RankingRow, ValuationBandResult } from '../../src/domain/results.js';

export { BAND_KEYS, PERCENTILE_METRICS } from '../../src/domain/results.js';
export { SCREEN_NUMBER_FIELDS } from '../../src/domain/screen.js';
export type { BandKey, BandType, Currency, Interval, Market, PercentileEntry, PercentileMetricKey, PriceBar, RankingRow };

interface Meta {
  updatedAt: string;
  source: string;
  /** Present when the answer was asked as of a past day. */
  asOf?: AsOfInfo;
}

interface StockIdentity {
  code: string;
  market: Market;
  name: string;
  /** English name where known (KR); US names are English. */
  nameEn?: string | null;
  currency: Currency;
}

/** One match of search_stocks. */
export interface StockMatch {
  code: string;
  market: Market;
  name: string;
  nameEn?: string | null;
  exchange: string;
  sector: string;
  sectorKo?: string | null;
  band: BandKey | null;
  currency: Currency;
  matchedOn: 'code' | 'name' | 'nameEn' | 'initials';
  matchType: 'exact' | 'prefix' | 'contains';
}

export interface StockSearch extends Meta {
  q: string;
  market: Market | null;
  matches: StockMatch[];
  totalCount: number;
}

export interface Rankings extends Meta {
  market: string;
  bands: string[];
  rows: RankingRow[];
  totalCount: number;
  formula: { score: string; expectedReturn: string; targetPrice: string; gap: string; backtest: string };
  disclaimer: string;
}

export type Grade = 'A+' | 'A' | 'B+' | 'B' | 'C+' | 'C' | 'D';

export interface StockScore extends StockIdentity, Meta {
  score: number | null;
  grade: Grade | null;
  v3Score: number | null;
  currentPrice: number | null;
  targetPrice: number | null;
  gapPct: number | null;
  marketCap: number | null;
  band: BandKey | null;
  priceDate: string | null;
  referenceQuarter: string | null;
  disclosedOn: string | null;
  inputs: { yoy: number; ttmNiEok: number; supplyPct: number; momentumPct: number; usdKrw: number | null } | null;
  cohortSize: number;
  reason?: string;
}

export interface SnapshotMetric {
  value: number | null;
  reason?: string;
  unit: string;
  referenceQuarter: string | null;
  disclosedOn: string | null;
  priceDate: string | null;
}

/** The snapshot's groups and their metrics, in the spec's order. */
export const SNAPSHOT_GROUPS = {
  valuation: ['per', 'pbr', 'evEbit'],
  profitability: ['roe', 'roic', 'operatingMargin'],
  growth: ['revenueYoy', 'epsYoy'],
  stability: ['netDebtRatio', 'interestCoverage', 'currentRatio'],
  cashGeneration: ['operatingCashFlow', 'fcfYield'],
  earningsQuality: ['cfToNi', 'ccc'],
  perShare: ['eps', 'dividendPerShare', 'dividendPerShareFy', 'dividendYield'],
} as const;
export type SnapshotGroup = keyof typeof SNAPSHOT_GROUPS;
export type SnapshotMetricKey = (typeof SNAPSHOT_GROUPS)[SnapshotGroup][number];

export type StockSnapshot = StockIdentity &
  Meta & {
    price: { date: string; close: number; marketCap: number } | null;
  } & { [G in SnapshotGroup]: Record<(typeof SNAPSHOT_GROUPS)[G][number], SnapshotMetric> };

export interface ValuationBand extends ValuationBandResult, StockIdentity, Meta {}

export type Cohort = 'sector' | 'market';

export interface SectorPercentile extends StockIdentity, Meta {
  cohort: Cohort;
  cohortName: string;
  /** The sector's Korean name; null for the market cohort and SEC industry titles. */
  cohortNameKo?: string | null;
  cohortMembers: number;
  metrics: PercentileEntry[];
}

export interface PriceHistory extends StockIdentity, Meta {
  interval: Interval;
  count: number;
  adjusted: boolean;
  adjustedBy: 'service' | 'source' | null;
  /** Split events within the bars: divided out when `adjusted`. */
  splits: { date: string; factor: number }[];
  bars: PriceBar[];
}

export interface TradeTotal extends Meta {
  from: string;
  to: string;
  unit: 'USD';
  rows: { month: string; exports: number; imports: number; balance: number; exportsYoyPct: number | null; importsYoyPct: number | null }[];
}

export interface SectorExports extends Meta {
  from: string;
  to: string;
  top: number;
  unit: 'USD';
  basis: string;
  sectors: { rank: number; sector: string; sectorKo?: string | null; cumulative24m: number; series: { month: string; exports: number; yoyPct: number | null }[] }[];
}

export interface Health {
  valid: boolean;
  source: string;
  plan: string;
  keyPrefix: string;
  callsToday: number;
  dailyQuota: number;
  dataUpdatedAt: string;
  dataAsOf: string;
  /** The earliest day an as-of answer can be asked for (the first with prices and a TTM). */
  asOf?: { earliest: string | null };
}

/** What an answer asked as of a past day says of the day it answers for. */
export interface AsOfInfo {
  date: string;
  lastSession: string | null;
  lastDisclosure: string | null;
}

/** One row of screen_stocks in object form: the identity, then the asked fields. */
export interface ScreenRow {
  code: string;
  market: Market;
  name: string;
  nameEn?: string | null;
  sector: string;
  sectorKo?: string | null;
  band: BandKey | null;
  currency: Currency;
  [field: string]: string | number | null | undefined;
}

export interface ScreenAnswer extends Meta {
  market: string;
  fields: string[];
  units: Record<string, string>;
  count: number;
  totalCount: number;
  droppedForNull: Record<string, number>;
  rows: ScreenRow[];
}
