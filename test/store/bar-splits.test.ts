// The split events kept beside the bars (src/store/bar-splits.ts) on both engines: every write of
// bars (in order, out of order, a correction, a backfill before the first bar, a bar inserted
// between two) leaves them `splitEvents` of the stock's bars as stored; and the two reads the
// recompute's price changes make (`splitEvents`, `closesOnOrBefore`) and a price history's
// (`stockSplitEvents`) answer what the bars hold.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { splitEvents, type SplitEvent } from '../../src/domain/price-change.js';
import type { KyselyStore } from '../../src/store/store.js';
import { bar } from '../domain/fixtures.js';
import { STORE_PLACES } from '../support/stores.js';

const places = STORE_PLACES;

const security = (code: string) => ({ market: 'KR' as const, code, name: `Split ${code}`, exchange: 'KOSPI', sector: 'Steel', currency: 'KRW' as const, fiscalYearEndMonth: 12, source: 'test' });
const x = (date: string, close: number, shares: number) => bar(date, close, { code: '000100', shares });

/** The events stored for `id`, and (the oracle) `splitEvents` of its bars as stored: they must agree. */
async function storedEvents(store: KyselyStore, id: number): Promise<SplitEvent[]> {
  const stored = (await store.market.splitEvents('0000-01-01', '9999-12-31')).get(id) ?? [];
  assert.deepStrictEqual(stored, splitEvents(await store.market.bars(id)), 'the stored events are those of the stored bars');
  // The one stock's read (a split-adjusted price history's) answers the same, and cuts at `through`.
  assert.deepStrictEqual(await store.market.stockSplitEvents(id, '9999-12-31'), stored);
  const cut = stored[0]?.date ?? '2024-01-01';
  assert.deepStrictEqual(await store.market.stockSplitEvents(id, cut), stored.filter((e) => e.date <= cut));
  return stored;
}

