// End to end on REAL filings (issue #14 "Right numbers on real filings"): a loopback upstream
// serves the recorded answers of SEC EDGAR, Polygon, FSC (data.go.kr) and OpenDART at the
// adapters' real paths (./upstream.ts; files and provenance in test/fixtures/real/), the real
// service starts on port 0 with the real adapters pointed at it and a fixed clock, refreshes
// once through the real pipeline, and the figures served over REST (real HTTP, an API key) are
// compared with values DERIVED BY HAND from the raw rows. Each expected value has its
// derivation beside it, quoting the rows (concept or account, period, accn or rcept_no, value).
// Nothing here calls the project's own calculation code.
//
// Rules the expectations follow (docs/calculations.md and issue #14):
// - TTM as of a date uses only filings disclosed on or before it. TTM ending at a fiscal Q4 is
//   the annual report's figure; ending at Qn (n < 4): YTD_n(Y) + FY(Y-1) - YTD_n(Y-1). The yoy
//   base is the TTM ending four quarters earlier. Balances come from the latest quarter's filing.
// - US periods come from the facts' dates; fiscal year = calendar year in which it ends.
// - US debt = current (DebtCurrent, else LongTermDebtCurrent + ShortTermBorrowings, or
//   CommercialPaper + OtherShortTermBorrowings) + noncurrent (LongTermDebtNoncurrent, else
//   LongTermDebt less a LongTermDebtCurrent already counted). Not reported = absent, not 0.
// - US EPS uses cover-page shares restated into the latest share basis by the splits between
//   consecutive filings (Tesla 5:1 in 2020, 3:1 in 2022).
// - KR debt = every borrowing and bond line of the BS, by standard id or by label; KR net
//   income and equity are the controlling interest's; KR shares are not in the statements.
// - Metrics: docs/calculations.md section 5. Floats compare with a relative tolerance of 1e-9.
//
// Scenarios (each a fresh data directory, upstream and server):
//   Samsung Electronics (005930) on 2022-06-23 (Seoul): FSC close of 2022-06-22, FY2021 report.
//   Samsung Electronics on 2024-03-13: FY2023 report (filed 2024-03-12), no price recorded.
//   Apple (AAPL) on 2026-09-26: Polygon bar of 2026-09-25, TTM to Q1 FY2026 (10-Q of 2026-01-30).
//   Tesla (TSLA) on 2022-10-25: TTM to Q3 2022, EPS YoY across the 3-for-1 split of Aug 2022.
//   Tesla on 2020-10-27: TTM to Q3 2020, EPS YoY across the 5-for-1 split of Aug 2020.
//   Marvell (MRVL) on 2026-05-29: TTM to Q1 FY2027 (10-Q of 2026-05-28), 52/53-week years.
//

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FscSource, OpenDartSource, SecSource } from '../../src/sources/index.js';
import { DUMMY, startScenario, type Scenario, type ScenarioOptions } from './scenario.js';

// ---------------------------------------------------------------------------------------------
// Expectations and the checks

type MetricPath =
  | 'valuation.per'
  | 'valuation.pbr'
  | 'valuation.evEbit'
  | 'profitability.roe'
  | 'profitability.roic'
  | 'profitability.operatingMargin'
  | 'growth.revenueYoy'
  | 'growth.epsYoy'
  | 'stability.netDebtRatio'
  | 'stability.interestCoverage'
  | 'stability.currentRatio'
  | 'cashGeneration.operatingCashFlow'
  | 'cashGeneration.fcfYield'
  | 'earningsQuality.cfToNi'
  | 'earningsQuality.ccc';

type PerSharePath = 'perShare.eps' | 'perShare.dividendPerShare' | 'perShare.dividendPerShareFy' | 'perShare.dividendYield';

interface Ref {
  referenceQuarter: string;
  disclosedOn: string;
}

type Expected =
  | ({ value: number; unit: string; priceDate: string | null } & Ref)
  | { value: null; reason: RegExp; unit: string };

type PercentileKey = 'psr' | 'netMargin' | 'operatingIncomeYoy';
type ExpectedRaw = { value: number; unit: string } | { value: null; reason: RegExp; unit: string };

interface Served {
  value: number | null;
  reason?: string;
  unit: string;
  referenceQuarter: string | null;
  disclosedOn: string | null;
  priceDate: string | null;
}

const REL = 1e-9;

function near(actual: number | null | undefined, expected: number, what: string): void {
  assert.equal(typeof actual, 'number', `${what}: expected ${expected}, got ${String(actual)}`);
  const a = actual as number;
  assert.ok(Math.abs(a - expected) <= REL * Math.abs(expected), `${what}: expected ${expected}, got ${a} (relative error ${Math.abs(a - expected) / Math.abs(expected)})`);
}

function checkMetric(served: Served | undefined, e: Expected, what: string): void {
  assert.ok(served, `${what} is served`);
  assert.equal(served.unit, e.unit, `${what} unit`);
  if (e.value === null) {
    assert.equal(served.value, null, `${what}: expected null (${e.reason}), got ${String(served.value)}`);
    assert.equal(typeof served.reason, 'string', `${what} has a reason`);
    assert.match(served.reason as string, e.reason, `${what} reason`);
    return;
  }
  near(served.value, e.value, what);
  assert.equal(served.reason, undefined, `${what} has no reason`);
  assert.equal(served.referenceQuarter, e.referenceQuarter, `${what} referenceQuarter`);
  assert.equal(served.disclosedOn, e.disclosedOn, `${what} disclosedOn`);
  assert.equal(served.priceDate, e.priceDate, `${what} priceDate`);
}

interface Case {
  name: string;
  options: ScenarioOptions;
  code: string;
  identity: { code: string; market: 'KR' | 'US'; currency: 'KRW' | 'USD'; name: string; source: string };
  price: { date: string; close: number; marketCap: number } | null;
  metrics: Record<MetricPath, Expected>;
  /** The per-share group (EPS, dividends); `basis` where the answer states one. */
  perShare: Record<PerSharePath, Expected & { basis?: string }>;
  raw: Record<PercentileKey, ExpectedRaw>;
  /** Extra checks after the metrics, on the running scenario. */
  more?: (s: () => Scenario) => void;
}

const at = (path: string, body: unknown): Served | undefined => {
  const [group, key] = path.split('.') as [string, string];
  return ((body as Record<string, Record<string, Served> | undefined>)[group] ?? {})[key];
};

