// get_price_history's `adjusted` through both doors (REST and MCP, through Fastify's inject()
// into the real service; the .pg file runs it on PostgreSQL): Samsung Electronics' bars around its
// 50-for-1 split of 2018-05-04, written into the store beside the demo universe, answer without
// the 2018 cliff by default and with it when `adjusted=false`; a US stock says its feed adjusts;
// a value that is not true or false is the documented invalid_parameter error.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SAMSUNG_SPLIT_BARS } from '../fixtures/samsung-split-2018.js';
import { startTestApp, type TestServer } from '../support/server.js';

type Json = Record<string, unknown>;

// Samsung's KRX rows around the split (test/fixtures/samsung-split-2018.ts, with their provenance).
const BARS = SAMSUNG_SPLIT_BARS.map((b) => ({ ...b, market: 'KR' as const, code: '005930', source: 'krx' }));

interface Answer {
  adjusted: boolean;
  adjustedBy: string | null;
  splits: { date: string; factor: number }[];
  bars: { date: string; close: number; volume: number; tradedValue: number }[];
}

describe('get_price_history adjusted', () => {
  let t: TestServer;
  let key: string;
  let us: string;
  const base = () => `${t.url}/api/public/v2`;
  before(async () => {
    t = await startTestApp();
    key = await t.newKey('paid');
    await t.app.store.market.writeDataset({
      securities: [{ market: 'KR', code: '005930', name: '삼성전자', exchange: 'KOSPI', sector: 'Semiconductors', currency: 'KRW', fiscalYearEndMonth: 12, source: 'krx' }],
      // And a close in the demo's last week, so the code is listed today (a code without a bar for
      // 20 sessions is delisted: src/store/delistings.ts); the 2018 window below leaves it out.
      bars: [...BARS, { ...(BARS.at(-1) as (typeof BARS)[number]), date: '2026-11-19' }],
    });
    await t.app.store.refresh.bumpDatasetVersion();
    await t.app.publisher.rebuild();
    const all = (await t.get(`${base()}/rankings?market=US&limit=1`, key)).body as { rows: { ticker: string }[] };
    us = all.rows[0]?.ticker ?? '';
  });
  after(() => t.close());

  const mcpCall = async (args: Json): Promise<{ structured?: Answer; isError?: boolean; text: string }> => {
    const res = await t.fetch(`${t.url}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_price_history', arguments: args } }),
    });
    const body = (await res.json()) as { result: { structuredContent?: Answer; isError?: boolean; content: { text: string }[] } };
    return { structured: body.result.structuredContent, isError: body.result.isError, text: body.result.content[0]?.text ?? '' };
  };

  // Before 05-04 the close / 50 (2,607,000 -> 52,140; 2,650,000 -> 53,000) and the volume x 50
  // (606,216 -> 30,310,800); traded value as traded (2,650,000 x 606,216 = 1,606,472,400,000).
  // The day of the split: 51,900 against 53,000 (-2.1 %), not against 2,650,000 (-98 %).
  const ADJUSTED = [
    ['2018-04-26', 52_140, 50_000, 2_607_000_000],
    ['2018-04-27', 53_000, 30_310_800, 1_606_472_400_000],
    ['2018-04-30', 53_000, 0, 0],
    ['2018-05-02', 53_000, 0, 0],
    ['2018-05-03', 53_000, 0, 0],
    ['2018-05-04', 51_900, 39_565_391, 2_053_443_792_900],
    ['2018-05-08', 52_600, 1_000, 52_600_000],
  ];
  const TRADED = BARS.map((b) => [b.date, b.close, b.volume, b.tradedValue]);
  const rows = (a: Answer) => a.bars.map((b) => [b.date, b.close, b.volume, b.tradedValue]);
  const SPLITS = [{ date: '2018-05-04', factor: 50 }];

  it('REST: adjusted by default, as traded with adjusted=false', async () => {
    const window = 'from=2018-01-01&to=2018-12-31';
    const def = await t.get(`${base()}/stocks/005930/prices?${window}`, key);
    assert.equal(def.status, 200);
    const a = def.body as Answer;
    assert.deepEqual([a.adjusted, a.adjustedBy, a.splits], [true, 'service', SPLITS]);
    assert.deepEqual(rows(a), ADJUSTED);
    assert.deepEqual(rows((await t.get(`${base()}/stocks/005930/prices?${window}&adjusted=true`, key)).body as Answer), ADJUSTED);
    const raw = (await t.get(`${base()}/stocks/005930/prices?${window}&adjusted=false`, key)).body as Answer;
    assert.deepEqual([raw.adjusted, raw.adjustedBy, raw.splits], [false, null, SPLITS]);
    assert.deepEqual(rows(raw), TRADED);
    // Months: April's bar in the new shares (53,000), or as traded (2,650,000).
    const months = (await t.get(`${base()}/stocks/005930/prices?interval=month&${window}`, key)).body as Answer;
    assert.deepEqual(months.bars.map((b) => [b.date, b.close]), [['2018-04-30', 53_000], ['2018-05-08', 52_600]]);
    const rawMonths = (await t.get(`${base()}/stocks/005930/prices?interval=month&${window}&adjusted=false`, key)).body as Answer;
    assert.deepEqual(rawMonths.bars.map((b) => [b.date, b.close]), [['2018-04-30', 2_650_000], ['2018-05-08', 52_600]]);
  });

  it('REST: a value other than true or false is invalid_parameter naming adjusted', async () => {
    for (const value of ['yes', '1', 'TRUE', '']) {
      const res = await t.get(`${base()}/stocks/005930/prices?adjusted=${value}`, key);
      assert.equal(res.status, 400, value);
      const body = res.body as Json;
      assert.equal(body.code, 'invalid_parameter');
      assert.equal(body.parameter, 'adjusted');
      assert.match(String(body.detail), /allowed: true or false; default true/);
    }
  });

  it('MCP: the same answers, and a string is refused', async () => {
    // Object rows (the MCP door's default is columns).
    const args = { code: '005930', from: '2018-01-01', to: '2018-12-31', format: 'rows' };
    const def = await mcpCall(args);
    assert.deepEqual([def.structured?.adjusted, def.structured?.splits], [true, SPLITS]);
    assert.deepEqual(rows(def.structured as Answer), ADJUSTED);
    const raw = await mcpCall({ ...args, adjusted: false });
    assert.deepEqual([raw.structured?.adjusted, raw.structured?.adjustedBy], [false, null]);
    assert.deepEqual(rows(raw.structured as Answer), TRADED);
    const bad = await mcpCall({ ...args, adjusted: 'false' });
    assert.equal(bad.isError, true);
    assert.match(bad.text, /parameter 'adjusted'/);
  });

  it('US: the feed adjusts at the source, so adjusted=false answers adjusted bars and says so', async () => {
    assert.notEqual(us, '');
    for (const door of ['rest', 'mcp'] as const) {
      const a = door === 'rest' ? ((await t.get(`${base()}/stocks/${us}/prices?adjusted=false&limit=3`, key)).body as Answer) : ((await mcpCall({ code: us, adjusted: false, limit: 3, format: 'rows' })).structured as Answer);
      assert.deepEqual([a.adjusted, a.adjustedBy, a.splits], [true, 'source', []], door);
      assert.equal(a.bars.length, 3);
    }
  });
});
