// OpenDART's bulk statement files (재무정보 일괄다운로드) read by OpenDartBulkReader, on every
// real sample in test/fixtures/real/bulk/opendart (provenance in test/fixtures/real/PROVENANCE.md).
// The samples are the ZIP members' own bytes (CP949, two re-encoded UTF-8 excerpts), gzipped; the
// tests put them back into ZIPs under DART's published names, with CP949 member names and no
// UTF-8 flag as DART writes them. The containers and their build stamps are constructed; every
// member is real. Expected figures are the raw rows, quoted beside each assertion (won).

import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import iconv from 'iconv-lite';
import type { FinancialReport, Security } from '../../src/domain/model.js';
import { BulkNothingRead, type BulkContext } from '../../src/sources/bulk.js';
import {
  DART_TEXT_LIMITS,
  decodeBulkText,
  fiscalQuarterOf,
  fiscalYearOf,
  KNOWLEDGE_DATE_ASSUMED,
  OpenDartBulkReader,
  parseBulkMemberName,
  readBulkMember,
  reportsOfPeriod,
  sectorOfBulkKsic,
  statutoryDeadline,
  type CompanyPeriod,
  type KnowledgeKey,
  type OpenDartBulkOptions,
} from '../../src/sources/opendart/bulk.js';
import type { ProgressPatch } from '../../src/sources/progress.js';
import { accountLabel, reportFromRows, statementRow } from '../../src/sources/opendart/parse.js';
import { sectorOfLayout } from '../../src/sources/opendart/sectors.js';
import { memoryLog, zipOf, type ZipEntry } from './helpers.js';

const SAMPLES = new URL('../fixtures/real/bulk/opendart/', import.meta.url);
const sampleNames = readdirSync(SAMPLES).filter((n) => n.endsWith('.txt.gz')).sort();
const sampleBytes = (name: string): Buffer => gunzipSync(readFileSync(new URL(name, SAMPLES)));
/** The member's name inside DART's ZIP: the sample's name without `.gz` and the excerpt label. */
const memberNameOf = (sample: string): string => sample.replace(/\.EXCERPT-head-utf8/, '').replace(/\.gz$/, '');
const cp949Name = (name: string): Uint8Array => iconv.encode(name, 'cp949');

/** DART's ZIP of one period and statement, from the samples whose names match. */
function periodZip(match: (sample: string) => boolean): Uint8Array {
  const entries: ZipEntry[] = sampleNames.filter(match).map((s) => ({ name: cp949Name(memberNameOf(s)), content: sampleBytes(s) }));
  assert.ok(entries.length > 0);
  return zipOf(entries);
}

interface Collected {
  reports: FinancialReport[];
  securities: Security[];
  batches: number;
  skips: Map<string, { count: number; examples: string[] }>;
  notes: Map<string, number>;
  progress: ProgressPatch[];
}

async function readAll(options: OpenDartBulkOptions, out: Collected = { reports: [], securities: [], batches: 0, skips: new Map(), notes: new Map(), progress: [] }): Promise<Collected> {
  const ctx: BulkContext = {
    asOf: '2026-11-25',
    log: memoryLog(),
    progress: (p) => void out.progress.push(p),
    skip: (reason, example, count = 1) => {
      const s = out.skips.get(reason) ?? { count: 0, examples: [] };
      s.count += count;
      if (example !== undefined) s.examples.push(example);
      out.skips.set(reason, s);
    },
    note: (reason, count = 1) => void out.notes.set(reason, (out.notes.get(reason) ?? 0) + count),
  };
  for await (const batch of new OpenDartBulkReader(options).read(ctx)) {
    out.batches += 1;
    out.reports.push(...(batch.data.reports ?? []));
    out.securities.push(...(batch.data.securities ?? []));
  }
  return out;
}

const find = (c: Collected, code: string, periodEnd: string): FinancialReport => {
  const found = c.reports.filter((r) => r.code === code && r.periodEnd === periodEnd);
  assert.equal(found.length, 1, `${code} ${periodEnd}`);
  return found[0]!;
};

const NULL_ITEMS = {
  revenue: null, costOfSales: null, operatingIncome: null, netIncome: null, operatingCashFlow: null, capex: null,
  interestExpense: null, totalAssets: null, currentAssets: null, totalLiabilities: null, currentLiabilities: null,
  equity: null, cash: null, debt: null, receivables: null, inventory: null, payables: null, shares: null,
  basicEps: null, dividendPerShare: null,
} as const;

let dir = '';
let all: Collected;
/** Samsung Electronics' 2019 Q3 report was received 2019-11-14 (constructed lookup: the only date given). */
const knowledgeDates = (key: KnowledgeKey): string | null =>
  key.stockCode === '005930' && key.periodEnd === '2019-09-30' && key.fiscalQuarter === 3 ? '2019-11-14' : null;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dart-bulk-'));
  const zips: Record<string, Uint8Array> = {
    '2015_4Q_PL_20210318040000.zip': periodZip((s) => s.startsWith('2015_사업보고서_02_')),
    '2016_1Q_PL_20210317040000.zip': periodZip((s) => s.startsWith('2016_1분기보고서_02_')),
    '2019_2Q_PL_20210317040000.zip': periodZip((s) => s.startsWith('2019_반기보고서_02_')),
    '2019_3Q_PL_20201209040000.zip': periodZip((s) => s.startsWith('2019_3분기보고서_02_')),
    '2025_1Q_BS_20250606040000.zip': periodZip((s) => s.startsWith('2025_1분기보고서_01_')),
    '2025_1Q_PL_20250606040000.zip': periodZip((s) => s.startsWith('2025_1분기보고서_03_')),
    '2025_1Q_CF_20250606040000.zip': periodZip((s) => s.startsWith('2025_1분기보고서_04_')),
    '2025_1Q_CE_20250606040000.zip': periodZip((s) => s.startsWith('2025_1분기보고서_05_')),
    // An older build of a period (its stamp is earlier): ignored, counted.
    '2019_3Q_PL_20191120000000.zip': periodZip((s) => s.startsWith('2019_3분기보고서_02_')),
  };
  for (const [name, bytes] of Object.entries(zips)) writeFileSync(join(dir, name), bytes);
  writeFileSync(join(dir, 'companyfacts.zip'), 'not ours');
  all = await readAll({ dir, knowledgeDates, batchSize: 400 });
});

