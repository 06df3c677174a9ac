// The screener: every served stock filtered by market, sector, market-cap band and bounds on its
// computed figures, sorted by any of them. The figures are the ones the per-stock tools serve
// (computed once per refresh); this module only filters and orders them.
//
// Built for ~8,700 stocks and many requests per refresh: a stock's numeric fields sit in one
// Float64Array (NaN for null), and each sort order of the universe is made once per served
// dataset (ScreenIndex), so a screen is one pass along an order, with no sort of its own.

import type { Market } from './model.js';
import { PERCENTILE_METRIC_DEFINITIONS } from './metrics.js';
import { PERCENTILE_METRICS, type BandKey, type Grade } from './results.js';
import { GRADE_BOUNDS } from './score.js';

/** The numeric fields a screen can bound, sort by and show, in column order. */
export const SCREEN_NUMBER_FIELDS = [
  ...PERCENTILE_METRICS,
  'v3Score',
  'expectedReturn',
  'gapPct',
  'score',
  'marketCap',
  'currentPrice',
  'priceChange1m',
  'priceChange3m',
  'priceChange12m',
] as const;
export type ScreenNumberField = (typeof SCREEN_NUMBER_FIELDS)[number];

/** Text fields every row carries; `grade` can also be asked for and sorted by (A+ highest), never bounded. */
export const SCREEN_TEXT_FIELDS = ['code', 'market', 'name', 'nameEn', 'sector', 'band', 'currency', 'grade'] as const;
export type ScreenTextField = (typeof SCREEN_TEXT_FIELDS)[number];

/** Fields a row can be asked to carry beyond its identity. */
export const SCREEN_FIELDS = [...SCREEN_NUMBER_FIELDS, 'grade'] as const;
export type ScreenField = (typeof SCREEN_FIELDS)[number];

/** The fields a row carries when none are asked for: the usual first look at a stock. */
export const DEFAULT_SCREEN_FIELDS: readonly ScreenField[] = ['marketCap', 'per', 'pbr', 'roe', 'operatingMargin', 'revenueYoy', 'score', 'grade', 'gapPct', 'priceChange3m'];

export interface ScreenFieldDefinition {
  field: ScreenField;
  /** `x`, `%`, `days`, `0..100`, `score`, `currency` (the stock's own: KRW or USD), `grade`. */
  unit: string;
  definition: string;
  /** The tool that serves the same value for one stock, and where in its answer. */
  sameAs: string;
}

const percentileField = (key: (typeof PERCENTILE_METRICS)[number]): ScreenFieldDefinition => ({
  field: key,
  unit: PERCENTILE_METRIC_DEFINITIONS[key].unit,
  definition: `${PERCENTILE_METRIC_DEFINITIONS[key].name}: ${PERCENTILE_METRIC_DEFINITIONS[key].definition}`,
  sameAs: `get_sector_percentile metrics[metric=${key}].value`,
});

const priceChange = (months: number): string =>
  `close change over ${months} month${months === 1 ? '' : 's'} in percent: the latest close vs the last close on or before the same day ${months} month${months === 1 ? '' : 's'} earlier, adjusted for stock splits in between (listed shares jumping by a near-integer factor while the close moves inversely); null without a bar that old`;

