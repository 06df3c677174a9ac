// The per-stock history fast path (typed-array columns, windowed reads, the band from the TTM
// timeline) must answer byte for byte what the test oracles answer (test/domain/oracles.ts):
// `resampleBars` and `valuationBand` on every bar and filing of the stock, serialised. Every stock of a demo
// universe, many argument sets, with a cache that holds everything and one that holds nothing
// (every windowed call then reads only its window). Day bars are also compared as the price
// history answer writes them, from the columns (src/domain/column-rows.ts).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { join } from 'node:path';
import type { BandType } from '../../src/domain/results.js';
import { loadDemo } from '../../src/refresh/demo-load.js';
import { StockHistories } from '../../src/serving/history.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { StoredSecurity } from '../../src/store/market-data.js';
import type { KyselyStore } from '../../src/store/store.js';
import { jsonBytes } from '../../src/wire/json-bytes.js';
import { BAR_COLUMNS, dayRowsInFormat } from '../../src/tools/get-price-history.js';
import { inFormat } from '../../src/tools/series.js';
import { tempDir } from '../support/tmp.js';
import { resampleBars, valuationBand, type ResampleOptions } from '../domain/oracles.js';

const AS_OF = '2026-11-20';

const PRICE_CASES: ResampleOptions[] = [
  { interval: 'day', limit: 260 },
  { interval: 'day', limit: 2600 },
  { interval: 'day', limit: 1 },
  { interval: 'day', from: '2020-03-01', to: '2021-06-30', limit: 50 },
  { interval: 'day', from: '2019-12-31', to: '2020-01-06' },
  { interval: 'day', to: '2014-02-01', limit: 260 },
  { interval: 'day', from: '2026-11-21', limit: 260 },
  { interval: 'day', to: '2030-01-01', limit: 7 },
  { interval: 'week', limit: 260 },
  { interval: 'week', from: '2020-01-01', to: '2020-03-04', limit: 2600 },
  { interval: 'month', limit: 260 },
  { interval: 'month', from: '2016-02-01', to: '2018-07-15', limit: 5 },
];
const BAND_FROM = ['2020-01-01', '2014-01-01', '2023-06-15', '2026-11-01', AS_OF];
const TYPES: BandType[] = ['per', 'pbr', 'psr'];

