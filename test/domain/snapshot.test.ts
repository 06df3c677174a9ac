import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { isFinancialSector, NO_OPERATING_INCOME_FILED, NOT_APPLICABLE_TO_FINANCIALS } from '../../src/domain/financials.js';
import type { FinancialReport } from '../../src/domain/model.js';
import { PERCENTILE_METRICS } from '../../src/domain/results.js';
import type { PercentileMetricKey } from '../../src/domain/results.js';
import { cohortRanker, NO_COST_OF_SALES, percentileValuesOf, perShareOnBasisOf, snapshotGroups, stockMetrics } from '../../src/domain/snapshot.js';
import type { PercentileValues, PricePoint } from '../../src/domain/snapshot.js';
import { discreteQuarters } from '../../src/domain/ttm.js';
import { fiscalYear, report } from './fixtures.js';

type Fields = Partial<FinancialReport>;
const FLOWS = ['revenue', 'costOfSales', 'operatingIncome', 'netIncome', 'operatingCashFlow', 'capex', 'interestExpense', 'basicEps', 'dividendPerShare'] as const;

/** A fiscal year whose YTD flows are 1/4, 1/2, 3/4 and all of the full-year figure; the four
 * discrete quarters then sum to the full year, which is the TTM as of the FY disclosure. */
function year(fy: number, full: Fields, yearEndBalances: Fields): FinancialReport[] {
  return fiscalYear(
    fy,
    [0.25, 0.5, 0.75, 1].map((share, i) => {
      const f: Fields = {};
      for (const k of FLOWS) if (full[k] !== undefined) f[k] = full[k] === null ? null : (full[k] as number) * share;
      return i === 3 ? { ...f, ...yearEndBalances } : f;
    }),
  );
}

// FY2023: revenue 800, operating income 80, net income 50; shares at year end 8.
// FY2024: revenue 1,000, cost of sales 600, operating income 100, net income 80, OCF 120,
//         capex 40, interest 10; at year end equity 400, debt 200, cash 100, current assets
//         300, current liabilities 150, receivables 100, inventory 60, payables 30, shares 10.
// FY2024 disclosed 2025-03-15. Price on 2025-03-17: close 120 x 10 shares = market cap 1,200.
const FY2023 = { revenue: 800, costOfSales: 500, operatingIncome: 80, netIncome: 50, operatingCashFlow: 70, capex: 30, interestExpense: 8 };
const FY2024 = { revenue: 1_000, costOfSales: 600, operatingIncome: 100, netIncome: 80, operatingCashFlow: 120, capex: 40, interestExpense: 10 };
const BALANCES = { equity: 400, debt: 200, cash: 100, currentAssets: 300, currentLiabilities: 150, receivables: 100, inventory: 60, payables: 30, shares: 10 };
const reports = [...year(2023, FY2023, { shares: 8 }), ...year(2024, FY2024, BALANCES)];
const price: PricePoint = { date: '2025-03-17', close: 120, shares: 10, marketCap: 1_200 };
const asOf = '2025-03-17';

const close = (actual: number | null, expected: number, tolerance = 1e-9): void =>
  assert.ok(actual !== null && Math.abs(actual - expected) <= tolerance, `${String(actual)} is not within ${tolerance} of ${expected}`);

function metricsWith(full2024: Fields = {}, balances: Fields = {}, p: PricePoint | null = price) {
  const rs = [...year(2023, FY2023, { shares: 8 }), ...year(2024, { ...FY2024, ...full2024 }, { ...BALANCES, ...balances })];
  return stockMetrics(discreteQuarters(rs, asOf), p, 'KRW');
}

