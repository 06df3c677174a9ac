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

/** Text fields every row carries; they filter by market, sectors and bands, never by bounds. */
export const SCREEN_TEXT_FIELDS = ['code', 'market', 'name', 'nameEn', 'sector', 'band', 'currency'] as const;
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
  { field: 'grade', unit: 'grade', definition: `grade of score: ${[...GRADE_BOUNDS.map((g) => `${g.grade} >= ${g.min}`), 'D below'].join(', ')}; bounds and order by grade (min B+ keeps A+, A and B+)`, sameAs: 'get_stock_score grade' },
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

/** Both ends inclusive; a stock whose value is null fails the bound. A grade bound is in grade ranks (GRADE_RANK). */
export interface ScreenBound {
  field: ScreenNumberField | 'grade';
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
  droppedForNull: Partial<Record<ScreenNumberField | 'grade', number>>;
}

/** Grades in order, as numbers a bound and a sort compare: D 0 .. A+ 6. */
export const GRADE_RANK: Readonly<Record<Grade, number>> = { 'A+': 6, A: 5, 'B+': 4, B: 3, 'C+': 2, C: 1, D: 0 };

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Ties (and nulls among themselves) by code, then market (KR before US): one order on every host. */
function tieBreak(a: ScreenStock, b: ScreenStock): number {
  return byCodeUnit(a.code, b.code) || byCodeUnit(a.market, b.market);
}

/** Stocks in one sort order, as indices into the index's stocks. */
type Order = Int32Array;

/**
 * The universe as a screen reads it: the stocks; their fields as columns (one Float64Array per
 * numeric field, and small integer ids for market, sector and band), which a pass reads ~5x
 * faster than each stock's own array; and each sort order, made the first time it is asked for
 * (one sort of the universe per served dataset and order), so a screen is one pass along an
 * order with no sort of its own.
 */
export class ScreenIndex {
  private readonly orders = new Map<string, Order>();
  /** Per numeric field (SCREEN_COLUMN), every stock's value; NaN for null. */
  readonly columns: readonly Float64Array[];
  /** 0 KR, 1 US. */
  readonly marketIds: Uint8Array;
  readonly sectorIds: Int32Array;
  readonly sectorNames: ReadonlyMap<string, number>;
  /** Index in BAND_ORDER, or BAND_ORDER.length for no band. */
  readonly bandIds: Uint8Array;
  /** A column of zeros: the bound every stock passes, where a screen has fewer bounds than a pass reads. */
  readonly zeros: Float64Array;
  /** Every stock's grade rank (GRADE_RANK), NaN without a grade. */
  readonly grades: Float64Array;

  constructor(readonly stocks: readonly ScreenStock[]) {
    const n = stocks.length;
    const columns = SCREEN_NUMBER_FIELDS.map(() => new Float64Array(n));
    for (let i = 0; i < n; i++) {
      const values = (stocks[i] as ScreenStock).values;
      for (let c = 0; c < columns.length; c++) (columns[c] as Float64Array)[i] = values[c] as number;
    }
    this.columns = columns;
    this.marketIds = Uint8Array.from(stocks, (s) => (s.market === 'KR' ? 0 : 1));
    const sectors = new Map<string, number>();
    this.sectorIds = new Int32Array(n);
    stocks.forEach((s, i) => {
      let id = sectors.get(s.sector);
      if (id === undefined) sectors.set(s.sector, (id = sectors.size));
      this.sectorIds[i] = id;
    });
    this.sectorNames = sectors;
    this.bandIds = Uint8Array.from(stocks, (s) => (s.band === null ? BAND_ORDER.length : BAND_ORDER.indexOf(s.band)));
    this.zeros = new Float64Array(n);
    this.grades = Float64Array.from(stocks, (s) => (s.grade === null ? NaN : GRADE_RANK[s.grade]));
  }

  /** The column of a field a bound or a sort reads. */
  column(field: ScreenNumberField | 'grade'): Float64Array {
    return field === 'grade' ? this.grades : (this.columns[SCREEN_COLUMN[field]] as Float64Array);
  }