function runCase(c: Case): void {
  describe(c.name, () => {
    let s: Scenario;
    let snapshot: Record<string, unknown>;
    let percentile: { metrics: { metric: string; unit: string; value: number | null; reason?: string; percentile: number | null; cohortSize: number }[] };
    before(async () => {
      s = await startScenario(c.options);
      const snap = await s.get(`/stocks/${c.code}/snapshot`);
      assert.equal(snap.status, 200, `snapshot: ${JSON.stringify(snap.body)}`);
      snapshot = snap.body as Record<string, unknown>;
      const pct = await s.get(`/stocks/${c.code}/percentile?cohort=market`);
      assert.equal(pct.status, 200, `percentile: ${JSON.stringify(pct.body)}`);
      percentile = pct.body as typeof percentile;
    });
    after(async () => {
      await s?.close();
    });

    it('refreshes every source from the loopback upstream and asks for nothing unrecorded', () => {
      assert.deepEqual(
        s.app.refresher.sourceStatus.map((x) => [x.source, x.ok, x.error ?? '']),
        s.app.refresher.sourceStatus.map((x) => [x.source, true, '']),
      );
      assert.deepEqual(s.upstream.unanswered, []);
    });

    it('serves the stock and its price', () => {
      const { source, ...identity } = c.identity;
      assert.deepEqual({ code: snapshot['code'], market: snapshot['market'], currency: snapshot['currency'], name: snapshot['name'] }, identity);
      assert.equal(snapshot['source'], source);
      const price = snapshot['price'] as { date: string; close: number; marketCap: number } | null;
      if (c.price === null) {
        assert.equal(price, null);
      } else {
        assert.ok(price, 'a price');
        assert.equal(price.date, c.price.date);
        assert.equal(price.close, c.price.close);
        near(price.marketCap, c.price.marketCap, 'marketCap');
      }
    });

    for (const [path, e] of Object.entries(c.metrics) as [MetricPath, Expected][]) {
      it(`${path} ${e.value === null ? 'is null with a reason' : `= ${e.value}`}`, () => {
        checkMetric(at(path, snapshot), e, path);
      });
    }

    for (const [path, e] of Object.entries(c.perShare) as [PerSharePath, Expected & { basis?: string }][]) {
      it(`${path} ${e.value === null ? 'is null with a reason' : `= ${e.value}`}`, () => {
        const served = at(path, snapshot);
        checkMetric(served, e, path);
        if (e.basis !== undefined) assert.equal((served as Served & { basis?: string }).basis, e.basis, `${path} basis`);
      });
    }

    for (const [metric, e] of Object.entries(c.raw) as [PercentileKey, ExpectedRaw][]) {
      it(`percentile raw ${metric} ${e.value === null ? 'is null with a reason' : `= ${e.value}`}`, () => {
        const entry = percentile.metrics.find((m) => m.metric === metric);
        assert.ok(entry, `${metric} listed`);
        assert.equal(entry.unit, e.unit);
        if (e.value === null) {
          assert.equal(entry.value, null, `${metric}: expected null, got ${String(entry.value)}`);
          assert.match(entry.reason ?? '', e.reason);
          assert.equal(entry.percentile, null);
        } else {
          near(entry.value, e.value, metric);
          // The stock is alone in its market cohort: the top (and only) value ranks 100.
          assert.equal(entry.percentile, 100);
          assert.equal(entry.cohortSize, 1);
        }
      });
    }

    c.more?.(() => s);
  });
}

const fast = { timeoutMs: 10_000, retries: 0, backoffMs: 1 };
const noPrice = (unit: string): Expected => ({ value: null, reason: /price/i, unit });

// ---------------------------------------------------------------------------------------------
// Samsung Electronics, as of 2022-06-23 (Seoul)
//
// Price, FSC getStockPriceInfo of 2022-06-22 (fsc/getStockPriceInfo_005930_20220622.json.gz):
//   basDt 20220622, clpr "57600", lstgStCnt "5969782550", mrktTotAmt "343859474880000"
//   (= 57,600 x 5,969,782,550). marketCap = 343,859,474,880,000.
// Latest report disclosed by then: 사업보고서 (2021.12), fnlttSinglAcntAll CFS, rcept_no
// 20220308000798 (disclosed 2022-03-08). Only annual reports are recorded, so TTM at 2021Q4 =
// the FY2021 figures; the yoy base (TTM at 2020Q4) = the FY2020 report, rcept_no 20210309000744.
// FY2021 rows (thstrm_amount, won):
//   IS ord 0  ifrs-full_Revenue                                   수익(매출액)   279,604,799,000,000
//   IS ord 1  ifrs-full_CostOfSales                               매출원가       166,411,342,000,000
//   IS ord 4  dart_OperatingIncomeLoss                            영업이익        51,633,856,000,000
//   IS ord 15 ifrs-full_ProfitLossAttributableToOwnersOfParent    지배기업의 소유주에게 귀속되는 당기순이익(손실) 39,243,791,000,000
//   CF ord 0  ifrs-full_CashFlowsFromUsedInOperatingActivities    영업활동 현금흐름 65,105,448,000,000
//   CF ord 24 ifrs-full_PurchaseOfPropertyPlantAndEquipmentClassifiedAsInvestingActivities 유형자산의 취득 47,122,106,000,000
//   BS ord 45 ifrs-full_EquityAttributableToOwnersOfParent        지배기업 소유주지분 296,237,697,000,000
//   BS ord 2  ifrs-full_CashAndCashEquivalents                    현금및현금성자산  39,031,415,000,000
//   BS ord 1  ifrs-full_CurrentAssets 유동자산 218,163,185,000,000; BS ord 23 ifrs-full_CurrentLiabilities 유동부채 88,117,133,000,000
//   BS ord 6  dart_ShortTermTradeReceivable 매출채권 40,713,415,000,000; BS ord 9 ifrs-full_Inventories 재고자산 41,384,404,000,000
//   BS ord 24 -표준계정코드 미사용- 매입채무 13,453,351,000,000
//   debt = BS ord 25 ifrs-full_ShorttermBorrowings 단기차입금 13,687,793,000,000
//        + BS ord 31 -표준계정코드 미사용- 유동성장기부채 1,329,968,000,000
//        + BS ord 36 dart_BondsIssued 사채 508,232,000,000
//        + BS ord 37 dart_LongTermBorrowingsGross 장기차입금 2,866,156,000,000 = 18,392,149,000,000
//   No interest-expense line (IS ord 9 금융비용 is all finance costs). No share count.
// FY2020 rows (rcept_no 20210309000744): IS ord 0 수익(매출액) 236,806,988,000,000; IS ord 4 영업이익 35,993,876,000,000.

const SAMSUNG_KR = { code: '005930', market: 'KR', currency: 'KRW', name: '삼성전자' } as const;
const S21: Ref = { referenceQuarter: '2021Q4', disclosedOn: '2022-03-08' };
const S21_PRICE = '2022-06-22';

