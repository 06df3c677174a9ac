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
      'no TTM: its filings give no USD convenience translation of their EUR figures, and no ECB reference rate of EUR covered their periods when they were read (the ECB publishes no rate of some currencies, TWD among them)',
    );
  });

  it("a filing converted at the ECB's reference rates: flows at the period's average, balances at its end, each said, with the source", () => {
    // Made here: the 6-K of H1 2021 converted at the ECB's rates (1.2054 the H1 average over 125 days, 1.1884 on 2021-06-30).
    const reference = { from: '2021-01-01', to: '2021-06-30', days: 125, balanceUsdPerUnit: 1.1884, balanceOn: '2021-06-30' };
    const ecb = { code: 'XYZ', currency: 'USD' as const, filerBasis: { ...basis, usdRates: [...basis.usdRates.slice(0, 2), { disclosedOn: '2021-09-01', usdPerUnit: 1.2054, reference }] } };
    const conversion = filerNoteOf(ecb, ttmAsOf(reports, '2021-10-01'))?.conversion;
    assert.deepEqual(
      { ...conversion, source: undefined },
      {
        usdPerUnit: 1.2054,
        balanceUsdPerUnit: 1.1884,
        flowRate: 'ECB reference rate, average of the period 2021-01-01 to 2021-06-30 (125 days published)',
        balanceRate: 'ECB reference rate at period end (2021-06-30)',
        disclosedOn: '2021-09-01',
        source: undefined,
      },
    );
    assert.match(conversion?.source ?? '', /^ECB euro foreign exchange reference rates \(www\.ecb\.europa\.eu, eurofxref\), USD per EUR of each day: flows .* at the average of the period's daily rates, balances at the rate of the period end; .* so growth is in EUR$/);
    // A period ending on a day without a rate (a Sunday): the balances at the last one before it, said so.
    const sunday = { ...ecb, filerBasis: { ...ecb.filerBasis, usdRates: [{ disclosedOn: '2021-09-01', usdPerUnit: 1.2054, reference: { ...reference, to: '2021-06-27', balanceOn: '2021-06-25' } }] } };
    assert.equal(filerNoteOf(sunday, ttmAsOf(reports, '2021-10-01'))?.conversion?.balanceRate, 'ECB reference rate at period end (2021-06-25, the last published on or before 2021-06-27)');
    // A convenience translation: one rate for both, said so.
    const convenience = filerNoteOf(security, ttmAsOf(reports, '2021-10-01'))?.conversion;
    assert.deepEqual([convenience?.balanceUsdPerUnit, convenience?.flowRate, convenience?.balanceRate], [1.17, "the filer's USD convenience translation", "the filer's USD convenience translation"]);
  });
});
