// The SEC companyfacts reader on the real recordings the first-start replica copies
// (test/fixtures/real/sec, provenance in test/fixtures/real/PROVENANCE.md): retail calendars of
// 12-week quarters, the parent's figures tagged only as consolidated totals, and the cash line
// tagged with the cash-flow total. Expected figures are the raw facts (USD million), quoted beside.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import type { FinancialReport } from '../../../src/domain/model.js';
import { stockMetrics } from '../../../src/domain/snapshot.js';
import { discreteQuarters, ttmAsOf } from '../../../src/domain/ttm.js';
import { parseCompanyFacts } from '../../../src/sources/sec/parse.js';

const real = (name: string): unknown => JSON.parse(gunzipSync(readFileSync(new URL(`../../fixtures/real/sec/${name}`, import.meta.url))).toString('utf8'));
const M = 1_000_000;
const byDate = (reports: readonly FinancialReport[], filed: string): FinancialReport => {
  const r = reports.find((x) => x.disclosedOn === filed);
  assert.ok(r, `a report filed ${filed}`);
  return r;
};

describe('SEC companyfacts of the replica templates', () => {
  it('Costco: 12-week quarters (83, 167, 251 days to date) are Q1, Q2, Q3 of the fiscal year ending around August 31', () => {
    const costco = parseCompanyFacts(real('companyfacts_CIK0000909832_COST.json.gz'), 'COST')!;
    // 10-Q 0000909832-25-000015 (2025-03-13): Revenues 2024-09-02..2025-02-16 = 125,874 (167 days);
    // 10-Q 0000909832-25-000033 (2025-06-05): 2024-09-02..2025-05-11 = 189,079 (251 days), NetIncomeLoss 5,489.
    const q2 = byDate(costco.reports, '2025-03-13');
    const q3 = byDate(costco.reports, '2025-06-05');
    assert.deepEqual([q2.fiscalYear, q2.fiscalQuarter, q2.periodEnd, q2.revenue], [2025, 2, '2025-02-16', 125_874 * M]);
    assert.deepEqual([q3.fiscalYear, q3.fiscalQuarter, q3.periodEnd, q3.revenue, q3.netIncome], [2025, 3, '2025-05-11', 189_079 * M, 5_489 * M]);
    // TTM to Q3 FY2025: FY2024 (10-K 2024-10-09, 2023-09-04..2024-09-01) 254,453 - 9M FY2024 174,756 + 9M FY2025 189,079 = 268,776;
    // net income 7,367 - 5,013 + 5,489 = 7,843.
    const ttm = ttmAsOf(costco.reports, '2025-06-05').current.ttm;
    assert.deepEqual([ttm?.referenceQuarter, ttm?.revenue, ttm?.netIncome], ['2025Q3', 268_776 * M, 7_843 * M]);
  });

  it('Broadcom: net income from ProfitLoss and equity from the total including NCI where the 10-Q tags only those', () => {
    const broadcom = parseCompanyFacts(real('companyfacts_CIK0001730168_AVGO.json.gz'), 'AVGO')!;
    // 10-Q 0001730168-25-000064 (2025-06-11), no NetIncomeLoss, StockholdersEquity, NetIncomeLossAttributableToNoncontrollingInterest
    // or MinorityInterest in it: ProfitLoss 2024-11-04..2025-05-04 = 10,468; StockholdersEquityIncludingPortion... 2025-05-04 = 69,586.
    const q2 = byDate(broadcom.reports, '2025-06-11');
    assert.deepEqual([q2.fiscalYear, q2.fiscalQuarter, q2.netIncome, q2.equity], [2025, 2, 10_468 * M, 69_586 * M]);
  });

  it('Procter & Gamble: equity is the total less MinorityInterest; cash the cash-flow total where no restricted cash is tagged', () => {
    const pg = parseCompanyFacts(real('companyfacts_CIK0000080424_PG.json.gz'), 'PG')!;
    // 10-K 0000080424-25-000076 (2025-08-04) at 2025-06-30: StockholdersEquityIncludingPortion... 52,284 - MinorityInterest 272 = 52,012;
    // CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents 9,556, no restricted cash concept; NetIncomeLoss 15,974
    // is filed, so ProfitLoss 16,065 (including the non-controlling interest's 91) is not taken.
    const fy = byDate(pg.reports, '2025-08-04');
    assert.deepEqual([fy.fiscalYear, fy.fiscalQuarter, fy.equity, fy.cash, fy.netIncome], [2025, 4, 52_012 * M, 9_556 * M, 15_974 * M]);
  });

  it('UnitedHealth: equity less a non-controlling interest that is there', () => {
    const unh = parseCompanyFacts(real('companyfacts_CIK0000731766_UNH.json.gz'), 'UNH')!;
    // 10-Q 0000731766-25-000236 (2025-08-11) at 2025-06-30: 100,469 - MinorityInterest 5,745 = 94,724.
    assert.equal(byDate(unh.reports, '2025-08-11').equity, 94_724 * M);
  });

  it('receivables: AccountsReceivableNet where no AccountsReceivableNetCurrent is tagged; ReceivablesNetCurrent where neither is', () => {
    const soundhound = parseCompanyFacts(real('companyfacts_CIK0001840856_SOUN.json.gz'), 'SOUN')!;
    // 10-K 0001840856-26-000006 (2026-03-02): AccountsReceivableNet 2025-12-31 = 32,336,000 (no AccountsReceivableNetCurrent).
    assert.equal(byDate(soundhound.reports, '2026-03-02').receivables, 32_336_000);
    const costco = parseCompanyFacts(real('companyfacts_CIK0000909832_COST.json.gz'), 'COST')!;
    // Costco tags only ReceivablesNetCurrent, its balance sheet's "receivables, net": 2,875 at 2025-05-11
    // (10-Q 0000909832-25-000033, 2025-06-05).
    assert.equal(byDate(costco.reports, '2025-06-05').receivables, 2_875 * M);
    // Celsius tags its one receivables line AccountsReceivableNetCurrent in its 10-K of 2025-03-03 (270.342 at
    // 2024-12-31) and ReceivablesNetCurrent in its 10-Q of 2025-05-06 (the same 270.342 at 2024-12-31, 256.424 at
    // 2025-03-31): the same line under either concept.
    const celsius = parseCompanyFacts(real('companyfacts_CIK0001341766_CELH.json.gz'), 'CELH')!;
    assert.equal(byDate(celsius.reports, '2025-03-03').receivables, 270_342_000);
    assert.equal(byDate(celsius.reports, '2025-05-06').receivables, 256_424_000);
    // A filing with both reads the customer receivables: Celsius' 10-Q of 2025-08-08 tags AccountsReceivableNetCurrent
    // 490.389 at 2025-06-30.
    assert.equal(byDate(celsius.reports, '2025-08-08').receivables, 490_389_000);
  });

  it('Costco CCC to Q3 FY2025 on its total receivables', () => {
    const costco = parseCompanyFacts(real('companyfacts_CIK0000909832_COST.json.gz'), 'COST')!;
    // TTM to Q3 FY2025: revenue 254,453 (FY2024, 10-K 2024-10-09) - 174,756 (9M FY2024) + 189,079 (9M FY2025) = 268,776;
    // CostOfGoodsAndServicesSold 222,358 - 152,770 + 164,849 = 234,437. At 2025-05-11 (10-Q 2025-06-05):
    // ReceivablesNetCurrent 2,875, InventoryNet 18,606, AccountsPayableCurrent 19,820.
    // CCC = 2,875 x 365 / 268,776 + 18,606 x 365 / 234,437 - 19,820 x 365 / 234,437 = 3.904 + 28.968 - 30.858 = 2.014 days.
    const ccc = stockMetrics(discreteQuarters(costco.reports, '2025-06-05'), null, 'USD').ccc;
    const expected = (2_875 * 365) / 268_776 + (18_606 * 365) / 234_437 - (19_820 * 365) / 234_437;
    assert.ok(ccc.value !== null && Math.abs(ccc.value - expected) < 1e-9, String(ccc.value));
    assert.equal(Math.round((ccc.value ?? 0) * 1000) / 1000, 2.014);
  });

  it('interest expense: the concept the filing tags, else interest and debt expense, else the interest paid where some was paid', () => {
    const applovin = parseCompanyFacts(real('companyfacts_CIK0001751008_APP.json.gz'), 'APP')!;
    // 10-Q 2025-11-05: InterestExpenseNonoperating 2025-01-01..2025-09-30 = 155.726; 10-K 2026-02-19 tags no
    // InterestExpense(Nonoperating), InterestExpenseDebt FY2025 = 200.615 (before InterestAndDebtExpense 207.016, which adds
    // other debt costs).
    assert.equal(byDate(applovin.reports, '2025-11-05').interestExpense, 155_726_000);
    assert.equal(byDate(applovin.reports, '2026-02-19').interestExpense, 200_615_000);
    // 10-K 0001751008-24-000012 (2024-02-26), FY2023: none of those, InterestAndDebtExpense 275.665 (InterestPaidNet
    // 248.828 is not taken while an expense concept is filed).
    assert.equal(byDate(applovin.reports, '2024-02-26').interestExpense, 275_665_000);
    // Rocket Lab's 10-Q 0001819994-25-000021 (2025-11-10), 9M 2025: no interest-expense concept, only
    // InterestIncomeExpenseNonoperatingNet -5.547 (income less expense) and InterestPaidNet 21.892: the interest paid.
    const rocketLab = parseCompanyFacts(real('companyfacts_CIK0001819994_RKLB.json.gz'), 'RKLB')!;
    assert.equal(byDate(rocketLab.reports, '2025-11-10').interestExpense, 21_892_000);
    // Celsius' 10-K of 2023-03-01, FY2022: no interest-expense concept read, InterestPaidNet 0 (nothing paid is no proof
    // that nothing accrued), its debt not proven 0: unknown.
    const celsius = parseCompanyFacts(real('companyfacts_CIK0001341766_CELH.json.gz'), 'CELH')!;
    assert.equal(byDate(celsius.reports, '2023-03-01').interestExpense, null);
    // Apple tags no interest concept at all after its FY2023 10-K of 2023-11-03 (InterestExpense 3,933, InterestPaidNet
    // 3,803 for FY2023): its later filings have none.
    const apple = parseCompanyFacts(real('companyfacts_CIK0000320193_AAPL.json.gz'), 'AAPL')!;
    assert.equal(byDate(apple.reports, '2023-11-03').interestExpense, 3_933 * M);
    assert.equal(byDate(apple.reports, '2026-01-30').interestExpense, null);
  });
});
