import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { FINANCIAL_SECTORS } from '../../src/domain/financials.js';
import type { FinancialReport } from '../../src/domain/model.js';
import { parseCompanyFacts, parseCompanyTickers, parseDailyFormIndex, parseSubmissions } from '../../src/sources/sec/parse.js';
import { SecSource } from '../../src/sources/sec/source.js';
import { SIC_SECTORS, sectorOfSic } from '../../src/sources/sec/sectors.js';
import { MARKET_SECTORS } from '../../src/sources/demo/sectors.js';
import { context, fixture, fixtureJson, loopback } from './helpers.js';

const M = 1_000_000;
const base = { market: 'US' as const, consolidated: true, source: 'sec', interestExpense: null, basicEps: null, dividendPerShare: null };
// Apple's fiscal year ends on the last Saturday of September: FY2024 = 2023-10-01 .. 2024-09-28.
const AAPL_9M_FY2024: FinancialReport = {
  ...base, code: 'AAPL', fiscalYear: 2024, fiscalQuarter: 3, periodEnd: '2024-06-29', disclosedOn: '2024-08-02',
  // The 10-Q also tags the 3-month figure (85,777) and the prior year's 9 months (293,787) with fy=2024 fp=Q3;
  // year-to-date is the fact running from the fiscal-year start 2023-10-01.
  revenue: 296_105 * M, costOfSales: 158_181 * M, operatingIncome: 94_426 * M, netIncome: 79_000 * M,
  operatingCashFlow: 91_443 * M, capex: 6_539 * M,
  totalAssets: 331_612 * M, currentAssets: 125_435 * M, totalLiabilities: 264_904 * M, currentLiabilities: 131_624 * M,
  equity: 66_708 * M, cash: 25_565 * M,
  // LongTermDebtNoncurrent 86,196 + LongTermDebtCurrent 12,578 + CommercialPaper 2,994
  debt: 101_768 * M,
  receivables: 22_795 * M, inventory: 6_165 * M, payables: 47_574 * M,
  // Cover page of the 10-Q, dated 2024-07-19.
  shares: 15_222_259_000,
};
const AAPL_FY2024: FinancialReport = {
  ...base, code: 'AAPL', fiscalYear: 2024, fiscalQuarter: 4, periodEnd: '2024-09-28', disclosedOn: '2024-11-01',
  revenue: 391_035 * M, costOfSales: 210_352 * M, operatingIncome: 123_216 * M, netIncome: 93_736 * M,
  operatingCashFlow: 118_254 * M, capex: 9_447 * M,
  totalAssets: 364_980 * M, currentAssets: 152_987 * M, totalLiabilities: 308_030 * M, currentLiabilities: 176_392 * M,
  equity: 56_950 * M, cash: 29_943 * M,
  debt: 106_629 * M, // 85,750 + 10,912 + 9,967
  receivables: 33_410 * M, inventory: 7_286 * M, payables: 68_960 * M, shares: 15_115_823_000,
};

const nulls = {
  costOfSales: null, operatingIncome: null, operatingCashFlow: null, capex: null, currentAssets: null,
  totalLiabilities: null, currentLiabilities: null, equity: null, cash: null, receivables: null, inventory: null, payables: null,
};

