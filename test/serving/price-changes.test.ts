// The refresh's price changes (readPriceChanges: each stock's latest bar, its closes on or before
// the three base dates and the split events the store keeps) are what the domain's
// `priceChanges` gives on each stock's whole history up to the dataset's as-of date, on SQLite
// (with and without reader threads) and PostgreSQL; and a stock whose raw closes carry a split
// gets the same changes as the same stock with adjusted closes. The universe's own (`loadUniverse`,
// read a slice at a time) are the same.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addDays } from '../../src/domain/calendar.js';
import { closeShareSeries, priceChanges } from '../domain/oracles.js';
import { computeSnapshot, viewKey } from '../../src/serving/build.js';
import { loadDemo } from '../../src/refresh/demo-load.js';
import { readPriceChanges } from '../../src/serving/price-changes.js';
import { loadUniverse } from '../../src/serving/served.js';
import type { KyselyStore } from '../../src/store/store.js';
import { STORE_PLACES } from '../support/stores.js';

const AS_OF = '2026-11-20';
/** The day of the split case's 2-for-1 split. */
const SPLIT = '2026-06-01';

const places = STORE_PLACES;

for (const place of places) describe(`price changes per refresh, ${place.name}`, { skip: place.skip }, () => {
  let store: KyselyStore;
  let cleanup: () => Promise<void>;
  let baseCode: string;
  before(async () => {
    ({ store, cleanup } = await place.open());
    await loadDemo(store, { asOf: AS_OF, scale: 0.02 });
    const [base] = (await store.market.securities()).filter((s) => s.market === 'KR');
    assert.ok(base);
    baseCode = base.code;
    const bars = await store.market.bars(base.id);
    const reports = await store.market.reports(base.id);
    // 900050: the same stock as its raw closes would show a 2-for-1 split on SPLIT: before it,
    // twice the close on half the shares (powers of two, so the adjusted base is exactly the
    // original close). 900060: halted for 25 days, past the window's 14 days of slack and short of
    // the 20 sessions without a bar that make a code delisted (src/store/delistings.ts).
    const halt = addDays(AS_OF, -25);
    await store.market.writeDataset({
      securities: [
        { ...base, code: '900050', name: 'Split case' },
        { ...base, code: '900060', name: 'Halted case' },
      ],
      bars: [
        ...bars.map((b) => (b.date < SPLIT ? { ...b, code: '900050', close: b.close * 2, open: b.open * 2, high: b.high * 2, low: b.low * 2, shares: b.shares / 2 } : { ...b, code: '900050' })),
        ...bars.filter((b) => b.date <= halt).map((b) => ({ ...b, code: '900060' })),
      ],
      reports: [...reports.map((r) => ({ ...r, code: '900050' })), ...reports.map((r) => ({ ...r, code: '900060' }))],
    });
  });
  after(async () => {
    await store.close();
    await cleanup();
  });

  it('the split case has its event stored beside its bars', async () => {
    const splitId = (await store.market.securities()).find((s) => s.code === '900050')?.id as number;
    // 2026-05-29 -> 06-01: shares x2 exactly, close halved (twice the close before it): factor 2.
    assert.deepEqual((await store.market.splitEvents('0000-01-01', '9999-12-31')).get(splitId), [{ date: '2026-06-01', factor: 2 }]);
  });

  // As of the dataset's date, as of the split day and as of the day before it (a later
  // dataset's split counts for nothing in an earlier one).
  for (const asOf of [AS_OF, SPLIT, addDays(SPLIT, -1)]) {
    it(`as of ${asOf}: equal what the whole history up to then gives, for every stock`, async () => {
      const securities = await store.market.securities();
      const histories = new Map(await Promise.all(securities.map(async (s) => [s.id, await store.market.bars(s.id, undefined, asOf)] as const)));
      const read = await readPriceChanges(store.market, new Map([...histories].map(([id, bars]) => [id, bars.slice(-1)])));
      let withYear = 0;
      for (const s of securities) {
        const whole = priceChanges(closeShareSeries(histories.get(s.id) ?? []));
        assert.deepStrictEqual(read.get(s.id), whole, s.code);
        if (whole.m12 !== null) withYear++;
      }
      // The demo's history is longer than a year: the 12-month change is a number, not a vacuous null.
      assert.ok(withYear > securities.length * 0.9, `${withYear} of ${securities.length}`);
    });

    it(`as of ${asOf}: the universe's, read a slice at a time as its bars arrive, equal the whole history's too`, async () => {
      // Seven stocks a slice: many slices, each one's changes read on the calling thread while the next one's bars are read.
      const universe = await loadUniverse(store.market, asOf, 7);
      const priced = universe.securities.filter((s) => (universe.recentBars.get(s.id) ?? []).length > 0);
      assert.ok(priced.length > 20, `${priced.length} priced`);
      for (const s of priced) {
        const whole = priceChanges(closeShareSeries(await store.market.bars(s.id, undefined, asOf)));
        assert.deepStrictEqual(universe.priceChanges?.get(s.id), whole, s.code);
      }
    });
  }

  it('a split in the raw closes changes nothing; the served view carries the changes of its own price', async () => {
    const snapshot = computeSnapshot(await loadUniverse(store.market, AS_OF), AS_OF);
    const original = snapshot.views.get(viewKey('KR', baseCode));
    const split = snapshot.views.get(viewKey('KR', '900050'));
    assert.ok(original && split);
    assert.ok(original.priceChanges.m12 !== null && original.priceChanges.m3 !== null);
    assert.deepStrictEqual(split.priceChanges, original.priceChanges);
    // Halted 25 days ago: the last bar is still its price (within the snapshot's 60 days), and its
    // changes are taken from that bar.
    const halted = snapshot.views.get(viewKey('KR', '900060'));
    assert.ok(halted?.price);
    const haltedId = (await store.market.securities()).find((s) => s.code === '900060')?.id as number;
    assert.deepStrictEqual(halted.priceChanges, priceChanges(closeShareSeries(await store.market.bars(haltedId, undefined, AS_OF))));
    assert.ok(halted.priceChanges.m12 !== null);
  });
});
