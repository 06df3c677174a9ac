// The screener: every served stock filtered by market, sector, market-cap band and bounds on its
// computed figures, sorted by any of them. The figures are the ones the per-stock tools serve
// (computed once per refresh); this module only filters and orders them.
//
// Built for ~8,700 stocks and many requests per refresh: a stock's numeric fields sit in one
// Float64Array (NaN for null); per served dataset (ScreenIndex) each bounded field's stocks are
// held in ascending order and each sort order is made once, so a screen sorts nothing and
// compares no stock's value: its bounds are ranges found by binary search, intersected as bit
// sets, and its page is read along the held order.

import type { Market } from './model.js';
import { PER_SHARE_DEFINITIONS, PERCENTILE_METRIC_DEFINITIONS } from './metrics.js';
import { PERCENTILE_METRICS, type BandKey, type Grade } from './results.js';
import { GRADE_BOUNDS } from './score.js';
import { sectorKo } from './sectors.js';

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
  'eps',
  'dividendPerShare',
  'dividendPerShareFy',
  'dividendYield',
] as const;
export type ScreenNumberField = (typeof SCREEN_NUMBER_FIELDS)[number];

/** Text fields every row carries; they filter by market, sectors, bands and exchanges, never by bounds. */
export const SCREEN_TEXT_FIELDS = ['code', 'market', 'name', 'nameEn', 'sector', 'sectorKo', 'band', 'currency'] as const;
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
  ...(['eps', 'dividendPerShare', 'dividendPerShareFy', 'dividendYield'] as const).map(
    (field): ScreenFieldDefinition => ({ field, unit: PER_SHARE_DEFINITIONS[field].unit, definition: PER_SHARE_DEFINITIONS[field].definition, sameAs: `get_stock_snapshot perShare.${field}.value` }),
  ),
];

/** One stock as the screener holds it. */
export interface ScreenStock {
  code: string;
  market: Market;
  name: string;
  nameEn: string | null;
  sector: string;
  /** KOSPI / KOSDAQ for KR, NYSE / NASDAQ / ... for US (Security.exchange). */
  exchange: string;
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
  /** Empty: every exchange. */
  exchanges: readonly string[];
  bounds: readonly ScreenBound[];
  sort: ScreenSort;
  limit: number;
  offset: number;
}