describe('SEC parsers', () => {
  it('submissions: the SIC code gives the sector, by longest prefix', () => {
    // Bodies shaped as EDGAR's submissions JSON (sic and sicDescription as EDGAR spells them), constructed here.
    const placed = (sic: string, sicDescription: string) => parseSubmissions({ sic, sicDescription, exchanges: ['NYSE'], fiscalYearEnd: '1231' })?.sector;
    assert.deepEqual(
      [
        placed('6021', 'National Commercial Banks'),
        placed('6035', 'Savings Institution, Federally Chartered'),
        placed('6141', 'Personal Credit Institutions'),
        placed('6211', 'Security Brokers, Dealers & Flotation Companies'),
        placed('6282', 'Investment Advice'),
        placed('6331', 'Fire, Marine & Casualty Insurance'),
        placed('6311', 'Life Insurance'),
        placed('6726', 'Unit Inv Trust, Closed-End Mgmt Inv Offices'),
      ],
      ['Banks', 'Banks', 'Other Financials', 'Securities', 'Asset Management', 'Insurance', 'Insurance', 'Asset Management'],
    );
    // Not financial companies by their statements: health plans (Health Care Services), real estate,
    // REITs; insurance brokers and blank checks have no sector of their own (as KSIC 662 brokers).
    assert.deepEqual(
      [placed('6324', 'Hospital & Medical Service Plans'), placed('6510', 'Real Estate Operators (No Developers) & Lessors'), placed('6798', 'Real Estate Investment Trusts'), placed('6411', 'Insurance Agents, Brokers & Service'), placed('6770', 'Blank Checks'), placed('', '')],
      ['Health Care Services', 'Real Estate', 'REITs', 'Unclassified', 'Unclassified', 'Unclassified'],
    );
  });

  it('SIC codes of known companies give the sectors a reader expects', () => {
    // SIC codes as EDGAR gives them: Apple 3571, Nvidia 3674, Pfizer 2834, Amgen 2836, Exxon 2911,
    // Walmart 5331, McDonald's 5812, Boeing 3721, Medtronic Inc 3845, AT&T 4813, NextEra (FPL Group)
    // 4911, Alphabet (Google Inc.) 7370 are checked against the recorded 2009 Q3 sub.txt in
    // sec-real.test.ts; Microsoft 7372, Tesla 3711, JPMorgan 6021 and Medtronic plc 3841 (not in
    // the recorded data) are those EDGAR's company pages list.
    const cases: [string, string, string][] = [
      ['Apple', '3571', 'Hardware'],
      ['Microsoft', '7372', 'Software'],
      ['Nvidia', '3674', 'Semiconductors'],
      ['Tesla', '3711', 'Automobiles'],
      ['Pfizer', '2834', 'Pharmaceuticals'],
      ['Amgen', '2836', 'Biotech'],
      ['JPMorgan', '6021', 'Banks'],
      ['Exxon', '2911', 'Energy'],
      ['Walmart', '5331', 'Retail'],
      ["McDonald's", '5812', 'Restaurants'],
      ['Boeing', '3721', 'Aerospace & Defense'],
      ['Medtronic plc', '3841', 'Medical Devices'],
      ['Medtronic Inc', '3845', 'Medical Devices'],
      ['AT&T', '4813', 'Telecom'],
      ['NextEra', '4911', 'Utilities'],
      ['Alphabet', '7370', 'Internet'],
    ];
    for (const [company, sic, sector] of cases) assert.equal(sectorOfSic(sic), sector, `${company} ${sic}`);
  });

  it('SIC codes: the longest prefix wins, anything else is Unclassified', () => {
    const cases: [string, string][] = [
      ['3672', 'Electronic Components'], // printed circuit boards: 367
      ['3621', 'Machinery'], // motors and generators: 36
      ['3663', 'Hardware'], // communications equipment: 366
      ['3714', 'Auto Parts'], // 3714 beats 371 (Automobiles)
      ['3713', 'Automobiles'], // truck and bus bodies: 371
      ['3760', 'Aerospace & Defense'], // guided missiles: 376
      ['3826', 'Medical Devices'], // laboratory analytical instruments: 3826 beats 382
      ['3823', 'Electronic Components'], // industrial instruments: 382
      ['2844', 'Cosmetics'], // 2844 beats 284 (Household Products)
      ['2840', 'Household Products'],
      ['2835', 'Pharmaceuticals'], // diagnostics: 283
      ['2821', 'Chemicals'], // 28
      ['3011', 'Auto Parts'], // tyres: 301 beats 30 (Chemicals)
      ['3021', 'Textiles & Apparel'], // rubber and plastics footwear: 302
      ['1311', 'Energy'],
      ['1040', 'Materials'], // gold and silver ores
      ['3533', 'Energy'], // oil and gas field machinery beats 35
      ['3531', 'Machinery'],
      ['4841', 'Media & Entertainment'], // cable and pay TV: 484 beats 48 (Telecom)
      ['4812', 'Telecom'],
      ['4953', 'Industrials'], // refuse systems: 495 beats 49 (Utilities)
      ['5122', 'Health Care Services'], // drug wholesalers beat 51 (Wholesale)
      ['5045', 'Wholesale'],
      ['5961', 'Retail'], // catalog and mail-order houses
      ['7374', 'Software'], // computer processing and data preparation: 737
      ['7389', 'Industrials'], // business services n.e.c.: 73
      ['7311', 'Media & Entertainment'], // advertising agencies: 731
      ['7841', 'Media & Entertainment'], // video tape rental: 78
      ['8731', 'Biotech'], // commercial physical and biological research beats 87 (Industrials)
      ['8062', 'Health Care Services'],
      ['6792', 'Energy'], // oil royalty traders
      ['100', 'Food & Beverage'], // 0100 without its leading zero
      ['0100', 'Food & Beverage'],
      ['8880', 'Unclassified'], // American Depositary Receipts
      ['9995', 'Unclassified'], // non-operating establishments
      ['6799', 'Unclassified'], // investors n.e.c.
      [' 3571 ', 'Hardware'],
      ['35', 'Unclassified'],
      ['35711', 'Unclassified'],
      ['abcd', 'Unclassified'],
      ['', 'Unclassified'],
    ];
    for (const [sic, sector] of cases) assert.equal(sectorOfSic(sic), sector, sic);
  });

  it('SIC codes give the demo\'s US sector names, the financial sectors and a few sectors of their own', () => {
    const names = new Set([
      ...MARKET_SECTORS.US.map((x) => x.name),
      ...FINANCIAL_SECTORS,
      // KR sector names where the US list has none (tyres and parts, components, cosmetics, apparel, ships)
      'Auto Parts', 'Electronic Components', 'Cosmetics', 'Textiles & Apparel', 'Shipbuilding',
      // Sectors the demo does not generate
      'Materials', 'Consumer Products', 'Consumer Services', 'Wholesale', 'Real Estate', 'Industrials',
    ]);
    for (const [prefix, sector] of Object.entries(SIC_SECTORS)) assert.ok(names.has(sector), `${prefix} -> ${sector}`);
  });

  it('docs/sources.md prints the SIC table the code holds, row for row', () => {
    const docs = readFileSync(new URL('../../docs/sources.md', import.meta.url), 'utf8');
    const start = docs.indexOf('| SIC prefix | Industry | Sector |');
    assert.ok(start >= 0, 'the SIC table in docs/sources.md');
    const lines = docs.slice(start).split('\n').slice(2).map((line) => line.trim());
    const rows = lines.slice(0, lines.findIndex((line) => !line.startsWith('|')));
    const documented: [string, string][] = rows.flatMap((row) => {
      const cells = row.split('|').map((c) => c.trim());
      const sector = cells[3] ?? '';
      return (cells[1] ?? '').split(',').map((p): [string, string] => [p.trim(), sector]);
    });
    assert.deepEqual(documented.sort(), Object.entries(SIC_SECTORS).sort());
  });

  it('company_tickers.json: class tickers use a dot', () => {
    assert.deepEqual(parseCompanyTickers(fixtureJson('sec/company_tickers.json'))?.map((t) => [t.cik, t.ticker]), [
      [320193, 'AAPL'], [789019, 'MSFT'], [1067983, 'BRK.B'], [1751788, 'DOW'],
    ]);
  });

  it('companyfacts with a September fiscal year: one report per 10-Q/10-K, YTD flows, comparatives ignored', () => {
    const parsed = parseCompanyFacts(fixtureJson('sec/companyfacts_CIK0000320193.json'), 'AAPL');
    assert.ok(parsed);
    assert.deepEqual(parsed.reports, [AAPL_9M_FY2024, AAPL_FY2024]);
    assert.equal(parsed.fiscalYearEndMonth, 9);
    // Discrete fiscal Q4 2024 net income = FY 93,736 - 9M 79,000 = 14,736 ($ million)
    assert.equal((AAPL_FY2024.netIncome ?? 0) - (AAPL_9M_FY2024.netIncome ?? 0), 14_736 * M);
  });

  it('an amended 10-K becomes a correction with its own filed date', () => {
    const parsed = parseCompanyFacts(fixtureJson('sec/companyfacts_CIK0001751788.json'), 'DOW');
    assert.ok(parsed);
    const common = { ...base, ...nulls, code: 'DOW', fiscalYear: 2023 };
    assert.deepEqual(parsed.reports, [
      { ...common, fiscalQuarter: 3, periodEnd: '2023-09-30', disclosedOn: '2023-11-02', revenue: 6_300 * M, netIncome: 700 * M, totalAssets: null, debt: null, shares: null },
      // LongTermDebt 3,000 + ShortTermBorrowings 250
      { ...common, fiscalQuarter: 4, periodEnd: '2023-12-31', disclosedOn: '2024-02-20', revenue: 8_600 * M, netIncome: 910 * M, totalAssets: 15_000 * M, debt: 3_250 * M, shares: 412_000_000 },
      { ...common, fiscalQuarter: 4, periodEnd: '2023-12-31', disclosedOn: '2024-05-10', revenue: 8_600 * M, netIncome: 880 * M, totalAssets: 15_000 * M, debt: 3_250 * M, shares: null },
    ]);
  });

  it('dividends per share: year to date, per ADS for an ADS ticker (hand-made facts)', () => {
    // Constructed: one 20-F in USD for FY2024 (2024-01-01..2024-12-31, filed 2025-04-30) with Revenues 1,000 and
    // CommonStockDividendsPerShareDeclared 0.5 per ordinary share; the cover page says 80 ordinary shares.
    const fact = (val: number) => ({ start: '2024-01-01', end: '2024-12-31', val, accn: '0000000001-25-000001', fy: 2024, fp: 'FY', form: '20-F', filed: '2025-04-30' });
    const doc = {
      entityName: 'Made Up Holdings',
      facts: {
        dei: { EntityCommonStockSharesOutstanding: { units: { shares: [{ end: '2025-03-31', val: 80, accn: '0000000001-25-000001', fy: 2024, fp: 'FY', form: '20-F', filed: '2025-04-30' }] } } },
        'us-gaap': {
          Revenues: { units: { USD: [fact(1_000)] } },
          CommonStockDividendsPerShareDeclared: { units: { 'USD/shares': [fact(0.5)] } },
        },
      },
    };
    // As an ordinary-share ticker: 0.5 a share, 80 shares.
    assert.deepEqual(parseCompanyFacts(doc, 'MADE')?.reports.map((r) => [r.dividendPerShare, r.shares]), [[0.5, 80]]);
    // As BABA, whose ADS represents 8 ordinary shares (src/domain/ads.ts): 0.5 x 8 = 4 an ADS, 80 / 8 = 10 ADSs.
    assert.deepEqual(parseCompanyFacts(doc, 'BABA')?.reports.map((r) => [r.dividendPerShare, r.shares]), [[4, 10]]);
  });

  it('a 16/12/12/12-week retail year: 111, 195 and 279 days to date are Q1, Q2, Q3 (hand-made facts)', () => {
    // Constructed: a year from 2024-02-04 to 2025-02-01 (363 days), a 16-week first quarter to 2024-05-25 (111 days), then
    // 12-week quarters to 2024-08-17 (195 days to date), 2024-11-09 (279) and 2025-02-01. Revenues to date 100, 175, 250,
    // 325; the Q2 and Q3 10-Qs also tag the 12-week quarter alone (75), which must not name the quarter.
    const start = '2024-02-04';
    const filing = (n: number, end: string, form: string, filed: string, ytd: number) => {
      const accn = `0000000002-24-00000${n}`;
      const rows = [{ start, end, val: ytd, accn, fy: 2024, fp: form === '10-K' ? 'FY' : `Q${n}`, form, filed }];
      if (n === 2 || n === 3) rows.push({ ...rows[0]!, start: n === 2 ? '2024-05-26' : '2024-08-18', val: 75 });
      return rows;
    };
    const doc = {
      entityName: 'Made Up Grocers',
      facts: {
        'us-gaap': {
          Revenues: {
            units: {
              USD: [
                ...filing(1, '2024-05-25', '10-Q', '2024-06-20', 100),
                ...filing(2, '2024-08-17', '10-Q', '2024-09-12', 175),
                ...filing(3, '2024-11-09', '10-Q', '2024-12-05', 250),
                ...filing(4, '2025-02-01', '10-K', '2025-04-01', 325),
              ],
            },
          },
        },
      },
    };
    // The year ends in February 2025 (an end in a month's first week counts for January): FY2025.
    assert.deepEqual(parseCompanyFacts(doc, 'MADE')?.reports.map((r) => [r.fiscalYear, r.fiscalQuarter, r.periodEnd, r.revenue]), [
      [2025, 1, '2024-05-25', 100],
      [2025, 2, '2024-08-17', 175],
      [2025, 3, '2024-11-09', 250],
      [2025, 4, '2025-02-01', 325],
    ]);
  });

  it('daily form index: periodic filers only, names with double spaces', () => {
    assert.deepEqual(parseDailyFormIndex(fixture('sec/form.20241101.idx')), [320193, 789019, 1234567]);
  });

  it('submissions: exchange, sector of the SIC code, fiscal year end', () => {
    // sic "3571" (Electronic Computers): Hardware.
    assert.deepEqual(parseSubmissions(fixtureJson('sec/submissions_CIK0000320193.json')), {
      exchange: 'NASDAQ', sector: 'Hardware', fiscalYearEndMonth: 9,
    });
  });
});