runCase({
  name: 'Samsung Electronics on 2022-06-23: FY2021 annual report, FSC close of 2022-06-22',
  options: {
    at: '2022-06-23T03:00:00Z',
    sources: (base) => [
      // firstRunDays: the first run's list.json window reaches back to 2019-09 (the FY2019-FY2021 reports).
      new OpenDartSource({ apiKey: DUMMY.dartKey, baseUrl: base, requestsPerSecond: 0, firstRunDays: 1000, ...fast }),
      new FscSource({ serviceKey: DUMMY.dataGoKrKey, baseUrl: `${base}/1160100/service/GetStockSecuritiesInfoService`, requestsPerSecond: 0, ...fast }),
    ],
  },
  code: '005930',
  identity: { ...SAMSUNG_KR, source: 'opendart,fsc' },
  price: { date: '2022-06-22', close: 57_600, marketCap: 343_859_474_880_000 },
  metrics: {
    // PER = 343,859,474,880,000 / 39,243,791,000,000 = 8.76213704430339
    'valuation.per': { value: 8.76213704430339, unit: 'x', priceDate: S21_PRICE, ...S21 },
    // PBR = 343,859,474,880,000 / 296,237,697,000,000 = 1.1607552933413467
    'valuation.pbr': { value: 1.1607552933413467, unit: 'x', priceDate: S21_PRICE, ...S21 },
    // EV/EBIT = (343,859,474,880,000 + 18,392,149,000,000 - 39,031,415,000,000) / 51,633,856,000,000 = 6.259850298222934
    'valuation.evEbit': { value: 6.259850298222934, unit: 'x', priceDate: S21_PRICE, ...S21 },
    // ROE = 39,243,791,000,000 x 100 / 296,237,697,000,000 = 13.247399435460775
    'profitability.roe': { value: 13.247399435460775, unit: '%', priceDate: null, ...S21 },
    // ROIC = 51,633,856,000,000 x 100 / (296,237,697,000,000 + 18,392,149,000,000 - 39,031,415,000,000 = 275,598,431,000,000) = 18.735177777554185
    'profitability.roic': { value: 18.735177777554185, unit: '%', priceDate: null, ...S21 },
    // operating margin = 51,633,856,000,000 x 100 / 279,604,799,000,000 = 18.466727389754137
    'profitability.operatingMargin': { value: 18.466727389754137, unit: '%', priceDate: null, ...S21 },
    // revenue YoY = (279,604,799,000,000 - 236,806,988,000,000) / 236,806,988,000,000 x 100 = 18.072866582805403
    'growth.revenueYoy': { value: 18.072866582805403, unit: '%', priceDate: null, ...S21 },
    // EPS YoY from the statements' basic EPS (IS ifrs-full_BasicEarningsLossPerShare 기본주당이익(손실)):
    // FY2021 5,777 (rcept_no 20220308000798) vs FY2020 3,841 (20210309000744): (5,777 - 3,841) / 3,841 x 100 = 50.40354074459776
    'growth.epsYoy': { value: 50.40354074459776, unit: '%', priceDate: null, ...S21 },
    // net-debt ratio = (18,392,149,000,000 - 39,031,415,000,000) x 100 / 296,237,697,000,000 = -6.967130182624935
    'stability.netDebtRatio': { value: -6.967130182624935, unit: '%', priceDate: null, ...S21 },
    // interest coverage: no interest-expense line in the income statement (금융비용 is not interest), so the
    // cash-flow statement's interest paid (CF ifrs-full_InterestPaidClassifiedAsOperatingActivities 이자의 지급
    // 434,441,000,000): 51,633,856,000,000 / 434,441,000,000 = 118.8512502273036
    'stability.interestCoverage': { value: 118.8512502273036, unit: 'x', priceDate: null, ...S21 },
    // current ratio = 218,163,185,000,000 x 100 / 88,117,133,000,000 = 247.5831629701343
    'stability.currentRatio': { value: 247.5831629701343, unit: '%', priceDate: null, ...S21 },
    // OCF = CF ord 0 = 65,105,448,000,000 KRW
    'cashGeneration.operatingCashFlow': { value: 65_105_448_000_000, unit: 'KRW', priceDate: null, ...S21 },
    // FCF yield = (65,105,448,000,000 - 47,122,106,000,000) x 100 / 343,859,474,880,000 = 5.229852109288489
    'cashGeneration.fcfYield': { value: 5.229852109288489, unit: '%', priceDate: S21_PRICE, ...S21 },
    // CF/NI = 65,105,448,000,000 / 39,243,791,000,000 = 1.6589999676636744
    'earningsQuality.cfToNi': { value: 1.6589999676636744, unit: 'x', priceDate: null, ...S21 },
    // CCC = 40,713,415 x 365 / 279,604,799 + 41,384,404 x 365 / 166,411,342 - 13,453,351 x 365 / 166,411,342
    //     = 53.14785915030021 + 90.77090106033758 - 29.508043478190327 = 114.41071673244747 days
    'earningsQuality.ccc': { value: 114.41071673244747, unit: 'days', priceDate: null, ...S21 },
  },
  perShare: {
    // TTM EPS = FY2021's basic EPS as filed, 5,777 won (IS ifrs-full_BasicEarningsLossPerShare).
    'perShare.eps': { value: 5_777, unit: 'KRW', priceDate: null, basis: 'reported basic EPS', ...S21 },
    // No dividend section of the FY2019-FY2021 reports is recorded (alotMatter answers 013): not reported.
    'perShare.dividendPerShare': { value: null, reason: /dividend/, unit: 'KRW' },
    'perShare.dividendPerShareFy': { value: null, reason: /dividend/, unit: 'KRW' },
    'perShare.dividendYield': { value: null, reason: /dividend/, unit: '%' },
  },
  raw: {
    // PSR = 343,859,474,880,000 / 279,604,799,000,000 = 1.2298053399290905
    psr: { value: 1.2298053399290905, unit: 'x' },
    // net margin = 39,243,791,000,000 x 100 / 279,604,799,000,000 = 14.035449727742334
    netMargin: { value: 14.035449727742334, unit: '%' },
    // operating income YoY = (51,633,856,000,000 - 35,993,876,000,000) / 35,993,876,000,000 x 100 = 43.45178051955283
    operatingIncomeYoy: { value: 43.45178051955283, unit: '%' },
  },
});

// ---------------------------------------------------------------------------------------------
// Samsung Electronics, as of 2024-03-13: 사업보고서 (2023.12), rcept_no 20240312000736
// (disclosed 2024-03-12). TTM at 2023Q4 = FY2023; base = FY2022 report, rcept_no 20230307000542.
// No price is recorded for this date (FSC not configured): price metrics are null.
// FY2023 rows (thstrm_amount, won):
//   IS ord 24 ifrs-full_Revenue                                   영업수익       258,935,494,000,000
//   IS ord 10 ifrs-full_CostOfSales                               매출원가       180,388,580,000,000
//   IS ord 6  dart_OperatingIncomeLoss                            영업이익         6,566,976,000,000
//   IS ord 21 ifrs-full_ProfitLossAttributableToOwnersOfParent    지배기업의 소유주에게 귀속되는 당기순이익(손실) 14,473,401,000,000
//   CF ord 34 ifrs-full_CashFlowsFromUsedInOperatingActivities    영업활동현금흐름 44,137,427,000,000
//   CF ord 33 ifrs-full_PurchaseOfPropertyPlantAndEquipmentClassifiedAsInvestingActivities 유형자산의 취득 57,611,292,000,000
//   BS ord 30 ifrs-full_EquityAttributableToOwnersOfParent        지배기업 소유주지분 353,233,775,000,000
//   BS ord 11 ifrs-full_CashAndCashEquivalents                    현금및현금성자산  69,080,893,000,000
//   BS ord 8  유동자산 195,936,557,000,000; BS ord 40 유동부채 75,719,452,000,000
//   BS ord 14 ifrs-full_CurrentTradeReceivables 매출채권 36,647,393,000,000; BS ord 15 재고자산 51,625,874,000,000
//   BS ord 51 ifrs-full_TradeAndOtherCurrentPayablesToTradeSuppliers 매입채무 11,319,824,000,000
//   debt = BS ord 43 -표준계정코드 미사용- 단기차입금 7,114,601,000,000
//        + BS ord 45 ifrs-full_CurrentPortionOfLongtermBorrowings 유동성장기부채 1,308,875,000,000
//        + BS ord 55 ifrs-full_NoncurrentPortionOfNoncurrentBondsIssued 사채 537,618,000,000
//        + BS ord 56 ifrs-full_NoncurrentPortionOfNoncurrentLoansReceived 장기차입금 3,724,850,000,000 = 12,685,944,000,000
//   IS ord 14 ifrs-full_FinanceCosts 금융비용 is not interest expense; no share count.
// FY2022 rows (rcept_no 20230307000542): IS ord 0 수익(매출액) 302,231,360,000,000; IS ord 4 영업이익 43,376,630,000,000.

const S23: Ref = { referenceQuarter: '2023Q4', disclosedOn: '2024-03-12' };

