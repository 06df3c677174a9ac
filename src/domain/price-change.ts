// Price change over 1, 3 and 12 months, consistent across stock splits. The KR price feed
// (KRX, FSC) gives each day's close as traded, not adjusted for splits: across Samsung
// Electronics' 50-for-1 split the close went 2,650,000 -> 51,900 won, which is no -98 % loss.
// A split shows in the bars as the listed shares jumping by a near-integer factor from one bar
// to the next while the close moves inversely; the same share-count evidence finds splits
// between US filings (sources/sec/parse.ts `detectSplits`). A share count that jumps while the
// close does not follow (a rights issue, a merger paid in shares, or a feed that already adjusts
// its closes) is not a split of the close and changes nothing.

import { daysInMonth } from './calendar.js';
import { changePct } from './change.js';

/** Relative distance from a whole number a share-count ratio may have and still be read as an n-for-1 split. */
export const SPLIT_TOLERANCE = 0.03;

/**
 * The n of an n-for-1 split when `ratio` (new / old share count) is within SPLIT_TOLERANCE of a
 * whole n >= 2; 1/n for a reverse split (the count falling to about 1/n); null otherwise.
 */
export function splitRatioOf(ratio: number): number | null {
  if (!(ratio > 0) || !Number.isFinite(ratio)) return null;
  const near = (r: number): number | null => {
    const n = Math.round(r);
    return n >= 2 && Math.abs(r - n) / n <= SPLIT_TOLERANCE ? n : null;
  };
  const up = near(ratio);
  if (up !== null) return up;
  const down = near(1 / ratio);
  return down === null ? null : 1 / down;
}

/**
 * The largest daily move of a KR close (the exchanges' price limit is +-30 %): after a split of
 * factor f the close x f must be within this of the previous close for the close to have moved
 * inversely.
 */
export const SPLIT_CLOSE_BAND = 0.3;

/** What a price change reads of a daily bar. */
export interface CloseShares {
  date: string;
  close: number;
  /** Listed shares at the close. */
  shares: number;
}

/**
 * The split factor between two consecutive bars: f when the shares grew by a near-integer f (or
 * fell to 1/n) and the close moved by about 1/f (close x f within SPLIT_CLOSE_BAND of the
 * previous close); 1 otherwise.
 */
export function splitFactorBetween(prev: { readonly close: number; readonly shares: number; readonly date?: string }, next: { readonly close: number; readonly shares: number; readonly date?: string }): number {
  if (!(prev.shares > 0) || !(next.shares > 0) || !(prev.close > 0) || !(next.close > 0)) return 1;
  // Equal counts (nearly every day): no split, without the division.
  if (prev.shares === next.shares) return 1;
  const factor = splitRatioOf(next.shares / prev.shares);
  if (factor === null) return 1;
  const moved = (next.close * factor) / prev.close;
  return Math.abs(moved - 1) <= SPLIT_CLOSE_BAND ? factor : 1;
}

/** The date `months` calendar months before `date`, on the same day or the month's last (2025-03-31 minus 1 = 2025-02-28). */
export function monthsBefore(date: string, months: number): string {
  const index = Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1 - months;
  const year = Math.floor(index / 12);
  const month = index - year * 12 + 1;
  const day = Math.min(Number(date.slice(8, 10)), daysInMonth(year, month));
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** The periods the screener offers, in months. */
export const PRICE_CHANGE_MONTHS = [1, 3, 12] as const;

export interface PriceChanges {
  /** Percent change of the split-adjusted close over 1, 3 and 12 months; null without a bar that far back. */
  m1: number | null;
  m3: number | null;
  m12: number | null;
}

export const NO_PRICE_CHANGES: PriceChanges = { m1: null, m3: null, m12: null };

/** A split between two consecutive bars of a stock: the later bar's date and `splitFactorBetween` of the two (never 1). */
export interface SplitEvent {
  date: string;
  factor: number;
}

/**
 * Every split between consecutive bars of `bars` (ascending by date), ascending: what the store
 * keeps beside each stock's bars (`bar_splits`), so that a price change needs no history.
 */
export function splitEvents(bars: readonly CloseShares[]): SplitEvent[] {
  const out: SplitEvent[] = [];
  for (let i = 1; i < bars.length; i++) {
    const next = bars[i] as CloseShares;
    const factor = splitFactorBetween(bars[i - 1] as CloseShares, next);
    if (factor !== 1) out.push({ date: next.date, factor });
  }
  return out;
}

/**
 * The percent price change from the base (the last bar on or before `baseDate`) to the latest
 * bar, with the base close divided by every split factor between them (so both are in today's
 * share basis; the latest close is the one every other tool shows, and a won close divisible by
 * the factor stays a whole number), from the three things it needs of the history: the latest
 * bar (its date and close), the close of the last bar on or before `baseDate` (null: no bar that
 * old), and the stock's split events ascending (those dated in (`baseDate`, latest date] count;
 * the others are passed over). The events between the base bar and the latest one are exactly
 * those dated after `baseDate`: an event is dated on a bar, and no bar lies between the base bar
 * and `baseDate`. They are multiplied in the same (ascending) order as a walk over the whole
 * history multiplies them (test/domain/oracles.ts `priceChanges`), so the result is the same double.
 */
export function priceChangeFrom(latest: { readonly date: string; readonly close: number }, baseDate: string, baseClose: number | null, splits: readonly SplitEvent[]): number | null {
  if (baseClose === null || !(baseClose > 0)) return null;
  let factor = 1;
  for (const split of splits) if (split.date > baseDate && split.date <= latest.date) factor *= split.factor;
  return changePct(latest.close, baseClose / factor);
}

/** The base dates of the price changes of a latest bar dated `latestDate`: 1, 3 and 12 months before it. */
export function priceChangeBaseDates(latestDate: string): [string, string, string] {
  const [m1, m3, m12] = PRICE_CHANGE_MONTHS;
  return [monthsBefore(latestDate, m1), monthsBefore(latestDate, m3), monthsBefore(latestDate, m12)];
}

/**
 * The price changes over 1, 3 and 12 months from what `priceChangeFrom` reads: the latest bar, the closes on or before each
 * of its `priceChangeBaseDates` (null: none), and the stock's split events ascending.
 */
export function priceChangesFrom(latest: { readonly date: string; readonly close: number }, baseCloses: readonly [number | null, number | null, number | null], splits: readonly SplitEvent[]): PriceChanges {
  const [d1, d3, d12] = priceChangeBaseDates(latest.date);
  return { m1: priceChangeFrom(latest, d1, baseCloses[0], splits), m3: priceChangeFrom(latest, d3, baseCloses[1], splits), m12: priceChangeFrom(latest, d12, baseCloses[2], splits) };
}