void describe('stockMetrics: the definitions on a hand-computed company', () => {
  const m = stockMetrics(discreteQuarters(reports, asOf), price, 'KRW');

  void it('valuation: PER, PBR, PSR, EV/EBIT', () => {
    assert.equal(m.per.value, 15); // 1,200 / 80
    assert.equal(m.pbr.value, 3); // 1,200 / 400
    assert.equal(m.psr.value, 1.2); // 1,200 / 1,000
    assert.equal(m.evEbit.value, 13); // (1,200 + 200 - 100) / 100
  });

  void it('profitability: ROE, pre-tax ROIC, operating and net margin in percent', () => {
    assert.equal(m.roe.value, 20); // 80 x 100 / 400
    assert.equal(m.roic.value, 20); // 100 x 100 / (400 + 200 - 100)
    assert.equal(m.operatingMargin.value, 10); // 100 x 100 / 1,000
    assert.equal(m.netMargin.value, 8); // 80 x 100 / 1,000
  });

  void it('growth: TTM against TTM four quarters earlier', () => {
    assert.equal(m.revenueYoy.value, 25); // (1,000 - 800) x 100 / 800
    assert.equal(m.operatingIncomeYoy.value, 25); // (100 - 80) x 100 / 80
    // EPS 80 / 10 = 8 against 50 / 8 = 6.25: (8 - 6.25) x 100 / 6.25 = 28
    assert.equal(m.epsYoy.value, 28);
  });

  void it('stability: net-debt ratio, interest coverage, current ratio', () => {
    assert.equal(m.netDebtRatio.value, 25); // (200 - 100) x 100 / 400
    assert.equal(m.interestCoverage.value, 10); // 100 / 10
    assert.equal(m.currentRatio.value, 200); // 300 x 100 / 150
  });

  void it('cash generation and earnings quality: OCF, FCF yield, CF/NI, CCC', () => {
    assert.equal(m.operatingCashFlow.value, 120);
    assert.equal(m.operatingCashFlow.unit, 'KRW');
    close(m.fcfYield.value, 20 / 3); // (120 - 40) x 100 / 1,200 = 6.666...
    assert.equal(m.cfToNi.value, 1.5); // 120 / 80
    // DSO 100 / 1,000 x 365 = 36.5; DIO 60 / 600 x 365 = 36.5; DPO 30 / 600 x 365 = 18.25
    assert.equal(m.ccc.value, 54.75); // 36.5 + 36.5 - 18.25
  });

  void it('every metric carries unit, reference quarter, disclosure date and price date (only where a price enters)', () => {
    assert.deepEqual(m.per, { value: 15, unit: 'x', referenceQuarter: '2024Q4', disclosedOn: '2025-03-15', priceDate: '2025-03-17' });
    assert.deepEqual(m.roe, { value: 20, unit: '%', referenceQuarter: '2024Q4', disclosedOn: '2025-03-15', priceDate: null });
    assert.equal(m.ccc.unit, 'days');
    assert.equal(m.fcfYield.priceDate, '2025-03-17');
    assert.equal(m.currentRatio.priceDate, null);
  });
});

