import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { barAsOf } from '../../src/domain/bars.js';
import { resampleBars as resampleBarsOracle, resampleBarsOfSeries, type OhlcvBar } from './oracles.js';

const d = (date: string, open: number, high: number, low: number, close: number, volume: number): OhlcvBar => ({
  date,
  open,
  high,
  low,
  close,
  volume,
  tradedValue: volume * close,
});

// September-October 2024. 16-18 September were market holidays (Chuseok), so that week has
// only Thursday and Friday. The week of 30 September spans two months.
const daily = [
  d('2024-09-09', 10, 12, 9, 11, 100), // week 37
  d('2024-09-10', 11, 13, 10, 12, 100),
  d('2024-09-11', 12, 12, 8, 9, 100),
  d('2024-09-12', 9, 10, 9, 10, 100),
  d('2024-09-13', 10, 11, 10, 11, 100),
  d('2024-09-19', 11, 15, 11, 14, 200), // week 38: holiday Mon-Wed
  d('2024-09-20', 14, 14, 12, 13, 300),
  d('2024-09-23', 13, 13, 13, 13, 10), // week 39
  d('2024-09-27', 13, 16, 13, 16, 20),
  d('2024-09-30', 16, 17, 15, 15, 30), // week 40: Sep 30, Oct 2, Oct 4
  d('2024-10-02', 15, 18, 14, 17, 40),
  d('2024-10-04', 17, 17, 16, 16, 50),
];

// The service's resampling (`resampleSeries` over the columns) and the plain oracle over bar
// objects (test/domain/oracles.ts), each held to the same hand-derived bars.
for (const [name, resampleBars] of [
  ['resampleSeries (the service)', resampleBarsOfSeries],
  ['resampleBars (the oracle)', resampleBarsOracle],
] as const) {
  void describe(name, () => {
    void it('day: the bars themselves', () => {
      assert.equal(resampleBars(daily, { interval: 'day' }).length, 12);
    });

    void it('week: ISO weeks Monday to Sunday, dated by the last trading day; a holiday week has fewer days', () => {
      const weeks = resampleBars(daily, { interval: 'week' });
      assert.deepEqual(weeks, [
        // open 10 (Mon), high max(12,13,12,10,11) = 13, low min(9,10,8,9,10) = 8, close 11 (Fri), volume 500
        { date: '2024-09-13', open: 10, high: 13, low: 8, close: 11, volume: 500, tradedValue: 1100 + 1200 + 900 + 1000 + 1100 },
        // Thursday and Friday only: open 11, high 15, low 11, close 13, volume 500, value 2,800 + 3,900
        { date: '2024-09-20', open: 11, high: 15, low: 11, close: 13, volume: 500, tradedValue: 6700 },
        { date: '2024-09-27', open: 13, high: 16, low: 13, close: 16, volume: 30, tradedValue: 130 + 320 },
        // Spans September and October: one week, dated Friday 4 October
        { date: '2024-10-04', open: 16, high: 18, low: 14, close: 16, volume: 120, tradedValue: 450 + 680 + 800 },
      ]);
    });

    void it('month: calendar months, dated by the last trading day', () => {
      const months = resampleBars(daily, { interval: 'month' });
      assert.deepEqual(
        months.map((b) => [b.date, b.open, b.high, b.low, b.close, b.volume]),
        [
          ['2024-09-30', 10, 17, 8, 15, 1060], // 500 + 500 + 30 + 30 (Sep 30)
          ['2024-10-04', 15, 18, 14, 16, 90],
        ],
      );
    });

    void it('aggregates whole periods, then keeps bars dated in [from, to], then the latest limit', () => {
      // from = Wednesday 11 Sep: the week dated Fri 13 Sep is kept whole (open from Mon 9 Sep);
      // to = 2 Oct: the week dated 4 Oct is dropped.
      const weeks = resampleBars(daily, { interval: 'week', from: '2024-09-11', to: '2024-10-02' });
      assert.deepEqual(weeks.map((b) => [b.date, b.open, b.volume]), [
        ['2024-09-13', 10, 500],
        ['2024-09-20', 11, 500],
        ['2024-09-27', 13, 30],
      ]);
      const latestTwo = resampleBars(daily, { interval: 'week', from: '2024-09-11', to: '2024-10-02', limit: 2 });
      assert.deepEqual(latestTwo.map((b) => b.date), ['2024-09-20', '2024-09-27']);
      assert.deepEqual(resampleBars(daily, { interval: 'day', limit: 3 }).map((b) => b.date), ['2024-09-30', '2024-10-02', '2024-10-04']);
    });

    void it('the ISO week across a year end is one week; the months split', () => {
      const yearEnd = [d('2024-12-30', 1, 2, 1, 2, 1), d('2024-12-31', 2, 3, 2, 3, 1), d('2025-01-02', 3, 4, 3, 4, 1), d('2025-01-03', 4, 5, 4, 5, 1)];
      assert.deepEqual(resampleBars(yearEnd, { interval: 'week' }).map((b) => [b.date, b.open, b.close, b.volume]), [['2025-01-03', 1, 5, 4]]);
      assert.deepEqual(resampleBars(yearEnd, { interval: 'month' }).map((b) => [b.date, b.volume]), [
        ['2024-12-31', 2],
        ['2025-01-03', 2],
      ]);
    });
  });
}

void describe('resampleBars (the oracle) takes bars in any order', () => {
  void it('sorts them first', () => {
    assert.deepEqual(resampleBarsOracle([...daily].reverse(), { interval: 'week' }), resampleBarsOracle(daily, { interval: 'week' }));
  });
});

void describe('barAsOf', () => {
  void it('is the last bar dated on or before the date', () => {
    assert.equal(barAsOf(daily, '2024-09-18')?.date, '2024-09-13');
    assert.equal(barAsOf(daily, '2024-09-19')?.date, '2024-09-19');
    assert.equal(barAsOf(daily, '2024-09-01'), null);
  });
});