/** Every field with its unit, for the docs and the MCP resource. */
export const SCREEN_FIELD_DEFINITIONS: readonly ScreenFieldDefinition[] = [
  ...PERCENTILE_METRICS.map(percentileField),
  { field: 'v3Score', unit: 'score', definition: 'V3 formula score', sameAs: 'get_stock_score v3Score; get_rankings rows[].score' },
  { field: 'expectedReturn', unit: '%', definition: 'expectedReturn = -2.25 + 1.05 x sqrt(v3Score), percent over about a year (equal to gapPct)', sameAs: 'get_stock_score gapPct' },
  { field: 'gapPct', unit: '%', definition: 'upside versus the current price: gapPct = expectedReturn', sameAs: 'get_stock_score gapPct; get_rankings rows[].gapPct' },
  { field: 'score', unit: '0..100', definition: 'percentile of the V3 score within the stock market', sameAs: 'get_stock_score score' },
  { field: 'grade', unit: 'grade', definition: `grade of score: ${[...GRADE_BOUNDS.map((g) => `${g.grade} >= ${g.min}`), 'D below'].join(', ')}; sortable (A+ highest), not boundable`, sameAs: 'get_stock_score grade' },
  { field: 'marketCap', unit: 'currency', definition: 'close x listed shares, in the stock currency (KRW for KR, USD for US): bound one market at a time, or use bands', sameAs: 'get_stock_snapshot price.marketCap' },
  { field: 'currentPrice', unit: 'currency', definition: 'latest close, in the stock currency', sameAs: 'get_stock_snapshot price.close' },
  { field: 'priceChange1m', unit: '%', definition: priceChange(1), sameAs: 'get_price_history closes, split-adjusted' },
  { field: 'priceChange3m', unit: '%', definition: priceChange(3), sameAs: 'get_price_history closes, split-adjusted' },
  { field: 'priceChange12m', unit: '%', definition: priceChange(12), sameAs: 'get_price_history closes, split-adjusted' },
];

/** One stock as the screener holds it. */
export interface ScreenStock {
  code: string;
  market: Market;
  name: string;
  nameEn: string | null;
  sector: string;
  band: BandKey | null;
  currency: 'KRW' | 'USD';
  grade: Grade | null;
  /** SCREEN_NUMBER_FIELDS in order; NaN where the value is null. */
  values: Float64Array;
}

/** Column of each numeric field in `ScreenStock.values`. */
export const SCREEN_COLUMN: Readonly<Record<ScreenNumberField, number>> = Object.fromEntries(SCREEN_NUMBER_FIELDS.map((f, i) => [f, i])) as Record<ScreenNumberField, number>;

/** True for a field name a bound or a numeric sort may use. */
export const isScreenNumberField = (field: string): field is ScreenNumberField => Object.hasOwn(SCREEN_COLUMN, field);

/** The value of a numeric field, null where it has none. */
export function screenValue(stock: ScreenStock, field: ScreenNumberField): number | null {
  const v = stock.values[SCREEN_COLUMN[field]] as number;
  return Number.isNaN(v) ? null : v;
}

/** A stock's numeric fields as a column array (null -> NaN), for `ScreenStock.values`. */
export function screenValues(of: (field: ScreenNumberField) => number | null): Float64Array {
  const values = new Float64Array(SCREEN_NUMBER_FIELDS.length);
  SCREEN_NUMBER_FIELDS.forEach((field, i) => {
    const v = of(field);
    values[i] = v === null || !Number.isFinite(v) ? NaN : v;
  });
  return values;
}

/** Both ends inclusive; a stock whose value is null fails the bound. */
export interface ScreenBound {
  field: ScreenNumberField;
  min?: number | undefined;
  max?: number | undefined;
}

export interface ScreenSort {
  field: ScreenNumberField | 'grade';
  order: 'asc' | 'desc';
}

export interface ScreenQuery {
  markets: readonly Market[];
  /** Empty: every sector. */
  sectors: readonly string[];
  /** Empty: every band, and stocks without a price (no band) too. */
  bands: readonly BandKey[];
  bounds: readonly ScreenBound[];
  sort: ScreenSort;
  limit: number;
  offset: number;
}

export interface ScreenResult {
  rows: ScreenStock[];
  /** Stocks that pass every filter (all pages). */
  totalCount: number;
  /**
   * Per bounded field: of the stocks in the requested markets, sectors and bands, how many have
   * no value for it (and so fail its bound, whatever the other bounds say).
   */
  droppedForNull: Partial<Record<ScreenNumberField, number>>;
}

const GRADE_RANK: Readonly<Record<Grade, number>> = { 'A+': 6, A: 5, 'B+': 4, B: 3, 'C+': 2, C: 1, D: 0 };

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Ties (and nulls among themselves) by code, then market (KR before US): one order on every host. */
function tieBreak(a: ScreenStock, b: ScreenStock): number {
  return byCodeUnit(a.code, b.code) || byCodeUnit(a.market, b.market);
}