void describe('stockMetrics: undefined values are null with a reason', () => {
  void it('a zero-revenue biotech: margins, PSR and CCC are null', () => {
    const m = metricsWith({ revenue: 0, costOfSales: 0, operatingIncome: -50, netIncome: -40 });
    assert.equal(m.operatingMargin.value, null);
    assert.equal(m.operatingMargin.reason, 'TTM revenue is not positive (no revenue)');
    assert.equal(m.netMargin.value, null);
    assert.equal(m.psr.value, null);
    assert.equal(m.ccc.value, null);
    // Revenue YoY against a positive base is still defined: (0 - 800) x 100 / 800 = -100
    assert.equal(m.revenueYoy.value, -100);
  });

  void it('no cost of sales (an income statement by nature, proven complete): CCC not applicable', () => {
    const m = metricsWith({ costOfSales: 0 });
    assert.equal(m.ccc.value, null);
    assert.equal(m.ccc.reason, 'not applicable to a company that reports no cost of sales');
    assert.equal(m.ccc.reason, NO_COST_OF_SALES);
    // The zero-revenue biotech above (cost of sales 0 as well) stays undefined: DSO has no revenue.
    assert.equal(metricsWith({ revenue: 0, costOfSales: 0 }).ccc.reason, 'TTM revenue is not positive (no revenue)');
  });

  void it('inventory proven 0 with a cost of sales: DIO 0', () => {
    // DSO 100 / 1,000 x 365 = 36.5; DIO 0 / 600 x 365 = 0; DPO 30 / 600 x 365 = 18.25
    assert.equal(metricsWith({}, { inventory: 0 }).ccc.value, 18.25);
  });

  void it('negative equity: PBR, ROE and net-debt ratio are null', () => {
    const m = metricsWith({}, { equity: -50 });
    for (const key of ['pbr', 'roe', 'netDebtRatio'] as const) {
      assert.equal(m[key].value, null, key);
      assert.equal(m[key].reason, 'equity is not positive', key);
    }
    // ROIC's invested capital is -50 + 200 - 100 = 50 > 0: 100 x 100 / 50 = 200
    assert.equal(m.roic.value, 200);
  });

  void it('a net loss: PER and CF/NI are null; ROE is a negative number', () => {
    const m = metricsWith({ netIncome: -40 });
    assert.equal(m.per.value, null);
    assert.equal(m.per.reason, 'TTM net income is not positive');
    assert.equal(m.cfToNi.value, null);
    assert.equal(m.roe.value, -10); // -40 x 100 / 400
  });

  void it('no interest expense: interest coverage null', () => {
    const m = metricsWith({ interestExpense: 0 });
    assert.equal(m.interestCoverage.value, null);
    assert.equal(m.interestCoverage.reason, 'no interest expense');
  });

  void it('operating loss: EV/EBIT null; invested capital not positive: ROIC null', () => {
    assert.equal(metricsWith({ operatingIncome: -10 }).evEbit.reason, 'TTM operating income is not positive');
    assert.equal(metricsWith({}, { cash: 700 }).roic.value, null); // 400 + 200 - 700 < 0
  });

  void it('no price: the price metrics are null, the others unaffected', () => {
    const m = metricsWith({}, {}, null);
    assert.equal(m.per.value, null);
    assert.equal(m.per.reason, 'no price on or before the date');
    assert.equal(m.per.priceDate, null);
    assert.equal(m.roe.value, 20);
  });

  void it('EPS YoY without the shares of both quarters: both TTMs over the listed shares at the price date, else null naming the quarter', () => {
    const rs = [...year(2023, FY2023, {}), ...year(2024, FY2024, BALANCES)];
    const m = stockMetrics(discreteQuarters(rs, asOf), price, 'KRW');
    // 80 / 10 = 8 against 50 / 10 = 5 (the price's 10 listed shares for both): (8 - 5) x 100 / 5 = 60
    assert.equal(m.epsYoy.value, 60);
    assert.equal(m.epsYoy.basis, 'net income / listed shares at the price date');
    // TTM EPS has the quarter's own shares: 80 / 10 (a KR stock's quarter shares are the price feed's listed shares).
    assert.equal(m.eps.value, 8);
    assert.equal(m.eps.basis, 'net income / listed shares at the quarter end');
    // A US stock's are the filing's own (split-consistent) shares.
    assert.equal(stockMetrics(discreteQuarters(rs, asOf), price, 'USD').eps.basis, 'net income / shares at the quarter end');
    const none = stockMetrics(discreteQuarters(rs, asOf), null, 'KRW');
    assert.equal(none.epsYoy.value, null);
    assert.equal(none.epsYoy.reason, 'shares not reported for 2023Q4 and no listed shares');
  });

  void it('EPS from the filings\' basic EPS where both TTMs carry it, summed like any flow', () => {
    // Basic EPS year to date: FY2023 quarters 1.5, 3, 4.5, 6; FY2024 2, 4, 6, 8 (year() scales the full year).
    const rs = [...year(2023, { ...FY2023, basicEps: 6 }, { shares: 8 }), ...year(2024, { ...FY2024, basicEps: 8 }, BALANCES)];
    const m = stockMetrics(discreteQuarters(rs, asOf), price, 'KRW');
    // TTM EPS at 2024Q4 = FY2024's 8; four quarters earlier FY2023's 6: (8 - 6) x 100 / 6 = 33.33...
    assert.equal(m.eps.value, 8);
    assert.equal(m.eps.basis, 'reported basic EPS');
    close(m.epsYoy.value, 200 / 6);
    assert.equal(m.epsYoy.basis, 'reported basic EPS');
    // As of the 9M report: TTM EPS = 9M 2024 (6) + FY2023 (6) - 9M 2023 (4.5) = 7.5.
    assert.equal(stockMetrics(discreteQuarters(rs, '2025-03-14'), price, 'KRW').eps.value, 7.5);
    // Only one TTM carries it: both fall back to net income / the quarters' shares (the 28 % above).
    const onlyNow = [...year(2023, FY2023, { shares: 8 }), ...year(2024, { ...FY2024, basicEps: 8 }, BALANCES)];
    const mixed = stockMetrics(discreteQuarters(onlyNow, asOf), price, 'KRW');
    assert.equal(mixed.epsYoy.value, 28);
    assert.equal(mixed.epsYoy.basis, 'net income / listed shares at the quarter end');
    assert.equal(mixed.eps.basis, 'reported basic EPS');
  });

  void it('dividends: TTM and last fiscal year per share, yield on the close', () => {
    // Dividend per share year to date: FY2023 0.75, 1.5, 2.25, 3; FY2024 1, 2, 3, 4.
    const rs = [...year(2023, { ...FY2023, dividendPerShare: 3 }, { shares: 8 }), ...year(2024, { ...FY2024, dividendPerShare: 4 }, BALANCES)];
    const m = stockMetrics(discreteQuarters(rs, asOf), price, 'KRW');
    assert.equal(m.dividendPerShare.value, 4);
    assert.equal(m.dividendPerShareFy.value, 4);
    assert.equal(m.dividendPerShareFy.referenceQuarter, '2024Q4');
    // 4 x 100 / 120 = 3.33...
    close(m.dividendYield.value, 400 / 120);
    assert.equal(m.dividendYield.priceDate, '2025-03-17');
    // As of the 9M report: TTM 3 + 3 - 2.25 = 3.75; the last fiscal year's is FY2023's 3.
    const q3 = stockMetrics(discreteQuarters(rs, '2025-03-14'), price, 'KRW');
    assert.equal(q3.dividendPerShare.value, 3.75);
    assert.equal(q3.dividendPerShareFy.value, 3);
    assert.equal(q3.dividendPerShareFy.referenceQuarter, '2023Q4');
    // Not reported: null with the reason; no price: the yield only.
    const none = stockMetrics(discreteQuarters(reports, asOf), null, 'KRW');
    assert.equal(none.dividendPerShare.reason, 'TTM dividend per share not reported');
    assert.equal(none.dividendPerShareFy.reason, 'dividend per share not reported for 2024Q4');
    assert.equal(stockMetrics(discreteQuarters(rs, asOf), null, 'KRW').dividendYield.reason, 'no price on or before the date');
  });

  void it('a missing filing: the metrics that need it are null with the reason, the others still there', () => {
    // Without the 2024 H1 filing the TTM to 2024Q4 is still FY2024's own figure: PER 1,200 / 80.
    const noH1 = reports.filter((r) => !(r.fiscalYear === 2024 && r.fiscalQuarter === 2));
    assert.equal(stockMetrics(discreteQuarters(noH1, asOf), price, 'KRW').per.value, 15);
    // Without FY2023 there is no TTM four quarters earlier: growth is null, valuation is not.
    const noFy2023 = reports.filter((r) => !(r.fiscalYear === 2023 && r.fiscalQuarter === 4));
    const m = stockMetrics(discreteQuarters(noFy2023, asOf), price, 'KRW');
    assert.equal(m.revenueYoy.value, null);
    assert.equal(m.revenueYoy.reason, 'no TTM four quarters earlier: no filing for 2023Q4');
    assert.equal(m.per.value, 15);
    assert.equal(m.pbr.value, 3);
    assert.equal(m.per.referenceQuarter, '2024Q4');
    // Without FY2024 the latest quarter is 2024Q3 (the 9M report), and its TTM needs FY2023.
    const noFy2024 = reports.filter((r) => !(r.fiscalYear === 2024 && r.fiscalQuarter === 4));
    const noBoth = noFy2024.filter((r) => !(r.fiscalYear === 2023 && r.fiscalQuarter === 4));
    const q3 = stockMetrics(discreteQuarters(noBoth, asOf), price, 'KRW');
    assert.equal(q3.per.reason, 'no TTM: no filing for 2023Q4');
    assert.equal(q3.per.referenceQuarter, '2024Q3');
  });

  void it('before the full-year filing the snapshot is as of the 9M report (no look-ahead)', () => {
    // As of 2025-03-14 the latest quarter is 2024Q3, whose own balances were not reported.
    const m = stockMetrics(discreteQuarters(reports, '2025-03-14'), price, 'KRW');
    assert.equal(m.per.referenceQuarter, '2024Q3');
    // Each discrete quarter is a quarter of its year: TTM to 2024Q3 = 2023Q4 12.5 + 2024 Q1..Q3 3 x 20 = 72.5
    close(m.per.value, 1_200 / 72.5);
    assert.equal(m.pbr.value, null);
  });
});

