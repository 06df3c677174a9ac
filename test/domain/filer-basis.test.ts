// The note a foreign private issuer's snapshot carries (src/domain/filer-basis.ts), on reports made
// here: what its TTM is made of (annual, or annual plus the interim difference) and which
// filing's rate it states.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { filerNoteOf } from '../../src/domain/filer-basis.js';
import type { FinancialReport, FilerBasis } from '../../src/domain/model.js';
import { ttmAsOf } from '../../src/domain/ttm.js';

const report = (fiscalYear: number, fiscalQuarter: 2 | 4, disclosedOn: string, revenue: number): FinancialReport => ({
  market: 'US', code: 'XYZ', fiscalYear, fiscalQuarter, periodEnd: `${fiscalYear}-${fiscalQuarter === 2 ? '06-30' : '12-31'}`, disclosedOn, consolidated: true,
  revenue, costOfSales: null, operatingIncome: null, netIncome: null, operatingCashFlow: null, capex: null, interestExpense: null, basicEps: null, dividendPerShare: null,
  totalAssets: null, currentAssets: null, totalLiabilities: null, currentLiabilities: null, equity: null, cash: null, debt: null,
  receivables: null, inventory: null, payables: null, shares: null, source: 'sec',
});
// Made here: a half-yearly reporter in EUR, a 20-F (FY2020, filed 2021-03-01) and two 6-Ks (H1 2020 and H1 2021).
const reports = [report(2020, 2, '2020-09-01', 40), report(2020, 4, '2021-03-01', 100), report(2021, 2, '2021-09-01', 60)];
const basis: FilerBasis = {
  annualForm: '20-F',
  reportingCurrency: 'EUR',
  usdRates: [
    { disclosedOn: '2020-09-01', usdPerUnit: 1.18 },
    { disclosedOn: '2021-03-01', usdPerUnit: 1.21 },
    { disclosedOn: '2021-09-01', usdPerUnit: 1.17 },
  ],
};
const security = { code: 'XYZ', currency: 'USD' as const, filerBasis: basis };

describe('the filer note', () => {
  it('an interim TTM: the latest annual plus the interim difference, at the rate of its latest filing', () => {
    const view = ttmAsOf(reports, '2021-10-01');
    // TTM = FY2020 100 + H1 2021 60 - H1 2020 40 = 120.
    assert.equal(view.current.ttm?.revenue, 120);
    const note = filerNoteOf(security, view);
    assert.equal(note?.ttmBasis, 'fiscal year 2020 (20-F) + 2021 H1 - 2020 H1 (interim figures as filed)');
    assert.deepEqual([note?.conversion?.usdPerUnit, note?.conversion?.disclosedOn], [1.17, '2021-09-01']);
    assert.equal(note?.ads, null);
  });

  it('an annual TTM with interims on file: the fiscal year as filed; the rate of the 20-F', () => {
    const note = filerNoteOf(security, ttmAsOf(reports, '2021-06-30'));
    assert.equal(note?.ttmBasis, 'fiscal year 2020 as filed on 20-F');
    assert.equal(note?.conversion?.usdPerUnit, 1.21);
  });

  it('no TTM: the reason; no conversion stated. A security without a filer basis has no note', () => {
    const note = filerNoteOf(security, ttmAsOf(reports, '2020-01-01'));
    assert.deepEqual([note?.ttmBasis, note?.conversion], ['no TTM: no quarterly report disclosed', null]);
    assert.equal(filerNoteOf({ code: 'AAPL', currency: 'USD' }, ttmAsOf(reports, '2021-10-01')), null);
  });

  it('a filer in a foreign currency none of whose filings translates into USD: the note says why there is no TTM', () => {
    const untranslated = { code: 'XYZ', currency: 'USD' as const, filerBasis: { ...basis, usdRates: [] } };
    assert.equal(
      filerNoteOf(untranslated, ttmAsOf([], '2021-10-01'))?.ttmBasis,
      'no TTM: its filings give no USD convenience translation of their EUR figures, and no other rate source is read',
    );
  });
});
