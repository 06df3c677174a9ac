// The backtest's arithmetic (src/domain/backtest.ts), values derived by hand beside each case.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { forwardReturn, lastSessionOnOrBefore, periodFigures, periodStarts, planPeriods } from '../../src/domain/backtest.js';

describe('backtest periods', () => {
  it('starts every month or every three months from --from, both ends included', () => {
    assert.deepEqual(periodStarts('2023-11', '2024-02', 'month'), ['2023-11-01', '2023-12-01', '2024-01-01', '2024-02-01']);
    // Three months from 2023-11: 2023-11, 2024-02, 2024-05; 2024-08 is after --to 2024-07.
    assert.deepEqual(periodStarts('2023-11', '2024-07', 'quarter'), ['2023-11-01', '2024-02-01', '2024-05-01']);
    assert.deepEqual(periodStarts('2024-03', '2024-03', 'quarter'), ['2024-03-01']);
  });

  it('rebalances on the last session on or before the start', () => {
    const sessions = ['2024-01-29', '2024-01-31', '2024-02-01', '2024-02-29'];
    assert.equal(lastSessionOnOrBefore(sessions, '2024-02-01'), '2024-02-01');
    assert.equal(lastSessionOnOrBefore(sessions, '2024-01-30'), '2024-01-29');
    assert.equal(lastSessionOnOrBefore(sessions, '2024-03-01'), '2024-02-29');
    assert.equal(lastSessionOnOrBefore(sessions, '2024-01-28'), null);
  });

  it('holds to the last session on or before the period start plus the holding months: 2024-03-01 + 12 months is 2025-03-01', () => {
    const sessions = ['2024-02-29', '2025-02-27', '2025-03-04'];
    assert.deepEqual(planPeriods(sessions, ['2024-03-01'], 12), { periods: [{ start: '2024-03-01', day: '2024-02-29', endDay: '2025-02-27' }], leftOut: [] });
    // One month: 2024-04-01, no session in between: the holding ends on the rebalance day itself.
    assert.deepEqual(planPeriods(sessions, ['2024-03-01'], 1).periods, [{ start: '2024-03-01', day: '2024-02-29', endDay: '2024-02-29' }]);
  });
});

describe('forward return', () => {
  it('divides the start close by the splits after it and up to the end', () => {
    // 1,000 -> 260 across a 5-for-1 split: 260 / (1,000 / 5) - 1 = +30 %. The split dated on the
    // start day itself is already in the start close; the one after the end is not counted.
    const splits = [
      { date: '2024-01-02', factor: 10 },
      { date: '2024-06-03', factor: 5 },
      { date: '2025-03-03', factor: 2 },
    ];
    assert.deepEqual(forwardReturn({ date: '2024-01-02', close: 1_000 }, { date: '2024-12-30', close: 260 }, '2024-12-30', splits), { end: { date: '2024-12-30', close: 260 }, returnPct: 30, endedEarly: false });
    // A 1-for-4 consolidation: 100 -> 360 is 360 / (100 x 4) - 1 = -10 %.
    assert.equal(forwardReturn({ date: '2024-01-02', close: 100 }, { date: '2024-12-30', close: 360 }, '2024-12-30', [{ date: '2024-05-02', factor: 0.25 }]).returnPct, -10);
  });

  it('a stock whose last bar is before the end counts at that close; one without a later bar at its start close', () => {
    assert.deepEqual(forwardReturn({ date: '2024-01-02', close: 8_000 }, { date: '2024-07-01', close: 2_000 }, '2024-12-30', []), { end: { date: '2024-07-01', close: 2_000 }, returnPct: -75, endedEarly: true });
    assert.deepEqual(forwardReturn({ date: '2024-01-02', close: 8_000 }, null, '2024-12-30', []), { end: { date: '2024-01-02', close: 8_000 }, returnPct: 0, endedEarly: true });
  });
});

describe('period figures', () => {
  it('a pick equal to the market mean is not a hit', () => {
    // Market (10 + 0 - 4) / 3 = 2; picks 10 and 2: mean 6, excess 4, one hit of two.
    assert.deepEqual(periodFigures([10, 2], [10, 0, -4]), { meanReturn: 6, marketMean: 2, excess: 4, hits: 1, hitRate: 0.5 });
    assert.deepEqual(periodFigures([], [1, 3]), { meanReturn: null, marketMean: 2, excess: null, hits: 0, hitRate: null });
  });
});
