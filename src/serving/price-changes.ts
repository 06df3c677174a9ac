// Each stock's split-consistent price change over 1, 3 and 12 months (src/domain/price-change.ts),
// computed once per refresh for the screener: a screen over the universe can then bound and sort
// by it without reading any stock's history. Each stock's last year of closes and share counts
// is read as columns from the bar packs (`barSeries`, on a reader thread where the store has
// them), a few stocks in flight at a time, and dropped once its three numbers are taken.

import { addDays, dateOfDayNumber } from '../domain/calendar.js';
import { monthsBefore, priceChanges, type PriceChanges } from '../domain/price-change.js';
import type { MarketDataStore } from '../store/market-data.js';

/** Calendar days before the 12-month base date still read, so a base that falls on a long holiday finds its bar. */
const BASE_SLACK_DAYS = 14;
/** Stocks read at once: keeps a reader thread busy while this thread computes. */
const IN_FLIGHT = 8;

/**
 * The price changes of `securities` as of `asOf`: what `priceChanges` gives on each one's whole
 * history up to `asOf` (stocks without a bar in the last year and the slack are left out).
 */
export async function readPriceChanges(store: MarketDataStore, asOf: string, securities: readonly { id: number }[]): Promise<Map<number, PriceChanges>> {
  const from = addDays(monthsBefore(asOf, 12), -BASE_SLACK_DAYS);
  const out = new Map<number, PriceChanges>();
  const one = async (id: number): Promise<void> => {
    const year = await store.barSeries(id, { from, to: asOf });
    const n = year.days.length;
    if (n === 0) return;
    // A stock whose last bar is older than the slack (halted) has its 12-month base before the
    // window: those few read their whole history.
    const whole = monthsBefore(dateOfDayNumber(year.days[n - 1] as number), 12) < from ? await store.barSeries(id, { to: asOf }) : year;
    out.set(id, priceChanges(whole));
  };
  for (let k = 0; k < securities.length; k += IN_FLIGHT) {
    // A turn of the event loop between groups: on SQLite without reader threads each read is synchronous.
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all(securities.slice(k, k + IN_FLIGHT).map((s) => one(s.id)));
  }
  return out;
}