for (const place of places) describe(`${place.name} split events`, { skip: place.skip }, () => {
  it('are kept current by every write of bars', async () => {
    const { store, cleanup } = await place.open();
    try {
      // Stock 000100 and a neighbour 000200 whose one split no write below touches.
      await store.market.writeDataset({
        securities: [security('000100'), security('000200')],
        bars: [
          // 2 for 1 on 03-06: shares 1,000 -> 2,000, close 102 -> 51 (51 x 2 / 102 = 1).
          x('2024-03-04', 100, 1_000),
          x('2024-03-05', 102, 1_000),
          x('2024-03-06', 51, 2_000),
          x('2024-03-07', 52, 2_000),
          x('2024-03-11', 50, 2_000),
          // The neighbour: 5 for 1 on 03-05 (1,000 -> 5,000, close 500 -> 101: 101 x 5 / 500 = 1.01).
          bar('2024-03-04', 500, { code: '000200', shares: 1_000 }),
          bar('2024-03-05', 101, { code: '000200', shares: 5_000 }),
        ],
      });
      const [id, neighbour] = (await store.market.securities()).map((s) => s.id);
      assert.ok(id !== undefined && neighbour !== undefined);
      assert.deepEqual(await storedEvents(store, id), [{ date: '2024-03-06', factor: 2 }]);
      assert.deepEqual(await storedEvents(store, neighbour), [{ date: '2024-03-05', factor: 5 }]);

      // A correction of 03-06 (the old shares at the old price): no split that day; the jump is
      // now 03-06 -> 03-07 (1,000 -> 2,000, close 102 -> 52: 52 x 2 / 102 = 1.02).
      await store.market.writeDataset({ bars: [x('2024-03-06', 102, 1_000)] });
      assert.deepEqual(await storedEvents(store, id), [{ date: '2024-03-07', factor: 2 }]);

      // A backfill before the first bar: 03-01 at 200 on 500 shares; 500 -> 1,000 with the close
      // 200 -> 100 (100 x 2 / 200 = 1) is a split dated on the old first bar, 03-04.
      await store.market.writeDataset({ bars: [x('2024-03-01', 200, 500)] });
      assert.deepEqual(await storedEvents(store, id), [
        { date: '2024-03-04', factor: 2 },
        { date: '2024-03-07', factor: 2 },
      ]);

      // Two bars in one write, out of order, with a stored bar (03-11) between them (the run is
      // read back whole; the other writes here hold only what they wrote between the bars on
      // either side). 03-08 splits 2 for 1 after 03-07 (2,000 -> 4,000, close 52 -> 26:
      // 26 x 2 / 52 = 1); 03-11 (50 on 2,000) is then a 1-for-2 reverse split after it
      // (50 / 2 / 26 = 0.96); after the last bar a 1-for-10 reverse split on 03-13 (2,000 -> 200,
      // close 50 -> 520: 520 / 10 / 50 = 1.04).
      await store.market.writeDataset({ bars: [x('2024-03-13', 520, 200), x('2024-03-08', 26, 4_000)] });
      assert.deepEqual(await storedEvents(store, id), [
        { date: '2024-03-04', factor: 2 },
        { date: '2024-03-07', factor: 2 },
        { date: '2024-03-08', factor: 2 },
        { date: '2024-03-11', factor: 0.5 },
        { date: '2024-03-13', factor: 0.1 },
      ]);

      // A bar inserted between 03-01 and 03-04 in the new shares: the split moves to it (03-02),
      // and the 03-04 event (now 1,000 -> 1,000) goes.
      await store.market.writeDataset({ bars: [x('2024-03-02', 100, 1_000)] });
      const after = [
        { date: '2024-03-02', factor: 2 },
        { date: '2024-03-07', factor: 2 },
        { date: '2024-03-08', factor: 2 },
        { date: '2024-03-11', factor: 0.5 },
        { date: '2024-03-13', factor: 0.1 },
      ];
      assert.deepEqual(await storedEvents(store, id), after);
      // The same write again (idempotent), and the neighbour untouched throughout.
      await store.market.writeDataset({ bars: [x('2024-03-02', 100, 1_000)] });
      assert.deepEqual(await storedEvents(store, id), after);
      assert.deepEqual(await storedEvents(store, neighbour), [{ date: '2024-03-05', factor: 5 }]);

      // splitEvents' range: after `after`, up to and including `through`.
      assert.deepEqual((await store.market.splitEvents('2024-03-02', '2024-03-07')).get(id), [{ date: '2024-03-07', factor: 2 }]);
      assert.deepEqual([...(await store.market.splitEvents('2024-03-01', '2024-03-05')).keys()], [id, neighbour]);
    } finally {
      await store.close();
      await cleanup();
    }
  });

  it('closesOnOrBefore: the close of the last bar on or before each date, null without one, in the order asked', async () => {
    const { store, cleanup } = await place.open();
    try {
      await store.market.writeDataset({
        securities: [security('000100')],
        bars: [x('2024-03-04', 100, 1_000), x('2024-03-05', 102.5, 1_000), x('2024-03-08', 99, 1_000)],
      });
      const [id] = (await store.market.securities()).map((s) => s.id);
      assert.ok(id !== undefined);
      // On a bar: its close; between bars (03-06, 03-07): 03-05's; after the last: 03-08's;
      // before the first, or a stock with no bars: null.
      const asked = [
        { securityId: id, date: '2024-03-06' },
        { securityId: id, date: '2024-03-04' },
        { securityId: id, date: '2024-03-03' },
        { securityId: id + 1_000, date: '2024-03-08' },
        { securityId: id, date: '2030-01-01' },
      ];
      const answer = [102.5, 100, null, null, 99];
      const answeredBefore = store.seriesReaders?.answered ?? 0;
      assert.deepStrictEqual(await store.market.closesOnOrBefore(asked), answer);
      assert.deepStrictEqual(await store.market.closesOnOrBefore([]), []);
      // More than one read's worth (128): each answer still in its place.
      const many = Array.from({ length: 300 }, (_, i) => asked[i % asked.length] as (typeof asked)[number]);
      assert.deepStrictEqual(await store.market.closesOnOrBefore(many), Array.from({ length: 300 }, (_, i) => answer[i % answer.length]));
      // With a reader thread, it read them: 1 read for 5, none for 0, 3 for 300.
      if (store.seriesReaders) assert.equal(store.seriesReaders.answered - answeredBefore, 4);
    } finally {
      await store.close();
      await cleanup();
    }
  });
});
