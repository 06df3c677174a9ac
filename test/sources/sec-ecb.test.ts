// Foreign filers without a USD convenience translation, converted at the ECB's reference rates
// (real: test/fixtures/real/ecb) from a CONSTRUCTED companyfacts document (test/e2e/constructed-foreign.ts:
// no EUR or CAD reporter's companyfacts is recorded in this project). Every expected figure is
// derived beside it from the fixture's rows.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { filerNoteOf } from '../../src/domain/filer-basis.js';
import { usdSeriesOf } from '../../src/domain/reference-rates.js';
import { stockMetrics } from '../../src/domain/snapshot.js';
import { discreteQuarters, ttmAsOf } from '../../src/domain/ttm.js';
import { parseReferenceRates } from '../../src/sources/ecb/parse.js';
import { NO_CONVENIENCE_TRANSLATION, NO_REFERENCE_RATE, parseCompanyFacts, secCompany } from '../../src/sources/sec/parse.js';
import { companyFacts } from '../e2e/constructed-foreign.js';
import { real } from '../e2e/upstream.js';

const M = 1_000_000;
const RATES = usdSeriesOf(parseReferenceRates(real('ecb/eurofxref-hist_2022-12-01_2024-10-11.csv.gz').toString('utf8'))?.rates ?? []);
const near = (actual: number | null | undefined, expected: number): void => {
  assert.ok(actual !== null && actual !== undefined && Math.abs(actual - expected) <= Math.abs(expected) * 1e-12, `${actual} != ${expected}`);
};

// From the fixture (awk -F, over the rows; column 2 USD per EUR, column 29 CAD per EUR):
// FY2023: the 255 USD figures of 2023 sum to 275.7235; the last day of 2023 with a rate is 2023-12-29 (USD 1.105).
const EUR_FY2023 = 275.7235 / 255; // 1.0812686...
const EUR_END_2023 = 1.105;
// Q1 2024: the 63 USD figures from 2024-01-02 to 2024-03-28 sum to 68.4046; 2024-03-29 to 04-01 is Easter (no rate),
// so the rate of the period end 2024-03-31 is 2024-03-28's: USD 1.0811, CAD 1.4672.
const EUR_Q1_2024 = 68.4046 / 63; // 1.0857873...
const EUR_END_Q1 = 1.0811;
// CAD: the mean of the 63 daily USD/CAD = USD per EUR / CAD per EUR ($2/$29): 0.7417200837 (awk, 10 decimals).
const CAD_Q1_2024_AWK = 0.7417200837;
const CAD_END_Q1 = 1.0811 / 1.4672;

