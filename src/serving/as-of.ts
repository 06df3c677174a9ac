// Answers as of a past day. The store keeps every filing with its disclosure date and every bar
// with its session, so a day's universe is `loadUniverse` + `computeSnapshot` with that day as
// the as-of date, exactly as the publisher computes today's (`snapshotOfDay`, which the backtest
// also uses). Per served dataset version:
//
// - a day's whole universe (rankings, screen, search, the score and percentile cohorts) is
//   computed once, however many requests ask for it at once (one promise shared), and kept in an
//   LRU of `AS_OF_CACHE_DAYS` days; a new dataset version starts with an empty one (the store's
//   past has changed with it);
// - one stock's snapshot is computed from that stock's filings and last bar alone (its figures,
//   `stockFigures`) unless its day's universe is held; price history and the valuation band read
//   the served dataset's history cache through the day (src/serving/history.ts `priceBarsThrough`);
// - every security's listing versions (its name, sector and exchange over time), every security
//   and each one's first bar are read once and held: a day's universe is picked from them, and it
//   and one stock's answer take the listing version of their day;
// - the earliest day answered is the first day the store holds both prices and a TTM, found once.
//
// Today's date or later is answered by the served dataset itself.

import { LRUCache } from 'lru-cache';
import { listedAs } from '../domain/listings.js';
import { ApiError } from '../kernel/errors.js';
import type { MarketDataStore } from '../store/market-data.js';
import { computeSnapshot, computeSnapshotYielding, stockFigures, viewKey, type ComputedSnapshot } from './build.js';
import { normaliseCode, type AnsweredDay, type AsOfUse, type PastDay, type PastDays, type ServedSecurity, type StockFigures, type StockView } from './dataset.js';
import { loadUniverse, SnapshotDataset, STOCKS_PER_READ, type UniversePart } from './served.js';

/** Past days whose universe is kept per dataset version (AS_OF_CACHE_DAYS). */
export const AS_OF_CACHE_DAYS = 12;

/**
 * The snapshot of `day` computed from the store: every security's figures as known at that day's
 * close (a filing from its disclosure date, a price from its session), as the publisher computes
 * today's, each company with the name, sector and exchange it had that day (its listing version,
 * src/domain/listings.ts). With `only`: no trade or sector exports, and only `only.securities`
 * when given, taken as dated by the caller (`UniversePart`).
 */
export async function snapshotOfDay(store: MarketDataStore, day: string, only?: UniversePart): Promise<ComputedSnapshot> {
  // The day's names, sectors and exchanges: `only.securities` are dated by the caller.
  const part = only?.securities !== undefined || only?.listings !== undefined ? only : { ...only, listings: await store.listingVersions() };
  const universe = await loadUniverse(store, day, STOCKS_PER_READ, part);
  // One request's few stocks are computed at once: a pause would queue them behind every other request.
  return only?.securities === undefined ? computeSnapshotYielding(universe, day) : computeSnapshot(universe, day);
}

/** Stocks whose TTM steps are read between two turns of the event loop. */
const STOCKS_PER_TURN = 100;

/**
 * The first day the store holds both prices and a TTM: over the securities, the earliest day on
 * which one has a TTM (four quarters disclosed: the first TTM step with net income) and a close on
 * or before it, i.e. the later of its first TTM day and its first bar. Null when no security has
 * both by `through`. The stocks are taken by first bar, earliest first, and the scan stops at the
 * first whose first bar is not before the best day found (none after it can be earlier): on a
 * store whose stocks have prices from their first filings on, it reads one stock's TTM steps.
 */
export async function earliestAsOf(
  store: MarketDataStore,
  securities: readonly ServedSecurity[],
  through: string,
  firstBars: ReadonlyMap<number, string> | Promise<ReadonlyMap<number, string>> = store.firstBarDates(),
): Promise<string | null> {
  const firstBarOf = await firstBars;
  const priced = securities
    .flatMap((s) => {
      const first = firstBarOf.get(s.id);
      return first !== undefined && first <= through ? [{ id: s.id, first }] : [];
    })
    .sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : a.id - b.id));
  let best: string | null = null;
  let n = 0;
  for (const { id, first } of priced) {
    if (best !== null && first >= best) break;
    if (++n % STOCKS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
    const step = (await store.ttmSteps(id)).find((x) => x.netIncome !== null);
    if (step === undefined || step.effectiveFrom > through) continue;
    const day = step.effectiveFrom > first ? step.effectiveFrom : first;
    if (best === null || day < best) best = day;
  }
  return best;
}

