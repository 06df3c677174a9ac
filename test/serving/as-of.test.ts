// Answers as of a past day (src/serving/as-of.ts) on the demo universe in SQLite:
// - as of the day before a filing's disclosure, a stock's snapshot is the one a store holding only
//   the earlier filings computes for that day; from the disclosure day on it is the new filing's;
// - a day's universe is computed once for concurrent callers, the LRU keeps `maxDays` days, and a
//   new dataset version starts with none;
// - price history and the valuation band end at the day;
// - the earliest day is the first day some stock has a TTM and a close by then.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { addDays } from '../../src/domain/calendar.js';
import type { FinancialReport } from '../../src/domain/model.js';
import { dateOfDay } from '../../src/domain/series.js';
import { ApiError } from '../../src/kernel/errors.js';
import { loadDemo } from '../../src/refresh/demo-load.js';
import { pastDaysOf, snapshotOfDay } from '../../src/serving/as-of.js';
import { computeSnapshot, stockFigures, viewKey } from '../../src/serving/build.js';
import type { ServedSecurity } from '../../src/serving/dataset.js';
import { loadUniverse, SnapshotDataset, STOCKS_PER_READ } from '../../src/serving/served.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { KyselyStore } from '../../src/store/store.js';
import { STORE_PLACES } from '../support/stores.js';
import { tempDir } from '../support/tmp.js';

const AS_OF = '2026-11-20';
const meta = (version: number) => ({ version, updatedAt: `${AS_OF}T12:00:00+09:00`, source: 'demo', nextRefreshAt: null, sources: [] });