runCase({
  name: 'Samsung Electronics on 2024-03-13: FY2023 annual report, no price',
  options: {
    at: '2024-03-13T03:00:00Z',
    sources: (base) => [new OpenDartSource({ apiKey: DUMMY.dartKey, baseUrl: base, requestsPerSecond: 0, firstRunDays: 1000, ...fast })],
  },
  code: '005930',
  identity: { ...SAMSUNG_KR, source: 'opendart' },
  price: null,
  metrics: {
    'valuation.per': noPrice('x'),
    'valuation.pbr': noPrice('x'),
    'valuation.evEbit': noPrice('x'),
    // ROE = 14,473,401,000,000 x 100 / 353,233,775,000,000 = 4.097400085821351
    'profitability.roe': { value: 4.097400085821351, unit: '%', priceDate: null, ...S23 },
    // ROIC = 6,566,976,000,000 x 100 / (353,233,775,000,000 + 12,685,944,000,000 - 69,080,893,000,000 = 296,838,826,000,000) = 2.2123035886147857
    'profitability.roic': { value: 2.2123035886147857, unit: '%', priceDate: null, ...S23 },
    // operating margin = 6,566,976,000,000 x 100 / 258,935,494,000,000 = 2.536143615753196
    'profitability.operatingMargin': { value: 2.536143615753196, unit: '%', priceDate: null, ...S23 },
    // revenue YoY = (258,935,494,000,000 - 302,231,360,000,000) / 302,231,360,000,000 x 100 = -14.325404881875926
    'growth.revenueYoy': { value: -14.325404881875926, unit: '%', priceDate: null, ...S23 },
    // EPS YoY from the statements' basic EPS: FY2023 2,131 (IS ifrs-full_BasicEarningsLossPerShare, rcept_no
    // 20240312000736) vs FY2022 8,057 (20230307000542): (2,131 - 8,057) / 8,057 x 100 = -73.55094948491995
    'growth.epsYoy': { value: -73.55094948491995, unit: '%', priceDate: null, ...S23 },
    // net-debt ratio = (12,685,944,000,000 - 69,080,893,000,000) x 100 / 353,233,775,000,000 = -15.965333156491052
    'stability.netDebtRatio': { value: -15.965333156491052, unit: '%', priceDate: null, ...S23 },
    // interest coverage from the cash-flow statement's interest paid (이자의 지급 844,691,000,000):
    // 6,566,976,000,000 / 844,691,000,000 = 7.774412181495955
    'stability.interestCoverage': { value: 7.774412181495955, unit: 'x', priceDate: null, ...S23 },
    // current ratio = 195,936,557,000,000 x 100 / 75,719,452,000,000 = 258.76647522488673
    'stability.currentRatio': { value: 258.76647522488673, unit: '%', priceDate: null, ...S23 },
    // OCF = CF ord 34 = 44,137,427,000,000 KRW
    'cashGeneration.operatingCashFlow': { value: 44_137_427_000_000, unit: 'KRW', priceDate: null, ...S23 },
    'cashGeneration.fcfYield': noPrice('%'),
    // CF/NI = 44,137,427,000,000 / 14,473,401,000,000 = 3.049554627830736
    'earningsQuality.cfToNi': { value: 3.049554627830736, unit: 'x', priceDate: null, ...S23 },
    // CCC = 36,647,393 x 365 / 258,935,494 + 51,625,874 x 365 / 180,388,580 - 11,319,824 x 365 / 180,388,580 = 133.21445794746893 days
    'earningsQuality.ccc': { value: 133.21445794746893, unit: 'days', priceDate: null, ...S23 },
  },
  perShare: {
    // TTM EPS = FY2023's basic EPS as filed, 2,131 won.
    'perShare.eps': { value: 2_131, unit: 'KRW', priceDate: null, basis: 'reported basic EPS', ...S23 },
    'perShare.dividendPerShare': { value: null, reason: /dividend/, unit: 'KRW' },
    'perShare.dividendPerShareFy': { value: null, reason: /dividend/, unit: 'KRW' },
    'perShare.dividendYield': { value: null, reason: /dividend/, unit: '%' },
  },
  raw: {
    psr: { value: null, reason: /price/i, unit: 'x' },
    // net margin = 14,473,401,000,000 x 100 / 258,935,494,000,000 = 5.589577842889319
    netMargin: { value: 5.589577842889319, unit: '%' },
    // operating income YoY = (6,566,976,000,000 - 43,376,630,000,000) / 43,376,630,000,000 x 100 = -84.86056662308712
    operatingIncomeYoy: { value: -84.86056662308712, unit: '%' },
  },
});

// ---------------------------------------------------------------------------------------------
// Apple, as of 2026-09-26 (Seoul). Configured from the environment (`configuredSources`):
// SEC_* and US_PRICES_* pointed at the loopback, dummy key; Polygon's cursor at 2026-09-24, so
// the run fetches the one recorded grouped day, 2026-09-25.
//
// Price: Polygon grouped 2026-09-25, row {"T":"AAPL", "c":341.07}. Shares: the cover-page
// dei:EntityCommonStockSharesOutstanding 14,681,140,000 (end 2026-01-16, accn
// 0000320193-26-000006), served through the constructed SEC frame. marketCap = 341.07 x
// 14,681,140,000 = 5,007,296,419,800.
// Latest filing: 10-Q accn 0000320193-26-000006 filed 2026-01-30, period 2025-09-28..2025-12-27
// (90 days: Q1; the fiscal year ending late Sept. 2026 = FY2026) -> 2026Q1.
// TTM at 2026Q1 = Q1 FY2026 (0000320193-26-000006) + FY2025 (10-K 0000320193-25-000079, 2024-09-29..2025-09-27)
//               - Q1 FY2025 (10-Q 0000320193-25-000008, 2024-09-29..2024-12-28):
//   revenue (RevenueFromContractWithCustomerExcludingAssessedTax) 143,756 + 416,161 - 124,300 = 435,617 (USD million)
//   cost of sales (CostOfGoodsAndServicesSold)                     74,525 + 220,960 -  66,025 = 229,460
//   operating income (OperatingIncomeLoss)                         50,852 + 133,050 -  42,832 = 141,070
//   net income (NetIncomeLoss)                                     42,097 + 112,010 -  36,330 = 117,777
//   OCF (NetCashProvidedByUsedInOperatingActivities)               53,925 + 111,482 -  29,935 = 135,472
//   capex (PaymentsToAcquirePropertyPlantAndEquipment)              2,373 +  12,715 -   2,940 =  12,148
//   interest expense: no InterestExpense* fact after the FY2023 10-K (filed 2023-11-03): not reported.
// Base TTM at 2025Q1 = Q1 FY2025 + FY2024 (10-K 0000320193-24-000123, 2023-10-01..2024-09-28)
//               - Q1 FY2024 (10-Q 0000320193-24-000006, 2023-10-01..2023-12-30):
//   revenue 124,300 + 391,035 - 119,575 = 395,760; operating income 42,832 + 123,216 - 40,373 = 125,675;
//   net income 36,330 + 93,736 - 33,916 = 96,150.
// Balances at 2025-12-27 (accn 0000320193-26-000006): StockholdersEquity 88,190; CashAndCashEquivalentsAtCarryingValue
//   45,317; AssetsCurrent 158,104; LiabilitiesCurrent 162,367; AccountsReceivableNetCurrent 39,921; InventoryNet 5,875;
//   AccountsPayableCurrent 70,587.
//   debt: no DebtCurrent -> current = LongTermDebtCurrent 11,827 + (no ShortTermBorrowings) CommercialPaper 1,997;
//   noncurrent = LongTermDebtNoncurrent 76,685; debt = 11,827 + 1,997 + 76,685 = 90,509
//   (LongTermDebt 88,500 is not used: LongTermDebtNoncurrent is present).
// Shares for EPS: cover 14,681,140,000 (2026-01-16, Q1 FY2026 10-Q) and 15,022,073,000 (2025-01-17, Q1 FY2025
//   10-Q, accn 0000320193-25-000008); no split between them (consecutive covers change by < 1%).

const A: Ref = { referenceQuarter: '2026Q1', disclosedOn: '2026-01-30' };
const A_PRICE = '2026-09-25';

