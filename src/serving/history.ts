// One snapshot's per-stock histories, read from the store on demand: daily bars as columns
// (src/domain/series.ts) and TTM step functions (as the store keeps them), in one LRU sized in bytes.
//
// Policy: a call that needs only a window (the last N days of prices, a band from a date) reads
// just that window the first time its stock is asked for: a tenth to a quarter of reading the
// whole history, and one pass over a universe may never come back. From the second time on the
// stock's whole history is read and kept while the cache has room for it (the default universe
// fits whole: ~0.2 MB a stock). Once the cache is full, windowed calls keep reading their
// windows rather than evicting another stock's history; calls that need the whole history
// (weeks, months) read and keep it, evicting the least recently used. After a swap the service
// also fills the cache in the background, largest stocks first (`warm`), so that those answer
// from memory from their first call: the whole default universe fits.

import { LRUCache } from 'lru-cache';
import { priceBarsAdjusted, type AdjustedBars } from '../domain/adjusted.js';
import type { SplitEvent } from '../domain/price-change.js';
import type { BandType, PriceBar, ValuationBandResult } from '../domain/results.js';
import { resampleSeries, seriesBytes, valuationBandOfSeries, type BarSeries, type MarketCapSeries, type SeriesWindow } from '../domain/series.js';
import type { TtmStep } from '../domain/ttm.js';
import { dayNumber } from '../domain/calendar.js';
import type { MarketDataStore } from '../store/market-data.js';

/** The history cache's default budget; with the response cache (128 MiB) and the snapshot, RSS stays under 1 GiB at full size. */
export const HISTORY_CACHE_BYTES = 192 * 1024 * 1024;

/** The bars of `series` dated on or before day number `last` (views of its columns, no copy). */
function seriesThrough(series: BarSeries, last: number): BarSeries {
  const { days } = series;
  let lo = 0;
  let hi = days.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((days[mid] as number) <= last) lo = mid + 1;
    else hi = mid;
  }
  if (lo === days.length) return series;
  const cut = (c: Float64Array) => c.subarray(0, lo);
  return { days: days.subarray(0, lo), close: cut(series.close), shares: cut(series.shares), open: cut(series.open), high: cut(series.high), low: cut(series.low), volume: cut(series.volume), tradedValue: cut(series.tradedValue) };
}

/** A TTM step as held in memory, for the cache's byte count (two strings, four numbers). */
const STEP_BYTES = 160;

/** A split event as held in memory (a string and a number). */
const SPLIT_BYTES = 80;

type Held =
  | { kind: 'bars'; series: BarSeries; bytes: number }
  | { kind: 'steps'; steps: readonly TtmStep[]; bytes: number }
  | { kind: 'splits'; splits: readonly SplitEvent[]; bytes: number };

export class StockHistories {
  private readonly lru: LRUCache<string, Held>;
  private heldSeries = 0;
  private heldSeriesBytes = 0;
  /** Stocks asked for at least once (one small integer each). */
  private readonly seen = new Set<number>();

  constructor(
    private readonly store: MarketDataStore,
    /** Bars dated after this day are not served (the snapshot's as-of date). */
    readonly asOf: string,
    private readonly maxBytes = HISTORY_CACHE_BYTES,
  ) {
    this.lru = new LRUCache<string, Held>({
      maxSize: maxBytes,
      sizeCalculation: (held) => Math.max(1, held.bytes),
      dispose: (held) => {
        if (held.kind === 'bars') {
          this.heldSeries--;
          this.heldSeriesBytes -= held.bytes;
        }
      },
    });
  }

  /** Bytes held now. */
  get bytes(): number {
    return this.lru.calculatedSize;
  }

  /**
   * The stock's bars up to the as-of date: the whole history when held or when there is room to
   * keep it, else (with `window`) only the bars in `window`, which must then be all the caller uses.
   */
  async bars(securityId: number, window?: { from?: string | undefined; to?: string | undefined; last?: number | undefined }): Promise<BarSeries> {
    const held = this.lru.get(`b${securityId}`);
    if (held?.kind === 'bars') return held.series;
    if (window !== undefined && !this.admits(securityId)) {
      const to = window.to !== undefined && window.to < this.asOf ? window.to : this.asOf;
      return this.store.barSeries(securityId, { to, ...(window.from !== undefined ? { from: window.from } : {}), ...(window.last !== undefined ? { last: window.last } : {}) });
    }
    const series = await this.store.barSeries(securityId, { to: this.asOf });
    const bytes = seriesBytes(series);
    this.lru.set(`b${securityId}`, { kind: 'bars', series, bytes });
    if (this.lru.has(`b${securityId}`)) {
      this.heldSeries++;
      this.heldSeriesBytes += bytes;
    }
    return series;
  }

  /** The stock's daily market caps (or whole bars when held) from `from` to the as-of date (or more). */
  async marketCaps(securityId: number, from: string): Promise<BarSeries | MarketCapSeries> {
    const held = this.lru.get(`b${securityId}`);
    if (held?.kind === 'bars') return held.series;
    if (!this.admits(securityId)) return this.store.marketCapSeries(securityId, { from, to: this.asOf });
    return this.bars(securityId);
  }

