import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseGrouped, parseSharesFrame } from '../../src/sources/polygon/parse.js';
import { PolygonSource } from '../../src/sources/polygon/source.js';
import { context, fixture, fixtureJson, loopback, type Recorded, type Reply } from './helpers.js';

describe('Polygon parsers', () => {
  it('grouped daily: every ticker of the day; a holiday has no results', () => {
    assert.deepEqual(parseGrouped(fixtureJson('polygon/grouped_2024-11-20.json'))?.bars.map((b) => b.ticker), ['AAPL', 'MSFT', 'SPY', 'BRK.B']);
    assert.deepEqual(parseGrouped(fixtureJson('polygon/grouped_2024-11-28_holiday.json')), { status: 'OK', bars: [] });
  });

  it('SEC shares frame: latest cover date per CIK', () => {
    assert.deepEqual([...(parseSharesFrame(fixtureJson('polygon/frame_CY2024Q3I.json')) ?? [])], [
      [320193, { end: '2024-10-18', val: 15_115_823_000 }],
      [789019, { end: '2024-07-25', val: 7_433_166_379 }],
    ]);
  });
});

describe('PolygonSource against recorded responses', () => {
  const KEY = 'polygonSecretKey123';

  /** SEC answers for the shares join, constructed (not recorded): three tickers, one frame. */
  const secReply = (req: Recorded): Reply | null => {
    const p = req.url.pathname;
    if (p === '/files/company_tickers.json') {
      return {
        body: JSON.stringify({
          0: { cik_str: 320193, ticker: 'AAPL', title: 'Apple Inc.' },
          1: { cik_str: 1067983, ticker: 'BRK-B', title: 'BERKSHIRE HATHAWAY INC' },
          2: { cik_str: 9_999_991, ticker: 'PEBPF', title: 'Another company (constructed)' },
        }),
      };
    }
    if (p.endsWith('/CY2026Q3I.json')) {
      return {
        body: JSON.stringify({
          data: [
            { cik: 320193, end: '2026-07-17', val: 14_700_000_000 },
            { cik: 1067983, end: '2026-07-20', val: 1_300_000_000 },
            { cik: 9_999_991, end: '2026-07-01', val: 1_000_000 },
          ],
        }),
      };
    }
    return null;
  };
  const source = (base: string): PolygonSource =>
    new PolygonSource({ apiKey: KEY, baseUrl: base, secUserAgent: 'Example admin@example.com', secDataBaseUrl: base, secWwwBaseUrl: base, requestsPerMinute: 0 });
  const groupedDates = (requests: Recorded[]): string[] =>
    requests.map((r) => /\/stocks\/(\d{4}-\d{2}-\d{2})$/.exec(r.url.pathname)?.[1]).filter((d): d is string => d !== undefined);

  it('asks only for sessions closed in New York at `now`, across the November clock change', async () => {
    const server = await loopback(
      (req) =>
        secReply(req) ??
        (req.url.pathname.startsWith('/v2/aggs/grouped/') ? { body: fixture('polygon/grouped_2024-11-28_holiday.json') } : { status: 404, body: '{"status":"NOT_FOUND"}' }),
    );
    try {
      // Monday 2026-11-02 15:30 EST (20:30 UTC; Tuesday 05:30 in Seoul): Monday is still open.
      await source(server.base).ingest(context({ asOf: '2026-11-03', now: new Date('2026-11-02T20:30:00Z'), cursor: '2026-10-29' }));
      assert.deepEqual(groupedDates(server.requests), ['2026-10-30']);
      // 16:00 EST = 21:00 UTC (it was 20:00 UTC a week earlier, under EDT): Monday has closed.
      server.requests.length = 0;
      await source(server.base).ingest(context({ asOf: '2026-11-03', now: new Date('2026-11-02T21:00:00Z'), cursor: '2026-10-29' }));
      assert.deepEqual(groupedDates(server.requests), ['2026-10-30', '2026-11-02']);
      // Without `now`, the Seoul date alone: every weekday before asOf, Monday included.
      server.requests.length = 0;
      await source(server.base).ingest(context({ asOf: '2026-11-03', cursor: '2026-10-29' }));
      assert.deepEqual(groupedDates(server.requests), ['2026-10-30', '2026-11-02']);
    } finally {
      await server.close();
    }
  });


  it('one grouped request per weekday after the cursor; bars carry SEC shares; the key never leaks', async () => {
    const server = await loopback((req) => {
      const p = req.url.pathname;
      if (p === '/files/company_tickers.json') return { body: fixture('sec/company_tickers.json') };
      if (p.endsWith('/CY2024Q3I.json')) return { body: fixture('polygon/frame_CY2024Q3I.json') };
      if (p === '/v2/aggs/grouped/locale/us/market/stocks/2024-11-20') {
        assert.equal(req.url.searchParams.get('apiKey'), KEY);
        return { body: fixture('polygon/grouped_2024-11-20.json') };
      }
      return { status: 404, body: '{"status":"NOT_FOUND"}' };
    });
    try {
      const source = new PolygonSource({
        apiKey: KEY, baseUrl: server.base, secUserAgent: 'Example admin@example.com',
        secDataBaseUrl: server.base, secWwwBaseUrl: server.base, requestsPerMinute: 0,
      });
      const ctx = context({ asOf: '2024-11-21', cursor: '2024-11-19' });
      const result = await source.ingest(ctx);
      assert.deepEqual(result.data.bars, [
        {
          market: 'US', code: 'AAPL', date: '2024-11-20', open: 228.06, high: 230.16, low: 225.71, close: 229,
          volume: 44_686_020, tradedValue: 44_686_020 * 228.3477, // volume x VWAP
          shares: 15_115_823_000, marketCap: 229 * 15_115_823_000, source: 'polygon',
        },
        {
          market: 'US', code: 'MSFT', date: '2024-11-20', open: 419.5, high: 419.78, low: 410.29, close: 415.49,
          volume: 18_133_485, tradedValue: 18_133_485 * 415.1002, shares: 7_433_166_379, marketCap: 415.49 * 7_433_166_379, source: 'polygon',
        },
      ]);
      assert.equal(result.cursor, '2024-11-20');
      for (const line of ctx.log.lines) assert.ok(!line.includes(KEY));
      assert.match(ctx.log.lines.join('\n'), /skipped":2/);
    } finally {
      await server.close();
    }
  });
});
