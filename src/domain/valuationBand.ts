// Valuation band: a stock's PER, PBR or PSR against its own history, computed from actually
// reported TTM figures and daily closes: the daily multiple is the day's close x shares over the
// point-in-time TTM (or the latest equity for PBR); days with a non-positive denominator are
// excluded and counted (docs/calculations.md).

import { ascendingByDate } from './bars.js';
import { yearOf } from './calendar.js';
import type { DailyBar, FinancialReport } from './model.js';
import type { BandType, ValuationBandResult, ValuationBandYear } from './results.js';
import { percentileRank } from './score.js';
import { ttmTimeline } from './ttm.js';
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
  /** First day of the window (spec default 2020-01-01, applied by the caller). */
  from: string;
  /** Last day of the window: the as-of date. */
  to: string;
}

/**
 * The band over [from, to]: every trading day's multiple = close x shares / the denominator
 * in force that day (a filing counts from its disclosure date on), with p5, median, p95
 * (`quantile`, type 7), min and max over the days used, a per-calendar-year summary, and the
 * last day's value with its percentile (`percentileRank`) among the days used. One sweep over
 * the days and the TTM steps: O(days + filings log filings).
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