runCase({
  name: 'Apple on 2026-09-26: TTM to Q1 FY2026, Polygon close of 2026-09-25',
  options: {
    at: '2026-09-26T03:00:00Z',
    env: (base) => ({
      SEC_USER_AGENT: DUMMY.secUserAgent,
      SEC_BASE_URL: base,
      SEC_DATA_BASE_URL: base,
      SEC_TICKERS: 'AAPL',
      ECB_BASE_URL: base,
      US_PRICES_API_KEY: DUMMY.polygonKey,
      US_PRICES_BASE_URL: base,
      US_PRICES_REQUESTS_PER_MINUTE: '600000',
    }),
    cursors: { polygon: '2026-09-24' },
  },
  code: 'AAPL',
  identity: { code: 'AAPL', market: 'US', currency: 'USD', name: 'Apple Inc.', source: 'ecb,sec,polygon' },
  price: { date: '2026-09-25', close: 341.07, marketCap: 5_007_296_419_800 },
  metrics: {
    // PER = 5,007,296,419,800 / 117,777,000,000 = 42.51506168267149
    'valuation.per': { value: 42.51506168267149, unit: 'x', priceDate: A_PRICE, ...A },
    // PBR = 5,007,296,419,800 / 88,190,000,000 = 56.77850572400499
    'valuation.pbr': { value: 56.77850572400499, unit: 'x', priceDate: A_PRICE, ...A },
    // EV/EBIT = (5,007,296,419,800 + 90,509,000,000 - 45,317,000,000) / 141,070,000,000 = 35.81547047423265
    'valuation.evEbit': { value: 35.81547047423265, unit: 'x', priceDate: A_PRICE, ...A },
    // ROE = 117,777 x 100 / 88,190 = 133.5491552330196
    'profitability.roe': { value: 133.5491552330196, unit: '%', priceDate: null, ...A },
    // ROIC = 141,070 x 100 / (88,190 + 90,509 - 45,317 = 133,382) = 105.76389617789506
    'profitability.roic': { value: 105.76389617789506, unit: '%', priceDate: null, ...A },
    // operating margin = 141,070 x 100 / 435,617 = 32.38395195779779
    'profitability.operatingMargin': { value: 32.38395195779779, unit: '%', priceDate: null, ...A },
    // revenue YoY = (435,617 - 395,760) / 395,760 x 100 = 10.071002627855266
    'growth.revenueYoy': { value: 10.071002627855266, unit: '%', priceDate: null, ...A },
    // EPS YoY: 117,777,000,000 / 14,681,140,000 = 8.022333415524953 vs 96,150,000,000 / 15,022,073,000 = 6.400581331218401
    //   (8.022333415524953 - 6.400581331218401) / 6.400581331218401 x 100 = 25.337574829282556
    'growth.epsYoy': { value: 25.337574829282556, unit: '%', priceDate: null, ...A },
    // net-debt ratio = (90,509 - 45,317) x 100 / 88,190 = 51.243905204671734
    'stability.netDebtRatio': { value: 51.243905204671734, unit: '%', priceDate: null, ...A },
    // interest coverage: interest expense not reported in these filings (absent, not 0).
    'stability.interestCoverage': { value: null, reason: /interest/i, unit: 'x' },
    // current ratio = 158,104 x 100 / 162,367 = 97.37446648641658
    'stability.currentRatio': { value: 97.37446648641658, unit: '%', priceDate: null, ...A },
    // OCF = 135,472,000,000 USD
    'cashGeneration.operatingCashFlow': { value: 135_472_000_000, unit: 'USD', priceDate: null, ...A },
    // FCF yield = (135,472,000,000 - 12,148,000,000) x 100 / 5,007,296,419,800 = 2.4628859500378004
    'cashGeneration.fcfYield': { value: 2.4628859500378004, unit: '%', priceDate: A_PRICE, ...A },
    // CF/NI = 135,472 / 117,777 = 1.1502415581989693
    'earningsQuality.cfToNi': { value: 1.1502415581989693, unit: 'x', priceDate: null, ...A },
    // CCC = 39,921 x 365 / 435,617 + 5,875 x 365 / 229,460 - 70,587 x 365 / 229,460 = -69.48732156800008 days
    'earningsQuality.ccc': { value: -69.48732156800008, unit: 'days', priceDate: null, ...A },
  },
  perShare: {
    // TTM EPS = 117,777,000,000 / 14,681,140,000 (cover shares of the Q1 FY2026 10-Q) = 8.022333415524953 USD
    'perShare.eps': { value: 8.022333415524953, unit: 'USD', priceDate: null, basis: 'net income / shares at the quarter end', ...A },
    // CommonStockDividendsPerShareDeclared, year to date: Q1 FY2026 (0000320193-26-000006, 2025-09-28..2025-12-27) 0.26
    //   + FY2025 (0000320193-25-000079, 2024-09-29..2025-09-27) 1.02 - Q1 FY2025 (0000320193-25-000008) 0.25 = 1.03 USD
    'perShare.dividendPerShare': { value: 1.03, unit: 'USD', priceDate: null, ...A },
    // The last fiscal year's: FY2025's 1.02, from the 10-K filed 2025-10-31.
    'perShare.dividendPerShareFy': { value: 1.02, unit: 'USD', priceDate: null, referenceQuarter: '2025Q4', disclosedOn: '2025-10-31' },
    // yield = 1.03 x 100 / 341.07 = 0.301990793678717
    'perShare.dividendYield': { value: 0.301990793678717, unit: '%', priceDate: A_PRICE, ...A },
  },
  raw: {
    // PSR = 5,007,296,419,800 / 435,617,000,000 = 11.494722244081384
    psr: { value: 11.494722244081384, unit: 'x' },
    // net margin = 117,777 x 100 / 435,617 = 27.036823631768275
    netMargin: { value: 27.036823631768275, unit: '%' },
    // operating income YoY = (141,070 - 125,675) / 125,675 x 100 = 12.249850805649492
    operatingIncomeYoy: { value: 12.249850805649492, unit: '%' },
  },
});

// ---------------------------------------------------------------------------------------------
// Tesla, as of 2022-10-25 (Seoul). No price recorded for 2022 (Polygon not configured).
// Latest filing: 10-Q accn 0000950170-22-019867 filed 2022-10-24, YTD 2022-01-01..2022-09-30 (272 days: Q3) -> 2022Q3.
// (The FY2021 10-K, accn 0000950170-22-000796, also holds ProceedsFromIssuanceOfWarrants for
// 2022-01-01..2022-03-31, a subsequent-event fact: its period end stays 2021-12-31.)
// TTM at 2022Q3 = 9M 2022 (0000950170-22-019867) + FY2021 (10-K 0000950170-22-000796, 2021-01-01..2021-12-31)
//               - 9M 2021 (10-Q 0000950170-21-002253, 2021-01-01..2021-09-30), USD million:
//   revenue (Revenues)                  57,144 + 53,823 - 36,104 = 74,863
//   cost of sales (CostOfRevenue)       42,068 + 40,217 - 27,345 = 54,940
//   operating income                     9,755 +  6,523 -  3,910 = 12,368
//   net income (NetIncomeLoss)           8,869 +  5,519 -  3,198 = 11,190
//   OCF                                 11,446 + 11,497 -  6,912 = 16,031
//   capex                                5,300 +  6,482 -  4,672 =  7,110
//   interest (InterestExpense)             158 +    371 -    300 =    229
// Base TTM at 2021Q3 = 9M 2021 + FY2020 (10-K 0001564590-21-004599, 2020-01-01..2020-12-31)
//               - 9M 2020 (10-Q 0001564590-20-047486, 2020-01-01..2020-09-30):
//   revenue 36,104 + 31,536 - 20,792 = 46,848; operating income 3,910 + 1,994 - 1,419 = 4,485;
//   net income 3,198 + 721 - 451 = 3,468.
// Balances at 2022-09-30 (0000950170-22-019867): StockholdersEquity 39,851; Cash...AtCarryingValue 19,532;
//   AssetsCurrent 35,990; LiabilitiesCurrent 24,611; AccountsReceivableNetCurrent 2,192; InventoryNet 10,327;
//   AccountsPayableCurrent 13,897.
//   debt = DebtCurrent 979 + LongTermDebt 1,418 (no LongTermDebtNoncurrent, no LongTermDebtCurrent to deduct) = 2,397
//   (finance leases, FinanceLeaseLiability* 478 + 678, are not debt).
// Shares: cover 3,157,752,449 (2022-10-18, 0000950170-22-019867) now; 1,004,264,852 (2021-10-21,
//   0000950170-21-002253) at the base. Consecutive covers: 1,044,490,015 (2022-07-19, Q2 2022 10-Q)
//   -> 3,157,752,449: x3.023, the 3-for-1 split; so the base count restates to 1,004,264,852 x 3 = 3,012,794,556.

