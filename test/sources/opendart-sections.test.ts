// Absence proven by a complete section (docs/calculations.md, "Debt"; docs/sources.md, opendart),
// on real rows: the 2025 Q1 general filers' balance sheet and cash-flow excerpts and the 2016 Q1
// income statements in test/fixtures/real/bulk/opendart (provenance: test/fixtures/real/PROVENANCE.md).
// Each case is read twice: by the bulk reader (readBulkMember, which keeps only the rows the
// mapping needs) and as fnlttSinglAcntAll's answer built from the same rows in the same order
// (amounts without commas, labels with their spaces; the container constructed, the rows real),
// and both must give the same report. Expected figures are derived by hand from the rows quoted.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import type { FinancialReport } from '../../src/domain/model.js';
import { stockMetrics } from '../../src/domain/snapshot.js';
import { discreteQuarters } from '../../src/domain/ttm.js';
import { decodeBulkText, parseBulkMemberName, readBulkMember, reportsOfPeriod, type CompanyPeriod, type Tally } from '../../src/sources/opendart/bulk.js';
import { parseDartEnvelope, parseFinancialStatements } from '../../src/sources/opendart/parse.js';

const BS_2025 = '2025_1분기보고서_01_재무상태표_20250606.EXCERPT-head-utf8.txt.gz';
const CF_2025 = '2025_1분기보고서_04_현금흐름표_20250606.EXCERPT-head-utf8.txt.gz';
const IS_2016 = '2016_1분기보고서_02_손익계산서_20210317.txt.gz';

const text = (sample: string): string => decodeBulkText(gunzipSync(readFileSync(new URL(`../fixtures/real/bulk/opendart/${sample}`, import.meta.url)))) as string;
const memberName = (sample: string): string => sample.replace(/\.EXCERPT-head-utf8/, '').replace(/\.gz$/, '');
const quiet: Tally = { skip: () => undefined, note: () => undefined };

/** The report of one company (separate statements) from the members, through the bulk reader. */
function bulkReport(samples: readonly string[], code: string): FinancialReport {
  const into = new Map<string, CompanyPeriod>();
  for (const s of samples) readBulkMember(memberName(s), parseBulkMemberName(memberName(s))!, text(s), into, quiet);
  const { reports } = reportsOfPeriod([...into.values()].filter((c) => c.code === code), () => '2025-05-15', quiet);
  assert.equal(reports.length, 1);
  return reports[0] as FinancialReport;
}

/** The same company's report from fnlttSinglAcntAll's answer built from its rows, in the file's order. */
function apiReport(samples: readonly string[], code: string, periodEnd: string): FinancialReport {
  const list = samples.flatMap((s) => {
    const sjDiv = parseBulkMemberName(memberName(s))!.sjDiv;
    const lines = text(s).split('\n');
    const header = (lines[0] ?? '').split('\t').map((h) => h.replace(/\s+/g, ''));
    const current = header.findIndex((h) => /^당기(1분기)?(말|3개월)?$/.test(h));
    return lines
      .slice(1)
      .map((l) => l.split('\t'))
      .filter((c) => c[1] === `[${code}]`)
      .map((c) => ({ rcept_no: '20250515000123', sj_div: sjDiv, account_id: c[10], account_nm: c[11], thstrm_amount: (c[current] ?? '').replace(/,/g, ''), currency: 'KRW' }));
  });
  const [y, m] = periodEnd.split('-').map(Number) as [number, number];
  return parseFinancialStatements(parseDartEnvelope({ status: '000', message: '정상', list })!, { code, fiscalYear: y, fiscalQuarter: m === 3 ? 1 : 4, periodEnd, fsDiv: 'OFS' })!;
}

/** Both readers' report, checked equal (the knowledge date aside). */
function report(samples: readonly string[], code: string, periodEnd: string): FinancialReport {
  const bulk = bulkReport(samples, code);
  const api = apiReport(samples, code, periodEnd);
  assert.deepEqual({ ...api, disclosedOn: '' }, { ...bulk, disclosedOn: '' });
  return bulk;
}

