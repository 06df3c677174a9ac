// The SEC companyfacts parser on real recorded answers (test/fixtures/real/sec, provenance in
// test/fixtures/real/PROVENANCE.md). Expected figures are the raw facts, quoted beside them.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import type { FinancialReport } from '../../src/domain/model.js';
import { ttmAsOf } from '../../src/domain/ttm.js';
import { debtOf, parseCompanyFacts, parseSubmissions } from '../../src/sources/sec/parse.js';
import { sectorOfSic } from '../../src/sources/sec/sectors.js';
import { zipMembers } from '../../src/sources/shared/zip-stream.js';

const real = (name: string): unknown => JSON.parse(gunzipSync(readFileSync(new URL(`../fixtures/real/sec/${name}`, import.meta.url))).toString('utf8'));
const M = 1_000_000;
const at = (reports: readonly FinancialReport[], fy: number, q: number): FinancialReport[] => reports.filter((r) => r.fiscalYear === fy && r.fiscalQuarter === q);

describe('SEC companyfacts on real filings', () => {
  const apple = parseCompanyFacts(real('companyfacts_CIK0000320193_AAPL.json.gz'), 'AAPL')!;
  const tesla = parseCompanyFacts(real('companyfacts_CIK0001318605_TSLA.json.gz'), 'TSLA')!;
  const marvell = parseCompanyFacts(real('companyfacts_CIK0001835632_MRVL.json.gz'), 'MRVL')!;

  it('Apple Q1 FY2026 (10-Q 0000320193-26-000006): period from the facts, debt from its balance-sheet lines', () => {
    const [q1] = at(apple.reports, 2026, 1);
    assert.ok(q1);
    // RevenueFromContractWithCustomerExcludingAssessedTax 2025-09-28..2025-12-27 = 143,756; NetIncomeLoss 42,097;
    // PaymentsToAcquirePropertyPlantAndEquipment 2,373 (91 days: Q1 of the fiscal year starting 2025-09-28, which ends in
    // September 2026, so FY2026).
    assert.deepEqual([q1.periodEnd, q1.disclosedOn, q1.revenue, q1.netIncome, q1.capex], ['2025-12-27', '2026-01-30', 143_756 * M, 42_097 * M, 2_373 * M]);
    // LongTermDebtCurrent 11,827 + CommercialPaper 1,997 + LongTermDebtNoncurrent 76,685 = 90,509 (LongTermDebt 88,500 is the
    // note's total of term debt, current part included: not added again).
    assert.equal(q1.debt, 90_509 * M);
    // dei:EntityCommonStockSharesOutstanding 2026-01-16 = 14,681,140,000 (after the last split: unchanged).
    assert.equal(q1.shares, 14_681_140_000);
    assert.equal(apple.fiscalYearEndMonth, 9);
  });

  it('Apple: a 10-K/A restatement (FY2009, filed 2010-01-25 with the Q1 FY2010 10-Q) is a correction from its own date on', () => {
    // 10-K 2009-10-27: SalesRevenueNet FY2009 36,537, NetIncomeLoss 5,704; 10-K/A 2010-01-25 (new revenue
    // recognition, restated): 42,905 and 8,235. The 10-Q of the same day is Q1 FY2010 (period end 2009-12-26).
    const fy2009 = at(apple.reports, 2009, 4).map((r) => [r.disclosedOn, r.revenue, r.netIncome]);
    assert.deepEqual(fy2009, [
      ['2009-10-27', 36_537 * M, 5_704 * M],
      ['2010-01-25', 42_905 * M, 8_235 * M],
    ]);
    assert.deepEqual(at(apple.reports, 2010, 1).map((r) => [r.periodEnd, r.disclosedOn]), [['2009-12-26', '2010-01-25']]);
    // FY2009's TTM is the original 5,704 the day before the amendment and the restated 8,235 from its day on.
    const upToFy2009 = apple.reports.filter((r) => r.fiscalYear <= 2009);
    assert.equal(ttmAsOf(upToFy2009, '2010-01-24').current.ttm?.netIncome, 5_704 * M);
    assert.equal(ttmAsOf(upToFy2009, '2010-01-25').current.ttm?.netIncome, 8_235 * M);
    // Q1 FY2010's TTM needs the Q1 FY2009 10-Q, which predates these companyfacts (they start mid-2009): no TTM, and why.
    assert.equal(ttmAsOf(apple.reports, '2010-01-25').current.reason, 'no filing for 2009Q1');
  });

  it('Apple: a concept that stopped being filed does not blank the item (capex and revenue before 2013)', () => {
    const [fy2012] = at(apple.reports, 2012, 4);
    // 10-K 0001193125-12-444068: no PaymentsToAcquirePropertyPlantAndEquipment; PaymentsToAcquireProductiveAssets
    // 2011-09-25..2012-09-29 = 8,295; revenue under SalesRevenueNet = 156,508.
    assert.deepEqual([fy2012?.capex, fy2012?.revenue], [8_295 * M, 156_508 * M]);
  });

  it('Apple: the 7-for-1 (2014) and 4-for-1 (2020) splits, confirmed by restated EPS, put every count in one basis', () => {
    // Cover counts 861,381,000 (2014-04-11) -> 5,987,867,000 (2014-07-11): x6.95; 4,275,634,000 (2020-07-17) ->
    // 17,001,802,000 (2020-10-16): x3.98. EPS 2020-03-29..06-27: 2.61 as filed 2020-07-31, 0.65 restated 2020-10-30.
    assert.deepEqual(apple.splits, [
      { filed: '2014-07-23', factor: 7 },
      { filed: '2020-10-30', factor: 4 },
    ]);
    const [q3fy2020] = at(apple.reports, 2020, 3);
    assert.equal(q3fy2020?.shares, 4_275_634_000 * 4); // 17,102,536,000 in today's basis
    const [q2fy2014] = at(apple.reports, 2014, 2);
    assert.equal(q2fy2014?.shares, 861_381_000 * 7 * 4);
  });

  it('Tesla: 5-for-1 (2020) and 3-for-1 (2022) splits; debt = DebtCurrent + LongTermDebt as Tesla files them', () => {
    // Cover counts 186,361,726 (2020-07-20) -> 947,900,733 (2020-10-20): x5.09; 1,044,490,015 (2022-07-19) ->
    // 3,157,752,449 (2022-10-18): x3.02. EPS 2020-04-01..06-30: 0.56 as filed, 0.11 restated 2021-07-27.
    assert.deepEqual(tesla.splits, [
      { filed: '2020-10-26', factor: 5 },
      { filed: '2022-10-24', factor: 3 },
    ]);
    const [q2fy2020] = at(tesla.reports, 2020, 2);
    assert.equal(q2fy2020?.shares, 186_361_726 * 15);
    const [q3fy2022] = at(tesla.reports, 2022, 3);
    // 10-Q 0000950170-22-019867 at 2022-09-30: DebtCurrent 979 + LongTermDebt 1,418 (no LongTermDebtNoncurrent, no
    // LongTermDebtCurrent: the non-current part); finance leases (478 + 678) are not debt here.
    assert.deepEqual([q3fy2022?.debt, q3fy2022?.shares], [2_397 * M, 3_157_752_449]);
    // 2020-09-30: DebtCurrent 2,766 + LongTermDebt 9,428 = 12,194
    assert.equal(at(tesla.reports, 2020, 3)[0]?.debt, 12_194 * M);
  });

  it('Marvell: a 52/53-week year ending around 1 February is named by the year it ends in', () => {
    // 10-K filed 2025-03-12: year 2024-02-04..2025-02-01 (an end in a month's first week counts for January) = FY2025.
    const [fy2025] = at(marvell.reports, 2025, 4);
    assert.deepEqual([fy2025?.periodEnd, fy2025?.disclosedOn], ['2025-02-01', '2025-03-12']);
    // The quarter ending 2026-05-02 is the first of the fiscal year that ends in January 2027: FY2027 Q1.
    assert.deepEqual(at(marvell.reports, 2027, 1).map((r) => r.periodEnd), ['2026-05-02']);
    assert.equal(marvell.fiscalYearEndMonth, 1);
    assert.deepEqual(marvell.splits, []);
  });

  it('a multi-class issuer (cover shares only per class, which companyfacts leaves out) falls back to balance-sheet shares', () => {
    // Edge case made from the real document: the dei cover counts removed, as for a company that files them per class.
    const body = real('companyfacts_CIK0000320193_AAPL.json.gz') as { facts: { dei: Record<string, unknown> } };
    delete body.facts.dei['EntityCommonStockSharesOutstanding'];
    const [q1] = at(parseCompanyFacts(body, 'AAPL')!.reports, 2026, 1);
    // us-gaap CommonStockSharesOutstanding at 2025-12-27 (accn 0000320193-26-000006) = 14,702,703,000
    assert.equal(q1?.shares, 14_702_703_000);
  });

  it("ignores the filing's fy/fp tags: a 10-Q tagged fp FY with the wrong fy gives the same report", () => {
    // Edge case made from the real document: the Q1 FY2026 10-Q's facts re-tagged fy 2025, fp FY.
    const body = real('companyfacts_CIK0000320193_AAPL.json.gz') as { facts: Record<string, Record<string, { units: Record<string, { accn: string; fy: number; fp: string }[]> }>> };
    for (const taxonomy of Object.values(body.facts)) {
      for (const concept of Object.values(taxonomy)) {
        for (const list of Object.values(concept.units)) {
          for (const f of list) if (f.accn === '0000320193-26-000006') Object.assign(f, { fy: 2025, fp: 'FY' });
        }
      }
    }
    const retagged = parseCompanyFacts(body, 'AAPL')!;
    assert.deepEqual(retagged.reports, apple.reports);
  });

  it('Apple dividends per share declared: year to date, restated to the latest share basis, and their TTM', () => {
    // us-gaap:CommonStockDividendsPerShareDeclared (USD/shares), the fact of each filing whose duration is its year to date:
    // 10-K 0000320193-25-000079 (filed 2025-10-31) 2024-09-29..2025-09-27 = 1.02;
    // 10-Q 0000320193-25-000008 (filed 2025-01-31) 2024-09-29..2024-12-28 = 0.25;
    // 10-Q 0000320193-26-000006 (filed 2026-01-30) 2025-09-28..2025-12-27 = 0.26 (the 10-Qs also carry the three months
    // alone; for Q1 they are the same period).
    const dps = (fy: number, q: number) => at(apple.reports, fy, q).map((r) => r.dividendPerShare);
    assert.deepEqual([dps(2025, 4), dps(2025, 1), dps(2026, 1)], [[1.02], [0.25], [0.26]]);
    // 10-K 0000320193-19-000119 (filed 2019-10-31) 2018-09-30..2019-09-28 = 3 (before the 4-for-1 split first filed on
    // 2020-10-30, `splits`): 3 / 4 = 0.75 on the latest basis, as the shares are multiplied.
    assert.deepEqual(dps(2019, 4), [0.75]);
    // TTM at 2026Q1 = Q1 FY2026 + FY2025 - Q1 FY2025 = 0.26 + 1.02 - 0.25 = 1.03.
    const ttm = ttmAsOf(apple.reports, '2026-02-01').current.ttm;
    assert.equal(ttm?.referenceQuarter, '2026Q1');
    assert.equal(ttm?.dividendPerShare, 0.26 + 1.02 - 0.25);
    // Tesla tags no dividends: unknown (null), never 0. US filings carry no basic EPS in the model (the US EPS divides by shares).
    assert.ok(tesla.reports.every((r) => r.dividendPerShare === null && r.basicEps === null));
  });
});

