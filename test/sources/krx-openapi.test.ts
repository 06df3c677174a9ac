// The KRX Open API adapter on real recorded answers (test/fixtures/real/krx-openapi/, see
// PROVENANCE.md): KOSPI and KOSDAQ daily trading of 2024-01-04 and 2024-01-05 and both markets'
// listings of 2024-01-04, served on a loopback server at the API's paths.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import type { DailyBar } from '../../src/domain/model.js';
import { SourceHttpError } from '../../src/sources/http.js';
import { outBlock, parseListing, parseTradeRow, refusal } from '../../src/sources/krxapi/parse.js';
import { KrxOpenApiSource } from '../../src/sources/krxapi/source.js';
import type { ProgressPatch } from '../../src/sources/progress.js';
import { context, loopback, type Recorded, type Reply } from './helpers.js';

const real = (name: string): string => gunzipSync(readFileSync(new URL(`../fixtures/real/krx-openapi/${name}.json.gz`, import.meta.url))).toString('utf8');
const rowsOf = (name: string): Record<string, unknown>[] => outBlock(JSON.parse(real(name))) ?? [];

// Samsung Electronics, 2024-01-04, as recorded: open 76,100, high 77,300, low 76,100, close
// 76,600; 15,324,439 shares for 1,173,912,901,977 won; 5,969,782,550 listed shares, and
// MKTCAP 457,285,343,330,000 = 5,969,782,550 x 76,600.
const SAMSUNG_0104: DailyBar = {
  market: 'KR', code: '005930', date: '2024-01-04', open: 76_100, high: 77_300, low: 76_100, close: 76_600,
  volume: 15_324_439, tradedValue: 1_173_912_901_977, shares: 5_969_782_550, marketCap: 457_285_343_330_000, source: 'krx-openapi',
};
// IHQ did not trade that day: TDD_OPNPRC/HGPRC/LWPRC "0", close 10,760, so open/high/low take the close.
// 5,474,569 listed shares x 10,760 = 58,906,362,440 (MKTCAP as recorded).
const IHQ_0104: DailyBar = {
  market: 'KR', code: '003560', date: '2024-01-04', open: 10_760, high: 10_760, low: 10_760, close: 10_760,
  volume: 0, tradedValue: 0, shares: 5_474_569, marketCap: 58_906_362_440, source: 'krx-openapi',
};
// A KOSDAQ row: 에코프로비엠, close 279,000 x 97,801,344 shares = 27,286,574,976,000.
const ECOPRO_BM_0104: DailyBar = {
  market: 'KR', code: '247540', date: '2024-01-04', open: 265_500, high: 279_000, low: 265_000, close: 279_000,
  volume: 611_803, tradedValue: 167_625_103_000, shares: 97_801_344, marketCap: 27_286_574_976_000, source: 'krx-openapi',
};

describe('KRX Open API parsers, on the recorded answers', () => {
  it('KOSPI 2024-01-04: 953 rows, 930 taken (23 codes with a letter, such as 00104K, are not six digits)', () => {
    const rows = rowsOf('stk_bydd_trd_20240104');
    assert.equal(rows.length, 953);
    const taken = rows.map((r) => parseTradeRow(r, '2024-01-04')).filter((r) => r !== null);
    assert.equal(taken.length, 930);
    assert.deepEqual(taken.find((r) => r.bar.code === '005930')?.bar, SAMSUNG_0104);
    assert.deepEqual(taken.find((r) => r.bar.code === '003560')?.bar, IHQ_0104);
    assert.deepEqual(taken.find((r) => r.bar.code === '005930')?.security, {
      market: 'KR', code: '005930', name: '삼성전자', exchange: 'KOSPI', sector: 'Unclassified', currency: 'KRW', fiscalYearEndMonth: 12, source: 'krx-openapi',
    });
    assert.equal(parseTradeRow(rows.find((r) => r['ISU_CD'] === '00104K') ?? {}, '2024-01-04'), null);
  });

  it('KOSDAQ 2024-01-04: 1,703 rows, 1,702 taken (03481K left out); the market is KOSDAQ', () => {
    const taken = rowsOf('ksq_bydd_trd_20240104').map((r) => parseTradeRow(r, '2024-01-04')).filter((r) => r !== null);
    assert.equal(taken.length, 1_702);
    assert.deepEqual(taken.find((r) => r.bar.code === '247540')?.bar, ECOPRO_BM_0104);
    assert.ok(taken.every((r) => r.security.exchange === 'KOSDAQ'));
  });

  it('listings: 953 + 1,703 rows by short code, with the English name and the listing date', () => {
    const listing = new Map([...parseListing(rowsOf('stk_isu_base_info_20240104')), ...parseListing(rowsOf('ksq_isu_base_info_20240104'))]);
    // 2,656 rows; the six-digit short codes among them: 2,632, as many as the trading rows taken.
    assert.equal(listing.size, 2_632);
    assert.deepEqual(listing.get('005930'), { code: '005930', nameEn: 'SamsungElectronics', listedOn: '1975-06-11', kind: '보통주' });
  });

  it('a refusal is read as one; an empty day is an empty list', () => {
    // In the API's documented shape (HTTP 401); not a recording.
    assert.deepEqual(refusal({ respMsg: 'Unauthorized API Call', respCode: '401' }), { code: '401', message: 'Unauthorized API Call' });
    assert.equal(refusal({ OutBlock_1: [] }), null);
    assert.deepEqual(outBlock({ OutBlock_1: [] }), []);
    assert.equal(outBlock('LOGOUT'), null);
  });
});

