import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { discreteQuarters, quarterLabel, ttmAsOf, ttmTimeline } from '../../src/domain/ttm.js';
import { fiscalYear, report } from './fixtures.js';

// Net income, YTD as filed (discrete quarter in brackets):
//   FY2022: Q1 8 [8], H1 17 [9], 9M 27 [10], FY 40 [13]
//   FY2023: Q1 10 [10], H1 25 [15], 9M 45 [20], FY 70 [25]
//   FY2024: Q1 12 [12], H1 30 [18], 9M 51 [21]
// Disclosed Q1 05-15, H1 08-14, 9M 11-14, FY 03-15 of the next year.
const history = [
  ...fiscalYear(2022, [{ netIncome: 8, revenue: 80 }, { netIncome: 17, revenue: 170 }, { netIncome: 27, revenue: 270 }, { netIncome: 40, revenue: 400 }]),
  ...fiscalYear(2023, [{ netIncome: 10, revenue: 100 }, { netIncome: 25, revenue: 250 }, { netIncome: 45, revenue: 450 }, { netIncome: 70, revenue: 700, equity: 500 }]),
  ...fiscalYear(2024, [{ netIncome: 12, revenue: 120 }, { netIncome: 30, revenue: 300 }, { netIncome: 51, revenue: 510, equity: 540 }]),
];

void describe('discreteQuarters', () => {
  void it('derives discrete flows from YTD filings: Q1 = Q1, Qn = YTD(Qn) - YTD(Qn-1)', () => {
    const qs = discreteQuarters(history, '2025-01-01');
    assert.deepEqual(
      qs.map((q) => [quarterLabel(q), q.netIncome, q.revenue]),
      [
        ['2022Q1', 8, 80],
        ['2022Q2', 9, 90], // 17 - 8
        ['2022Q3', 10, 100], // 27 - 17
        ['2022Q4', 13, 130], // 40 - 27
        ['2023Q1', 10, 100],
        ['2023Q2', 15, 150], // 25 - 10
        ['2023Q3', 20, 200], // 45 - 25
        ['2023Q4', 25, 250], // 70 - 45
        ['2024Q1', 12, 120],
        ['2024Q2', 18, 180], // 30 - 12
        ['2024Q3', 21, 210], // 51 - 30
      ],
    );
  });

  void it('takes balances from the quarter\'s own filing and carries period end and disclosure date', () => {
    const q = discreteQuarters(history, '2025-01-01').at(-1);
    assert.equal(q?.equity, 540);
    assert.equal(q?.periodEnd, '2024-09-30');
    assert.equal(q?.disclosedOn, '2024-11-14');
  });

  void it('uses only filings disclosed on or before asOf (the 9M report counts from its own disclosure day)', () => {
    assert.equal(discreteQuarters(history, '2024-11-13').at(-1)?.fiscalQuarter, 2);
    assert.equal(discreteQuarters(history, '2024-11-14').at(-1)?.fiscalQuarter, 3);
  });

  void it('uses consolidated statements before separate ones, even when the separate one is later', () => {
    const reports = [report(2024, 1, '2024-05-15', { netIncome: 10 }), report(2024, 1, '2024-05-20', { netIncome: 999, consolidated: false })];
    const [q] = discreteQuarters(reports, '2024-12-31');
    assert.equal(q?.netIncome, 10);
    assert.equal(q?.consolidated, true);
  });

  void it('falls back to separate statements when there is no consolidated filing', () => {
    const reports = [report(2024, 1, '2024-05-15', { netIncome: 7, consolidated: false }), report(2024, 2, '2024-08-14', { netIncome: 16, consolidated: false })];
    assert.deepEqual(
      discreteQuarters(reports, '2024-12-31').map((q) => q.netIncome),
      [7, 9], // 16 - 7
    );
  });

  void it('does not subtract across bases: consolidated H1 minus a separate-only Q1 is null', () => {
    const reports = [report(2024, 1, '2024-05-15', { netIncome: 7, consolidated: false }), report(2024, 2, '2024-08-14', { netIncome: 16 })];
    assert.deepEqual(
      discreteQuarters(reports, '2024-12-31').map((q) => q.netIncome),
      [7, null],
    );
  });

  void it('gives null flows for a quarter whose previous YTD filing is missing, but keeps its balances', () => {
    const reports = [report(2024, 1, '2024-05-15', { netIncome: 10 }), report(2024, 3, '2024-11-14', { netIncome: 40, equity: 90 })];
    const qs = discreteQuarters(reports, '2024-12-31');
    assert.deepEqual(
      qs.map((q) => [quarterLabel(q), q.netIncome, q.equity]),
      [
        ['2024Q1', 10, null],
        ['2024Q3', null, 90], // 9M - H1, H1 never filed
      ],
    );
  });
});