export interface ScreenResult {
  rows: ScreenStock[];
  /** Each row's index in the index's stocks. */
  at: number[];
  /** Stocks that pass every filter (all pages). */
  totalCount: number;
  /**
   * Per bounded field: of the stocks in the requested markets, sectors, bands and exchanges, how many have
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

/** A set of stocks, one bit a stock (bit i & 31 of word i >>> 5); Int32 words, which the compiler keeps as integers (Uint32 words above 2^31 are read as doubles: ~1.5x slower). */
type StockSet = Int32Array;

/** A field's stocks that have a value, ascending by it: the stocks a bound keeps are one range of it. */
interface Ascending {
  /** Stock indices ascending by value (ties in any order: a bound keeps all of them or none). */
  stocks: Int32Array;
  /** Their values in the same order, which a bound's ends are searched in. */
  values: Float64Array;
  /** The stocks that have a value. */
  valued: StockSet;
  /** How many KR (0) and US (1) stocks have none. */
  nullsByMarket: readonly [number, number];
}

/** First position in ascending `values` whose value is >= x (or > x when `after`). */
function searchValues(values: Float64Array, x: number, after: boolean): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const v = values[mid] as number;
    if (v < x || (after && v === x)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Set bits in a 32-bit word. */
function bitCount(w: number): number {
  w -= (w >>> 1) & 0x55555555;
  w = (w & 0x33333333) + ((w >>> 2) & 0x33333333);
  return (Math.imul((w + (w >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) as number;
}

/**
 * The universe as a screen reads it, made once per served dataset: the stocks; their fields as
 * columns (one Float64Array per numeric field, and small integer ids for market, sector, band
 * and exchange); the stocks of each market, sector, band and exchange as bit sets; per bounded
 * field, its valued stocks in ascending order (and as a bit set), so a bound's stocks are one
 * range found by binary search and no stock's value is compared at all; and each sort order.
 * Both kinds of order are made the first time they are asked for and kept.
 */
export class ScreenIndex {
  private readonly orders = new Map<string, Order>();
  private readonly ascending = new Map<string, Ascending>();
  /** Per numeric field (SCREEN_COLUMN), every stock's value; NaN for null. */
  readonly columns: readonly Float64Array[];
  /** 0 KR, 1 US. */
  readonly marketIds: Uint8Array;
  readonly sectorIds: Int32Array;
  readonly sectorNames: ReadonlyMap<string, number>;
  readonly exchangeIds: Int32Array;
  readonly exchangeNames: ReadonlyMap<string, number>;
  /** Index in BAND_ORDER, or BAND_ORDER.length for no band. */
  readonly bandIds: Uint8Array;
  /** Every stock's grade rank (GRADE_RANK), NaN without a grade. */
  readonly grades: Float64Array;
  /** Words of a StockSet. */
  private readonly words: number;
  /** The stocks of no market, KR, US and both: index (KR ? 1 : 0) | (US ? 2 : 0). */
  private readonly marketSets: readonly [StockSet, StockSet, StockSet, StockSet];
  /** The stocks of each sector, band (BAND_ORDER, then no band) and exchange, by id. */
  readonly sectorSets: readonly StockSet[];
  readonly bandSets: readonly StockSet[];
  readonly exchangeSets: readonly StockSet[];
  /**
   * Scratch sets a screen works in (`screen` is synchronous, so one screen at a time uses
   * them): the chosen stocks, those passing so far, one bound's, a union.
   */
  readonly scratch: readonly [StockSet, StockSet, StockSet, StockSet];

  constructor(readonly stocks: readonly ScreenStock[]) {
    const n = stocks.length;
    const columns = SCREEN_NUMBER_FIELDS.map(() => new Float64Array(n));
    for (let i = 0; i < n; i++) {
      const values = (stocks[i] as ScreenStock).values;
      for (let c = 0; c < columns.length; c++) (columns[c] as Float64Array)[i] = values[c] as number;
    }
    this.columns = columns;
    this.marketIds = Uint8Array.from(stocks, (s) => (s.market === 'KR' ? 0 : 1));
    const ids = (of: (s: ScreenStock) => string): { ids: Int32Array; names: Map<string, number> } => {
      const names = new Map<string, number>();
      const out = new Int32Array(n);
      stocks.forEach((s, i) => {
        let id = names.get(of(s));
        if (id === undefined) names.set(of(s), (id = names.size));
        out[i] = id;
      });
      return { ids: out, names };
    };
    ({ ids: this.sectorIds, names: this.sectorNames } = ids((s) => s.sector));
    ({ ids: this.exchangeIds, names: this.exchangeNames } = ids((s) => s.exchange));
    this.bandIds = Uint8Array.from(stocks, (s) => (s.band === null ? BAND_ORDER.length : BAND_ORDER.indexOf(s.band)));
    this.grades = Float64Array.from(stocks, (s) => (s.grade === null ? NaN : GRADE_RANK[s.grade]));
    this.words = Math.ceil(n / 32);
    const kr = new Int32Array(this.words);
    const us = new Int32Array(this.words);
    for (let i = 0; i < n; i++) {
      const set = this.marketIds[i] === 0 ? kr : us;
      set[i >>> 5] = ((set[i >>> 5] as number) | (1 << (i & 31)));
    }
    this.marketSets = [new Int32Array(this.words), kr, us, kr.map((w, k) => w | (us[k] as number))];
    const setsOf = (ids: ArrayLike<number>, count: number): StockSet[] => {
      const sets = Array.from({ length: count }, () => new Int32Array(this.words));
      for (let i = 0; i < n; i++) {
        const set = sets[ids[i] as number] as StockSet;
        set[i >>> 5] = (set[i >>> 5] as number) | (1 << (i & 31));
      }
      return sets;
    };
    this.sectorSets = setsOf(this.sectorIds, this.sectorNames.size);
    this.bandSets = setsOf(this.bandIds, BAND_ORDER.length + 1);
    this.exchangeSets = setsOf(this.exchangeIds, this.exchangeNames.size);
    this.scratch = [new Int32Array(this.words), new Int32Array(this.words), new Int32Array(this.words), new Int32Array(this.words)];
  }

  /** The column of a field a bound or a sort reads. */
  column(field: ScreenNumberField | 'grade'): Float64Array {
    return field === 'grade' ? this.grades : (this.columns[SCREEN_COLUMN[field]] as Float64Array);
  }

  /** The stocks of KR, US or both. */
  marketSet(markets: readonly Market[]): StockSet {
    return this.marketSets[(markets.includes('KR') ? 1 : 0) | (markets.includes('US') ? 2 : 0)] as StockSet;
  }

  /** A field's valued stocks in ascending order (made on first use, then kept). */
  ascendingOf(field: ScreenNumberField | 'grade'): Ascending {
    let asc = this.ascending.get(field);
    if (asc === undefined) {
      const column = this.column(field);
      const valued: number[] = [];
      const nullsByMarket: [number, number] = [0, 0];
      for (let i = 0; i < column.length; i++) {
        if (Number.isNaN(column[i] as number)) nullsByMarket[this.marketIds[i] as 0 | 1]++;
        else valued.push(i);
      }
      const stocks = Int32Array.from(valued).sort((a, b) => (column[a] as number) - (column[b] as number));
      const set = new Int32Array(this.words);
      for (const i of valued) set[i >>> 5] = ((set[i >>> 5] as number) | (1 << (i & 31)));
      asc = { stocks, values: Float64Array.from(stocks, (i) => column[i] as number), valued: set, nullsByMarket };
      this.ascending.set(field, asc);
    }
    return asc;
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
 * Keeps in `chosen` only the stocks of the sets of `ids` (ids of no set: none of them); nothing
 * when no id is given. `union` is scratch.
 */
function keepOnly(chosen: StockSet, sets: readonly StockSet[], ids: readonly (number | undefined)[], union: StockSet): void {
  if (ids.length === 0) return;
  union.fill(0);
  for (const id of ids) {
    const set = id === undefined ? undefined : sets[id];
    if (set === undefined) continue;
    for (let w = 0; w < union.length; w++) union[w] = (union[w] as number) | (set[w] as number);
  }
  for (let w = 0; w < chosen.length; w++) chosen[w] = (chosen[w] as number) & (union[w] as number);
}

/**
 * The screen: stocks of `markets` (and `sectors`, `bands`, `exchanges` when given) whose every
 * bounded field has a value within [min, max]; in `sort` order (stocks lacking that value last
 * in either order, ties by code then market); rows [offset, offset + limit). Pure; bounds are
 * assumed valid (numeric fields, min <= max) as the tool checks them.
 *
 * Sets of stocks are bit sets, combined a word at a time: the chosen stocks (unions and
 * intersections of the held market, sector, band and exchange sets); per bound, the chosen
 * stocks without a value (held per market; else the chosen less the field's valued set,
 * counted) and the bound's stocks (a range of the field's ascending order, or the valued
 * stocks less what lies outside the range, whichever is shorter to walk), ANDed into those
 * passing. The page is then read along the sort order until full.
 */
export function screen(index: ScreenIndex, query: ScreenQuery): ScreenResult {
  const n = index.stocks.length;
  const [chosen, passing, bound, union] = index.scratch;
  const words = chosen.length;
  const byMarket = query.sectors.length === 0 && query.bands.length === 0 && query.exchanges.length === 0;
  chosen.set(index.marketSet(query.markets));
  keepOnly(chosen, index.sectorSets, query.sectors.map((s) => index.sectorNames.get(s)), union);
  keepOnly(chosen, index.bandSets, query.bands.map((b) => BAND_ORDER.indexOf(b)), union);
  keepOnly(chosen, index.exchangeSets, query.exchanges.map((e) => index.exchangeNames.get(e)), union);
  passing.set(chosen);
  const droppedForNull: Partial<Record<ScreenNumberField | 'grade', number>> = {};
  for (const b of query.bounds) {
    const asc = index.ascendingOf(b.field);
    // Stocks chosen (whatever the other bounds say) that have no value for the field: held per
    // market, else counted.
    let nulls = 0;
    if (byMarket) {
      if (query.markets.includes('KR')) nulls += asc.nullsByMarket[0];
      if (query.markets.includes('US')) nulls += asc.nullsByMarket[1];
    } else {
      const valued = asc.valued;
      for (let w = 0; w < words; w++) nulls += bitCount((chosen[w] as number) & ~(valued[w] as number));
    }
    droppedForNull[b.field] = Math.max(droppedForNull[b.field] ?? 0, nulls);
    // The bound's stocks: positions [from, to) of the ascending order.
    const { stocks, values } = asc;
    const from = b.min === undefined ? 0 : searchValues(values, b.min, false);
    const to = b.max === undefined ? values.length : searchValues(values, b.max, true);
    if (to - from <= values.length - (to - from)) {
      bound.fill(0);
      for (let k = from; k < to; k++) {
        const i = stocks[k] as number;
        bound[i >>> 5] = ((bound[i >>> 5] as number) | (1 << (i & 31)));
      }
    } else {
      bound.set(asc.valued);
      for (let k = 0; k < from; k++) {
        const i = stocks[k] as number;
        bound[i >>> 5] = ((bound[i >>> 5] as number) & ~(1 << (i & 31)));
      }
      for (let k = to; k < values.length; k++) {
        const i = stocks[k] as number;
        bound[i >>> 5] = ((bound[i >>> 5] as number) & ~(1 << (i & 31)));
      }
    }
    for (let w = 0; w < words; w++) passing[w] = ((passing[w] as number) & (bound[w] as number));
  }
  let totalCount = 0;
  for (let w = 0; w < words; w++) totalCount += bitCount(passing[w] as number);
  // The page: along the sort order, one bit a stock, until it is full.
  const offset = Math.max(0, query.offset);
  const end = offset + Math.max(0, query.limit);
  const rows: ScreenStock[] = [];
  const at: number[] = [];
  if (offset < totalCount && end > offset) {
    const order = index.order(query.sort);
    let seen = 0;
    for (let j = 0; j < n && seen < end; j++) {
      const i = order[j] as number;
      if ((((passing[i >>> 5] as number) >>> (i & 31)) & 1) === 0) continue;
      if (seen >= offset) {
        rows.push(index.stocks[i] as ScreenStock);
        at.push(i);
      }
      seen++;
    }
  }
  return { rows, at, totalCount, droppedForNull };
}

/** A row cell: text, a number, or null where the stock has no value. */
export type ScreenCell = string | number | null;

/** Stock `s`'s row: its identity (SCREEN_TEXT_FIELDS), then `fields`, as an object or as an array in that order. */
export function screenRowOf(s: ScreenStock, fields: readonly ScreenField[], shape: 'objects' | 'arrays'): Record<string, ScreenCell> | ScreenCell[] {
  const cells: ScreenCell[] = [s.code, s.market, s.name, s.nameEn, s.sector, sectorKo(s.sector), s.band, s.currency];
  for (const f of fields) cells.push(f === 'grade' ? s.grade : screenValue(s, f));
  if (shape === 'arrays') return cells;
  const row: Record<string, ScreenCell> = {};
  SCREEN_TEXT_FIELDS.forEach((key, c) => (row[key] = cells[c] as ScreenCell));
  fields.forEach((key, c) => (row[key] = cells[SCREEN_TEXT_FIELDS.length + c] as ScreenCell));
  return row;
}

/**
 * A screen's page of rows: the stocks `at` (indices into the index's stocks, in page order), each
 * with its identity and `fields`, as objects or arrays. Data, not text: `toJSON` makes the rows;
 * the answer's writer (src/wire/json-bytes.ts) writes them from row text it keeps per index, the
 * same JSON.
 */
export class ScreenRows {
  constructor(
    readonly index: ScreenIndex,
    readonly at: readonly number[],
    readonly fields: readonly ScreenField[],
    readonly shape: 'objects' | 'arrays',
  ) {}

  get length(): number {
    return this.at.length;
  }

  toJSON(): (Record<string, ScreenCell> | ScreenCell[])[] {
    return this.at.map((i) => screenRowOf(this.index.stocks[i] as ScreenStock, this.fields, this.shape));
  }
}