after(() => rmSync(dir, { recursive: true, force: true }));

describe('OpenDART bulk files: every real sample decodes and has a layout the reader knows', () => {
  it('each member decodes strictly (CP949, or UTF-8 for the two re-encoded excerpts) and names its statement, sector and basis', () => {
    assert.equal(sampleNames.length, 43);
    for (const sample of sampleNames) {
      const text = decodeBulkText(sampleBytes(sample));
      assert.ok(text !== null, sample);
      const header = text.split('\n')[0]!.split('\t').map((h) => h.replace(/\s+/g, ''));
      for (const needed of ['종목코드', '회사명', '시장구분', '업종', '결산월', '결산기준일', '보고서종류', '통화', '항목코드', '항목명']) {
        assert.ok(header.includes(needed), `${sample}: ${needed}`);
      }
      const member = parseBulkMemberName(memberNameOf(sample));
      assert.ok(member !== null, sample);
      assert.equal(member.consolidated, sample.includes('_연결_'), sample);
      // The general changes-in-equity matrix stops at 항목명 (FORMATS.md): no current-value column.
      const matrix = sample.startsWith('2025_1분기보고서_05_자본변동표_2025');
      assert.equal(header.some((h) => /^당기/.test(h)), !matrix, sample);
    }
    assert.deepEqual(parseBulkMemberName('2025_1분기보고서_03_포괄손익계산서_보험_연결_20250606.txt'), {
      sjDiv: 'CIS', sector: '보험', consolidated: true, vintage: '2025-06-06',
    });
    assert.deepEqual(parseBulkMemberName('2015_사업보고서_02_손익계산서_20210318.txt'), {
      sjDiv: 'IS', sector: '일반', consolidated: false, vintage: '2021-03-18',
    });
  });

  it('the 2015-2020 header spacing and the 2025 one pick the same columns', () => {
    const header = (sample: string): string[] => decodeBulkText(sampleBytes(sample))!.split('\n')[0]!.split('\t');
    // 2015 annual IS: `항목명 \t \t 당기 \t \t \t 전기 \t 전전기 \t` (19 fields, rows 18): 당기 is field 14.
    assert.equal(header('2015_사업보고서_02_손익계산서_연결_20210318.txt.gz')[13], '당기');
    // 2016 Q1 `당기 1분기 3개월` (inner spaces), 2025 CF `당기1분기` (none), 2025 BS `당기 1분기말` and a trailing empty name.
    assert.equal(header('2016_1분기보고서_02_손익계산서_20210317.txt.gz')[12], '당기 1분기 3개월');
    assert.equal(header('2025_1분기보고서_04_현금흐름표_20250606.EXCERPT-head-utf8.txt.gz')[12], '당기1분기');
    assert.deepEqual(header('2025_1분기보고서_01_재무상태표_은행_20250606.txt.gz').slice(12), ['당기 1분기말', '전기말', '전전기말', '']);
  });
});