/** Stocks in one sort order, as indices into the index's stocks. */
type Order = Int32Array;

/**
 * The universe as a screen reads it: the stocks, and each sort order made the first time it is
 * asked for (a sort of the whole universe, once per served dataset and order), so a screen is one
 * pass along an order with no sort of its own.
 */
export class ScreenIndex {
  private readonly orders = new Map<string, Order>();

  constructor(readonly stocks: readonly ScreenStock[]) {}

  /** Every stock in `sort` order: those without a value last in either order; ties by code, then market. */
  order(sort: ScreenSort): Order {
    const name = `${sort.field}:${sort.order}`;
    let order = this.orders.get(name);
    if (order === undefined) {
      const sign = sort.order === 'asc' ? 1 : -1;
      const keys = new Float64Array(this.stocks.length);
      this.stocks.forEach((s, i) => {
        keys[i] = sort.field === 'grade' ? (s.grade === null ? NaN : GRADE_RANK[s.grade]) : (s.values[SCREEN_COLUMN[sort.field]] as number);
      });
      const stocks = this.stocks;
      order = Int32Array.from(stocks.keys()).sort((a, b) => {
        const x = keys[a] as number;
        const y = keys[b] as number;
        const xn = Number.isNaN(x);
        const yn = Number.isNaN(y);
        if (xn || yn) return xn && yn ? tieBreak(stocks[a] as ScreenStock, stocks[b] as ScreenStock) : xn ? 1 : -1;
        return x !== y ? sign * (x - y) : tieBreak(stocks[a] as ScreenStock, stocks[b] as ScreenStock);
      });
      this.orders.set(name, order);
    }
    return order;
  }
}

/**
 * The screen: stocks of `markets` (and `sectors`, `bands` when given) whose every bounded field
 * has a value within [min, max]; in `sort` order (stocks lacking that value last in either
 * order, ties by code then market); rows [offset, offset + limit). Pure; bounds are assumed
 * valid (numeric fields, min <= max) as the tool checks them.
 */
export function screen(index: ScreenIndex, query: ScreenQuery): ScreenResult {
  const markets = new Set(query.markets);
  const sectors = query.sectors.length > 0 ? new Set(query.sectors) : null;
  const bands = query.bands.length > 0 ? new Set<BandKey | null>(query.bands) : null;
  const bounds = query.bounds.map((b) => ({
    field: b.field,
    column: SCREEN_COLUMN[b.field],
    min: b.min ?? -Infinity,
    max: b.max ?? Infinity,
  }));
  const nulls = new Int32Array(bounds.length);
  const offset = Math.max(0, query.offset);
  const end = offset + Math.max(0, query.limit);
  const rows: ScreenStock[] = [];
  let totalCount = 0;
  // One pass along the order: count every stock that passes, keep those of the page.
  for (const i of index.order(query.sort)) {
    const stock = index.stocks[i] as ScreenStock;
    if (!markets.has(stock.market)) continue;
    if (sectors !== null && !sectors.has(stock.sector)) continue;
    if (bands !== null && !bands.has(stock.band)) continue;
    let ok = true;
    for (let k = 0; k < bounds.length; k++) {
      const b = bounds[k] as (typeof bounds)[number];
      const v = stock.values[b.column] as number;
      if (Number.isNaN(v)) {
        nulls[k] = (nulls[k] as number) + 1;
        ok = false;
      } else if (v < b.min || v > b.max) ok = false;
    }
    if (!ok) continue;
    if (totalCount >= offset && totalCount < end) rows.push(stock);
    totalCount++;
  }
  const droppedForNull: Partial<Record<ScreenNumberField, number>> = {};
  bounds.forEach((b, k) => {
    droppedForNull[b.field] = Math.max(droppedForNull[b.field] ?? 0, nulls[k] as number);
  });
  return { rows, totalCount, droppedForNull };
}
