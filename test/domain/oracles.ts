// Test oracles: the price history's resampling and the valuation band written the plain way, over
// lists of bar objects and filings, beside the one implementation the service runs (the column
// forms of src/domain/series.ts: `resampleSeries`, `valuationBandOfSeries`). The hand-derived
// cases of test/domain/bars.test.ts and valuationBand.test.ts hold for both, and
// test/serving/history.test.ts compares the service's answers with these on every stock of a
// demo universe. Written independently of the column forms: a bug shared by both would have to
// be written twice.
//
// Also the screener's price changes walked over a stock's whole history (`priceChanges`), which
// the service computes from stored split events and three base closes instead
// (src/domain/price-change.ts `priceChangesFrom`).

import { ascendingByDate } from '../../src/domain/bars.js';
import { dateOfDayNumber, dayNumber, isoWeekday, monthOf, yearOf } from '../../src/domain/calendar.js';
import { changePct } from '../../src/domain/change.js';
import { monthsBefore, splitFactorBetween, type CloseShares, type PriceChanges } from '../../src/domain/price-change.js';
import type { DailyBar, FinancialReport } from '../../src/domain/model.js';
import type { BandType, Interval, PriceBar, ValuationBandResult, ValuationBandYear } from '../../src/domain/results.js';
import { percentileRank } from '../../src/domain/score.js';
import { quantile, resampleSeries, valuationBandOfSeries, type BarSeries, type SeriesWindow } from '../../src/domain/series.js';
import { ttmTimeline, type TtmStep } from '../../src/domain/ttm.js';

/** The daily-bar fields resampling reads. */
export type OhlcvBar = Pick<DailyBar, 'date' | 'open' | 'high' | 'low' | 'close' | 'volume' | 'tradedValue'>;

export interface ResampleOptions {
  interval: Interval;
  /** Keep bars dated on or after this day. */
  from?: string;
  /** Keep bars dated on or before this day. */
  to?: string;
  /** Keep only the latest `limit` of the kept bars. */
  limit?: number;
}

function periodKey(date: string, interval: Interval): string | number {
  if (interval === 'day') return date;
  if (interval === 'month') return monthOf(date);
  // ISO week, Monday to Sunday: keyed by its Monday's day number.
  return dayNumber(date) - (isoWeekday(date) - 1);
}

/**
 * Resamples daily bars: open = the first day's open, high = max, low = min, close = the last
 * day's close, volume and traded value summed, dated by the last trading day in the period.
 * Periods are aggregated from the whole daily history given (a week that began before `from`
 * keeps all its days); then the bars dated in [from, to] are kept, then the latest `limit` of
 * those, in ascending order.
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

const DENOMINATOR: Record<BandType, { of: (s: TtmStep) => number | null; name: string }> = {
  per: { of: (s) => s.netIncome, name: 'TTM net income' },
  pbr: { of: (s) => s.equity, name: 'equity' },
  psr: { of: (s) => s.revenue, name: 'TTM revenue' },
};

export interface ValuationBandInput {
  type: BandType;
  /** The stock's daily bars (any order). */
  bars: readonly Pick<DailyBar, 'date' | 'close' | 'shares'>[];
  /** The stock's filings; each counts from its disclosure date on. */
  reports: readonly FinancialReport[];
  /** First day of the window. */
  from: string;
  /** Last day of the window: the as-of date. */
  to: string;
}

/**
 * The band over [from, to]: every trading day's multiple = close x shares / the denominator in
 * force that day (a filing counts from its disclosure date on), with p5, median, p95 (type 7),
 * min and max over the days used, a per-calendar-year summary, and the last day's value with
 * its percentile (`percentileRank`) among the days used.
 */
export function valuationBand(input: ValuationBandInput): ValuationBandResult {
  const { type, from, to } = input;
  const denominator = DENOMINATOR[type];
  const steps = ttmTimeline(input.reports);
  const bars = ascendingByDate(input.bars);

  const used: number[] = [];
  const byYear = new Map<number, number[]>();
  let daysExcluded = 0;
  let last: { date: string; value: number | null; reason?: string } | null = null;
  let s = -1;
  for (const bar of bars) {
    if (bar.date < from || bar.date > to) continue;
    while (s + 1 < steps.length && (steps[s + 1] as TtmStep).effectiveFrom <= bar.date) s++;
    const step = steps[s];
    const d = step ? denominator.of(step) : null;
    const marketCap = bar.close * bar.shares;
    let reason: string | undefined;
    if (!step) reason = 'no report disclosed by this date';
    else if (d === null) reason = `${denominator.name} not available for ${step.referenceQuarter}`;
    else if (d <= 0) reason = `${denominator.name} is not positive for ${step.referenceQuarter}`;
    else if (!(marketCap > 0)) reason = 'market cap is not positive';
    if (reason !== undefined || d === null) {
      daysExcluded++;
      last = { date: bar.date, value: null, reason };
      continue;
    }
    const value = marketCap / d;
    used.push(value);
    const year = yearOf(bar.date);
    let list = byYear.get(year);
    if (!list) byYear.set(year, (list = []));
    list.push(value);
    last = { date: bar.date, value };
  }

  const sorted = [...used].sort((a, b) => a - b);
  const years: ValuationBandYear[] = [...byYear.entries()]
    .sort(([a], [b]) => a - b)
    .map(([year, values]) => {
      const ys = values.sort((a, b) => a - b);
      return { year, days: ys.length, min: ys[0] as number, median: quantile(ys, 0.5) as number, max: ys[ys.length - 1] as number };
    });

  let current: ValuationBandResult['current'] = null;
  if (last) {
    current =
      last.value === null
        ? { date: last.date, value: null, percentile: null, reason: last.reason ?? 'excluded' }
        : { date: last.date, value: last.value, percentile: percentileRank(last.value, sorted) };
  }

  const result: ValuationBandResult = {
    type,
    from,
    to,
    daysUsed: sorted.length,
    daysExcluded,
    p5: quantile(sorted, 0.05),
    median: quantile(sorted, 0.5),
    p95: quantile(sorted, 0.95),
    min: sorted[0] ?? null,
    max: sorted[sorted.length - 1] ?? null,
    current,
    years,
  };
  if (!last) result.reason = 'no trading day in the window';
  else if (sorted.length === 0) result.reason = `no day in the window with a positive ${denominator.name}`;
  return result;
}

