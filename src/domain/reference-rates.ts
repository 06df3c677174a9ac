// The ECB's euro foreign exchange reference rates crossed into USD (docs/calculations.md, "Foreign
// private issuers"): the ECB publishes, each TARGET business day, units of each currency per 1 EUR;
// USD per unit of currency X that day is USD-per-EUR / X-per-EUR (EUR itself: USD-per-EUR). A
// foreign filer without a USD convenience translation has its flows converted at the average of
// the period's daily rates and its balances at the rate of the period end.

import type { EuroReferenceRate } from './model.js';

/** One currency's daily USD rates, by publication day (ascending). */
export interface UsdSeries {
  currency: string;
  dates: string[];
  /** USD per unit of `currency` on `dates[i]`. */
  usdPerUnit: number[];
}

/** The USD series of every currency the rates give (EUR among them), on the days both it and USD were published. */
export function usdSeriesOf(rows: readonly EuroReferenceRate[]): Map<string, UsdSeries> {
  const usdPerEur = new Map<string, number>();
  for (const r of rows) if (r.currency === 'USD' && r.perEur > 0) usdPerEur.set(r.date, r.perEur);
  const points = new Map<string, [string, number][]>();
  const add = (currency: string, date: string, v: number): void => {
    let list = points.get(currency);
    if (!list) points.set(currency, (list = []));
    list.push([date, v]);
  };
  for (const [date, usd] of usdPerEur) add('EUR', date, usd);
  for (const r of rows) {
    if (r.currency === 'USD' || r.currency === 'EUR' || !(r.perEur > 0)) continue;
    const usd = usdPerEur.get(r.date);
    if (usd !== undefined) add(r.currency, r.date, usd / r.perEur);
  }
  const out = new Map<string, UsdSeries>();
  for (const [currency, list] of points) {
    list.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    out.set(currency, { currency, dates: list.map((p) => p[0]), usdPerUnit: list.map((p) => p[1]) });
  }
  return out;
}

/** Index of the first date >= `day` (dates.length when none). */
function lowerBound(dates: readonly string[], day: string): number {
  let lo = 0;
  let hi = dates.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((dates[mid] as string) < day) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The series covers [from, to] when it holds a rate on or before `from` and one on or after `to`:
 * no day of the period is before its first rate or after its last (a rate not yet published, or
 * not yet stored, is never stood in for by an older one).
 */
function covers(series: UsdSeries, from: string, to: string): boolean {
  const first = series.dates[0];
  const last = series.dates.at(-1);
  return first !== undefined && last !== undefined && first <= from && last >= to;
}

/** The average of the daily USD rates published from `from` to `to` (both included); null when the series does not cover the period. */
export function periodAverage(series: UsdSeries, from: string, to: string): { usdPerUnit: number; days: number } | null {
  if (from > to || !covers(series, from, to)) return null;
  let sum = 0;
  let days = 0;
  for (let i = lowerBound(series.dates, from); i < series.dates.length && (series.dates[i] as string) <= to; i++) {
    sum += series.usdPerUnit[i] as number;
    days++;
  }
  return days === 0 ? null : { usdPerUnit: sum / days, days };
}

/** The rate of `day`: the last published on or before it; null when the series does not reach `day`. */
export function rateOnOrBefore(series: UsdSeries, day: string): { usdPerUnit: number; date: string } | null {
  if (!covers(series, day, day)) return null;
  const i = lowerBound(series.dates, day);
  const k = series.dates[i] === day ? i : i - 1;
  const date = series.dates[k];
  return date === undefined ? null : { usdPerUnit: series.usdPerUnit[k] as number, date };
}
