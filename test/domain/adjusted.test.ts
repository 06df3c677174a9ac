import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import fc from 'fast-check';
import { adjustRange, priceBarsAdjusted } from '../../src/domain/adjusted.js';
import { addDays } from '../../src/domain/calendar.js';
import { changePct } from '../../src/domain/change.js';
import { priceChangeFrom, splitEvents, type SplitEvent } from '../../src/domain/price-change.js';
import type { PriceBar } from '../../src/domain/results.js';
import { dateOfDay, valuationBandOfSeries, type BarSeries, type DayBars } from '../../src/domain/series.js';
import type { TtmStep } from '../../src/domain/ttm.js';
import { SAMSUNG_NEW_SHARES as NEW, SAMSUNG_SPLIT, SAMSUNG_SPLIT_BARS } from '../fixtures/samsung-split-2018.js';
import { seriesOfBars } from './oracles.js';

// Samsung Electronics around its 50-for-1 split of 2018-05-04: the KRX rows and where they come
// from are in test/fixtures/samsung-split-2018.ts.
const SAMSUNG = SAMSUNG_SPLIT_BARS;
const SPLIT: SplitEvent = SAMSUNG_SPLIT;

/** Day bars as plain objects (what the answer writes from the columns). */
function daysOf({ series, start, end }: DayBars): PriceBar[] {
  const out: PriceBar[] = [];
  for (let i = start; i < end; i++) {
    out.push({
      date: dateOfDay(series.days[i] as number),
      open: series.open[i] as number,
      high: series.high[i] as number,
      low: series.low[i] as number,
      close: series.close[i] as number,
      volume: series.volume[i] as number,
      tradedValue: series.tradedValue[i] as number,
    });
  }
  return out;
}

const asDays = (bars: DayBars | PriceBar[]): PriceBar[] => (Array.isArray(bars) ? bars : daysOf(bars));
const closes = (bars: DayBars | PriceBar[]) => asDays(bars).map((b) => [b.date, b.close]);

