import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { FxRate } from '../../src/domain/model.js';
import {
  expectedReturnOf,
  fxRateAsOf,
  marketCapBand,
  rankingRowAsOf,
  roundTo,
  supplyPctAsOf,
  targetPriceOf,
  ttmNiEokOf,
  V3_FORMULA,
  v3InputsAsOf,
  v3Result,
  v3Score,
} from '../../src/domain/v3.js';
import { bar, fiscalYear, flow, weekdays } from './fixtures.js';

const close = (actual: number, expected: number, tolerance = 1e-9): void =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${actual} is not within ${tolerance} of ${expected}`);

void describe('v3Score and v3Result', () => {
  void it('the worked example: yoy 50, ttmNiEok 150, supplyPct 6, momentum 0.2', () => {
    // score = 0.5 x sqrt(150) x (1 + 6/30) x (1 + 0.2) = 0.72 x 12.247448713915890 = 8.818163074019441
    // expectedReturn = -2.25 + 1.05 x sqrt(8.818163074019441) = -2.25 + 1.05 x 2.969539202303859 = 0.868016162419052
    const r = v3Result({ yoy: 50, ttmNiEok: 150, supplyPct: 6, momentum: 0.2, usdKrw: null });
    close(r.score, 8.818163074019441);
    close(r.expectedReturn, 0.868016162419052);
    assert.equal(r.gapPct, r.expectedReturn);
  });

  void it('a perfect square: yoy 100, ttmNiEok 144, supplyPct 0, momentum 2 -> score 36, expectedReturn 4.05', () => {
    // 1 x 12 x 1 x 3 = 36; -2.25 + 1.05 x 6 = 4.05
    assert.equal(v3Score({ yoy: 100, ttmNiEok: 144, supplyPct: 0, momentum: 2 }), 36);
    close(expectedReturnOf(36), 4.05);
  });

  void it('caps yoy at 300', () => {
    // min(500, 300)/100 = 3; 3 x sqrt(100) x 1 x 1 = 30
    assert.equal(v3Score({ yoy: 500, ttmNiEok: 100, supplyPct: 0, momentum: 0 }), 30);
    assert.equal(v3Score({ yoy: 300, ttmNiEok: 100, supplyPct: 0, momentum: 0 }), 30);
    // -2.25 + 1.05 x sqrt(30) = -2.25 + 1.05 x 5.477225575051661 = 3.501086853804244
    close(expectedReturnOf(30), 3.501086853804244);
  });

  void it('scores 0 for a loss-making or zero TTM (no square root of a non-positive number)', () => {
    assert.equal(v3Score({ yoy: 50, ttmNiEok: -50, supplyPct: 6, momentum: 0.2 }), 0);
    assert.equal(v3Score({ yoy: 50, ttmNiEok: 0, supplyPct: 6, momentum: 0.2 }), 0);
    // expectedReturn of score 0 = -2.25
    assert.equal(v3Result({ yoy: 50, ttmNiEok: -50, supplyPct: 6, momentum: 0.2, usdKrw: null }).gapPct, -2.25);
  });

  void it('scores 0 for a negative yoy', () => {
    assert.equal(v3Score({ yoy: -20, ttmNiEok: 100, supplyPct: 6, momentum: 0.2 }), 0);
  });

  void it('scores 0 when supplyPct is below -30 (1 + supplyPct/30 < 0), and at exactly -30', () => {
    assert.equal(v3Score({ yoy: 50, ttmNiEok: 100, supplyPct: -31, momentum: 0.2 }), 0);
    assert.equal(v3Score({ yoy: 50, ttmNiEok: 100, supplyPct: -30, momentum: 0.2 }), 0);
  });

  void it('scores 0 when two factors are negative instead of multiplying them into a positive', () => {
    // (1 - 45/30) = -0.5 and (1 - 1.5) = -0.5 would multiply to +0.25
    assert.equal(v3Score({ yoy: 50, ttmNiEok: 100, supplyPct: -45, momentum: -1.5 }), 0);
  });
});

void describe('targetPriceOf and roundTo', () => {
  void it('rounds to the whole won for KR', () => {
    // 50,000 x (1 + 4.05/100) = 52,025
    assert.equal(targetPriceOf('KR', 50_000, 4.05), 52_025);
    // 10,001 x (1 - 2.25/100) = 9,775.9775 -> 9,776
    assert.equal(targetPriceOf('KR', 10_001, -2.25), 9_776);
  });

  void it('rounds to the cent for US, halves away from zero despite binary representation', () => {
    // 123.45 x 1.035 = 127.77075 -> 127.77
    assert.equal(targetPriceOf('US', 123.45, 3.5), 127.77);
    // 1.005 is stored as 1.00499999999999989...; still rounds to 1.01
    assert.equal(targetPriceOf('US', 1.005, 0), 1.01);
    assert.equal(roundTo(-2.5, 0), -3);
  });
});

void describe('ttmNiEokOf', () => {
  void it('KR: won / 1e8', () => {
    assert.equal(ttmNiEokOf('KR', 15_000_000_000, null), 150);
  });
  void it('US: dollars x usdKrw / 1e8', () => {
    // 10,000,000 USD x 1,350 = 13,500,000,000 won = 135 eok
    assert.equal(ttmNiEokOf('US', 10_000_000, 1_350), 135);
  });
});

void describe('marketCapBand', () => {
  void it('KR bands, lower bound inclusive', () => {
    assert.equal(marketCapBand('KR', 20e12), 'mega');
    assert.equal(marketCapBand('KR', 20e12 - 1), 'xlarge');
    assert.equal(marketCapBand('KR', 5e12), 'xlarge');
    assert.equal(marketCapBand('KR', 5e12 - 1), 'large');
    assert.equal(marketCapBand('KR', 1e12), 'large');
    assert.equal(marketCapBand('KR', 1e12 - 1), 'mid');
    assert.equal(marketCapBand('KR', 3e11), 'mid');
    assert.equal(marketCapBand('KR', 3e11 - 1), 'small');
    assert.equal(marketCapBand('KR', 0), 'small');
  });
  void it('US bands, lower bound inclusive', () => {
    assert.equal(marketCapBand('US', 200e9), 'mega');
    assert.equal(marketCapBand('US', 200e9 - 1), 'xlarge');
    assert.equal(marketCapBand('US', 50e9), 'xlarge');
    assert.equal(marketCapBand('US', 10e9), 'large');
    assert.equal(marketCapBand('US', 3e9), 'mid');
    assert.equal(marketCapBand('US', 3e9 - 1), 'small');
  });
});

// 22 weekdays 2025-02-13 .. 2025-03-14; the last 20 are 2025-02-17 .. 2025-03-14.
const days = weekdays('2025-02-13', 22);

void describe('supplyPctAsOf', () => {
  void it('KR: (foreign + institution net) / traded value over the last 20 trading days x 100', () => {
    const bars = days.map((d) => bar(d, 100, { tradedValue: 1_000 }));
    // 20 days x (50 + 10) = 1,200 net over 20 x 1,000 = 20,000 traded -> 6%.
    // The two older days (+1e6 each) and a flow after asOf are outside the window.
    const flows = [...days.map((d, i) => (i < 2 ? flow(d, 1e6, 0) : flow(d, 50, 10))), flow('2025-03-17', 1e9, 0)];
    // The 20 window days each have a flow row, all from the fixtures' source `test`.
    assert.deepEqual(supplyPctAsOf('KR', bars, flows, '2025-03-16'), { value: 6, days: 20, flowDays: 20, sources: ['test'] });
  });

  void it('KR: with fewer than 20 bars uses the bars that exist and says how many', () => {
    const bars = days.slice(0, 5).map((d) => bar(d, 100, { tradedValue: 100 }));
    // (5 x 2) net over 5 x 100 traded = 10 / 500 = 2%
    const flows = days.slice(0, 5).map((d) => flow(d, 3, -1));
    assert.deepEqual(supplyPctAsOf('KR', bars, flows, '2025-03-16'), { value: 2, days: 5, flowDays: 5, sources: ['test'] });
  });

  void it('KR: names the sources of the window\'s flow rows and counts the days that have one', () => {
    const bars = days.map((d) => bar(d, 100, { tradedValue: 1_000 }));
    // Window 2025-02-17 .. 2025-03-14 (days[2..21]): days[2..11] from krx, days[12..16] from kis,
    // days[17..21] without a row. Days[0..1], outside the window, come from a third name, not counted.
    // Net: 10 x (50 + 10) + 5 x (50 + 10) = 900 over 20 x 1,000 = 20,000 traded -> 4.5%.
    const named = (d: string, source: string) => ({ ...flow(d, 50, 10), source });
    const flows = [...days.slice(0, 2).map((d) => named(d, 'older')), ...days.slice(2, 12).map((d) => named(d, 'krx')), ...days.slice(12, 17).map((d) => named(d, 'kis'))];
    assert.deepEqual(supplyPctAsOf('KR', bars, flows, '2025-03-16'), { value: 4.5, days: 20, flowDays: 15, sources: ['kis', 'krx'] });
  });

  void it('KR: no investor flows, or no traded value, is undefined with a reason', () => {
    const bars = days.map((d) => bar(d, 100, { tradedValue: 1_000 }));
    assert.equal(supplyPctAsOf('KR', bars, [], '2025-03-16').value, null);
    const idle = days.map((d) => bar(d, 100, { tradedValue: 0 }));
    const r = supplyPctAsOf('KR', idle, days.map((d) => flow(d, 0, 0)), '2025-03-16');
    assert.equal(r.value, null);
    assert.equal(r.reason, 'no traded value in the last 20 trading days');
  });

  void it('US: traded value signed by the close-to-close change', () => {
    // closes 10, 11, 11, 10, 12 with traded value 100, 200, 300, 400, 500:
    // day 1 has no previous close (0), +200, unchanged 0, -400, +500 -> 300 / 1,500 = 20%
    const closes = [10, 11, 11, 10, 12];
    const bars = closes.map((c, i) => bar(days[i] as string, c, { tradedValue: (i + 1) * 100 }));
    assert.deepEqual(supplyPctAsOf('US', bars, [], '2025-03-16'), { value: 20, days: 5, flowDays: null, sources: [] });
  });

  void it('US: the first day of the window is signed against the close before the window', () => {
    // 22 rising closes: every one of the last 20 days is up -> 100%; the older days' traded
    // value (1e6 each) is not in the denominator.
    const bars = days.map((d, i) => bar(d, 10 + i, { tradedValue: i < 2 ? 1e6 : 100 }));
    assert.deepEqual(supplyPctAsOf('US', bars, [], '2025-03-16'), { value: 100, days: 20, flowDays: null, sources: [] });
  });
});

// Net income in won, YTD (discrete in brackets), in units of 1e8 (eok):
//   FY2023: Q1 20 [20], H1 45 [25], 9M 75 [30], FY 100 [25]
//   FY2024: Q1 30 [30], H1 70 [40], 9M 120 [50], FY 150 [30]   (FY2024 disclosed 2025-03-15)
const E = 1e8;
const reports = [
  ...fiscalYear(2023, [{ netIncome: 20 * E }, { netIncome: 45 * E }, { netIncome: 75 * E }, { netIncome: 100 * E }]),
  ...fiscalYear(2024, [{ netIncome: 30 * E }, { netIncome: 70 * E }, { netIncome: 120 * E }, { netIncome: 150 * E }]),
];
const bars = days.map((d) => bar(d, 10_000, { tradedValue: 1_000 }));
const flows = days.map((d) => flow(d, 50, 10));

void describe('v3InputsAsOf', () => {
  void it('assembles the worked example from filings, bars and flows', () => {
    // TTM to 2024Q4 = 150 eok, TTM to 2023Q4 = 100 eok -> yoy = 50 / 100 x 100 = 50
    // momentum = (2024Q4 30 - 2023Q4 25) / 25 = 0.2; supplyPct = 1,200 / 20,000 x 100 = 6
    const r = v3InputsAsOf({ market: 'KR', reports, bars, flows, usdKrw: null, asOf: '2025-03-16' });
    assert.deepEqual(r.inputs, { ttmNiEok: 150, yoy: 50, supplyPct: 6, momentum: 0.2, usdKrw: null });
    assert.deepEqual(r.details, {
      priceDate: '2025-03-14',
      currentPrice: 10_000,
      marketCap: 10_000_000_000,
      referenceQuarter: '2024Q4',
      disclosedOn: '2025-03-15',
      supplyDays: 20,
      supplyFlowDays: 20,
      supplySources: ['test'],
    });
  });

  void it('uses the absolute value of a negative base year', () => {
    // FY2023 -20, -45, -75, -100 (discrete -20, -25, -30, -25); FY2024 10, 20, 30, 50 (10, 10, 10, 20)
    // yoy = (50 - (-100)) / |-100| x 100 = 150; momentum = (20 - (-25)) / |-25| = 1.8
    const turnaround = [
      ...fiscalYear(2023, [{ netIncome: -20 * E }, { netIncome: -45 * E }, { netIncome: -75 * E }, { netIncome: -100 * E }]),
      ...fiscalYear(2024, [{ netIncome: 10 * E }, { netIncome: 20 * E }, { netIncome: 30 * E }, { netIncome: 50 * E }]),
    ];
    const r = v3InputsAsOf({ market: 'KR', reports: turnaround, bars, flows, usdKrw: null, asOf: '2025-03-16' });
    assert.equal(r.inputs?.yoy, 150);
    assert.equal(r.inputs?.momentum, 1.8);
    assert.equal(r.inputs?.ttmNiEok, 50);
  });

  void it('gives a loss-making stock its inputs (and so a score of 0), not a reason', () => {
    // FY2024 YTD 30, 70, 120, -50 -> TTM -50 eok; yoy = (-50 - 100) / 100 x 100 = -150
    const loss = [...reports.slice(0, 7), { ...(reports[7] as (typeof reports)[number]), netIncome: -50 * E }];
    const r = v3InputsAsOf({ market: 'KR', reports: loss, bars, flows, usdKrw: null, asOf: '2025-03-16' });
    assert.equal(r.inputs?.ttmNiEok, -50);
    assert.equal(r.inputs?.yoy, -150);
    assert.equal(r.inputs && v3Result(r.inputs).score, 0);
  });

  void it('says why when an input is missing', () => {
    const at = (over: Partial<Parameters<typeof v3InputsAsOf>[0]>) => v3InputsAsOf({ market: 'KR', reports, bars, flows, usdKrw: null, asOf: '2025-03-16', ...over }).reason;
    assert.equal(at({ bars: [] }), 'no price on or before the date');
    // Only 2024's Q1, H1 and 9M filings: the TTM to 2024Q3 is 9M2024 + FY2023 - 9M2023, and FY2023 is not there.
    assert.equal(at({ reports: reports.slice(4, 7) }), 'no TTM net income: no filing for 2023Q4');
    // FY2023 alone: TTM to 2023Q4 exists but the base (to 2022Q4) was never filed.
    // Only FY2023's filings: the TTM four quarters earlier is FY2022's, never filed.
    assert.equal(at({ reports: reports.slice(0, 4) }), 'no TTM net income four quarters earlier: no filing for 2022Q4');
    assert.equal(at({ flows: [] }), 'supplyPct undefined: no investor-type flows in the last 20 trading days');
    assert.equal(at({ market: 'US' }), 'no USD/KRW rate on or before the date');
  });

  void it('says yoy is undefined when the base TTM is zero', () => {
    // FY2023 YTD 20, 45, 75, 0: TTM to 2023Q4 = 0
    const zeroBase = [...reports.slice(0, 3), { ...(reports[3] as (typeof reports)[number]), netIncome: 0 }, ...reports.slice(4)];
    const r = v3InputsAsOf({ market: 'KR', reports: zeroBase, bars, flows, usdKrw: null, asOf: '2025-03-16' });
    assert.equal(r.inputs, null);
    assert.equal(r.reason, 'yoy undefined: TTM net income to 2023Q4 is zero');
  });

  void it('converts a US stock at the rate given and reports it', () => {
    // Same YTD figures in dollars x 1e5: TTM 150e5 USD x 1,350 / 1e8 = 202.5 eok
    const usd = reports.map((r) => ({ ...r, market: 'US' as const, netIncome: ((r.netIncome as number) / E) * 1e5 }));
    const usBars = days.map((d, i) => bar(d, 100 + i, { tradedValue: 1_000, market: 'US' }));
    const r = v3InputsAsOf({ market: 'US', reports: usd, bars: usBars, flows: [], usdKrw: 1_350, asOf: '2025-03-16' });
    assert.equal(r.inputs?.ttmNiEok, 202.5);
    assert.equal(r.inputs?.usdKrw, 1_350);
    assert.equal(r.inputs?.supplyPct, 100); // every day up
  });
});

void describe('rankingRowAsOf', () => {
  void it('builds the ranking row: band, target price, momentum in percent', () => {
    const r = rankingRowAsOf({ market: 'KR', code: '005930', name: 'Test Co' }, { reports, bars, flows, usdKrw: null, asOf: '2025-03-16' });
    assert.ok(r.row);
    // gapPct 0.868016162419052 -> 10,000 x 1.00868016... = 10,086.80 -> 10,087 won
    assert.equal(r.row.targetPrice, 10_087);
    assert.equal(r.row.band, 'small'); // 1e10 won < 3e11
    assert.equal(r.row.currency, 'KRW');
    close(r.row.momentumPct, 20);
    close(r.row.score, 8.818163074019441);
    assert.equal(r.row.ticker, '005930');
  });

  void it('gives a reason, not a row, when inputs are missing', () => {
    const r = rankingRowAsOf({ market: 'KR', code: '005930', name: 'Test Co' }, { reports: [], bars, flows, usdKrw: null, asOf: '2025-03-16' });
    assert.equal(r.row, null);
    assert.equal(r.reason, 'no TTM net income: no quarterly report disclosed');
  });
});

void describe('fxRateAsOf', () => {
  void it('takes the latest rate dated on or before the date', () => {
    const fx: FxRate[] = [
      { date: '2025-03-13', usdKrw: 1_450, source: 'test' },
      { date: '2025-03-14', usdKrw: 1_455, source: 'test' },
      { date: '2025-03-17', usdKrw: 1_460, source: 'test' },
    ];
    assert.equal(fxRateAsOf(fx, '2025-03-16')?.usdKrw, 1_455);
    assert.equal(fxRateAsOf(fx, '2025-03-01'), null);
  });
});

void describe('V3_FORMULA', () => {
  void it('states the formula, the supply and momentum definitions and the backtest', () => {
    assert.match(V3_FORMULA.score, /max\(0, min\(yoy, 300\) \/ 100\) x sqrt\(ttmNiEok\) x \(1 \+ supplyPct \/ 30\) x \(1 \+ momentum\)/);
    assert.match(V3_FORMULA.score, /last 20 trading days/);
    assert.match(V3_FORMULA.score, /sign\(close - previous close\)/);
    assert.match(V3_FORMULA.score, /momentum = /);
    assert.match(V3_FORMULA.expectedReturn, /-2\.25 \+ 1\.05 x sqrt\(score\)/);
    assert.match(V3_FORMULA.targetPrice, /currentPrice x \(1 \+ gapPct \/ 100\)/);
    assert.match(V3_FORMULA.backtest, /one-year-return backtest over all Korean market-cap bands/);
    // How to run one on the served data: the command exists with these options (test/cli/backtest.test.ts).
    assert.match(V3_FORMULA.backtest, /npm run cli -- backtest --market KR --from 2016-01 --by score --top 20 --hold 12/);
  });
});
