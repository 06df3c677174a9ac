// What a US filer's companyfacts prove beyond the lines it tags (docs/calculations.md, "Debt",
// "Operating income without an operating-income line" and CCC), on the real recordings the
// first-start replica copies (test/fixtures/real/sec, provenance in test/fixtures/real/PROVENANCE.md).
// Every expected figure is the raw facts' (USD million unless said), quoted beside it with its filing.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import type { FinancialReport } from '../../../src/domain/model.js';
import { NO_COST_OF_SALES, stockMetrics } from '../../../src/domain/snapshot.js';
import { discreteQuarters, ttmAsOf } from '../../../src/domain/ttm.js';
import { debtFlowSign, ebitOfPretax, parseCompanyFacts, secCompany, type CompanyFactsOptions } from '../../../src/sources/sec/parse.js';

const real = (name: string): unknown => JSON.parse(gunzipSync(readFileSync(new URL(`../../fixtures/real/sec/${name}`, import.meta.url))).toString('utf8'));
const M = 1_000_000;
const K = 1_000;
const FILES = {
  XOM: 'companyfacts_CIK0000034088_XOM.json.gz',
  JNJ: 'companyfacts_CIK0000200406_JNJ.json.gz',
  BRK: 'companyfacts_CIK0001067983_BRK.json.gz',
  PLTR: 'companyfacts_CIK0001321655_PLTR.json.gz',
  FIG: 'companyfacts_CIK0001579878_FIG.json.gz',
  SOUN: 'companyfacts_CIK0001840856_SOUN.json.gz',
  APP: 'companyfacts_CIK0001751008_APP.json.gz',
  SNOW: 'companyfacts_CIK0001640147_SNOW.json.gz',
  V: 'companyfacts_CIK0001403161_V.json.gz',
  UNH: 'companyfacts_CIK0000731766_UNH.json.gz',
} as const;
const parsedCache = new Map<string, FinancialReport[]>();
const reportsOf = (ticker: keyof typeof FILES, options: CompanyFactsOptions = {}): FinancialReport[] => {
  const key = `${ticker}|${options.financial === true}`;
  let reports = parsedCache.get(key);
  if (!reports) {
    reports = parseCompanyFacts(real(FILES[ticker]), ticker, undefined, options)!.reports;
    parsedCache.set(key, reports);
  }
  return reports;
};
const filed = (reports: readonly FinancialReport[], on: string): FinancialReport => {
  const r = reports.find((x) => x.disclosedOn === on);
  assert.ok(r, `a report filed ${on}`);
  return r;
};