void describe('stockMetrics of a financial company (docs/calculations.md, "Financial companies")', () => {
  const fin = stockMetrics(discreteQuarters(reports, asOf), price, 'KRW', { financial: true });

  void it('PER, PBR, ROE, EPS YoY, operating income YoY and operating cash flow are computed as for any company', () => {
    assert.equal(fin.per.value, 15); // 1,200 / 80
    assert.equal(fin.pbr.value, 3); // 1,200 / 400
    assert.equal(fin.roe.value, 20); // 80 x 100 / 400
    assert.equal(fin.operatingIncomeYoy.value, 25); // (100 - 80) / 80
    assert.equal(fin.operatingCashFlow.value, 120);
    // EPS 80 / 10 = 8 against 50 / 8 = 6.25: +28 %
    close(fin.epsYoy.value, 28);
  });

  void it('the other twelve are null as not applicable, with their unit and reference kept', () => {
    const na = Object.entries(fin).filter(([, v]) => v.reason === NOT_APPLICABLE_TO_FINANCIALS).map(([k]) => k).sort();
    assert.deepEqual(na, ['ccc', 'cfToNi', 'currentRatio', 'evEbit', 'fcfYield', 'interestCoverage', 'netDebtRatio', 'netMargin', 'operatingMargin', 'psr', 'revenueYoy', 'roic']);
    assert.equal(NOT_APPLICABLE_TO_FINANCIALS, 'not applicable to financial companies');
    assert.deepEqual(fin.currentRatio, { value: null, reason: NOT_APPLICABLE_TO_FINANCIALS, unit: '%', referenceQuarter: '2024Q4', disclosedOn: '2025-03-15', priceDate: null });
    // Where the industrial definition would give a value, the financial company's is still null.
    assert.equal(m0.currentRatio.value, 200); // 300 x 100 / 150
    assert.equal(fin.evEbit.value, null);
  });

  void it('operating income YoY of a financial company whose filings state no operating income (a US bank or insurer): not applicable', () => {
    // The same filings without any operating income: every quarter's is null.
    const noOi = reports.map((r) => ({ ...r, operatingIncome: null }));
    const bank = stockMetrics(discreteQuarters(noOi, asOf), price, 'USD', { financial: true });
    assert.deepEqual(bank.operatingIncomeYoy, { value: null, reason: NO_OPERATING_INCOME_FILED, unit: '%', referenceQuarter: '2024Q4', disclosedOn: '2025-03-15', priceDate: null });
    // An industrial company without it: missing, not outside the metric.
    assert.equal(stockMetrics(discreteQuarters(noOi, asOf), price, 'USD').operatingIncomeYoy.reason, 'TTM operating income not reported');
    // A financial company that states it in some quarters but not the latest: missing too.
    const gap = reports.map((r) => (r.fiscalYear === 2024 && r.fiscalQuarter === 4 ? { ...r, operatingIncome: null } : r));
    const partial = stockMetrics(discreteQuarters(gap, asOf), price, 'USD', { financial: true }).operatingIncomeYoy;
    assert.equal(partial.value, null);
    assert.notEqual(partial.reason, NO_OPERATING_INCOME_FILED);
  });

  void it('sectors: banks, insurers, securities firms, asset managers and other financials are financial companies', () => {
    assert.deepEqual(['Banks', 'Insurance', 'Securities', 'Asset Management', 'Other Financials', 'REITs', 'Unclassified', 'Semiconductors'].map(isFinancialSector), [true, true, true, true, true, false, false, false]);
  });
});