describe('OpenDART bulk files: figures of the real rows, through the one mapping', () => {
  it('2015 annual IS (header 당기 after an empty column), Samsung Electronics consolidated', () => {
    // 2015_사업보고서_02_손익계산서_연결: [005930] ifrs_Revenue 수익(매출액) 당기 200,653,482,000,000;
    // ifrs_CostOfSales 123,482,118,000,000; dart_OperatingIncomeLoss 26,413,442,000,000;
    // ifrs_ProfitLossAttributableToOwnersOfParent 18,694,628,000,000 (ifrs_ prefixes read as ifrs-full_);
    // ifrs_BasicEarningsLossPerShare `기본주당이익(손실) (단위:원)` 당기 126,305 (won, before the 2018 50-for-1 split).
    // No filing-list date given: the annual deadline, 2015-12-31 + 90 days = 2016-03-30 (2016 is a leap year: 31 + 29 + 30).
    assert.deepEqual(find(all, '005930', '2015-12-31'), {
      ...NULL_ITEMS,
      market: 'KR', code: '005930', fiscalYear: 2015, fiscalQuarter: 4, periodEnd: '2015-12-31', disclosedOn: '2016-03-30',
      consolidated: true, source: 'opendart',
      revenue: 200_653_482_000_000, costOfSales: 123_482_118_000_000, operatingIncome: 26_413_442_000_000, netIncome: 18_694_628_000_000,
      basicEps: 126_305,
    });
  });

  it('2016 Q1: CJ consolidated (ifrs_Revenue 영업수익, the 3-month and cumulative columns agree)', () => {
    // [001040] 당기 1분기 3개월 / 누적: ifrs_Revenue 5,687,527,137,000; ifrs_CostOfSales 3,881,745,487,000;
    // dart_OperatingIncomeLoss 352,286,042,000; ...OwnersOfParent 76,082,101,000 (profit with minorities 216,000,333,000).
    // Deadline 2016-03-31 + 45 days = 2016-05-15.
    const cj = find(all, '001040', '2016-03-31');
    assert.deepEqual(
      [cj.fiscalYear, cj.fiscalQuarter, cj.consolidated, cj.revenue, cj.costOfSales, cj.operatingIncome, cj.netIncome, cj.disclosedOn],
      [2016, 1, true, 5_687_527_137_000, 3_881_745_487_000, 352_286_042_000, 76_082_101_000, '2016-05-15'],
    );
  });

  it("2016 Q1: KJ프리텍, rows filed under the filer's own account codes, some with outline numbers (Ⅵ.당기순이익)", () => {
    // [083470] 연결 (preferred over 별도): 매출액 (entity00475718_udf_*) 30,183,584,464; ifrs_CostOfSales
    // 25,548,131,642; dart_OperatingIncomeLoss 83,353,700; `지배기업의 소유주지분` and `당기순이익` both
    // -857,024,125; `   이자비용` (entity id) 252,746,526.
    const kj = find(all, '083470', '2016-03-31');
    assert.deepEqual(
      [kj.consolidated, kj.revenue, kj.costOfSales, kj.operatingIncome, kj.netIncome, kj.interestExpense],
      [true, 30_183_584_464, 25_548_131_642, 83_353_700, -857_024_125, 252_746_526],
    );
    // Its separate statements, the fallback where a filer has no consolidated ones: profit for the
    // period only under an entity id labelled `Ⅵ.당기순이익` 850,061,439; 매출액 19,472,786,791;
    // `   이자비용` (under `2. 금융비용`) 206,411,671.
    const text = iconv.decode(sampleBytes('2016_1분기보고서_02_손익계산서_20210317.txt.gz'), 'cp949');
    const rows = text.split('\n').map((l) => l.split('\t')).filter((c) => c[1] === '[083470]')
      .map((c) => statementRow({ sjDiv: 'IS', accountId: c[10] ?? '', accountNm: c[11] ?? '', thstrmAmount: c[13] ?? null, thstrmAddAmount: null }));
    const separate = reportFromRows(rows, { code: '083470', fiscalYear: 2016, fiscalQuarter: 1, periodEnd: '2016-03-31', fsDiv: 'OFS', disclosedOn: '2016-05-16' });
    assert.deepEqual([separate.revenue, separate.netIncome, separate.interestExpense], [19_472_786_791, 850_061_439, 206_411_671]);
    assert.deepEqual(['Ⅵ.당기순이익', '1. 금융수익', '(1)매출액', '가.이자비용', 'IV. 영업이익', '영업이익(손실)'].map(accountLabel), ['당기순이익', '금융수익', '매출액', '이자비용', '영업이익', '영업이익(손실)']);
  });

  it('2019 H1: flows are the cumulative column, not the three months (Samsung consolidated; KTH separate only)', () => {
    // [005930] ifrs_Revenue 당기 반기 3개월 56,127,104,000,000, 누적 108,512,650,000,000;
    // ifrs_CostOfSales 누적 68,691,136,000,000; dart_OperatingIncomeLoss 누적 12,830,347,000,000; OwnersOfParent 누적 10,172,020,000,000.
    const samsung = find(all, '005930', '2019-06-30');
    assert.deepEqual(
      [samsung.fiscalQuarter, samsung.consolidated, samsung.revenue, samsung.costOfSales, samsung.operatingIncome, samsung.netIncome],
      [2, true, 108_512_650_000_000, 68_691_136_000_000, 12_830_347_000_000, 10_172_020_000_000],
    );
    // KTH [036030] has no row in the 연결 file: the separate statements (as the API's OFS fallback).
    // 누적: ifrs_Revenue 154,039,831,844 (3 months 81,488,390,008); ifrs_CostOfSales 143,402,177,754;
    // dart_OperatingIncomeLoss 3,921,782,089; ifrs_ProfitLoss 2,940,119,686 (separate: profit for the period).
    const kth = find(all, '036030', '2019-06-30');
    assert.deepEqual(
      [kth.consolidated, kth.revenue, kth.costOfSales, kth.operatingIncome, kth.netIncome],
      [false, 154_039_831_844, 143_402_177_754, 3_921_782_089, 2_940_119_686],
    );
  });

  it('2019 Q3 (ifrs-full_ ids): Samsung consolidated, dated by the filing list', () => {
    // [005930] 당기 3분기 누적: ifrs-full_Revenue 170,516,121,000,000 (3 months 62,003,471,000,000);
    // ifrs-full_CostOfSales 108,685,026,000,000; dart_OperatingIncomeLoss 20,608,239,000,000;
    // ifrs-full_ProfitLossAttributableToOwnersOfParent 16,277,059,000,000. 금융비용 carries an entity id: no interest expense.
    // ifrs-full_BasicEarningsLossPerShare 기본주당이익(손실): 3 months 899, 누적 2,396 (the year to date is taken).
    assert.deepEqual(find(all, '005930', '2019-09-30'), {
      ...NULL_ITEMS,
      market: 'KR', code: '005930', fiscalYear: 2019, fiscalQuarter: 3, periodEnd: '2019-09-30', disclosedOn: '2019-11-14',
      consolidated: true, source: 'opendart',
      revenue: 170_516_121_000_000, costOfSales: 108_685_026_000_000, operatingIncome: 20_608_239_000_000, netIncome: 16_277_059_000_000,
      basicEps: 2_396,
    });
  });

  it('2025 Q1, a general filer from the UTF-8 excerpts (BS 15-field rows under a 16-field header; CF `당기1분기`)', () => {
    // AJ네트웍스 [095570], separate only. BS 당기 1분기말: ifrs-full_Assets 1,669,024,533,027; CurrentAssets 262,320,685,969;
    // Liabilities 1,225,143,390,770; CurrentLiabilities 621,340,384,436; Equity 자본총계 443,881,142,257 (separate);
    // CashAndCashEquivalents 91,068,838,111; CurrentTradeReceivables 77,836,561,129; Inventories 20,470,002,598;
    // dart_ShortTermTradePayables 29,829,282,711. Debt: 유동성사채 236,350,490,524 + 유동성장기차입금 221,530,568,315
    // + 단기차입금 68,200,000,000 + 비유동사채 233,468,008,803 + 장기차입금 347,370,044,445 = 1,106,919,112,087.
    // CF 당기1분기: ifrs-full_CashFlowsFromUsedInOperatingActivities 13,283,256,229; 유형자산의 취득 4,212,774,761;
    // ifrs-full_InterestPaidClassifiedAsOperatingActivities 이자의 지급 13,554,143,050 (interest expense: no income
    // statement line and no dart_AdjustmentsForInterestExpenses row, so the interest paid).
    // No income statement (the general 02/03 members are not among the samples). Deadline 2025-03-31 + 45 = 2025-05-15.
    assert.deepEqual(find(all, '095570', '2025-03-31'), {
      ...NULL_ITEMS,
      market: 'KR', code: '095570', fiscalYear: 2025, fiscalQuarter: 1, periodEnd: '2025-03-31', disclosedOn: '2025-05-15',
      consolidated: false, source: 'opendart',
      totalAssets: 1_669_024_533_027, currentAssets: 262_320_685_969, totalLiabilities: 1_225_143_390_770,
      currentLiabilities: 621_340_384_436, equity: 443_881_142_257, cash: 91_068_838_111, debt: 1_106_919_112_087,
      receivables: 77_836_561_129, inventory: 20_470_002_598, payables: 29_829_282_711,
      operatingCashFlow: 13_283_256_229, capex: 4_212_774_761, interestExpense: 13_554_143_050,
    });
  });

  it('interest expense from the cash-flow statement: the accrued expense added back first, else the interest paid', () => {
    // 2025 Q1 CF excerpt (separate), no income statements among the samples:
    // AP위성 [211270]: dart_AdjustmentsForInterestExpenses `이자비용 조정` 3,752,628 and 이자지급(영업) 0: the accrual.
    // CJ 바이오사이언스 [311690]: dart_AdjustmentsForInterestExpenses labelled `이자비용` 46,830,368.
    // CJ [001040]: only ifrs-full_InterestPaidClassifiedAsFinancingActivities 이자의 지급 2,169,065,000.
    assert.deepEqual(
      ['211270', '311690', '001040'].map((code) => find(all, code, '2025-03-31').interestExpense),
      [3_752_628, 46_830_368, 2_169_065_000],
    );
  });

  it('capex under the investing-activities concept by its long label, else the sum of the PP&E part purchases', () => {
    // 2025 Q1 CF excerpt (separate), 당기1분기: DS단석 [017860] ifrs-full_PurchaseOfPropertyPlantAndEquipmentClassifiedAsInvestingActivities
    // `투자활동으로 분류된 유형자산의 취득` 9,955,211,596; AP위성 [211270] has no whole-PP&E line and files its
    // parts: dart_PurchaseOfConstructionInProgress `건설중인자산의 취득` 78,150,000 + dart_PurchaseOfFixturesAndFittings
    // `집기의 취득` 281,093,991 + dart_PurchaseOfOtherPropertyPlantAndEquipment `기타유형자산의 취득` 2,900,000
    // = 362,143,991 (its investing section: 20,000,000 + 20,000,000 - 362,143,991 = -322,143,991 투자활동현금흐름).
    assert.deepEqual([find(all, '017860', '2025-03-31').capex, find(all, '211270', '2025-03-31').capex], [9_955_211_596, 362_143_991]);
  });

  it('2025 Q1 financial layouts (the BS header on every statement): bank, insurer, securities firm, other financial', () => {
    const items = (r: FinancialReport): unknown[] => [
      r.consolidated, r.revenue, r.operatingIncome, r.netIncome, r.interestExpense, r.operatingCashFlow, r.capex,
      r.totalAssets, r.totalLiabilities, r.equity, r.cash, r.debt,
    ];
    // Bank: 카카오뱅크 [323410], separate only (은행 별도). CIS: ifrs-full_Revenue I. 영업수익 784,562,000,000;
    // ifrs-full_ProfitLossFromOperatingActivities `IV. 영업이익` 183,039,000,000 (by its label, outline number dropped);
    // ifrs-full_ProfitLoss IX. 분기순이익 137,416,000,000; ifrs-full_InterestExpense 1. 이자비용 278,748,000,000.
    // CF: OCF 852,594,000,000; 유형자산의 취득 8,514,000,000. BS: Assets 68,402,725,000,000; Liabilities 61,892,661,000,000;
    // 자본총계 6,510,064,000,000; no cash line and no borrowing or bond line on the BS.
    assert.deepEqual(items(find(all, '323410', '2025-03-31')), [
      false, 784_562_000_000, 183_039_000_000, 137_416_000_000, 278_748_000_000, 852_594_000_000, 8_514_000_000,
      68_402_725_000_000, 61_892_661_000_000, 6_510_064_000_000, null, null,
    ]);
    // Insurer: 삼성화재해상보험 [000810], 연결. No revenue line (보험영업수익 is not one of ours); 영업이익 792,356,362,337;
    // OwnersOfParent 608,132,550,479; InterestExpense 153,923,081,048; OCF 467,982,013,037; 유형자산의 취득 3,746,505,243;
    // Assets 88,577,224,621,802; Liabilities 73,145,334,098,127; EquityAttributableToOwnersOfParent 15,396,314,191,614.
    assert.deepEqual(items(find(all, '000810', '2025-03-31')), [
      true, null, 792_356_362_337, 608_132_550_479, 153_923_081_048, 467_982_013_037, 3_746_505_243,
      88_577_224_621_802, 73_145_334_098_127, 15_396_314_191_614, null, null,
    ]);
    // Securities: 미래에셋증권 [006800], 연결. ifrs-full_Revenue 영업수익 6,052,641,000,000; 영업이익(손실) 346,185,000,000;
    // 지배기업의 소유주지분 258,735,000,000; 이자비용 1,315,700,000,000; OCF 1,830,550,000,000; 유형자산의 취득 8,048,000,000;
    // Assets 132,773,264,000,000; Liabilities 120,439,404,000,000; 지배주주지분 12,173,062,000,000;
    // 현금및현금성자산 2,537,312,000,000; debt = ifrs-full_BondsIssued 발행사채 7,915,892,000,000.
    assert.deepEqual(items(find(all, '006800', '2025-03-31')), [
      true, 6_052_641_000_000, 346_185_000_000, 258_735_000_000, 1_315_700_000_000, 1_830_550_000_000, 8_048_000_000,
      132_773_264_000_000, 120_439_404_000_000, 12_173_062_000_000, 2_537_312_000_000, 7_915_892_000_000,
    ]);
    // Other financial: KB금융 [105560], 연결. No revenue line; 영업이익 2,293,028,000,000; 지배기업주주지분순이익 1,697,271,000,000;
    // ifrs-full_InterestExpense 4,192,776,000,000 (the entity-id 이자비용 3,810,634,000,000 comes second);
    // OCF 2,999,527,000,000; 유형자산의 취득 123,860,000,000; Assets 770,327,137,000,000; Liabilities 710,192,373,000,000;
    // 지배기업주주지분 58,234,952,000,000; debt = 사채 75,289,027,000,000.
    assert.deepEqual(items(find(all, '105560', '2025-03-31')), [
      true, null, 2_293_028_000_000, 1_697_271_000_000, 4_192_776_000_000, 2_999_527_000_000, 123_860_000_000,
      770_327_137_000_000, 710_192_373_000_000, 58_234_952_000_000, null, 75_289_027_000_000,
    ]);
  });

  it('a company twice in one file after a fiscal-year change gives two reports', () => {
    // 2015_사업보고서_02_손익계산서_연결: 농우바이오 [054050] has a block at 2015-09-30 (its old year end; 결산월 already
    // says 12) and one at 2015-12-31 (the three-month transition year). Both are 사업보고서, so both are annual reports.
    // ifrs_Revenue 당기: 96,841,462,836 (year to 2015-09-30) and 18,896,438,347 (2015-10 to 2015-12).
    const old = find(all, '054050', '2015-09-30');
    const transition = find(all, '054050', '2015-12-31');
    assert.deepEqual([old.fiscalYear, old.fiscalQuarter, old.revenue, old.disclosedOn], [2015, 4, 96_841_462_836, '2015-12-29']);
    assert.deepEqual([transition.fiscalYear, transition.fiscalQuarter, transition.revenue], [2015, 4, 18_896_438_347]);
    // 일양약품 [007570] likewise: 2015-03-31 and 2015-12-31. Two such companies in each 2015 file; the period counts each once.
    assert.equal(find(all, '007570', '2015-03-31').revenue, 211_797_503_489);
    assert.ok((all.notes.get('company with two period ends in one period file (fiscal-year change): both kept') ?? 0) >= 2);
  });

  it('securities are placed from the rows: name, exchange, KSIC sector where three digits decide it, year-end month', () => {
    const samsung = all.securities.filter((s) => s.code === '005930');
    // 2025 Q1 has no Samsung row; its last placement is from the 2019 Q3 file: 업종 264 (KSIC 264 = communications and
    // broadcasting equipment) -> '26' Electronic Components; no finer entry under 264 maps elsewhere.
    assert.deepEqual(samsung.at(-1), {
      market: 'KR', code: '005930', name: '삼성전자', nameEn: null, exchange: 'KOSPI', sector: 'Electronic Components',
      currency: 'KRW', fiscalYearEndMonth: 12, source: 'opendart',
    });
    const kakaobank = all.securities.find((s) => s.code === '323410');
    assert.deepEqual([kakaobank?.exchange, kakaobank?.fiscalYearEndMonth], ['KOSPI', 12]);
    // Every report's company is placed in the same batch or before.
    const placed = new Set(all.securities.map((s) => s.code));
    assert.ok(all.reports.every((r) => placed.has(r.code)));
  });

  it('financial companies are placed by the layout they file; a 금융기타 filer funded mostly by deposits is a bank group', () => {
    const sectorOf = (code: string): string | undefined => all.securities.filter((s) => s.code === code).at(-1)?.sector;
    // 은행 layout: 제주은행 [006220] (연결), 카카오뱅크 [323410] (별도 only); 보험: 삼성화재 [000810], 삼성생명 [032830];
    // 증권: 미래에셋증권 [006800] (its 예수부채 12,349,840,000,000 does not matter outside 금융기타).
    assert.deepEqual(['006220', '323410', '000810', '032830', '006800'].map(sectorOf), ['Banks', 'Banks', 'Insurance', 'Insurance', 'Securities']);
    // 금융기타 연결, KSIC 649 (holding companies, the code CJ and GS share in the general layout):
    // KB금융 [105560] 예수부채 434,357,614,000,000 / 부채총계 710,192,373,000,000 = 0.61 -> Banks;
    // 우리금융지주 [316140] 368,475,940,000,000 / 497,173,262,000,000 = 0.74 -> Banks;
    // 메리츠금융지주 [138040] 13,613,138,759,934 / 108,902,307,998,151 = 0.13 -> Other Financials;
    // 한국금융지주 [071050] 15,928,705,024,932 / 101,905,906,842,288 = 0.16 -> Other Financials;
    // 삼성카드 [029780] (649) and 한국토지신탁 [034830] (642): no 예수부채 -> Other Financials.
    assert.deepEqual(['105560', '316140', '138040', '071050', '029780', '034830'].map(sectorOf), ['Banks', 'Banks', 'Other Financials', 'Other Financials', 'Other Financials', 'Other Financials']);
    // 금융기타 별도 only: 푸른저축은행 [007330] (641) 1,011,026,880,966 / 1,100,561,730,638 = 0.92 -> Banks; a SPAC,
    // 하나33호스팩 [475250] (KSIC 661, Securities by code), files 금융기타: Other Financials.
    assert.deepEqual(['007330', '475250'].map(sectorOf), ['Banks', 'Other Financials']);
    // The deposits row decides the sector and changes no figure: KB금융's debt is still its 사채 alone.
    assert.equal(find(all, '105560', '2025-03-31').debt, 75_289_027_000_000);
  });

  it('unlisted ([null]) and non-KOSPI/KOSDAQ filers are skipped and counted; knowledge dates assumed are counted', () => {
    // Distinct `[null]` filers per member, counted from the raw rows (awk over the 26 BS/CIS/CF members of 2025 Q1):
    // 5+37+30+10+7+1+0+6+5 (BS) + 37+30+10+7+1+0+6+5 (CIS) + 5+37+30+10+7+1+0+6+5 (CF) = 298; none in the 2015-2019 files.
    const unlisted = all.skips.get('unlisted filer ([null] stock code)');
    assert.equal(unlisted?.count, 298);
    assert.ok(unlisted.examples.some((e) => e.endsWith('DB생명보험')));
    // 경남은행 [192520] is 기타법인 (delisted): a code, but no KOSPI/KOSDAQ listing.
    assert.ok(all.skips.get('filer not on KOSPI or KOSDAQ')?.examples.some((e) => e.includes('192520')));
    assert.equal(all.reports.some((r) => r.code === '192520'), false);
    // Only Samsung's 2019 Q3 report had a filing-list date; every other report's was assumed.
    assert.equal(all.notes.get(KNOWLEDGE_DATE_ASSUMED), all.reports.length - 1);
  });

  it('the folder: newest build per period, other files and the CE ZIP counted, progress by files and bytes', () => {
    assert.equal(all.notes.get('older build of a period ignored (a newer one is in the folder)'), 1);
    assert.equal(all.notes.get('file in the folder that is not a DART bulk ZIP'), 1);
    assert.equal(all.notes.get('changes-in-equity ZIP not read (no figure is taken from it)'), 1);
    assert.deepEqual(all.progress[0], { phase: 'reading', unit: 'files', done: 0, total: 7, bytes: 0 });
    const last = all.progress.at(-1)!;
    assert.equal(last.phase, 'done');
    assert.equal(last.done, 7);
    // Inflated bytes of every member read: the sum of the 34 samples' sizes (2 x 4 PL members of 2015-2019, 9 BS, 8 CIS, 9 CF).
    const expected = sampleNames.filter((s) => !s.includes('_05_')).reduce((n, s) => n + sampleBytes(s).length, 0);
    assert.equal(last.bytes, expected);
    // One batch per period: five periods, none with 400 reports (the largest, 2015, has at most 197 + 159 companies
    // in its two members, plus two second blocks).
    assert.equal(all.batches, 5);
    assert.deepEqual([...all.skips.keys()].filter((k) => /ZIP|encoding|layout|column count/.test(k)), []);
  });
});

