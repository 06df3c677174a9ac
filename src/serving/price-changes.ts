// Each stock's split-consistent price change over 1, 3 and 12 months (src/domain/price-change.ts),
// computed once per refresh for the screener: a screen over the universe can then bound and sort
// by it without reading any stock's history. It reads no history either: per stock, the latest
// bar (the recompute has it: the last of its recent bars), the closes on or before the three base
// dates (a key probe each, `closesOnOrBefore`, on a reader thread where the store has them), and
// the split events the store keeps beside the bars (`splitEvents`, a few rows for the universe),
// which `priceChangesFrom` makes into what the whole-history walk (test/domain/oracles.ts
// `priceChanges`) gives.

import { priceChangeBaseDates, priceChangesFrom, type PriceChanges } from '../domain/price-change.js';
import type { MarketDataStore } from '../store/market-data.js';

/** Stocks whose base closes one read asks for (three each): a few milliseconds of probes. */
const STOCKS_PER_READ = 250;

/**
 * The price changes of each stock of `latestBars` as of the last of its bars (its latest bar up to
 * the dataset's as-of date; a stock with none is left out): what the whole-history walk
 * (test/domain/oracles.ts `priceChanges`) gives on its history up to that bar.
 */
export async function readPriceChanges(store: MarketDataStore, latestBars: ReadonlyMap<number, readonly { date: string; close: number }[]>): Promise<Map<number, PriceChanges>> {
  const stocks: { id: number; latest: { date: string; close: number }; bases: [string, string, string] }[] = [];
  for (const [id, bars] of latestBars) {
    const latest = bars.at(-1);
    if (latest !== undefined) stocks.push({ id, latest, bases: priceChangeBaseDates(latest.date) });
  }
  const out = new Map<number, PriceChanges>();
  if (stocks.length === 0) return out;
  // Every event that can count for some stock: after the earliest 12-month base date, up to the latest bar.
  let after = '9999-12-31';
  let through = '0000-01-01';
  for (const { latest, bases } of stocks) {
    if (bases[2] < after) after = bases[2];
    if (latest.date > through) through = latest.date;
  }
  const splits = await store.splitEvents(after, through);
  // A slice at a time, the next asked for before this one is used, with a turn of the event loop
  // before each (on SQLite without reader threads each read is synchronous).
  const read = async (k: number) => {
    await new Promise((resolve) => setImmediate(resolve));
    return store.closesOnOrBefore(stocks.slice(k, k + STOCKS_PER_READ).flatMap(({ id, bases }) => bases.map((date) => ({ securityId: id, date }))));
  };
  let next: Promise<(number | null)[]> | null = read(0);
  for (let k = 0; next !== null; k += STOCKS_PER_READ) {
    const closes: (number | null)[] = await next;
    next = k + STOCKS_PER_READ < stocks.length ? read(k + STOCKS_PER_READ) : null;
    stocks.slice(k, k + STOCKS_PER_READ).forEach(({ id, latest }, i) => {
      const at = (j: number) => closes[3 * i + j] ?? null;
      out.set(id, priceChangesFrom(latest, [at(0), at(1), at(2)], splits.get(id) ?? []));
    });
  }
  return out;
}

/**
 * `readPriceChanges` of one request's few stocks, each on its own as of its latest bar: its split
 * events by its key (those `splitEvents` gives for it alone: after its 12-month base date, up to
 * that bar) and its three base closes in one read of a few probes, without turns of the event loop.
 */
export async function readFewPriceChanges(store: MarketDataStore, latestBars: ReadonlyMap<number, readonly { date: string; close: number }[]>): Promise<Map<number, PriceChanges>> {
  const out = new Map<number, PriceChanges>();
  for (const [id, bars] of latestBars) {
    const latest = bars.at(-1);
    if (latest === undefined) continue;
    const bases = priceChangeBaseDates(latest.date);
    const closes = await store.closesOnOrBefore(bases.map((date) => ({ securityId: id, date })));
    const splits = (await store.stockSplitEvents(id, latest.date)).filter((e) => e.date > bases[2]);
    out.set(id, priceChangesFrom(latest, [closes[0] ?? null, closes[1] ?? null, closes[2] ?? null], splits));
  }
  return out;
}
