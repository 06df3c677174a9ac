// One stock's daily bars held as columns (typed arrays) rather than one object per bar: ~60
// bytes a bar instead of ~190, nothing for the garbage collector to trace, and the answers are
// built straight from the columns. Dates are day numbers (days since 1970-01-01); a date's
// `YYYY-MM-DD` text is made once per day for the whole process (`dateOfDay`).
//
// `resampleSeries` and `valuationBandOfSeries` are the one implementation of the price history's
// resampling and of the valuation band. test/domain/oracles.ts writes both the plain way over
// bar objects, as test oracles: the hand-derived domain tests hold for both, and
// test/serving/history.test.ts compares the service's serialised answers with them.

import { dateOfDayNumber, dayNumber } from './calendar.js';
import type { BandType, Interval, PriceBar, ValuationBandResult, ValuationBandYear } from './results.js';
import { countBelow } from './score.js';
import type { TtmStep } from './ttm.js';

/**
 * Quantile of ascending `sorted` by linear interpolation between closest ranks (Hyndman and
 * Fan's type 7, the default of R, NumPy and Excel's PERCENTILE.INC): h = (n - 1) p,
 * Q = x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]) with 0-based x. Null when empty.
 */
export function quantile(sorted: ArrayLike<number>, p: number): number | null {
  const n = sorted.length;
  if (n === 0) return null;
  const h = (n - 1) * p;
  const lo = Math.floor(h);
  const below = sorted[lo] as number;
  const above = sorted[Math.min(lo + 1, n - 1)] as number;
  return below + (h - lo) * (above - below);
}

/**
 * What the valuation band reads of a bar when the whole history is not held: the market cap
 * (close x shares, multiplied by the store: the same IEEE product as here), one value a day
 * instead of two, which is a third less for the reader thread to hand over.
 */
export interface MarketCapSeries {
  /** Day numbers, ascending, one per bar. */
  readonly days: Int32Array;
  /** Close x listed shares at the close. */
  readonly marketCap: Float64Array;
}

/** Every field a price history answers with. */
export interface BarSeries {
  /** Day numbers, ascending, one per bar. */
  readonly days: Int32Array;
  readonly close: Float64Array;
  /** Listed shares at the close. */
  readonly shares: Float64Array;
  readonly open: Float64Array;
  readonly high: Float64Array;
  readonly low: Float64Array;
  readonly volume: Float64Array;
  readonly tradedValue: Float64Array;
}

/** Bytes a series holds (what a history cache sized in bytes counts). */
export function seriesBytes(series: MarketCapSeries | BarSeries): number {
  let bytes = 0;
  for (const column of Object.values(series) as ArrayLike<number>[]) bytes += (column as Float64Array).byteLength ?? 0;
  return bytes;
}

const dayTexts = new Map<number, string>();

/** `YYYY-MM-DD` of a day number, made once per day for the process (~260 trading days a year). */
export function dateOfDay(day: number): string {
  let text = dayTexts.get(day);
  if (text === undefined) {
    text = dateOfDayNumber(day);
    dayTexts.set(day, text);
  }
  return text;
}

/** Index of the first day >= `day` in ascending `days`. */
export function firstIndexFrom(days: Int32Array, day: number): number {
  let lo = 0;
  let hi = days.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((days[mid] as number) < day) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** ISO week (keyed by its Monday) or calendar month (year * 12 + month) of a day number. */
function periodOf(day: number, interval: Exclude<Interval, 'day'>): number {
  if (interval === 'week') return day - ((((day + 3) % 7) + 7) % 7); // 1970-01-01 was a Thursday
  const date = dateOfDay(day);
  return Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7));
}

export interface SeriesWindow {
  interval: Interval;
  from?: string | undefined;
  to?: string | undefined;
  limit?: number | undefined;
}

/**
 * The day bars of a window as a range of the series: those dated in [from, to], the latest
 * `limit` of them. A series holding only the days a day-interval call keeps (a windowed read)
 * gives the same bars as the whole history.
 */
export interface DayBars {
  series: BarSeries;
  /** The bars are the series' entries [start, end). */
  start: number;
  end: number;
}

export function dayBarsOf(series: BarSeries, window: Omit<SeriesWindow, 'interval'>): DayBars {
  const { days } = series;
  const fromDay = window.from === undefined ? -Infinity : dayNumber(window.from);
  const toDay = window.to === undefined ? Infinity : dayNumber(window.to);
  const start = firstIndexFrom(days, fromDay);
  let end = firstIndexFrom(days, toDay + 1);
  if (end < start) end = start;
  return { series, start: window.limit === undefined ? start : Math.max(start, end - window.limit), end };
}