describe('split-adjusted price bars', () => {
  const series = seriesOfBars(SAMSUNG);

  it('the store finds the one 50-for-1 event in these bars', () => {
    assert.deepEqual(splitEvents(SAMSUNG), [SPLIT]);
  });

  it('Samsung by day: no 2018 cliff adjusted, the cliff as traded', () => {
    const adjusted = priceBarsAdjusted(series, { interval: 'day' }, [SPLIT], true);
    assert.deepEqual(adjusted.splits, [SPLIT]);
    // Before 05-04 every price / 50 (04-27: 2,669,000 / 50 = 53,380, 2,682,000 / 50 = 53,640,
    // 2,622,000 / 50 = 52,440, 2,650,000 / 50 = 53,000, as FinanceDataReader's adjusted row gives
    // them), volume x 50 (606,216 x 50 = 30,310,800), traded value as traded.
    assert.deepEqual(asDays(adjusted.bars), [
      { date: '2018-04-26', open: 50_420, high: 52_160, low: 50_400, close: 52_140, volume: 50_000, tradedValue: 2_607_000_000 },
      { date: '2018-04-27', open: 53_380, high: 53_640, low: 52_440, close: 53_000, volume: 30_310_800, tradedValue: 1_606_472_400_000 },
      { date: '2018-04-30', open: 53_000, high: 53_000, low: 53_000, close: 53_000, volume: 0, tradedValue: 0 },
      { date: '2018-05-02', open: 53_000, high: 53_000, low: 53_000, close: 53_000, volume: 0, tradedValue: 0 },
      { date: '2018-05-03', open: 53_000, high: 53_000, low: 53_000, close: 53_000, volume: 0, tradedValue: 0 },
      { date: '2018-05-04', open: 53_000, high: 53_900, low: 51_800, close: 51_900, volume: 39_565_391, tradedValue: 2_053_443_792_900 },
      { date: '2018-05-08', open: 52_600, high: 53_200, low: 51_900, close: 52_600, volume: 1_000, tradedValue: 52_600_000 },
    ]);
    // The day of the split moves (51,900 - 53,000) x 100 / 53,000 = -2.075...%, not -98 %.
    const [, , , , before, after] = asDays(adjusted.bars);
    assert.equal(changePct(after?.close, before?.close), -2.0754716981132075);

    const traded = priceBarsAdjusted(series, { interval: 'day' }, [SPLIT], false);
    // Unadjusted: the bars as stored, the same split listed (the jump it explains).
    assert.deepEqual(traded.splits, [SPLIT]);
    assert.deepEqual(closes(traded.bars), SAMSUNG.map((b) => [b.date, b.close]));
    const raw = asDays(traded.bars);
    // (51,900 - 2,650,000) x 100 / 2,650,000 = -98.04...%.
    assert.equal(changePct(raw[5]?.close, raw[4]?.close), -98.04150943396226);
  });

  it('a window after the split needs none; one ending before it still takes it', () => {
    const after = priceBarsAdjusted(series, { interval: 'day', from: '2018-05-04' }, [SPLIT], true);
    // The event is dated on the first bar: it restates no bar of the window, whose columns are answered as held.
    assert.deepEqual(after.splits, []);
    assert.equal((after.bars as DayBars).series, series);
    assert.deepEqual(closes(after.bars), [
      ['2018-05-04', 51_900],
      ['2018-05-08', 52_600],
    ]);
    // A window ending 04-27 (the series cut there, as a windowed read gives it) with the event from the store.
    const before = priceBarsAdjusted(seriesOfBars(SAMSUNG.slice(0, 2)), { interval: 'day', to: '2018-04-27' }, [SPLIT], true);
    assert.deepEqual(before.splits, [SPLIT]);
    // As traded, the same window holds no jump: no split is named.
    assert.deepEqual(priceBarsAdjusted(seriesOfBars(SAMSUNG.slice(0, 2)), { interval: 'day', to: '2018-04-27' }, [SPLIT], false).splits, []);
    assert.deepEqual(closes(before.bars), [
      ['2018-04-26', 52_140],
      ['2018-04-27', 53_000],
    ]);
    // limit keeps the latest bars: 04-30 .. 05-03 in the new shares.
    const limited = priceBarsAdjusted(series, { interval: 'day', to: '2018-05-03', limit: 2 }, [SPLIT], true);
    assert.deepEqual(closes(limited.bars), [
      ['2018-05-02', 53_000],
      ['2018-05-03', 53_000],
    ]);
  });

  it('weeks: the split week is one bar in the new shares', () => {
    // ISO weeks: 04-23..04-27 (dated 04-27), 04-30..05-04 (dated 05-04), 05-07..05-11 (dated 05-08).
    const adjusted = priceBarsAdjusted(series, { interval: 'week' }, [SPLIT], true);
    assert.deepEqual(asDays(adjusted.bars), [
      // open 50,420 (04-26), high 53,640 and close 53,000 (04-27), low 50,400 (04-26); volume
      // 50,000 + 30,310,800; traded value 2,607,000,000 + 1,606,472,400,000.
      { date: '2018-04-27', open: 50_420, high: 53_640, low: 50_400, close: 53_000, volume: 30_360_800, tradedValue: 1_609_079_400_000 },
      // open 53,000 (04-30, in the new shares), high 53,900 and low 51,800 (05-04), close 51,900.
      { date: '2018-05-04', open: 53_000, high: 53_900, low: 51_800, close: 51_900, volume: 39_565_391, tradedValue: 2_053_443_792_900 },
      { date: '2018-05-08', open: 52_600, high: 53_200, low: 51_900, close: 52_600, volume: 1_000, tradedValue: 52_600_000 },
    ]);
    assert.deepEqual(adjusted.splits, [SPLIT]);
    // As traded, the split week's bar spans 2,650,000 down to 51,800.
    const traded = priceBarsAdjusted(series, { interval: 'week', from: '2018-05-01' }, [SPLIT], false);
    assert.deepEqual(asDays(traded.bars)[0], { date: '2018-05-04', open: 2_650_000, high: 2_650_000, low: 51_800, close: 51_900, volume: 39_565_391, tradedValue: 2_053_443_792_900 });
    // The window's first bar is the week from 04-30: the 05-04 event restates its first days.
    assert.deepEqual(traded.splits, [SPLIT]);
    // From the week dated 05-08 on: its period starts 05-07, after the event.
    assert.deepEqual(priceBarsAdjusted(series, { interval: 'week', from: '2018-05-05' }, [SPLIT], true).splits, []);
    // Months: April's bar is restated, May's spans the split in the new shares.
    const months = priceBarsAdjusted(series, { interval: 'month' }, [SPLIT], true);
    assert.deepEqual(closes(months.bars), [
      ['2018-04-30', 53_000],
      ['2018-05-08', 52_600],
    ]);
    // May: open 53,000 (05-02), high 53,900 and low 51,800 (05-04), close 52,600 (05-08);
    // volume 39,565,391 + 1,000; traded value 2,053,443,792,900 + 52,600,000.
    assert.deepEqual(asDays(months.bars)[1], { date: '2018-05-08', open: 53_000, high: 53_900, low: 51_800, close: 52_600, volume: 39_566_391, tradedValue: 2_053_496_392_900 });
  });

  it('a consolidation and a later split: whole factors, multiplied and divided', () => {
    // 1-for-10 on 01-03 (shares 1,000,000 -> 100,000, close 500 -> 5,100), then 2-for-1 on 01-04
    // (100,000 -> 200,000, close 5,100 -> 2,600). Before both: x 10 / 2 = x 5; between: / 2.
    const bars = [
      { date: '2024-01-02', open: 490, high: 510, low: 480, close: 500, volume: 1_000, tradedValue: 500_000, shares: 1_000_000 },
      { date: '2024-01-03', open: 5_000, high: 5_200, low: 4_900, close: 5_100, volume: 300, tradedValue: 1_530_000, shares: 100_000 },
      { date: '2024-01-04', open: 2_550, high: 2_650, low: 2_540, close: 2_600, volume: 700, tradedValue: 1_820_000, shares: 200_000 },
    ];
    const splits = splitEvents(bars);
    assert.deepEqual(splits, [
      { date: '2024-01-03', factor: 0.1 },
      { date: '2024-01-04', factor: 2 },
    ]);
    const s = seriesOfBars(bars);
    const adjusted = priceBarsAdjusted(s, { interval: 'day' }, splits, true);
    assert.deepEqual(asDays(adjusted.bars), [
      // 490 x 5 = 2,450; 510 x 5 = 2,550; 480 x 5 = 2,400; 500 x 5 = 2,500; volume 1,000 x 2 / 10 = 200.
      { date: '2024-01-02', open: 2_450, high: 2_550, low: 2_400, close: 2_500, volume: 200, tradedValue: 500_000 },
      // / 2: 2,500, 2,600, 2,450, 2,550; volume 300 x 2 = 600.
      { date: '2024-01-03', open: 2_500, high: 2_600, low: 2_450, close: 2_550, volume: 600, tradedValue: 1_530_000 },
      { date: '2024-01-04', open: 2_550, high: 2_650, low: 2_540, close: 2_600, volume: 700, tradedValue: 1_820_000 },
    ]);
    // Listed shares in the latest basis: 1,000,000 x 2 / 10 = 200,000 and 100,000 x 2; market
    // cap (close x shares) as traded: 2,500 x 200,000 = 500 x 1,000,000 = 5e8.
    const whole = adjustRange(s, splits, 0, 3);
    assert.deepEqual([...whole.shares], [200_000, 200_000, 200_000]);
    assert.deepEqual([0, 1, 2].map((i) => (whole.close[i] as number) * (whole.shares[i] as number)), [5e8, 5.1e8, 5.2e8]);
  });

  it("agrees with the screener's split-consistent price change", () => {
    // priceChangeFrom divides the base close by the splits after it: base 04-27 (2,650,000 / 50 =
    // 53,000) to 05-08 (52,600): (52,600 - 53,000) x 100 / 53,000 = -0.7547...%.
    const change = priceChangeFrom({ date: '2018-05-08', close: 52_600 }, '2018-04-27', 2_650_000, [SPLIT]);
    assert.equal(change, -0.7547169811320755);
    const adjusted = asDays(priceBarsAdjusted(series, { interval: 'day' }, [SPLIT], true).bars);
    assert.equal(changePct(adjusted.at(-1)?.close, adjusted[1]?.close), change);
  });

  it('the valuation band reads market caps as traded: continuous across the split', () => {
    // A step with TTM net income 40e12 won (a round test figure) from before the window.
    const steps: TtmStep[] = [{ effectiveFrom: '2018-01-01', referenceQuarter: '2017Q4', netIncome: 40e12, revenue: 200e12, equity: 250e12, shares: NEW }];
    const band = valuationBandOfSeries({ type: 'per', series, steps, from: '2018-05-03', to: '2018-05-04' });
    // 05-03: 2,650,000 x 128,386,494 = 340,224,209,100,000 / 40e12 = 8.5056052275;
    // 05-04: 51,900 x 6,419,324,700 = 333,162,951,930,000 / 40e12 = 8.32907379825 (-2.08 %, the adjusted close's move).
    assert.equal(band.min, 8.32907379825);
    assert.equal(band.max, 8.5056052275);
    // The adjusted series gives the same market caps: 53,000 x 6,419,324,700 = 340,224,209,100,000.
    const adjusted = adjustRange(series, [SPLIT], 0, series.days.length);
    assert.equal(valuationBandOfSeries({ type: 'per', series: adjusted, steps, from: '2018-05-03', to: '2018-05-04' }).max, 8.5056052275);
  });

  it('equals the plain definition on random histories (each bar over the product of the later factors)', () => {
    const splitBars = fc.array(fc.record({ gap: fc.integer({ min: 1, max: 4 }), price: fc.integer({ min: 1, max: 1_000_000 }), volume: fc.integer({ min: 0, max: 1e6 }), split: fc.constantFrom(1, 1, 1, 2, 5, 50, 0.5, 0.1) }), { minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(splitBars, fc.boolean(), fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 200 }), (rows, adjust, fromOffset, toOffset) => {
        let date = '2020-01-01';
        const bars: { date: string; open: number; high: number; low: number; close: number; volume: number; tradedValue: number; shares: number }[] = [];
        const splits: SplitEvent[] = [];
        for (const [i, r] of rows.entries()) {
          date = addDays(date, r.gap);
          if (i > 0 && r.split !== 1) splits.push({ date, factor: r.split });
          bars.push({ date, open: r.price, high: r.price + 1, low: r.price, close: r.price, volume: r.volume, tradedValue: r.price * r.volume, shares: 1 });
        }
        const from = addDays('2020-01-01', fromOffset);
        const to = addDays(from, toOffset);
        const series: BarSeries = seriesOfBars(bars);
        const got = priceBarsAdjusted(series, { interval: 'day', from, to }, splits, adjust);
        const kept = bars.filter((b) => b.date >= from && b.date <= to);
        // Adjusted: every split after the first kept bar; as traded, those up to the last kept bar too.
        const within = kept.length === 0 ? [] : splits.filter((s) => s.date > (kept[0]?.date ?? '') && (adjust || s.date <= (kept.at(-1)?.date ?? '')));
        assert.deepEqual(got.splits, within);
        const expected = kept.map((b) => {
          // The plain way: multiply the later factors as fractions n/1 or 1/n, then apply.
          let up = 1;
          let down = 1;
          for (const s of splits) {
            if (s.date <= b.date || !adjust) continue;
            if (s.factor >= 1) up *= s.factor;
            else down *= Math.round(1 / s.factor);
          }
          return { date: b.date, open: (b.open * down) / up, high: (b.high * down) / up, low: (b.low * down) / up, close: (b.close * down) / up, volume: (b.volume * up) / down, tradedValue: b.tradedValue };
        });
        assert.deepEqual(asDays(got.bars), expected);
      }),
    );
  });
});