const m0 = stockMetrics(discreteQuarters(reports, asOf), price, 'KRW');

void describe('snapshotGroups', () => {
  void it('groups the metrics as the spec lists them', () => {
    const s = snapshotGroups(stockMetrics(discreteQuarters(reports, asOf), price, 'KRW'));
    assert.deepEqual(Object.keys(s), ['valuation', 'profitability', 'growth', 'stability', 'cashGeneration', 'earningsQuality', 'perShare']);
    assert.equal(s.valuation.per.value, 15);
    assert.equal(s.earningsQuality.ccc.value, 54.75);
    assert.deepEqual(Object.keys(s.growth), ['revenueYoy', 'epsYoy']);
  });
});

void describe('percentileValuesOf and cohortRanker', () => {
  void it('gives the 17 raw values: the metrics themselves, not copies', () => {
    const metrics = stockMetrics(discreteQuarters(reports, asOf), price, 'KRW');
    const v = percentileValuesOf(metrics);
    for (const k of PERCENTILE_METRICS) assert.equal(v[k], metrics[k], k);
    assert.equal(v.per.value, 15);
    assert.equal(v.per.unit, 'x');
    assert.equal(v.per.reason, undefined);
    assert.equal(v.psr.value, 1.2);
  });

  /** Only PER given; the other 16 metrics have no value. */
  function perOnly(per: number | null): PercentileValues {
    const out = {} as Record<PercentileMetricKey, PercentileValues[PercentileMetricKey]>;
    for (const k of PERCENTILE_METRICS) out[k as PercentileMetricKey] = { value: null, reason: 'test: none', unit: 'x' };
    out.per = per === null ? { value: null, reason: 'TTM net income is not positive', unit: 'x' } : { value: per, unit: 'x' };
    return out;
  }

  void it('ranks within the members that have a value; ties share a percentile; cohortSize counts them', () => {
    // PER 10, 10, 20, 30 and one loss-maker: 10 -> 0 below -> 0; 20 -> 2 below / 3 -> 66.67; 30 -> 100
    const members = new Map([
      ['A', perOnly(10)],
      ['B', perOnly(10)],
      ['C', perOnly(20)],
      ['D', perOnly(30)],
      ['E', perOnly(null)],
    ]);
    const rank = cohortRanker(members.values());
    const out = new Map([...members].map(([k, v]) => [k, rank(v)]));
    const per = (k: string) => out.get(k)?.find((e) => e.metric === 'per');
    assert.deepEqual(per('A'), { metric: 'per', unit: 'x', value: 10, percentile: 0, cohortSize: 4 });
    assert.equal(per('B')?.percentile, 0);
    assert.equal(per('C')?.percentile, 200 / 3);
    assert.equal(per('D')?.percentile, 100);
    assert.deepEqual(per('E'), { metric: 'per', unit: 'x', value: null, reason: 'TTM net income is not positive', percentile: null, cohortSize: 4 });
    // A metric nobody has: cohort size 0, every percentile null.
    assert.deepEqual(out.get('A')?.find((e) => e.metric === 'ccc'), { metric: 'ccc', unit: 'x', value: null, reason: 'test: none', percentile: null, cohortSize: 0 });
    assert.equal(out.get('A')?.length, 17);
  });
});