const T22: Ref = { referenceQuarter: '2022Q3', disclosedOn: '2022-10-24' };
const secOnly = (ticker: string) => (base: string) => [
  new SecSource({ userAgent: DUMMY.secUserAgent, dataBaseUrl: base, wwwBaseUrl: base, tickers: [ticker], requestsPerSecond: 0, ...fast }),
];

runCase({
  name: 'Tesla on 2022-10-25: TTM to Q3 2022, EPS YoY across the 2022 3-for-1 split',
  options: { at: '2022-10-25T03:00:00Z', sources: secOnly('TSLA') },
  code: 'TSLA',
  identity: { code: 'TSLA', market: 'US', currency: 'USD', name: 'Tesla, Inc.', source: 'sec' },
  price: null,
  metrics: {
    'valuation.per': noPrice('x'),
    'valuation.pbr': noPrice('x'),
    'valuation.evEbit': noPrice('x'),
    // ROE = 11,190 x 100 / 39,851 = 28.079596496951144
    'profitability.roe': { value: 28.079596496951144, unit: '%', priceDate: null, ...T22 },
    // ROIC = 12,368 x 100 / (39,851 + 2,397 - 19,532 = 22,716) = 54.446205317837645
    'profitability.roic': { value: 54.446205317837645, unit: '%', priceDate: null, ...T22 },
    // operating margin = 12,368 x 100 / 74,863 = 16.520844743063996
    'profitability.operatingMargin': { value: 16.520844743063996, unit: '%', priceDate: null, ...T22 },
    // revenue YoY = (74,863 - 46,848) / 46,848 x 100 = 59.799778005464475
    'growth.revenueYoy': { value: 59.799778005464475, unit: '%', priceDate: null, ...T22 },
    // EPS YoY: 11,190,000,000 / 3,157,752,449 = 3.5436596695677203 vs 3,468,000,000 / 3,012,794,556 = 1.1510907682349119
    //   (3.5436596695677203 - 1.1510907682349119) / 1.1510907682349119 x 100 = 207.8523229755013
    'growth.epsYoy': { value: 207.8523229755013, unit: '%', priceDate: null, ...T22 },
    // net-debt ratio = (2,397 - 19,532) x 100 / 39,851 = -42.99766630699355
    'stability.netDebtRatio': { value: -42.99766630699355, unit: '%', priceDate: null, ...T22 },
    // interest coverage = 12,368 / 229 = 54.00873362445415
    'stability.interestCoverage': { value: 54.00873362445415, unit: 'x', priceDate: null, ...T22 },
    // current ratio = 35,990 x 100 / 24,611 = 146.23542318475478
    'stability.currentRatio': { value: 146.23542318475478, unit: '%', priceDate: null, ...T22 },
    // OCF = 16,031,000,000 USD
    'cashGeneration.operatingCashFlow': { value: 16_031_000_000, unit: 'USD', priceDate: null, ...T22 },
    'cashGeneration.fcfYield': noPrice('%'),
    // CF/NI = 16,031 / 11,190 = 1.4326184092940124
    'earningsQuality.cfToNi': { value: 1.4326184092940124, unit: 'x', priceDate: null, ...T22 },
    // CCC = 2,192 x 365 / 74,863 + 10,327 x 365 / 54,940 - 13,897 x 365 / 54,940 = -13.03043664116052 days
    'earningsQuality.ccc': { value: -13.03043664116052, unit: 'days', priceDate: null, ...T22 },
  },
  perShare: {
    // TTM EPS = 11,190,000,000 / 3,157,752,449 = 3.5436596695677203 USD (split-consistent shares, as EPS YoY)
    'perShare.eps': { value: 3.5436596695677203, unit: 'USD', priceDate: null, basis: 'net income / shares at the quarter end', ...T22 },
    // Tesla tags no dividends per share: not reported (null), not 0.
    'perShare.dividendPerShare': { value: null, reason: /dividend/, unit: 'USD' },
    'perShare.dividendPerShareFy': { value: null, reason: /dividend/, unit: 'USD' },
    'perShare.dividendYield': { value: null, reason: /dividend/, unit: '%' },
  },
  raw: {
    psr: { value: null, reason: /price/i, unit: 'x' },
    // net margin = 11,190 x 100 / 74,863 = 14.947303741501143
    netMargin: { value: 14.947303741501143, unit: '%' },
    // operating income YoY = (12,368 - 4,485) / 4,485 x 100 = 175.76365663322184
    operatingIncomeYoy: { value: 175.76365663322184, unit: '%' },
  },
  more: (s) => {
    it('a later incremental run (daily form index 404: nothing filed) leaves the figures as they were', async () => {
      const before = (await s().get('/stocks/TSLA/snapshot')).body as Record<string, unknown>;
      s().clock.now = new Date('2022-10-26T03:00:00Z');
      const report = await s().app.refresher.run();
      assert.deepEqual(report.sources.map((x) => [x.source, x.ok]), [['sec', true]]);
      assert.ok(s().upstream.answered.some((a) => a.path === '/Archives/edgar/daily-index/2022/QTR4/form.20221026.idx'));
      assert.deepEqual(s().upstream.unanswered, []);
      const afterRun = (await s().get('/stocks/TSLA/snapshot')).body as Record<string, unknown>;
      for (const group of ['valuation', 'profitability', 'growth', 'stability', 'cashGeneration', 'earningsQuality']) {
        assert.deepEqual(afterRun[group], before[group], group);
      }
    });
  },
});

// ---------------------------------------------------------------------------------------------
// Tesla, as of 2020-10-27 (Seoul). No price recorded.
// Latest filing: 10-Q accn 0001564590-20-047486 filed 2020-10-26, YTD 2020-01-01..2020-09-30 (273 days: Q3) -> 2020Q3.
// TTM at 2020Q3 = 9M 2020 (0001564590-20-047486) + FY2019 (10-K 0001564590-20-004475, 2019-01-01..2019-12-31)
//               - 9M 2019 (10-Q 0001564590-19-038256, 2019-01-01..2019-09-30), USD million:
//   revenue (Revenues)             20,792 + 24,578 - 17,194 = 28,176
//   cost of sales (CostOfRevenue)  16,228 + 20,509 - 14,516 = 22,221
//   operating income                1,419 +   (-69) - (-428) = 1,778
//   net income                        451 +  (-862) - (-967) =   556
//   OCF                             2,924 +  2,405 -    980 = 4,349
//   capex                           2,006 +  1,327 -    915 = 2,418
//   interest (InterestExpense)        502 +    685 -    515 =   672
// (The FY2019 10-K/A, accn 0001564590-20-018984 of 2020-04-28, has no us-gaap facts: not a report.)
// Base TTM at 2019Q3 = 9M 2019 + FY2018 (10-K 0001564590-19-003165, 2018-01-01..2018-12-31)
//               - 9M 2018 (10-Q 0001564590-18-026353, 2018-01-01..2018-09-30), USD:
//   revenue 17,194,000,000 + 21,461,268,000 - 14,235,395,000 = 24,419,873,000
//   operating income -428,000,000 + (-388,073,000) - (-801,609,000) = -14,464,000
//   net income -967,000,000 + (-976,091,000) - (-1,115,574,000) = -827,517,000
// Balances at 2020-09-30 (0001564590-20-047486): StockholdersEquity 16,031; Cash 14,531; AssetsCurrent 21,744;
//   LiabilitiesCurrent 13,302; AccountsReceivableNetCurrent 1,757; InventoryNet 4,218; AccountsPayableCurrent 4,958.
//   debt = DebtCurrent 2,766 + LongTermDebt 9,428 = 12,194 (FinanceLeaseLiability* 360 + 1,131 are not debt).
// Shares: cover 947,900,733 (2020-10-20) now; 180,244,858 (2019-10-21, 0001564590-19-038256) at the base.
//   Consecutive covers: 186,361,726 (2020-07-20, Q2 2020 10-Q) -> 947,900,733: x5.086, the 5-for-1 split;
//   the base count restates to 180,244,858 x 5 = 901,224,290.