describe('OpenDART bulk files: years and batches', () => {
  it('reads only the years asked for, in batches of at most batchSize reports with their placements', async () => {
    const sizes: number[] = [];
    const c = await readAll({ dir, fromYear: 2016, toYear: 2016, batchSize: 100 });
    // Outside 2016: 2015 PL, 2019 2Q PL, 2019 3Q PL twice (two builds), 2025 BS, PL, CF and CE = 8 files.
    assert.equal(c.notes.get('DART bulk ZIP outside the years asked for'), 8);
    // Non-December year ends sit in the calendar file their period falls in: the 2016 1분기 file holds 1분기보고서 rows
    // of 세원정공 [021820] (결산월 06) dated 2016-09-30, of 오리엔트바이오 and 대구백화점 (결산월 03) dated 2016-06-30.
    assert.deepEqual(new Set(c.reports.map((r) => r.periodEnd)), new Set(['2016-03-31', '2016-06-30', '2016-09-30']));
    // 세원정공: the first quarter of the fiscal year July 2016 - June 2017 (named 2017, the year it ends);
    // 연결 ifrs_Revenue 당기 1분기 3개월 = 누적 = 62,509,237,971. The year-end month is placed from 결산월.
    const sewon = find(c, '021820', '2016-09-30');
    assert.deepEqual([sewon.fiscalYear, sewon.fiscalQuarter, sewon.consolidated, sewon.revenue], [2017, 1, true, 62_509_237_971]);
    assert.equal(c.securities.find((s) => s.code === '021820')?.fiscalYearEndMonth, 6);
    for await (const batch of new OpenDartBulkReader({ dir, fromYear: 2016, toYear: 2016, batchSize: 100 }).read({
      asOf: '2026-11-25', log: memoryLog(), progress: () => undefined, skip: () => undefined,
    })) {
      sizes.push(batch.data.reports?.length ?? 0);
      const codes = new Set(batch.data.securities?.map((s) => s.code));
      assert.ok(batch.data.reports?.every((r) => codes.has(r.code)));
    }
    assert.equal(sizes.length, Math.ceil(c.reports.length / 100));
    assert.ok(sizes.every((n) => n <= 100) && sizes.reduce((a, b) => a + b, 0) === c.reports.length);
  });
});

