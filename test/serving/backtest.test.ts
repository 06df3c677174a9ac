// The backtest's loop on a constructed market (./backtest-store.ts, every close chosen so each
// return is derived by hand), on SQLite (with and without a reader thread) and PostgreSQL: the
// rebalance day's universe, a split between the two days divided out, a delisted pick counted at
// its last close, the market's equal-weight mean and the hit rate.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { planPeriods, periodStarts, summarize } from '../../src/domain/backtest.js';
import { runBacktest, snapshotOfDay, backtestReads, type Candidate } from '../../src/serving/backtest.js';
import type { KyselyStore } from '../../src/store/store.js';
import { loadDemo } from '../../src/refresh/demo-load.js';
import { lastSessionOnOrBefore } from '../../src/domain/backtest.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { STORE_PLACES } from '../support/stores.js';
import { tempDir } from '../support/tmp.js';
import { writeBacktestMarket } from './backtest-store.js';

const candidate = (code: string): Candidate => ({ code, name: code, value: null });

for (const place of STORE_PLACES) describe(`backtest on a constructed market, ${place.name}`, { skip: place.skip }, () => {
  let store: KyselyStore;
  let cleanup: () => Promise<void>;
  before(async () => {
    ({ store, cleanup } = await place.open());
    await writeBacktestMarket(store.market);
  });
  after(async () => {
    await store.close();
    await cleanup();
  });

  it('plans the periods on the market sessions: before the data, measured, holding not over', async () => {
    const sessions = await store.market.tradingDates('KR');
    assert.deepEqual(planPeriods(sessions, periodStarts('2023-12', '2024-02', 'month'), 12), {
      // 2023-12-01: the first session is 2023-12-28. 2024-02-01: rebalances on 2024-01-31, but its
      // holding ends 2025-02-01, after the last session 2025-01-02.
      periods: [{ start: '2024-01-01', day: '2023-12-29', endDay: '2024-12-30' }],
      leftOut: [
        { start: '2023-12-01', why: 'before-data' },
        { start: '2024-02-01', why: 'not-over' },
      ],
    });
  });

  it('measures each pick from the rebalance day close: the split divided out, the delisted stock at its last close', async () => {
    const { results } = await runBacktest(store.market, {
      market: 'KR',
      periods: [{ start: '2024-01-01', day: '2023-12-29', endDay: '2024-12-30' }],
      top: 3,
      // E (not traded on 2023-12-29) and a repeated C are passed over; the third pick is A.
      async *candidates() {
        for (const code of ['900005', '900003', '900002', '900003', '900001', '900004']) yield candidate(code);
      },
      source: 'test',
    });
    assert.equal(results.length, 1);
    const [period] = results;
    assert.ok(period);
    assert.deepEqual(
      period.picks.map((p) => [p.code, p.start, p.end, p.returnPct, p.endedEarly]),
      [
        // C: 15,000 / 20,000 - 1 = -25 %, its last bar 2024-08-30.
        ['900003', { date: '2023-12-29', close: 20_000 }, { date: '2024-08-30', close: 15_000 }, -25, true],
        // B: 33,000 / (50,000 / 2) - 1 = +32 %.
        ['900002', { date: '2023-12-29', close: 50_000 }, { date: '2024-12-30', close: 33_000 }, 32, false],
        // A: 12,000 / 10,000 - 1 = +20 %.
        ['900001', { date: '2023-12-29', close: 10_000 }, { date: '2024-12-30', close: 12_000 }, 20, false],
      ],
    );
    // Universe A, B, C, D: (20 + 32 - 25 - 5) / 4 = 5.5. Picks: (-25 + 32 + 20) / 3 = 9;
    // excess 9 - 5.5 = 3.5; B and A beat 5.5: 2 of 3.
    assert.equal(period.marketStocks, 4);
    assert.equal(period.marketMean, 5.5);
    assert.equal(period.meanReturn, 9);
    assert.equal(period.excess, 3.5);
    assert.equal(period.hits, 2);
    assert.equal(period.hitRate, 2 / 3);
    assert.deepEqual(summarize([{ ...period, picks: period.picks.length }]), {
      periods: 1,
      counted: 1,
      meanReturn: 9,
      meanExcess: 3.5,
      picks: 3,
      hits: 2,
      hitRate: 2 / 3,
      beating: 1,
      beatingShare: 1,
    });
  });

  it("a day's snapshot sees no later bar: E has no price on 2023-12-29, a price on 2024-01-31", async () => {
    const reads = backtestReads(store.market, 'KR');
    const before = await snapshotOfDay(reads, '2023-12-29');
    const later = await snapshotOfDay(reads, '2024-01-31');
    // Not listed yet on 2023-12-29 (its first bar is 2024-01-31): not in that day's universe.
    assert.equal(before.views.get('KR:900005'), undefined);
    assert.deepEqual(later.views.get('KR:900005')?.price, { date: '2024-01-31', close: 100_000, shares: 1_000_000, marketCap: 100_000_000_000 });
    // B as of the day before its split shows the close as traded then.
    assert.equal((await snapshotOfDay(reads, '2024-05-31')).views.get('KR:900002')?.price?.close, 60_000);
  });
});

// No look-ahead: what a backtest picks by on a rebalance day (the day's snapshot of the market)
// is what a store holding only what was known that day gives: bars and flows through the day,
// filings disclosed on or before it, FX rates through it. On the demo universe (scale 0.02).
describe('backtest: a rebalance day sees nothing later', () => {
  const tmp = tempDir('backtest-known-');
  let full: KyselyStore;
  let known: KyselyStore;
  let day: string;
  before(async () => {
    full = await openSqliteStore(`${tmp.dir}/full.sqlite`);
    await loadDemo(full, { asOf: '2026-11-20', scale: 0.02 });
    day = lastSessionOnOrBefore(await full.market.tradingDates('KR'), '2024-06-01') as string;
    known = await openSqliteStore(`${tmp.dir}/known.sqlite`);
    const securities = await full.market.securities();
    const through = <T extends { date: string }>(rows: readonly T[]) => rows.filter((r) => r.date <= day);
    await known.market.writeDataset({
      securities: securities.map(({ id: _id, ...s }) => s),
      bars: through((await Promise.all(securities.map((s) => full.market.bars(s.id)))).flat()),
      flows: through((await Promise.all(securities.map((s) => full.market.flows(s.id)))).flat()),
      reports: (await full.market.reports()).filter((r) => r.disclosedOn <= day),
      fx: through(await full.market.fx()),
    });
  });
  after(async () => {
    await full.close();
    await known.close();
    tmp.cleanup();
  });

  for (const market of ['KR', 'US'] as const) {
    it(`${market}: the same rankings, V3 inputs, prices, price changes and metric values`, async () => {
      const a = await snapshotOfDay(backtestReads(full.market, market), day);
      const b = await snapshotOfDay(backtestReads(known.market, market), day);
      assert.ok(a.rankings[market].length > 0, 'some stocks are ranked');
      assert.deepEqual(b.rankings[market], a.rankings[market]);
      assert.equal(b.views.size, a.views.size);
      for (const [key, view] of a.views) {
        const other = b.views.get(key);
        assert.ok(other, key);
        assert.deepEqual([other.price, other.v3, other.priceChanges, other.metricValues], [view.price, view.v3, view.priceChanges, view.metricValues], key);
      }
    });
  }
});
