// Foreign private issuers (20-F/40-F) on the real recorded companyfacts of TSMC (an excerpt of its
// concepts, test/fixtures/real/PROVENANCE.md): IFRS facts in TWD, read into USD at each filing's
// own convenience rate, growth in TWD, shares in ADSs. Every expected figure is derived beside it
// from the raw facts.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stockMetrics } from '../../src/domain/snapshot.js';
import { discreteQuarters, ttmAsOf } from '../../src/domain/ttm.js';
import { adsRatioOf, listedShares } from '../../src/domain/ads.js';
import { filerNoteOf } from '../../src/domain/filer-basis.js';
import { convenienceRate, INTERIM_WITHOUT_FLOWS, NO_CONVENIENCE_TRANSLATION, parseCompanyFacts, secCompany } from '../../src/sources/sec/parse.js';
import { SecSource } from '../../src/sources/sec/source.js';
import { real, realJson } from '../e2e/upstream.js';
import { context, loopback } from './helpers.js';

const TSMC = 'sec/companyfacts_CIK0001046179_TSM.EXCERPT.json';
const GLOBUS = 'sec/companyfacts_CIK0001499780_GLBS.EXCERPT.json';
const M = 1_000_000;
/** Equal to a part in 10^12: the figures are products of doubles. */
const near = (actual: number | null | undefined, expected: number): void => {
  assert.ok(actual !== null && actual !== undefined && Math.abs(actual - expected) <= Math.abs(expected) * 1e-12, `${actual} != ${expected}`);
};

// The rate of each 20-F: its ifrs-full:Revenue of the year in USD over the same in TWD (the largest pair it files).
const RATE_2020 = 47_694.3 / 1_339_254.8; // 20-F 0001193125-21-118512: US$1 = NT$28.0800 (28.07998)
const RATE_2019 = 35_773.5 / 1_069_985.4; // 20-F 0001193125-20-107579: US$1 = NT$29.9100
// dei:EntityCommonStockSharesOutstanding, every 20-F: 25,930,380,458 common shares; one ADS = 5 of them.
const ADS = 25_930_380_458 / 5; // 5,186,076,091.6 ADS equivalents

