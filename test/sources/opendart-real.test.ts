// OpenDART parsers on real recorded answers (test/fixtures/real/opendart, provenance in
// test/fixtures/real/PROVENANCE.md). Expected figures are the raw rows, quoted beside them
// (amounts in won; "m" = million won in the comments).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { discreteQuarters, quarterLabel } from '../../src/domain/ttm.js';
import { stockMetrics } from '../../src/domain/snapshot.js';
import { parseAlotMatter, parseDartEnvelope, parseFinancialStatements, parsePeriodicFiling } from '../../src/sources/opendart/parse.js';

const read = (name: string): unknown => {
  const bytes = readFileSync(new URL(`../fixtures/real/opendart/${name}`, import.meta.url));
  return JSON.parse((name.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8'));
};
const M = 1_000_000;

const samsung = (year: number) =>
  parseFinancialStatements(parseDartEnvelope(read(`fnlttSinglAcntAll_00126380_${year}_11011_CFS.json.gz`))!, {
    code: '005930', fiscalYear: year, fiscalQuarter: 4, periodEnd: `${year}-12-31`, fsDiv: 'CFS',
  })!;

describe('OpenDART full statements on real filings (Samsung Electronics, annual reports 2019-2023, consolidated)', () => {
  it('debt is every borrowing and bond line, with or without a standard account id', () => {
    // FY2019 (rcept 20200330003851): ifrs-full_ShorttermBorrowings 단기차입금 14,393,468m + "-표준계정코드 미사용-"
    // 유동성장기부채 846,090m + dart_BondsIssued 사채 975,298m + dart_LongTermBorrowingsGross 장기차입금 2,197,181m = 18,412,037m
    assert.equal(samsung(2019).debt, 18_412_037 * M);
    // FY2023: "-표준계정코드 미사용-" 단기차입금 7,114,601m + ifrs-full_CurrentPortionOfLongtermBorrowings 유동성장기부채 1,308,875m
    // + ifrs-full_NoncurrentPortionOfNoncurrentBondsIssued 사채 537,618m
    // + ifrs-full_NoncurrentPortionOfNoncurrentLoansReceived 장기차입금 3,724,850m = 12,685,944m (the adapter used to find 1,846,493m)
    assert.equal(samsung(2023).debt, 12_685_944 * M);
  });

  it('the income statement lines: cost of sales is 매출원가, net income the controlling interest', () => {
    const fy2023 = samsung(2023);
    // ifrs-full_Revenue 258,935,494m; ifrs-full_CostOfSales 매출원가 180,388,580m; dart_OperatingIncomeLoss 6,566,976m;
    // ifrs-full_ProfitLossAttributableToOwnersOfParent 14,473,401m (profit for the year, with minorities, is 15,487,100m)
    assert.deepEqual(
      [fy2023.revenue, fy2023.costOfSales, fy2023.operatingIncome, fy2023.netIncome, fy2023.disclosedOn],
      [258_935_494 * M, 180_388_580 * M, 6_566_976 * M, 14_473_401 * M, '2024-03-12'],
    );
    // Finance costs (금융비용) are not interest expense, and the income statement has no interest line: the
    // cash-flow statement's interest paid stands in (CF ifrs-full_InterestPaidClassifiedAsOperatingActivities
    // 이자의 지급 844,691m; no dart_AdjustmentsForInterestExpenses row, which would come first).
    assert.equal(fy2023.interestExpense, 844_691 * M);
  });
});

describe('Samsung Electronics EPS and dividends from real answers', () => {
  it('basic EPS is the income statement\'s 기본주당이익 (won per share)', () => {
    // IS ifrs-full_BasicEarningsLossPerShare 기본주당이익(손실) thstrm_amount: FY2019 3166, FY2020 3841, FY2021 5777,
    // FY2022 8057, FY2023 2131 (each report's frmtrm_amount repeats the year before: 6461, 3166, 3841, 5777, 8057).
    assert.deepEqual([2019, 2020, 2021, 2022, 2023].map((y) => samsung(y).basicEps), [3_166, 3_841, 5_777, 8_057, 2_131]);
  });

  it('EPS YoY from the reported EPS of the annual reports', () => {
    // Only annual reports are recorded: the TTM at 2023Q4 is FY2023 (2,131), four quarters earlier FY2022 (8,057).
    // (2,131 - 8,057) / 8,057 x 100 = -592,600 / 8,057 = -73.550949484919945...% (the double of that order of
    // operations: -73.55094948491994). As of 2022-06-23 (FY2021 vs FY2020):
    // (5,777 - 3,841) x 100 / 3,841 = 193,600 / 3,841 = 50.40354074459776 %.
    const reports = [2019, 2020, 2021, 2022, 2023].map((y) => samsung(y));
    const fy2023 = stockMetrics(discreteQuarters(reports, '2024-03-13'), null, 'KRW');
    assert.equal(fy2023.epsYoy.value, -73.55094948491994);
    assert.equal(fy2023.epsYoy.basis, 'reported basic EPS');
    assert.equal(fy2023.eps.value, 2_131);
    assert.equal(stockMetrics(discreteQuarters(reports, '2022-06-23'), null, 'KRW').epsYoy.value, 50.40354074459776);
  });

  it('the dividend section (alotMatter) gives the common share\'s cash dividend per share, year to date', () => {
    // 2020 Q1 report (rcept_no 20200515001451): se 주당 현금배당금(원), stock_knd 보통주, thstrm "354" (우선주 also 354;
    // frmtrm "1,416" is FY2019). 2020 half-year report (20200814001766): thstrm "708" = 354 x 2, year to date.
    assert.equal(parseAlotMatter(parseDartEnvelope(read('alotMatter_00126380_2020_11013.json'))!), 354);
    assert.equal(parseAlotMatter(parseDartEnvelope(read('alotMatter_00126380_2020_11012.json'))!), 708);
    // Status 013 (no dividend section): unknown.
    assert.equal(parseAlotMatter({ status: '013', message: '조회된 데이타가 없습니다.', list: [], pageNo: 1, totalPage: 1 }), null);
  });

  it('dividend yield: TTM dividend per share over the close', () => {
    // FY2021 annual report (real statements, rcept_no 20220308000798) with the dividend per common share its dividend
    // section states, 1,444 won (361 a quarter; no recording of that answer was found, so the figure as filed), and
    // the FSC close of 2022-06-22 (real recording): 57,600 won, 5,969,782,550 listed shares.
    // Yield = 1,444 x 100 / 57,600 = 2.5069444...% (as a double 2.5069444444444446); TTM and last fiscal year both
    // FY2021's 1,444 (FY2020's 2,994, regular 1,416 and the special 1,578, is the year before).
    const reports = [2020, 2021].map((y) => ({ ...samsung(y), dividendPerShare: y === 2021 ? 1_444 : 2_994 }));
    const m = stockMetrics(discreteQuarters(reports, '2022-06-23'), { date: '2022-06-22', close: 57_600, shares: 5_969_782_550, marketCap: 343_859_474_880_000 }, 'KRW');
    assert.equal(m.dividendPerShare.value, 1_444);
    assert.equal(m.dividendPerShareFy.value, 1_444);
    assert.equal(m.dividendYield.value, 2.5069444444444446);
    assert.equal(m.dividendYield.priceDate, '2022-06-22');
  });
});

describe('OpenDART main accounts on real filings (SK hynix 2024 Q3 and FY, labels only)', () => {
  // fnlttSinglAcnt.json: no account_id at all, consolidated and separate rows in one answer
  // (fs_div), the quarter alone in thstrm_amount and year to date in thstrm_add_amount.
  const cfs = (name: string) => {
    const body = read(name) as { list: { fs_div: string }[] };
    return parseDartEnvelope({ ...body, list: body.list.filter((r) => r.fs_div === 'CFS') })!;
  };
  const q3 = parseFinancialStatements(cfs('fnlttSinglAcnt_00164779_2024_11014.json'), { code: '000660', fiscalYear: 2024, fiscalQuarter: 3, periodEnd: '2024-09-30', fsDiv: 'CFS' })!;
  const fy = parseFinancialStatements(cfs('fnlttSinglAcnt_00164779_2024_11011.json'), { code: '000660', fiscalYear: 2024, fiscalQuarter: 4, periodEnd: '2024-12-31', fsDiv: 'CFS' })!;

  it('takes the year-to-date figure of a quarterly report, matched by label', () => {
    // 9M: 매출액 thstrm_add_amount 46,425,925m (the quarter alone, thstrm_amount, is 17,573,069m); 영업이익 15,384,523m;
    // 당기순이익(손실) 11,790,415m (no controlling-interest line in this endpoint: profit for the period); 자산총계 108,367,058m.
    assert.deepEqual([q3.revenue, q3.operatingIncome, q3.netIncome, q3.totalAssets, q3.disclosedOn], [46_425_925 * M, 15_384_523 * M, 11_790_415 * M, 108_367_058 * M, '2024-11-14']);
    // No borrowing line among the main accounts: debt is unknown, not 0.
    assert.equal(q3.debt, null);
  });

  it('derives the fourth quarter as the year less nine months', () => {
    // FY 매출액 66,192,960m - 9M 46,425,925m = 19,767,035m; 영업이익 23,467,319m - 15,384,523m = 8,082,796m;
    // 당기순이익(손실) 19,796,902m - 11,790,415m = 8,006,487m
    const q4 = discreteQuarters([q3, fy], '2025-12-31').at(-1)!;
    assert.equal(quarterLabel(q4), '2024Q4');
    assert.deepEqual([q4.revenue, q4.operatingIncome, q4.netIncome], [19_767_035 * M, 8_082_796 * M, 8_006_487 * M]);
  });
});

describe('OpenDART main accounts on real filings (Samsung Electronics 2024 Q3)', () => {
  it('takes the nine-month figures, not the quarter alone', () => {
    const body = read('fnlttSinglAcnt_00126380_2024_11014.json') as { list: { fs_div: string }[] };
    const envelope = parseDartEnvelope({ ...body, list: body.list.filter((r) => r.fs_div === 'CFS') })!;
    const q3 = parseFinancialStatements(envelope, { code: '005930', fiscalYear: 2024, fiscalQuarter: 3, periodEnd: '2024-09-30', fsDiv: 'CFS' })!;
    // rcept_no 20241114002642, CFS: 매출액 thstrm_add_amount 225,082,634m (Q3 alone 79,098,731m); 영업이익 26,233,258m;
    // 당기순이익(손실) 26,696,957m; 자산총계 491,307,317m; 유동자산 219,235,111m; 유동부채 87,031,889m; 자본총계 386,281,363m.
    assert.deepEqual(
      [q3.revenue, q3.operatingIncome, q3.netIncome, q3.totalAssets, q3.currentAssets, q3.currentLiabilities, q3.equity, q3.disclosedOn],
      [225_082_634 * M, 26_233_258 * M, 26_696_957 * M, 491_307_317 * M, 219_235_111 * M, 87_031_889 * M, 386_281_363 * M, '2024-11-14'],
    );
  });
});

describe('OpenDART filing list on real answers', () => {
  it('reads no periodic report out of rows that are not one (trailing spaces, corrections, an auditor filing)', () => {
    const rows = [...(read('list_all_20240913_page1.json') as { list: Record<string, unknown>[] }).list, ...(read('list_00126380_20241031_page1.json') as { list: Record<string, unknown>[] }).list];
    assert.equal(rows.length, 20);
    // e.g. "[기재정정]주주총회소집결의              ", "감사보고서 (2024.06)" (corp_cls E, stock_code ""): none is a 사업/반기/분기보고서.
    assert.deepEqual(rows.map((r) => parsePeriodicFiling(r)).filter((f) => f !== null), []);
  });
});