describe('SEC debt components (edge cases, hand-made balances)', () => {
  const of = (facts: Record<string, number>) => debtOf((concepts) => concepts.map((c) => facts[c]).find((v) => v !== undefined) ?? null);

  it('a component not filed is absent, not 0; no debt concept at all is unknown', () => {
    assert.equal(of({}), null);
    assert.equal(of({ LongTermDebtNoncurrent: 500 }), 500);
    assert.equal(of({ ShortTermBorrowings: 20, LongTermDebtCurrent: 30, LongTermDebtNoncurrent: 500 }), 550);
  });

  it('a 0 beside debt filed under a concept not summed is unknown, not 0', () => {
    // ShortTermBorrowings 0 and the real debt only as ConvertibleNotesPayable 1,150: not a debt of 0.
    assert.equal(of({ ShortTermBorrowings: 0, ConvertibleNotesPayable: 1_150 }), null);
    assert.equal(of({ ShortTermBorrowings: 0 }), 0);
  });

  it('LongTermDebt is a total when its current part is filed beside it', () => {
    // Apple files LongTermDebt (total term debt) beside LongTermDebtCurrent: 88,500 - 11,827 + 11,827 + CP 1,997.
    assert.equal(of({ LongTermDebt: 88_500, LongTermDebtCurrent: 11_827, CommercialPaper: 1_997 }), 90_497);
    assert.equal(of({ ConvertibleDebtNoncurrent: 700, ConvertibleDebtCurrent: 40 }), 740);
  });
});

