import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DailyBar } from '../../src/domain/model.js';
import { SourceHttpError } from '../../src/sources/http.js';
import { parseFscItem, parseFscPage } from '../../src/sources/fsc/parse.js';
import { FscSource } from '../../src/sources/fsc/source.js';
import type { ProgressPatch } from '../../src/sources/progress.js';
import { context, fixture, fixtureJson, loopback, type Recorded, type Reply } from './helpers.js';

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

describe('FscSource by date', () => {
  const KEY = 'fsc+key/with=chars';

  // The fixtures' rows (hand-written in the documented format): 2024-11-20 Samsung, Kakao,
  // East Asia (suspended), a KONEX row (EMB); 2024-11-21 Samsung.
  const rows1 = (fixtureJson('fsc/page1.json') as { response: { body: { items: { item: Record<string, string>[] } } } }).response.body.items.item;
  const rows2 = (fixtureJson('fsc/page2.json') as { response: { body: { items: { item: Record<string, string>[] } } } }).response.body.items.item;
  const byDate = new Map<string, Record<string, string>[]>([
    ['20241120', [...rows1, rows2[0] as Record<string, string>]],
    ['20241121', [rows2[1] as Record<string, string>]],
  ]);
  /** CONSTRUCTED: the documented envelope around a date's rows, paged by numOfRows/pageNo with totalCount. */
  const page = (rows: Record<string, string>[], req: Recorded): Reply => {
    const size = Number(req.url.searchParams.get('numOfRows'));
    const no = Number(req.url.searchParams.get('pageNo'));
    const items = rows.slice((no - 1) * size, no * size);
    return { body: JSON.stringify({ response: { header: { resultCode: '00', resultMsg: 'NORMAL SERVICE.' }, body: { numOfRows: size, pageNo: no, totalCount: rows.length, items: items.length > 0 ? { item: items } : '' } } }) };
  };
  const asked = (requests: Recorded[]): string[][] =>
    requests.map((r) => [r.url.searchParams.get('beginBasDt') ?? '', r.url.searchParams.get('endBasDt') ?? '', r.url.searchParams.get('pageNo') ?? '']);

  it('one date per call, paged by totalCount; the cursor keeps the newest date with rows', async () => {
    const server = await loopback((req) => page(byDate.get(req.url.searchParams.get('beginBasDt') ?? '') ?? [], req));
    try {
      const source = new FscSource({ serviceKey: KEY, baseUrl: server.base, pageSize: 3, requestsPerSecond: 0 });
      // A cursor written before the history walk (a bare date) reads as history complete.
      const result = await source.ingest(context({ asOf: '2024-11-21', cursor: '2024-11-19' }));
      assert.deepEqual(result.data.bars, [SAMSUNG_1120, KAKAO_1120, EAST_ASIA_1120, SAMSUNG_1121]);
      assert.deepEqual(
        result.data.securities?.map((s) => [s.code, s.name, s.exchange]),
        [['005930', '삼성전자', 'KOSPI'], ['035720', '카카오', 'KOSPI'], ['900110', '이스트아시아홀딩스', 'KOSDAQ']],
      );
      assert.equal(result.cursor, '{"date":"2024-11-21","back":null,"complete":true}');
      // 2024-11-20 has 4 rows: pages 1 (3 rows) and 2 (1 row); 2024-11-21 one page. endBasDt is exclusive.
      assert.deepEqual(asked(server.requests), [['20241120', '20241121', '1'], ['20241120', '20241121', '2'], ['20241121', '20241122', '1']]);
      // The raw key is sent percent-encoded once.
      assert.equal(server.requests[0]?.url.searchParams.get('serviceKey'), KEY);
      assert.deepEqual(result.calls?.calls, 3);
    } finally {
      await server.close();
    }
  });

  it('asks only for sessions closed at `now` (15:30 in Seoul)', async () => {
    const server = await loopback((req) => page([], req));
    try {
      const source = new FscSource({ serviceKey: KEY, baseUrl: server.base, requestsPerSecond: 0 });
      // Monday 2026-11-23: a minute before the close Friday is the last closed session; a minute after, Monday.
      await source.ingest(context({ asOf: '2026-11-23', now: new Date('2026-11-23T15:29:00+09:00'), cursor: '2026-11-19' }));
      assert.deepEqual(asked(server.requests).map((a) => a[0]), ['20261120']);
      server.requests.length = 0;
      await source.ingest(context({ asOf: '2026-11-23', now: new Date('2026-11-23T15:31:00+09:00'), cursor: '2026-11-19' }));
      assert.deepEqual(asked(server.requests).map((a) => a[0]), ['20261120', '20261123']);
    } finally {
      await server.close();
    }
  });

  it('keeps the newest date when nothing is published yet (asked again next run)', async () => {
    const server = await loopback(() => ({ body: fixture('fsc/empty.json') }));
    try {
      const result = await new FscSource({ serviceKey: KEY, baseUrl: server.base, requestsPerSecond: 0 }).ingest(context({ cursor: '2024-11-20' }));
      assert.deepEqual(result.data, { bars: [], securities: [] });
      assert.equal(result.cursor, '{"date":"2024-11-20","back":null,"complete":true}');
    } finally {
      await server.close();
    }
  });

  it('a first run walks back newest first and stops where the provider\'s history ends; progress in days', async () => {
    const server = await loopback((req) => page(byDate.get(req.url.searchParams.get('beginBasDt') ?? '') ?? [], req));
    try {
      const progress: ProgressPatch[] = [];
      const source = new FscSource({ serviceKey: KEY, baseUrl: server.base, requestsPerSecond: 0, historyDays: 30, emptyDaysToStop: 3 });
      const result = await source.ingest(context({ asOf: '2024-11-21', cursor: null, progress: (p) => void progress.push(p) }));
      // 11-21 and 11-20 have rows; 11-19, 11-18, 11-15 none: three empty weekdays after rows -> complete.
      assert.deepEqual(asked(server.requests).map((a) => a[0]), ['20241121', '20241120', '20241119', '20241118', '20241115']);
      assert.equal(result.cursor, '{"date":"2024-11-21","back":"2024-11-15","complete":true}');
      assert.equal(result.data.bars?.length, 4);
      // The window 2024-10-22 (asOf - 30) .. 2024-11-21 holds 23 weekdays: Oct 22-25 (4), Oct 28-Nov 1 (5),
      // Nov 4-8 (5), 11-15 (5), 18-21 (4).
      assert.deepEqual([progress[0]?.phase, progress[0]?.unit, progress[0]?.done, progress[0]?.total], ['calling', 'days', 0, 23]);
      assert.deepEqual([progress.at(-1)?.phase, progress.at(-1)?.done], ['done', 5]);
    } finally {
      await server.close();
    }
  });

  it('a history walk bounded per run resumes where it stopped, progress counting earlier runs', async () => {
    const every = (req: Recorded): Reply => page(byDate.get('20241121') ?? [], req);
    const server = await loopback(every);
    try {
      const progress: ProgressPatch[] = [];
      const config = { serviceKey: KEY, baseUrl: server.base, requestsPerSecond: 0, historyDays: 14, maxDaysPerRun: 2 };
      const run = (cursor: string | null, maxDaysPerRun = 2): Promise<{ cursor: string }> =>
        new FscSource({ ...config, maxDaysPerRun }).ingest(context({ asOf: '2024-11-21', cursor, progress: (p) => void progress.push(p) }));
      // Window 2024-11-07 .. 11-21: 11 weekdays (7, 8, 11-15, 18-21).
      const first = await run(null);
      assert.equal(first.cursor, '{"date":"2024-11-21","back":"2024-11-20","complete":false}');
      assert.deepEqual([progress.at(-1)?.phase, progress.at(-1)?.done, progress.at(-1)?.total], ['waiting', 2, 11]);
      progress.length = 0;
      const second = await run(first.cursor);
      assert.equal(second.cursor, '{"date":"2024-11-21","back":"2024-11-18","complete":false}');
      // Two of 11 done before this run.
      assert.deepEqual([progress[0]?.done, progress[0]?.total], [2, 11]);
      const third = await run(second.cursor, 20);
      assert.equal(third.cursor, '{"date":"2024-11-21","back":"2024-11-07","complete":true}');
      assert.deepEqual(asked(server.requests).map((a) => (a[0] ?? '').slice(4)), ['1121', '1120', '1119', '1118', '1115', '1114', '1113', '1112', '1111', '1108', '1107']);
    } finally {
      await server.close();
    }
  });

  it('out of the day\'s allowance (ours or the gateway\'s code 22): stops with the dates it has, paced', async () => {
    const quota = '<OpenAPI_ServiceResponse><cmmMsgHeader><errMsg>SERVICE ERROR</errMsg><returnAuthMsg>LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR</returnAuthMsg><returnReasonCode>22</returnReasonCode></cmmMsgHeader></OpenAPI_ServiceResponse>';
    let calls = 0;
    // CONSTRUCTED: the gateway's quota envelope (as documented in src/sources/shared/datagokr.ts) on the third call.
    const server = await loopback((req) => (++calls === 3 ? { body: quota } : page(byDate.get('20241121') ?? [], req)));
    try {
      const clock = (): Date => new Date('2024-11-21T03:00:00Z');
      // Our meter: 2 calls allowed.
      const progress: ProgressPatch[] = [];
      const small = await new FscSource({ serviceKey: KEY, baseUrl: server.base, requestsPerSecond: 0, dailyAllowance: 2, clock })
        .ingest(context({ asOf: '2024-11-21', cursor: null, progress: (p) => void progress.push(p) }));
      assert.equal(small.cursor, '{"date":"2024-11-21","back":"2024-11-20","complete":false}');
      assert.equal(small.data.bars?.length, 2);
      assert.equal(progress.at(-1)?.phase, 'paced');
      assert.equal(progress.at(-1)?.nextTryAt?.toISOString(), '2024-11-21T15:00:00.000Z');
      // The gateway's word: the third call answers code 22.
      calls = 0;
      const gateway = new FscSource({ serviceKey: KEY, baseUrl: server.base, requestsPerSecond: 0, clock });
      const result = await gateway.ingest(context({ asOf: '2024-11-21', cursor: null }));
      assert.equal(result.cursor, '{"date":"2024-11-21","back":"2024-11-20","complete":false}');
      assert.deepEqual(result.calls, { day: '2024-11-21', calls: 10_000 });
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
