// The history cache's split-adjusted price history (src/serving/history.ts `priceBarsOrDays`)
// over a real store, on SQLite, SQLite with a reader thread and PostgreSQL: Samsung's KRX rows
// around its 2018 split (test/fixtures/samsung-split-2018.ts) answer the same adjusted bars from a
// windowed first read (only the window's bars, the split from the store's events) and from the
// whole history held afterwards; and a dataset as of a date before the split answers the bars in
// the shares of that date, with no split to apply (point in time).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AdjustedBars } from '../../src/domain/adjusted.js';
import { dateOfDay, type DayBars } from '../../src/domain/series.js';
import { StockHistories } from '../../src/serving/history.js';
import { SAMSUNG_SPLIT, SAMSUNG_SPLIT_BARS } from '../fixtures/samsung-split-2018.js';
import { STORE_PLACES } from '../support/stores.js';

/** The date and close of each day bar of an answer. */
function closes({ bars }: AdjustedBars): [string, number][] {
  const { series, start, end } = bars as DayBars;
  const out: [string, number][] = [];
  for (let i = start; i < end; i++) out.push([dateOfDay(series.days[i] as number), series.close[i] as number]);
  return out;
}

for (const place of STORE_PLACES) {
  describe(`${place.name}: split-adjusted price history`, { skip: place.skip }, () => {
    it('a windowed first read and the held history agree; before the split nothing is applied', async () => {
      const { store, cleanup } = await place.open();
      try {
        await store.market.writeDataset({
          securities: [{ market: 'KR', code: '005930', name: '삼성전자', exchange: 'KOSPI', sector: 'Semiconductors', currency: 'KRW', fiscalYearEndMonth: 12, source: 'krx' }],
          bars: SAMSUNG_SPLIT_BARS.map((b) => ({ ...b, market: 'KR' as const, code: '005930', source: 'krx' })),
        });
        const [security] = await store.market.securities();
        assert.ok(security !== undefined);
        const histories = new StockHistories(store.market, '2018-05-08');
        const window = { interval: 'day' as const, to: '2018-04-30', limit: 2 };
        // First call: only the bars up to 04-30 are read; the 05-04 event comes from the store.
        // 2,650,000 / 50 = 53,000 on both days.
        const first = await histories.priceBarsOrDays(security.id, window, true);
        assert.deepEqual(first.splits, [SAMSUNG_SPLIT]);
        assert.deepEqual(closes(first), [
          ['2018-04-27', 53_000],
          ['2018-04-30', 53_000],
        ]);
        // Second call: the whole history is read and held; the same answer.
        assert.deepEqual(closes(await histories.priceBarsOrDays(security.id, window, true)), closes(first));
        assert.ok(histories.bytes > 0);
        // As traded: the bars as stored; the split comes after them, so no jump within them.
        const traded = await histories.priceBarsOrDays(security.id, window, false);
        assert.deepEqual([traded.splits, closes(traded)], [
          [],
          [
            ['2018-04-27', 2_650_000],
            ['2018-04-30', 2_650_000],
          ],
        ]);
        // A window across it: the jump is within the bars, and named.
        const across = await histories.priceBarsOrDays(security.id, { interval: 'day', from: '2018-05-03', to: '2018-05-04' }, false);
        assert.deepEqual([across.splits, closes(across)], [
          [SAMSUNG_SPLIT],
          [
            ['2018-05-03', 2_650_000],
            ['2018-05-04', 51_900],
          ],
        ]);

        // A dataset as of 2018-05-03 knew no split: the bars in the shares of that day.
        const before = new StockHistories(store.market, '2018-05-03');
        const asOfThen = await before.priceBarsOrDays(security.id, { interval: 'day' }, true);
        assert.deepEqual(asOfThen.splits, []);
        assert.deepEqual(closes(asOfThen).at(-1), ['2018-05-03', 2_650_000]);
        // As of 05-04 the split is known and applied to the days before it.
        const after = await new StockHistories(store.market, '2018-05-04').priceBarsOrDays(security.id, { interval: 'day', limit: 2 }, true);
        assert.deepEqual([after.splits, closes(after)], [
          [SAMSUNG_SPLIT],
          [
            ['2018-05-03', 53_000],
            ['2018-05-04', 51_900],
          ],
        ]);
      } finally {
        await store.close();
        await cleanup();
      }
    });
  });
}