describe('SEC submissions on real answers', () => {
  const plain = (name: string): unknown => JSON.parse(readFileSync(new URL(`../fixtures/real/sec/${name}`, import.meta.url), 'utf8'));

  it('reads exchange, the SIC code\'s sector and year end, and an empty or non-industry SIC as Unclassified', () => {
    // Siemens Energy AG/ADR: exchanges ["OTC"], sic "", fiscalYearEnd "1231"
    assert.deepEqual(parseSubmissions(plain('submissions_CIK0001830056_SiemensEnergyADR.json')), { exchange: 'OTC', sector: 'Unclassified', fiscalYearEndMonth: 12 });
    // SIEMENS AG (an investor filer): no exchange at all, sic "8880" (American Depositary Receipts: no industry)
    assert.deepEqual(parseSubmissions(plain('submissions_CIK0000940418_SiemensAG.json')), { exchange: '', sector: 'Unclassified', fiscalYearEndMonth: 12 });
    // Apple: exchanges ["Nasdaq"], sic "3571" (Electronic Computers), fiscalYearEnd "0927", and
    // formerNames (as recorded): APPLE INC 2007-01-10..2019-08-05, APPLE COMPUTER INC
    // 1994-01-26..2007-01-04, APPLE COMPUTER INC/ FA 1997-07-28..1997-07-28. By first day: APPLE
    // COMPUTER INC until the next name's first day (the /FA one has an empty span and is left
    // out), so until 2007-01-10; APPLE INC until its own `to`, 2019-08-05, when "Apple Inc." took over.
    assert.deepEqual(parseSubmissions(real('submissions_CIK0000320193_AAPL.json.gz')), {
      exchange: 'NASDAQ',
      sector: 'Hardware',
      fiscalYearEndMonth: 9,
      formerNames: [
        { name: 'APPLE COMPUTER INC', from: '1994-01-26', until: '2007-01-10' },
        { name: 'APPLE INC', from: '2007-01-10', until: '2019-08-05' },
      ],
    });
    // Marvell: exchanges ["Nasdaq"], sic "3674" (Semiconductors & Related Devices)
    assert.equal(parseSubmissions(real('submissions_CIK0001835632_MRVL.json.gz'))?.sector, 'Semiconductors');
  });
});