/** The as-of answers of `served` (its `past`), keeping up to `maxDays` days' universes. */
export function pastDaysOf(maxDays = AS_OF_CACHE_DAYS): (served: SnapshotDataset) => PastDays {
  return (served) => new ServedPastDays(served, maxDays);
}

interface HeldDay {
  promise: Promise<PastDay>;
  /** Set once the day is computed. */
  value?: PastDay;
}

class ServedPastDays implements PastDays {
  private readonly days: LRUCache<string, HeldDay>;
  /**
   * The earliest day answered: over today's listed stocks and those delisted since (a delisted
   * company's history counts too).
   */
  readonly earliest = readOnce(() => {
    const { listed, delisted } = this.served.computed;
    return earliestAsOf(this.served.store, [...listed, ...[...delisted.values()].map((d) => d.security)], this.served.asOf, this.firstBarDates());
  });
  /** Every security's listing versions (a small table: about one a security). */
  private readonly listings = readOnce(() => this.served.store.listingVersions());
  /** Each security's first bar date (the earliest day, `listedBy` and the universe of a day). */
  private readonly firstBarDates = readOnce(() => this.served.store.firstBarDates());
  /** Every security the store lists, in today's form (the universe of each day is picked from them). */
  private readonly securities = readOnce(() => this.served.store.securities());
  /** The store's rates, by date (`rateOn` searches them). */
  private readonly fx = readOnce(async () => [...(await this.served.store.fx())].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0)));

  constructor(
    private readonly served: SnapshotDataset,
    maxDays: number,
  ) {
    this.days = new LRUCache<string, HeldDay>({ max: Math.max(1, maxDays) });
  }

  async prepare(): Promise<void> {
    await Promise.all([this.earliest(), this.listings(), this.securities(), this.fx()]);
  }

  async resolve(day: string): Promise<AnsweredDay> {
    const today = this.served.asOf;
    if (day >= today) {
      return day === today
        ? { date: today, served: true }
        : { date: today, served: true, note: `asOf ${day} is after the latest data day ${today}: answered as of ${today}` };
    }
    const earliest = await this.earliest();
    if (earliest === null || day < earliest) {
      const detail =
        earliest === null
          ? `parameter 'asOf' (${day}) is before any day the store holds both prices and a TTM (it holds none yet); allowed: omit asOf`
          : `parameter 'asOf' (${day}) is before the earliest day with both prices and a TTM, ${earliest}; allowed: ${earliest} or later`;
      throw new ApiError('invalid_parameter', detail, { parameter: 'asOf' });
    }
    return { date: day, served: false };
  }

  async universe(day: string): Promise<PastDay> {
    const answered = await this.resolve(day);
    if (answered.served) return pastDayOf(this.served, answered);
    const held = this.days.get(answered.date);
    if (held !== undefined) return held.promise;
    const entry: HeldDay = { promise: this.compute(answered) };
    this.days.set(answered.date, entry);
    entry.promise.then(
      (value) => (entry.value = value),
      () => {
        if (this.days.peek(answered.date) === entry) this.days.delete(answered.date);
      },
    );
    return entry.promise;
  }

  async stock(code: string, day: string): Promise<{ view: StockFigures; asOf: AsOfUse }> {
    const answered = await this.resolve(day);
    if (answered.served) {
      const view = this.served.stock(code);
      return { view, asOf: stockUse(this.served.computed, view, answered) };
    }
    const held = this.days.peek(answered.date)?.value;
    if (held !== undefined) {
      const view = held.data.stock(code);
      return { view, asOf: held.asOfStock(view) };
    }
    const security = await this.listedOn(this.securityOn(code, answered.date), answered.date);
    await this.listedBy(security, answered.date);
    // Only what the snapshot shows: its filings and last bar, no flows, rates or cohort.
    const universe = await loadUniverse(this.served.store, answered.date, STOCKS_PER_READ, { securities: [security], figuresOnly: true });
    const { figures, lastDisclosure } = stockFigures(security, universe, answered.date);
    return {
      view: figures,
      asOf: { date: answered.date, lastSession: figures.price?.date ?? null, lastDisclosure, ...(answered.note === undefined ? {} : { note: answered.note }) },
    };
  }

  async view(code: string, day: string): Promise<Pick<StockView, 'security'>> {
    let security: ServedSecurity;
    try {
      security = this.served.stock(code).security;
    } catch (err) {
      // A code delisted since: its security, for a day it was listed.
      if (!(err instanceof ApiError)) throw err;
      const gone = this.delistedOn(code, day);
      if (gone === undefined) throw err;
      security = gone;
    }
    if (day >= this.served.asOf) return { security };
    await this.listedBy(security, day);
    return { security: await this.listedOn(security, day) };
  }

  /** `security` with the name, sector and exchange of its listing version valid on `day`. */
  private async listedOn(security: ServedSecurity, day: string): Promise<ServedSecurity> {
    return listedAs(security, (await this.listings()).get(security.id), day);
  }

  /**
   * Throws not_found for a stock whose first session is after `day`: it was not listed then, and
   * an answer of that day has nothing of it (the day's universe leaves it out the same way). A
   * security without any bar is not judged here.
   */
  private async listedBy(security: ServedSecurity, day: string): Promise<void> {
    const first = (await this.firstBarDates()).get(security.id);
    if (first !== undefined && first > day) {
      throw new ApiError('not_found', `${security.market} ${security.code} was not listed on ${day}: its first session is ${first}`);
    }
  }

  /** A served stock's security, or a delisted one's for a day it was listed; else the served dataset's not_found or data_unavailable. */
  private securityOn(code: string, day: string): ServedSecurity {
    try {
      return this.served.stock(code).security;
    } catch (err) {
      const gone = this.delistedOn(code, day);
      if (gone === undefined) throw err;
      return gone;
    }
  }

  /** The security of a code delisted by the served day whose last trading day is on or after `day`. */
  private delistedOn(code: string, day: string): ServedSecurity | undefined {
    const { market, code: normalised } = normaliseCode(code);
    const gone = this.served.computed.delisted.get(viewKey(market, normalised));
    return gone !== undefined && day <= gone.delistedOn ? gone.security : undefined;
  }

  async ttmDisclosedBy(view: Pick<StockView, 'security'>, through: string): Promise<string | null> {
    let disclosed: string | null = null;
    for (const step of await this.served.histories.steps(view.security.id)) {
      if (step.effectiveFrom > through) break;
      disclosed = step.effectiveFrom;
    }
    return disclosed;
  }

  private async compute(answered: AnsweredDay): Promise<PastDay> {
    // Neither trade nor sector exports take asOf: a held day keeps none.
    const [fx, listings, securities, firstBars] = await Promise.all([this.fx(), this.listings(), this.securities(), this.firstBarDates()]);
    const computed = await snapshotOfDay(this.served.store, answered.date, { fx, listings, stored: { securities, firstBars } });
    const { served } = this;
    const data = new SnapshotDataset(
      computed,
      { version: served.version, updatedAt: served.updatedAt, source: served.source, nextRefreshAt: served.nextRefreshAt, sources: served.sources },
      served.store,
      { histories: served.histories, past: () => this },
    );
    return pastDayOf(data, answered);
  }
}

/** `read` run once, its promise kept (per dataset version, with the object holding it); a failed read is run again by the next call. */
function readOnce<T>(read: () => Promise<T>): () => Promise<T> {
  let held: Promise<T> | null = null;
  return () => {
    if (held === null) {
      const promise = read();
      held = promise;
      promise.catch(() => {
        if (held === promise) held = null;
      });
    }
    return held;
  };
}

function stockUse(computed: ComputedSnapshot, view: StockView, answered: AnsweredDay): AsOfUse {
  return {
    date: answered.date,
    lastSession: view.price?.date ?? null,
    lastDisclosure: computed.used.disclosures.get(viewKey(view.security.market, view.security.code)) ?? null,
    ...(answered.note === undefined ? {} : { note: answered.note }),
  };
}

function pastDayOf(data: SnapshotDataset, answered: AnsweredDay): PastDay {
  const { used } = data.computed;
  return {
    data,
    asOf: { date: answered.date, lastSession: used.lastSession, lastDisclosure: used.lastDisclosure, ...(answered.note === undefined ? {} : { note: answered.note }) },
    asOfStock: (view) => stockUse(data.computed, view, answered),
  };
}