  /** Every stock in `sort` order: those without a value last in either order; ties by code, then market. */
  order(sort: ScreenSort): Order {
    const name = `${sort.field}:${sort.order}`;
    let order = this.orders.get(name);
    if (order === undefined) {
      const sign = sort.order === 'asc' ? 1 : -1;
      const stocks = this.stocks;
      const keys = this.column(sort.field);
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

const BAND_ORDER: readonly BandKey[] = ['mega', 'xlarge', 'large', 'mid', 'small'];

/**
 * The screen: stocks of `markets` (and `sectors`, `bands` when given) whose every bounded field
 * has a value within [min, max]; in `sort` order (stocks lacking that value last in either
 * order, ties by code then market); rows [offset, offset + limit). Pure; bounds are assumed
 * valid (numeric fields, min <= max) as the tool checks them.
 */
export function screen(index: ScreenIndex, query: ScreenQuery): ScreenResult {
  // Which market, sector and band ids pass, as flags by id.
  const marketOk = Uint8Array.of(query.markets.includes('KR') ? 1 : 0, query.markets.includes('US') ? 1 : 0);
  const sectorOk = new Uint8Array(index.sectorNames.size).fill(query.sectors.length === 0 ? 1 : 0);
  for (const name of query.sectors) {
    const id = index.sectorNames.get(name);
    if (id !== undefined) sectorOk[id] = 1;
  }
  const bandOk = new Uint8Array(BAND_ORDER.length + 1).fill(query.bands.length === 0 ? 1 : 0);
  for (const band of query.bands) bandOk[BAND_ORDER.indexOf(band)] = 1;
  const n = index.stocks.length;
  const { marketIds, sectorIds, bandIds } = index;
  // Which stocks pass, by stock: found in the stocks' own order, where each column is read
  // front to back (in a sort order the reads jump about the columns and took ~5x as long).
  // The bounds four at a time, each four in one pass with their columns in locals (a loop over
  // the bounds inside the pass ran ~10x slower); missing places are filled with a bound every
  // value passes. Most screens have at most four bounds: one pass does all.
  const passed = new Uint8Array(n);
  const nulls = new Int32Array(Math.max(4, Math.ceil(query.bounds.length / 4) * 4));
  const passes = Math.max(1, Math.ceil(query.bounds.length / 4));
  const everyStock = query.markets.includes('KR') && query.markets.includes('US') && query.sectors.length === 0 && query.bands.length === 0;
  const pass = (k: number) => {
    const b = query.bounds[k];
    return b === undefined ? { column: index.zeros, min: -Infinity, max: Infinity } : { column: index.column(b.field), min: b.min ?? -Infinity, max: b.max ?? Infinity };
  };
  for (let i = 0; i < n; i++) {
    passed[i] = everyStock ? 1 : (marketOk[marketIds[i] as number] as number) & (sectorOk[sectorIds[i] as number] as number) & (bandOk[bandIds[i] as number] as number);
  }
  // Null counts are over the chosen stocks whatever the other bounds say, so a pass reads every
  // chosen stock; `chosen` keeps which those are once the first pass starts failing stocks.
  const chosen = passes > 1 ? passed.slice() : passed;
  let totalCount = 0;
  for (let p = 0; p < passes; p++) {
    const last = p === passes - 1;
    const b0 = pass(4 * p);
    const b1 = pass(4 * p + 1);
    const b2 = pass(4 * p + 2);
    const b3 = pass(4 * p + 3);
    const [c0, c1, c2, c3] = [b0.column, b1.column, b2.column, b3.column];
    const [lo0, lo1, lo2, lo3] = [b0.min, b1.min, b2.min, b3.min];
    const [hi0, hi1, hi2, hi3] = [b0.max, b1.max, b2.max, b3.max];
    let n0 = 0;
    let n1 = 0;
    let n2 = 0;
    let n3 = 0;
    for (let i = 0; i < n; i++) {
      if (chosen[i] === 0) continue;
      // A null counts for its field whatever the other bounds say, and fails the stock.
      let bad = 0;
      const v0 = c0[i] as number;
      if (v0 !== v0) {
        n0++;
        bad = 1;
      } else if (v0 < lo0 || v0 > hi0) bad = 1;
      const v1 = c1[i] as number;
      if (v1 !== v1) {
        n1++;
        bad = 1;
      } else if (v1 < lo1 || v1 > hi1) bad = 1;
      const v2 = c2[i] as number;
      if (v2 !== v2) {
        n2++;
        bad = 1;
      } else if (v2 < lo2 || v2 > hi2) bad = 1;
      const v3 = c3[i] as number;
      if (v3 !== v3) {
        n3++;
        bad = 1;
      } else if (v3 < lo3 || v3 > hi3) bad = 1;
      if (bad === 1) passed[i] = 0;
      else if (last && passed[i] === 1) totalCount++;
    }
    nulls.set([n0, n1, n2, n3], 4 * p);
  }
  // The page: along the sort order, reading one byte a stock, until it is full.
  const offset = Math.max(0, query.offset);
  const end = offset + Math.max(0, query.limit);
  const rows: ScreenStock[] = [];
  if (offset < totalCount && end > offset) {
    const order = index.order(query.sort);
    let seen = 0;
    for (let j = 0; j < n && seen < end; j++) {
      const i = order[j] as number;
      if (passed[i] === 0) continue;
      if (seen >= offset) rows.push(index.stocks[i] as ScreenStock);
      seen++;
    }
  }
  const droppedForNull: Partial<Record<ScreenNumberField | 'grade', number>> = {};
  query.bounds.forEach((b, k) => {
    droppedForNull[b.field] = Math.max(droppedForNull[b.field] ?? 0, nulls[k] as number);
  });
  return { rows, totalCount, droppedForNull };
}