describe('SecSource against recorded responses', () => {
  it('incremental run: daily index -> companyfacts for filers only, with the configured User-Agent', async () => {
    const server = await loopback((req) => {
      assert.equal(req.headers['user-agent'], 'Example Research admin@example.com');
      const p = req.url.pathname;
      if (p === '/files/company_tickers.json') return { body: fixture('sec/company_tickers.json') };
      if (p === '/Archives/edgar/daily-index/2024/QTR4/form.20241101.idx') return { body: fixture('sec/form.20241101.idx') };
      if (p === '/api/xbrl/companyfacts/CIK0000320193.json') return { body: fixture('sec/companyfacts_CIK0000320193.json') };
      if (p === '/submissions/CIK0000320193.json') return { body: fixture('sec/submissions_CIK0000320193.json') };
      return { status: 404, body: 'Not Found' };
    });
    try {
      const source = new SecSource({ userAgent: 'Example Research admin@example.com', dataBaseUrl: server.base, wwwBaseUrl: server.base, requestsPerSecond: 10 });
      const result = await source.ingest(context({ asOf: '2024-11-01', cursor: '2024-10-31' }));
      assert.deepEqual(result.data.reports, [AAPL_9M_FY2024, AAPL_FY2024]);
      assert.deepEqual(result.data.securities, [
        { market: 'US', code: 'AAPL', name: 'Apple Inc.', exchange: 'NASDAQ', sector: 'Hardware', currency: 'USD', fiscalYearEndMonth: 9, source: 'sec' },
      ]);
      assert.equal(result.cursor, '2024-11-01');
      assert.deepEqual(result.skipped, { 'company without XBRL financials (companyfacts 404)': 1 });
      const paths = server.requests.map((r) => r.url.pathname);
      assert.ok(!paths.some((p) => p.includes('CIK0001067983')), 'Berkshire only filed an 8-K');
      assert.ok(paths.includes('/api/xbrl/companyfacts/CIK0000789019.json'));
    } finally {
      await server.close();
    }
  });

  it('a foreign private issuer filing us-gaap facts in USD on 20-F reads exactly as a 10-K filer does', async () => {
    // Edge case made from the hand-written DOW document: every fact re-tagged as filed on a 20-F.
    const domestic = fixtureJson('sec/companyfacts_CIK0001751788.json');
    const foreign = fixtureJson('sec/companyfacts_CIK0001751788.json') as { facts: Record<string, Record<string, { units: Record<string, { form: string }[]> }>> };
    for (const taxonomy of Object.values(foreign.facts)) for (const c of Object.values(taxonomy)) for (const l of Object.values(c.units)) for (const f of l) f.form = '20-F';
    const server = await loopback((req) => {
      const p = req.url.pathname;
      if (p === '/files/company_tickers.json') return { body: fixture('sec/company_tickers.json') };
      if (p === '/api/xbrl/companyfacts/CIK0001751788.json') return { body: JSON.stringify(foreign) };
      return { status: 404, body: 'Not Found' };
    });
    try {
      const source = new SecSource({ userAgent: 'Example Research admin@example.com', dataBaseUrl: server.base, wwwBaseUrl: server.base, requestsPerSecond: 10, tickers: ['DOW'] });
      const result = await source.ingest(context({ asOf: '2024-11-01', cursor: null }));
      assert.deepEqual(result.data.securities?.map((s) => [s.code, s.currency]), [['DOW', 'USD']]);
      const expected = parseCompanyFacts(domestic, 'DOW');
      assert.ok(expected && expected.reports.length > 0 && !expected.foreignPrivateIssuer);
      assert.deepEqual(result.data.reports, expected.reports);
      assert.equal(parseCompanyFacts(foreign, 'DOW')?.foreignPrivateIssuer, true);
    } finally {
      await server.close();
    }
  });

  it('daily form index: foreign private issuers\' periodic forms (20-F, 40-F, 6-K) are periodic filings too', () => {
    // Made here: the index layout of form.20241101.idx with a 20-F, a 40-F, a 6-K and a form that is not periodic.
    const text = [
      'Form Type   Company Name                                                  CIK         Date Filed  File Name',
      '-'.repeat(141),
      '20-F        TAIWAN SEMICONDUCTOR MANUFACTURING CO LTD                     1046179     20210416    edgar/data/1046179/0001193125-21-118512.txt',
      '40-F        SOME CANADIAN CO                                              2000001     20210416    edgar/data/2000001/0002000001-21-000001.txt',
      '6-K         GLOBUS MARITIME LTD                                           1499780     20210416    edgar/data/1499780/0001104659-21-000002.txt',
      'F-6         SOME DEPOSITARY                                               2000002     20210416    edgar/data/2000002/0002000002-21-000003.txt',
    ].join('\n');
    assert.deepEqual(parseDailyFormIndex(text), [1046179, 1499780, 2000001]);
  });
});
