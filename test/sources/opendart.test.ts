import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import iconv from 'iconv-lite';
import type { FinancialReport, Security } from '../../src/domain/model.js';
import { SourceHttpError } from '../../src/sources/http.js';
import {
  parseCompany,
  parseCorpCodeXml,
  parseDartEnvelope,
  parseFinancialStatements,
  parsePeriodicFiling,
  type DartEnvelope,
} from '../../src/sources/opendart/parse.js';
import { KSIC_SECTORS, sectorByDeposits, sectorForKsic } from '../../src/sources/opendart/sectors.js';
import { OpenDartSource, readCursor } from '../../src/sources/opendart/source.js';
import { MARKET_SECTORS } from '../../src/sources/demo/sectors.js';
import { readFirstZipEntry } from '../../src/sources/opendart/zip.js';
import { ZipReadError } from '../../src/sources/shared/zip-stream.js';
import { context, fixture, fixtureJson, loopback, overlappingZip, zipOne } from './helpers.js';

const env = (path: string): DartEnvelope => {
  const e = parseDartEnvelope(fixtureJson(path));
  assert.ok(e);
  return e;
};

const SAMSUNG_9M_2023: FinancialReport = {
  market: 'KR', code: '005930', fiscalYear: 2023, fiscalQuarter: 3, periodEnd: '2023-09-30', disclosedOn: '2023-11-14',
  consolidated: true,
  // Income statement: thstrm_add_amount (9 months), not the 3-month thstrm_amount.
  revenue: 191_161_358_000_000, costOfSales: 136_055_478_000_000, operatingIncome: 3_742_259_000_000,
  netIncome: 8_222_651_000_000,
  // Cash flow: thstrm_amount is already cumulative; the PP&E purchase outflow is filed negative.
  operatingCashFlow: 26_898_616_000_000, capex: 40_589_924_000_000, interestExpense: null,
  totalAssets: 454_338_349_000_000, currentAssets: 202_109_458_000_000, totalLiabilities: 91_950_009_000_000,
  currentLiabilities: 76_153_263_000_000, equity: 352_160_063_000_000, cash: 81_363_839_000_000,
  debt: 7_695_395_000_000, receivables: 41_008_234_000_000, inventory: 55_255_619_000_000, payables: 12_143_012_000_000,
  shares: null, basicEps: null, dividendPerShare: null, source: 'opendart',
};

const SAMSUNG_FY_2023: FinancialReport = {
  market: 'KR', code: '005930', fiscalYear: 2023, fiscalQuarter: 4, periodEnd: '2023-12-31', disclosedOn: '2024-03-12',
  consolidated: true,
  revenue: 258_935_494_000_000, costOfSales: 180_388_580_000_000, operatingIncome: 6_566_976_000_000,
  netIncome: 14_473_401_000_000, operatingCashFlow: 44_137_427_000_000, capex: 57_611_271_000_000,
  // No interest line in the income statement: the cash-flow statement's 이자의 지급 (-930,138m, an outflow).
  interestExpense: 930_138_000_000,
  totalAssets: 455_905_980_000_000, currentAssets: 195_936_557_000_000, totalLiabilities: 92_228_115_000_000,
  currentLiabilities: 75_719_452_000_000, equity: 353_233_775_000_000, cash: 69_080_893_000_000,
  // 단기차입금 7,114,601 + 유동성장기부채 1,308,875 + 사채 537,618 + 장기차입금 3,724,850 (KRW million)
  debt: 12_685_944_000_000,
  receivables: 36_647_393_000_000, inventory: 51_625_874_000_000, payables: 11_319_824_000_000,
  shares: null, basicEps: null, dividendPerShare: null, source: 'opendart',
};