describe('OpenDART: an item a complete section does not list is 0, on real 2025 Q1 rows', () => {
  it('CJ 바이오사이언스 [311690]: no borrowing or bond line in complete liabilities: debt 0, and the net-debt ratio from it', () => {
    // BS 별도, 2025-03-31 (excerpt lines 734-740):
    //   유동부채 6,822,578,489 = 기타유동부채 2,416,886,576 + 매입채무 및 기타유동채무 4,405,691,913
    //   비유동부채 3,040,238,261 = 기타비유동채무 2,736,392,366 + 기타비유동부채 303,845,895
    //   부채총계 9,862,816,750 = 6,822,578,489 + 3,040,238,261
    // Every liability line is accounted for and none is a borrowing or a bond: debt 0.
    // 유동자산 66,797,109,517 = 3,494,096,505 + 313,781,250 + 169,889,300 + 412,307,205 + 61,500,000,000
    //   + 907,035,257: receivables 907,035,257 and inventory 169,889,300 are lines of their own.
    const r = report([BS_2025, CF_2025], '311690', '2025-03-31');
    assert.equal(r.debt, 0);
    assert.equal(r.cash, 3_494_096_505);
    assert.equal(r.equity, 77_670_159_478); // 자본총계 (separate statements)
    assert.equal(r.payables, 4_405_691_913);
    // Net-debt ratio = (debt - cash) / equity x 100 = (0 - 3,494,096,505) x 100 / 77,670,159,478 = -4.4986344%.
    const m = stockMetrics(discreteQuarters([r], '2025-06-01'), null, 'KRW');
    assert.equal(m.netDebtRatio.reason, undefined);
    assert.ok(Math.abs((m.netDebtRatio.value as number) - -4.4986344) < 1e-6, String(m.netDebtRatio.value));
  });

  it('CS홀딩스 [000590]: a line the filer names as non-current (its own id) counts there wherever the file puts it: debt 0', () => {
    // BS 별도 (excerpt lines 1073-1104). Line 1073, first in the block before 자산총계:
    //   entity00149026_NetDefinedBenefitLiabilityOfNoncurrentLiabilities 순확정급여부채 411,520,471.
    //   유동부채 1,586,346,774 = 리스부채 15,509,678 + 당기법인세부채 336,129,879 + 기타유동부채 25,905,916
    //     + 기타지급채무 1,208,801,301
    //   비유동부채 7,207,974,552 = 411,520,471 (the named line) + 이연법인세부채 6,783,385,566 + 종업원급여부채 13,068,515
    //   부채총계 8,794,321,326 = 1,586,346,774 + 7,207,974,552. No borrowing or bond line: debt 0.
    const r = report([BS_2025], '000590', '2025-03-31');
    assert.equal(r.debt, 0);
  });

  it('CJ 바이오사이언스 [311690]: no PP&E purchase line in a complete investing section: capex 0', () => {
    // CF 별도, 2025 Q1 (excerpt lines 469-472), filed unsigned as DART does:
    //   투자활동현금흐름 5,476,569,429 = + 단기금융상품의 처분 12,000,000,000 - 단기금융상품의 취득 6,500,000,000
    //   - 무형자산의 취득 23,430,571 (12,000,000,000 - 6,500,000,000 - 23,430,571 = 5,476,569,429).
    const r = report([BS_2025, CF_2025], '311690', '2025-03-31');
    assert.equal(r.capex, 0);
    assert.equal(r.operatingCashFlow, -9_386_434_377);
  });

  it('AP헬스케어 [109960]: an investing section with inflow and outflow subtotals, filed signed, and no PP&E purchase: capex 0', () => {
    // CF 별도, 2025 Q1 (excerpt), in the file's order under 투자활동현금흐름 18,627,874,089:
    //   투자활동으로부터의현금유입 29,937,874,089 = 임차보증금의감소 0 + 당기손익-공정가치금융자산의감소 5,625,000,000
    //     + 금융리스채권의회수 312,874,089 + 장기대여금의감소 24,000,000,000 (a decrease of loans made: an inflow);
    //   유형자산의처분 0;
    //   투자활동으로부터의현금유출 -11,310,000,000 = 장기대여금의증가 -300,000,000 + 단기대여금의증가 -11,010,000,000.
    //   29,937,874,089 + 0 - 11,310,000,000 = 18,627,874,089: complete, and no PP&E purchase line.
    const r = report([BS_2025, CF_2025], '109960', '2025-03-31');
    assert.equal(r.capex, 0);
  });

  it('AP위성 [211270]: non-current liabilities that do not add up by the check stay unknown: debt null', () => {
    // BS 별도 (excerpt): 비유동부채 1,424,076,134, lines in order: 장기매입채무및기타비유동채무 831,669,617
    // (= 장기미지급금,총액 616,055,099 + 비유동리스부채 215,614,518), 퇴직급여부채 0 followed by
    // 사외적립자산의공정가치 8,479,186,887 and 확정급여채무의현재가치 8,479,186,887 (the plan assets filed
    // without their minus sign), 이연법인세부채 491,615,572, 비유동충당부채 100,790,945 (= its one item
    // 100,790,945). Flat, the lines sum to 19,314,800,570; with the subtotals read, to 831,669,617 + 0 +
    // 8,479,186,887 + 491,615,572 + 100,790,945 = 9,903,263,021: neither is 1,424,076,134. No debt line, but no
    // proof either.
    const r = report([BS_2025], '211270', '2025-03-31');
    assert.equal(r.debt, null);
    const m = stockMetrics(discreteQuarters([r], '2025-06-01'), null, 'KRW');
    assert.equal(m.netDebtRatio.value, null);
    assert.equal(m.netDebtRatio.reason, 'debt not reported for 2025Q1');
  });

  it('CJ ENM [035760]: a borrowing filed under the filer\'s own id is debt', () => {
    // BS 별도 (excerpt lines 695-712): entity00265324_CurrentLoansReceivedOfCurrentLiabilities 단기차입금
    // 450,000,000,000 + 유동성사채 534,661,845,092 + 유동성장기차입금 60,000,000,000 + 사채 572,122,068,143
    // = 1,616,783,913,235.
    const r = report([BS_2025], '035760', '2025-03-31');
    assert.equal(r.debt, 1_616_783_913_235);
  });
});

describe('OpenDART: an income statement without cost of sales, on real 2016 Q1 rows', () => {
  it('SK컴즈 [066270]: 영업수익 - 영업비용 = 영업이익 and no cost-of-sales line: cost of sales 0', () => {
    // 2016_1분기보고서_02_손익계산서 (별도, 성격별 분류): ifrs_Revenue 영업수익 15,769,112,918;
    // entity00361725_..._IncomeStatementAbstract 영업비용 18,789,213,117 (its items 종업원급여, 지급수수료, ...);
    // dart_OperatingIncomeLoss 영업이익(손실) -3,020,100,199 = 15,769,112,918 - 18,789,213,117.
    const r = bulkReport([IS_2016], '066270');
    assert.equal(r.revenue, 15_769_112_918);
    assert.equal(r.operatingIncome, -3_020_100_199);
    assert.equal(r.costOfSales, 0);
  });

  it('a by-function filer keeps its own cost of sales: Samsung Electronics [005930] 2016 Q1', () => {
    const r = bulkReport(['2016_1분기보고서_02_손익계산서_연결_20210317.txt.gz'], '005930');
    assert.ok((r.costOfSales as number) > 0);
  });
});