describe('operating income of a filer that tags none: pre-tax income + interest expense', () => {
  it('Exxon Mobil (no operating-income concept in any filing): each filing and the TTM', () => {
    const xom = reportsOf('XOM');
    // 10-Q 0000034088-25-000042 (2025-08-04), 2025-01-01..2025-06-30: IncomeLossFromContinuingOperationsBeforeIncomeTaxes
    // ExtraordinaryItemsNoncontrollingInterest 22,305 + InterestExpense 350 = 22,655.
    assert.equal(filed(xom, '2025-08-04').operatingIncome, (22_305 + 350) * M);
    // 10-K 0000034088-25-000010 (2025-02-19), FY2024: 48,873 + 996 = 49,869; 10-Q of 2024-08-05, H1 2024: 26,034 + 492 = 26,526.
    assert.equal(filed(xom, '2025-02-19').operatingIncome, (48_873 + 996) * M);
    assert.equal(filed(xom, '2024-08-05').operatingIncome, (26_034 + 492) * M);
    // TTM to 2025Q2: 49,869 + 22,655 - 26,526 = 45,998.
    const ttm = ttmAsOf(xom, '2025-08-04').current.ttm;
    assert.deepEqual([ttm?.referenceQuarter, ttm?.operatingIncome], ['2025Q2', 45_998 * M]);
  });

  it('Johnson & Johnson: its OperatingIncomeLoss (last for 2015-03-29) holds the tagged basis for three years, then pre-tax + interest', () => {
    const jnj = reportsOf('JNJ');
    // 10-Q of 2015-05-01: OperatingIncomeLoss 2014-12-29..2015-03-29 = 5,827, as tagged.
    assert.equal(filed(jnj, '2015-05-01').operatingIncome, 5_827 * M);
    // Negative: 10-Q 0000200406-17-000042 (2017-08-03), H1 2017 to 2017-07-02, within three years of that fact:
    // IncomeLossFromContinuingOperationsBeforeIncomeTaxesMinorityInterestAndIncomeLossFromEquityMethodInvestments
    // 10,323 and InterestExpense 431 are filed, but missing stays missing.
    assert.equal(filed(jnj, '2017-08-03').operatingIncome, null);
    assert.equal(filed(jnj, '2017-08-03').interestExpense, 431 * M);
    // 10-K 0000200406-25-000038 (2025-02-13), FY2024 to 2024-12-29: pre-tax 16,687 + InterestExpenseNonoperating 755 = 17,442.
    assert.equal(filed(jnj, '2025-02-13').operatingIncome, (16_687 + 755) * M);
  });

  it('never for a financial company; both figures or none', () => {
    // Berkshire Hathaway 10-Q of 2025-08-04, H1 2025: pre-tax 19,898 + InterestExpense 2,510 = 22,408 were it an
    // industrial company; as the insurer it is (financial), its operating income stays unknown.
    assert.equal(filed(reportsOf('BRK'), '2025-08-04').operatingIncome, (19_898 + 2_510) * M);
    assert.equal(filed(reportsOf('BRK', { financial: true }), '2025-08-04').operatingIncome, null);
    // The API adapter and the bulk reader pass the placement's sector: SIC 6331 is Insurance, a financial sector.
    const company = secCompany({ cik: 1067983, ticker: 'BRK.B', title: 'Berkshire Hathaway' }, real(FILES.BRK), { exchange: 'NYSE', sector: 'Insurance', fiscalYearEndMonth: 12 });
    assert.ok(company.kind === 'covered');
    assert.equal(filed(company.reports, '2025-08-04').operatingIncome, null);
    assert.equal(ebitOfPretax(100, null), null);
    assert.equal(ebitOfPretax(null, 5), null);
    // An interest expense tagged negative is still deducted in pre-tax income.
    assert.equal(ebitOfPretax(100, -5), 105);
  });
});

