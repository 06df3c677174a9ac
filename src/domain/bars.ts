// Price bars in date order, and the price as of a date. Weekly and monthly bars are resampled
// from a stock's columns (./series.ts `resampleSeries`).

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
