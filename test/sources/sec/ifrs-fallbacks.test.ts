// The pre-tax EBIT fallback and the proof of debt 0 for an IFRS filer (20-F, `ifrs-full` facts;
// docs/calculations.md, "Operating income without an operating-income line" and "Debt").
// CONSTRUCTED facts: no full real IFRS companyfacts recording is at hand (the TSMC and Globus files
// in test/fixtures/real/sec are excerpts), so each filer below is a small companyfacts document in
// SEC's layout, in USD, with the figures chosen to make the arithmetic plain.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCompanyFacts } from '../../../src/sources/sec/parse.js';

const M = 1_000_000;
const ACCN = '0000000001-26-000001';
const FILED = '2026-03-02';

type Concepts = Record<string, { units: Record<string, unknown[]> }>;

/** A 20-F for the year 2025 tagging `flows` (2025-01-01..2025-12-31) and `balances` (at 2025-12-31), USD million; `extra` are further concepts as given. */
function twentyF(flows: Record<string, number>, balances: Record<string, number>, extra: Concepts = {}): unknown {
  const fact = (val: number, start?: string) => ({ ...(start ? { start } : {}), end: '2025-12-31', val: val * M, accn: ACCN, fy: 2025, fp: 'FY', form: '20-F', filed: FILED });
  const ifrs: Concepts = { ...extra };
  for (const [c, v] of Object.entries(flows)) ifrs[c] = { units: { USD: [fact(v, '2025-01-01')] } };
  for (const [c, v] of Object.entries(balances)) ifrs[c] = { units: { USD: [fact(v)] } };
  return { cik: 1, entityName: 'Constructed Foreign Filer', facts: { 'ifrs-full': ifrs } };
}

/** One fact of an earlier 20-F (filed 2025-03-03 for the year 2024), USD million: at `end`, for the period from `start` when given. */
function earlier(val: number, end: string, start?: string): Concepts[string] {
  return { units: { USD: [{ ...(start ? { start } : {}), end, val: val * M, accn: '0000000001-25-000001', fy: 2024, fp: 'FY', form: '20-F', filed: '2025-03-03' }] } };
}

const reportOf = (body: unknown, financial = false) => {
  const r = (parseCompanyFacts(body, 'CFF', undefined, { financial })?.reports ?? []).find((x) => x.disclosedOn === FILED && x.periodEnd === '2025-12-31');
  assert.ok(r, 'the 20-F\'s report');
  return r;
};

const INCOME = { Revenue: 5000, ProfitLossBeforeTax: 900, ProfitLossAttributableToOwnersOfParent: 700 };
const BALANCES = { Assets: 8000, Liabilities: 3000, CashAndCashEquivalents: 1200 };

describe('IFRS operating income without an operating-profit line: profit before tax + finance costs', () => {
  it('ProfitLossBeforeTax and FinanceCosts, no ProfitLossFromOperatingActivities ever: EBIT', () => {
    // 900 + 100 = 1,000. The interest-expense item is ifrs-full:InterestExpense (60, a note's figure) first; the
    // EBIT adds the finance costs the income statement deducts to reach profit before tax (100).
    const r = reportOf(twentyF({ ...INCOME, FinanceCosts: 100, InterestExpense: 60 }, BALANCES));
    assert.deepEqual([r.operatingIncome, r.interestExpense], [1000 * M, 60 * M]);
  });

  it('no FinanceCosts: profit before tax + InterestExpense; a finance cost filed negative is added as its size', () => {
    // 900 + 60 = 960.
    assert.equal(reportOf(twentyF({ ...INCOME, InterestExpense: 60 }, BALANCES)).operatingIncome, 960 * M);
    // 900 + |-100| = 1,000.
    assert.equal(reportOf(twentyF({ ...INCOME, FinanceCosts: -100 }, BALANCES)).operatingIncome, 1000 * M);
  });

  it('no finance costs nor interest for the period: no EBIT', () => {
    assert.equal(reportOf(twentyF(INCOME, BALANCES)).operatingIncome, null);
  });

  it('ProfitLossFromOperatingActivities within three years before the period end: no fallback; 1,096 days before: the fallback', () => {
    // An earlier 20-F tags operating profit for 2024 (end 2024-12-31, 365 days before 2025-12-31): the filer
    // states the line, a missing one stays missing.
    const within = { ProfitLossFromOperatingActivities: earlier(800, '2024-12-31', '2024-01-01') };
    assert.equal(reportOf(twentyF({ ...INCOME, FinanceCosts: 100 }, BALANCES, within)).operatingIncome, null);
    // Its last one for 2022 (end 2022-12-31: 2023 365 + 2024 366 + 2025 365 = 1,096 days before 2025-12-31, the
    // end of the lookback): 900 + 100 = 1,000.
    const before = { ProfitLossFromOperatingActivities: earlier(800, '2022-12-31', '2022-01-01') };
    assert.equal(reportOf(twentyF({ ...INCOME, FinanceCosts: 100 }, BALANCES, before)).operatingIncome, 1000 * M);
  });

  it('the filing tags operating profit: read as filed', () => {
    assert.equal(reportOf(twentyF({ ...INCOME, FinanceCosts: 100, ProfitLossFromOperatingActivities: 980 }, BALANCES)).operatingIncome, 980 * M);
  });

  it('a financial company: never (finance costs are a lender\'s cost of sales)', () => {
    assert.equal(reportOf(twentyF({ ...INCOME, FinanceCosts: 100 }, BALANCES), true).operatingIncome, null);
  });
});