describe("a EUR reporter without a USD translation, at the ECB's reference rates", () => {
  const parsed = parseCompanyFacts(companyFacts('EUR', '20-F'), 'EURX', RATES)!;

  it('takes every filing: each at its own period, flows at the average, balances at the end', () => {
    assert.equal(parsed.reportingCurrency, 'EUR');
    assert.deepEqual(parsed.skipped, {});
    assert.deepEqual(
      parsed.rates.map((r) => [r.filed, r.reference]),
      [
        ['2024-03-01', { from: '2023-01-01', to: '2023-12-31', days: 255, balanceUsdPerUnit: EUR_END_2023, balanceOn: '2023-12-29' }],
        ['2024-05-02', { from: '2024-01-01', to: '2024-03-31', days: 63, balanceUsdPerUnit: EUR_END_Q1, balanceOn: '2024-03-28' }],
      ],
    );
    near(parsed.rates[0]?.usdPerUnit, EUR_FY2023);
    near(parsed.rates[1]?.usdPerUnit, EUR_Q1_2024);
    assert.equal(EUR_Q1_2024.toFixed(7), '1.0857873');
  });

  it('Q1 2024 in USD: revenue 6,300 M x 1.0857873 = 6,840.46 M; assets 62,000 M x 1.0811 = 67,028.2 M', () => {
    const q1 = parsed.reports.find((r) => r.fiscalYear === 2024 && r.fiscalQuarter === 1)!;
    assert.deepEqual([q1.periodEnd, q1.disclosedOn], ['2024-03-31', '2024-05-02']);
    near(q1.revenue, 6_300 * M * EUR_Q1_2024);
    assert.equal(((q1.revenue ?? 0) / M).toFixed(2), '6840.46'); // 6,300 x 68.4046 / 63 = 6,840.46 exactly
    near(q1.operatingIncome, 1_300 * M * EUR_Q1_2024);
    near(q1.netIncome, 950 * M * EUR_Q1_2024);
    near(q1.totalAssets, 62_000 * M * EUR_END_Q1);
    assert.equal(((q1.totalAssets ?? 0) / M).toFixed(1), '67028.2');
    near(q1.equity, 26_000 * M * EUR_END_Q1);
    assert.equal(q1.shares, 400 * M);
  });

  it("the comparative a filing gives is at that filing's rates (Q1 2023 from the 6-K; FY2022 from the 20-F)", () => {
    const q1_2023 = parsed.reports.find((r) => r.fiscalYear === 2023 && r.fiscalQuarter === 1)!;
    assert.equal(q1_2023.disclosedOn, '2024-05-02');
    near(q1_2023.revenue, 5_600 * M * EUR_Q1_2024);
    const fy2022 = parsed.reports.find((r) => r.fiscalYear === 2022)!;
    assert.equal(fy2022.disclosedOn, '2024-03-01');
    near(fy2022.revenue, 20_000 * M * EUR_FY2023);
    near(fy2022.totalAssets, 50_000 * M * EUR_END_2023);
  });

  it('the TTM after the 6-K: FY2023 at its average + (Q1 2024 - Q1 2023) at the Q1 average; growth in EUR', () => {
    const view = ttmAsOf(parsed.reports, '2024-06-30');
    assert.equal(view.current.ttm?.referenceQuarter, '2024Q1');
    // 24,000 x 1.0812686 + (6,300 - 5,600) x 1.0857873 = 25,950.447 + 760.051 = 26,710.50 M.
    near(view.current.ttm?.revenue, 24_000 * M * EUR_FY2023 + 700 * M * EUR_Q1_2024);
    assert.equal(((view.current.ttm?.revenue ?? 0) / M).toFixed(2), '26710.50');
    // Before the 6-K the TTM is FY2023, a year earlier FY2022, both from the 20-F at its average:
    // revenue growth (24,000 - 20,000) / 20,000 = 20 % exactly, as in EUR.
    const m = stockMetrics(discreteQuarters(parsed.reports, '2024-04-15'), { date: '2024-04-15', close: 50, shares: 400 * M, marketCap: 50 * 400 * M }, 'USD');
    assert.ok(Math.abs((m.revenueYoy.value ?? 0) - 20) < 1e-9);
    // Operating income (5,000 - 4,000) / 4,000 = 25 %.
    assert.ok(Math.abs((m.operatingIncomeYoy.value ?? 0) - 25) < 1e-9);
    // Operating margin is currency-free: 5,000 / 24,000 = 20.8333 %.
    assert.equal(m.operatingMargin.value?.toFixed(4), '20.8333');
  });

  it("the filer note says which rate and where it is from", () => {
    const company = secCompany({ cik: 999001, ticker: 'EURX', title: 'EXAMPLE FOREIGN FILER' }, companyFacts('EUR', '20-F'), null, RATES);
    assert.equal(company.kind, 'covered');
    if (company.kind !== 'covered') return;
    const note = filerNoteOf(company.security, ttmAsOf(company.reports, '2024-06-30'));
    assert.equal(note?.conversion?.flowRate, 'ECB reference rate, average of the period 2024-01-01 to 2024-03-31 (63 days published)');
    assert.equal(note?.conversion?.balanceRate, 'ECB reference rate at period end (2024-03-28, the last published on or before 2024-03-31)');
    near(note?.conversion?.usdPerUnit, EUR_Q1_2024);
    assert.equal(note?.conversion?.balanceUsdPerUnit, EUR_END_Q1);
    assert.match(note?.conversion?.source ?? '', /^ECB euro foreign exchange reference rates .*USD per EUR of each day/);
  });
});

describe('other currencies', () => {
  it("a CAD reporter (40-F): each day's USD per CAD is USD per EUR / CAD per EUR, averaged over the period", () => {
    const parsed = parseCompanyFacts(companyFacts('CAD', '40-F'), 'CADX', RATES)!;
    assert.deepEqual([parsed.reportingCurrency, parsed.annualForm, parsed.skipped], ['CAD', '40-F', {}]);
    const q1 = parsed.reports.find((r) => r.fiscalYear === 2024 && r.fiscalQuarter === 1)!;
    const rate = (q1.revenue ?? 0) / (6_300 * M);
    assert.equal(rate.toFixed(10), CAD_Q1_2024_AWK.toFixed(10));
    near(q1.totalAssets, 62_000 * M * CAD_END_Q1);
    assert.equal(((q1.totalAssets ?? 0) / M).toFixed(1), '45684.4'); // 62,000 x 1.0811 / 1.4672 = 67,028.2 / 1.4672 = 45,684.41
  });

  it('a currency the ECB does not publish (TWD) stays unconverted, its filings counted with the reason', () => {
    const parsed = parseCompanyFacts(companyFacts('TWD', '20-F'), 'TWDX', RATES)!;
    assert.deepEqual([parsed.reports.length, parsed.skipped], [0, { [NO_REFERENCE_RATE]: 2 }]);
    // Without the rates at all (no ECB source), the reason is the one it always was.
    assert.deepEqual(parseCompanyFacts(companyFacts('TWD', '20-F'), 'TWDX')?.skipped, { [NO_CONVENIENCE_TRANSLATION]: 2 });
  });

  it('a period the stored rates do not reach yet is not converted at an older rate: that filing waits', () => {
    // The rates as stored on 2024-03-27 (the newest day then): Q1 2024 ends after it.
    const early = usdSeriesOf((parseReferenceRates(real('ecb/eurofxref-hist_2022-12-01_2024-10-11.csv.gz').toString('utf8'))?.rates ?? []).filter((r) => r.date <= '2024-03-27'));
    const parsed = parseCompanyFacts(companyFacts('EUR', '20-F'), 'EURX', early)!;
    assert.deepEqual(parsed.skipped, { [NO_REFERENCE_RATE]: 1 });
    assert.deepEqual(parsed.rates.map((r) => r.filed), ['2024-03-01']);
  });
});