/**
 * A price history's bars: for days the range of the series (`dayBarsOf`; the answer writes them
 * from the columns), for weeks and months `resampleSeries`.
 */
export function priceBarsOf(series: BarSeries, window: SeriesWindow): DayBars | PriceBar[] {
  return window.interval === 'day' ? dayBarsOf(series, window) : resampleSeries(series, window);
}

/**
 * Resamples a series: open = the period's first open, high = max, low = min, close = the last
 * close, volume and traded value summed, dated by the period's last trading day (weeks: ISO
 * weeks, Monday to Sunday; months: calendar months). Periods are aggregated from the whole series
 * given (a week that began before `from` keeps all its days), then the bars dated in [from, to]
 * are kept, then the latest `limit` of those. Days need no aggregation, so they are cut from the
 * columns directly (`dayBarsOf`).
 */
export function resampleSeries(series: BarSeries, window: SeriesWindow): PriceBar[] {
  const { days } = series;
  const fromDay = window.from === undefined ? -Infinity : dayNumber(window.from);
  const toDay = window.to === undefined ? Infinity : dayNumber(window.to);
  const out: PriceBar[] = [];
  if (window.interval === 'day') {
    const { start, end } = dayBarsOf(series, window);
    for (let i = start; i < end; i++) out.push(barAt(series, i));
    return out;
  }
  const interval = window.interval;
  let key = Number.NaN;
  let cur: PriceBar | undefined;
  let curDay = 0;
  const kept = (d: number) => d >= fromDay && d <= toDay;
  for (let i = 0; i < days.length; i++) {
    const day = days[i] as number;
    const k = periodOf(day, interval);
    if (cur && k === key) {
      curDay = day;
      cur.high = Math.max(cur.high, series.high[i] as number);
      cur.low = Math.min(cur.low, series.low[i] as number);
      cur.close = series.close[i] as number;
      cur.volume += series.volume[i] as number;
      cur.tradedValue += series.tradedValue[i] as number;
    } else {
      if (cur && kept(curDay)) out.push(dated(cur, curDay));
      key = k;
      curDay = day;
      cur = barAt(series, i);
    }
  }
  if (cur && kept(curDay)) out.push(dated(cur, curDay));
  return window.limit === undefined ? out : out.slice(Math.max(0, out.length - window.limit));
}

function barAt(s: BarSeries, i: number): PriceBar {
  return {
    date: dateOfDay(s.days[i] as number),
    open: s.open[i] as number,
    high: s.high[i] as number,
    low: s.low[i] as number,
    close: s.close[i] as number,
    volume: s.volume[i] as number,
    tradedValue: s.tradedValue[i] as number,
  };
}

function dated(bar: PriceBar, day: number): PriceBar {
  bar.date = dateOfDay(day);
  return bar;
}

const DENOMINATOR: Record<BandType, { of: (s: TtmStep) => number | null; name: string }> = {
  per: { of: (s) => s.netIncome, name: 'TTM net income' },
  pbr: { of: (s) => s.equity, name: 'equity' },
  psr: { of: (s) => s.revenue, name: 'TTM revenue' },
};

const stepDayCache = new WeakMap<readonly TtmStep[], Int32Array>();

/** Day numbers of the steps' `effectiveFrom`, made once per timeline (a held stock's is reused). */
function stepDaysOf(steps: readonly TtmStep[]): Int32Array {
  let out = stepDayCache.get(steps);
  if (out === undefined) {
    out = Int32Array.from(steps, (step) => dayNumber(step.effectiveFrom));
    stepDayCache.set(steps, out);
  }
  return out;
}

export interface SeriesBandInput {
  type: BandType;
  /** The stock's bars, at least those dated in [from, to]: all their fields, or their market caps. */
  series: BarSeries | MarketCapSeries;
  /** `ttmTimeline` of the stock's filings. */
  steps: readonly TtmStep[];
  from: string;
  to: string;
}

/**
 * The valuation band over [from, to] from a series and a TTM timeline: every trading day's
 * multiple = close x shares / the denominator in force that day (a filing counts from its
 * disclosure date on; TTM net income for PER, equity for PBR, TTM revenue for PSR), days with
 * no positive denominator or market cap excluded and counted with their reason; p5, median and
 * p95 (`quantile`, type 7), min and max over the days used, a per-calendar-year summary, and
 * the last day's value with its percentile among the days used. One pass over the days of the window, the TTM step advanced
 * as the days pass it; the values kept in a Float64Array and sorted numerically.
 */