describe('IFRS debt proven 0: no borrowing concept ever, no finance cost or interest in the period', () => {
  it('a balance sheet, no borrowing concept in the history, no interest or finance cost: debt 0, interest expense unknown', () => {
    const r = reportOf(twentyF(INCOME, BALANCES));
    // The interest expense 0 (`interestNil`) is a us-gaap filer's only.
    assert.deepEqual([r.debt, r.interestExpense], [0, null]);
  });

  it('finance costs other than 0 (lease interest, IFRS 16): unknown; lease liabilities alone are not debt', () => {
    // LeaseLiabilities 400 and FinanceCosts 20: the lease interest is in the finance costs, which cannot be told
    // apart from interest on borrowings.
    assert.equal(reportOf(twentyF({ ...INCOME, FinanceCosts: 20 }, { ...BALANCES, LeaseLiabilities: 400 })).debt, null);
    // LeaseLiabilities 400 with finance costs of 0 filed: leases are not borrowings (`ifrsDebtOf`), debt 0.
    assert.equal(reportOf(twentyF({ ...INCOME, FinanceCosts: 0 }, { ...BALANCES, LeaseLiabilities: 400 })).debt, 0);
  });

  it('other interest evidence in the period: interest paid, interest on borrowings, a net finance line', () => {
    for (const concept of ['InterestPaidClassifiedAsOperatingActivities', 'InterestExpenseOnBorrowings', 'FinanceIncomeCost']) {
      // A net finance income of +30 may hold a cost netted in it: it counts at any sign.
      assert.equal(reportOf(twentyF({ ...INCOME, [concept]: 30 }, BALANCES)).debt, null, concept);
    }
  });

  it('a borrowing balance in an earlier filing: not proven; a balance of 0 there (repaid): proven', () => {
    assert.equal(reportOf(twentyF(INCOME, BALANCES, { Borrowings: earlier(300, '2024-12-31') })).debt, null);
    // A borrowing concept ifrsDebtOf does not read counts too.
    assert.equal(reportOf(twentyF(INCOME, BALANCES, { OtherCurrentBorrowingsAndCurrentPortionOfOtherNoncurrentBorrowings: earlier(300, '2024-12-31') })).debt, null);
    assert.equal(reportOf(twentyF(INCOME, BALANCES, { LongtermBorrowings: earlier(0, '2024-12-31') })).debt, 0);
  });

  it('borrowing flows of the period: net borrowing, not proven; drawn and repaid in the year, proven', () => {
    // ProceedsFromBorrowingsClassifiedAsFinancingActivities 50 for 2025: +50, not 0.
    assert.equal(reportOf(twentyF({ ...INCOME, ProceedsFromBorrowingsClassifiedAsFinancingActivities: 50 }, BALANCES)).debt, null);
    // + 50 - 50 = 0 at 2025-12-31, the latest debt fact, and no interest: 0.
    assert.equal(reportOf(twentyF({ ...INCOME, ProceedsFromBorrowingsClassifiedAsFinancingActivities: 50, RepaymentsOfBorrowingsClassifiedAsFinancingActivities: 50 }, BALANCES)).debt, 0);
    // Bonds issued in the year (ProceedsFromIssueOfBondsNotesAndDebentures 200): +200.
    assert.equal(reportOf(twentyF({ ...INCOME, ProceedsFromIssueOfBondsNotesAndDebentures: 200 }, BALANCES)).debt, null);
  });

  it('borrowings filed in the filing: the figure as filed; a financial company: never proven', () => {
    assert.equal(reportOf(twentyF(INCOME, { ...BALANCES, Borrowings: 300 })).debt, 300 * M);
    assert.equal(reportOf(twentyF(INCOME, BALANCES), true).debt, null);
  });
});
