import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SourceHttpError } from '../../src/sources/http.js';
import { parseStatisticSearch } from '../../src/sources/ecos/parse.js';
import { EcosSource } from '../../src/sources/ecos/source.js';
import type { ProgressPatch } from '../../src/sources/progress.js';
import { context, fixture, fixtureJson, loopback } from './helpers.js';

const RATES = [
  { date: '2024-11-18', usdKrw: 1396.3, source: 'ecos' },
  { date: '2024-11-19', usdKrw: 1394.9, source: 'ecos' },
  { date: '2024-11-20', usdKrw: 1395.5, source: 'ecos' },
  { date: '2024-11-21', usdKrw: 1398, source: 'ecos' },
];

describe('ECOS parser', () => {
  it('reads rows; "1,395.5" parses and "-" is skipped', () => {
    assert.deepEqual(parseStatisticSearch(fixtureJson('ecos/usdkrw_20241118_20241122.json')), { kind: 'rows', total: 5, rates: RATES });
    assert.deepEqual(parseStatisticSearch(fixtureJson('ecos/info_200.json')), { kind: 'result', code: 'INFO-200', message: '해당하는 데이터가 없습니다.' });
  });
});

describe('EcosSource against recorded responses', () => {
  const KEY = 'ECOSKEY1234567890ABCD';

  it('requests the range after the cursor with the key in the path', async () => {
    const server = await loopback(() => ({ body: fixture('ecos/usdkrw_20241118_20241122.json') }));
    try {
      const result = await new EcosSource({ apiKey: KEY, baseUrl: server.base, requestsPerSecond: 0 }).ingest(context({ asOf: '2024-11-22', cursor: '2024-11-17' }));
      assert.deepEqual(result.data.fx, RATES);
      assert.equal(result.cursor, '2024-11-21');
      assert.equal(server.requests[0]?.url.pathname, `/api/StatisticSearch/${KEY}/json/kr/1/1000/731Y001/D/20241118/20241122/0000001`);
    } finally {
      await server.close();
    }
  });

  it('a first run reads the series from 1990, page by page, with progress in pages', async () => {
    // CONSTRUCTED: the documented StatisticSearch envelope; list_total_count 2,500 rows -> 3 pages of 1,000.
    const server = await loopback((req) => {
      const start = Number(req.url.pathname.split('/')[6]);
      const rows = start > 2_500 ? [] : [{ STAT_CODE: '731Y001', ITEM_CODE1: '0000001', UNIT_NAME: '원', TIME: start === 1 ? '19900102' : start === 1001 ? '19990104' : '20241121', DATA_VALUE: '1,398' }];
      return { body: JSON.stringify({ StatisticSearch: { list_total_count: 2_500, row: rows } }) };
    });
    try {
      const progress: ProgressPatch[] = [];
      const result = await new EcosSource({ apiKey: KEY, baseUrl: server.base, requestsPerSecond: 0 }).ingest(context({ asOf: '2024-11-22', cursor: null, progress: (p) => void progress.push(p) }));
      assert.deepEqual(server.requests.map((r) => r.url.pathname.split('/').slice(6, 8).join('-') + ' ' + r.url.pathname.split('/')[10]), ['1-1000 19900101', '1001-2000 19900101', '2001-3000 19900101']);
      assert.equal(result.cursor, '2024-11-21');
      assert.deepEqual(progress.map((p) => [p.phase, p.done, p.total]), [['calling', 0, 3], [undefined, 1, undefined], [undefined, 2, undefined], [undefined, 3, undefined], ['done', 3, 3]]);
    } finally {
      await server.close();
    }
  });

  it('INFO-200 (no data yet) keeps the cursor; other codes fail without the key', async () => {
    let body = fixture('ecos/info_200.json');
    const server = await loopback(() => ({ body }));
    try {
      const source = new EcosSource({ apiKey: KEY, baseUrl: server.base, requestsPerSecond: 0 });
      const nothing = await source.ingest(context({ asOf: '2024-11-25', cursor: '2024-11-21' }));
      assert.deepEqual([nothing.data, nothing.cursor, nothing.calls?.calls], [{ fx: [] }, '2024-11-21', 1]);
      body = fixture('ecos/info_100.json');
      await assert.rejects(source.ingest(context({ asOf: '2024-11-25', cursor: '2024-11-21' })), (err: unknown) => {
        assert.ok(err instanceof SourceHttpError);
        assert.match(err.message, /INFO-100/);
        assert.ok(!err.message.includes(KEY) && !err.url.includes(KEY));
        return true;
      });
    } finally {
      await server.close();
    }
  });
});
