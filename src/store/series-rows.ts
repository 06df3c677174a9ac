// One stock's bars as columns (src/domain/series.ts) from rows of [day, ...values]: the one
// conversion the store's own read and its reader threads (./series-readers.ts) share.

import type { BarSeries, MarketCapSeries } from '../domain/series.js';

/**
 * What each kind of read carries after the day, in order: a column of `bars` or an expression
 * over its columns (SQL, the same in SQLite and PostgreSQL), and the series field each fills.
 */
export const COLUMNS_OF = {
  bars: [
    { column: 'open', field: 'open' },
    { column: 'high', field: 'high' },
    { column: 'low', field: 'low' },
    { column: 'close', field: 'close' },
    { column: 'volume', field: 'volume' },
    { column: 'traded_value', field: 'tradedValue' },
    { column: 'shares', field: 'shares' },
  ],
  caps: [{ column: 'close * shares', field: 'marketCap' }],
} as const;

export type SeriesKind = keyof typeof COLUMNS_OF;

export interface SeriesColumns {
  days: Int32Array;
  /** One per `COLUMNS_OF[kind]`, in its order. */
  values: Float64Array[];
}

/**
 * Rows of [day, ...COLUMNS_OF[kind]] as columns, ascending: `reversed` when the rows came newest
 * first (a read of the last N bars). `dayOf` turns the row's day into its number.
 */
export function columnsOfRows(kind: SeriesKind, rows: readonly (readonly unknown[])[], reversed: boolean, dayOf: (day: unknown) => number): SeriesColumns {
  const n = rows.length;
  const days = new Int32Array(n);
  const values = COLUMNS_OF[kind].map(() => new Float64Array(n));
  for (let k = 0; k < n; k++) {
    const row = rows[reversed ? n - 1 - k : k] as readonly unknown[];
    days[k] = dayOf(row[0]);
    for (let c = 0; c < values.length; c++) (values[c] as Float64Array)[k] = Number(row[c + 1]);
  }
  return { days, values };
}

/** The series object of a kind's columns (fields in `COLUMNS_OF` order after `days`). */
export function seriesOf(kind: 'bars', columns: SeriesColumns): BarSeries;
export function seriesOf(kind: 'caps', columns: SeriesColumns): MarketCapSeries;
export function seriesOf(kind: SeriesKind, columns: SeriesColumns): BarSeries | MarketCapSeries;
export function seriesOf(kind: SeriesKind, { days, values }: SeriesColumns): BarSeries | MarketCapSeries {
  const series: Record<string, Int32Array | Float64Array> = { days };
  COLUMNS_OF[kind].forEach(({ field }, i) => (series[field] = values[i] as Float64Array));
  return series as unknown as BarSeries | MarketCapSeries;
}
