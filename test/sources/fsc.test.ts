import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DailyBar } from '../../src/domain/model.js';
import { SourceHttpError } from '../../src/sources/http.js';
import { parseFscItem, parseFscPage } from '../../src/sources/fsc/parse.js';
import { FscSource } from '../../src/sources/fsc/source.js';
import { context, fixture, fixtureJson, loopback } from './helpers.js';

const SAMSUNG_1120: DailyBar = {
  market: 'KR', code: '005930', date: '2024-11-20', open: 55_400, high: 56_100, low: 55_000, close: 55_300,
  volume: 17_540_301, tradedValue: 977_519_587_000, shares: 5_969_782_550, marketCap: 330_128_975_015_000, source: 'fsc',
};
const KAKAO_1120: DailyBar = {
  market: 'KR', code: '035720', date: '2024-11-20', open: 34_850, high: 35_600, low: 34_700, close: 35_300,
  volume: 1_233_017, tradedValue: 43_381_129_300, shares: 442_540_174, marketCap: 15_621_668_142_200, source: 'fsc',
};
// Suspended that day: mkp/hipr/lopr "0", so open/high/low take the close.
const EAST_ASIA_1120: DailyBar = {
  market: 'KR', code: '900110', date: '2024-11-20', open: 167, high: 167, low: 167, close: 167,
  volume: 0, tradedValue: 0, shares: 219_932_050, marketCap: 36_728_652_350, source: 'fsc',
};
const SAMSUNG_1121: DailyBar = {
  market: 'KR', code: '005930', date: '2024-11-21', open: 55_100, high: 56_700, low: 55_000, close: 56_400,
  volume: 18_952_106, tradedValue: 1_064_839_547_100, shares: 5_969_782_550, marketCap: 336_695_735_820_000, source: 'fsc',
};

describe('FSC parsers', () => {
  it('reads the envelope, paging fields and items', () => {
    const page = parseFscPage(fixtureJson('fsc/page1.json'));
    assert.ok(page);
    assert.deepEqual([page.resultCode, page.pageNo, page.numOfRows, page.totalCount, page.items.length], ['00', 1, 3, 5, 3]);
    assert.deepEqual(page.items.map((i) => parseFscItem(i)?.bar), [SAMSUNG_1120, KAKAO_1120, EAST_ASIA_1120]);
  });

  it('treats `"items": ""` as no rows and skips KONEX', () => {
    assert.deepEqual(parseFscPage(fixtureJson('fsc/empty.json'))?.items, []);
    const konex = parseFscPage(fixtureJson('fsc/page2.json'))?.items[0];
    assert.ok(konex);
    assert.equal(parseFscItem(konex), null);
  });
});

describe('FscSource against recorded responses', () => {
  const KEY = 'fsc+key/with=chars';

  it('fetches every page after the cursor and advances it to the last trading day', async () => {
    const server = await loopback((req) => ({ body: fixture(`fsc/page${req.url.searchParams.get('pageNo')}.json`) }));
    try {
      const source = new FscSource({ serviceKey: KEY, baseUrl: server.base, pageSize: 3, requestsPerSecond: 0 });
      const result = await source.ingest(context({ asOf: '2024-11-21', cursor: '2024-11-19' }));
      assert.deepEqual(result.data.bars, [SAMSUNG_1120, KAKAO_1120, EAST_ASIA_1120, SAMSUNG_1121]);
      assert.deepEqual(
        result.data.securities?.map((s) => [s.code, s.name, s.exchange]),
        [['005930', '삼성전자', 'KOSPI'], ['035720', '카카오', 'KOSPI'], ['900110', '이스트아시아홀딩스', 'KOSDAQ']],
      );
      assert.equal(result.cursor, '2024-11-21');
      const first = server.requests[0]?.url.searchParams;
      // The raw key is sent percent-encoded once; endBasDt is exclusive, so the day after asOf.
      assert.equal(first?.get('serviceKey'), KEY);
      assert.deepEqual([first?.get('beginBasDt'), first?.get('endBasDt'), first?.get('resultType')], ['20241120', '20241122', 'json']);
      assert.equal(server.requests.length, 2);
    } finally {
      await server.close();
    }
  });

  it('asks only for sessions closed at `now` (15:30 in Seoul)', async () => {
    const server = await loopback(() => ({ body: fixture('fsc/empty.json') }));
    try {
      const source = new FscSource({ serviceKey: KEY, baseUrl: server.base, requestsPerSecond: 0 });
      // Monday 2026-11-23: a minute before the close Friday is the last closed session; a minute after, Monday.
      await source.ingest(context({ asOf: '2026-11-23', now: new Date('2026-11-23T15:29:00+09:00'), cursor: '2026-11-19' }));
      await source.ingest(context({ asOf: '2026-11-23', now: new Date('2026-11-23T15:31:00+09:00'), cursor: '2026-11-19' }));
      // endBasDt is exclusive: the day after the last session asked for.
      assert.deepEqual(
        server.requests.map((r) => [r.url.searchParams.get('beginBasDt'), r.url.searchParams.get('endBasDt')]),
        [['20261120', '20261121'], ['20261120', '20261124']],
      );
    } finally {
      await server.close();
    }
  });

  it('keeps the cursor when nothing is published yet', async () => {
    const server = await loopback(() => ({ body: fixture('fsc/empty.json') }));
    try {
      const result = await new FscSource({ serviceKey: KEY, baseUrl: server.base, requestsPerSecond: 0 }).ingest(context({ cursor: '2024-11-20' }));
      assert.deepEqual(result, { data: { bars: [], securities: [] }, cursor: '2024-11-20' });
    } finally {
      await server.close();
    }
  });

  it('reports the data.go.kr gateway XML error (HTTP 200) without the key', async () => {
    const server = await loopback(() => ({ body: fixture('fsc/gateway_error.xml') }));
    try {
      await assert.rejects(new FscSource({ serviceKey: KEY, baseUrl: server.base, requestsPerSecond: 0 }).ingest(context()), (err: unknown) => {
        assert.ok(err instanceof SourceHttpError);
        assert.match(err.message, /gateway error 30 SERVICE_KEY_IS_NOT_REGISTERED_ERROR/);
        assert.ok(!err.message.includes(KEY) && !err.message.includes(encodeURIComponent(KEY)));
        return true;
      });
    } finally {
      await server.close();
    }
  });
});
