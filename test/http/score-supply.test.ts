// get_stock_score names what fed its supply input: the trading days, the KR days with an
// investor-flow row and those rows' sources, on both doors. On the demo the flows are the demo's;
// after a refresh in which another flows source (named `kis`, the brokerage adapter's name)
// rewrote the last five days of one stock, the answer names both.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pino from 'pino';
import type { InvestorFlow } from '../../src/domain/model.js';
import { Refresher } from '../../src/refresh/pipeline.js';
import type { Source } from '../../src/sources/source.js';
import { startTestApp, type TestServer } from '../support/server.js';

type Supply = { days: number; flowDays: number | null; sources: string[] } | null;
type Score = { code: string; market: string; score: number | null; supply: Supply };

describe('get_stock_score: the supply input names its source and days', () => {
  let t: TestServer;
  let key: string;
  let kr: string;
  let us: string;
  let krOther: string;
  let client: Client;
  const rest = async (code: string): Promise<Score> => (await t.get(`${t.url}/api/public/v2/stocks/${code}/score`, key)).body as Score;
  const mcp = async (code: string): Promise<Score> => {
    const result = await client.callTool({ name: 'get_stock_score', arguments: { code } });
    assert.notEqual(result.isError, true);
    return result.structuredContent as Score;
  };

  before(async () => {
    t = await startTestApp();
    key = await t.newKey('paid');
    const all = (await t.get(`${t.url}/api/public/v2/rankings?market=KR,US&bands=mega,xlarge,large,mid,small&limit=200`, key)).body as { rows: { ticker: string; market: string }[] };
    kr = all.rows.find((r) => r.market === 'KR')?.ticker ?? '';
    us = all.rows.find((r) => r.market === 'US')?.ticker ?? '';
    krOther = all.rows.find((r) => r.market === 'KR' && r.ticker !== kr)?.ticker ?? '';
    client = new Client({ name: 'test-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/api/mcp`), { fetch: t.fetch, requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  });
  after(async () => {
    await client.close();
    await t.close();
  });

  it('on the demo: KR from the demo flows on each of the 20 days, US from prices (no flows)', async () => {
    // The demo writes a flow row for every KR stock on every trading day (src/sources/demo/prices.ts).
    for (const answer of [await rest(kr), await mcp(kr)]) assert.deepEqual(answer.supply, { days: 20, flowDays: 20, sources: ['demo'] });
    for (const answer of [await rest(us), await mcp(us)]) assert.deepEqual(answer.supply, { days: 20, flowDays: null, sources: [] });
  });

  it('after another flows source rewrote five of the 20 days, the answer names both sources', async () => {
    const security = (await t.app.store.market.securities()).find((s) => s.market === 'KR' && s.code === kr);
    assert.ok(security);
    const stored = await t.app.store.market.flows(security.id);
    const lastFive = stored.slice(-5);
    assert.equal(lastFive.length, 5);
    const brokerage: Source = {
      name: 'kis',
      ingest: () => Promise.resolve({ data: { flows: lastFive.map((f): InvestorFlow => ({ ...f, foreignNet: 1_000, institutionNet: -500, source: 'kis' })) }, cursor: lastFive.at(-1)?.date ?? '' }),
    };
    const refresher = new Refresher(t.app.store, [brokerage], () => t.clock.now, pino({ level: 'silent' }), { onPublish: (v, s) => t.app.publisher.publish(v, s) });
    const report = await refresher.run();
    assert.ok(report.sources.every((s) => s.ok));
    // The 20-day window: 15 days still from the demo, the last 5 from kis; every day has a row.
    for (const answer of [await rest(kr), await mcp(kr)]) assert.deepEqual(answer.supply, { days: 20, flowDays: 20, sources: ['demo', 'kis'] });
    // Another scored KR stock keeps the demo's flows alone.
    assert.deepEqual((await rest(krOther)).supply, { days: 20, flowDays: 20, sources: ['demo'] });
  });
});