describe('answers as of a past day', () => {
  const tmp = tempDir();
  let store: KyselyStore;
  let served: SnapshotDataset;
  let stock: ServedSecurity;
  /** One of its filings disclosed in 2025, and the day it was. */
  let filing: FinancialReport;
  before(async () => {
    store = await openSqliteStore(join(tmp.dir, 'db.sqlite'));
    await loadDemo(store, { asOf: AS_OF, scale: 0.1 });
    served = new SnapshotDataset(await snapshotOfDay(store.market, AS_OF), meta(1), store.market, { past: pastDaysOf(2) });
    const kr = (await store.market.securities()).filter((s) => s.market === 'KR');
    for (const s of kr) {
      const in2025 = (await store.market.reports(s.id)).filter((r) => r.disclosedOn >= '2025-01-01' && r.disclosedOn <= '2025-12-31' && r.fiscalQuarter !== 4);
      if (in2025.length > 0) {
        stock = s;
        filing = in2025.sort((a, b) => (a.disclosedOn < b.disclosedOn ? 1 : -1))[0] as FinancialReport;
        break;
      }
    }
    assert.ok(stock !== undefined);
  });
  after(async () => {
    await store.close();
    tmp.cleanup();
  });

  it('as of the day before a disclosure equals the snapshot of the earlier filings alone; as of the disclosure day reflects the new filing', async () => {
    const day = filing.disclosedOn;
    const eve = addDays(day, -1);
    const quarter = `${filing.fiscalYear}Q${filing.fiscalQuarter}`;
    // A store that never received the filing, nor any disclosed with it or later.
    const other = tempDir();
    const earlier = await openSqliteStore(join(other.dir, 'db.sqlite'));
    try {
      await earlier.market.writeDataset({
        securities: [stock],
        reports: (await store.market.reports(stock.id)).filter((r) => r.disclosedOn < day),
        bars: await store.market.bars(stock.id),
        flows: await store.market.flows(stock.id),
        fx: await store.market.fx(),
      });
      const expected = computeSnapshot(await loadUniverse(earlier.market, eve), eve).views.get(viewKey('KR', stock.code));
      assert.ok(expected);
      const asOfEve = await served.past.stock(stock.code, eve);
      assert.deepEqual(asOfEve.view.snapshot, expected.snapshot);
      assert.deepEqual(asOfEve.view.price, expected.price);
      assert.ok(asOfEve.asOf.lastDisclosure !== null && asOfEve.asOf.lastDisclosure < day);
      assert.notEqual(asOfEve.view.snapshot.profitability.roe.referenceQuarter, quarter);
      // The day's universe gives the stock the same snapshot as the universe of one.
      const universe = await served.past.universe(eve);
      assert.deepEqual(universe.data.stock(stock.code).snapshot, asOfEve.view.snapshot);
      assert.deepEqual(universe.data.stock(stock.code).v3, expected.v3);
      assert.deepEqual(universe.asOfStock(universe.data.stock(stock.code)), asOfEve.asOf);

      const asOfDay = await served.past.stock(stock.code, day);
      assert.equal(asOfDay.view.snapshot.profitability.roe.referenceQuarter, quarter);
      assert.equal(asOfDay.view.snapshot.profitability.roe.disclosedOn, day);
      assert.equal(asOfDay.asOf.lastDisclosure, day);
      assert.equal(asOfDay.asOf.date, day);
    } finally {
      await earlier.close();
      other.cleanup();
    }
  });

  it('computes a day once for concurrent callers, keeps two days, and a new dataset version keeps none', async () => {
    const [a, b] = await Promise.all([served.past.universe('2025-03-31'), served.past.universe('2025-03-31')]);
    assert.equal(a, b);
    assert.equal(a.data.asOf, '2025-03-31');
    assert.equal(await served.past.universe('2025-03-31'), a);
    await served.past.universe('2025-04-30');
    await served.past.universe('2025-05-30');
    // Three days asked, two kept: the least recently asked is computed again.
    const again = await served.past.universe('2025-03-31');
    assert.notEqual(again, a);
    assert.deepEqual(again.asOf, a.asOf);
    const next = new SnapshotDataset(served.computed, meta(2), store.market, { past: pastDaysOf(2) });
    assert.notEqual(await next.past.universe('2025-03-31'), again);
    // The served day and any later one are the served dataset itself.
    assert.equal((await served.past.universe(AS_OF)).data, served);
    assert.equal((await served.past.universe('2027-01-01')).asOf.note, `asOf 2027-01-01 is after the latest data day ${AS_OF}: answered as of ${AS_OF}`);
  });

  it("reads every security, first bar, listing version and rate once a version: prepare() ahead, each day's universe from them", async () => {
    const reads = { securities: 0, firstBarDates: 0, listingVersions: 0, fx: 0 };
    const market = store.market;
    const counted = Object.create(market) as typeof market;
    for (const name of Object.keys(reads) as (keyof typeof reads)[]) {
      const read = market[name].bind(market) as () => Promise<never>;
      Object.assign(counted, { [name]: () => (reads[name]++, read()) });
    }
    const version = new SnapshotDataset(served.computed, meta(3), counted, { past: pastDaysOf(2) });
    await version.past.prepare();
    assert.deepEqual(reads, { securities: 1, firstBarDates: 1, listingVersions: 1, fx: 1 });
    const first = await version.past.universe('2025-03-31');
    const second = await version.past.universe('2025-04-30');
    assert.deepEqual(reads, { securities: 1, firstBarDates: 1, listingVersions: 1, fx: 1 });
    // The days are those computed from the store itself.
    const codes = (day: { data: { stocks(): Iterable<{ security: { code: string } }> } }) => [...day.data.stocks()].map((v) => v.security.code);
    assert.deepEqual(codes(first), codes(await served.past.universe('2025-03-31')));
    assert.ok(codes(second).length > 0);
  });

  it('price history and the valuation band end at the day', async () => {
    const day = filing.disclosedOn;
    const view = served.stock(stock.code);
    const lastBar = (await store.market.bars(stock.id, undefined, day)).at(-1);
    assert.ok(lastBar);
    const days = await served.priceBars(view, { interval: 'day', limit: 5 }, false, day);
    assert.ok(!Array.isArray(days.bars));
    assert.equal(dateOfDay(days.bars.series.days[days.bars.end - 1] as number), lastBar.date);
    // The week ends at the day: its close is the day's close, and no later bar is in it.
    const weeks = await served.priceBars(view, { interval: 'week', limit: 3 }, false, day);
    assert.ok(Array.isArray(weeks.bars));
    const week = weeks.bars.at(-1);
    assert.equal(week?.date, lastBar.date);
    assert.equal(week?.close, lastBar.close);
    const band = await served.valuationBand(view, 'pbr', '2024-01-01', day);
    assert.equal(band.to, day);
    assert.equal(band.current?.date, lastBar.date);
  });

  it('a stock listed after the day: not found as of that day, with its first session; answered from it on', async () => {
    // A copy of the stock (code 900070) whose first session is 2026-06-01: its bars from then on.
    const FIRST = '2026-06-01';
    await store.market.writeDataset({
      securities: [{ ...stock, code: '900070', name: 'Listed later' }],
      bars: (await store.market.bars(stock.id)).filter((b) => b.date >= FIRST).map((b) => ({ ...b, code: '900070' })),
      reports: (await store.market.reports(stock.id)).map((r) => ({ ...r, code: '900070' })),
    });
    const later = new SnapshotDataset(await snapshotOfDay(store.market, AS_OF), meta(2), store.market, { past: pastDaysOf(2) });
    const first = (await store.market.bars((await store.market.securities()).find((x) => x.code === '900070')?.id as number))[0]?.date as string;
    assert.ok(first >= FIRST);
    const notListed = (err: unknown) => err instanceof ApiError && err.code === 'not_found' && err.message === `KR 900070 was not listed on 2026-05-15: its first session is ${first}`;
    // The snapshot (a universe of one) and the history-based answers (price history, band) alike.
    await assert.rejects(later.past.stock('900070', '2026-05-15'), notListed);
    await assert.rejects(later.past.view('900070', '2026-05-15'), notListed);
    const after = await later.past.stock('900070', '2026-07-01');
    assert.ok(after.view.price !== null && after.view.price.date >= first);
    assert.equal((await later.past.view('900070', '2026-07-01')).security.code, '900070');
  });

  it('finds the earliest day with prices and a TTM, and refuses the day before it', async () => {
    // Each stock's first TTM day (the first TTM step with net income) and whether it has a close by
    // then, else its first close after it; the earliest over the stocks.
    let expected: string | null = null;
    for (const s of await store.market.securities()) {
      const step = (await store.market.ttmSteps(s.id)).find((x) => x.netIncome !== null);
      if (step === undefined) continue;
      const bars = await store.market.bars(s.id);
      const first = bars.some((b) => b.date <= step.effectiveFrom) ? step.effectiveFrom : bars.find((b) => b.date > step.effectiveFrom)?.date;
      if (first !== undefined && (expected === null || first < expected)) expected = first;
    }
    assert.ok(expected !== null);
    assert.equal(await served.past.earliest(), expected);
    await assert.rejects(served.past.resolve(addDays(expected, -1)), (err: unknown) => err instanceof ApiError && err.code === 'invalid_parameter' && err.message.includes(expected as string));
    assert.deepEqual(await served.past.resolve(expected), { date: expected, served: false });
  });
});

