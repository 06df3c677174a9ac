// Each stock's split-consistent price change over 1, 3 and 12 months (src/domain/price-change.ts),
// computed once per refresh for the screener: a screen over the universe can then bound and sort
// by it without reading any stock's history. The bars are read a slice of stocks at a time and
// dropped once their three numbers are taken, so the year of bars is never held whole.

import { addDays } from '../domain/calendar.js';
import { monthsBefore, priceChanges, type PriceChanges } from '../domain/price-change.js';
import type { MarketDataStore, UniverseSlice } from '../store/market-data.js';

/** Calendar days before the 12-month base date still read, so a base that falls on a long holiday finds its bar. */
const BASE_SLACK_DAYS = 14;
/** More bars than any stock trades in 12 months plus the slack (~270): the window is bounded by its first date. */
const MAX_BARS = 400;

/** The price changes of every stock in `slices` as of `asOf`: what `priceChanges` gives on each one's whole history (stocks without a bar in the window are left out). */
export async function readPriceChanges(store: MarketDataStore, asOf: string, slices: readonly UniverseSlice[]): Promise<Map<number, PriceChanges>> {
  const from = addDays(monthsBefore(asOf, 12), -BASE_SLACK_DAYS);
  const out = new Map<number, PriceChanges>();
  for (const slice of slices) {
    // A turn of the event loop between reads: on SQLite each read is synchronous.
    await new Promise((resolve) => setImmediate(resolve));
    for (const [id, bars] of await store.lastBars(from, asOf, MAX_BARS, slice)) {
      const last = bars[bars.length - 1];
      // A stock whose last bar is older than the slack (halted) has its 12-month base before
      // the window: those few read their whole history.
      const whole = last !== undefined && monthsBefore(last.date, 12) < from ? await store.bars(id, undefined, asOf) : bars;
      out.set(id, priceChanges(whole));
    }
  }
  return out;
}