describe('foreign private issuers: TSMC (20-F, IFRS, TWD) from its recorded companyfacts', () => {
  const tsmc = parseCompanyFacts(realJson(TSMC), 'TSM')!;

  it('reads the ifrs-full facts of its 20-Fs, reporting currency TWD, each filing at its own convenience rate', () => {
    assert.equal(tsmc.reportingCurrency, 'TWD');
    assert.equal(tsmc.foreignPrivateIssuer, true);
    assert.deepEqual(tsmc.skipped, {});
    assert.deepEqual(
      tsmc.rates.map((r) => [r.accn, r.filed]),
      [
        ['0001193125-18-121866', '2018-04-19'],
        ['0001193125-19-108390', '2019-04-17'],
        ['0001193125-20-107579', '2020-04-15'],
        ['0001193125-21-118512', '2021-04-16'],
      ],
    );
    near(tsmc.rates[3]?.usdPerUnit ?? null, RATE_2020);
    near(tsmc.rates[2]?.usdPerUnit ?? null, RATE_2019);
    // The implied rates are round rates to the cent: 1 / RATE_2020 = 28.07998, 1 / RATE_2019 = 29.91000.
    assert.equal((1 / RATE_2020).toFixed(2), '28.08');
    assert.equal((1 / RATE_2019).toFixed(2), '29.91');
  });

  it('FY2020 (20-F filed 2021-04-16) in USD: TWD figures times the filing rate, shares in ADSs', () => {
    const fy2020 = tsmc.reports.filter((r) => r.fiscalYear === 2020);
    assert.equal(fy2020.length, 1);
    const r = fy2020[0]!;
    assert.deepEqual([r.fiscalQuarter, r.periodEnd, r.disclosedOn, r.consolidated], [4, '2020-12-31', '2021-04-16', true]);
    near(r.revenue, 47_694.3 * M); // Revenue 1,339,254.8 M TWD x rate = the filer's own USD figure
    near(r.operatingIncome, 566_783.7 * M * RATE_2020); // ProfitLossFromOperatingActivities: 20,184.62 M USD (filed: 20,184.6)
    near(r.netIncome, 510_744 * M * RATE_2020); // ProfitLossAttributableToOwnersOfParent: 18,188.90 M USD (filed: 18,188.9)
    near(r.capex, 507_238.7 * M * RATE_2020); // PurchaseOfPropertyPlantAndEquipmentClassifiedAsInvestingActivities: 18,064.07 M (filed: 18,064.1)
    assert.equal(Math.round((r.netIncome ?? 0) / (100_000)) / 10, 18_188.9); // agrees with the filed USD figure to its rounding
    assert.equal(r.shares, ADS);
  });

  it('each 20-F also gives the year before at its own rate, disclosed the same day (the base of growth)', () => {
    const fy2019 = tsmc.reports.filter((r) => r.fiscalYear === 2019).map((r) => [r.disclosedOn, r.revenue, r.netIncome, r.shares]);
    // As first filed (2020-04-15) at RATE_2019: revenue 35,773.5 M. As the 2021 filing's comparative at RATE_2020:
    // 1,069,985.4 M TWD x RATE_2020 = 38,104.93 M. The shares of the comparative are the original filing's.
    assert.equal(fy2019.length, 2);
    assert.equal(fy2019[0]?.[0], '2020-04-15');
    near(fy2019[0]?.[1] as number, 35_773.5 * M);
    assert.equal(fy2019[1]?.[0], '2021-04-16');
    near(fy2019[1]?.[1] as number, 1_069_985.4 * M * RATE_2020);
    near(fy2019[1]?.[2] as number, 353_948 * M * RATE_2020);
    assert.equal(fy2019[1]?.[3], ADS);
  });

  it('a yearly reporter: TTM = the latest fiscal year; growth in TWD, not in the convenience USD figures', () => {
    const view = ttmAsOf(tsmc.reports, '2021-06-30');
    assert.equal(view.current.ttm?.referenceQuarter, '2020Q4');
    assert.equal(view.yearEarlier.ttm?.referenceQuarter, '2019Q4');
    near(view.current.ttm?.revenue ?? null, 47_694.3 * M);
    near(view.yearEarlier.ttm?.revenue ?? null, 1_069_985.4 * M * RATE_2020);
    const price = { date: '2021-06-30', close: 100, shares: ADS, marketCap: 100 * ADS };
    const m = stockMetrics(discreteQuarters(tsmc.reports, '2021-06-30'), price, 'USD');
    // Revenue growth in TWD: (1,339,254.8 - 1,069,985.4) / 1,069,985.4 = 25.1657 %. From the filer's USD convenience
    // figures it would be (47,694.3 - 35,773.5) / 35,773.5 = 33.3230 %: the TWD's 6.5 % rise against the USD.
    near(m.revenueYoy.value, ((1_339_254.8 - 1_069_985.4) / 1_069_985.4) * 100);
    assert.equal(m.revenueYoy.value?.toFixed(4), '25.1657');
    // Operating income: (566,783.7 - 372,701.1) / 372,701.1 = 52.0746 %.
    assert.equal(m.operatingIncomeYoy.value?.toFixed(4), '52.0746');
    // EPS (per ADS; the same ADS count both years): net income growth (510,744 - 353,948) / 353,948 = 44.2992 %.
    assert.equal(m.epsYoy.value?.toFixed(4), '44.2992');
    // Margins are currency-free: 566,783.7 / 1,339,254.8 = 42.3208 %; 510,744 / 1,339,254.8 = 38.1364 %.
    assert.equal(m.operatingMargin.value?.toFixed(4), '42.3208');
    assert.equal(m.netMargin.value?.toFixed(4), '38.1364');
    // At a price of US$100 an ADS (a price the test gives, not a recorded one): market cap = 100 x 5,186,076,091.6
    // = US$518,607.6 M; PER = 518,607.6 / (510,744 x RATE_2020 = 18,188.90) = 28.5123 = 100 / EPS per ADS
    // (18,188.90 M / 5,186.08 M ADSs = US$3.5073).
    assert.equal(m.per.value?.toFixed(4), '28.5123');
    // PSR = 518,607.6 / 47,694.3 = 10.8736.
    assert.equal(m.psr.value?.toFixed(4), '10.8736');
    // No balance sheet in the excerpt: equity is not reported, so PBR says so.
    assert.equal(m.pbr.value, null);
    assert.equal(m.pbr.reason, 'equity not reported for 2020Q4');
  });

  it('before the FY2020 20-F, FY2019 is at its own filing rate with FY2018 from the same filing', () => {
    const view = ttmAsOf(tsmc.reports, '2021-04-15');
    assert.equal(view.current.ttm?.referenceQuarter, '2019Q4');
    near(view.current.ttm?.revenue ?? null, 35_773.5 * M);
    // 2018 from the 2020-04-15 filing: 1,031,473.6 M TWD x RATE_2019 = 34,485.91 M.
    near(view.yearEarlier.ttm?.revenue ?? null, 1_031_473.6 * M * RATE_2019);
  });

  it('the ADS ratio: TSM 5 ordinary shares an ADS; a ticker not in the table trades its ordinary shares', () => {
    assert.equal(adsRatioOf('TSM')?.ordinaryPerAds, 5);
    assert.equal(listedShares('TSM', 25_930_380_458), 5_186_076_091.6);
    assert.equal(adsRatioOf('AAPL'), null);
    assert.equal(listedShares('AAPL', 14_681_140_000), 14_681_140_000);
  });

  it('the convenience rate: the largest pair; none without a USD figure; signs must agree', () => {
    assert.equal(convenienceRate([{ own: 100, usd: 4 }, { own: 1_000, usd: 35 }]), 0.035);
    assert.equal(convenienceRate([]), null);
    assert.equal(convenienceRate([{ own: -100, usd: 4 }, { own: 0, usd: 1 }]), null);
  });

  it('a filing in a foreign currency without a USD translation is skipped with its reason (made from the excerpt: USD facts removed)', () => {
    const body = realJson<{ facts: Record<string, Record<string, { units: Record<string, unknown> }>> }>(TSMC);
    for (const c of Object.values(body.facts['ifrs-full'] ?? {})) delete c.units['USD'];
    const parsed = parseCompanyFacts(body, 'TSM')!;
    assert.deepEqual([parsed.reportingCurrency, parsed.reports.length, parsed.skipped], ['TWD', 0, { [NO_CONVENIENCE_TRANSLATION]: 4 }]);
  });

  it("a comparative's shares are its original filing's, in the basis after a split between the two (made from the excerpt: a 2-for-1 count on the 2021 cover)", () => {
    const body = realJson<{ facts: { dei: { EntityCommonStockSharesOutstanding: { units: { shares: { val: number; filed: string }[] } } } } }>(TSMC);
    for (const f of body.facts.dei.EntityCommonStockSharesOutstanding.units.shares) if (f.filed === '2021-04-16') f.val *= 2;
    const parsed = parseCompanyFacts(body, 'TSM')!;
    assert.deepEqual(parsed.splits, [{ filed: '2021-04-16', factor: 2 }]);
    // FY2019 as the 2021 20-F's comparative: the 2020 cover's 25,930,380,458 x 2 / 5 ADSs, as FY2020's own count.
    const fy2019 = parsed.reports.filter((r) => r.fiscalYear === 2019).map((r) => [r.disclosedOn, r.shares]);
    assert.deepEqual(fy2019, [['2020-04-15', ADS * 2], ['2021-04-16', ADS * 2]]);
    assert.equal(parsed.reports.find((r) => r.fiscalYear === 2020)?.shares, ADS * 2);
  });

  it('a half-year 6-K with flows: TTM = the latest fiscal year + H1 - H1 a year earlier (made from the excerpt: a 6-K added)', () => {
    // Made here: a 6-K filed 2021-08-12 with Revenue H1 2021 TWD 734,000 M (USD 26,200 M) and H1 2020 TWD 620,000 M.
    const body = realJson<{ facts: Record<string, Record<string, { units: Record<string, Record<string, unknown>[]> }>> }>(TSMC);
    const revenue = body.facts['ifrs-full']?.['Revenue']?.units;
    assert.ok(revenue?.['TWD'] && revenue['USD']);
    const sixK = { accn: '0001193125-21-000001', fy: 2021, fp: 'Q2', form: '6-K', filed: '2021-08-12' };
    revenue['TWD'].push({ start: '2020-01-01', end: '2020-06-30', val: 620_000 * M, ...sixK }, { start: '2021-01-01', end: '2021-06-30', val: 734_000 * M, ...sixK });
    revenue['USD'].push({ start: '2021-01-01', end: '2021-06-30', val: 26_200 * M, ...sixK });
    const parsed = parseCompanyFacts(body, 'TSM')!;
    const rate6k = 26_200 / 734_000;
    const view = ttmAsOf(parsed.reports, '2021-09-01');
    assert.equal(view.current.ttm?.referenceQuarter, '2021Q2');
    // FY2020 at the 20-F's rate, the two halves at the 6-K's: 47,694.3 M + (734,000 - 620,000) M TWD x 26,200 / 734,000.
    near(view.current.ttm?.revenue ?? null, 47_694.3 * M + (734_000 - 620_000) * M * rate6k);
    const company = secCompany({ cik: 1046179, ticker: 'TSM', title: 'TAIWAN SEMICONDUCTOR MANUFACTURING CO LTD' }, body, null);
    assert.equal(company.kind, 'covered');
    if (company.kind !== 'covered') return;
    const note = filerNoteOf(company.security, view);
    assert.equal(note?.ttmBasis, 'fiscal year 2020 (20-F) + 2021 H1 - 2020 H1 (interim figures as filed)');
    assert.deepEqual([note?.conversion?.disclosedOn, note?.conversion?.usdPerUnit], ['2021-08-12', rate6k]);
  });

  it('the reporting currency is the one of the latest periodic filing (made from the excerpt: a later 10-K in USD added)', () => {
    const body = realJson<{ facts: Record<string, Record<string, { units: Record<string, Record<string, unknown>[]> }>> }>(TSMC);
    const usd = body.facts['ifrs-full']?.['Revenue']?.units['USD'];
    assert.ok(usd);
    usd.push({ start: '2021-01-01', end: '2021-12-31', val: 56_820 * M, accn: '0000000000-22-000001', fy: 2021, fp: 'FY', form: '10-K', filed: '2022-03-01' });
    const parsed = parseCompanyFacts(body, 'TSM')!;
    assert.equal(parsed.reportingCurrency, 'USD');
    assert.equal(parsed.annualForm, null);
    assert.deepEqual(parsed.reports.filter((r) => r.fiscalYear === 2021).map((r) => r.revenue), [56_820 * M]);
  });

  it('the API adapter serves TSM (no longer a 404): its Security and its reports in USD', async () => {
    const server = await loopback((req) => {
      const p = req.url.pathname;
      if (p === '/files/company_tickers.json') return { body: real('sec/company_tickers.json.gz') };
      if (p === '/api/xbrl/companyfacts/CIK0001046179.json') return { body: real(TSMC) };
      return { status: 404, body: 'Not Found' };
    });
    try {
      const source = new SecSource({ userAgent: 'Example Research admin@example.com', dataBaseUrl: server.base, wwwBaseUrl: server.base, requestsPerSecond: 10, tickers: ['TSM'] });
      const result = await source.ingest(context({ asOf: '2021-06-30', cursor: null }));
      assert.deepEqual(result.data.securities, [
        {
          ...{ market: 'US', code: 'TSM', name: 'TAIWAN SEMICONDUCTOR MANUFACTURING CO LTD', exchange: 'US', sector: 'Unclassified', currency: 'USD', fiscalYearEndMonth: 12, source: 'sec' },
          // The rate of each 20-F, by its filing date (the 2020 one: RATE_2020).
          filerBasis: { annualForm: '20-F', reportingCurrency: 'TWD', usdRates: tsmc.rates.map((r) => ({ disclosedOn: r.filed, usdPerUnit: r.usdPerUnit })) },
        },
      ]);
      near(result.data.securities?.[0]?.filerBasis?.usdRates[3]?.usdPerUnit ?? null, RATE_2020);
      assert.deepEqual(result.data.reports, tsmc.reports);
    } finally {
      await server.close();
    }
  });
});