// One request's stock is read by key (src/serving/served.ts `readFew`, also with `figuresOnly`,
// what a snapshot alone reads), the day's universe a slice at a time: on every engine, each
// stock's view is the same both ways (but for the cohorts, those of a universe of one), on a day
// between disclosures, a day of a disclosure and an early day.
for (const place of STORE_PLACES)
  describe(`${place.name}: a stock's snapshot as a universe of one`, { skip: place.skip }, () => {
    let store: KyselyStore;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ store, cleanup } = await place.open());
      await loadDemo(store, { asOf: AS_OF, scale: 0.05 });
    });
    after(async () => {
      await store.close();
      await cleanup();
    });

    it("is its view in the day's universe", async () => {
      const securities = await store.market.securities();
      const fx = await store.market.fx();
      const disclosed = (await store.market.reports()).map((r) => r.disclosedOn).filter((d) => d >= '2025-06-01' && d < AS_OF).sort();
      for (const day of [addDays(AS_OF, -1), disclosed[0] as string, '2025-03-31']) {
        const universe = await snapshotOfDay(store.market, day);
        let compared = 0;
        for (const security of universe.listed) {
          const key = viewKey(security.market, security.code);
          const whole = universe.views.get(key);
          const one = await snapshotOfDay(store.market, day, { securities: [securities.find((s) => s.id === security.id) as ServedSecurity], fx });
          const alone = one.views.get(key);
          assert.ok(whole && alone);
          const { scorePercentile: _a, scoreCohortSize: _b, percentiles: _c, ...wholeOwn } = whole;
          const { scorePercentile: _d, scoreCohortSize: _e, percentiles: _f, ...aloneOwn } = alone;
          assert.deepStrictEqual(aloneOwn, wholeOwn, `${key} as of ${day}`);
          assert.equal(one.used.disclosures.get(key), universe.used.disclosures.get(key), `${key} as of ${day}: last disclosure`);
          // The snapshot's own reads (`figuresOnly`: its filings, last bar and split events) give
          // its figures too.
          const stored = securities.find((s) => s.id === security.id) as ServedSecurity;
          const figures = stockFigures(stored, await loadUniverse(store.market, day, STOCKS_PER_READ, { securities: [stored], figuresOnly: true }), day);
          assert.deepStrictEqual(figures.figures.snapshot, whole.snapshot, `${key} as of ${day}: figures only`);
          assert.deepStrictEqual(figures.figures.price, whole.price, `${key} as of ${day}: figures only, price`);
          assert.equal(figures.lastDisclosure, universe.used.disclosures.get(key) ?? null, `${key} as of ${day}: figures only, last disclosure`);
          compared++;
        }
        assert.ok(compared > 40, `${compared} stocks as of ${day}`);
      }
    });
  });
