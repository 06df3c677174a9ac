// asOf on REAL filings (test/fixtures/real, PROVENANCE.md): Samsung Electronics' annual reports
// (OpenDART fnlttSinglAcntAll CFS, FY2019-FY2023, each listed with its receipt date) and the FSC
// close of 2022-06-22, served through the real adapters from a loopback upstream (./upstream.ts).
//
// Two services: one whose clock is 2024-03-13 (every report received), asked as of past days; and
// one whose clock is 2023-03-06, the day before the FY2022 report (사업보고서 2022.12, rcept_no
// 20230307000542) was received, which never saw it. As of 2023-03-06 the first must answer the
// second's snapshot; as of 2023-03-07 it must answer FY2022's figures.
//
// Hand-derived figures (won; CFS `thstrm_amount` rows):
//   FY2021 (rcept_no 20220308000798, received 2022-03-08): ROE = 39,243,791,000,000 x 100 /
//     296,237,697,000,000 = 13.247399435460775 (as in real-filings.test.ts).
//   FY2022 (rcept_no 20230307000542, received 2023-03-07):
//     IS ord 15 지배기업의 소유주에게 귀속되는 당기순이익(손실) 54,730,018,000,000
//     BS ord 45 지배기업 소유주지분 345,186,142,000,000
//     IS ord 0 수익(매출액) 302,231,360,000,000; IS ord 4 영업이익 43,376,630,000,000
//     ROE = 54,730,018,000,000 x 100 / 345,186,142,000,000 = 15.855218776424692
//     operating margin = 43,376,630,000,000 x 100 / 302,231,360,000,000 = 14.35212745626397
//     revenue YoY = (302,231,360,000,000 - 279,604,799,000,000) / 279,604,799,000,000 x 100 = 8.092336426600461
//   The earliest as-of day: the first TTM is FY2019's (received in March 2020), the only close is
//   2022-06-22's, so the first day with both is 2022-06-22.
//   No close lies within the snapshot's 60-day price window of 2023-03-06 or 2023-03-07: the price is null.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FscSource, OpenDartSource } from '../../src/sources/index.js';
import { DUMMY, startScenario, type Scenario } from './scenario.js';

const fast = { timeoutMs: 10_000, retries: 0, backoffMs: 1 };
const sources = (base: string) => [
  // firstRunDays: the first run's list.json window reaches back to the FY2019 report.
  new OpenDartSource({ apiKey: DUMMY.dartKey, baseUrl: base, requestsPerSecond: 0, firstRunDays: 1_900, ...fast }),
  // The first run walks back day by day past empty days to the one recorded close (2022-06-22).
  new FscSource({ serviceKey: DUMMY.dataGoKrKey, baseUrl: `${base}/1160100/service/GetStockSecuritiesInfoService`, requestsPerSecond: 0, maxDaysPerRun: 1_000, emptyDaysToStop: 1_000, ...fast }),
];

type Metric = { value: number | null; referenceQuarter: string | null; disclosedOn: string | null };
type Snapshot = { price: unknown; profitability: { roe: Metric; operatingMargin: Metric }; growth: { revenueYoy: Metric }; asOf?: { date: string; lastSession: string | null; lastDisclosure: string | null }; updatedAt: string };

const close = (actual: number | null, expected: number) => assert.ok(actual !== null && Math.abs(actual - expected) <= 1e-9 * Math.abs(expected), `${actual} ~ ${expected}`);

describe('Samsung Electronics as of the days around its FY2022 annual report (real filings)', () => {
  let later: Scenario;
  let eve: Scenario;
  before(async () => {
    later = await startScenario({ at: '2024-03-13T03:00:00Z', sources });
    eve = await startScenario({ at: '2023-03-06T03:00:00Z', sources });
  });
  after(async () => {
    await later?.close();
    await eve?.close();
  });

  it('names 2022-06-22 as the earliest day, and refuses the day before', async () => {
    const health = (await later.get('/health')).body as { asOf: { earliest: string | null } };
    assert.equal(health.asOf.earliest, '2022-06-22');
    const refused = await later.get('/stocks/005930/snapshot?asOf=2022-06-21');
    assert.equal(refused.status, 400);
    assert.match((refused.body as { detail: string }).detail, /2022-06-22/);
  });

  it('as of 2023-03-06 answers the snapshot of a service that never received the FY2022 report', async () => {
    const asOf = await later.get('/stocks/005930/snapshot?asOf=2023-03-06');
    assert.equal(asOf.status, 200, JSON.stringify(asOf.body));
    const today = await eve.get('/stocks/005930/snapshot');
    assert.equal(today.status, 200, JSON.stringify(today.body));
    const { asOf: block, updatedAt: _a, ...figures } = asOf.body as Snapshot;
    const { updatedAt: _b, ...expected } = today.body as Snapshot;
    assert.deepEqual(figures, expected);
    assert.deepEqual(block, { date: '2023-03-06', lastSession: null, lastDisclosure: '2022-03-08' });
    const roe = (asOf.body as Snapshot).profitability.roe;
    close(roe.value, 13.247399435460775);
    assert.equal(roe.referenceQuarter, '2021Q4');
    assert.equal(roe.disclosedOn, '2022-03-08');
  });

  it('as of 2023-03-07 answers FY2022, received that day', async () => {
    const res = await later.get('/stocks/005930/snapshot?asOf=2023-03-07');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const body = res.body as Snapshot;
    assert.deepEqual(body.asOf, { date: '2023-03-07', lastSession: null, lastDisclosure: '2023-03-07' });
    assert.equal(body.price, null);
    for (const [metric, expected] of [
      [body.profitability.roe, 15.855218776424692],
      [body.profitability.operatingMargin, 14.35212745626397],
      [body.growth.revenueYoy, 8.092336426600461],
    ] as const) {
      close(metric.value, expected);
      assert.equal(metric.referenceQuarter, '2022Q4');
      assert.equal(metric.disclosedOn, '2023-03-07');
    }
  });
});
