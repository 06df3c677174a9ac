// The backtest's arithmetic (docs/calculations.md, "Backtest"): which days a backtest rebalances
// on, each pick's forward return over its holding period from split-consistent closes, and the
// period and summary figures against the market's equal-weight mean. Pure: the picks, closes and
// split events come in; where they come from (the as-of snapshot of each day, the store's bars)
// is src/serving/backtest.ts and src/cli/backtest.ts.

import { priceChangeFrom, monthsBefore, type SplitEvent } from './price-change.js';

export type Rebalance = 'month' | 'quarter';

/** Months between two rebalances. */
export const REBALANCE_MONTHS: Readonly<Record<Rebalance, number>> = { month: 1, quarter: 3 };

/** The first day of each period from `from` to `to` (`YYYY-MM`, both included), every month or every three months from `from`. */
export function periodStarts(from: string, to: string, every: Rebalance): string[] {
  const out: string[] = [];
  const last = `${to}-01`;
  for (let start = `${from}-01`; start <= last; start = monthsBefore(start, -REBALANCE_MONTHS[every])) out.push(start);
  return out;
}

/** The last of `sessions` (ascending dates) on or before `date`; null when every session is later. */
export function lastSessionOnOrBefore(sessions: readonly string[], date: string): string | null {
  let lo = 0;
  let hi = sessions.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sessions[mid] as string) <= date) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? null : (sessions[lo - 1] as string);
}

export interface Period {
  /** The period's first day (`YYYY-MM-01`). */
  start: string;
  /** The rebalance day: the last session on or before `start`, the day the picks are made and bought at the close. */
  day: string;
  /** The end of the holding: the last session on or before `start` plus the holding months. */
  endDay: string;
}

export interface PeriodPlan {
  periods: Period[];
  /** Periods left out: no session on or before their start (`before-data`), or a holding not over by the last session (`not-over`). */
  leftOut: { start: string; why: 'before-data' | 'not-over' }[];
}

/**
 * The periods of a backtest on a market's `sessions` (ascending): each period start's rebalance
 * day and holding end. A period is left out when the market has no session on or before its start,
 * or when its holding is not over: the sessions end before the day the holding ends (its start
 * plus `holdMonths`), so a later session could still fall on or before that day.
 */
export function planPeriods(sessions: readonly string[], starts: readonly string[], holdMonths: number): PeriodPlan {
  const periods: Period[] = [];
  const leftOut: PeriodPlan['leftOut'] = [];
  const lastSession = sessions.at(-1) ?? null;
  for (const start of starts) {
    const day = lastSessionOnOrBefore(sessions, start);
    const end = monthsBefore(start, -holdMonths);
    if (day === null) leftOut.push({ start, why: 'before-data' });
    else if (lastSession === null || lastSession < end) leftOut.push({ start, why: 'not-over' });
    else periods.push({ start, day, endDay: lastSessionOnOrBefore(sessions, end) as string });
  }
  return { periods, leftOut };
}

/** A close on a day. */
export interface DatedClose {
  date: string;
  close: number;
}

export interface ForwardReturn {
  /** The close the holding ends at: the stock's last close on or before the holding's end day. */
  end: DatedClose;
  /** Percent change from the rebalance day's close to `end`, split-consistent. */
  returnPct: number;
  /** The stock has no bar on the end day: its last close before it counts (a delisted stock, or one halted at the end). */
  endedEarly: boolean;
}

/**
 * A holding's forward return: from `start` (the rebalance day's close) to `last` (the stock's
 * last bar on or before `endDay`; the start itself when it has none after it), with the start
 * close divided by every split factor dated after the start and up to `last` (the screener's
 * split-consistent change, ./price-change.ts `priceChangeFrom`). A stock delisted during the
 * holding counts at its last close.
 */
export function forwardReturn(start: DatedClose, last: DatedClose | null, endDay: string, splits: readonly SplitEvent[]): ForwardReturn {
  const end = last !== null && last.date >= start.date ? last : start;
  const returnPct = priceChangeFrom(end, start.date, start.close, splits) ?? 0;
  return { end, returnPct, endedEarly: end.date < endDay };
}

/** The equal-weight mean of `values`; null for none. */
export function meanOf(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

export interface PeriodFigures {
  /** Equal-weight mean of the picks' returns, percent; null without picks. */
  meanReturn: number | null;
  /** Equal-weight mean of the market universe's returns, percent; null for an empty universe. */
  marketMean: number | null;
  /** meanReturn - marketMean, percentage points. */
  excess: number | null;
  /** Picks whose return is above the market mean (a tie is not a hit). */
  hits: number;
  /** hits / picks; null without picks. */
  hitRate: number | null;
}

/** A period's figures from its picks' returns and the whole market universe's returns (same rules). */
export function periodFigures(picks: readonly number[], market: readonly number[]): PeriodFigures {
  const meanReturn = meanOf(picks);
  const marketMean = meanOf(market);
  const hits = marketMean === null ? 0 : picks.filter((r) => r > marketMean).length;
  return {
    meanReturn,
    marketMean,
    excess: meanReturn !== null && marketMean !== null ? meanReturn - marketMean : null,
    hits,
    hitRate: picks.length > 0 && marketMean !== null ? hits / picks.length : null,
  };
}

export interface BacktestSummary {
  /** Periods run. */
  periods: number;
  /** Periods with at least one pick and a market mean: those the means below are over. */
  counted: number;
  /** Mean over counted periods of their mean return, percent. */
  meanReturn: number | null;
  /** Mean over counted periods of their excess, percentage points. */
  meanExcess: number | null;
  /** Picks of all counted periods, and how many beat their period's market mean. */
  picks: number;
  hits: number;
  /** hits / picks. */
  hitRate: number | null;
  /** Counted periods whose mean return is above their market mean. */
  beating: number;
  /** beating / counted. */
  beatingShare: number | null;
}

export function summarize(periods: readonly (PeriodFigures & { picks: number })[]): BacktestSummary {
  const counted = periods.filter((p) => p.meanReturn !== null && p.marketMean !== null);
  const picks = counted.reduce((n, p) => n + p.picks, 0);
  const hits = counted.reduce((n, p) => n + p.hits, 0);
  const beating = counted.filter((p) => (p.excess as number) > 0).length;
  return {
    periods: periods.length,
    counted: counted.length,
    meanReturn: meanOf(counted.map((p) => p.meanReturn as number)),
    meanExcess: meanOf(counted.map((p) => p.excess as number)),
    picks,
    hits,
    hitRate: picks > 0 ? hits / picks : null,
    beating,
    beatingShare: counted.length > 0 ? beating / counted.length : null,
  };
}
