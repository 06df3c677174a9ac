// Answers sized for a model (DESIGN.md 1): every MCP tools/call result fits in 25,000 tokens
// (characters / 4) at any arguments, long series come in the compact form, and an answer that
// would still not fit is cut to its latest rows and says so. Also every answer at its default
// arguments fits, on both doors.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SCREEN_FIELDS } from '../../src/domain/screen.js';
import { mcpResultText, mcpToolResult } from '../../src/tools/budget.js';
import { toColumns } from '../../src/tools/series.js';
import { TOOLS } from '../../src/tools/registry.js';
import { startTestApp, type TestServer } from '../support/server.js';

type Json = Record<string, unknown>;
const TOKENS = 25_000;

describe('mcpToolResult: the size budget', () => {
  const bars = Array.from({ length: 1_000 }, (_, i) => ({ date: `2020-01-${String(i).padStart(4, '0')}`, close: i }));
  const body = JSON.stringify({ code: 'X', count: bars.length, bars, source: 'demo' });

  it('leaves an answer that fits as it is', () => {
    const whole = mcpToolResult({ series: { field: 'bars', key: 'date', endParam: 'to' } }, body, 1_000_000);
    assert.deepEqual(JSON.parse(whole).structuredContent, JSON.parse(body));
  });

  it('cuts an answer over the budget to the latest rows that fit, and says how to ask for the rest', () => {
    const budget = 10_000;
    const text = mcpToolResult({ series: { field: 'bars', key: 'date', endParam: 'to' } }, body, budget);
    assert.ok(text.length <= budget, `${text.length} characters`);
    const s = JSON.parse(text).structuredContent as { bars: { date: string }[]; count: number; truncated: true; truncation: Json };
    assert.equal(s.truncated, true);
    assert.equal(s.bars.at(-1)?.date, bars.at(-1)?.date, 'the latest rows are kept');
    assert.equal(s.count, s.bars.length);
    assert.deepEqual([s.truncation['returned'], s.truncation['available']], [s.bars.length, 1_000]);
    assert.match(String(s.truncation['rest']), new RegExp(`^rows before ${s.bars[0]!.date}: call again with to set before`));
    // One more row would not fit: the cut is the largest that does.
    const n = s.bars.length + 1;
    const more = JSON.stringify({ ...s, bars: bars.slice(-n), count: n, truncation: { ...s.truncation, returned: n, rest: String(s.truncation['rest']).replace(s.bars[0]!.date, bars.at(-n)!.date) } });
    assert.ok(mcpResultText(more).length > budget);
    // The text block holds the same JSON as structuredContent.
    assert.deepEqual(JSON.parse(JSON.parse(text).content[0].text), s);
  });

  it('cuts each series of a list by the same number of oldest rows (the compact form too)', () => {
    const series = (n: number) => toColumns(Array.from({ length: n }, (_, i) => ({ month: `m${String(i).padStart(3, '0')}`, exports: i })), ['month', 'exports']);
    const wide = JSON.stringify({ sectors: [{ sector: 'A', series: series(400) }, { sector: 'B', series: series(400) }] });
    const text = mcpToolResult({ series: { field: 'series', within: 'sectors', key: 'month', endParam: 'to' } }, wide, 8_000);
    const s = JSON.parse(text).structuredContent as { sectors: { series: { rows: unknown[][] } }[]; truncation: { returned: number } };
    assert.ok(text.length <= 8_000);
    assert.equal(s.sectors[0]!.series.rows.length, s.sectors[1]!.series.rows.length);
    assert.deepEqual(s.sectors[0]!.series.rows.at(-1), ['m399', 399]);
    assert.equal(s.truncation.returned, s.sectors[0]!.series.rows.length);
  });
});

