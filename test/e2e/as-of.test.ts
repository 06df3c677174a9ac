// The asOf argument through both doors, against the real service on a loopback port (SQLite,
// small demo universe, fixed clock; a second service on PostgreSQL + Redis for the engines' bytes):
// - without asOf no answer changes: no `asOf` key anywhere, and asOf = the served day gives the
//   same bytes followed by the asOf block alone;
// - REST and MCP (the official clients of both protocol eras) answer an as-of call alike;
// - the errors: a malformed or impossible date, a day before the earliest (named, as health
//   names it), a day after the data day (answered as of the data day, with a note);
// - SQLite and PostgreSQL + Redis answer one as-of call with the same bytes.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { addDays } from '../../src/domain/calendar.js';
import { sdkV1, sdkV2, type RecordedDriver } from '../support/mcp-clients.js';
import { freshSchema, PG_SKIP, REDIS_SKIP, TEST_REDIS_URL } from '../support/pg.js';
import { BACKEND, get, startTestServer, TEST_AS_OF, type TestServer } from '../support/server.js';

/** A past day inside the demo's history (it starts in 2014). */
const DAY = '2025-06-30';

interface Call {
  tool: string;
  /** REST path and query under /api/public/v2, without asOf. */
  rest: string;
  /** The MCP arguments asking the same (MCP's own defaults made explicit where REST's differ). */
  args: Record<string, unknown>;
}

function calls(kr: string, us: string): Call[] {
  return [
    { tool: 'search_stocks', rest: `/stocks?q=${kr}`, args: { q: kr } },
    { tool: 'get_stock_score', rest: `/stocks/${kr}/score`, args: { code: kr } },
    { tool: 'get_rankings', rest: '/rankings?market=KR,US&limit=5', args: { market: 'KR,US', limit: 5 } },
    { tool: 'get_stock_snapshot', rest: `/stocks/${us}/snapshot`, args: { code: us } },
    { tool: 'get_valuation_band', rest: `/stocks/${kr}/valuation-band?type=pbr&from=2022-01-01`, args: { code: kr, type: 'pbr', from: '2022-01-01' } },
    { tool: 'get_sector_percentile', rest: `/stocks/${kr}/percentile?cohort=market`, args: { code: kr, cohort: 'market' } },
    { tool: 'get_price_history', rest: `/stocks/${kr}/prices?interval=week&limit=10&format=columns`, args: { code: kr, interval: 'week', limit: 10 } },
    { tool: 'screen_stocks', rest: '/screen?filters=roe:5:&sort=roe:desc&limit=5&format=columns', args: { filters: [{ field: 'roe', min: 5 }], sort: { field: 'roe', order: 'desc' }, limit: 5 } },
  ];
}

const withAsOf = (path: string, day: string) => `${path}${path.includes('?') ? '&' : '?'}asOf=${day}`;