describe('KrxOpenApiSource by date', () => {
  const KEY = 'krx-openapi-test-key';
  /** The recordings by path and basDd; a date without one answers `{"OutBlock_1":[]}`, as the API does for a day it has nothing for. */
  const RECORDED: Record<string, string> = {
    '/sto/stk_bydd_trd?20240104': 'stk_bydd_trd_20240104',
    '/sto/stk_bydd_trd?20240105': 'stk_bydd_trd_20240105',
    '/sto/ksq_bydd_trd?20240104': 'ksq_bydd_trd_20240104',
    '/sto/ksq_bydd_trd?20240105': 'ksq_bydd_trd_20240105',
    '/sto/stk_isu_base_info?20240104': 'stk_isu_base_info_20240104',
    '/sto/ksq_isu_base_info?20240104': 'ksq_isu_base_info_20240104',
  };
  const bodies = new Map(Object.entries(RECORDED).map(([k, name]) => [k, real(name)]));
  const serve = (req: Recorded): Reply => ({ body: bodies.get(`${req.url.pathname}?${req.url.searchParams.get('basDd') ?? ''}`) ?? '{"OutBlock_1":[]}' });
  const asked = (requests: Recorded[]): string[] => requests.map((r) => `${r.url.pathname.slice(5)} ${r.url.searchParams.get('basDd') ?? ''}`);
  // 2024-01-05 is a Friday; its session closed at 15:30 Seoul.
  const after = new Date('2024-01-05T16:00:00+09:00');

  it('a first run walks back newest first, both markets a date, to where the rows stop; then the listings of the newest date', async () => {
    const server = await loopback(serve);
    try {
      const progress: ProgressPatch[] = [];
      const source = new KrxOpenApiSource({ authKey: KEY, baseUrl: server.base, requestsPerSecond: 0, historyDays: 14, emptyDaysToStop: 3 });
      const result = await source.ingest(context({ asOf: '2024-01-05', now: after, cursor: null, progress: (p) => void progress.push(p) }));
      // 01-05 and 01-04 have rows; 01-03, 01-02 and 01-01 none: three empty weekdays after rows -> complete.
      assert.deepEqual(asked(server.requests), [
        'stk_bydd_trd 20240105', 'ksq_bydd_trd 20240105',
        'stk_bydd_trd 20240104', 'ksq_bydd_trd 20240104',
        'stk_bydd_trd 20240103', 'ksq_bydd_trd 20240103',
        'stk_bydd_trd 20240102', 'ksq_bydd_trd 20240102',
        'stk_bydd_trd 20240101', 'ksq_bydd_trd 20240101',
        'stk_isu_base_info 20240105', 'ksq_isu_base_info 20240105',
      ]);
      assert.ok(server.requests.every((r) => r.headers['auth_key'] === KEY && r.method === 'GET'));
      assert.equal(result.cursor, '{"date":"2024-01-05","back":"2024-01-01","complete":true}');
      // 930 KOSPI + 1,702 KOSDAQ bars a date, two dates.
      assert.equal(result.data.bars?.length, 2 * 2_632);
      assert.deepEqual(result.data.bars?.find((b) => b.code === '005930' && b.date === '2024-01-04'), SAMSUNG_0104);
      assert.equal(result.data.securities?.length, 2_632);
      assert.deepEqual(result.calls?.calls, 12);
      // The window 2023-12-22 (asOf - 14) .. 2024-01-05 holds 11 weekdays; five walked.
      assert.deepEqual([progress[0]?.phase, progress[0]?.unit, progress[0]?.total, progress[0]?.dailyAllowance], ['calling', 'days', 11, 10_000]);
      assert.deepEqual([progress.at(-1)?.phase, progress.at(-1)?.done], ['done', 5]);
    } finally {
      await server.close();
    }
  });

  it('the next run asks only the new sessions, and the English names come from the listings of the newest date', async () => {
    const server = await loopback(serve);
    try {
      const source = new KrxOpenApiSource({ authKey: KEY, baseUrl: server.base, requestsPerSecond: 0 });
      const result = await source.ingest(context({ asOf: '2024-01-04', now: new Date('2024-01-04T16:00:00+09:00'), cursor: '{"date":"2024-01-03","back":"2014-01-02","complete":true}' }));
      assert.deepEqual(asked(server.requests), ['stk_bydd_trd 20240104', 'ksq_bydd_trd 20240104', 'stk_isu_base_info 20240104', 'ksq_isu_base_info 20240104']);
      assert.equal(result.cursor, '{"date":"2024-01-04","back":"2014-01-02","complete":true}');
      const samsung = result.data.securities?.find((s) => s.code === '005930');
      assert.deepEqual([samsung?.name, samsung?.nameEn, samsung?.exchange], ['삼성전자', 'SamsungElectronics', 'KOSPI']);
      // Before 15:30 on 2024-01-05 only the 4th is closed: nothing new is asked (the listings neither).
      server.requests.length = 0;
      const early = await source.ingest(context({ asOf: '2024-01-05', now: new Date('2024-01-05T15:29:00+09:00'), cursor: result.cursor }));
      assert.deepEqual(asked(server.requests), []);
      assert.equal(early.cursor, result.cursor);
    } finally {
      await server.close();
    }
  });

  it('out of the day\'s allowance: stops with the dates it has, paced until Seoul midnight', async () => {
    const server = await loopback(serve);
    try {
      const progress: ProgressPatch[] = [];
      const clock = (): Date => new Date('2024-01-05T07:00:00Z');
      const source = new KrxOpenApiSource({ authKey: KEY, baseUrl: server.base, requestsPerSecond: 0, dailyAllowance: 3, clock });
      const result = await source.ingest(context({ asOf: '2024-01-05', now: after, cursor: null, progress: (p) => void progress.push(p) }));
      // Calls 1-2: 01-05 both markets; call 3: 01-04 KOSPI; the 4th would pass the allowance.
      assert.equal(server.requests.length, 3);
      assert.equal(result.cursor, '{"date":"2024-01-05","back":"2024-01-05","complete":false}');
      assert.equal(result.data.bars?.length, 2_632 + 930);
      assert.equal(progress.at(-1)?.phase, 'paced');
      assert.equal(progress.at(-1)?.nextTryAt?.toISOString(), '2024-01-05T15:00:00.000Z');
    } finally {
      await server.close();
    }
  });

  it('a refused key or a service without approval fails the run naming which, never the key', async () => {
    for (const [message, hint] of [
      ['Unauthorized Key', /check KRX_OPENAPI_KEY/],
      ['Unauthorized API Call', /no approval for sto\/stk_bydd_trd: apply for the service on openapi\.krx\.co\.kr/],
    ] as const) {
      // In the API's documented shape (HTTP 401 with respCode/respMsg); not a recording.
      const server = await loopback(() => ({ status: 401, body: JSON.stringify({ respMsg: message, respCode: '401' }) }));
      try {
        await assert.rejects(new KrxOpenApiSource({ authKey: KEY, baseUrl: server.base, requestsPerSecond: 0, retries: 0 }).ingest(context({ asOf: '2024-01-05', now: after })), (err: unknown) => {
          assert.ok(err instanceof SourceHttpError);
          assert.equal(err.kind, 'upstream');
          assert.match(err.message, new RegExp(`refused sto/stk_bydd_trd: 401 ${message}`));
          assert.match(err.message, hint);
          assert.ok(!err.message.includes(KEY));
          return true;
        });
      } finally {
        await server.close();
      }
    }
  });

  it('fromEnv: KRX_OPENAPI_KEY enables it; the base URL, allowance and history are optional', () => {
    assert.equal(KrxOpenApiSource.fromEnv({}), null);
    assert.equal(KrxOpenApiSource.fromEnv({ KRX_OPENAPI_KEY: ' ' }), null);
    const source = KrxOpenApiSource.fromEnv({ KRX_OPENAPI_KEY: 'k', KRX_OPENAPI_DAILY_ALLOWANCE: '500' });
    assert.equal(source?.name, 'krx-openapi');
    assert.equal(source?.meter.dailyAllowance, 500);
  });
});
