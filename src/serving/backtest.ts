// The backtest's reads and loop (`npm run cli -- backtest`, docs/calculations.md "Backtest"): per
// rebalance day, the whole market's snapshot as of that day (the computation every as-of answer
// is made of: `snapshotOfDay`, ./as-of.ts), the picks the caller's as-of answer gives on it,
// and each stock's last close of its holding period. The arithmetic is src/domain/backtest.ts.

import { forwardReturn, periodFigures, type DatedClose, type Period, type PeriodFigures } from '../domain/backtest.js';
import type { Market } from '../domain/model.js';
import type { MarketDataStore } from '../store/market-data.js';
import { snapshotOfDay } from './as-of.js';
import { SnapshotDataset, STOCKS_PER_READ } from './served.js';

/**
 * The store as a backtest of `market` reads it: only the market's securities, and the reads that
 * are the same whatever the day (the securities and their listing versions, FX, trade and sector exports: whole tables) made
 * once and shared by every day's snapshot. Only the market's stocks are read and computed: none of
 * a stock's figures (its V3 inputs, its score percentile within its market, its sector and market
 * cohorts) depends on the other market's stocks.
 */
export function backtestReads(store: MarketDataStore, market: Market): MarketDataStore {
  const held = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, read: () => Promise<T>): Promise<T> => {
    let value = held.get(key) as Promise<T> | undefined;
    if (value === undefined) held.set(key, (value = read()));
    return value;
  };
  return new Proxy(store, {
    get(target, property) {
      switch (property) {
        case 'securities':
          return () => once('securities', async () => (await target.securities()).filter((s) => s.market === market));
        case 'firstBarDates':
          // Each stock's first bar, for every day's universe (`listedOn`): the same for all of them.
          return () => once('firstBarDates', () => target.firstBarDates());
        case 'listingVersions':
          return () => once('listingVersions', () => target.listingVersions());
        case 'fx':
          return () => once('fx', () => target.fx());
        case 'trade':
          return () => once('trade', () => target.trade());
        case 'sectorExports':
          return (months?: { from: string; to: string }) => once(`exports:${months?.from ?? ''}:${months?.to ?? ''}`, () => target.sectorExports(months));
        default: {
          const value: unknown = Reflect.get(target, property, target);
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        }
      }
    },
  });
}

/** The snapshot as of `day`: the as-of answers' own computation (./as-of.ts), re-exported for the backtest's callers. */
export { snapshotOfDay };

/** A candidate pick as the day's answer (get_rankings, screen_stocks) gives it, in its order. */
export interface Candidate {
  code: string;
  name: string;
  /** The value the picks are ordered by (the V3 score, or the screen's sort field). */
  value: number | string | null;
}

export interface Holding extends Candidate {
  start: DatedClose;
  end: DatedClose;
  returnPct: number;
  endedEarly: boolean;
}

export interface PeriodResult extends Period, PeriodFigures {
  picks: Holding[];
  /** Stocks of the market universe that day: those with a close on the rebalance day. */
  marketStocks: number;
}

export interface BacktestTimings {
  /** Reading and computing each day's snapshot. */
  snapshotsMs: number;
  /** The picks' answers. */
  picksMs: number;
  /** The holdings' last closes and the split events. */
  returnsMs: number;
}

export interface BacktestRun {
  market: Market;
  periods: readonly Period[];
  top: number;
  /** The day's candidates in the answer's order, paged as needed; the first `top` with a close that day are the picks. */
  candidates(dataset: SnapshotDataset): AsyncIterable<Candidate>;
  /** The served dataset's `source` (`demo` for the demo universe). */
  source: string;
  /** Called after each period, for progress. */
  onPeriod?: (done: number, of: number) => void;
}

/**
 * Runs the backtest: per period, the snapshot of its rebalance day, its picks, and every market
 * stock's forward return (the picks' and the benchmark's by the same rules).
 */
export async function runBacktest(store: MarketDataStore, run: BacktestRun): Promise<{ results: PeriodResult[]; timings: BacktestTimings }> {
  const reads = backtestReads(store, run.market);
  const timings: BacktestTimings = { snapshotsMs: 0, picksMs: 0, returnsMs: 0 };
  const results: PeriodResult[] = [];
  if (run.periods.length === 0) return { results, timings };
  let t = performance.now();
  const lap = (key: keyof BacktestTimings) => {
    const now = performance.now();
    timings[key] += now - t;
    t = now;
  };
  // Every split that can fall inside a holding, read once.
  const first = run.periods.reduce((d, p) => (p.day < d ? p.day : d), '9999-12-31');
  const last = run.periods.reduce((d, p) => (p.endDay > d ? p.endDay : d), '0000-01-01');
  const splits = await store.splitEvents(first, last);
  lap('returnsMs');
  for (const period of run.periods) {
    const computed = await snapshotOfDay(reads, period.day);
    lap('snapshotsMs');
    // The market universe that day: its stocks with a close on the rebalance day (a stock not
    // traded that day cannot be bought at that day's close).
    const universe = new Map<string, { id: number; name: string; close: number }>();
    for (const view of computed.views.values()) {
      if (view.security.market === run.market && view.price !== null && view.price.date === period.day) universe.set(view.security.code, { id: view.security.id, name: view.security.name, close: view.price.close });
    }
    const dataset = new SnapshotDataset(computed, { version: 0, updatedAt: period.day, source: run.source, nextRefreshAt: null, sources: [] }, store);
    const chosen: Candidate[] = [];
    if (universe.size > 0 && run.top > 0) {
      for await (const candidate of run.candidates(dataset)) {
        if (!universe.has(candidate.code) || chosen.some((c) => c.code === candidate.code)) continue;
        chosen.push(candidate);
        if (chosen.length >= run.top) break;
      }
    }
    lap('picksMs');
    const ends = await lastClosesOf(store, [...universe.values()].map((s) => s.id), period.day, period.endDay);
    const returnOf = (stock: { id: number; close: number }) => forwardReturn({ date: period.day, close: stock.close }, ends.get(stock.id) ?? null, period.endDay, splits.get(stock.id) ?? []);
    const market: number[] = [];
    for (const stock of universe.values()) market.push(returnOf(stock).returnPct);
    const picks = chosen.map((c): Holding => {
      const stock = universe.get(c.code) as { id: number; close: number };
      return { ...c, start: { date: period.day, close: stock.close }, ...returnOf(stock) };
    });
    results.push({ ...period, ...periodFigures(picks.map((p) => p.returnPct), market), picks, marketStocks: universe.size });
    lap('returnsMs');
    run.onPeriod?.(results.length, run.periods.length);
  }
  return { results, timings };
}

/** Each of `ids`' last close dated in [`from`, `through`] (none: no bar in it), a slice of ids per read. */
async function lastClosesOf(store: MarketDataStore, ids: readonly number[], from: string, through: string): Promise<Map<number, DatedClose>> {
  const wanted = new Set(ids);
  const sorted = [...ids].sort((a, b) => a - b);
  const out = new Map<number, DatedClose>();
  for (let k = 0; k < sorted.length; k += STOCKS_PER_READ) {
    const slice = { first: sorted[k] as number, last: sorted[Math.min(k + STOCKS_PER_READ, sorted.length) - 1] as number, securities: [] };
    for (const [id, bars] of await store.lastBars(from, through, 1, slice)) {
      const bar = bars.at(-1);
      if (bar !== undefined && wanted.has(id)) out.set(id, { date: bar.date, close: bar.close });
    }
  }
  return out;
}
