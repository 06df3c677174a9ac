// The JSON-RPC / MCP door: the official SDK client over Streamable HTTP, bare curl-style
// calls, and every error path of DESIGN.md section 2.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { get, startTestServer, type TestServer } from '../support/server.js';

type Json = Record<string, unknown>;

async function rpc(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: unknown; text: string }> {
  // Deliberately what the spec shows: only Authorization and Content-Type, no Accept.
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

describe('MCP /api/mcp', () => {
  let t: TestServer;
  let key: string;
  let mcp: string;
  let auth: Record<string, string>;
  let kr: string;
  let us: string;
  before(async () => {
    t = await startTestServer({ FREE_DAILY_QUOTA: '2', BODY_LIMIT_BYTES: '4096', MAX_BATCH: '5', ALLOWED_ORIGINS: 'https://app.example' });
    key = await t.newKey('paid');
    mcp = `${t.url}/api/mcp`;
    auth = { authorization: `Bearer ${key}` };
    const all = (await get(`${t.url}/api/public/v2/rankings?market=KR,US&bands=mega,xlarge,large,mid,small&limit=200`, key)).body as { rows: { ticker: string; market: string }[] };
    kr = all.rows.find((r) => r.market === 'KR')!.ticker;
    us = all.rows.find((r) => r.market === 'US')!.ticker;
  });
  after(() => t.close());

  describe('with the official SDK client', () => {
    let client: Client;
    before(async () => {
      client = new Client({ name: 'test-client', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(mcp), { requestInit: { headers: auth } });
      await client.connect(transport);
    });
    after(() => client.close());

    it('initializes and lists the ten tools with input and output schemas', async () => {
      assert.equal(client.getServerVersion()?.name, 'stock-data-service');
      assert.ok(client.getServerCapabilities()?.tools);
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((x) => x.name).sort(),
        ['get_price_history', 'get_rankings', 'get_sector_exports', 'get_sector_percentile', 'get_stock_score', 'get_stock_snapshot', 'get_trade_total', 'get_valuation_band', 'health', 'search_stocks'],
      );
      for (const tool of tools) {
        assert.equal(tool.inputSchema.type, 'object');
        assert.equal(tool.outputSchema?.type, 'object');
        assert.ok(tool.description && tool.description.length > 40);
      }
      const rankings = tools.find((x) => x.name === 'get_rankings')!;
      assert.deepEqual((rankings.inputSchema.properties as Record<string, Json>).limit, { default: 10, type: 'integer', minimum: 1, maximum: 100, description: 'rows to return' });
    });

    it('calls every tool; structuredContent validates against its outputSchema and equals the REST body', async () => {
      const { tools } = await client.listTools();
      const ajv = new Ajv2020({ strict: false });
      const calls: [string, Json, string][] = [
        ['get_stock_score', { code: kr }, `/stocks/${kr}/score`],
        ['get_rankings', { market: 'KR,US', bands: 'mega,xlarge,large,mid,small', limit: 100 }, '/rankings?market=KR,US&bands=mega,xlarge,large,mid,small&limit=100'],
        // Long series come over MCP in the compact form by default, as REST gives them with format=columns.
        ['get_trade_total', { from: '2020-01', to: '2020-12' }, '/exports/total?from=2020-01&to=2020-12&format=columns'],
        ['get_sector_exports', { top: 5 }, '/exports/sectors?top=5&format=columns'],
        ['get_stock_snapshot', { code: us }, `/stocks/${us}/snapshot`],
        ['get_valuation_band', { code: us, type: 'pbr', from: '2018-01-01' }, `/stocks/${us}/valuation-band?type=pbr&from=2018-01-01`],
        ['get_sector_percentile', { code: kr, cohort: 'market' }, `/stocks/${kr}/percentile?cohort=market`],
        ['get_price_history', { code: kr, interval: 'month', limit: 24 }, `/stocks/${kr}/prices?interval=month&limit=24&format=columns`],
        ['get_price_history', { code: kr, interval: 'week', limit: 10, format: 'rows' }, `/stocks/${kr}/prices?interval=week&limit=10`],
        ['health', {}, '/health'],
        ['search_stocks', { q: 'a', limit: 50 }, '/stocks?q=a&limit=50'],
      ];
      for (const [name, args, restPath] of calls) {
        const result = await client.callTool({ name, arguments: args });
        assert.notEqual(result.isError, true, name);
        const structured = result.structuredContent as Json;
        const schema = tools.find((x) => x.name === name)!.outputSchema!;
        const validate = ajv.compile(schema);
        assert.ok(validate(structured), `${name}: ${JSON.stringify(validate.errors?.slice(0, 2))}`);
        const content = result.content as { type: string; text: string }[];
        assert.equal(content[0]?.type, 'text');
        assert.deepEqual(JSON.parse(content[0]!.text), structured);
        const rest = (await get(`${t.url}/api/public/v2${restPath}`, key)).body as Json;
        if (name === 'health') {
          assert.equal(rest.callsToday, (structured.callsToday as number) + 1, 'both doors count on one key');
          assert.equal(rest.valid, true);
        } else {
          assert.deepEqual(structured, rest, name);
        }
      }
    });

    it('bad arguments are a tool result with isError naming the argument and the allowed values', async () => {
      const result = await client.callTool({ name: 'get_rankings', arguments: { limit: 101 } });
      assert.equal(result.isError, true);
      assert.equal((result.content as { text: string }[])[0]?.text, "invalid_parameter: parameter 'limit' 101 is out of range; allowed: an integer from 1 to 100; default 10");
      const unknown = await client.callTool({ name: 'get_stock_score', arguments: { code: '000001' } });
      assert.equal(unknown.isError, true);
      assert.match((unknown.content as { text: string }[])[0]!.text, /not_found: no KR stock has the code 000001/);
    });

    it('an unknown tool is JSON-RPC error -32602', async () => {
      await assert.rejects(client.callTool({ name: 'get_everything', arguments: {} }), (err: Error & { code?: number }) => err.code === -32602);
    });
  });

  describe('bare JSON-RPC (as the spec shows it: no Accept, no initialize)', () => {
    it('tools/list and tools/call answer plain JSON', async () => {
      const list = await rpc(mcp, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, auth);
      assert.equal(list.status, 200);
      assert.match(String(list.headers.get('content-type')), /^application\/json/);
      assert.equal(((list.body as Json).result as { tools: unknown[] }).tools.length, 10);
      const call = await rpc(mcp, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_rankings', arguments: { limit: 3 } } }, auth);
      assert.equal(call.status, 200);
      const body = call.body as { id: number; result: { structuredContent: { rows: unknown[] }; content: unknown[] } };
      assert.equal(body.id, 2);
      assert.equal(body.result.structuredContent.rows.length, 3);
    });

    it('initialize negotiates the protocol version; ping answers', async () => {
      const init = await rpc(mcp, { jsonrpc: '2.0', id: 'a', method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'curl', version: '0' } } }, auth);
      const result = (init.body as { result: Json }).result;
      assert.equal(result.protocolVersion, '2025-03-26');
      assert.deepEqual(result.capabilities, { tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false } });
      const future = await rpc(mcp, { jsonrpc: '2.0', id: 'b', method: 'initialize', params: { protocolVersion: '2099-01-01' } }, auth);
      assert.equal(((future.body as { result: Json }).result as Json).protocolVersion, '2025-11-25');
      const ping = await rpc(mcp, { jsonrpc: '2.0', id: 3, method: 'ping' }, auth);
      assert.deepEqual(ping.body, { jsonrpc: '2.0', id: 3, result: {} });
    });

    it('errors: unknown method -32601, malformed JSON -32700, invalid request -32600', async () => {
      const m = await rpc(mcp, { jsonrpc: '2.0', id: 4, method: 'resources/subscribe', params: { uri: 'stock-data://metrics' } }, auth);
      assert.equal((m.body as { error: { code: number } }).error.code, -32601);
      const parse = await rpc(mcp, '{"jsonrpc":"2.0",', auth);
      assert.equal(parse.status, 400);
      assert.deepEqual([(parse.body as Json).id, (parse.body as { error: { code: number } }).error.code], [null, -32700]);
      for (const bad of [{ id: 5, method: 'ping' }, { jsonrpc: '1.0', id: 5, method: 'ping' }, { jsonrpc: '2.0', id: 5 }, { jsonrpc: '2.0', id: { x: 1 }, method: 'ping' }, 42, '"text"', 'null']) {
        const res = await rpc(mcp, bad, auth);
        assert.equal((res.body as { error: { code: number } }).error.code, -32600, JSON.stringify(bad));
      }
      const unknownTool = await rpc(mcp, { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'nope' } }, auth);
      assert.equal((unknownTool.body as { error: { code: number } }).error.code, -32602);
    });

    it('a notification gets 202 and no body; batches are answered as arrays', async () => {
      const note = await rpc(mcp, { jsonrpc: '2.0', method: 'notifications/initialized' }, auth);
      assert.equal(note.status, 202);
      assert.equal(note.text, '');
      const batch = await rpc(
        mcp,
        [
          { jsonrpc: '2.0', id: 1, method: 'ping' },
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          { jsonrpc: '2.0', id: 2, method: 'nope' },
          { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_trade_total', arguments: { from: '1989-01' } } },
          7,
        ],
        auth,
      );
      assert.equal(batch.status, 200);
      const answers = batch.body as { id: unknown; result?: { isError?: boolean }; error?: { code: number } }[];
      assert.equal(answers.length, 4, 'no answer for the notification');
      assert.deepEqual(answers.map((a) => a.id), [1, 2, 3, null]);
      assert.equal(answers[1]?.error?.code, -32601);
      assert.equal(answers[2]?.result?.isError, true);
      assert.equal(answers[3]?.error?.code, -32600);
      const empty = await rpc(mcp, [], auth);
      assert.equal((empty.body as { error: { code: number } }).error.code, -32600);
      const tooMany = await rpc(mcp, Array.from({ length: 6 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' })), auth);
      assert.equal(tooMany.status, 400);
    });

    it('missing or bad key: HTTP 401, JSON-RPC error with id null, WWW-Authenticate', async () => {
      for (const headers of [{}, { authorization: 'Bearer nope' }, { authorization: `Bearer sk_live_${'C'.repeat(43)}` }] as Record<string, string>[]) {
        const res = await rpc(mcp, { jsonrpc: '2.0', id: 9, method: 'tools/list' }, headers);
        assert.equal(res.status, 401);
        assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="api", error="invalid_token"');
        assert.equal((res.body as Json).id, null);
        assert.equal((res.body as { error: { code: number } }).error.code, -32001);
      }
      // health is the one call an unknown key may make (valid: false).
      const health = await rpc(mcp, { jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'health' } }, { authorization: `Bearer sk_live_${'C'.repeat(43)}` });
      assert.equal(health.status, 200);
      assert.equal((health.body as { result: { structuredContent: Json } }).result.structuredContent.valid, false);
    });

    it('counts tools/call once and not initialize, ping or tools/list; quota exceeded is HTTP 429 with Retry-After', async () => {
      const free = await t.newKey('free'); // quota 2/day in this server
      const h = { authorization: `Bearer ${free}` };
      await rpc(mcp, { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }, h);
      await rpc(mcp, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, h);
      await rpc(mcp, { jsonrpc: '2.0', id: 3, method: 'ping' }, h);
      const c1 = await rpc(mcp, { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'get_trade_total', arguments: {} } }, h);
      assert.equal(c1.headers.get('ratelimit'), '"daily";r=1;t=43200');
      const c2 = await rpc(mcp, { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'get_rankings', arguments: {} } }, h);
      assert.equal(c2.status, 200);
      const c3 = await rpc(mcp, { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'get_rankings', arguments: {} } }, h);
      assert.equal(c3.status, 429);
      assert.equal(c3.headers.get('retry-after'), '43200');
      assert.equal((c3.body as Json).id, 6);
      assert.equal((c3.body as { error: { data: Json } }).error.data.code, 'quota_exceeded');
      const health = await rpc(mcp, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'health' } }, h);
      assert.equal((health.body as { result: { structuredContent: Json } }).result.structuredContent.callsToday, 3, 'two calls and this health call');
    });

    it('checks Origin against the allow-list and bounds the body size', async () => {
      const foreign = await rpc(mcp, { jsonrpc: '2.0', id: 1, method: 'ping' }, { ...auth, origin: 'https://evil.example' });
      assert.equal(foreign.status, 403);
      for (const origin of ['https://app.example', 'http://localhost:3000', 'http://127.0.0.1:8080']) {
        assert.equal((await rpc(mcp, { jsonrpc: '2.0', id: 1, method: 'ping' }, { ...auth, origin })).status, 200, origin);
      }
      const big = await rpc(mcp, { jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(5000) } }, auth);
      assert.equal(big.status, 413);
    });

    it('GET is 405: the endpoint is stateless', async () => {
      const res = await fetch(mcp, { headers: auth });
      assert.equal(res.status, 405);
      assert.equal(res.headers.get('allow'), 'POST');
    });
  });
});