const T20: Ref = { referenceQuarter: '2020Q3', disclosedOn: '2020-10-26' };

runCase({
  name: 'Tesla on 2020-10-27: TTM to Q3 2020, EPS YoY across the 2020 5-for-1 split',
  options: { at: '2020-10-27T03:00:00Z', sources: secOnly('TSLA') },
  code: 'TSLA',
  identity: { code: 'TSLA', market: 'US', currency: 'USD', name: 'Tesla, Inc.', source: 'sec' },
  price: null,
  metrics: {
    'valuation.per': noPrice('x'),
    'valuation.pbr': noPrice('x'),
    'valuation.evEbit': noPrice('x'),
    // ROE = 556 x 100 / 16,031 = 3.468280207098746
    'profitability.roe': { value: 3.468280207098746, unit: '%', priceDate: null, ...T20 },
    // ROIC = 1,778 x 100 / (16,031 + 12,194 - 14,531 = 13,694) = 12.983788520519935
    'profitability.roic': { value: 12.983788520519935, unit: '%', priceDate: null, ...T20 },
    // operating margin = 1,778 x 100 / 28,176 = 6.310335036910846
    'profitability.operatingMargin': { value: 6.310335036910846, unit: '%', priceDate: null, ...T20 },
    // revenue YoY = (28,176,000,000 - 24,419,873,000) / 24,419,873,000 x 100 = 15.381435439897661
    'growth.revenueYoy': { value: 15.381435439897661, unit: '%', priceDate: null, ...T20 },
    // EPS YoY: 556,000,000 / 947,900,733 = 0.5865593101086883 vs -827,517,000 / 901,224,290 = -0.9182142660624472
    //   (0.5865593101086883 - (-0.9182142660624472)) / 0.9182142660624472 x 100 = 163.88043965206666
    'growth.epsYoy': { value: 163.88043965206666, unit: '%', priceDate: null, ...T20 },
    // net-debt ratio = (12,194 - 14,531) x 100 / 16,031 = -14.578005115089514
    'stability.netDebtRatio': { value: -14.578005115089514, unit: '%', priceDate: null, ...T20 },
    // interest coverage = 1,778 / 672 = 2.6458333333333335
    'stability.interestCoverage': { value: 2.6458333333333335, unit: 'x', priceDate: null, ...T20 },
    // current ratio = 21,744 x 100 / 13,302 = 163.4641407307172
    'stability.currentRatio': { value: 163.4641407307172, unit: '%', priceDate: null, ...T20 },
    // OCF = 4,349,000,000 USD
    'cashGeneration.operatingCashFlow': { value: 4_349_000_000, unit: 'USD', priceDate: null, ...T20 },
    'cashGeneration.fcfYield': noPrice('%'),
    // CF/NI = 4,349 / 556 = 7.821942446043166
    'earningsQuality.cfToNi': { value: 7.821942446043166, unit: 'x', priceDate: null, ...T20 },
    // CCC = 1,757 x 365 / 28,176 + 4,218 x 365 / 22,221 - 4,958 x 365 / 22,221 = 10.605514316383662 days
    'earningsQuality.ccc': { value: 10.605514316383662, unit: 'days', priceDate: null, ...T20 },
  },
  perShare: {
    // TTM EPS = 556,000,000 / (947,900,733 x 3 = 2,843,702,199) = 0.19551977003622945 USD: the shares are in the
    // document's latest basis (the recording runs to late 2022, past the 3-for-1 split of 2022), the basis of the
    // split-adjusted prices; EPS YoY is the same in any one basis.
    'perShare.eps': { value: 0.19551977003622945, unit: 'USD', priceDate: null, basis: 'net income / shares at the quarter end', ...T20 },
    'perShare.dividendPerShare': { value: null, reason: /dividend/, unit: 'USD' },
    'perShare.dividendPerShareFy': { value: null, reason: /dividend/, unit: 'USD' },
    'perShare.dividendYield': { value: null, reason: /dividend/, unit: '%' },
  },
  raw: {
    psr: { value: null, reason: /price/i, unit: 'x' },
    // net margin = 556 x 100 / 28,176 = 1.9733106189664964
    netMargin: { value: 1.9733106189664964, unit: '%' },
    // operating income YoY = (1,778,000,000 - (-14,464,000)) / |-14,464,000| x 100 = 12392.58849557522
    operatingIncomeYoy: { value: 12392.58849557522, unit: '%' },
  },
});

// ---------------------------------------------------------------------------------------------
// Marvell, as of 2026-05-29 (Seoul), after the latest filing in the recording. No price recorded.
// Latest filing: 10-Q accn 0001835632-26-000019 filed 2026-05-28, 2026-02-01..2026-05-02 (90 days: Q1); the
// fiscal year it opens ends in late Jan./early Feb. 2027 -> FY2027 -> 2027Q1. (FY2026 = the 363-day year
// 2025-02-02..2026-01-31; FY2025 = 2024-02-04..2025-02-01, an end in the first week of February.)
// TTM at 2027Q1 = Q1 FY2027 (0001835632-26-000019) + FY2026 (10-K 0001835632-26-000011, 2025-02-02..2026-01-31)
//               - Q1 FY2026 (10-Q 0001835632-25-000117, 2025-02-02..2025-05-03), USD million:
//   revenue (RevenueFromContractWithCustomerExcludingAssessedTax) 2,417.8 + 8,194.6 - 1,895.3 = 8,717.1
//   cost of sales (CostOfGoodsAndServicesSold)                     1,157.0 + 4,013.9 -   942.9 = 4,228.0
//   operating income                                                 339.4 + 1,322.9 -   270.6 = 1,391.7
//   net income                                                        34.5 + 2,670.1 -   177.9 = 2,526.7
//   OCF                                                              638.8 + 1,750.5 -   332.9 = 2,056.4
//   capex                                                            155.7 +   354.1 -   118.8 =   391.0
//   interest (InterestExpenseNonoperating; no InterestExpense in these filings) 52.8 + 202.6 - 48.7 = 206.7
// Base TTM at 2026Q1 = Q1 FY2026 + FY2025 (10-K 0001835632-25-000057, 2024-02-04..2025-02-01)
//               - Q1 FY2025 (10-Q 0001835632-24-000063, 2024-02-04..2024-05-04):
//   revenue 1,895.3 + 5,767.3 - 1,160.9 = 6,501.7; operating income 270.6 + (-720.3) - (-152.3) = -297.4;
//   net income 177.9 + (-885.0) - (-215.6) = -491.5.
// Balances at 2026-05-02 (0001835632-26-000019): StockholdersEquity 18,215.8; Cash 3,843.6; AssetsCurrent 7,464.0;
//   LiabilitiesCurrent 2,276.8; AccountsReceivableNetCurrent 1,871.7; InventoryNet 1,400.9; AccountsPayableCurrent 709.7.
//   debt = LongTermDebtCurrent 0 + ShortTermBorrowings 0 + LongTermDebtNoncurrent 4,961.3 = 4,961.3.
// Shares: cover 874,800,000 (2026-05-21) now; 862,200,000 (2025-05-23, 0001835632-25-000117) at the base; no split.