describe('debt proven 0 by the filer history and no interest', () => {
  it('Palantir: its last debt fact says none (RepaymentsOfDebt 0 for 2023), no interest concept in 2024-2025 filings', () => {
    const pltr = reportsOf('PLTR');
    // LongTermDebtNoncurrent 0 at 2021-12-31 (10-K of 2022-02-24); the latest debt fact, RepaymentsOfDebt
    // 2023-01-01..2023-12-31 = 0 (10-K of 2024-02-20), nets to 0; the 10-K of 2026-02-17 tags no debt or interest concept.
    assert.equal(filed(pltr, '2026-02-17').debt, 0);
    assert.equal(filed(pltr, '2025-08-05').debt, 0);
    // No debt and no interest stated: interest expense 0, so interest coverage is undefined, not missing.
    assert.equal(filed(pltr, '2026-02-17').interestExpense, 0);
    assert.equal(stockMetrics(discreteQuarters(pltr, '2026-02-17'), null, 'USD').interestCoverage.reason, 'no interest expense');
    // Negative (interest): the 10-K of 2024-02-20 tags InterestExpense 3,470 thousand for 2023: unknown.
    assert.equal(filed(pltr, '2024-02-20').interestExpense, 3_470 * K);
    assert.equal(filed(pltr, '2024-02-20').debt, null);
  });

  it('Figma: no debt balance ever; a credit line drawn and repaid within 2025 nets to 0', () => {
    // 10-K 0001628280-26-009228 (2026-02-18): ProceedsFromLinesOfCredit 330.5 - RepaymentsOfLinesOfCredit 330.5 = 0 for 2025;
    // no interest concept in any filing.
    const fig = reportsOf('FIG');
    assert.equal(filed(fig, '2026-02-18').debt, 0);
    assert.equal(filed(fig, '2025-11-05').debt, 0);
  });

  it('interest expense 0 of a debt-free filing: no interest concept, or net interest income only', () => {
    // Snowflake's 10-Q of 2024-05-31 (Q1 FY2025, before its convertible notes): no debt or interest-expense concept
    // in it or before it (debt 0), nothing borrowed or repaid, and only InterestIncomeExpenseNonoperatingNet
    // +54,779 thousand (interest income net of any expense): interest expense 0.
    const snow = filed(reportsOf('SNOW'), '2024-05-31');
    assert.deepEqual([snow.debt, snow.interestExpense], [0, 0]);
    // Figma FY2025 (10-K of 2026-02-18): debt 0; a credit line drawn and repaid in the year (330.5 million), and
    // InterestIncomeExpenseNonoperatingNet +62.2 against InterestIncomeOther 62.199 for 2025: 62.199 - 62.2 = -0.001,
    // within half the 0.1 million the net figure is stated in, so no expense is netted in it: interest expense 0.
    const fig = reportsOf('FIG');
    const fy = filed(fig, '2026-02-18');
    assert.deepEqual([fy.debt, fy.interestExpense], [0, 0]);
    // Its 10-Q of 2025-11-05, 9M 2025: the same draw and repayment; net 47.0 against gross 47.029 (0.029 apart): 0.
    assert.equal(filed(fig, '2025-11-05').interestExpense, 0);
    // Interest coverage of Figma FY2025 is undefined for it (no interest expense), not missing.
    assert.equal(stockMetrics(discreteQuarters(fig, '2026-02-18'), null, 'USD').interestCoverage.reason, 'no interest expense');
  });

  it('a net interest line showing an expense, or one apart from the gross income when something was borrowed, proves nothing', () => {
    const body = real(FILES.FIG) as { facts: { 'us-gaap': Record<string, { units: { USD: { val: number; end: string; accn: string }[] } }> } };
    const fy = (concept: string) => body.facts['us-gaap'][concept]!.units.USD.find((f) => f.end === '2025-12-31' && f.accn === '0001628280-26-009228')!;
    // Figma's FY2025 facts with InterestIncomeOther 62.5 instead of 62.199: 62.5 - 62.2 = 0.3 million netted in the net
    // line, beyond half the 0.1 million it is stated in, after a credit line drawn in the year: unknown.
    fy('InterestIncomeOther').val = 62_500_000;
    assert.equal(filed(parseCompanyFacts(body, 'FIG')!.reports, '2026-02-18').interestExpense, null);
    // A net interest of -1 (an expense above the income): unknown whatever was borrowed.
    fy('InterestIncomeOther').val = 62_199_000;
    fy('InterestIncomeExpenseNonoperatingNet').val = -1_000_000;
    assert.equal(filed(parseCompanyFacts(body, 'FIG')!.reports, '2026-02-18').interestExpense, null);
  });

  it('SoundHound: debt rolled forward from a repaid loan\'s 0 by a year with nothing borrowed or repaid, its interest as filed', () => {
    const soun = reportsOf('SOUN');
    // 10-K 0001628280-25-011821 (2025-03-11): LongTermDebt 0 and LongTermDebtNoncurrent 0 at 2024-12-31, the latest debt
    // balances. 10-K 0001840856-26-000006 (2026-03-02), 2025-01-01..2025-12-31: ProceedsFromIssuanceOfLongTermDebt 0 and
    // RepaymentsOfLongTermDebt 0, no debt balance: 0 + 0 - 0 = 0 at 2025-12-31. Its InterestExpenseNonoperating 670
    // thousand for 2025 (InterestPaidNet 26 thousand) is the period's interest expense as filed.
    const fy = filed(soun, '2026-03-02');
    assert.deepEqual([fy.debt, fy.interestExpense], [0, 670 * K]);
    // Negative: the 10-Q of 2025-11-10 (9M 2025) tags RepaymentsOfLongTermDebt 0 but no borrowing concept, and
    // InterestExpenseNonoperating 557 thousand: what was borrowed is not stated, so debt stays unknown.
    assert.equal(filed(soun, '2025-11-10').debt, null);
    // Metrics at the 10-K, 2025-12-31: CashAndCashEquivalentsAtCarryingValue 248,490, StockholdersEquity 463,786,
    // OperatingIncomeLoss FY2025 -23,272 (thousand). Net-debt ratio (0 - 248,490) x 100 / 463,786 = -53.579 %;
    // ROIC -23,272 x 100 / (463,786 + 0 - 248,490) = -10.809 %; interest coverage -23,272 / 670 = -34.734 x.
    const m = stockMetrics(discreteQuarters(soun, '2026-03-02'), null, 'USD');
    const round3 = (v: number | null): number | null => (v === null ? null : Math.round(v * 1000) / 1000);
    assert.deepEqual([round3(m.netDebtRatio.value), round3(m.roic.value), round3(m.interestCoverage.value)], [-53.579, -10.809, -34.734]);
  });

  it('a roll-forward needs a balance of 0 and every borrowing flow of the whole period 0', () => {
    // Palantir's 10-K of 2024-02-20: the latest balance is LongTermDebtNoncurrent 0 at 2021-12-31, and the filing's flows
    // run from 2023-01-01, not from the day after: no roll-forward, and its InterestExpense 3,470 thousand keeps debt unknown.
    assert.equal(filed(reportsOf('PLTR'), '2024-02-20').debt, null);
    // AppLovin's debt is read from its lines, never rolled forward.
    assert.ok((filed(reportsOf('APP'), '2025-11-05').debt ?? 0) > 0);
  });

  it('a company with debt: never 0', () => {
    // AppLovin's 10-K of 2026-02-19 tags LongTermDebtNoncurrent: read, not proven.
    assert.ok((filed(reportsOf('APP'), '2026-02-19').debt ?? 0) > 0);
    // Berkshire's 10-Q of 2019-11-04 tags no debt balance and no interest concept; its net short-term borrowing
    // (ProceedsFromRepaymentsOfShortTermDebt 165 for 9M 2019) is history that says debt: unknown.
    assert.equal(filed(reportsOf('BRK'), '2019-11-04').debt, null);
    // A financial company's debt is never proven 0.
    for (const r of reportsOf('BRK', { financial: true })) assert.notEqual(r.debt, 0, r.disclosedOn);
  });

  it('a filer of ifrs-full facts is proven debt-free on both taxonomies\' lists, its interest expense 0 only as a us-gaap filer', () => {
    // Palantir's real facts plus one ifrs-full fact on a current report (8-K, not read as a filing): the same
    // filings (10-K of 2026-02-17: RevenueFromContractWithCustomerExcludingAssessedTax 4,475,446 thousand for 2025).
    // Its history holds no borrowing concept of either taxonomy and the 10-K no interest for 2025: debt 0.
    // The interest expense 0 (`interestNil`) reads us-gaap concepts only: null for a filer with ifrs-full facts.
    // Inventory 0 still (CostOfRevenue filed, no concept named Inventor... in either taxonomy).
    const body = real(FILES.PLTR) as { facts: Record<string, unknown> };
    body.facts['ifrs-full'] = { Revenue: { units: { USD: [{ start: '2025-01-01', end: '2025-12-31', val: 1, accn: 'x', fy: 2025, fp: 'FY', form: '8-K', filed: '2026-02-03' }] } } };
    const q = filed(parseCompanyFacts(body, 'PLTR')!.reports, '2026-02-17');
    assert.deepEqual([q.debt, q.interestExpense, q.inventory, q.revenue], [0, null, 0, 4_475_446 * K]);
    // The same with an ifrs-full borrowing of 5 at 2025-09-30 on a 10-Q filed before the 10-K (the latest debt
    // fact by then, not 0): no proof.
    body.facts['ifrs-full'] = { Borrowings: { units: { USD: [{ end: '2025-09-30', val: 5, accn: 'x', fy: 2025, fp: 'Q3', form: '10-Q', filed: '2025-11-01' }] } } };
    assert.equal(filed(parseCompanyFacts(body, 'PLTR')!.reports, '2026-02-17').debt, null);
  });

  it('which cash-flow concepts are borrowings and repayments', () => {
    assert.equal(debtFlowSign('ProceedsFromLinesOfCredit'), 1);
    assert.equal(debtFlowSign('RepaymentsOfLongTermDebt'), -1);
    assert.equal(debtFlowSign('ProceedsFromRepaymentsOfShortTermDebt'), 0);
    // Debt securities held and loans made are assets, not borrowings.
    assert.equal(debtFlowSign('ProceedsFromSaleOfAvailableForSaleSecuritiesDebt'), null);
    assert.equal(debtFlowSign('ProceedsFromCollectionOfNotesReceivable'), null);
    assert.equal(debtFlowSign('PaymentsOfDebtIssuanceCosts'), null);
  });
});