  /** The stock's TTM step function (`ttmTimeline` of its filings, as the store keeps it); always kept (a few KB). */
  async steps(securityId: number): Promise<readonly TtmStep[]> {
    const held = this.lru.get(`s${securityId}`);
    if (held?.kind === 'steps') return held.steps;
    const steps = await this.store.ttmSteps(securityId);
    this.lru.set(`s${securityId}`, { kind: 'steps', steps, bytes: Math.max(1, steps.length) * STEP_BYTES });
    return steps;
  }

  /** The stock's split events (./bar-splits.ts in the store) up to the as-of date; always kept (none for most stocks). */
  async splits(securityId: number): Promise<readonly SplitEvent[]> {
    const held = this.lru.get(`p${securityId}`);
    if (held?.kind === 'splits') return held.splits;
    const splits = await this.store.stockSplitEvents(securityId, this.asOf);
    this.lru.set(`p${securityId}`, { kind: 'splits', splits, bytes: Math.max(1, splits.length) * SPLIT_BYTES });
    return splits;
  }

  /** A price history answer's bars (`resampleSeries` on the whole history, as stored) as objects. */
  async priceBars(securityId: number, window: SeriesWindow): Promise<PriceBar[]> {
    return resampleSeries(await this.priceSeries(securityId, window), window);
  }

  /**
   * A price history answer's bars as the answer writes them (days as a range of the columns, else
   * objects), split-adjusted when `adjust`, and the splits that fall within them (`priceBarsAdjusted`).
   */
  async priceBarsOrDays(securityId: number, window: SeriesWindow, adjust: boolean): Promise<AdjustedBars> {
    // Held events (every stock after its first call, and every warmed one) are taken as they are,
    // not through a second promise; otherwise they are read beside the bars.
    const held = this.lru.get(`p${securityId}`);
    if (held?.kind === 'splits') return priceBarsAdjusted(await this.priceSeries(securityId, window), window, held.splits, adjust);
    const [series, splits] = await Promise.all([this.priceSeries(securityId, window), this.splits(securityId)]);
    return priceBarsAdjusted(series, window, splits, adjust);
  }

  /**
   * `priceBarsOrDays` as it was on `through`, a day before the as-of date: the bars up to that
   * day (a week or month ends there, as the current one ends on the as-of date) and only the
   * split events known by then (src/serving/as-of.ts).
   */
  async priceBarsThrough(securityId: number, window: SeriesWindow, adjust: boolean, through: string): Promise<AdjustedBars> {
    const cut: SeriesWindow = { ...window, to: window.to !== undefined && window.to < through ? window.to : through };
    const [series, splits] = await Promise.all([this.priceSeries(securityId, cut), this.splits(securityId)]);
    const last = dayNumber(through);
    return priceBarsAdjusted(seriesThrough(series, last), cut, splits.filter((e) => dayNumber(e.date) <= last), adjust);
  }

  /** The series a price history reads: the whole history, or (days need no aggregation) the last `limit` in [from, to]. */
  private priceSeries(securityId: number, window: SeriesWindow): Promise<BarSeries> {
    const range = window.interval === 'day' ? { from: window.from, to: window.to, last: window.limit } : undefined;
    return this.bars(securityId, range);
  }

  /** A valuation band answer's figures (`valuationBandOfSeries` on its market caps and TTM steps) from `from` to the as-of date. */
  async band(securityId: number, type: BandType, from: string, to = this.asOf): Promise<ValuationBandResult> {
    const [series, steps] = await Promise.all([this.marketCaps(securityId, from), this.steps(securityId)]);
    return valuationBandOfSeries({ type, series, steps, from, to });
  }

  /**
   * Reads and keeps the whole histories (bars, TTM steps and split events) of `ids`, in order,
   * while the cache has room: the stocks first in the list then answer from memory from their first call. One
   * stock at a time, so a caller's own read waits behind at most one of these. Stops at the
   * first stock that does not fit, when `signal` aborts (the dataset was replaced), or at the
   * first failed read (that call's own read will report it). Returns how many of `ids` it read,
   * and how many it found held or read (a caller's own call may have read some first).
   */
  async warm(ids: readonly number[], signal: AbortSignal): Promise<{ read: number; held: number }> {
    let read = 0;
    let held = 0;
    for (const id of ids) {
      if (signal.aborted) break;
      if (this.lru.has(`b${id}`)) {
        held++;
        continue;
      }
      if (!this.hasRoom()) break;
      this.seen.add(id);
      try {
        await this.bars(id);
        await this.steps(id);
        await this.splits(id);
      } catch {
        break;
      }
      read++;
      held++;
    }
    return { read, held };
  }

  /** Whether a windowed call reads and keeps the stock's whole history: asked for before, and room for it. */
  private admits(securityId: number): boolean {
    if (!this.seen.has(securityId)) {
      this.seen.add(securityId);
      return false;
    }
    return this.hasRoom();
  }

  /** Room for one more whole history (the mean of those held, 0.2 MB before any). */
  private hasRoom(): boolean {
    const expected = this.heldSeries > 0 ? this.heldSeriesBytes / this.heldSeries : 200_000;
    return this.lru.calculatedSize + expected <= this.maxBytes;
  }
}
