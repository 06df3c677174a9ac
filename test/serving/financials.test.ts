// Financial companies end to end: the real 2025 Q1 financial-sector bulk files
// (test/fixtures/real/bulk/opendart, provenance in test/fixtures/real/PROVENANCE.md) read by
// OpenDartBulkReader, then the dataset snapshot computed over them (computeSnapshot). The files
// hold one quarter; a TTM needs four, so each company's 2024 filings are CONSTRUCTED here as a
// year whose every quarter earned what 2025 Q1 did (year-to-date net income n, 2n, 3n, 4n, n
// being the real 2025 Q1 figure): the TTM to 2025Q1 is then FY2024 + 2025Q1 - 2024Q1 = 4n. The
// prices are CONSTRUCTED too (one bar each, market cap stated beside it). Equity and net income
// are the raw rows', quoted beside each expectation (won).

import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import iconv from 'iconv-lite';
import { NOT_APPLICABLE_TO_FINANCIALS } from '../../src/domain/financials.js';
import type { FinancialReport, FiscalQuarter, Security, SnapshotBar } from '../../src/domain/model.js';
import type { BulkContext } from '../../src/sources/bulk.js';
import { OpenDartBulkReader } from '../../src/sources/opendart/bulk.js';
import { computeSnapshot, type ComputedSnapshot } from '../../src/serving/build.js';
import { coverageOf } from '../../src/serving/coverage.js';
import type { ServedSecurity, StockView } from '../../src/serving/dataset.js';
import { memoryLog, zipOf } from '../sources/helpers.js';

const SAMPLES = new URL('../fixtures/real/bulk/opendart/', import.meta.url);
const FINANCIAL = /^2025_1분기보고서_0[134]_[^_]+_(금융기타|보험|은행|증권)(_연결)?_20250606\.txt\.gz$/;
const samples = readdirSync(SAMPLES).filter((n) => FINANCIAL.test(n));

/** DART's ZIP of one statement: the real members under their CP949 names (the container is constructed). */
function zipOfStatement(number: string): Uint8Array {
  return zipOf(
    samples
      .filter((s) => s.startsWith(`2025_1분기보고서_${number}_`))
      .map((s) => ({ name: iconv.encode(s.replace(/\.gz$/, ''), 'cp949'), content: gunzipSync(readFileSync(new URL(s, SAMPLES))) })),
  );
}

const CODES = {
  jeju: '006220', // 제주은행, 은행 layout
  kb: '105560', // KB금융, 금융기타 layout, KSIC 649: a bank group by its deposits
  samsungFire: '000810', // 삼성화재해상보험, 보험 layout
  mirae: '006800', // 미래에셋증권, 증권 layout
  meritz: '138040', // 메리츠금융지주, 금융기타 layout, KSIC 649: few deposits
} as const;

/** Constructed prices: market cap = close x shares, stated here. */
const BARS: Record<string, { close: number; shares: number }> = {
  [CODES.jeju]: { close: 10_000, shares: 30_000_000 }, // 300,000,000,000
  [CODES.kb]: { close: 80_000, shares: 375_000_000 }, // 30,000,000,000,000
  [CODES.samsungFire]: { close: 400_000, shares: 45_000_000 }, // 18,000,000,000,000
  [CODES.mirae]: { close: 10_000, shares: 600_000_000 }, // 6,000,000,000,000
  [CODES.meritz]: { close: 100_000, shares: 180_000_000 }, // 18,000,000,000,000
};
const ASOF = '2025-05-20';

/** The constructed 2024 year-to-date filings: every quarter earned what 2025 Q1 did (see the header). */
function constructed2024(q1: FinancialReport): FinancialReport[] {
  const ends = ['2024-03-31', '2024-06-30', '2024-09-30', '2024-12-31'];
  return ends.map((periodEnd, i) => {
    const k = i + 1;
    const times = (v: number | null): number | null => (v === null ? null : v * k);
    return {
      ...q1,
      fiscalYear: 2024,
      fiscalQuarter: k as FiscalQuarter,
      periodEnd,
      disclosedOn: i === 3 ? '2025-03-15' : `2024-${String(3 * k + 2).padStart(2, '0')}-14`,
      revenue: times(q1.revenue),
      operatingIncome: times(q1.operatingIncome),
      netIncome: times(q1.netIncome),
      operatingCashFlow: times(q1.operatingCashFlow),
      capex: times(q1.capex),
      interestExpense: times(q1.interestExpense),
    };
  });
}