type SeriesBar = Pick<DailyBar, 'date' | 'close'> & Partial<Pick<DailyBar, 'open' | 'high' | 'low' | 'volume' | 'tradedValue' | 'shares'>>;

/** Bar objects as the columns the service holds (ascending by date; a field not given is 0). */
export function seriesOfBars(bars: readonly SeriesBar[]): BarSeries {
  const sorted = ascendingByDate(bars);
  const column = (of: (b: SeriesBar) => number | undefined) => Float64Array.from(sorted, (b) => of(b) ?? 0);
  return {
    days: Int32Array.from(sorted, (b) => dayNumber(b.date)),
    close: column((b) => b.close),
    shares: column((b) => b.shares),
    open: column((b) => b.open),
    high: column((b) => b.high),
    low: column((b) => b.low),
    volume: column((b) => b.volume),
    tradedValue: column((b) => b.tradedValue),
  };
}

/** The service's resampling (`resampleSeries`) called the way `resampleBars` is. */
export function resampleBarsOfSeries(daily: readonly OhlcvBar[], options: SeriesWindow): PriceBar[] {
  return resampleSeries(seriesOfBars(daily), options);
}

/** The service's band (`valuationBandOfSeries` over `ttmTimeline`) called the way `valuationBand` is. */
export function valuationBandOfBars(input: ValuationBandInput): ValuationBandResult {
  return valuationBandOfSeries({ type: input.type, series: seriesOfBars(input.bars), steps: ttmTimeline(input.reports), from: input.from, to: input.to });
}

/**
 * The price changes over a stock's whole history, the plain way (a walk back from the latest
 * bar, split factors multiplied between consecutive bars): the reference the service's form
 * (src/domain/price-change.ts `priceChangesFrom`, from stored split events and three base
 * closes) must equal, on every stock.
 *
 * Daily bars as columns (as the store's BarSeries holds them): day numbers ascending, closes, listed shares. */
export interface CloseShareSeries {
  readonly days: ArrayLike<number>;
  readonly close: ArrayLike<number>;
  readonly shares: ArrayLike<number>;
}

/** Bars as columns. */
export function closeShareSeries(bars: readonly CloseShares[]): CloseShareSeries {
  return { days: Int32Array.from(bars, (b) => dayNumber(b.date)), close: Float64Array.from(bars, (b) => b.close), shares: Float64Array.from(bars, (b) => b.shares) };
}

/**
 * Percent price change from the base (the last bar on or before `baseDate`) to the latest bar,
 * with the base close divided by every split factor between them (so both are in today's share
 * basis): `changePct(latest close, base close / factors)`. Null when no bar is that old or the
 * base close is not positive. The series ends with the bar of the price the other tools use.
 */
export function priceChangeSince(series: CloseShareSeries, baseDate: string): number | null {
  const n = series.days.length;
  if (n === 0) return null;
  const baseDay = dayNumber(baseDate);
  let base = n - 1;
  while (base >= 0 && (series.days[base] as number) > baseDay) base--;
  if (base < 0) return null;
  let factor = 1;
  for (let i = base + 1; i < n; i++) {
    if (series.shares[i] === series.shares[i - 1]) continue;
    factor *= splitFactorBetween(
      { close: series.close[i - 1] as number, shares: series.shares[i - 1] as number },
      { close: series.close[i] as number, shares: series.shares[i] as number },
    );
  }
  const baseClose = series.close[base] as number;
  if (!(baseClose > 0)) return null;
  // The base is divided, not the latest close multiplied: the latest close is the one every
  // other tool shows, and a won close divisible by the factor stays a whole number.
  return changePct(series.close[n - 1] as number, baseClose / factor);
}

/** `priceChangeSince` the same day `months` calendar months before the latest bar. */
export function priceChangeOver(series: CloseShareSeries, months: number): number | null {
  const n = series.days.length;
  return n === 0 ? null : priceChangeSince(series, monthsBefore(dateOfDayNumber(series.days[n - 1] as number), months));
}

/** `priceChangeOver` for 1, 3 and 12 months. */
export function priceChanges(series: CloseShareSeries): PriceChanges {
  return { m1: priceChangeOver(series, 1), m3: priceChangeOver(series, 3), m12: priceChangeOver(series, 12) };
}
