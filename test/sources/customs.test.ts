import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SourceHttpError } from '../../src/sources/http.js';
import { parseCustomsXml, toSectorExports, toTradeMonths } from '../../src/sources/customs/parse.js';
import { sectorOfHs } from '../../src/sources/customs/sectors.js';
import { EXPORT_SECTORS } from '../../src/sources/shared/export-sectors.js';
import { CustomsSource } from '../../src/sources/customs/source.js';
import type { ProgressPatch } from '../../src/sources/progress.js';
import { context, fixture, loopback } from './helpers.js';

const TOTALS_Q1_2024 = [
  { month: '2024-01', exports: 54_811_745_418, imports: 55_115_194_441, balance: -303_449_023, source: 'customs' },
  { month: '2024-02', exports: 52_411_898_774, imports: 48_113_135_644, balance: 4_298_763_130, source: 'customs' },
  { month: '2024-03', exports: 56_555_713_466, imports: 52_274_641_416, balance: 4_281_072_050, source: 'customs' },
];

describe('Customs parsers', () => {
  it('monthly totals drop the trailing 총계 row', () => {
    const page = parseCustomsXml(fixture('customs/newtrade_2024.xml'));
    assert.equal(page?.items.length, 4);
    assert.deepEqual(toTradeMonths(page?.items ?? []), TOTALS_Q1_2024);
  });

  it('sector exports sum HSK rows by prefix; unmatched goes to Other; commas parsed', () => {
    const page = parseCustomsXml(fixture('customs/itemtrade_202403.xml'));
    const rows = toSectorExports(page?.items ?? []).filter((r) => r.exports !== 0);
    // Rows come in EXPORT_SECTORS (alphabetical) order.
    assert.deepEqual(rows, [
      { month: '2024-03', sector: 'Automobiles', exports: 6_012_771_023, source: 'customs' },
      // 8542321010 디램 9,802,315,552 + 8541490000 702,114,210 (854149 is not a solar cell)
      { month: '2024-03', sector: 'Semiconductors', exports: 10_504_429_762, source: 'customs' },
      { month: '2024-03', sector: 'Steel', exports: 1_901_225_410, source: 'customs' },
    ]);
    // Every sector of the shared list appears for the month, zero when nothing matched
    // (1001999090 wheat is Agricultural Products but exported nothing; no code is Other).
    const all = toSectorExports(page?.items ?? []);
    assert.deepEqual(all.map((r) => r.sector), [...EXPORT_SECTORS]);
    assert.ok(all.some((r) => r.sector === 'Agricultural Products' && r.exports === 0));
    assert.ok(all.some((r) => r.sector === 'Other' && r.exports === 0));
    assert.ok(all.some((r) => r.sector === 'Shipbuilding' && r.exports === 0));
  });

  it('maps HS prefixes, longest first', () => {
    assert.equal(sectorOfHs('8507600000'), 'Secondary Batteries');
    assert.equal(sectorOfHs('9013801000'), 'Displays');
    // 9013.10 telescopic sights: Optical Equipment since the mapping covers 9001-9013.
    assert.equal(sectorOfHs('9013100000'), 'Optical Equipment');
    assert.equal(sectorOfHs('8541430000'), 'Solar Cells');
    assert.equal(sectorOfHs('3004909900'), 'Pharmaceuticals');
    assert.equal(sectorOfHs('2710192000'), 'Petroleum Products');
  });
});

