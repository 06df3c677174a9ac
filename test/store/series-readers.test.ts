// The series reader threads (src/store/series-readers.ts) answer a stock's bars exactly as the
// store's own read does, for every stock of a demo universe and every kind of range; a reader
// that dies fails only what it had in hand and is replaced; a closed pool refuses.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { join } from 'node:path';
import { dayNumber } from '../../src/domain/calendar.js';
import { loadDemo } from '../../src/refresh/demo-load.js';
import type { SeriesRange, StoredSecurity } from '../../src/store/market-data.js';
import { SeriesReaders } from '../../src/store/series-readers.js';
import { seriesOf } from '../../src/store/series-rows.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { KyselyStore } from '../../src/store/store.js';
import { tempDir } from '../support/tmp.js';

const AS_OF = '2026-11-20';
const RANGES: SeriesRange[] = [
  { to: AS_OF },
  { to: AS_OF, last: 260 },
  { to: AS_OF, last: 1 },
  { from: '2020-01-01', to: AS_OF },
  { from: '2019-12-31', to: '2020-01-06' },
  { from: '2014-01-01', to: '2014-03-01', last: 5 },
  { from: '2026-11-21', to: AS_OF },
  { to: '1980-01-01' },
];

/** A pool's read of a stock's bars or market caps as the series the store hands out. */
const barsOf = (pool: SeriesReaders, id: number, range: SeriesRange) => pool.columns('bars', id, range).then((c) => seriesOf('bars', c));
const capsOf = (pool: SeriesReaders, id: number, range: SeriesRange) => pool.columns('caps', id, range).then((c) => seriesOf('caps', c));

/** Plain arrays of every column, so deepEqual compares values (NaN and -0 included) and lengths. */
const plain = (series: object): Record<string, number[]> => Object.fromEntries(Object.entries(series).map(([k, v]) => [k, Array.from(v as ArrayLike<number>)]));

describe('series reader threads', () => {
  const tmp = tempDir();
  const file = join(tmp.dir, 'db.sqlite');
  let store: KyselyStore;
  let securities: StoredSecurity[];
  let readers: SeriesReaders;
  before(async () => {
    store = await openSqliteStore(file);
    await loadDemo(store, { asOf: AS_OF, scale: 0.1 });
    securities = await store.market.securities();
    readers = new SeriesReaders(file, 2);
  });
  after(async () => {
    await readers.close();
    await store.close();
    tmp.cleanup();
  });

  it("answer every stock's bars and market caps as the store's own read, for every kind of range", async () => {
    assert.ok(securities.length >= 60, `${securities.length} stocks`);
    let bars = 0;
    for (const security of securities) {
      // The record: the stock's rows in the bars table, which the packs must give back exactly.
      const rows = await store.market.bars(security.id);
      for (const range of RANGES) {
        // Sent together, so both readers work and replies come back out of order.
        const [own, read, ownCaps, readCaps] = await Promise.all([
          store.market.barSeries(security.id, range),
          barsOf(readers, security.id, range),
          store.market.marketCapSeries(security.id, range),
          capsOf(readers, security.id, range),
        ]);
        assert.deepEqual(plain(read), plain(own), `${security.code} ${JSON.stringify(range)}`);
        let inRange = rows.filter((b) => (range.from === undefined || b.date >= range.from) && b.date <= range.to);
        if (range.last !== undefined) inRange = inRange.slice(Math.max(0, inRange.length - range.last));
        const fields = ['open', 'high', 'low', 'close', 'volume', 'tradedValue', 'shares'] as const;
        assert.deepEqual(
          plain(own),
          { days: inRange.map((b) => dayNumber(b.date)), ...Object.fromEntries(fields.map((f) => [f, inRange.map((b) => b[f])])) },
          `${security.code} ${JSON.stringify(range)}: the rows of the bars table`,
        );
        assert.deepEqual(plain(readCaps), plain(ownCaps), `${security.code} ${JSON.stringify(range)} market caps`);
        // SQLite's product is JavaScript's: the band gives the same multiples from either read.
        const product = Array.from(own.close, (close, i) => close * (own.shares[i] as number));
        assert.deepEqual({ days: plain(ownCaps).days, marketCap: plain(ownCaps).marketCap }, { days: plain(own).days, marketCap: product });
        assert.deepEqual(Object.keys(read), Object.keys(own), 'the same fields in the same order');
        bars += own.days.length;
      }
    }
    assert.ok(bars > 100_000, `${bars} bars compared`);
  });

  it('a reader that dies fails what it had in hand, and a new one takes its place', async () => {
    const id = (securities[0] as StoredSecurity).id;
    const pool = new SeriesReaders(file, 1);
    try {
      const whole = await barsOf(pool, id, { to: AS_OF });
      const [reader] = (pool as unknown as { readers: { worker: { terminate(): Promise<number> } }[] }).readers;
      const inHand = barsOf(pool, id, { to: AS_OF });
      await reader?.worker.terminate();
      await assert.rejects(inHand, /series reader exited/);
      assert.deepEqual(plain(await barsOf(pool, id, { to: AS_OF })), plain(whole), 'the replacement answers');
    } finally {
      await pool.close();
    }
    await assert.rejects(barsOf(pool, id, { to: AS_OF }), /closed/);
  });

  it('a read that fails in the reader is an error, not a hang', async () => {
    const missing = new SeriesReaders(join(tmp.dir, 'no-such-file.sqlite'), 1);
    try {
      await assert.rejects(barsOf(missing, 1, { to: AS_OF }), /series reader/);
      await assert.rejects(barsOf(missing, 1, { to: AS_OF }), /series reader/, 'and refuses from then on, without a new thread each time');
    } finally {
      await missing.close();
    }
  });
});