let dir = '';
let snapshot: ComputedSnapshot;
let placed: Map<string, Security>;
const real = new Map<string, FinancialReport>();

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dart-financials-'));
  writeFileSync(join(dir, '2025_1Q_BS_20250606040000.zip'), zipOfStatement('01'));
  writeFileSync(join(dir, '2025_1Q_PL_20250606040000.zip'), zipOfStatement('03'));
  writeFileSync(join(dir, '2025_1Q_CF_20250606040000.zip'), zipOfStatement('04'));
  const ctx: BulkContext = { asOf: ASOF, log: memoryLog(), progress: () => undefined, skip: () => undefined, note: () => undefined };
  placed = new Map();
  for await (const batch of new OpenDartBulkReader({ dir }).read(ctx)) {
    for (const s of batch.data.securities ?? []) placed.set(s.code, s);
    for (const r of batch.data.reports ?? []) if (Object.values(CODES).includes(r.code as never)) real.set(r.code, r);
  }
  const securities: ServedSecurity[] = Object.values(CODES).map((code, i) => ({ ...(placed.get(code) as Security), id: i + 1 }));
  const reports = new Map<number, FinancialReport[]>();
  const recentBars = new Map<number, SnapshotBar[]>();
  for (const s of securities) {
    const q1 = real.get(s.code) as FinancialReport;
    reports.set(s.id, [...constructed2024(q1), q1]);
    const { close, shares } = BARS[s.code] as { close: number; shares: number };
    recentBars.set(s.id, [{ date: '2025-05-19', close, shares, marketCap: close * shares, tradedValue: 1 }]);
  }
  snapshot = computeSnapshot({ securities, reports, recentBars, recentFlows: new Map(), fx: [], trade: [], sectorExports: [] }, ASOF);
});

after(() => rmSync(dir, { recursive: true, force: true }));

const view = (code: string): StockView => snapshot.views.get(`KR:${code}`) as StockView;
const close = (actual: number | null, expected: number): void =>
  assert.ok(actual !== null && Math.abs(actual - expected) < 1e-9, `${String(actual)} is not ${expected}`);

describe('a bank from the real 2025 Q1 files: 제주은행 [006220], 은행 연결', () => {
  it('the raw rows: 지배주주지분 589,195,000,000 and 지배기업소유주지분 net income 2,904,000,000, 영업손익 1,267,000,000', () => {
    const r = real.get(CODES.jeju) as FinancialReport;
    assert.deepEqual([r.consolidated, r.equity, r.netIncome, r.operatingIncome, r.currentAssets, r.currentLiabilities], [true, 589_195_000_000, 2_904_000_000, 1_267_000_000, null, null]);
    assert.equal(placed.get(CODES.jeju)?.sector, 'Banks');
  });

  it('answers ROE, PBR and PER right, and current ratio, CCC, net-debt ratio and EV/EBIT as not applicable', () => {
    const s = view(CODES.jeju).snapshot;
    // PBR = 300,000,000,000 / 589,195,000,000 = 0.50917
    close(s.valuation.pbr.value, 300_000_000_000 / 589_195_000_000);
    assert.equal(s.valuation.pbr.referenceQuarter, '2025Q1');
    // TTM net income 4 x 2,904,000,000 = 11,616,000,000; ROE = 11,616,000,000 x 100 / 589,195,000,000 = 1.9715 %
    close(s.profitability.roe.value, (11_616_000_000 * 100) / 589_195_000_000);
    // PER = 300,000,000,000 / 11,616,000,000 = 25.826
    close(s.valuation.per.value, 300_000_000_000 / 11_616_000_000);
    for (const m of [s.stability.currentRatio, s.earningsQuality.ccc, s.stability.netDebtRatio, s.valuation.evEbit, s.profitability.roic, s.profitability.operatingMargin]) {
      assert.deepEqual([m.value, m.reason], [null, NOT_APPLICABLE_TO_FINANCIALS]);
    }
  });
});