describe('OpenDART bulk files: bad input costs only itself', () => {
  it('a truncated ZIP, an HTML page, an unexpected encoding, a broken row, an unknown layout and an archive declaring 4 GB are each skipped with a reason; the rest is read', async () => {
    const bad = mkdtempSync(join(tmpdir(), 'dart-bulk-bad-'));
    try {
      const good = periodZip((s) => s.startsWith('2016_1분기보고서_02_'));
      // 2016 Q1 PL is whole; its BS is cut in half (a download that stopped), its CF an HTML error page.
      writeFileSync(join(bad, '2016_1Q_PL_20210317040000.zip'), good);
      writeFileSync(join(bad, '2016_1Q_BS_20210317040000.zip'), good.subarray(0, Math.floor(good.length / 2)));
      writeFileSync(join(bad, '2016_1Q_CF_20210317040000.zip'), '<!DOCTYPE html><html><body>잠시 후 다시 시도</body></html>');
      // 2019 Q3 PL: the real consolidated member with its first row cut to 5 fields; a member in neither UTF-8 nor CP949 (0xFF is a lead byte in neither);
      // a member whose header lacks every 당기 column; and a member of a name DART does not use.
      const real = sampleBytes('2019_3분기보고서_02_손익계산서_연결_20201209.txt.gz');
      const lines = iconv.decode(real, 'cp949').split('\n');
      const broken = [lines[0], lines[1]!.split('\t').slice(0, 5).join('\t'), ...lines.slice(2)].join('\n');
      const noCurrent = lines[0]!.replace(/당기 3분기 3개월/, '기간A').replace(/당기 3분기 누적/, '기간B');
      writeFileSync(join(bad, '2019_3Q_PL_20201209040000.zip'), zipOf([
        { name: cp949Name('2019_3분기보고서_02_손익계산서_연결_20201209.txt'), content: iconv.encode(broken, 'cp949') },
        { name: cp949Name('2019_3분기보고서_02_손익계산서_20201209.txt'), content: Buffer.from([0xff, 0xfe, 0x41, 0x0a, 0xff, 0x42]) },
        { name: cp949Name('2019_3분기보고서_03_포괄손익계산서_20201209.txt'), content: iconv.encode(`${noCurrent}\n${lines[1]}`, 'cp949') },
        { name: 'readme.txt', content: 'hello' },
      ]));
      // 2019 Q3 BS: a member whose headers declare 4,294,967,280 bytes behind one byte: past DART_BULK_LIMITS' 1 GiB
      // for the whole archive, checked over the central directory before any member (and its 512 MiB a member).
      writeFileSync(join(bad, '2019_3Q_BS_20201209040000.zip'), zipOf([{ name: cp949Name('2019_3분기보고서_01_재무상태표_연결_20201209.txt'), content: 'x', declaredSize: 0xfffffff0 }]));
      const c = await readAll({ dir: bad });
      const skipped = Object.fromEntries([...c.skips].map(([reason, s]) => [reason, [s.count, s.examples[0]]]));
      assert.deepEqual(skipped['archive too large'], [1, '2019_3Q_BS_20201209040000.zip']);
      assert.deepEqual(skipped['truncated or corrupt ZIP'], [1, '2016_1Q_BS_20210317040000.zip']);
      assert.deepEqual(skipped['not a ZIP'], [1, '2016_1Q_CF_20210317040000.zip']);
      assert.deepEqual(skipped['member in an unexpected encoding (neither UTF-8 nor CP949)'], [1, '2019_3Q_PL_20201209040000.zip: 2019_3분기보고서_02_손익계산서_20201209.txt']);
      assert.deepEqual(skipped['unknown statement layout (no current-period column)'], [1, '2019_3분기보고서_03_포괄손익계산서_20201209.txt']);
      assert.deepEqual(skipped['row with a wrong column count'], [1, '2019_3분기보고서_02_손익계산서_연결_20201209.txt line 2: 5 fields, header 18']);
      assert.deepEqual(skipped['member with an unknown name'], [1, '2019_3Q_PL_20201209040000.zip: readme.txt']);
      // The whole PL file of 2016 Q1 and the rest of the 2019 Q3 consolidated member were still read.
      assert.equal(find(c, '001040', '2016-03-31').revenue, 5_687_527_137_000);
      assert.equal(find(c, '005930', '2019-09-30').revenue, 170_516_121_000_000);
    } finally {
      rmSync(bad, { recursive: true, force: true });
    }
  });

  it('a USD statement is skipped and counted (the model keeps KR money in won)', () => {
    // A real 2019 Q3 row of Samsung with its 통화 cell changed to USD (constructed: the samples hold no USD row;
    // FORMATS.md counts 17 in the 2025 1Q 02 연결 member).
    const lines = iconv.decode(sampleBytes('2019_3분기보고서_02_손익계산서_연결_20201209.txt.gz'), 'cp949').split('\n');
    const samsung = lines.filter((l) => l.includes('[005930]')).map((l) => l.replace('\tKRW\t', '\tUSD\t'));
    const into = new Map<string, CompanyPeriod>();
    const skips: [string, string, number][] = [];
    readBulkMember('m.txt', { sjDiv: 'IS', sector: '일반', consolidated: true, vintage: '2020-12-09' }, [lines[0], ...samsung].join('\n'), into, {
      skip: (reason, example, count = 1) => void skips.push([reason, example, count]),
      note: () => undefined,
    });
    assert.equal(into.size, 0);
    assert.deepEqual(skips, [['statement in a currency other than KRW', 'm.txt: 005930 삼성전자 (USD)', 1]]);
  });
});