describe('foreign private issuers: Globus Maritime (20-F, IFRS, USD; half-yearly 6-Ks) from its recorded companyfacts', () => {
  const globus = parseCompanyFacts(realJson(GLOBUS), 'GLBS')!;

  it('a USD reporter: read as filed, no conversion, one report per 20-F', () => {
    assert.deepEqual([globus.reportingCurrency, globus.foreignPrivateIssuer, globus.annualForm, globus.rates], ['USD', true, '20-F', []]);
    // Per 20-F, ifrs-full (USD): Revenue, ProfitLossFromOperatingActivities, net income from
    // ProfitLossAttributableToOrdinaryEquityHoldersOfParentEntity (no ...OwnersOfParent is filed),
    // |PurchaseOfPropertyPlantAndEquipmentClassifiedAsInvestingActivities|, TradeAndOtherCurrentPayables.
    assert.deepEqual(
      globus.reports.map((r) => [r.fiscalYear, r.fiscalQuarter, r.disclosedOn, r.revenue, r.operatingIncome, r.netIncome, r.capex, r.payables]),
      [
        [2017, 4, '2018-03-09', 14_423_000, -4_015_000, -6_475_000, 245_000, 4_258_000],
        [2018, 4, '2019-03-28', 17_354_000, -1_448_000, -3_568_000, 26_000, 6_433_000],
        [2019, 4, '2020-04-01', 15_623_000, -33_649_000, -36_351_000, 54_000, 4_735_000],
        [2020, 4, '2021-03-29', 11_753_000, -11_423_000, -17_372_000, 54_000, 4_758_000],
      ],
    );
  });

  it('its 1-for-10 reverse split of 2018 shows in the cover counts: the 2017 count in the later basis', () => {
    // dei:EntityCommonStockSharesOutstanding 31,630,419 (20-F of 2018-03-09), then 3,209,327 (20-F of 2019-03-28):
    // 3,209,327 / 31,630,419 = 0.1015, a 1:10 reverse split; 31,630,419 x 0.1 = 3,163,041.9 -> 3,163,042.
    assert.deepEqual(globus.splits, [{ filed: '2019-03-28', factor: 0.1 }]);
    assert.deepEqual(globus.reports.map((r) => r.shares), [3_163_042, 3_209_327, 5_227_159, 3_040_123]);
  });

  it('half-yearly 6-Ks with a balance sheet and no flows are not taken: the TTM stays the latest annual one', () => {
    // 6-Ks 0001144204-18-051214 (2018-09-27), 0001144204-19-046274 (2019-09-27), 0001104659-20-108907 (2020-09-25)
    // file TradeAndOtherCurrentPayables at June 30 and no revenue or profit.
    assert.deepEqual(globus.skipped, { [INTERIM_WITHOUT_FLOWS]: 3 });
    const late2020 = ttmAsOf(globus.reports, '2020-12-31');
    assert.deepEqual([late2020.current.ttm?.referenceQuarter, late2020.current.ttm?.revenue], ['2019Q4', 15_623_000]);
  });

  it('on 2021-06-30: TTM = FY2020; revenue YoY, margins by hand; the note says how', () => {
    const quarters = discreteQuarters(globus.reports, '2021-06-30');
    const m = stockMetrics(quarters, null, 'USD');
    // (11,753,000 - 15,623,000) / 15,623,000 x 100 = -24.7712 %.
    assert.equal(m.revenueYoy.value?.toFixed(4), '-24.7712');
    // -11,423,000 / 11,753,000 x 100 = -97.1922 %; -17,372,000 / 11,753,000 x 100 = -147.8091 %.
    assert.equal(m.operatingMargin.value?.toFixed(4), '-97.1922');
    assert.equal(m.netMargin.value?.toFixed(4), '-147.8091');
    const company = secCompany({ cik: 1499780, ticker: 'GLBS', title: 'GLOBUS MARITIME LTD' }, realJson(GLOBUS), null);
    assert.equal(company.kind, 'covered');
    if (company.kind !== 'covered') return;
    assert.deepEqual(company.security.filerBasis, { annualForm: '20-F', reportingCurrency: 'USD', usdRates: [] });
    assert.deepEqual(filerNoteOf(company.security, ttmAsOf(globus.reports, '2021-06-30')), {
      annualForm: '20-F',
      reportingCurrency: 'USD',
      conversion: null,
      ttmBasis: 'fiscal year 2020 as filed on 20-F (no interim flow figures among its XBRL facts: the latest fiscal year)',
      ads: null,
    });
  });
});