const KOGAS_H1_2024_OFS: FinancialReport = {
  market: 'KR', code: '036460', fiscalYear: 2024, fiscalQuarter: 2, periodEnd: '2024-06-30', disclosedOn: '2024-08-14',
  consolidated: false,
  revenue: 101_234_567_890, costOfSales: null,
  // Filed without a standard account_id ("-표준계정코드 미사용-"): matched by its label 영업이익.
  operatingIncome: 6_543_210_987,
  // Separate statements: profit for the period (반기순이익), there is no controlling split.
  netIncome: 4_567_890_123,
  operatingCashFlow: 8_765_432_109, capex: null, interestExpense: null,
  totalAssets: 250_987_654_321, currentAssets: 98_123_456_789, totalLiabilities: 61_222_333_444,
  currentLiabilities: 40_111_222_333, equity: 189_765_320_877, cash: null, debt: null, receivables: null,
  // '-' is "not reported": null, never 0.
  inventory: null, payables: null, shares: null, basicEps: null, dividendPerShare: null, source: 'opendart',
};

// company.json for 삼성전자: induty_code 264 (통신 및 방송 장비 제조업) falls under 26.
const SAMSUNG_SECURITY: Security = {
  market: 'KR', code: '005930', name: '삼성전자', nameEn: 'SAMSUNG ELECTRONICS CO,.LTD', exchange: 'KOSPI', sector: 'Electronic Components',
  currency: 'KRW', fiscalYearEndMonth: 12, source: 'opendart',
};

/** company.json answers: 삼성전자 recorded, 한국가스공사 status 013. */
const companyReply = (corpCode: string | null): { body: string } =>
  ({ body: fixture(corpCode === '00126380' ? 'opendart/company_00126380.json' : 'opendart/company_status_013.json') });