describe('CCC of US filers: inventory and cost of sales a whole history proves absent', () => {
  it('Snowflake: cost of sales but no inventory concept ever: inventory 0 (DIO 0)', () => {
    const snow = reportsOf('SNOW');
    // 10-Q 0001640147-25-000110 (2025-05-30) at 2025-04-30: AccountsReceivableNetCurrent 530,517, AccountsPayableCurrent
    // 155,263 (thousand), no concept with "Inventor" in its name in any filing.
    const q = filed(snow, '2025-05-30');
    assert.deepEqual([q.inventory, q.receivables, q.payables], [0, 530_517 * K, 155_263 * K]);
    // TTM to FY2026 Q1: revenue 3,626,396 + 1,042,074 - 828,709 = 3,839,761; CostOfGoodsAndServicesSold
    // 1,214,673 + 348,786 - 272,517 = 1,290,942 (thousand). CCC = 530,517 x 365 / 3,839,761 + 0
    // - 155,263 x 365 / 1,290,942 = 50.430 - 43.899 = 6.531 days.
    const ccc = stockMetrics(discreteQuarters(snow, '2025-05-30'), null, 'USD').ccc;
    assert.ok(ccc.value !== null && Math.abs(ccc.value - ((530_517 * 365) / 3_839_761 - (155_263 * 365) / 1_290_942)) < 1e-9, String(ccc.value));
    assert.equal(Math.round((ccc.value ?? 0) * 1000) / 1000, 6.531);
  });

  it('Visa: revenue and a total of expenses, no cost-of-sales concept ever: CCC not applicable', () => {
    const v = reportsOf('V');
    // 10-Q 0001403161-25-000052 (2025-07-30), 2024-10-01..2025-06-30: RevenueFromContractWithCustomerExcludingAssessedTax
    // 29,276, CostsAndExpenses 11,430, no concept named CostOf... in any filing.
    const q = filed(v, '2025-07-30');
    assert.deepEqual([q.revenue, q.costOfSales], [29_276 * M, 0]);
    assert.equal(stockMetrics(discreteQuarters(v, '2025-07-30'), null, 'USD').ccc.reason, NO_COST_OF_SALES);
  });

  it('UnitedHealth tags InventoryNet in its 10-Ks only: a 10-Q without it stays unknown', () => {
    const unh = reportsOf('UNH');
    // 10-K of 2025-02-27: InventoryNet 3,800 at 2024-12-31; 10-Q of 2025-08-11: none at 2025-06-30.
    assert.equal(filed(unh, '2025-02-27').inventory, 3_800 * M);
    assert.equal(filed(unh, '2025-08-11').inventory, null);
  });
});

describe('multi-class share counts', () => {
  it('Visa and Berkshire file no class-independent share count in companyfacts: shares stay unknown', () => {
    // Both file dei:EntityCommonStockSharesOutstanding per class with a dimension (dropped by companyfacts); Visa
    // tags neither CommonStockSharesOutstanding nor a weighted average, Berkshire its weighted average (in Class A
    // equivalents, which the BRK.B price does not fit) only until 2015.
    assert.equal(filed(reportsOf('V'), '2025-07-30').shares, null);
    assert.equal(filed(reportsOf('BRK'), '2025-08-04').shares, null);
  });
});
