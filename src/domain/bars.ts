// Price bars: the price as of a date, and daily bars resampled into weeks and months
// (weekly bars: ISO weeks; monthly bars: calendar months; a bar is dated by its last trading
// day).

import { dayNumber, isoWeekday, monthOf } from './calendar.js';
import type { DailyBar } from './model.js';
import type { Interval, PriceBar } from './results.js';

/** The daily-bar fields resampling reads. */
export type OhlcvBar = Pick<DailyBar, 'date' | 'open' | 'high' | 'low' | 'close' | 'volume' | 'tradedValue'>;

/** Bars in ascending date order; sorts a copy only when the input is not already ascending. */
export function ascendingByDate<T extends { date: string }>(bars: readonly T[]): readonly T[] {
  for (let i = 1; i < bars.length; i++) {
    if ((bars[i - 1] as T).date > (bars[i] as T).date) return [...bars].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  }
  return bars;
}

/** Index of the last bar dated on or before `asOf` in ascending `bars`, or -1. */
export function lastIndexAsOf(bars: readonly { date: string }[], asOf: string): number {
  let lo = 0;
  let hi = bars.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((bars[mid] as { date: string }).date <= asOf) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** The last bar dated on or before `asOf` (the price as known that day), or null. */
export function barAsOf<T extends { date: string }>(bars: readonly T[], asOf: string): T | null {
  const sorted = ascendingByDate(bars);
  return sorted[lastIndexAsOf(sorted, asOf)] ?? null;
}

function periodKey(date: string, interval: Interval): string | number {
  if (interval === 'day') return date;
  if (interval === 'month') return monthOf(date);
  // ISO week, Monday to Sunday: keyed by its Monday's day number.
  return dayNumber(date) - (isoWeekday(date) - 1);
}

export interface ResampleOptions {
  interval: Interval;
  /** Keep bars dated on or after this day. */
  from?: string;
  /** Keep bars dated on or before this day. */
  to?: string;
  /** Keep only the latest `limit` of the kept bars. */
  limit?: number;
}

/**
 * Resamples daily bars: open = the first day's open, high = max, low = min, close = the last
 * day's close, volume and traded value summed, dated by the last trading day in the period.
 * Periods are aggregated from the whole daily history given (a week that began before `from`
 * keeps all its days); then the bars dated in [from, to] are kept, then the latest `limit` of
 * those, in ascending order. A week with a holiday simply has fewer days.
 */
export function resampleBars(daily: readonly OhlcvBar[], options: ResampleOptions): PriceBar[] {
  const bars = ascendingByDate(daily);
  const out: PriceBar[] = [];
  let key: string | number | undefined;
  let cur: PriceBar | undefined;
  for (const b of bars) {
    const k = periodKey(b.date, options.interval);
    if (cur && k === key) {
      cur.date = b.date;
      cur.high = Math.max(cur.high, b.high);
      cur.low = Math.min(cur.low, b.low);
      cur.close = b.close;
      cur.volume += b.volume;
      cur.tradedValue += b.tradedValue;
    } else {
      if (cur) out.push(cur);
      key = k;
      cur = { date: b.date, open: b.open, high: b.high, low: b.low, close: b.close, volume: b.volume, tradedValue: b.tradedValue };
    }
  }
  if (cur) out.push(cur);
  const { from, to, limit } = options;
  const kept = out.filter((b) => (from === undefined || b.date >= from) && (to === undefined || b.date <= to));
  return limit === undefined ? kept : kept.slice(Math.max(0, kept.length - limit));
}
