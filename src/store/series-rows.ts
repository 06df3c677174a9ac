// What a read of one stock's bars as columns (src/domain/series.ts) carries, for the store's own
// read and its reader threads (./series-readers.ts), both from the packs of ./bar-packs.ts.

import type { BarSeries, MarketCapSeries } from '../domain/series.js';

/** A range of one stock's bars: dated in [from, to], the last `last` of them when given. */
export interface SeriesRange {
  from?: string;
  to: string;
  last?: number;
}

/**
 * What each kind of read carries after the day, in order, and the series field each fills:
 * `bars`, the columns of the bars table a pack holds (./bar-packs.ts); `caps`, the market cap,
 * close x shares multiplied from the pack's two columns.
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

/** The series object of a kind's columns (fields in `COLUMNS_OF` order after `days`). */
export function seriesOf(kind: 'bars', columns: SeriesColumns): BarSeries;
export function seriesOf(kind: 'caps', columns: SeriesColumns): MarketCapSeries;
export function seriesOf(kind: SeriesKind, columns: SeriesColumns): BarSeries | MarketCapSeries;
export function seriesOf(kind: SeriesKind, { days, values }: SeriesColumns): BarSeries | MarketCapSeries {
  const series: Record<string, Int32Array | Float64Array> = { days };
  COLUMNS_OF[kind].forEach(({ field }, i) => (series[field] = values[i] as Float64Array));
  return series as unknown as BarSeries | MarketCapSeries;
}