describe('OpenDART bulk files: hostile archives are refused within their caps (crafted here, small on disk)', () => {
  const memberName = cp949Name('2016_1분기보고서_02_손익계산서_연결_20210318.txt');
  async function readFolder(files: Record<string, Uint8Array>, options: Partial<OpenDartBulkOptions> = {}): Promise<{ c: Collected; error: unknown }> {
    const dir = mkdtempSync(join(tmpdir(), 'dart-bulk-hostile-'));
    try {
      for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, name), bytes);
      const c: Collected = { reports: [], securities: [], batches: 0, skips: new Map(), notes: new Map(), progress: [] };
      let error: unknown = null;
      try {
        await readAll({ dir, ...options }, c);
      } catch (err) {
        error = err;
      }
      return { c, error };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const skipsOf = (c: Collected): Record<string, [number, string | undefined]> => Object.fromEntries([...c.skips].map(([reason, s]) => [reason, [s.count, s.examples[0]]]));

  it('a header line of 8 MiB of tabs (8 KB on disk) is refused at 64 KiB: line too long; with nothing else read, the reader fails', async () => {
    const zip = zipOf([{ name: memberName, content: new Uint8Array(8 * 1024 * 1024).fill(0x09) }]);
    assert.ok(zip.length < 20_000, `${zip.length} bytes on disk`);
    const { error } = await readFolder({ '2016_1Q_PL_20210317040000.zip': zip });
    assert.ok(error instanceof BulkNothingRead);
    assert.equal(error.message, 'none of the 1 DART bulk files could be read (line too long: 1)');
    assert.equal(DART_TEXT_LIMITS.maxLineBytes, 65_536);
  });

  it('a header of 101 fields (under the line cap) is refused: header with too many fields', async () => {
    const good = periodZip((s) => s.startsWith('2016_1분기보고서_02_'));
    const zip = zipOf([{ name: memberName, content: `${'a\t'.repeat(100)}a\n1\n` }]);
    const { c, error } = await readFolder({ '2016_1Q_PL_20210317040000.zip': good, '2016_1Q_BS_20210317040000.zip': zip });
    assert.equal(error, null);
    assert.deepEqual(skipsOf(c)['header with too many fields'], [1, '2016_1분기보고서_02_손익계산서_연결_20210318.txt: more than 100']);
    assert.equal(find(c, '001040', '2016-03-31').revenue, 5_687_527_137_000);
  });

  it('members declaring 400 MiB each (a bomb under the member cap) pass the archive cap at the third: archive too large, before it is inflated', async () => {
    const mib400 = 400 * 1024 * 1024;
    const names = ['02_손익계산서', '02_손익계산서_연결', '03_포괄손익계산서'].map((k) => cp949Name(`2016_1분기보고서_${k}_20210318.txt`));
    const zip = zipOf(names.map((name) => ({ name, content: 'x', declaredSize: mib400 })));
    const { c, error } = await readFolder({ '2016_1Q_PL_20210317040000.zip': zip });
    // 1,258,291,200 declared bytes after the third member, past 1 GiB (1,073,741,824).
    assert.deepEqual(skipsOf(c)['archive too large'], [1, '2016_1Q_PL_20210317040000.zip']);
    assert.ok(error instanceof BulkNothingRead);
  });

  it('a period keeping more statement rows than its cap refuses the file that passes it; the files before it are read', async () => {
    const pl = periodZip((s) => s.startsWith('2016_1분기보고서_02_'));
    // The 2016 Q1 PL members keep more than 10 mapped rows (CJ consolidated alone keeps more than that).
    const { c, error } = await readFolder({ '2016_1Q_PL_20210317040000.zip': pl }, { maxRowsPerPeriod: 10 });
    assert.deepEqual(skipsOf(c)['too many rows in a period'], [1, '2016_1Q_PL_20210317040000.zip']);
    assert.ok(error instanceof BulkNothingRead);
    assert.equal(DART_TEXT_LIMITS.maxRowsPerPeriod, 500_000);
  });

  it('a folder whose every file is refused makes the reader fail, naming the reasons (the import then fails)', async () => {
    const { error } = await readFolder({
      '2016_1Q_PL_20210317040000.zip': new TextEncoder().encode('<html>Not Found</html>'),
      '2016_1Q_BS_20210317040000.zip': new TextEncoder().encode('<html>Not Found</html>'),
    });
    assert.ok(error instanceof BulkNothingRead);
    assert.equal(error.message, 'none of the 2 DART bulk files could be read (not a ZIP: 2)');
  });
});