const M: Ref = { referenceQuarter: '2027Q1', disclosedOn: '2026-05-28' };

runCase({
  name: 'Marvell on 2026-05-29: TTM to Q1 FY2027 (52/53-week years ending late Jan./early Feb.)',
  options: { at: '2026-05-29T03:00:00Z', sources: secOnly('MRVL') },
  code: 'MRVL',
  identity: { code: 'MRVL', market: 'US', currency: 'USD', name: 'Marvell Technology, Inc.', source: 'sec' },
  price: null,
  metrics: {
    'valuation.per': noPrice('x'),
    'valuation.pbr': noPrice('x'),
    'valuation.evEbit': noPrice('x'),
    // ROE = 2,526.7 x 100 / 18,215.8 = 13.870925240725084
    'profitability.roe': { value: 13.870925240725084, unit: '%', priceDate: null, ...M },
    // ROIC = 1,391.7 x 100 / (18,215.8 + 4,961.3 - 3,843.6 = 19,333.5) = 7.198386220808441
    'profitability.roic': { value: 7.198386220808441, unit: '%', priceDate: null, ...M },
    // operating margin = 1,391.7 x 100 / 8,717.1 = 15.965171903500018
    'profitability.operatingMargin': { value: 15.965171903500018, unit: '%', priceDate: null, ...M },
    // revenue YoY = (8,717.1 - 6,501.7) / 6,501.7 x 100 = 34.074165218327515
    'growth.revenueYoy': { value: 34.074165218327515, unit: '%', priceDate: null, ...M },
    // EPS YoY: 2,526,700,000 / 874,800,000 = 2.8883173296753544 vs -491,500,000 / 862,200,000 = -0.5700533518905126
    //   (2.8883173296753544 - (-0.5700533518905126)) / 0.5700533518905126 x 100 = 606.6749138649218
    'growth.epsYoy': { value: 606.6749138649218, unit: '%', priceDate: null, ...M },
    // net-debt ratio = (4,961.3 - 3,843.6) x 100 / 18,215.8 = 6.135882036473831
    'stability.netDebtRatio': { value: 6.135882036473831, unit: '%', priceDate: null, ...M },
    // interest coverage = 1,391.7 / 206.7 = 6.732946298984035
    'stability.interestCoverage': { value: 6.732946298984035, unit: 'x', priceDate: null, ...M },
    // current ratio = 7,464.0 x 100 / 2,276.8 = 327.8285312719606
    'stability.currentRatio': { value: 327.8285312719606, unit: '%', priceDate: null, ...M },
    // OCF = 2,056,400,000 USD
    'cashGeneration.operatingCashFlow': { value: 2_056_400_000, unit: 'USD', priceDate: null, ...M },
    'cashGeneration.fcfYield': noPrice('%'),
    // CF/NI = 2,056.4 / 2,526.7 = 0.8138678909249218
    'earningsQuality.cfToNi': { value: 0.8138678909249218, unit: 'x', priceDate: null, ...M },
    // CCC = 1,871.7 x 365 / 8,717.1 + 1,400.9 x 365 / 4,228.0 - 709.7 x 365 / 4,228.0 = 138.0420709967871 days
    'earningsQuality.ccc': { value: 138.0420709967871, unit: 'days', priceDate: null, ...M },
  },
  perShare: {
    // TTM EPS = 2,526,700,000 / 874,800,000 = 2.8883173296753544 USD
    'perShare.eps': { value: 2.8883173296753544, unit: 'USD', priceDate: null, basis: 'net income / shares at the quarter end', ...M },
    // CommonStockDividendsPerShareDeclared: Q1 FY2027 (0001835632-26-000019, 2026-02-01..2026-05-02) 0.06
    //   + FY2026 (0001835632-26-000011, 2025-02-02..2026-01-31) 0.24 - Q1 FY2026 (0001835632-25-000117) 0.06 = 0.24 USD
    'perShare.dividendPerShare': { value: 0.24, unit: 'USD', priceDate: null, ...M },
    // FY2026's 0.24, 10-K filed 2026-03-11.
    'perShare.dividendPerShareFy': { value: 0.24, unit: 'USD', priceDate: null, referenceQuarter: '2026Q4', disclosedOn: '2026-03-11' },
    // No price recorded for the date.
    'perShare.dividendYield': { value: null, reason: /price/, unit: '%' },
  },
  raw: {
    psr: { value: null, reason: /price/i, unit: 'x' },
    // net margin = 2,526.7 x 100 / 8,717.1 = 28.985557123355246
    netMargin: { value: 28.985557123355246, unit: '%' },
    // operating income YoY = (1,391.7 - (-297.4)) / 297.4 x 100 = 567.955615332885
    operatingIncomeYoy: { value: 567.955615332885, unit: '%' },
  },
});

// ---------------------------------------------------------------------------------------------
// One unknown company does not stop the Korean filings. The same FY2023 statements as above,
// but OpenDART's company.json answers "no data" (status 013) for Samsung Electronics, as it
// does for some real filers: the filer is placed from the filing list and corpCode.xml
// (code, name, KOSPI from corp_cls Y; sector unknown), its statements are stored and served
// with the same figures, the run records the skip with its reason, and when company.json
// answers on a later run the sector arrives.
describe('Samsung Electronics when company.json answers 013 (status "no data")', () => {
  let s: Scenario;
  const faults = { companyJson013: true };
  before(async () => {
    s = await startScenario({
      at: '2024-03-13T03:00:00Z',
      faults,
      sources: (base) => [new OpenDartSource({ apiKey: DUMMY.dartKey, baseUrl: base, requestsPerSecond: 0, firstRunDays: 1000, ...fast })],
    });
  });
  after(async () => {
    await s?.close();
  });

  it('keeps and serves the statements of the placed filer, with the same figures', async () => {
    const snap = await s.get('/stocks/005930/snapshot');
    assert.equal(snap.status, 200, JSON.stringify(snap.body));
    const body = snap.body as Record<string, unknown>;
    assert.deepEqual([body['name'], body['market'], body['source']], ['삼성전자', 'KR', 'opendart']);
    // net-debt ratio = (12,685,944,000,000 - 69,080,893,000,000) x 100 / 353,233,775,000,000, as above
    checkMetric(at('stability.netDebtRatio', body), { value: -15.965333156491052, unit: '%', priceDate: null, referenceQuarter: '2023Q4', disclosedOn: '2024-03-12' }, 'netDebtRatio');
    const pct = (await s.get('/stocks/005930/percentile')).body;
    assert.equal(JSON.stringify(pct).includes('"Unclassified"'), true, 'sector unknown until the company record comes');
  });

  it('records what it skipped, and why, in the run', async () => {
    const [run] = await s.app.store.refresh.refreshRuns(1);
    const statuses = JSON.parse(run!.detail) as { source: string; ok: boolean; skipped?: Record<string, number> }[];
    assert.deepEqual(statuses.map((x) => [x.source, x.ok, x.skipped]), [['opendart', true, { 'company.json status 013 (asked again next run)': 1 }]]);
  });

  it('takes the sector once company.json answers', async () => {
    faults.companyJson013 = false;
    s.clock.now = new Date('2024-03-13T04:00:00Z');
    await s.app.refresher.run();
    const pct = await s.get('/stocks/005930/percentile');
    // company.json induty_code 264 (communications equipment): Electronic Components (docs/sources.md).
    assert.equal(JSON.stringify(pct.body).includes('"Electronic Components"'), true, JSON.stringify(pct.body).slice(0, 300));
  });
});