void describe('ttmAsOf', () => {
  void it('sums the four consecutive quarters ending at the latest one, with the yoy and momentum bases', () => {
    const view = ttmAsOf(history, '2024-12-31');
    // TTM to 2024Q3 = 2023Q4 25 + 2024Q1 12 + Q2 18 + Q3 21 = 76
    assert.equal(view.current.ttm?.netIncome, 76);
    assert.equal(view.current.ttm?.revenue, 760); // 250 + 120 + 180 + 210
    assert.equal(view.current.ttm?.referenceQuarter, '2024Q3');
    assert.equal(view.current.ttm?.disclosedOn, '2024-11-14');
    // Four quarters earlier, TTM to 2023Q3 = 2022Q4 13 + 10 + 15 + 20 = 58
    assert.equal(view.yearEarlier.ttm?.netIncome, 58);
    assert.equal(view.yearEarlier.ttm?.referenceQuarter, '2023Q3');
    // Same quarter a year earlier: 2023Q3 = 20
    assert.equal(view.sameQuarterYearEarlier?.netIncome, 20);
    assert.equal(view.latest && quarterLabel(view.latest), '2024Q3');
  });

  void it('a full fiscal year as of the FY disclosure is the FY figure', () => {
    // TTM to 2023Q4 = 10 + 15 + 20 + 25 = 70 = FY2023
    assert.equal(ttmAsOf(history, '2024-03-15').current.ttm?.netIncome, 70);
  });

  void it('takes the TTM from the year-to-date filings: three filings, not four quarters', () => {
    // Only FY2022 (40), FY2023 (70), 9M2023 (45) and 9M2024 (51) filed: no Q1 or H1 anywhere.
    const reports = history.filter((r) => r.fiscalQuarter === 4 || r.fiscalQuarter === 3);
    const view = ttmAsOf(reports, '2024-12-31');
    // TTM to 2024Q3 = 9M2024 51 + FY2023 70 - 9M2023 45 = 76 (the four-quarter sum, 21 + 18 + 12 + 25)
    assert.equal(view.current.ttm?.netIncome, 76);
    assert.equal(view.current.ttm?.revenue, 760); // 510 + 700 - 450
    assert.equal(view.current.ttm?.disclosedOn, '2024-11-14');
    // Four quarters earlier: 9M2023 45 + FY2022 40 - 9M2022 27 = 58
    assert.equal(view.yearEarlier.ttm?.netIncome, 58);
    // Without the 9M2022 filing there is none, and the reason names it.
    const no9m2022 = reports.filter((r) => !(r.fiscalYear === 2022 && r.fiscalQuarter === 3));
    assert.equal(ttmAsOf(no9m2022, '2024-12-31').yearEarlier.reason, 'no filing for 2022Q3');
  });

  void it('ending at a fiscal year end, the TTM is the annual figure, even with no quarterly filing', () => {
    // Annual reports only (as OpenDART recordings of annual reports give): FY2022 40, FY2023 70.
    const reports = history.filter((r) => r.fiscalQuarter === 4);
    const view = ttmAsOf(reports, '2024-03-15');
    assert.equal(view.current.ttm?.netIncome, 70);
    assert.equal(view.current.ttm?.referenceQuarter, '2023Q4');
    assert.equal(view.yearEarlier.ttm?.netIncome, 40);
    // The discrete Q4 (FY - 9M) still needs the 9M filing: the momentum base is there, its flows are not.
    assert.equal(view.latest?.netIncome, null);
    assert.equal(view.sameQuarterYearEarlier?.netIncome, null);
  });

  void it('says which filing is missing', () => {
    // Without the FY2023 filing, the TTM to 2024Q3 (9M2024 + FY2023 - 9M2023) cannot be taken.
    const reports = history.filter((r) => !(r.fiscalYear === 2023 && r.fiscalQuarter === 4));
    const view = ttmAsOf(reports, '2024-12-31');
    assert.equal(view.current.ttm, null);
    assert.equal(view.current.reason, 'no filing for 2023Q4');
  });

  void it('gives no previous TTM when the older filings were never made', () => {
    const view = ttmAsOf(history.slice(4), '2024-12-31'); // FY2022 dropped
    assert.equal(view.current.ttm?.netIncome, 76);
    assert.equal(view.yearEarlier.ttm, null);
    assert.equal(view.yearEarlier.reason, 'no filing for 2022Q4');
  });

  void it('does not mix bases: a separate-only prior year gives no TTM, with the reason', () => {
    const reports = history.map((r) => (r.fiscalYear === 2023 && r.fiscalQuarter === 4 ? { ...r, consolidated: false } : r));
    assert.equal(ttmAsOf(reports, '2024-12-31').current.reason, '2023Q4 filed only separate, 2024Q3 consolidated');
  });

  void it('a flow is null in the TTM when a filing it is taken from lacks it', () => {
    // revenue missing in the 2023 9M filing -> TTM to 2024Q3 revenue (510 + 700 - null) null
    const reports = history.map((r) => (r.fiscalYear === 2023 && r.fiscalQuarter === 3 ? { ...r, revenue: null } : r));
    const ttm = ttmAsOf(reports, '2024-12-31').current.ttm;
    assert.equal(ttm?.revenue, null);
    assert.equal(ttm?.netIncome, 76);
    // The 2024 H1 filing is not one of the three: without its revenue the TTM revenue is still 760.
    const h1 = history.map((r) => (r.fiscalYear === 2024 && r.fiscalQuarter === 2 ? { ...r, revenue: null } : r));
    assert.equal(ttmAsOf(h1, '2024-12-31').current.ttm?.revenue, 760);
  });

  void it('applies a restatement only from its own disclosure date on (no look-ahead)', () => {
    // 2024 H1 originally 30 (2024-08-14), corrected to 33 on 2024-10-01.
    const reports = [...history, report(2024, 2, '2024-10-01', { netIncome: 33, revenue: 300 })];
    // Before the correction: Q2 = 30 - 12 = 18; TTM to 2024Q2 = 2023Q3 20 + Q4 25 + 12 + 18 = 75
    const before = ttmAsOf(reports, '2024-09-30');
    assert.equal(before.current.ttm?.netIncome, 75);
    assert.equal(before.latest?.netIncome, 18);
    assert.equal(before.current.ttm?.disclosedOn, '2024-08-14');
    // From the correction on: Q2 = 33 - 12 = 21; TTM = 20 + 25 + 12 + 21 = 78
    const after = ttmAsOf(reports, '2024-10-01');
    assert.equal(after.current.ttm?.netIncome, 78);
    assert.equal(after.latest?.netIncome, 21);
    assert.equal(after.current.ttm?.disclosedOn, '2024-10-01');
    // 9M (51) then gives Q3 = 51 - 33 = 18 and its disclosure date is the later of the two used.
    const later = ttmAsOf(reports, '2024-11-14');
    assert.equal(later.latest?.netIncome, 18);
    assert.equal(later.latest?.disclosedOn, '2024-11-14');
    assert.equal(later.current.ttm?.netIncome, 76); // 25 + 12 + 21 + 18
  });

  void it('a correction disclosed after the next quarter also updates the next quarter\'s derived flow', () => {
    // Q1 restated from 12 to 14 on 2024-12-01, after the 9M report: Q2 = 30 - 14 = 16; Q2's
    // disclosure date becomes 2024-12-01 (the latest filing it was derived from).
    const reports = [...history, report(2024, 1, '2024-12-01', { netIncome: 14, revenue: 120 })];
    const qs = discreteQuarters(reports, '2024-12-31');
    const q2 = qs.find((q) => q.fiscalYear === 2024 && q.fiscalQuarter === 2);
    assert.equal(q2?.netIncome, 16);
    assert.equal(q2?.disclosedOn, '2024-12-01');
    // TTM to 2024Q3 is unchanged at 76: 25 + 14 + 16 + 21
    assert.equal(ttmAsOf(reports, '2024-12-31').current.ttm?.netIncome, 76);
  });

  void it('works for a June fiscal year end (quarters by fiscal identity, not calendar)', () => {
    // FY2024 = July 2023 .. June 2024. YTD net income Q1 5, H1 12, 9M 20, FY 30 -> 5, 7, 8, 10
    // FY2025 Q1 (Jul-Sep 2024) 6.
    const june = [
      report(2024, 1, '2023-11-10', { periodEnd: '2023-09-30', netIncome: 5 }),
      report(2024, 2, '2024-02-10', { periodEnd: '2023-12-31', netIncome: 12 }),
      report(2024, 3, '2024-05-10', { periodEnd: '2024-03-31', netIncome: 20 }),
      report(2024, 4, '2024-08-25', { periodEnd: '2024-06-30', netIncome: 30 }),
      report(2025, 1, '2024-11-08', { periodEnd: '2024-09-30', netIncome: 6 }),
    ];
    assert.deepEqual(
      discreteQuarters(june, '2024-12-31').map((q) => [quarterLabel(q), q.periodEnd, q.netIncome]),
      [
        ['2024Q1', '2023-09-30', 5],
        ['2024Q2', '2023-12-31', 7],
        ['2024Q3', '2024-03-31', 8],
        ['2024Q4', '2024-06-30', 10],
        ['2025Q1', '2024-09-30', 6],
      ],
    );
    // As of 2024-08-25 the TTM is the fiscal year: 30. As of 2024-11-08: 7 + 8 + 10 + 6 = 31.
    assert.equal(ttmAsOf(june, '2024-08-25').current.ttm?.netIncome, 30);
    const view = ttmAsOf(june, '2024-11-08');
    assert.equal(view.current.ttm?.netIncome, 31);
    assert.equal(view.current.ttm?.referenceQuarter, '2025Q1');
    assert.equal(view.sameQuarterYearEarlier?.netIncome, 5); // FY2024 Q1
  });
});

