import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { quantile } from '../../src/domain/series.js';
import { bar, fiscalYear, report } from './fixtures.js';
import { valuationBand as valuationBandOracle, valuationBandOfBars } from './oracles.js';

const close = (actual: number | null | undefined, expected: number, tolerance = 1e-9): void =>
  assert.ok(typeof actual === 'number' && Math.abs(actual - expected) <= tolerance, `${String(actual)} is not within ${tolerance} of ${expected}`);

void describe('quantile (type 7: linear between closest ranks)', () => {
  void it('h = (n - 1) p, interpolated', () => {
    const xs = [9, 10, 12, 12, 14, 15, 20];
    assert.equal(quantile(xs, 0), 9);
    assert.equal(quantile(xs, 1), 20);
    assert.equal(quantile(xs, 0.5), 12); // h = 3 -> x[3]
    close(quantile(xs, 0.05), 9.3); // h = 0.3 -> 9 + 0.3 x (10 - 9)
    close(quantile(xs, 0.95), 18.5); // h = 5.7 -> 15 + 0.7 x (20 - 15)
    assert.equal(quantile([1, 2, 3, 4], 0.5), 2.5); // h = 1.5
    assert.equal(quantile([7], 0.95), 7);
    assert.equal(quantile([], 0.5), null);
  });
});

// Filings (net income YTD, 2023 quarters 25 each; equity and revenue as noted):
//   2023 Q1 25 (2023-05-15), H1 50 (2023-08-14), 9M 75 (2023-11-14, equity 500), FY 100 (2024-03-15, equity 500)
//   2024 Q1 50 (2024-05-15, equity 400)
// TTM net income: none before 2024-03-15 (three quarters), 100 from 2024-03-15,
//   25 + 25 + 25 + 50 = 125 from 2024-05-15. Revenue 250 a quarter throughout: TTM 1,000.
function filings(q1of2024NetIncome = 50) {
  return [
    ...fiscalYear(2023, [
      { netIncome: 25, revenue: 250 },
      { netIncome: 50, revenue: 500 },
      { netIncome: 75, revenue: 750, equity: 500 },
      { netIncome: 100, revenue: 1_000, equity: 500 },
    ]),
    report(2024, 1, '2024-05-15', { netIncome: q1of2024NetIncome, revenue: 250, equity: 400 }),
  ];
}

// Closes with 10 shares (market cap = close x 10):
const bars = [
  bar('2023-12-29', 500, { shares: 10 }), // before the window
  bar('2024-03-14', 100, { shares: 10 }), // PER: no TTM yet -> excluded
  bar('2024-03-15', 120, { shares: 10 }), // 1,200 / 100 = 12
  bar('2024-03-18', 90, { shares: 10 }), //    900 / 100 = 9
  bar('2024-05-14', 150, { shares: 10 }), // 1,500 / 100 = 15
  bar('2024-05-15', 125, { shares: 10 }), // 1,250 / 125 = 10
  bar('2024-05-16', 250, { shares: 10 }), // 2,500 / 125 = 20
  bar('2025-01-02', 150, { shares: 10 }), // 1,500 / 125 = 12
  bar('2025-01-03', 175, { shares: 10 }), // 1,750 / 125 = 14
  bar('2025-01-06', 999, { shares: 10 }), // after the window
];