describe('CustomsSource against recorded responses', () => {
  const KEY = 'customsKey%2Bencoded%3D%3D';

  it('re-reads the last three months, windows totals by year, fetches sectors per month', async () => {
    const server = await loopback((req) => {
      // An already-encoded ("Encoding") key is passed through unchanged.
      assert.equal(req.url.search.split('&')[0], `?serviceKey=${KEY}`);
      if (req.url.pathname.endsWith('/Newtrade/getNewtradeList')) return { body: fixture('customs/newtrade_2024.xml') };
      if (req.url.searchParams.get('strtYymm') === '202403') return { body: fixture('customs/itemtrade_202403.xml') };
      return { body: '<response><header><resultCode>00</resultCode><resultMsg>정상서비스.</resultMsg></header><body><items></items><totalCount>0</totalCount></body></response>' };
    });
    try {
      const source = new CustomsSource({ serviceKey: KEY, baseUrl: server.base, requestsPerSecond: 0 });
      const result = await source.ingest(context({ asOf: '2024-04-20', cursor: '2024-02' }));
      assert.deepEqual(result.data.trade, TOTALS_Q1_2024);
      const newtrade = server.requests.filter((r) => r.url.pathname.endsWith('getNewtradeList'));
      assert.deepEqual(newtrade.map((r) => [r.url.searchParams.get('strtYymm'), r.url.searchParams.get('endYymm')]), [['202312', '202403']]);
      const months = server.requests.filter((r) => r.url.pathname.endsWith('getItemtradeList')).map((r) => r.url.searchParams.get('strtYymm'));
      assert.deepEqual(months, ['202312', '202401', '202402', '202403']);
      assert.equal(result.data.sectorExports?.find((r) => r.sector === 'Semiconductors')?.exports, 10_504_429_762);
      assert.equal(result.cursor, '2024-03');
    } finally {
      await server.close();
    }
  });

  it('a first run plans its calls (totals from 1990 by year, 24 sector months) and reports them as progress; out of the allowance it keeps what came, paced', async () => {
    const empty = '<response><header><resultCode>00</resultCode><resultMsg>정상서비스.</resultMsg></header><body><items></items><totalCount>0</totalCount></body></response>';
    const server = await loopback((req) => ({ body: req.url.pathname.endsWith('/Newtrade/getNewtradeList') ? fixture('customs/newtrade_2024.xml') : empty }));
    try {
      const progress: ProgressPatch[] = [];
      const clock = (): Date => new Date('2024-04-20T03:00:00Z');
      await new CustomsSource({ serviceKey: KEY, baseUrl: server.base, requestsPerSecond: 0, clock }).ingest(context({ asOf: '2024-04-20', cursor: null, progress: (p) => void progress.push(p) }));
      // 1990-01 .. 2024-03 = 34 x 12 + 3 = 411 months of totals = 35 yearly windows; + 24 sector months = 59 calls.
      assert.equal(server.requests.length, 59);
      assert.deepEqual([progress[0]?.phase, progress[0]?.unit, progress[0]?.total], ['calling', 'calls', 59]);
      assert.deepEqual([progress.at(-1)?.phase, progress.at(-1)?.done], ['done', 59]);

      progress.length = 0;
      const small = new CustomsSource({ serviceKey: KEY, baseUrl: server.base, requestsPerSecond: 0, clock, dailyAllowance: 3 });
      const result = await small.ingest(context({ asOf: '2024-04-20', cursor: null, progress: (p) => void progress.push(p) }));
      // Three totals windows came (each answered with the 2024 fixture's three months), then the allowance ran out.
      assert.equal(result.data.trade?.length, 9);
      assert.equal(result.cursor, '');
      assert.deepEqual(result.calls, { day: '2024-04-20', calls: 3 });
      assert.deepEqual([progress.at(-1)?.phase, progress.at(-1)?.done, progress.at(-1)?.nextTryAt?.toISOString()], ['paced', 3, '2024-04-20T15:00:00.000Z']);
    } finally {
      await server.close();
    }
  });

  it('reports resultCode 99 as an upstream error', async () => {
    const server = await loopback(() => ({ body: fixture('customs/error_99.xml') }));
    try {
      await assert.rejects(
        new CustomsSource({ serviceKey: 'k', baseUrl: server.base, requestsPerSecond: 0 }).ingest(context({ cursor: '2024-02', asOf: '2024-04-01' })),
        (err: unknown) => err instanceof SourceHttpError && err.kind === 'upstream' && /resultCode 99/.test(err.message),
      );
    } finally {
      await server.close();
    }
  });
});