describe('SEC sectors of a real quarter of filers', () => {
  // sub.txt of the Financial Statement Data Sets 2009 Q3 (test/fixtures/real/bulk/sec_fsds, PROVENANCE.md):
  // one row per filing with the filer's `cik`, `name` and `sic` as EDGAR held them.
  const filers = async (): Promise<Map<string, { name: string; sic: string }>> => {
    const zip = new URL('../fixtures/real/bulk/sec_fsds/sec_fsds_2009q3_build20241122_segments-format.zip', import.meta.url).pathname;
    for await (const member of zipMembers(zip)) {
      if (member.name !== 'sub.txt') continue;
      const [head, ...rows] = (await member.bytes()).toString('utf8').trim().split('\n').map((line) => line.split('\t'));
      const col = (name: string): number => (head ?? []).indexOf(name);
      return new Map(rows.map((r) => [r[col('cik')] ?? '', { name: r[col('name')] ?? '', sic: r[col('sic')] ?? '' }]));
    }
    throw new Error('no sub.txt');
  };

  it('places known companies by the SIC code EDGAR gives them', async () => {
    const sicOf = new Map([...(await filers()).values()].map((f) => [f.name, f.sic]));
    const cases: [string, string, string][] = [
      ['APPLE INC', '3571', 'Hardware'],
      ['NVIDIA CORP', '3674', 'Semiconductors'],
      ['PFIZER INC', '2834', 'Pharmaceuticals'],
      ['AMGEN INC', '2836', 'Biotech'],
      ['EXXON MOBIL CORP', '2911', 'Energy'],
      ['WAL MART STORES INC', '5331', 'Retail'],
      ['MCDONALDS CORP', '5812', 'Restaurants'],
      ['BOEING CO', '3721', 'Aerospace & Defense'],
      ['MEDTRONIC INC', '3845', 'Medical Devices'],
      ['AT&T INC.', '4813', 'Telecom'],
      ['FPL GROUP INC', '4911', 'Utilities'], // NextEra Energy's name in 2009
      ['GOOGLE INC.', '7370', 'Internet'], // Alphabet's
    ];
    for (const [name, sic, sector] of cases) {
      assert.equal(sicOf.get(name), sic, name);
      assert.equal(sectorOfSic(sic), sector, name);
    }
  });

  it('turns the quarter\'s 166 SIC codes into 40 sectors, leaving only insurance brokers unplaced', async () => {
    const all = [...(await filers()).values()];
    const count = new Map<string, number>();
    for (const f of all) count.set(sectorOfSic(f.sic), (count.get(sectorOfSic(f.sic)) ?? 0) + 1);
    assert.equal(all.length, 430);
    assert.equal(new Set(all.map((f) => f.sic)).size, 166);
    assert.equal(count.size, 40);
    // The three Unclassified filers are insurance agents and brokers (6411).
    assert.deepEqual(all.filter((f) => sectorOfSic(f.sic) === 'Unclassified').map((f) => f.sic), ['6411', '6411', '6411']);
    // The largest cohorts.
    assert.deepEqual([...count].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 4), [['Energy', 54], ['Utilities', 38], ['Retail', 23], ['Banks', 19]]);
  });
});
