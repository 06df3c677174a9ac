// The JSON-RPC / MCP door through Fastify's inject() (no socket; real HTTP:
// test/e2e/doors.test.ts): the official SDK client over Streamable HTTP, bare curl-style calls,
// and every error path of DESIGN.md section 2.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { VERSION } from '../../src/app.js';
import { bareRequest } from '../../src/http/mcp/eras.js';
import { sectorKo } from '../../src/domain/sectors.js';
import { buildPrompts } from '../../src/http/mcp-prompts.js';
import { jsonSchema } from '../../src/http/openapi.js';
import { TOOLS } from '../../src/tools/registry.js';
import { startTestApp, type TestServer } from '../support/server.js';

type Json = Record<string, unknown>;

describe('MCP /api/mcp', () => {
  let t: TestServer;
  let key: string;
  let mcp: string;
  let auth: Record<string, string>;
  let kr: string;
  let us: string;
  /** POST a JSON-RPC body to the MCP door. */
  async function rpc(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: unknown; text: string }> {
    // Deliberately what the spec shows: only Authorization and Content-Type, no Accept.
    const res = await t.fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }
  before(async () => {
    t = await startTestApp({ FREE_DAILY_QUOTA: '2', BODY_LIMIT_BYTES: '4096', MAX_BATCH: '5', ALLOWED_ORIGINS: 'https://app.example' });
    key = await t.newKey('paid');
    mcp = `${t.url}/api/mcp`;
    auth = { authorization: `Bearer ${key}` };
    const all = (await t.get(`${t.url}/api/public/v2/rankings?market=KR,US&bands=mega,xlarge,large,mid,small&limit=200`, key)).body as { rows: { ticker: string; market: string }[] };
    kr = all.rows.find((r) => r.market === 'KR')!.ticker;
    us = all.rows.find((r) => r.market === 'US')!.ticker;
  });
  after(() => t.close());

  describe('with the official SDK client', () => {
    let client: Client;
    before(async () => {
      client = new Client({ name: 'test-client', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(mcp), { fetch: t.fetch, requestInit: { headers: auth } });
      await client.connect(transport);
    });
    after(() => client.close());

    it('initializes and lists the eleven tools with input and output schemas', async () => {
      assert.equal(client.getServerVersion()?.name, 'stock-data-service');
      assert.ok(client.getServerCapabilities()?.tools);
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((x) => x.name).sort(),
        ['get_price_history', 'get_rankings', 'get_sector_exports', 'get_sector_percentile', 'get_stock_score', 'get_stock_snapshot', 'get_trade_total', 'get_valuation_band', 'health', 'screen_stocks', 'search_stocks'],
      );
      for (const tool of tools) {
        assert.equal(tool.inputSchema.type, 'object');
        assert.equal(tool.outputSchema?.type, 'object');
        assert.ok(tool.description && tool.description.length > 40);
      }
      const rankings = tools.find((x) => x.name === 'get_rankings')!;
      assert.deepEqual((rankings.inputSchema.properties as Record<string, Json>).limit, { default: 10, type: 'integer', minimum: 1, maximum: 100, description: 'rows to return' });
      // Long series: the schema declares the default MCP applies (the compact form); REST's is rows.
      for (const name of ['get_price_history', 'get_trade_total', 'get_sector_exports']) {
        const tool = tools.find((x) => x.name === name)!;
        assert.equal(((tool.inputSchema.properties as Record<string, Json>).format as Json).default, 'columns', name);
        const restFormat = jsonSchema(TOOLS.find((x) => x.name === name)!.restInput!, 'input') as { properties: Record<string, Json> };
        assert.equal(restFormat.properties.format!.default, 'rows', name);
      }
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
        // MCP's structured arguments and REST's query text are one screen; MCP answers in the compact form.
        [
          'screen_stocks',
          { market: 'KR,US', filters: [{ field: 'roe', min: 5 }, { field: 'per', max: 40 }], sort: { field: 'operatingMargin', order: 'asc' }, fields: ['roe', 'per', 'grade'], limit: 20 },
          '/screen?market=KR,US&filters=roe:5:,per::40&sort=operatingMargin:asc&fields=roe,per,grade&limit=20&format=columns',
        ],
        // The per-share fields screen over MCP as over REST.
        [
          'screen_stocks',
          { market: 'KR,US', filters: [{ field: 'dividendYield', min: 1 }], sort: { field: 'dividendYield', order: 'desc' }, fields: ['eps', 'dividendPerShare', 'dividendPerShareFy', 'dividendYield'], limit: 10 },
          '/screen?market=KR,US&filters=dividendYield:1:&sort=dividendYield:desc&fields=eps,dividendPerShare,dividendPerShareFy,dividendYield&limit=10&format=columns',
        ],
        ['get_stock_snapshot', { code: kr }, `/stocks/${kr}/snapshot`],
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
        const rest = (await t.get(`${t.url}/api/public/v2${restPath}`, key)).body as Json;
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
      assert.equal(((list.body as Json).result as { tools: unknown[] }).tools.length, 11);
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
      assert.deepEqual(result.capabilities, { tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false }, completions: {} });
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

    it('a cached tools/call answers the REST body byte for byte, alone and inside a batch, with Hangul in it', async () => {
      const rest = await t.fetch(`${t.url}/api/public/v2/rankings?limit=3`, { headers: auth });
      const restText = await rest.text();
      assert.match(restText, /[\uAC00-\uD7A3]/, 'a Korean name in the body');
      const call = { jsonrpc: '2.0', method: 'tools/call', params: { name: 'get_rankings', arguments: { limit: 3 } } };
      type Answer = { id: unknown; result?: { content: { text: string }[] }; error?: { code: number } };
      // The first call builds the MCP form of the cached answer, the second sends it as kept.
      for (let round = 0; round < 2; round++) {
        const one = await rpc(mcp, { ...call, id: 'x"1' }, auth);
        assert.equal(one.status, 200);
        assert.equal(Number(one.headers.get('content-length')), Buffer.byteLength(one.text), 'Content-Length counts bytes');
        assert.equal((one.body as Answer).id, 'x"1');
        assert.equal((one.body as Answer).result?.content[0]?.text, restText);
        const batch = await rpc(mcp, [{ ...call, id: 1 }, { jsonrpc: '2.0', id: 2, method: 'nope' }, { ...call, id: 3 }], auth);
        const answers = batch.body as Answer[];
        assert.deepEqual(answers.map((a) => a.id), [1, 2, 3]);
        assert.equal(answers[0]?.result?.content[0]?.text, restText);
        assert.equal(answers[1]?.error?.code, -32601);
        assert.equal(answers[2]?.result?.content[0]?.text, restText);
      }
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
      const res = await t.fetch(mcp, { headers: auth });
      assert.equal(res.status, 405);
      assert.equal(res.headers.get('allow'), 'POST');
    });
  });

  describe('beyond tools: annotations, resources and prompts (official SDK client)', () => {
    let client: Client;
    before(async () => {
      client = new Client({ name: 'catalog-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(mcp), { fetch: t.fetch, requestInit: { headers: auth } }));
    });
    after(() => client.close());

    it('every tool is annotated read-only, idempotent and closed-world; its schemas are the OpenAPI document\'s', async () => {
      const { tools } = await client.listTools();
      for (const tool of tools) {
        assert.equal(tool.annotations?.readOnlyHint, true, tool.name);
        assert.equal(tool.annotations?.idempotentHint, true, tool.name);
        assert.equal(tool.annotations?.destructiveHint, false, tool.name);
        assert.equal(tool.annotations?.openWorldHint, false, tool.name);
        const def = TOOLS.find((x) => x.name === tool.name)!;
        assert.deepEqual(tool.inputSchema, jsonSchema(def.input, 'input'), `${tool.name} inputSchema`);
        assert.deepEqual(tool.outputSchema, jsonSchema(def.output, 'output'), `${tool.name} outputSchema`);
      }
    });

    it('lists and reads every resource: the formula and bands, the 17 metrics, the sectors, the sources', async () => {
      const capabilities = client.getServerCapabilities();
      assert.ok(capabilities?.resources && capabilities.prompts);
      const { resources } = await client.listResources();
      assert.deepEqual(resources.map((r) => r.uri).sort(), ['stock-data://formula/v3', 'stock-data://metrics', 'stock-data://screen-fields', 'stock-data://sectors', 'stock-data://sources']);
      const text: Record<string, string> = {};
      for (const resource of resources) {
        assert.ok(resource.description && resource.description.length > 40, resource.uri);
        const { contents } = await client.readResource({ uri: resource.uri });
        assert.equal(contents.length, 1);
        assert.equal(contents[0]!.uri, resource.uri);
        assert.equal(contents[0]!.mimeType, resource.mimeType);
        text[resource.uri] = (contents[0] as { text: string }).text;
      }
      // The formula as get_rankings publishes it, and the bands and grades as computed.
      const rankings = (await t.get(`${t.url}/api/public/v2/rankings?limit=1`, key)).body as { formula: Record<string, string> };
      for (const line of Object.values(rankings.formula)) assert.ok(text['stock-data://formula/v3']!.includes(line), line.slice(0, 40));
      assert.match(text['stock-data://formula/v3']!, /\| mega \| >= 20 trillion won \| >= \$200B \|/);
      assert.match(text['stock-data://formula/v3']!, /\| mid \| >= 0\.3 trillion won \| >= \$3B \|/);
      assert.match(text['stock-data://formula/v3']!, /A\+ >= 90, A >= 80, B\+ >= 70, B >= 60, C\+ >= 50, C >= 40, D below/);
      // The 17 metrics, in the order and with the units a get_sector_percentile answer carries.
      const metrics = JSON.parse(text['stock-data://metrics']!) as { metrics: { key: string; name: string; unit: string; definition: string }[] };
      const percentile = (await t.get(`${t.url}/api/public/v2/stocks/${kr}/percentile`, key)).body as { metrics: { metric: string; unit: string }[] };
      assert.equal(metrics.metrics.length, 17);
      assert.deepEqual(metrics.metrics.map((m) => [m.key, m.unit]), percentile.metrics.map((m) => [m.metric, m.unit]));
      for (const m of metrics.metrics) assert.ok(m.name && m.definition.length > 10, m.key);
      // screen_stocks' fields: the same 17 metrics in the same units, and every unit a screen answer gives.
      const screenFields = JSON.parse(text['stock-data://screen-fields']!) as { numeric: { field: string; unit: string }[] };
      for (const m of metrics.metrics) assert.equal(screenFields.numeric.find((f) => f.field === m.key)?.unit, m.unit, m.key);
      const screen = (await t.get(`${t.url}/api/public/v2/screen?fields=${screenFields.numeric.map((f) => f.field).join(',')}&limit=1`, key)).body as { units: Record<string, string> };
      assert.deepEqual(screen.units, Object.fromEntries(screenFields.numeric.map((f) => [f.field, f.unit])));
      // The sectors of the served stocks: every stock's sector is listed under its market.
      const sectors = JSON.parse(text['stock-data://sectors']!) as { updatedAt: string; source: string; markets: Record<string, { sector: string; sectorKo: string | null; stocks: number }[]> };
      assert.deepEqual(Object.keys(sectors.markets).sort(), ['KR', 'US']);
      const peers = (await t.get(`${t.url}/api/public/v2/stocks/${us}/percentile?cohort=sector`, key)).body as { cohortName: string; cohortNameKo: string | null; cohortMembers?: number; updatedAt: string };
      assert.ok(sectors.markets.US!.some((s) => s.sector === peers.cohortName && s.stocks >= 1), peers.cohortName);
      // Each sector with its Korean name (every demo sector has one), the percentile's cohort too.
      for (const s of [...sectors.markets.KR!, ...sectors.markets.US!]) assert.equal(s.sectorKo, sectorKo(s.sector), s.sector);
      assert.ok(peers.cohortNameKo !== null && peers.cohortNameKo === sectorKo(peers.cohortName));
      const marketPeers = (await t.get(`${t.url}/api/public/v2/stocks/${us}/percentile?cohort=market`, key)).body as { cohortNameKo: string | null };
      assert.equal(marketPeers.cohortNameKo, null);
      assert.equal(sectors.updatedAt, peers.updatedAt);
      const snapshot = { updatedAt: peers.updatedAt };
      // The sources and refresh times are the served dataset's.
      const sources = JSON.parse(text['stock-data://sources']!) as Json;
      assert.equal(sources.source, 'demo');
      assert.equal(sources.updatedAt, snapshot.updatedAt);
      // The test server runs with REFRESH_SCHEDULE=off: no refresh is scheduled, none is named.
      assert.equal(sources.nextRefreshAt, null);
      assert.ok(Array.isArray(sources.sources));
      await assert.rejects(client.readResource({ uri: 'stock-data://nothing' }), (err: Error & { code?: number }) => err.code === -32602);
    });

    it('lists and gets every prompt; each names only registered tools, and the stock prompts find a code by name when search_stocks exists', async () => {
      const { prompts } = await client.listPrompts();
      assert.deepEqual(prompts.map((p) => p.name).sort(), ['compare_stocks', 'explain_stock', 'korea_export_brief', 'screen_stocks']);
      const { tools } = await client.listTools();
      const names = new Set(tools.map((x) => x.name));
      const args: Record<string, Record<string, string>> = { explain_stock: { stock: '삼성전자' }, compare_stocks: { codes: `${kr}, ${us}` }, korea_export_brief: {}, screen_stocks: { request: '코스피 반도체 중 ROE 15% 이상, PER 10 이하' } };
      const uses: Record<string, string[]> = {
        explain_stock: ['get_stock_snapshot', 'get_stock_score', 'get_valuation_band'],
        compare_stocks: ['get_stock_score', 'get_stock_snapshot', 'get_sector_percentile'],
        korea_export_brief: ['get_trade_total', 'get_sector_exports'],
        screen_stocks: ['screen_stocks', 'get_stock_score'],
      };
      for (const prompt of prompts) {
        assert.ok(prompt.description && prompt.title, prompt.name);
        const { messages } = await client.getPrompt({ name: prompt.name, arguments: args[prompt.name]! });
        assert.equal(messages.length, 1);
        assert.equal(messages[0]!.role, 'user');
        const text = (messages[0]!.content as { type: string; text: string }).text;
        for (const tool of uses[prompt.name]!) assert.ok(text.includes(tool) && names.has(tool), `${prompt.name} uses ${tool}`);
        for (const mentioned of text.match(/\b(get_[a-z_]+|search_stocks|screen_stocks|health)\b/g) ?? []) assert.ok(names.has(mentioned), `${prompt.name} names ${mentioned}`);
        for (const value of Object.values(args[prompt.name]!)) assert.ok(text.includes(value), `${prompt.name} quotes its argument`);
      }
      const explain = await client.getPrompt({ name: 'explain_stock', arguments: { stock: 'Apple' } });
      const explainText = (explain.messages[0]!.content as { text: string }).text;
      assert.equal(explainText.includes('search_stocks'), names.has('search_stocks'));
      await assert.rejects(client.getPrompt({ name: 'explain_stock', arguments: {} }), (err: Error & { code?: number }) => err.code === -32602);
      await assert.rejects(client.getPrompt({ name: 'nope' }), (err: Error & { code?: number }) => err.code === -32602);
    });

    it('prompts are built from the registry: without search_stocks they ask for a code and never name it', async () => {
      const without = buildPrompts(TOOLS.filter((x) => x.name !== 'search_stocks'));
      for (const prompt of without) {
        const text = prompt.text({ stock: 'Apple', codes: 'Apple, 005930' });
        assert.ok(!text.includes('search_stocks'), prompt.name);
        assert.ok(!prompt.tools.includes('search_stocks'), prompt.name);
      }
      assert.match(without.find((p) => p.name === 'explain_stock')!.text({ stock: 'Apple' }), /ask the user for its code/);
    });
  });

  describe('resources and prompts over bare JSON-RPC', () => {
    it('need a key and take its burst window but are not counted; batches mix them with calls', async () => {
      const none = await rpc(mcp, { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'stock-data://sources' } });
      assert.equal(none.status, 401);
      assert.equal((none.body as { error: { code: number } }).error.code, -32001);
      const free = await t.newKey('free'); // quota 2/day, burst 10/s in this server; the clock stands still
      const h = { authorization: `Bearer ${free}` };
      for (let i = 0; i < 2; i++) {
        const list = await rpc(mcp, { jsonrpc: '2.0', id: i, method: 'resources/list' }, h);
        assert.equal(((list.body as { result: { resources: unknown[] } }).result.resources).length, 5);
        const read = await rpc(mcp, { jsonrpc: '2.0', id: i, method: 'resources/read', params: { uri: 'stock-data://formula/v3' } }, h);
        assert.equal(read.status, 200);
        assert.match((read.body as { result: { contents: { text: string }[] } }).result.contents[0]!.text, /^# V3 formula/);
        const prompt = await rpc(mcp, { jsonrpc: '2.0', id: i, method: 'prompts/get', params: { name: 'korea_export_brief' } }, h);
        assert.equal(prompt.status, 200);
      }
      const batch = await rpc(
        mcp,
        [
          { jsonrpc: '2.0', id: 'p', method: 'prompts/list' },
          { jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'health' } },
          { jsonrpc: '2.0', id: 'r', method: 'resources/read', params: { uri: 'stock-data://metrics' } },
        ],
        h,
      );
      const answers = batch.body as { id: string; result: Json }[];
      assert.deepEqual(answers.map((a) => a.id), ['p', 'c', 'r']);
      assert.equal((answers[1]!.result.structuredContent as Json).callsToday, 1, 'only the health call counted');
      // 2 x 3 messages and the batch of 3 took 9 of the second's 10: one more, then refused.
      assert.equal((await rpc(mcp, { jsonrpc: '2.0', id: 'x', method: 'ping' }, h)).status, 200);
      const over = await rpc(mcp, { jsonrpc: '2.0', id: 'y', method: 'resources/list' }, h);
      assert.equal(over.status, 429);
      assert.equal(over.headers.get('retry-after'), '1');
      assert.deepEqual([(over.body as Json).id, (over.body as { error: { code: number; data: Json } }).error.code, (over.body as { error: { data: Json } }).error.data.code], ['y', -32029, 'rate_limited']);
    });

    it('initialize without capabilities or clientInfo (curl) answers; malformed params of a known method are an error, not silence', async () => {
      const bare = await rpc(mcp, { jsonrpc: '2.0', id: 1, method: 'initialize' }, auth);
      const result = (bare.body as { result: Json }).result;
      assert.equal(result.protocolVersion, '2025-11-25');
      assert.equal((result.serverInfo as Json).name, 'stock-data-service');
      assert.match(String(result.instructions), /Resources explain the formula/);
      // A message the SDK's classifier finds malformed (a progressToken must be a string or a
      // number) is refused with HTTP 400, as its transport does; the others are JSON-RPC errors in a 200.
      for (const [message, code, status] of [
        [{ jsonrpc: '2.0', id: 2, method: 'resources/read', params: {} }, -32603, 200],
        [{ jsonrpc: '2.0', id: 3, method: 'prompts/get', params: { name: 5 } }, -32603, 200],
        [{ jsonrpc: '2.0', id: 4, method: 'ping', params: { _meta: { progressToken: { x: 1 } } } }, -32600, 400],
        [{ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'get_rankings', arguments: 5 } }, -32602, 200],
        [{ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 7 } }, -32602, 200],
      ] as const) {
        const res = await rpc(mcp, message, auth);
        assert.equal(res.status, status, JSON.stringify(message));
        assert.equal((res.body as Json).id, message.id);
        assert.equal((res.body as { error: { code: number } }).error.code, code, JSON.stringify(message));
      }
    });

    it('a tools/call carrying _meta (classified by the SDK, not taken as bare) answers exactly as a bare one', async () => {
      const plain = await rpc(mcp, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_rankings', arguments: { limit: 2 } } }, auth);
      const meta = await rpc(mcp, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_rankings', arguments: { limit: 2 }, _meta: { progressToken: 'p1' } } }, auth);
      assert.equal(meta.text, plain.text);
      const badPlain = await rpc(mcp, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_rankings', arguments: { limit: 0 } } }, auth);
      const badMeta = await rpc(mcp, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_rankings', arguments: { limit: 0 }, _meta: {} } }, auth);
      assert.equal(badMeta.text, badPlain.text);
      const unknown = await rpc(mcp, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'nope', _meta: {} } }, auth);
      assert.equal((unknown.body as { error: { code: number } }).error.code, -32602);
    });

    it('concurrent calls with the same id each get their own answer', async () => {
      const limits = [1, 2, 3, 4, 5, 6, 7, 8];
      const answers = await Promise.all(limits.map((limit) => rpc(mcp, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_rankings', arguments: { limit } } }, auth)));
      assert.deepEqual(
        answers.map((a) => ((a.body as { result: { structuredContent: { rows: unknown[] } } }).result.structuredContent.rows).length),
        limits,
      );
      const pings = await Promise.all(limits.map((i) => rpc(mcp, { jsonrpc: '2.0', id: 1, method: i % 2 ? 'ping' : 'prompts/list' }, auth)));
      for (const p of pings) assert.equal((p.body as Json).id, 1);
    });
  });

  describe('protocol revision 2026-07-28 over raw HTTP (no initialize, no session; the SDK classifies and answers)', () => {
    const V = '2026-07-28';
    /** The per-request envelope every 2026 request carries in params._meta. */
    const envelope = (version = V) => ({
      'io.modelcontextprotocol/protocolVersion': version,
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'raw-http', version: '1' },
    });
    /** The three headers of a 2026 POST: the version, the method and (tools/call, resources/read, prompts/get) the name. */
    const headers = (method: string, name?: string, version = V): Record<string, string> => ({
      ...auth,
      'mcp-protocol-version': version,
      'mcp-method': method,
      ...(name === undefined ? {} : { 'mcp-name': name }),
    });
    const request = (id: number, method: string, params: Json = {}) => ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope() } });
    type Rpc = { id: unknown; result?: Json; error?: { code: number; message: string; data?: Json } };

    it('server/discover answers the supported revision, capabilities, instructions and server info, with cache fields', async () => {
      const res = await rpc(mcp, request(1, 'server/discover'), headers('server/discover'));
      assert.equal(res.status, 200);
      const result = (res.body as Rpc).result!;
      assert.deepEqual(result.supportedVersions, [V]);
      assert.deepEqual(result.capabilities, { tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false }, completions: {} });
      // The server's identity is in the result's _meta (every 2026 result carries it), not a field of its own.
      assert.deepEqual((result._meta as Json)['io.modelcontextprotocol/serverInfo'], { name: 'stock-data-service', title: 'Stock scoring and export data', version: VERSION });
      assert.match(String(result.instructions), /Resources explain the formula/);
      // resultType is stamped on every 2026 result; the list hint (mcp-server.ts LIST_HINT) is one hour, shared caches allowed.
      assert.deepEqual([result.resultType, result.ttlMs, result.cacheScope], ['complete', 3_600_000, 'public']);
    });

    it('tools/list, resources/list, prompts/list and resources/read carry ttlMs and cacheScope; the 2025 answers do not', async () => {
      for (const method of ['tools/list', 'resources/list', 'prompts/list']) {
        const res = await rpc(mcp, request(2, method), headers(method));
        assert.equal(res.status, 200, method);
        const result = (res.body as Rpc).result!;
        assert.deepEqual([result.resultType, result.ttlMs, result.cacheScope], ['complete', 3_600_000, 'public'], method);
        const legacy = ((await rpc(mcp, { jsonrpc: '2.0', id: 2, method }, auth)).body as Rpc).result!;
        assert.deepEqual([legacy.resultType, legacy.ttlMs, legacy.cacheScope], [undefined, undefined, undefined], `${method} in 2025`);
      }
      // A constant resource (built from the code) is kept like the lists; one built from the served data
      // until the next refresh is due: the test server has no refresh scheduled (nextRefreshAt null), so 0.
      for (const [uri, ttlMs] of [['stock-data://metrics', 3_600_000], ['stock-data://sources', 0]] as const) {
        const res = await rpc(mcp, request(3, 'resources/read', { uri }), headers('resources/read', uri));
        const result = (res.body as Rpc).result!;
        assert.deepEqual([result.resultType, result.ttlMs, result.cacheScope], ['complete', ttlMs, 'public'], uri);
        assert.equal((result.contents as { uri: string }[])[0]!.uri, uri);
      }
      const sources = JSON.parse((((await rpc(mcp, request(3, 'resources/read', { uri: 'stock-data://sources' }), headers('resources/read', 'stock-data://sources'))).body as Rpc).result!.contents as { text: string }[])[0]!.text) as Json;
      assert.equal(sources.nextRefreshAt, null);
    });

    it('tools/call answers as in 2025 with resultType; bad arguments (a __proto__ key included) are an isError result naming the allowed ones', async () => {
      const call = await rpc(mcp, request(4, 'tools/call', { name: 'get_rankings', arguments: { limit: 3 } }), headers('tools/call', 'get_rankings'));
      assert.equal(call.status, 200);
      const result = (call.body as Rpc).result!;
      assert.equal(result.resultType, 'complete');
      const legacy = ((await rpc(mcp, { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'get_rankings', arguments: { limit: 3 } } }, auth)).body as Rpc).result!;
      assert.deepEqual(result.structuredContent, legacy.structuredContent);
      assert.deepEqual(result.content, legacy.content);
      // JSON text with a "__proto__" key: JSON.parse keeps it as an own property, as the client sent it.
      for (const [body, h] of [
        [`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_rankings","arguments":{"__proto__":{"limit":1}},"_meta":${JSON.stringify(envelope())}}}`, headers('tools/call', 'get_rankings')],
        ['{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_rankings","arguments":{"__proto__":{"limit":1}}}}', auth],
        ['{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_rankings","arguments":{"constructor":1}}}', auth],
        ['{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_rankings","arguments":{"prototype":{}}}}', auth],
      ] as const) {
        const bad = await rpc(mcp, body, h);
        const r = (bad.body as Rpc).result!;
        assert.equal(r.isError, true, body);
        const key = /"(__proto__|constructor|prototype)"/.exec(body)![1];
        assert.equal((r.content as { text: string }[])[0]!.text, `invalid_parameter: unknown parameter '${key}'; allowed parameters: market, bands, limit, offset, asOf`);
      }
      const unknown = await rpc(mcp, request(6, 'tools/call', { name: 'nope', arguments: {} }), headers('tools/call', 'nope'));
      assert.equal((unknown.body as Rpc).error?.code, -32602);
      assert.match((unknown.body as Rpc).error!.message, /^Unknown tool: nope; available: search_stocks, /);
    });

    it('each header missing or disagreeing with the body: HTTP 400 and -32020 naming the header', async () => {
      const list = request(7, 'tools/list');
      const call = request(8, 'tools/call', { name: 'get_rankings', arguments: {} });
      const cases: [string, unknown, Record<string, string>, RegExp][] = [
        ['no MCP-Protocol-Version', list, { ...auth, 'mcp-method': 'tools/list' }, /MCP-Protocol-Version header is absent/],
        ['MCP-Protocol-Version of the other era', list, headers('tools/list', undefined, '2025-06-18'), /envelope names protocol version 2026-07-28 but the MCP-Protocol-Version header names 2025-06-18/],
        ['no Mcp-Method', list, { ...auth, 'mcp-protocol-version': V }, /Mcp-Method header is absent/],
        ['Mcp-Method of another method', list, headers('prompts/list'), /body names method tools\/list but the Mcp-Method header names prompts\/list/],
        ['no Mcp-Name on tools/call', call, headers('tools/call'), /params.name="get_rankings" but the required Mcp-Name header is absent/],
        ['Mcp-Name of another tool', call, headers('tools/call', 'health'), /params.name="get_rankings" but the Mcp-Name header names "health"/],
      ];
      for (const [what, body, h, message] of cases) {
        const res = await rpc(mcp, body, h);
        assert.equal(res.status, 400, what);
        const error = (res.body as Rpc).error!;
        assert.equal(error.code, -32020, what);
        assert.match(error.message, message, what);
        assert.equal((res.body as Rpc).id, (body as { id: number }).id, what);
      }
      // The envelope itself is required: a 2026 header on a body without one is -32602, HTTP 400.
      const bare = await rpc(mcp, { jsonrpc: '2.0', id: 9, method: 'tools/list' }, headers('tools/list'));
      assert.deepEqual([bare.status, (bare.body as Rpc).error?.code], [400, -32602]);
    });

    it('an unsupported MCP-Protocol-Version is HTTP 400: -32022 naming the supported revision, or -32602 without a 2026 envelope', async () => {
      const future = await rpc(mcp, { jsonrpc: '2.0', id: 10, method: 'tools/list', params: { _meta: envelope('2099-01-01') } }, headers('tools/list', undefined, '2099-01-01'));
      assert.equal(future.status, 400);
      assert.deepEqual((future.body as Rpc).error, { code: -32022, message: 'Unsupported protocol version: 2099-01-01', data: { supported: [V], requested: '2099-01-01' } });
      // A 2025-style body (no envelope) with a made-up version header: not served as either era.
      for (const version of ['2099-01-01', 'garbage']) {
        const res = await rpc(mcp, { jsonrpc: '2.0', id: 11, method: 'tools/list' }, { ...auth, 'mcp-protocol-version': version });
        assert.equal(res.status, 400, version);
        assert.equal((res.body as Rpc).error?.code, -32602, version);
      }
      // A revision of the 2025 era in the header is served.
      const old = await rpc(mcp, { jsonrpc: '2.0', id: 12, method: 'tools/list' }, { ...auth, 'mcp-protocol-version': '2025-06-18' });
      assert.equal(old.status, 200);
    });

    it('prompts/get names the prompt in Mcp-Name; a notification is 202 with no body', async () => {
      const prompt = await rpc(mcp, request(15, 'prompts/get', { name: 'korea_export_brief', arguments: { months: '6' } }), headers('prompts/get', 'korea_export_brief'));
      assert.equal(prompt.status, 200);
      const result = (prompt.body as Rpc).result!;
      assert.equal(result.resultType, 'complete');
      assert.match((result.messages as { content: { text: string } }[])[0]!.content.text, /last 6 months/);
      const wrong = await rpc(mcp, request(16, 'prompts/get', { name: 'korea_export_brief' }), headers('prompts/get', 'explain_stock'));
      assert.deepEqual([wrong.status, (wrong.body as Rpc).error?.code], [400, -32020]);
      const note = await rpc(mcp, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: envelope() } }, headers('notifications/cancelled'));
      assert.deepEqual([note.status, note.text], [202, '']);
    });

    it('a batch is a 2025 thing: one holding a 2026 request is HTTP 400, -32600, id null', async () => {
      const res = await rpc(mcp, [request(13, 'tools/list'), request(14, 'prompts/list')], headers('tools/list'));
      assert.equal(res.status, 400);
      assert.deepEqual([(res.body as Rpc).id, (res.body as Rpc).error?.code], [null, -32600]);
      assert.match((res.body as Rpc).error!.message, /batches may not contain requests for protocol revision 2026-07-28/);
      // Members without the envelope under the 2026 header: still no batch, not an unsupported revision.
      const bare = await rpc(mcp, [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0', id: 2, method: 'ping' }], headers('tools/list'));
      assert.equal(bare.status, 400);
      assert.deepEqual([(bare.body as Rpc).id, (bare.body as Rpc).error?.code], [null, -32600]);
      assert.match((bare.body as Rpc).error!.message, /revision 2026-07-28 has no batches/);
      // A made-up revision on a 2025 batch names every revision served, 2026-07-28 first.
      const future = await rpc(mcp, [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }], { ...auth, 'mcp-protocol-version': '1999-01-01' });
      assert.equal(future.status, 400);
      const error = (future.body as Rpc).error!;
      assert.equal(error.code, -32022);
      assert.deepEqual((error.data as { supported: string[] }).supported, ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07']);
    });

    it('the 2025 era beside it: initialize with the version header, then a call; and the bare curl call', async () => {
      const init = await rpc(mcp, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }, auth);
      assert.equal(((init.body as Rpc).result as Json).protocolVersion, '2025-06-18');
      const call = await rpc(mcp, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_rankings', arguments: { limit: 1 } } }, { ...auth, 'mcp-protocol-version': '2025-06-18' });
      assert.equal(call.status, 200);
      assert.equal((((call.body as Rpc).result!.structuredContent as { rows: unknown[] }).rows).length, 1);
      const bare = await rpc(mcp, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_rankings', arguments: { limit: 1 } } }, auth);
      assert.equal(bare.text, call.text.replace('"id":2', '"id":3'));
      // initialize is not a 2026 method: the revision negotiates with server/discover.
      const modernInit = await rpc(mcp, request(4, 'initialize', { protocolVersion: V, capabilities: {}, clientInfo: { name: 'c', version: '1' } }), headers('initialize'));
      assert.equal((modernInit.body as Rpc).error?.code, -32601);
    });

    it('a 2026 tools/call is metered like a 2025 one: refused past the quota with HTTP 429 and Retry-After', async () => {
      const free = await t.newKey('free'); // quota 2/day in this server
      const h = (name: string) => ({ ...headers('tools/call', name), authorization: `Bearer ${free}` });
      for (let i = 0; i < 2; i++) assert.equal((await rpc(mcp, request(20 + i, 'tools/call', { name: 'get_trade_total', arguments: {} }), h('get_trade_total'))).status, 200);
      const over = await rpc(mcp, request(22, 'tools/call', { name: 'get_trade_total', arguments: {} }), h('get_trade_total'));
      assert.equal(over.status, 429);
      assert.equal(over.headers.get('retry-after'), '43200');
      assert.deepEqual([(over.body as Rpc).id, (over.body as Rpc).error?.code, (over.body as Rpc).error?.data?.code], [22, -32029, 'quota_exceeded']);
    });
  });

  it('a request the door takes for a bare 2025 request without the SDK classifier is one the classifier routes to the 2025 era', () => {
    // bareRequest skips the classifier on the hot path; it must never take a request the
    // classifier would route to 2026 or refuse. Requests of every shape it accepts: any id, any
    // method (the protocol's and made-up ones), params absent or any object without _meta; with
    // and without a header it declines.
    const json = fc.jsonValue({ maxDepth: 2 });
    const method = fc.oneof(fc.constantFrom('tools/call', 'tools/list', 'initialize', 'ping', 'server/discover', 'resources/read', 'prompts/get', 'notifications/initialized'), fc.string({ maxLength: 20 }));
    const params = fc.option(
      fc.record({ name: fc.string({ maxLength: 20 }), arguments: fc.dictionary(fc.string({ maxLength: 8 }), json, { maxKeys: 4 }), uri: fc.string({ maxLength: 20 }), protocolVersion: fc.string({ maxLength: 12 }) }, { requiredKeys: [] }),
      { nil: undefined },
    );
    const message = fc.record({ jsonrpc: fc.constant('2.0'), id: fc.oneof(fc.integer(), fc.string({ maxLength: 20 })), method, params }, { requiredKeys: ['jsonrpc', 'id', 'method'] });
    const header = fc.option(fc.constantFrom('2025-06-18', '2025-11-25', '2026-07-28', 'x'), { nil: undefined });
    fc.assert(
      fc.property(message, header, (msg, version) => {
        const headers = version === undefined ? {} : { 'mcp-protocol-version': version };
        if (!bareRequest(msg, headers)) return version !== undefined;
        return classifyInboundRequest({ httpMethod: 'POST', body: msg }).kind === 'legacy';
      }),
      { numRuns: 1000 },
    );
    assert.equal(bareRequest({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', _meta: {} } }, {}), false, 'a _meta goes to the classifier');
  });
});
