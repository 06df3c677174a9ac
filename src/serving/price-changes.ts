// Each stock's split-consistent price change over 1, 3 and 12 months (src/domain/price-change.ts),
// computed once per refresh for the screener: a screen over the universe can then bound and sort
// by it without reading any stock's history. It reads no history either: per stock, the latest
// bar (the recompute has it: the last of its recent bars), the closes on or before the three base
// dates (a key probe each, `closesOnOrBefore`, on a reader thread where the store has them), and
// the split events the store keeps beside the bars (`splitEvents`, a few rows for the universe),
// which `priceChangesFrom` makes into what the whole-history walk (test/domain/oracles.ts
// `priceChanges`) gives.

import { priceChangeBaseDates, priceChangesFrom, type PriceChanges, type SplitEvent } from '../domain/price-change.js';
import type { MarketDataStore } from '../store/market-data.js';

/** Stocks whose base closes one read asks for (three each): a few milliseconds of probes. */
const STOCKS_PER_READ = 250;

/** A stock of `readPriceChanges`: its latest bar and that bar's three base dates. */
interface Latest {
  id: number;
  latest: { date: string; close: number };
  bases: [string, string, string];
}

/** Each stock of `latestBars` with a bar, as of the last of its bars. */
function latestOf(latestBars: ReadonlyMap<number, readonly { date: string; close: number }[]>): Latest[] {
  const stocks: Latest[] = [];
  for (const [id, bars] of latestBars) {
    const latest = bars.at(-1);
    if (latest !== undefined) stocks.push({ id, latest, bases: priceChangeBaseDates(latest.date) });
  }
  return stocks;
}

/** The probes of `stocks`' base closes, three a stock in its order. */
const baseProbes = (stocks: readonly Latest[]) => stocks.flatMap(({ id, bases }) => bases.map((date) => ({ securityId: id, date })));

/** `stocks`' price changes into `out`, from their base closes (three a stock, in order) and the split events by stock. */
function changesInto(out: Map<number, PriceChanges>, stocks: readonly Latest[], closes: readonly (number | null)[], splits: ReadonlyMap<number, readonly SplitEvent[]>): void {
  stocks.forEach(({ id, latest }, i) => {
    const at = (j: number) => closes[3 * i + j] ?? null;
    out.set(id, priceChangesFrom(latest, [at(0), at(1), at(2)], splits.get(id) ?? []));
  });
}

/**
 * The price changes of each stock of `latestBars` as of the last of its bars (its latest bar up to
 * the dataset's as-of date; a stock with none is left out): what the whole-history walk
 * (test/domain/oracles.ts `priceChanges`) gives on its history up to that bar.
 */
export async function readPriceChanges(store: MarketDataStore, latestBars: ReadonlyMap<number, readonly { date: string; close: number }[]>): Promise<Map<number, PriceChanges>> {
  const stocks = latestOf(latestBars);
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
    return store.closesOnOrBefore(baseProbes(stocks.slice(k, k + STOCKS_PER_READ)));
  };
  let next: Promise<(number | null)[]> | null = read(0);
  for (let k = 0; next !== null; k += STOCKS_PER_READ) {
    const closes: (number | null)[] = await next;
    next = k + STOCKS_PER_READ < stocks.length ? read(k + STOCKS_PER_READ) : null;
    changesInto(out, stocks.slice(k, k + STOCKS_PER_READ), closes, splits);
  }
  return out;
}

/**
 * `readPriceChanges` of one slice of the universe into `out`, its base closes read on the calling
 * thread (`closesOnOrBefore` `here`): the universe's reads run it on each slice as its bars
 * arrive, while a reader thread reads the next slice's. `splits`: every split event that can
 * count for the slice's stocks (at least those after the earliest 12-month base date, through
 * the latest bar; `priceChangesFrom` counts only those of each stock's own span).
 */
export async function readSlicePriceChanges(
  store: MarketDataStore,
  latestBars: ReadonlyMap<number, readonly { date: string; close: number }[]>,
  splits: ReadonlyMap<number, readonly SplitEvent[]>,
  out: Map<number, PriceChanges>,
): Promise<void> {
  const stocks = latestOf(latestBars);
  if (stocks.length > 0) changesInto(out, stocks, await store.closesOnOrBefore(baseProbes(stocks), true), splits);
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