describe('per-stock histories as columns answer what the object path answered', () => {
  const tmp = tempDir();
  let store: KyselyStore;
  let securities: StoredSecurity[];
  before(async () => {
    store = await openSqliteStore(join(tmp.dir, 'db.sqlite'));
    await loadDemo(store, { asOf: AS_OF, scale: 0.1 });
    securities = await store.market.securities();
  });
  after(async () => {
    await store.close();
    tmp.cleanup();
  });

  for (const [name, budget, readers] of [
    ['a cache that holds every stock', undefined, 0],
    ['a cache that holds nothing (windowed reads)', 1, 0],
    ['read on two series reader threads, a cache that holds nothing', 1, 2],
  ] as const) {
    it(`price history and valuation band, every stock, ${name}`, async (t) => {
      // The service's own store reads bars on reader threads: a second connection to the same file.
      const reading = readers === 0 ? store : await openSqliteStore(join(tmp.dir, 'db.sqlite'), { seriesReaders: readers });
      t.after(() => (reading === store ? undefined : reading.close()));
      const histories = new StockHistories(reading.market, AS_OF, budget);
      assert.ok(securities.length >= 60, `${securities.length} stocks`);
      let compared = 0;
      for (const security of securities) {
        const bars = await store.market.bars(security.id, undefined, AS_OF);
        const reports = await store.market.reports(security.id);
        for (const options of PRICE_CASES) {
          const old = JSON.stringify(resampleBars(bars, options));
          const now = JSON.stringify(await histories.priceBars(security.id, options));
          assert.equal(now, old, `${security.code} prices ${JSON.stringify(options)}`);
          // As the answer writes them: days from the columns (ColumnRows, through jsonBytes and
          // through JSON.stringify), in both formats.
          const { bars: written, splits } = await histories.priceBarsOrDays(security.id, options, true);
          assert.equal(Array.isArray(written), options.interval !== 'day');
          // The demo's stocks have no splits: adjusted bars are the bars as stored.
          assert.deepEqual(splits, []);
          for (const format of ['rows', 'columns'] as const) {
            const expected = JSON.stringify(inFormat(format, resampleBars(bars, options), BAR_COLUMNS));
            const answer = Array.isArray(written) ? inFormat(format, written, BAR_COLUMNS) : dayRowsInFormat(format, written);
            assert.equal(jsonBytes(answer).toString('utf8'), expected, `${security.code} prices ${JSON.stringify(options)} ${format}, jsonBytes`);
            assert.equal(JSON.stringify(answer), expected, `${security.code} prices ${JSON.stringify(options)} ${format}, JSON.stringify`);
          }
          compared++;
        }
        for (const type of TYPES) {
          for (const from of BAND_FROM) {
            const old = JSON.stringify(valuationBand({ type, bars, reports, from, to: AS_OF }));
            const now = JSON.stringify(await histories.band(security.id, type, from));
            assert.equal(now, old, `${security.code} band ${type} from ${from}`);
            compared++;
          }
        }
      }
      assert.ok(compared > 1000);
      if (readers > 0) assert.ok((reading.seriesReaders?.answered ?? 0) >= securities.length, `${reading.seriesReaders?.answered} reads answered by the threads`);
      if (budget === undefined) assert.ok(histories.bytes > 0);
      else assert.equal(histories.bytes, 0);
    });
  }

  it('warm reads whole histories in the order given while they fit, and stops when aborted', async () => {
    const ids = securities.map((s) => s.id);
    const all = new StockHistories(store.market, AS_OF);
    assert.deepEqual(await all.warm(ids, new AbortController().signal), { read: ids.length, held: ids.length }, 'the demo universe fits whole');
    const held = all.bytes;
    assert.ok(held > 0);
    assert.deepEqual(await all.warm(ids, new AbortController().signal), { read: 0, held: ids.length }, 'nothing read twice');
    assert.equal(all.bytes, held);
    // The answers from a warmed cache are the object path's, as above.
    const first = securities[0]!;
    const bars = await store.market.bars(first.id, undefined, AS_OF);
    const reports = await store.market.reports(first.id);
    assert.equal(JSON.stringify(await all.priceBars(first.id, { interval: 'day', limit: 2600 })), JSON.stringify(resampleBars(bars, { interval: 'day', limit: 2600 })));
    assert.equal(JSON.stringify(await all.band(first.id, 'pbr', '2014-01-01')), JSON.stringify(valuationBand({ type: 'pbr', bars, reports, from: '2014-01-01', to: AS_OF })));

    // A budget of about three stocks: the first ids in the order given, never over the budget.
    const perStock = held / ids.length;
    const small = new StockHistories(store.market, AS_OF, Math.round(3.5 * perStock));
    const { read, held: kept } = await small.warm([...ids].reverse(), new AbortController().signal);
    assert.ok(read >= 2 && read <= 4, `${read} stocks read`);
    assert.ok(kept <= read, `${kept} stocks held`);
    assert.ok(small.bytes <= 3.5 * perStock, `${small.bytes} bytes held`);

    const stopped = new AbortController();
    stopped.abort();
    const none = new StockHistories(store.market, AS_OF);
    assert.deepEqual(await none.warm(ids, stopped.signal), { read: 0, held: 0 });
    assert.equal(none.bytes, 0);
  });

  it('a stock with no bars or filings answers as before', async () => {
    await store.market.writeDataset({ securities: [{ ...securities[0]!, code: '999990', name: 'Empty' }] });
    const empty = (await store.market.securities()).find((s) => s.code === '999990')!;
    const histories = new StockHistories(store.market, AS_OF);
    for (const options of PRICE_CASES) assert.equal(JSON.stringify(await histories.priceBars(empty.id, options)), '[]');
    for (const type of TYPES) {
      assert.equal(JSON.stringify(await histories.band(empty.id, type, '2020-01-01')), JSON.stringify(valuationBand({ type, bars: [], reports: [], from: '2020-01-01', to: AS_OF })));
    }
  });
});