describe('every tool within the budget, on a served universe', () => {
  let t: TestServer;
  let key: string;
  let client: Client;
  let code: string;
  before(async () => {
    t = await startTestApp();
    key = await t.newKey('paid');
    const rows = (await t.get(`${t.url}/api/public/v2/rankings?market=KR&bands=mega,xlarge,large,mid,small&limit=1`, key)).body as { rows: { ticker: string }[] };
    code = rows.rows[0]!.ticker;
    client = new Client({ name: 'budget-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/api/mcp`), { fetch: t.fetch, requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  });
  after(async () => {
    await client.close();
    await t.close();
  });

  /** The largest answer each tool can give: every maximum at once. */
  const maximal = (name: string): Json => {
    const max: Record<string, Json> = {
      get_price_history: { code, interval: 'day', limit: 2600, format: 'rows' },
      get_rankings: { market: 'KR,US', bands: 'mega,xlarge,large,mid,small', limit: 100 },
      get_trade_total: { from: '1990-01', format: 'rows' },
      get_sector_exports: { from: '1990-01', top: 50, format: 'rows' },
      get_stock_snapshot: { code },
      get_stock_score: { code },
      get_valuation_band: { code, type: 'per', from: '1990-01-01' },
      get_sector_percentile: { code, cohort: 'market' },
      search_stocks: { q: 'a', limit: 50 },
      screen_stocks: { market: 'KR,US', fields: [...SCREEN_FIELDS], limit: 200, format: 'rows' },
      health: {},
    };
    const args = max[name];
    assert.ok(args, `maximal arguments of ${name} are listed here`);
    return args;
  };

  it('every tool at its maximum arguments, even asking for object rows, answers within 25,000 tokens over MCP', async () => {
    for (const tool of TOOLS) {
      const res = await t.fetch(`${t.url}/api/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool.name, arguments: maximal(tool.name) } }),
      });
      const text = await res.text();
      assert.equal(res.status, 200, `${tool.name}: ${text.slice(0, 200)}`);
      assert.ok(text.length / 4 <= TOKENS, `${tool.name}: ${Math.round(text.length / 4)} tokens`);
      assert.equal((JSON.parse(text) as { result: { isError?: boolean } }).result.isError, undefined, tool.name);
    }
  });

  it('a cut answer keeps the latest rows, validates against the outputSchema and says how to get the rest', async () => {
    // The SDK client validates structuredContent against the tool's outputSchema itself.
    const result = await client.callTool({ name: 'get_price_history', arguments: { code, limit: 2600, format: 'rows' } });
    const s = result.structuredContent as { bars: { date: string }[]; count: number; truncated?: true; truncation?: { returned: number; available: number; rest: string } };
    assert.equal(s.truncated, true);
    const rest = (await t.get(`${t.url}/api/public/v2/stocks/${code}/prices?limit=2600`, key)).body as { bars: { date: string }[] };
    assert.equal(s.truncation?.available, rest.bars.length);
    assert.deepEqual(s.bars, rest.bars.slice(-s.bars.length), 'the latest rows, unchanged');
    // About 240 characters a daily bar in object rows (the JSON twice): some 400 of them fit.
    assert.ok(s.bars.length > 300, `${s.bars.length} daily bars in object rows`);
    // The compact form holds about twice as many.
    const compact = (await client.callTool({ name: 'get_price_history', arguments: { code, limit: 2600 } })).structuredContent as { bars: { rows: unknown[][] } };
    assert.ok(compact.bars.rows.length > s.bars.length * 1.6, `${compact.bars.rows.length} vs ${s.bars.length}`);
  });

  it('at default arguments every tool answers within 25,000 tokens on both doors, uncut', async () => {
    for (const tool of TOOLS) {
      const args = tool.name === 'health' || tool.name.startsWith('get_trade') || tool.name.startsWith('get_sector_exports') || tool.name === 'get_rankings' || tool.name === 'screen_stocks' ? {} : tool.name === 'search_stocks' ? { q: 'a' } : { code };
      const result = await client.callTool({ name: tool.name, arguments: args });
      const text = JSON.stringify(result);
      assert.ok(text.length / 4 <= TOKENS, `${tool.name} over MCP: ${Math.round(text.length / 4)} tokens`);
      assert.equal((result.structuredContent as Json)['truncated'], undefined, `${tool.name} is not cut at its defaults`);
      const path = tool.path.replace('{code}', code) + (tool.name === 'search_stocks' ? '?q=a' : '');
      const rest = await t.fetch(`${t.url}/api/public/v2${path}`, { headers: { authorization: `Bearer ${key}` } });
      const body = await rest.text();
      assert.equal(rest.status, 200, `${tool.name}: ${body.slice(0, 200)}`);
      assert.ok(body.length / 4 <= TOKENS, `${tool.name} over REST: ${Math.round(body.length / 4)} tokens`);
    }
  });

  it('REST gives the compact form on request, the same rows in the same order', async () => {
    const rows = (await t.get(`${t.url}/api/public/v2/exports/total?from=2020-01&to=2021-12`, key)).body as { rows: Json[] };
    const compact = (await t.get(`${t.url}/api/public/v2/exports/total?from=2020-01&to=2021-12&format=columns`, key)).body as { rows: { columns: string[]; rows: unknown[][] } };
    assert.deepEqual(compact.rows.columns, ['month', 'exports', 'imports', 'balance', 'exportsYoyPct', 'importsYoyPct']);
    assert.deepEqual(compact.rows.rows, rows.rows.map((r) => compact.rows.columns.map((c) => r[c])));
    const bad = await t.get(`${t.url}/api/public/v2/exports/total?format=csv`, key);
    assert.equal(bad.status, 400);
    assert.match(String((bad.body as Json)['detail']), /format/);
  });
});