void describe('perShareOnBasisOf: KR per-share figures across a split', () => {
  // Samsung Electronics' 50-for-1 split, first traded 2018-05-04 (the store's split event: the later bar's date).
  // FY2017 as filed (사업보고서 2018-04-02, before the split): basic EPS 299,868 won, dividend per common share 42,500
  // (the 2018 annual report's dividend section repeats 42,500 as 전기, OpenDART's alotMatter guide example, rcept_no
  // 20190401004781). FY2018 as filed (2019-04-01, after it): basic EPS 6,461 (the FY2019 report's frmtrm_amount,
  // test/fixtures/real/opendart), dividend per share 1,416.
  const splits = [{ date: '2018-05-04', factor: 50 }];
  const fy2017 = report(2017, 4, '2018-04-02', { netIncome: 41_344_569e6, basicEps: 299_868, dividendPerShare: 42_500 });
  const fy2018 = report(2018, 4, '2019-04-01', { netIncome: 43_890_877e6, basicEps: 6_461, dividendPerShare: 1_416 });

  void it('divides what was filed before a split by its factor, from the split on', () => {
    const [a, b] = perShareOnBasisOf([fy2017, fy2018], splits, '2019-04-02');
    // 299,868 / 50 = 5,997.36; 42,500 / 50 = 850. FY2018 was filed after the split: as filed.
    assert.deepEqual([a?.basicEps, a?.dividendPerShare, a?.netIncome], [5_997.36, 850, 41_344_569e6]);
    assert.equal(b, fy2018);
    // As of a date before the split the filing is on its own basis.
    assert.equal(perShareOnBasisOf([fy2017], splits, '2018-05-03')[0], fy2017);
  });

  void it('so EPS YoY compares one basis: (6,461 - 5,997.36) / 5,997.36 x 100 = 7.73062...%', () => {
    const m = stockMetrics(discreteQuarters(perShareOnBasisOf([fy2017, fy2018], splits, '2019-04-02'), '2019-04-02'), null, 'KRW');
    close(m.epsYoy.value, ((6_461 - 5_997.36) / 5_997.36) * 100);
    // Unadjusted it would read -97.8 %: the split, not the business.
    const raw = stockMetrics(discreteQuarters([fy2017, fy2018], '2019-04-02'), null, 'KRW');
    close(raw.epsYoy.value, ((6_461 - 299_868) / 299_868) * 100);
  });
});