describe('OpenDART parsers', () => {
  it('keeps listed companies from corpCode.xml (stock_code blank or a space = unlisted)', () => {
    assert.deepEqual(parseCorpCodeXml(fixture('opendart/CORPCODE.xml')), [
      { corpCode: '00126380', corpName: '삼성전자', corpNameEn: 'SAMSUNG ELECTRONICS CO,.LTD', stockCode: '005930', modifyDate: '2024-06-21' },
      { corpCode: '00113526', corpName: '한국가스공사', corpNameEn: 'KOREA GAS CORPORATION', stockCode: '036460', modifyDate: '2024-07-02' },
    ]);
  });

  it('reads corpCode.xml out of its ZIP', async () => {
    const entry = await readFirstZipEntry(zipOne('CORPCODE.xml', fixture('opendart/CORPCODE.xml')));
    assert.equal(entry.name, 'CORPCODE.xml');
    assert.equal(new TextDecoder().decode(entry.data), fixture('opendart/CORPCODE.xml'));
  });

  it('reads a ZIP written by a streaming writer (data descriptor, zero sizes in the local header), deflated or stored', async () => {
    for (const layout of [{ dataDescriptor: true }, { dataDescriptor: true, method: 0 as const }, { method: 0 as const }]) {
      const entry = await readFirstZipEntry(zipOne('CORPCODE.xml', fixture('opendart/CORPCODE.xml'), layout));
      assert.equal(entry.name, 'CORPCODE.xml');
      assert.equal(new TextDecoder().decode(entry.data), fixture('opendart/CORPCODE.xml'));
    }
  });

  it('refuses a body that is not a ZIP (an error answer), a truncated ZIP, and entries that overlap', async () => {
    const error = '<?xml version="1.0" encoding="UTF-8"?><result><status>010</status><message>등록되지 않은 키입니다.</message></result>';
    await assert.rejects(readFirstZipEntry(new TextEncoder().encode(error)), (err: Error) => err instanceof ZipReadError && err.reason === 'not a ZIP');
    await assert.rejects(readFirstZipEntry(new Uint8Array(0)), (err: Error) => err instanceof ZipReadError && err.reason === 'not a ZIP');
    const zip = zipOne('CORPCODE.xml', fixture('opendart/CORPCODE.xml'));
    await assert.rejects(readFirstZipEntry(zip.subarray(0, zip.length - 30)), (err: Error) => err instanceof ZipReadError && err.reason === 'truncated or corrupt ZIP');
    await assert.rejects(readFirstZipEntry(overlappingZip(['CORPCODE.xml', 'COPY.xml'], new Uint8Array(1000))), (err: Error) => err instanceof ZipReadError && err.reason === 'overlapping members');
  });

  it('refuses a corpCode.xml that is not well-formed (a truncated document is not a shorter list)', () => {
    const xml = fixture('opendart/CORPCODE.xml');
    assert.throws(() => parseCorpCodeXml(xml.slice(0, xml.indexOf('한국가스공사'))));
  });

  it('parses periodic report names, including a correction', () => {
    const list = env('opendart/list_correction.json').list[0];
    assert.ok(list);
    assert.deepEqual(parsePeriodicFiling(list), {
      corpCode: '00126380', stockCode: '005930', corpName: '삼성전자', corpCls: 'Y', rceptNo: '20231201000456', disclosedOn: '2023-12-01',
      fiscalYear: 2023, fiscalQuarter: 3, periodEnd: '2023-09-30', reprtCode: '11014', correction: true,
    });
    assert.equal(parsePeriodicFiling({ report_nm: '주요사항보고서(자기주식취득결정)', rcept_dt: '20231201' }), null);
  });

  it('maps a Q3 report to year-to-date (9 month) flows', () => {
    const ctx = { code: '005930', fiscalYear: 2023, fiscalQuarter: 3 as const, periodEnd: '2023-09-30', fsDiv: 'CFS' as const };
    assert.deepEqual(parseFinancialStatements(env('opendart/fnltt_00126380_2023_11014_CFS.json'), ctx), SAMSUNG_9M_2023);
  });

  it('maps an annual report; discrete Q4 follows from FY minus 9M', () => {
    const fy = parseFinancialStatements(env('opendart/fnltt_00126380_2023_11011_CFS.json'), {
      code: '005930', fiscalYear: 2023, fiscalQuarter: 4, periodEnd: '2023-12-31', fsDiv: 'CFS',
    });
    assert.deepEqual(fy, SAMSUNG_FY_2023);
    // Q4 2023 net income (controlling) = FY 14,473,401 - 9M 8,222,651 = 6,250,750 (KRW million)
    assert.equal((fy?.netIncome ?? 0) - (SAMSUNG_9M_2023.netIncome ?? 0), 6_250_750_000_000);
    // Q4 2023 revenue = 258,935,494 - 191,161,358 = 67,774,136 (KRW million)
    assert.equal((fy?.revenue ?? 0) - (SAMSUNG_9M_2023.revenue ?? 0), 67_774_136_000_000);
  });

  it('turns a correction into a second report with the later disclosure date', () => {
    const ctx = { code: '005930', fiscalYear: 2023, fiscalQuarter: 3 as const, periodEnd: '2023-09-30', fsDiv: 'CFS' as const };
    const corrected = parseFinancialStatements(env('opendart/fnltt_00126380_2023_11014_CFS_correction.json'), ctx);
    assert.deepEqual(corrected, { ...SAMSUNG_9M_2023, disclosedOn: '2023-12-01', netIncome: 8_225_651_000_000 });
  });

  it('maps separate (OFS) statements and gives null for status 013', () => {
    assert.equal(
      parseFinancialStatements(env('opendart/fnltt_status_013.json'), { code: '036460', fiscalYear: 2024, fiscalQuarter: 2, periodEnd: '2024-06-30', fsDiv: 'CFS' }),
      null,
    );
    assert.deepEqual(
      parseFinancialStatements(env('opendart/fnltt_00113526_2024_11012_OFS.json'), { code: '036460', fiscalYear: 2024, fiscalQuarter: 2, periodEnd: '2024-06-30', fsDiv: 'OFS' }),
      KOGAS_H1_2024_OFS,
    );
  });

  it('maps company.json to a Security, sector from induty_code', () => {
    assert.deepEqual(parseCompany(fixtureJson('opendart/company_00126380.json')), SAMSUNG_SECURITY);
    assert.equal(parseCompany(fixtureJson('opendart/company_status_013.json')), null);
    const samsung = fixtureJson('opendart/company_00126380.json') as Record<string, string>;
    // acc_mt gives the fiscal year end; blank falls back to 12; a blank stock_code takes corpCode.xml's.
    assert.deepEqual(parseCompany({ ...samsung, acc_mt: '03', induty_code: '26110', corp_cls: 'K' }), {
      ...SAMSUNG_SECURITY, exchange: 'KOSDAQ', sector: 'Semiconductors', fiscalYearEndMonth: 3,
    });
    assert.equal(parseCompany({ ...samsung, acc_mt: '', stock_code: ' ' }, '005930')?.fiscalYearEndMonth, 12);
    assert.equal(parseCompany({ ...samsung, stock_code: ' ' }), null);
    assert.equal(parseCompany({ ...samsung, corp_name_eng: ' ' })?.nameEn, null);
    // KONEX (N) and other (E) companies are outside the service's exchanges.
    assert.equal(parseCompany({ ...samsung, corp_cls: 'N' }), null);
  });

  it('maps KSIC codes to sectors by longest prefix', () => {
    const cases: [string, string][] = [
      ['264', 'Electronic Components'], // 통신 및 방송장비: division 26
      ['26110', 'Semiconductors'], // 261
      ['26211', 'Displays'], // 2621 beats 26
      ['26291', 'Electronic Components'],
      ['28202', 'Secondary Batteries'], // 282 beats 28 (Machinery)
      ['28111', 'Machinery'],
      ['30121', 'Automobiles'],
      ['30332', 'Auto Parts'], // 30
      ['22111', 'Auto Parts'], // tyres: 2211 beats 22 (Chemicals)
      ['20423', 'Cosmetics'], // 5 digits beat 20
      ['20111', 'Chemicals'],
      ['58211', 'Games'], // 5821 beats 582 (Software)
      ['58221', 'Software'],
      ['64121', 'Banks'],
      ['66121', 'Securities'],
      ['35200', 'Utilities'],
      ['70113', 'Biotech'],
      ['64992', 'Unclassified'], // holding companies: financial and industrial groups share it
      ['64201', 'Other Financials'], // trusts and collective investment
      ['64913', 'Other Financials'], // credit cards and instalment finance
      ['64999', 'Other Financials'],
      ['65121', 'Insurance'],
      ['66201', 'Unclassified'], // insurance agencies and brokers: service companies
      ['2', 'Unclassified'],
      ['', 'Unclassified'],
      ['ab', 'Unclassified'],
    ];
    for (const [code, sector] of cases) assert.equal(sectorForKsic(code), sector, code);
  });

  it('uses only KR sector names of the demo, and Other Financials (which the demo does not generate)', () => {
    const names = new Set([...MARKET_SECTORS.KR.map((x) => x.name), 'Other Financials']);
    for (const [prefix, sector] of Object.entries(KSIC_SECTORS)) assert.ok(names.has(sector), `${prefix} -> ${sector}`);
  });

  it('reads the old (bare date) and the new cursor', () => {
    assert.deepEqual(readCursor('2024-08-15'), { date: '2024-08-15', known: [] });
    assert.deepEqual(readCursor('{"date":"2024-08-15","known":["00126380"]}'), { date: '2024-08-15', known: ['00126380'] });
    assert.equal(readCursor(null), null);
    assert.equal(readCursor('{broken'), null);
  });
});