void describe('ttmTimeline', () => {
  void it('steps at each disclosure that changes the TTM, equity or shares, agreeing with ttmAsOf', () => {
    const reports = [...history, report(2024, 2, '2024-10-01', { netIncome: 33, revenue: 300 })];
    const steps = ttmTimeline(reports);
    // Before FY2022 Q4 there are fewer than four quarters: TTM null.
    assert.deepEqual(steps[0], { effectiveFrom: '2022-05-15', referenceQuarter: '2022Q1', netIncome: null, revenue: null, equity: null, shares: null });
    assert.deepEqual(
      steps.slice(-4).map((s) => [s.effectiveFrom, s.referenceQuarter, s.netIncome, s.equity]),
      [
        ['2024-05-15', '2024Q1', 72, null], // 15 + 20 + 25 + 12
        ['2024-08-14', '2024Q2', 75, null], // 20 + 25 + 12 + 18
        ['2024-10-01', '2024Q2', 78, null], // correction: 20 + 25 + 12 + 21
        ['2024-11-14', '2024Q3', 76, 540], // 25 + 12 + 21 + 18
      ],
    );
    for (const s of steps) {
      const view = ttmAsOf(reports, s.effectiveFrom);
      assert.equal(s.netIncome, view.current.ttm?.netIncome ?? null, s.effectiveFrom);
      assert.equal(s.revenue, view.current.ttm?.revenue ?? null, s.effectiveFrom);
      assert.equal(s.equity, view.latest?.equity ?? null, s.effectiveFrom);
    }
  });

  void it('is empty without filings', () => {
    assert.deepEqual(ttmTimeline([]), []);
  });

  void it('equals the timeline made from ttmAsOf at every disclosure date, on random filing histories', () => {
    // Corrections (a quarter filed again later, on either basis), gaps, separate-only quarters
    // and several filings on one date: ttmTimeline's incremental index must give at each date
    // exactly what the point-in-time view built from scratch gives.
    let seed = 17;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const figure = (): number | null => (random(8) === 0 ? null : random(1000) - 100);
    const dateOf = (day: number): string => new Date(Date.UTC(2015, 0, 1) + day * 86_400_000).toISOString().slice(0, 10);
    for (let history = 0; history < 200; history++) {
      const reports = [];
      for (let k = 0, n = 1 + random(40); k < n; k++) {
        const fy = 2015 + random(6);
        const q = (1 + random(4)) as 1 | 2 | 3 | 4;
        // Disclosed after its quarter's end, sometimes years later (a correction); some on one date.
        const day = (fy - 2015) * 365 + q * 91 + random(random(3) === 0 ? 900 : 60);
        reports.push(
          report(fy, q, dateOf(day), {
            consolidated: random(5) !== 0,
            netIncome: figure(),
            revenue: figure(),
            equity: figure(),
            shares: figure(),
          }),
        );
      }
      const expected: ReturnType<typeof ttmTimeline> = [];
      for (const date of [...new Set(reports.map((r) => r.disclosedOn))].sort()) {
        const view = ttmAsOf(reports, date);
        const latest = view.latest;
        assert.ok(latest);
        const step = {
          effectiveFrom: date,
          referenceQuarter: quarterLabel(latest),
          netIncome: view.current.ttm?.netIncome ?? null,
          revenue: view.current.ttm?.revenue ?? null,
          equity: latest.equity,
          shares: latest.shares,
        };
        const prev = expected.at(-1);
        const same =
          prev !== undefined &&
          prev.referenceQuarter === step.referenceQuarter &&
          prev.netIncome === step.netIncome &&
          prev.revenue === step.revenue &&
          prev.equity === step.equity &&
          prev.shares === step.shares;
        if (!same) expected.push(step);
      }
      assert.deepEqual(ttmTimeline(reports), expected, `history ${history}`);
    }
  });
});
