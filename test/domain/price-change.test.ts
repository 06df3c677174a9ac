import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import fc from 'fast-check';
import { addDays } from '../../src/domain/calendar.js';
import {
  monthsBefore,
  priceChangeBaseDates,
  priceChangeFrom,
  priceChangesFrom,
  splitEvents,
  splitFactorBetween,
  splitRatioOf,
  type CloseShares,
} from '../../src/domain/price-change.js';
import { closeShareSeries, priceChangeOver, priceChanges as changesOf, priceChangeSince as changeSince } from './oracles.js';

// The functions read columns (as the store's series); the bars here are written as rows.
const priceChangeSince = (bars: readonly CloseShares[], base: string) => changeSince(closeShareSeries(bars), base);
const priceChanges = (bars: readonly CloseShares[]) => changesOf(closeShareSeries(bars));

// Samsung Electronics (005930) across its 50-for-1 split, as KRX's daily rows give it (closes as
// traded, not adjusted; listed shares at the close). Trading was suspended 2018-04-30..05-03
// (rows with volume 0 that repeat the last close) and resumed in the new shares on 2018-05-04.
// Sources: the closes and share counts of KRX's per-stock daily screen as transcribed in a public
// repository's test of KR split adjustment (the same rows: 04-26 2,607,000; 04-27 2,650,000;
// 05-04 51,900; 05-08 52,600); the counts are those of Samsung's DART filing 주식분할결정
// (rcept 20180131800068, corrected 20180316800856): common shares 128,386,494 -> 6,419,324,700,
// par value 5,000 -> 100 won, new shares listed 2018-05-04. 128,386,494 x 50 = 6,419,324,700.
const OLD = 128_386_494;
const NEW = 6_419_324_700;
const SAMSUNG: CloseShares[] = [
  { date: '2018-04-26', close: 2_607_000, shares: OLD },
  { date: '2018-04-27', close: 2_650_000, shares: OLD },
  { date: '2018-04-30', close: 2_650_000, shares: OLD },
  { date: '2018-05-02', close: 2_650_000, shares: OLD },
  { date: '2018-05-03', close: 2_650_000, shares: OLD },
  { date: '2018-05-04', close: 51_900, shares: NEW },
  { date: '2018-05-08', close: 52_600, shares: NEW },
];