describe('a bank group, an insurer, a securities firm and another financial from the same files', () => {
  it('KB금융 [105560]: 지배기업주주지분 58,234,952,000,000, 지배기업주주지분순이익 1,697,271,000,000', () => {
    const s = view(CODES.kb).snapshot;
    close(s.valuation.pbr.value, 30_000_000_000_000 / 58_234_952_000_000); // 0.51515
    close(s.profitability.roe.value, (4 * 1_697_271_000_000 * 100) / 58_234_952_000_000); // 11.658 %
    close(s.valuation.per.value, 30_000_000_000_000 / (4 * 1_697_271_000_000)); // 4.4189
    // Its borrowings (사채 75,289,027,000,000 read as debt) fund its loans: no net-debt ratio, no EV/EBIT.
    assert.equal(real.get(CODES.kb)?.debt, 75_289_027_000_000);
    assert.deepEqual([s.stability.netDebtRatio.reason, s.valuation.evEbit.reason], [NOT_APPLICABLE_TO_FINANCIALS, NOT_APPLICABLE_TO_FINANCIALS]);
  });

  it('삼성화재 [000810]: 지배기업지분 15,396,314,191,614, net income 608,132,550,479', () => {
    const s = view(CODES.samsungFire).snapshot;
    close(s.valuation.pbr.value, 18_000_000_000_000 / 15_396_314_191_614); // 1.1691
    close(s.profitability.roe.value, (4 * 608_132_550_479 * 100) / 15_396_314_191_614); // 15.799 %
    close(s.valuation.per.value, 18_000_000_000_000 / (4 * 608_132_550_479)); // 7.3997
    assert.equal(s.stability.currentRatio.reason, NOT_APPLICABLE_TO_FINANCIALS);
  });

  it('미래에셋증권 [006800]: 지배주주지분 12,173,062,000,000, net income 258,735,000,000; its 영업수익 filed but no PSR', () => {
    const v = view(CODES.mirae);
    close(v.snapshot.valuation.pbr.value, 6_000_000_000_000 / 12_173_062_000_000); // 0.49289
    close(v.snapshot.profitability.roe.value, (4 * 258_735_000_000 * 100) / 12_173_062_000_000); // 8.5019 %
    close(v.snapshot.valuation.per.value, 6_000_000_000_000 / (4 * 258_735_000_000)); // 5.7974
    assert.equal(real.get(CODES.mirae)?.revenue, 6_052_641_000_000);
    assert.deepEqual([v.metricValues.psr.value, v.metricValues.psr.reason], [null, NOT_APPLICABLE_TO_FINANCIALS]);
    // The industrial definitions would have given values here (cash and bonds are filed): they are not served.
    assert.equal(v.snapshot.stability.netDebtRatio.value, null);
  });
});

describe('cohorts: financial companies compare like with like', () => {
  it('the bank holding company sits in Banks with the bank; the insurer, the broker and Meritz in their own sectors', () => {
    const sectors = Object.values(CODES).map((c) => [c, view(c).security.sector]);
    assert.deepEqual(sectors, [
      ['006220', 'Banks'],
      ['105560', 'Banks'],
      ['000810', 'Insurance'],
      ['006800', 'Securities'],
      ['138040', 'Other Financials'],
    ]);
    const kb = view(CODES.kb).percentiles().sector;
    assert.deepEqual([kb.name, kb.members], ['Banks', 2]);
    const entry = (metric: string) => kb.metrics.find((e) => e.metric === metric);
    // ROE 11.658 % against 제주은행's 1.9715 %: the higher of two -> 100; PBR 0.51515 against 0.50917 -> 100.
    assert.deepEqual([entry('roe')?.percentile, entry('roe')?.cohortSize, entry('pbr')?.percentile], [100, 2, 100]);
    // A metric not applicable to any member: no cohort, the reason carried.
    assert.deepEqual(entry('currentRatio'), { metric: 'currentRatio', unit: '%', value: null, reason: NOT_APPLICABLE_TO_FINANCIALS, percentile: null, cohortSize: 0 });
  });

  it('the coverage report counts the not-applicable metrics apart from the missing ones', () => {
    const report = coverageOf(ASOF, snapshot.views.values(), snapshot.listed);
    const currentRatio = report.metrics.find((m) => m.metric === 'currentRatio' && m.market === 'KR');
    assert.deepEqual([currentRatio?.withValues, currentRatio?.nulls.notApplicable, currentRatio?.nulls.notCovered], [0, 5, 0]);
    const pbr = report.metrics.find((m) => m.metric === 'pbr' && m.market === 'KR');
    assert.equal(pbr?.withValues, 5);
  });
});