describe('OpenDART bulk files: periods, deadlines and sectors', () => {
  it('fiscal quarter from the report kind, else from the months to the year-end month; the fiscal year named by its end', () => {
    assert.equal(fiscalQuarterOf('사업보고서', '2015-09-30', 12), 4);
    assert.equal(fiscalQuarterOf('반기보고서', '2019-06-30', 12), 2);
    // A June year end: September is Q1, December H1, March Q3 (no report kind to go by).
    assert.deepEqual(['2020-09-30', '2020-12-31', '2021-03-31', '2021-06-30'].map((d) => fiscalQuarterOf('', d, 6)), [1, 2, 3, 4]);
    assert.equal(fiscalQuarterOf('', '2020-08-31', 6), null);
    // FY July 2020 - June 2021 is fiscal year 2021.
    assert.deepEqual([fiscalYearOf('2020-09-30', 1, 6), fiscalYearOf('2021-03-31', 3, 6), fiscalYearOf('2019-09-30', 3, 12)], [2021, 2021, 2019]);
  });

  it('the statutory deadline: 45 days after a quarter, 90 after the year', () => {
    // 2019-09-30 + 45 = 2019-11-14 (31 Oct days: 1 + 31 + 13); 2023-12-31 + 90 = 2024-03-30 (31 + 29 + 30).
    assert.equal(statutoryDeadline('2019-09-30', 3), '2019-11-14');
    assert.equal(statutoryDeadline('2023-12-31', 4), '2024-03-30');
  });

  it('a three-digit KSIC gives its sector only where no finer code under it maps elsewhere', () => {
    assert.equal(sectorOfBulkKsic('264'), 'Electronic Components');
    // 262 holds 2621 (Displays) under 26 (Electronic Components): three digits cannot tell.
    assert.equal(sectorOfBulkKsic('262'), 'Unclassified');
    assert.equal(sectorOfBulkKsic(''), 'Unclassified');
  });

  it('sectorOfLayout: the layout decides, 금융기타 by its deposit share (at least half: a bank group)', () => {
    assert.deepEqual([sectorOfLayout('은행', null), sectorOfLayout('보험', 0.9), sectorOfLayout('증권', 0.9)], ['Banks', 'Insurance', 'Securities']);
    assert.deepEqual([sectorOfLayout('금융기타', 0.5), sectorOfLayout('금융기타', 0.49), sectorOfLayout('금융기타', null)], ['Banks', 'Other Financials', 'Other Financials']);
    assert.equal(sectorOfLayout('일반', 0.9), null);
  });

  it('reportsOfPeriod prefers consolidated rows and falls back to separate ones', () => {
    const base: Omit<CompanyPeriod, 'hasConsolidated' | 'hasSeparate' | 'consolidated' | 'separate'> = {
      code: '000001', name: 'A', exchange: 'KOSPI', ksic: '264', fiscalYearEndMonth: 12, fiscalYear: 2024, fiscalQuarter: 4, periodEnd: '2024-12-31',
    };
    const row = (v: number) => ({ sjDiv: 'BS', accountId: 'ifrs-full_Assets', accountNm: '자산총계', thstrmAmount: v, thstrmAddAmount: null });
    const { reports } = reportsOfPeriod(
      [
        { ...base, hasConsolidated: true, hasSeparate: true, consolidated: [row(2)], separate: [row(1)] },
        { ...base, code: '000002', hasConsolidated: false, hasSeparate: true, consolidated: [], separate: [row(3)] },
      ],
      () => '2025-03-10',
      { skip: () => undefined, note: () => undefined },
    );
    assert.deepEqual(reports.map((r) => [r.code, r.consolidated, r.totalAssets, r.disclosedOn]), [
      ['000001', true, 2, '2025-03-10'],
      ['000002', false, 3, '2025-03-10'],
    ]);
  });
});

describe('OpenDART bulk files: abort', () => {
  it('an aborted read stops between members and yields no half period', async () => {
    const controller = new AbortController();
    const reports: FinancialReport[] = [];
    const reader = new OpenDartBulkReader({ dir, fromYear: 2025, toYear: 2025 });
    const ctx: BulkContext = {
      asOf: '2026-11-25',
      signal: controller.signal,
      log: memoryLog(),
      progress: () => undefined,
      // 2025 Q1's files are read BS, CF, PL: abort inside the last one (its first counted skip, after its first
      // member), when the BS and CF rows are all held.
      skip: (_reason, example) => {
        if (example?.includes('_03_')) controller.abort();
      },
    };
    for await (const batch of reader.read(ctx)) reports.push(...(batch.data.reports ?? []));
    assert.deepEqual(reports, []);
  });
});
