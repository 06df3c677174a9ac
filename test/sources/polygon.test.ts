import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { commonStockTicker, parseGrouped, parseSharesFrame, SKIPPED, toDailyBars } from '../../src/sources/polygon/parse.js';
import { PolygonSource } from '../../src/sources/polygon/source.js';
import { context, fixture, fixtureJson, loopback, type Recorded, type Reply } from './helpers.js';

/** A live grouped-daily answer for 2026-09-25, 14 rows (test/fixtures/real/PROVENANCE.md). */
const realGrouped = (): string =>
  gunzipSync(readFileSync(new URL('../fixtures/real/polygon/grouped_2026-09-25_excerpt.json.gz', import.meta.url))).toString('utf8');

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

describe('Polygon tickers', () => {
  it('never upper-cases a lower-case suffix into another ticker; share classes keep their dot', () => {
    // Preferred series (p), rights (r), rights when issued (rw): not common stock.
    for (const t of ['PEBpF', 'PHXEp', 'BCpC', 'BCATrw', 'AIIAr']) assert.equal(commonStockTicker(t), null, t);
    // Warrants and units written with a dotted suffix.
    for (const t of ['NE.WS.A', 'XYZ.WS', 'SBXD.U', 'ABC.RT']) assert.equal(commonStockTicker(t), null, t);
    assert.equal(commonStockTicker('BRK.B'), 'BRK.B');
    assert.equal(commonStockTicker('BRK-B'), 'BRK.B');
    assert.equal(commonStockTicker('AAPL'), 'AAPL');
    assert.equal(commonStockTicker('UA'), 'UA');
  });

  it('on a recorded grouped day: bars for common stock only, the rest counted by reason', () => {
    const parsed = parseGrouped(JSON.parse(realGrouped()) as unknown);
    assert.ok(parsed);
    assert.equal(parsed.bars.length, 14);
    // PEBPF, CRVL and the others are given shares so that only the ticker rule can keep them out.
    const shares = new Map([['AAPL', 14_700_000_000], ['BRK.B', 1_300_000_000], ['PEBPF', 1_000_000], ['BCPC', 1_000_000], ['CRVL', 51_000_000]]);
    const day = toDailyBars('2026-09-25', parsed.bars, shares);
    assert.deepEqual(day.bars.map((b) => [b.code, b.close]), [['CRVL', 74.33], ['BRK.B', 505.48], ['AAPL', 341.07]]);
    const aapl = day.bars.find((b) => b.code === 'AAPL');
    // Row {"T":"AAPL","v":30002507.354057,"vw":339.4037,"c":341.07}: traded value = v x vw, cap = c x shares.
    assert.equal(aapl?.tradedValue, 30_002_507.354057 * 339.4037);
    assert.equal(aapl?.marketCap, 341.07 * 14_700_000_000);
    assert.deepEqual(day.skipped, {
      // PEBpF, PHXEp, BCpC, NE.WS.A, SBXD.U, BCATrw, AIIAr
      [SKIPPED.notCommon]: 7,
      // INEO, GTOQ, ZBZX, ZTST
      [SKIPPED.noShares]: 4,
    });
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

  it('the recorded 2026-09-25 answer: PEBpF does not land on PEBPF, BRK.B does land; skips are returned by reason', async () => {
    const server = await loopback((req) => {
      const sec = secReply(req);
      if (sec) return sec;
      if (req.url.pathname === '/v2/aggs/grouped/locale/us/market/stocks/2026-09-25') return { body: realGrouped() };
      return { status: 404, body: '{"status":"NOT_FOUND"}' };
    });
    try {
      // Saturday 2026-09-26 10:00 in Seoul = Friday 21:00 in New York: Friday's session has closed.
      const ctx = context({ asOf: '2026-09-26', now: new Date('2026-09-26T10:00:00+09:00'), cursor: '2026-09-24' });
      const result = await source(server.base).ingest(ctx);
      assert.deepEqual(groupedDates(server.requests), ['2026-09-25']);
      assert.deepEqual(result.data.bars?.map((b) => [b.code, b.close, b.shares]), [['BRK.B', 505.48, 1_300_000_000], ['AAPL', 341.07, 14_700_000_000]]);
      assert.ok(!result.data.bars?.some((b) => b.code === 'PEBPF'));
      assert.deepEqual(result.skipped, { [SKIPPED.notCommon]: 7, [SKIPPED.noShares]: 5 }); // + CRVL: no SEC shares here
      // A bare-date cursor (written before the history walk) reads as history complete.
      assert.equal(result.cursor, '{"date":"2026-09-25","back":null,"complete":true}');
    } finally {
      await server.close();
    }
  });

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

  it("an ADS ticker's shares are its ordinary shares over the ADS ratio: TSM's market cap is per ADS", async () => {
    // Made here: a grouped day with one TSM row and a frame holding TSMC's cover count as its 20-F of 2021-04-16
    // files it (dei:EntityCommonStockSharesOutstanding 25,930,380,458 common shares; one ADS = 5 of them).
    const server = await loopback((req) => {
      const p = req.url.pathname;
      // SEC's recorded ticker list (test/fixtures/real/PROVENANCE.md): TSM is CIK 1046179.
      if (p === '/files/company_tickers.json') return { body: gunzipSync(readFileSync(new URL('../fixtures/real/sec/company_tickers.json.gz', import.meta.url))).toString('utf8') };
      if (p.endsWith('/CY2021Q1I.json')) {
        return { body: JSON.stringify({ taxonomy: 'dei', tag: 'EntityCommonStockSharesOutstanding', ccp: 'CY2021Q1I', uom: 'shares', data: [{ accn: '0001193125-21-118512', cik: 1046179, entityName: 'TAIWAN SEMICONDUCTOR MANUFACTURING CO LTD', loc: 'TW', end: '2020-12-31', val: 25_930_380_458 }] }) };
      }
      if (p === '/v2/aggs/grouped/locale/us/market/stocks/2021-06-29') {
        return { body: JSON.stringify({ queryCount: 1, resultsCount: 1, adjusted: true, results: [{ T: 'TSM', v: 1_000_000, vw: 120, o: 119, c: 120, h: 121, l: 118, t: 1624996800000, n: 10_000 }], status: 'OK' }) };
      }
      return { status: 404, body: '{"status":"NOT_FOUND"}' };
    });
    try {
      const source = new PolygonSource({ apiKey: KEY, baseUrl: server.base, secUserAgent: 'Example admin@example.com', secDataBaseUrl: server.base, secWwwBaseUrl: server.base, requestsPerMinute: 0 });
      const result = await source.ingest(context({ asOf: '2021-06-30', cursor: '2021-06-28' }));
      // 25,930,380,458 / 5 = 5,186,076,091.6 ADS equivalents; market cap = 120 x 5,186,076,091.6 = US$622,329,130,992.
      assert.deepEqual(result.data.bars?.map((b) => [b.code, b.shares, b.marketCap]), [['TSM', 5_186_076_091.6, 120 * 5_186_076_091.6]]);
    } finally {
      await server.close();
    }
  });

  it('a multi-class company (no cover count in the dei frame): the balance-sheet count, then the weighted average', async () => {
    // Frames made here from the recorded companyfacts (test/fixtures/real/PROVENANCE.md): a frame
    // holds the facts whose `frame` label names it, as SEC aggregates them. dei CY2025Q3I: Apple's
    // cover count 14,776,353,000 (end 2025-10-17). Palantir and AppLovin file their cover counts per
    // class, so they are not in it. us-gaap CommonStockSharesOutstanding CY2025Q3I: Palantir's
    // 2,383,314,000 (its 10-Q of 2025-11-04; left out of this frame for AppLovin, to reach the next
    // concept). us-gaap WeightedAverageNumberOfSharesOutstandingBasic CY2025Q3 (a duration frame):
    // AppLovin's 338,531,000 and Palantir's 2,377,167,000, which the balance-sheet count precedes.
    const real = (file: string) => JSON.parse(gunzipSync(readFileSync(new URL(`../fixtures/real/sec/${file}`, import.meta.url))).toString('utf8')) as { cik: number; entityName: string; facts: Record<string, Record<string, { units: Record<string, { end: string; val: number; accn: string; frame?: string }[]> }>> };
    const apple = real('companyfacts_CIK0000320193_AAPL.json.gz');
    const pltr = real('companyfacts_CIK0001321655_PLTR.json.gz');
    const app = real('companyfacts_CIK0001751008_APP.json.gz');
    const frame = (taxonomy: string, tag: string, ccp: string, companies: (typeof apple)[]) => JSON.stringify({
      taxonomy, tag, ccp, uom: 'shares',
      data: companies.flatMap((c) => (c.facts[taxonomy]?.[tag]?.units['shares'] ?? []).filter((f) => f.frame === ccp).map((f) => ({ accn: f.accn, cik: c.cik, entityName: c.entityName, end: f.end, val: f.val }))),
    });
    const asked: string[] = [];
    const server = await loopback((req) => {
      const p = req.url.pathname;
      if (p.startsWith('/api/xbrl/frames/')) asked.push(p.slice('/api/xbrl/frames/'.length));
      if (p === '/files/company_tickers.json') return { body: gunzipSync(readFileSync(new URL('../fixtures/real/sec/company_tickers.json.gz', import.meta.url))).toString('utf8') };
      if (p === '/api/xbrl/frames/dei/EntityCommonStockSharesOutstanding/shares/CY2025Q3I.json') return { body: frame('dei', 'EntityCommonStockSharesOutstanding', 'CY2025Q3I', [apple, pltr, app]) };
      if (p === '/api/xbrl/frames/us-gaap/CommonStockSharesOutstanding/shares/CY2025Q3I.json') return { body: frame('us-gaap', 'CommonStockSharesOutstanding', 'CY2025Q3I', [pltr]) };
      if (p === '/api/xbrl/frames/us-gaap/WeightedAverageNumberOfSharesOutstandingBasic/shares/CY2025Q3.json') return { body: frame('us-gaap', 'WeightedAverageNumberOfSharesOutstandingBasic', 'CY2025Q3', [pltr, app]) };
      if (p === '/v2/aggs/grouped/locale/us/market/stocks/2025-11-19') {
        const row = (T: string, c: number) => ({ T, v: 1_000_000, vw: c, o: c, c, h: c, l: c, t: 1763586000000, n: 10_000 });
        return { body: JSON.stringify({ queryCount: 4, resultsCount: 4, adjusted: true, results: [row('AAPL', 268.56), row('PLTR', 171.2), row('APP', 560.11), row('V', 330.5)], status: 'OK' }) };
      }
      return { status: 404, body: '{"status":"NOT_FOUND"}' };
    });
    try {
      const source = new PolygonSource({ apiKey: KEY, baseUrl: server.base, secUserAgent: 'Example admin@example.com', secDataBaseUrl: server.base, secWwwBaseUrl: server.base, requestsPerMinute: 0 });
      const result = await source.ingest(context({ asOf: '2025-11-20', cursor: '2025-11-18' }));
      assert.deepEqual(result.data.bars?.map((b) => [b.code, b.shares, b.marketCap]), [
        ['AAPL', 14_776_353_000, 268.56 * 14_776_353_000],
        ['PLTR', 2_383_314_000, 171.2 * 2_383_314_000],
        ['APP', 338_531_000, 560.11 * 338_531_000],
      ]);
      // Visa files every count per class: no bar.
      assert.deepEqual(result.skipped, { [SKIPPED.noShares]: 1 });
      // The two quarters of each concept, the next concept asked only while a ticker has no count.
      assert.deepEqual(asked, [
        'dei/EntityCommonStockSharesOutstanding/shares/CY2025Q3I.json', 'dei/EntityCommonStockSharesOutstanding/shares/CY2025Q4I.json',
        'us-gaap/CommonStockSharesOutstanding/shares/CY2025Q3I.json', 'us-gaap/CommonStockSharesOutstanding/shares/CY2025Q4I.json',
        'us-gaap/WeightedAverageNumberOfSharesOutstandingBasic/shares/CY2025Q3.json', 'us-gaap/WeightedAverageNumberOfSharesOutstandingBasic/shares/CY2025Q4.json',
      ]);
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
      assert.equal(result.cursor, '{"date":"2024-11-20","back":null,"complete":true}');
      for (const line of ctx.log.lines) assert.ok(!line.includes(KEY));
      // SPY (an ETF) and BRK.B have no SEC shares in this frame.
      assert.deepEqual(result.skipped, { [SKIPPED.noShares]: 2 });
      assert.match(ctx.log.lines.join('\n'), /polygon: rows skipped/);
    } finally {
      await server.close();
    }
  });
});