describe('split-consistent price change', () => {
  it('finds the real 50-for-1 split: shares x50 while the close moves inversely', () => {
    // 05-03 -> 05-04: shares 6,419,324,700 / 128,386,494 = 50 exactly; close 51,900 x 50 =
    // 2,595,000 vs 2,650,000 the day before: 0.979, within the +-30 % daily band.
    assert.equal(splitFactorBetween(SAMSUNG[4] as CloseShares, SAMSUNG[5] as CloseShares), 50);
    // Days without a change of shares: no split.
    assert.equal(splitFactorBetween(SAMSUNG[0] as CloseShares, SAMSUNG[1] as CloseShares), 1);
    assert.equal(splitFactorBetween(SAMSUNG[5] as CloseShares, SAMSUNG[6] as CloseShares), 1);
  });

  it('gives the change in the new shares, not the -98 % of the raw closes', () => {
    // Day of the split: base 2,650,000 / 50 = 53,000; (51,900 - 53,000) x 100 / 53,000 = -2.075 %
    // (KRX's own change rate for 2018-05-04 is -2.08 %). Raw closes would say
    // (51,900 - 2,650,000) / 2,650,000 = -98.04 %.
    assert.equal(priceChangeSince(SAMSUNG.slice(0, 6), '2018-05-03'), (-1_100 * 100) / 53_000);
    // From 04-27 to 05-08: base 53,000; (52,600 - 53,000) x 100 / 53,000 = -0.7547 %.
    assert.equal(priceChangeSince(SAMSUNG, '2018-04-27'), (-400 * 100) / 53_000);
    // From 04-26: base 2,607,000 / 50 = 52,140; (52,600 - 52,140) x 100 / 52,140 = +0.8822 %.
    assert.equal(priceChangeSince(SAMSUNG, '2018-04-26'), (460 * 100) / 52_140);
    // The base is the last bar on or before the date: 2018-05-01 (a holiday) takes 04-30's close.
    assert.equal(priceChangeSince(SAMSUNG, '2018-05-01'), (-400 * 100) / 53_000);
    // Nothing that old: null.
    assert.equal(priceChangeSince(SAMSUNG, '2018-04-25'), null);
  });

  it('a share jump the close does not follow is no split; a reverse split is 1/n', () => {
    // Shares doubled but the close held (a feed that adjusts its closes, or a rights issue): 1.
    assert.equal(splitFactorBetween({ date: '2024-01-02', close: 100, shares: 1_000 }, { date: '2024-01-03', close: 98, shares: 2_000 }), 1);
    // Shares +3 % (an issue): not near an integer ratio >= 2.
    assert.equal(splitFactorBetween({ date: '2024-01-02', close: 100, shares: 1_000 }, { date: '2024-01-03', close: 97, shares: 1_030 }), 1);
    // 1-for-10 reverse split: shares 1,000,000 -> 100,000, close 500 -> 5,100 (5,100 / 10 = 510 vs 500: +2 %).
    assert.equal(splitFactorBetween({ date: '2024-01-02', close: 500, shares: 1_000_000 }, { date: '2024-01-03', close: 5_100, shares: 100_000 }), 0.1);
    // Then the base 500 is 500 / 0.1 = 5,000 in the new shares: (5,100 - 5,000) x 100 / 5,000 = 2 %.
    assert.equal(
      priceChangeSince([{ date: '2024-01-02', close: 500, shares: 1_000_000 }, { date: '2024-01-03', close: 5_100, shares: 100_000 }], '2024-01-02'),
      (100 * 100) / 5_000,
    );
  });

  it('splitRatioOf reads near-integer ratios within 3 %', () => {
    assert.equal(splitRatioOf(50), 50);
    assert.equal(splitRatioOf(2.05), 2); // |2.05 - 2| / 2 = 2.5 %
    assert.equal(splitRatioOf(2.1), null); // 5 %
    assert.equal(splitRatioOf(1.5), null);
    assert.equal(splitRatioOf(0.5), 0.5);
    assert.equal(splitRatioOf(1 / 3), 1 / 3);
    assert.equal(splitRatioOf(1.01), null);
    assert.equal(splitRatioOf(0), null);
  });

  it('months back on the same day, or the month end when shorter', () => {
    assert.equal(monthsBefore('2025-03-31', 1), '2025-02-28');
    assert.equal(monthsBefore('2024-03-31', 1), '2024-02-29');
    assert.equal(monthsBefore('2025-01-15', 12), '2024-01-15');
    assert.equal(monthsBefore('2025-02-10', 3), '2024-11-10');
  });

  it('1, 3 and 12 months from the latest bar', () => {
    const bars: CloseShares[] = [
      { date: '2024-02-15', close: 100, shares: 10 },
      { date: '2024-04-30', close: 80, shares: 10 },
      { date: '2024-05-02', close: 90, shares: 10 },
      { date: '2024-05-31', close: 120, shares: 10 },
    ];
    // 1 month: base date 2024-04-30 -> close 80: (120 - 80) x 100 / 80 = 50 %.
    // 3 months: base date 2024-02-29 -> last bar on or before is 02-15, close 100: 20 %.
    // 12 months: 2023-05-31, no bar: null.
    assert.deepEqual(priceChanges(bars), { m1: 50, m3: 20, m12: null });
    assert.equal(priceChangeOver(closeShareSeries([]), 1), null);
  });

  it('split events: the later bar of each split pair and its factor; the change from them is the change from the history', () => {
    // Samsung: one event, 05-04 x50 (see the first case); the days around it have equal shares.
    assert.deepEqual(splitEvents(SAMSUNG), [{ date: '2018-05-04', factor: 50 }]);
    assert.deepEqual(splitEvents([]), []);
    assert.deepEqual(splitEvents(SAMSUNG.slice(0, 1)), []);
    // From 04-26 to 05-08 with what the store keeps: the latest bar, the base close 2,607,000 and
    // the event: 2,607,000 / 50 = 52,140, (52,600 - 52,140) x 100 / 52,140 as above.
    const latest = { date: '2018-05-08', close: 52_600 };
    assert.equal(priceChangeFrom(latest, '2018-04-26', 2_607_000, splitEvents(SAMSUNG)), (460 * 100) / 52_140);
    // Base date 05-05 (a Saturday; the base bar is 05-04, in the new shares): the 05-04 event is
    // not after the base date, so 52,600 vs 51,900: 700 x 100 / 51,900.
    assert.equal(priceChangeFrom(latest, '2018-05-05', 51_900, splitEvents(SAMSUNG)), (700 * 100) / 51_900);
    // Base date 05-04 itself, the day of the event: the base bar is in the new shares already.
    assert.equal(priceChangeFrom(latest, '2018-05-04', 51_900, splitEvents(SAMSUNG)), (700 * 100) / 51_900);
    // No bar that old, or a base close of 0: null.
    assert.equal(priceChangeFrom(latest, '2018-04-25', null, splitEvents(SAMSUNG)), null);
    assert.equal(priceChangeFrom(latest, '2018-04-25', 0, []), null);
    // An event after the latest bar (a later dataset's) counts for nothing: 52,600 vs 2,607,000.
    assert.equal(priceChangeFrom(latest, '2018-04-26', 2_607_000, [{ date: '2018-05-09', factor: 50 }]), ((52_600 - 2_607_000) * 100) / 2_607_000);
    assert.deepEqual(priceChangeBaseDates('2024-05-31'), ['2024-04-30', '2024-02-29', '2023-05-31']);
  });

  it('priceChangesFrom equals priceChanges on any history (generated, with splits, halts and reverse splits)', () => {
    // Each step: days to the next bar (mostly the next day, so base dates fall on bars and on
    // split days; else up to 40, so halts and gaps of every size), a factor for the
    // shares (mostly none, else a split, a reverse split or a non-split issue) and a daily move.
    const step = fc.record({
      gap: fc.oneof({ weight: 6, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.integer({ min: 2, max: 40 }) }),
      shares: fc.oneof({ weight: 8, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.constantFrom(2, 5, 50, 0.5, 0.1, 1.03, 2.5) }),
      follows: fc.boolean(),
      move: fc.integer({ min: -25, max: 25 }),
    });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 400 }), fc.integer({ min: 1, max: 10_000 }), (steps, firstClose) => {
        const bars: CloseShares[] = [];
        let date = '2023-01-02';
        let close = firstClose;
        let shares = 1_000_000;
        for (const s of steps) {
          date = addDays(date, s.gap);
          shares *= s.shares;
          // A split's close follows inversely when `follows`; otherwise the shares moved alone.
          close = Math.max(1, Math.round(close * (1 + s.move / 100) / (s.follows ? s.shares : 1)));
          bars.push({ date, close, shares });
        }
        const latest = bars.at(-1) as CloseShares;
        const series = closeShareSeries(bars);
        const baseClose = (baseDate: string): number | null => bars.filter((b) => b.date <= baseDate).at(-1)?.close ?? null;
        const [d1, d3, d12] = priceChangeBaseDates(latest.date);
        assert.deepStrictEqual(priceChangesFrom(latest, [baseClose(d1), baseClose(d3), baseClose(d12)], splitEvents(bars)), priceChanges(bars));
        assert.deepStrictEqual(priceChanges(bars), changesOf(series));
      }),
      { numRuns: 300 },
    );
  });
});
