// Split-adjusted price bars. The KR feeds give each day's prices as traded: across Samsung
// Electronics' 50-for-1 split (2018-05-04) the close went 2,650,000 -> 51,900 won, a chart's
// -98 % cliff that no holder lost. Adjusted, every bar before a split is restated in the shares
// that trade after it: open, high, low and close divided by the product of the factors of the
// splits dated after the bar, volume (and listed shares) multiplied by it; traded value and
// market cap are the same money either way and stay as traded. The splits are the events the
// store finds in each stock's own bars (listed shares jumping by a near-integer factor while the
// close moves inversely: ./price-change.ts `splitFactorBetween`), the ones the screener's price
// changes divide out, so a chart and a price change agree.
//
// A factor is n for an n-for-1 split and 1/n for a 1-for-n consolidation; the cumulative factor
// is kept as two whole numbers (the product of the n of the splits and that of the
// consolidations), so a price is multiplied by one and divided by the other: 2,650,000 / 50 is
// exactly 53,000, and a consolidation multiplies by its n without the rounding of dividing by 1/n.

import { dayNumber } from './calendar.js';
import type { SplitEvent } from './price-change.js';
import type { PriceBar } from './results.js';
import { dayBarsOf, firstIndexFrom, resampleSeries, type BarSeries, type DayBars, type SeriesWindow } from './series.js';

/** The whole numbers of a factor: n for an n-for-1 split (up), n for a 1-for-n consolidation (down). */
function wholeFactor(factor: number): { up: number; down: number } {
  return factor >= 1 ? { up: Math.round(factor), down: 1 } : { up: 1, down: Math.round(1 / factor) };
}

/**
 * The entries [start, end) of `series` restated in the shares after every split of `splits`
 * (ascending by date): each bar's prices times `down` over `up` and its volume and shares times
 * `up` over `down`, where up and down are the products of the whole factors of the splits dated
 * after the bar. One pass from the last bar back, the cumulative factor growing as the walk
 * passes each split's date. A new series of end - start bars; its days and traded values are
 * views of the given series' columns (nothing writes to a held series).
 */
export function adjustRange(series: BarSeries, splits: readonly SplitEvent[], start: number, end: number): BarSeries {
  const n = Math.max(0, end - start);
  const out = {
    days: series.days.subarray(start, start + n),
    open: new Float64Array(n),
    high: new Float64Array(n),
    low: new Float64Array(n),
    close: new Float64Array(n),
    volume: new Float64Array(n),
    shares: new Float64Array(n),
    tradedValue: series.tradedValue.subarray(start, start + n),
  };
  const splitDays = splits.map((s) => dayNumber(s.date));
  let k = splits.length - 1;
  let up = 1;
  let down = 1;
  for (let i = end - 1; i >= start; i--) {
    const day = series.days[i] as number;
    while (k >= 0 && (splitDays[k] as number) > day) {
      const whole = wholeFactor((splits[k] as SplitEvent).factor);
      up *= whole.up;
      down *= whole.down;
      k--;
    }
    const j = i - start;
    if (up === 1 && down === 1) {
      out.open[j] = series.open[i] as number;
      out.high[j] = series.high[i] as number;
      out.low[j] = series.low[i] as number;
      out.close[j] = series.close[i] as number;
      out.volume[j] = series.volume[i] as number;
      out.shares[j] = series.shares[i] as number;
    } else {
      out.open[j] = ((series.open[i] as number) * down) / up;
      out.high[j] = ((series.high[i] as number) * down) / up;
      out.low[j] = ((series.low[i] as number) * down) / up;
      out.close[j] = ((series.close[i] as number) * down) / up;
      out.volume[j] = ((series.volume[i] as number) * up) / down;
      out.shares[j] = ((series.shares[i] as number) * up) / down;
    }
  }
  return out;
}

/** The splits of `splits` dated after `day` (a day number): those that restate a bar of that day. */
function splitsAfter(splits: readonly SplitEvent[], day: number): SplitEvent[] {
  return splits.filter((s) => dayNumber(s.date) > day);
}

/** The splits of `splits` dated on or before `day` (a day number). */
function splitsThrough(splits: readonly SplitEvent[], day: number): SplitEvent[] {
  return splits.filter((s) => dayNumber(s.date) <= day);
}

/** A price history's bars and the splits they reflect. */
export interface AdjustedBars {
  bars: DayBars | PriceBar[];
  /**
   * Adjusted: the splits applied (dated after the first trading day the bars cover, through the
   * as-of date). As traded: the splits dated within the bars (after their first trading day and
   * on or before their last), each a jump in them.
   */
  splits: SplitEvent[];
}

/**
 * A price history's bars (./series.ts `priceBarsOf`), split-adjusted when `adjust` (else as the
 * series holds them), and the splits they reflect (`AdjustedBars.splits`; the first trading day
 * the bars cover is, for weeks and months, the first day of the first bar's period). `splits`:
 * the stock's split events up to the last day the answer may serve (the as-of date), ascending;
 * events after the series' last bar (a window that ends before the as-of date) still restate
 * the bars before them.
 *
 * Cost: days, one pass over the window's bars when a split falls within them and none
 * otherwise (the series' own columns are answered); weeks and months, one pass over the whole
 * series before resampling when a split falls within it.
 */
export function priceBarsAdjusted(series: BarSeries, window: SeriesWindow, splits: readonly SplitEvent[], adjust: boolean): AdjustedBars {
  const { days } = series;
  if (window.interval === 'day') {
    const range = dayBarsOf(series, window);
    if (range.end <= range.start) return { bars: range, splits: [] };
    const within = splitsAfter(splits, days[range.start] as number);
    if (!adjust) return { bars: range, splits: splitsThrough(within, days[range.end - 1] as number) };
    if (within.length === 0) return { bars: range, splits: within };
    return { bars: { series: adjustRange(series, within, range.start, range.end), start: 0, end: range.end - range.start }, splits: within };
  }
  const all = days.length > 0 ? splitsAfter(splits, days[0] as number) : [];
  const bars = resampleSeries(adjust && all.length > 0 ? adjustRange(series, all, 0, days.length) : series, window);
  const first = bars[0];
  if (first === undefined) return { bars, splits: [] };
  // The first bar's period begins on its first trading day: the first day of the series on or
  // after the period's first calendar day.
  const firstDay = dayNumber(first.date);
  const periodStart = window.interval === 'week' ? firstDay - ((((firstDay + 3) % 7) + 7) % 7) : dayNumber(`${first.date.slice(0, 7)}-01`);
  const from = days[firstIndexFrom(days, periodStart)] as number;
  const applied = splitsAfter(all, from);
  return { bars, splits: adjust ? applied : splitsThrough(applied, dayNumber((bars.at(-1) as PriceBar).date)) };
}