describe('OpenDartSource against recorded responses', () => {
  const KEY = 'dartkey0123456789abcdef0123456789abcdef';

  it('pages list.json, keeps listed companies, falls back to OFS, and redacts the key', async () => {
    const zip = zipOne('CORPCODE.xml', fixture('opendart/CORPCODE.xml'));
    const server = await loopback((req) => {
      const p = req.url.searchParams;
      assert.equal(p.get('crtfc_key'), KEY);
      if (req.url.pathname === '/api/corpCode.xml') return { headers: { 'content-type': 'application/x-msdownload' }, body: zip };
      if (req.url.pathname === '/api/list.json') return { body: fixture(`opendart/list_page${p.get('page_no')}.json`) };
      if (req.url.pathname === '/api/company.json') return companyReply(p.get('corp_code'));
      // No dividend section recorded for these filings: OpenDART's "no data".
      if (req.url.pathname === '/api/alotMatter.json') return { body: fixture('opendart/fnltt_status_013.json') };
      const key = `${p.get('corp_code')}_${p.get('bsns_year')}_${p.get('reprt_code')}_${p.get('fs_div')}`;
      const files: Record<string, string> = {
        '00126380_2023_11014_CFS': 'opendart/fnltt_00126380_2023_11014_CFS.json',
        '00113526_2024_11012_CFS': 'opendart/fnltt_status_013.json',
        '00113526_2024_11012_OFS': 'opendart/fnltt_00113526_2024_11012_OFS.json',
      };
      const file = files[key];
      return file ? { body: fixture(file) } : { status: 500, body: `unexpected ${key}` };
    });
    try {
      const source = new OpenDartSource({ apiKey: KEY, baseUrl: server.base, requestsPerSecond: 0, retries: 0 });
      const ctx = context({ asOf: '2024-08-15', range: { from: '2023-11-01', to: '2024-08-15' } });
      const result = await source.ingest(ctx);
      assert.deepEqual(result.data.reports, [SAMSUNG_9M_2023, KOGAS_H1_2024_OFS]);
      // 한국가스공사 answered 013: its record cannot be had, so it is placed from the filing list
      // (code, name, exchange; sector unknown) and its statements are kept. It is not known, so
      // company.json is asked again next run. 다코 (corp_cls E, no stock code) is skipped, counted.
      assert.deepEqual(result.data.securities, [
        SAMSUNG_SECURITY,
        { market: 'KR', code: '036460', name: '한국가스공사', nameEn: 'KOREA GAS CORPORATION', exchange: 'KOSPI', sector: 'Unclassified', currency: 'KRW', fiscalYearEndMonth: 12, source: 'opendart' },
      ]);
      assert.deepEqual(result.skipped, { 'filing of a non-KOSPI/KOSDAQ filer': 1, 'company.json status 013 (asked again next run)': 1 });
      assert.equal(result.cursor, '{"date":"2024-08-15","known":["00126380"]}');
      const listCalls = server.requests.filter((r) => r.url.pathname === '/api/list.json');
      assert.deepEqual(listCalls.map((r) => r.url.searchParams.get('page_no')), ['1', '2']);
      assert.equal(listCalls[0]?.url.searchParams.get('bgn_de'), '20231101');
      assert.equal(listCalls[0]?.url.searchParams.get('pblntf_ty'), 'A');
      for (const line of ctx.log.lines) assert.ok(!line.includes(KEY));
    } finally {
      await server.close();
    }
  });

  it('asks each filing\'s dividend section (alotMatter.json) once, metered with the other calls', async () => {
    // The real answer for Samsung Electronics' 2020 Q1 report (test/fixtures/real/opendart): 보통주 thstrm "354".
    const recorded = fixture('../real/opendart/alotMatter_00126380_2020_11013.json');
    const server = await loopback((req) => (req.url.pathname === '/api/alotMatter.json' ? { body: recorded } : { status: 500, body: 'unexpected' }));
    try {
      const source = new OpenDartSource({ apiKey: KEY, baseUrl: server.base, requestsPerSecond: 0, retries: 0 });
      const http = source.client(context({ asOf: '2020-05-16' }));
      const filing = {
        corpCode: '00126380', stockCode: '005930', corpName: '삼성전자', corpCls: 'Y', rceptNo: '20200515001451', disclosedOn: '2020-05-15',
        fiscalYear: 2020, fiscalQuarter: 1, periodEnd: '2020-03-31', reprtCode: '11013', correction: false,
      } as const;
      assert.equal(await source.dividendPerShare(http, filing), 354);
      const [call] = server.requests;
      assert.deepEqual([call?.url.searchParams.get('corp_code'), call?.url.searchParams.get('bsns_year'), call?.url.searchParams.get('reprt_code')], ['00126380', '2020', '11013']);
      assert.equal(source.meter.callsToday, 1);
    } finally {
      await server.close();
    }
  });

  it('a bank holding company (KSIC 64992, Unclassified by code) is placed in Banks by the deposits its statements show', async () => {
    // No recorded fnlttSinglAcntAll answer of a financial company was found in public repositories
    // (searched for KB금융's corp_code 00688996). The answer here is built from KB금융's real 2025 Q1
    // bulk rows (금융기타 연결: BS, CIS, CF; test/fixtures/real/bulk/opendart) in the API's shape; the
    // corpCode.xml entry, the filing-list row and company.json are constructed (induty_code 64992).
    const list: unknown[] = [];
    for (const [sjDiv, member] of [['BS', '01_재무상태표'], ['CIS', '03_포괄손익계산서'], ['CF', '04_현금흐름표']] as const) {
      const text = iconv.decode(gunzipSync(readFileSync(new URL(`../fixtures/real/bulk/opendart/2025_1분기보고서_${member}_금융기타_연결_20250606.txt.gz`, import.meta.url))), 'cp949');
      for (const c of text.split('\n').map((l) => l.split('\t')).filter((cells) => cells[1] === '[105560]')) {
        list.push({ rcept_no: '20250515000999', sj_div: sjDiv, account_id: c[10], account_nm: c[11], thstrm_amount: (c[12] ?? '').replace(/,/g, ''), currency: 'KRW' });
      }
    }
    const corpXml = '<?xml version="1.0" encoding="UTF-8"?><result><list><corp_code>00688996</corp_code><corp_name>KB금융지주</corp_name><corp_eng_name>KB Financial Group Inc.</corp_eng_name><stock_code>105560</stock_code><modify_date>20250101</modify_date></list></result>';
    const server = await loopback((req) => {
      const p = req.url.searchParams;
      if (req.url.pathname === '/api/corpCode.xml') return { body: zipOne('CORPCODE.xml', corpXml) };
      if (req.url.pathname === '/api/list.json') {
        return { body: JSON.stringify({ status: '000', message: '정상', page_no: 1, total_page: 1, list: [{ corp_code: '00688996', corp_name: 'KB금융지주', stock_code: '105560', corp_cls: 'Y', report_nm: '분기보고서 (2025.03)', rcept_no: '20250515000999', rcept_dt: '20250515' }] }) };
      }
      if (req.url.pathname === '/api/company.json') {
        return { body: JSON.stringify({ status: '000', message: '정상', corp_code: '00688996', corp_name: 'KB금융지주', corp_name_eng: 'KB Financial Group Inc.', stock_name: 'KB금융', stock_code: '105560', corp_cls: 'Y', induty_code: '64992', acc_mt: '12' }) };
      }
      // No dividend section recorded for it: OpenDART's "no data".
      if (req.url.pathname === '/api/alotMatter.json') return { body: JSON.stringify({ status: '013', message: '조회된 데이타가 없습니다.' }) };
      const key = `${p.get('corp_code')}_${p.get('bsns_year')}_${p.get('reprt_code')}_${p.get('fs_div')}`;
      return key === '00688996_2025_11013_CFS' ? { body: JSON.stringify({ status: '000', message: '정상', list }) } : { status: 500, body: `unexpected ${key}` };
    });
    try {
      const source = new OpenDartSource({ apiKey: KEY, baseUrl: server.base, requestsPerSecond: 0, retries: 0 });
      const result = await source.ingest(context({ asOf: '2025-05-20', range: { from: '2025-05-01', to: '2025-05-20' } }));
      // 예수부채 434,357,614,000,000 / 부채총계 710,192,373,000,000 = 0.61 >= 0.5.
      assert.deepEqual(result.data.securities, [
        { market: 'KR', code: '105560', name: 'KB금융', nameEn: 'KB Financial Group Inc.', exchange: 'KOSPI', sector: 'Banks', currency: 'KRW', fiscalYearEndMonth: 12, source: 'opendart' },
      ]);
      // The same accounts as the bulk reader's (test/sources/opendart-bulk.test.ts): 지배기업주주지분 and its net income.
      assert.deepEqual(result.data.reports?.map((r) => [r.code, r.consolidated, r.equity, r.netIncome, r.operatingIncome]), [['105560', true, 58_234_952_000_000, 1_697_271_000_000, 2_293_028_000_000]]);
    } finally {
      await server.close();
    }
  });

  it('sectorByDeposits: only an Unclassified company mostly funded by deposits becomes Banks', () => {
    // 메리츠금융지주 2025 Q1: 13,613,138,759,934 / 108,902,307,998,151 = 0.13; an industrial filer files no deposits (null).
    assert.deepEqual(
      [sectorByDeposits('Unclassified', 0.61), sectorByDeposits('Unclassified', 0.13), sectorByDeposits('Unclassified', null), sectorByDeposits('Securities', 0.9)],
      ['Banks', 'Unclassified', 'Unclassified', 'Securities'],
    );
  });

  it('an incremental run picks up a correction as a new report', async () => {
    const zip = zipOne('CORPCODE.xml', fixture('opendart/CORPCODE.xml'));
    const server = await loopback((req) => {
      if (req.url.pathname === '/api/corpCode.xml') return { body: zip };
      if (req.url.pathname === '/api/list.json') return { body: fixture('opendart/list_correction.json') };
      if (req.url.pathname === '/api/company.json') return companyReply(req.url.searchParams.get('corp_code'));
      return { body: fixture('opendart/fnltt_00126380_2023_11014_CFS_correction.json') };
    });
    try {
      const source = new OpenDartSource({ apiKey: KEY, baseUrl: server.base, requestsPerSecond: 0 });
      const result = await source.ingest(context({ asOf: '2023-12-02', cursor: '2023-11-15' }));
      assert.equal(server.requests.find((r) => r.url.pathname === '/api/list.json')?.url.searchParams.get('bgn_de'), '20231115');
      assert.deepEqual(result.data.reports, [{ ...SAMSUNG_9M_2023, disclosedOn: '2023-12-01', netIncome: 8_225_651_000_000 }]);
      // The cursor before company.json (a bare date) still reads; companies are then all new.
      assert.deepEqual(result.data.securities, [SAMSUNG_SECURITY]);
      assert.equal(result.cursor, '{"date":"2023-12-02","known":["00126380"]}');
    } finally {
      await server.close();
    }
  });

  it('stops on status 020 (request limit) with a clear error and no key', async () => {
    const server = await loopback((req) =>
      req.url.pathname === '/api/corpCode.xml'
        ? { body: zipOne('CORPCODE.xml', fixture('opendart/CORPCODE.xml')) }
        : { body: fixture('opendart/status_020.json') },
    );
    try {
      const source = new OpenDartSource({ apiKey: KEY, baseUrl: server.base, requestsPerSecond: 0 });
      await assert.rejects(source.ingest(context()), (err: unknown) => {
        assert.ok(err instanceof SourceHttpError);
        assert.equal(err.kind, 'upstream');
        assert.match(err.message, /status 020/);
        assert.ok(!err.message.includes(KEY));
        return true;
      });
    } finally {
      await server.close();
    }
  });

  it('asks company.json only for companies not yet known, within the per-run cap', async () => {
    const zip = zipOne('CORPCODE.xml', fixture('opendart/CORPCODE.xml'));
    const server = await loopback((req) => {
      if (req.url.pathname === '/api/corpCode.xml') return { body: zip };
      if (req.url.pathname === '/api/list.json') return { body: fixture('opendart/fnltt_status_013.json') };
      if (req.url.pathname === '/api/company.json') return companyReply(req.url.searchParams.get('corp_code'));
      return { status: 500, body: 'unexpected' };
    });
    const companyCalls = (): (string | null)[] =>
      server.requests.filter((r) => r.url.pathname === '/api/company.json').map((r) => r.url.searchParams.get('corp_code'));
    try {
      const source = new OpenDartSource({ apiKey: KEY, baseUrl: server.base, requestsPerSecond: 0, companiesPerRun: 1 });
      // Run 1: cap 1, so only 00113526 (first by corp_code) is asked; it answers 013.
      const first = await source.ingest(context({ asOf: '2024-08-15', cursor: '2024-08-14' }));
      assert.deepEqual(companyCalls(), ['00113526']);
      assert.deepEqual(first.data.securities, []);
      assert.equal(first.cursor, '{"date":"2024-08-15","known":[]}');
      // Run 2: 013 is retried (still first in order).
      const second = await source.ingest(context({ asOf: '2024-08-16', cursor: first.cursor }));
      assert.deepEqual(companyCalls(), ['00113526', '00113526']);
      assert.equal(second.cursor, '{"date":"2024-08-16","known":[]}');

      const wide = new OpenDartSource({ apiKey: KEY, baseUrl: server.base, requestsPerSecond: 0 });
      const third = await wide.ingest(context({ asOf: '2024-08-17', cursor: second.cursor }));
      assert.deepEqual(companyCalls().slice(2), ['00113526', '00126380']);
      assert.deepEqual(third.data.securities, [SAMSUNG_SECURITY]);
      assert.equal(third.cursor, '{"date":"2024-08-17","known":["00126380"]}');
      // Run 4: 삼성전자 is known and not asked again; a known code no longer listed is dropped.
      const cursor = '{"date":"2024-08-17","known":["00126380","99999999"]}';
      const fourth = await wide.ingest(context({ asOf: '2024-08-18', cursor }));
      assert.deepEqual(companyCalls().slice(4), ['00113526']);
      assert.deepEqual(fourth.data.securities, []);
      assert.equal(fourth.cursor, '{"date":"2024-08-18","known":["00126380"]}');
      assert.equal(server.requests.filter((r) => r.url.pathname === '/api/list.json').at(-1)?.url.searchParams.get('bgn_de'), '20240817');
    } finally {
      await server.close();
    }
  });

  it('status 020 from company.json stops the company records with what it has, not the run', async () => {
    const server = await loopback((req) => {
      if (req.url.pathname === '/api/corpCode.xml') return { body: zipOne('CORPCODE.xml', fixture('opendart/CORPCODE.xml')) };
      if (req.url.pathname === '/api/list.json') return { body: fixture('opendart/fnltt_status_013.json') };
      return { body: fixture('opendart/status_020.json') };
    });
    try {
      const source = new OpenDartSource({ apiKey: KEY, baseUrl: server.base, requestsPerSecond: 0 });
      const result = await source.ingest(context({ asOf: '2024-11-21' }));
      // The first company.json answered 020: no company known, none asked after it.
      assert.deepEqual([result.data.securities, result.cursor], [[], '{"date":"2024-11-21","known":[]}']);
      assert.equal(server.requests.filter((r) => r.url.pathname === '/api/company.json').length, 1);
      assert.equal(source.meter.remaining(), 0);
    } finally {
      await server.close();
    }
  });

  it('an error body instead of corpCode.zip is a parse error that quotes the body, not the key', async () => {
    const error = '<?xml version="1.0" encoding="UTF-8"?><result><status>010</status><message>등록되지 않은 키입니다.</message></result>';
    const server = await loopback(() => ({ body: error }));
    try {
      const source = new OpenDartSource({ apiKey: KEY, baseUrl: server.base, requestsPerSecond: 0 });
      await assert.rejects(source.ingest(context()), (err: unknown) => {
        assert.ok(err instanceof SourceHttpError);
        assert.equal(err.kind, 'parse');
        assert.match(err.message, /corpCode\.xml is not a ZIP .*<status>010<\/status>/);
        assert.ok(!err.message.includes(KEY));
        return true;
      });
    } finally {
      await server.close();
    }
  });

  it('fromEnv needs DART_API_KEY; DART_DAILY_ALLOWANCE sets the meter (a positive integer, else the standard 20,000)', () => {
    assert.equal(OpenDartSource.fromEnv({}), null);
    assert.equal(OpenDartSource.fromEnv({ DART_API_KEY: KEY })?.meter.dailyAllowance, 20_000);
    assert.equal(OpenDartSource.fromEnv({ DART_API_KEY: KEY, DART_DAILY_ALLOWANCE: '40000' })?.meter.dailyAllowance, 40_000);
    for (const bad of ['0', '-5', '1.5', 'many', '']) assert.equal(OpenDartSource.fromEnv({ DART_API_KEY: KEY, DART_DAILY_ALLOWANCE: bad })?.meter.dailyAllowance, 20_000, bad);
  });
});