export function valuationBandOfSeries(input: SeriesBandInput): ValuationBandResult {
  const { type, from, to, steps, series } = input;
  const denominator = DENOMINATOR[type];
  const { days } = series;
  // Either the market caps as read, or close x shares worked out here (a held whole history).
  const caps = 'marketCap' in series ? series.marketCap : null;
  const close = 'close' in series ? series.close : null;
  const shares = 'shares' in series ? series.shares : null;
  const start = firstIndexFrom(days, dayNumber(from));
  const end = firstIndexFrom(days, dayNumber(to) + 1);
  const stepDays = stepDaysOf(steps);

  const used = new Float64Array(Math.max(0, end - start));
  let n = 0;
  const yearStarts: { year: number; start: number }[] = [];
  let daysExcluded = 0;
  let lastDay = Number.NaN;
  let lastValue: number | null = null;
  let lastReason: string | undefined;
  // The step in force and what it means for every day it covers: worked out when the days pass
  // into a new step, not day by day (a step covers ~60 trading days).
  let s = -1;
  let nextStepDay = steps.length > 0 ? (stepDays[0] as number) : Infinity;
  let stepReason: string | undefined = 'no report disclosed by this date';
  let d = 0;
  // The calendar year of the days being used changes at most once a year: its first day is known.
  let nextYearDay = -Infinity;
  for (let i = start; i < end; i++) {
    const day = days[i] as number;
    if (day >= nextStepDay) {
      while (s + 1 < steps.length && (stepDays[s + 1] as number) <= day) s++;
      nextStepDay = s + 1 < steps.length ? (stepDays[s + 1] as number) : Infinity;
      const step = steps[s] as TtmStep;
      const of = denominator.of(step);
      if (of === null) stepReason = `${denominator.name} not available for ${step.referenceQuarter}`;
      else if (of <= 0) stepReason = `${denominator.name} is not positive for ${step.referenceQuarter}`;
      else stepReason = undefined;
      d = of ?? 0;
    }
    lastDay = day;
    const marketCap = caps !== null ? (caps[i] as number) : ((close as Float64Array)[i] as number) * ((shares as Float64Array)[i] as number);
    const reason = stepReason ?? (marketCap > 0 ? undefined : 'market cap is not positive');
    if (reason !== undefined) {
      daysExcluded++;
      lastValue = null;
      lastReason = reason;
      continue;
    }
    const value = marketCap / d;
    if (day >= nextYearDay) {
      const year = Number(dateOfDay(day).slice(0, 4));
      nextYearDay = dayNumber(`${year + 1}-01-01`);
      yearStarts.push({ year, start: n });
    }
    used[n++] = value;
    lastValue = value;
    lastReason = undefined;
  }

  // Days are ascending, so each year's values are one run of `used`.
  const years: ValuationBandYear[] = yearStarts.map(({ year, start: from0 }, k) => {
    const ys = used.slice(from0, k + 1 < yearStarts.length ? (yearStarts[k + 1] as { start: number }).start : n).sort();
    return { year, days: ys.length, min: ys[0] as number, median: quantile(ys, 0.5) as number, max: ys[ys.length - 1] as number };
  });
  const sorted = used.subarray(0, n).sort();

  let current: ValuationBandResult['current'] = null;
  if (!Number.isNaN(lastDay)) {
    const date = dateOfDay(lastDay);
    current =
      lastValue === null
        ? { date, value: null, percentile: null, reason: lastReason ?? 'excluded' }
        : { date, value: lastValue, percentile: n === 1 ? 100 : Math.min(100, (100 * countBelow(sorted, lastValue)) / (n - 1)) };
  }

  const result: ValuationBandResult = {
    type,
    from,
    to,
    daysUsed: n,
    daysExcluded,
    p5: quantile(sorted, 0.05),
    median: quantile(sorted, 0.5),
    p95: quantile(sorted, 0.95),
    min: n > 0 ? (sorted[0] as number) : null,
    max: n > 0 ? (sorted[n - 1] as number) : null,
    current,
    years,
  };
  if (Number.isNaN(lastDay)) result.reason = 'no trading day in the window';
  else if (n === 0) result.reason = `no day in the window with a positive ${denominator.name}`;
  return result;
}