describe('asOf through the doors', () => {
  let t: TestServer;
  let key: string;
  let list: Call[];
  before(async () => {
    t = await startTestServer();
    key = await t.newKey('paid');
    const rows = (await get(`${t.url}/api/public/v2/rankings?market=KR,US&limit=200`, key)).body as { rows: { ticker: string; market: string }[] };
    const kr = rows.rows.find((r) => r.market === 'KR')?.ticker;
    const us = rows.rows.find((r) => r.market === 'US')?.ticker;
    assert.ok(kr !== undefined && us !== undefined);
    list = calls(kr, us);
  });
  after(() => t.close());

  it('without asOf every answer is as it was; asOf = the data day adds the asOf block and nothing else', async () => {
    for (const call of list) {
      const today = await get(`${t.url}/api/public/v2${call.rest}`, key);
      assert.equal(today.status, 200, `${call.tool}: ${today.text}`);
      assert.ok(!today.text.includes('"asOf"'), `${call.tool} answers no asOf block without asOf`);
      const asked = await get(`${t.url}/api/public/v2${withAsOf(call.rest, TEST_AS_OF)}`, key);
      assert.equal(asked.status, 200, `${call.tool}: ${asked.text}`);
      const block = (asked.body as { asOf: { date: string; lastSession: string | null } }).asOf;
      assert.equal(block.date, TEST_AS_OF, call.tool);
      // The same bytes, the asOf block written last.
      assert.equal(asked.text, `${today.text.slice(0, -1)},"asOf":${JSON.stringify(block)}}`, call.tool);
    }
  });

  it('REST and MCP (SDK v1 2025-11-25, SDK v2 2026-07-28) answer every as-of call alike, with the day and what it used', async () => {
    const endpoint = `${t.url}/api/mcp`;
    const drivers: RecordedDriver[] = [await sdkV1(endpoint, key, '2025-11-25'), await sdkV2(endpoint, key, '2026-07-28')];
    try {
      for (const call of list) {
        const rest = await get(`${t.url}/api/public/v2${withAsOf(call.rest, DAY)}`, key);
        assert.equal(rest.status, 200, `${call.tool}: ${rest.text}`);
        const block = (rest.body as { asOf: { date: string; lastSession: string | null; lastDisclosure: string | null } }).asOf;
        assert.equal(block.date, DAY, call.tool);
        assert.ok(block.lastSession !== null && block.lastSession <= DAY, `${call.tool}: a session on or before ${DAY}`);
        if (call.tool === 'get_price_history') assert.equal(block.lastDisclosure, null, 'a price history uses no filing');
        else assert.ok(block.lastDisclosure !== null && block.lastDisclosure <= DAY, `${call.tool}: a disclosure on or before ${DAY}`);
        for (const driver of drivers) {
          const result = await driver.callTool(call.tool, { ...call.args, asOf: DAY });
          assert.equal(result['isError'], undefined, `${driver.label} ${call.tool}`);
          assert.deepEqual(result['structuredContent'], rest.body, `${driver.label} ${call.tool}`);
        }
      }
      // The tools' MCP schemas declare it.
      const { tools } = (await drivers[0]!.listTools()) as { tools: { name: string; inputSchema: { properties: Record<string, unknown> }; outputSchema: { properties: Record<string, unknown> } }[] };
      for (const call of list) {
        const tool = tools.find((x) => x.name === call.tool);
        assert.ok(tool?.inputSchema.properties['asOf'] !== undefined && tool.outputSchema.properties['asOf'] !== undefined, call.tool);
      }
    } finally {
      for (const driver of drivers) await driver.close();
    }
  });

  it('refuses a malformed or impossible date and a day before the earliest, naming the earliest as health does', async () => {
    const code = list[1]!.rest.split('/')[2]!;
    for (const bad of ['2025-6-30', '2025-02-30', 'yesterday']) {
      const res = await get(`${t.url}/api/public/v2/stocks/${code}/score?asOf=${bad}`, key);
      assert.equal(res.status, 400, bad);
      assert.equal((res.body as { code: string; parameter: string }).code, 'invalid_parameter');
      assert.equal((res.body as { parameter: string }).parameter, 'asOf');
    }
    const health = (await get(`${t.url}/api/public/v2/health`, key)).body as { asOf: { earliest: string | null } };
    const earliest = health.asOf.earliest;
    assert.ok(earliest !== null);
    const before = await get(`${t.url}/api/public/v2/stocks/${code}/score?asOf=${addDays(earliest, -1)}`, key);
    assert.equal(before.status, 400);
    assert.match((before.body as { detail: string }).detail, new RegExp(`earliest day with both prices and a TTM, ${earliest}`));
    const first = await get(`${t.url}/api/public/v2/stocks/${code}/score?asOf=${earliest}`, key);
    assert.equal(first.status, 200, first.text);
    // MCP: the same refusal as a tool error.
    const driver = await sdkV1(`${t.url}/api/mcp`, key, '2025-11-25');
    try {
      const result = await driver.callTool('get_rankings', { asOf: addDays(earliest, -1) });
      assert.equal(result['isError'], true);
      assert.match(JSON.stringify(result['content']), new RegExp(earliest));
    } finally {
      await driver.close();
    }
  });

  it('answers a day after the data day as of the data day, and says so', async () => {
    const later = addDays(TEST_AS_OF, 30);
    const today = await get(`${t.url}/api/public/v2/rankings?limit=3`, key);
    const res = await get(`${t.url}/api/public/v2/rankings?limit=3&asOf=${later}`, key);
    assert.equal(res.status, 200);
    const block = (res.body as { asOf: { date: string; note: string } }).asOf;
    assert.equal(block.date, TEST_AS_OF);
    assert.equal(block.note, `asOf ${later} is after the latest data day ${TEST_AS_OF}: answered as of ${TEST_AS_OF}`);
    assert.equal(res.text, `${today.text.slice(0, -1)},"asOf":${JSON.stringify(block)}}`);
  });

  const engines = BACKEND === 'sqlite' ? PG_SKIP || REDIS_SKIP : 'runs once, from the SQLite suite';
  it('answers one as-of call with the same bytes on SQLite and on PostgreSQL + Redis', { skip: engines }, async () => {
    const schema = await freshSchema();
    const pg = await startTestServer({ DATABASE_URL: schema.url, REDIS_URL: TEST_REDIS_URL ?? '', REDIS_KEY_PREFIX: `t${randomBytes(6).toString('hex')}` });
    try {
      const pgKey = await pg.newKey('paid');
      for (const call of [list[3]!, list[2]!]) {
        const path = `/api/public/v2${withAsOf(call.rest, DAY)}`;
        const [a, b] = [await get(`${t.url}${path}`, key), await get(`${pg.url}${path}`, pgKey)];
        assert.equal(a.status, 200, a.text);
        assert.equal(b.text, a.text, call.tool);
      }
    } finally {
      await pg.close();
      await schema.drop();
    }
  });
});