// The service's band (`valuationBandOfSeries` over the columns and the TTM timeline) and the
// plain oracle over bar objects and filings (test/domain/oracles.ts), each held to the same
// hand-derived figures.
for (const [name, valuationBand] of [
  ['valuationBandOfSeries (the service)', valuationBandOfBars],
  ['valuationBand (the oracle)', valuationBandOracle],
] as const) {
  void describe(name, () => {
    void it('PER: daily close x shares over the point-in-time TTM net income', () => {
      const r = valuationBand({ type: 'per', bars, reports: filings(), from: '2024-01-01', to: '2025-01-03' });
      // Used: 12, 9, 15, 10, 20, 12, 14 -> sorted 9, 10, 12, 12, 14, 15, 20
      assert.equal(r.daysUsed, 7);
      assert.equal(r.daysExcluded, 1);
      assert.equal(r.min, 9);
      assert.equal(r.max, 20);
      assert.equal(r.median, 12); // h = 3
      close(r.p5, 9.3); // h = 0.3: 9 + 0.3 x 1
      close(r.p95, 18.5); // h = 5.7: 15 + 0.7 x 5
      // 2024: 12, 9, 15, 10, 20 -> sorted 9, 10, 12, 15, 20; 2025: 12, 14 -> median 13
      assert.deepEqual(r.years, [
        { year: 2024, days: 5, min: 9, median: 12, max: 20 },
        { year: 2025, days: 2, min: 12, median: 13, max: 14 },
      ]);
      // Current: 14 on 2025-01-03; 4 values below (9, 10, 12, 12) -> 100 x 4 / 6
      assert.deepEqual(r.current, { date: '2025-01-03', value: 14, percentile: 400 / 6 });
      assert.equal(r.reason, undefined);
      assert.equal(r.from, '2024-01-01');
      assert.equal(r.to, '2025-01-03');
    });

    void it('PBR: over the latest equity known on each day', () => {
      const r = valuationBand({ type: 'pbr', bars, reports: filings(), from: '2024-01-01', to: '2025-01-03' });
      // equity 500 until 2024-05-14, 400 from 2024-05-15:
      // 1,000/500 = 2, 1,200/500 = 2.4, 900/500 = 1.8, 1,500/500 = 3, 1,250/400 = 3.125,
      // 2,500/400 = 6.25, 1,500/400 = 3.75, 1,750/400 = 4.375
      // sorted 1.8, 2, 2.4, 3, 3.125, 3.75, 4.375, 6.25; median h = 3.5 -> 3 + 0.5 x 0.125 = 3.0625
      assert.equal(r.daysUsed, 8);
      assert.equal(r.daysExcluded, 0);
      assert.equal(r.min, 1.8);
      assert.equal(r.max, 6.25);
      assert.equal(r.median, 3.0625);
      // 4.375 has 6 below -> 100 x 6 / 7
      assert.deepEqual(r.current, { date: '2025-01-03', value: 4.375, percentile: 600 / 7 });
    });

    void it('PSR: over the TTM revenue', () => {
      const r = valuationBand({ type: 'psr', bars, reports: filings(), from: '2024-05-16', to: '2024-05-16' });
      assert.equal(r.daysUsed, 1);
      assert.equal(r.median, 2.5); // 2,500 / 1,000
      assert.deepEqual(r.current, { date: '2024-05-16', value: 2.5, percentile: 100 });
    });

    void it('excludes and counts days with a non-positive denominator; the current value is then null with a reason', () => {
      // 2024 Q1 loss of 150: TTM from 2024-05-15 = 25 + 25 + 25 - 150 = -75
      const r = valuationBand({ type: 'per', bars, reports: filings(-150), from: '2024-01-01', to: '2025-01-03' });
      assert.equal(r.daysUsed, 3); // 12, 9, 15
      assert.equal(r.daysExcluded, 5); // 2024-03-14 (no TTM) and the four days from 2024-05-15
      assert.equal(r.median, 12);
      assert.deepEqual(r.current, { date: '2025-01-03', value: null, percentile: null, reason: 'TTM net income is not positive for 2024Q1' });
    });

    void it('says why when no day can be used', () => {
      const none = valuationBand({ type: 'per', bars, reports: [], from: '2024-01-01', to: '2025-01-03' });
      assert.equal(none.daysUsed, 0);
      assert.equal(none.p5, null);
      assert.equal(none.reason, 'no day in the window with a positive TTM net income');
      assert.equal(none.current?.reason, 'no report disclosed by this date');
      const empty = valuationBand({ type: 'per', bars, reports: filings(), from: '2026-01-01', to: '2026-12-31' });
      assert.equal(empty.current, null);
      assert.equal(empty.reason, 'no trading day in the window');
    });
  });
}
