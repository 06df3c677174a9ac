// Resource limits: no single request can make the server read, compute or allocate without
// bound. Body size (413), batch size (-32600), every limit/top parameter at and just past its
// maximum, the widest date and month spans, huge query strings and headers, thousands of
// parameters, deeply nested JSON; each answered quickly with a bounded response, and the
// server still answering afterwards.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.js';
import { assertProblem, openApiValidators, RawClient, rawExchange, rawStatus, type OpenApiValidators, type RawResponse } from './helpers.js';

const BODY_LIMIT = 32_768;
const MAX_BATCH = 10;
const BASE = '/api/public/v2';

describe('resource limits', () => {
  let t: TestServer;
  let key: string;
  let client: RawClient;
  let problems: OpenApiValidators;
  let kr: string;
  let us: string;
  const timings: [string, number, number][] = [];

  const timed = async (label: string, send: () => Promise<RawResponse>): Promise<RawResponse> => {
    const t0 = performance.now();
    const res = await send();
    const ms = performance.now() - t0;
    timings.push([label, Math.round(ms), res.text.length]);
    assert.ok(ms < 3_000, `${label} took ${Math.round(ms)} ms`);
    assert.ok(res.status < 500, `${label}: ${res.status}`);
    return res;
  };
  const restGet = (path: string) => timed(`GET ${path.slice(0, 90)}`, () => client.request('GET', `${BASE}${path}`, { authorization: `Bearer ${key}` }));
  const rpc = (label: string, body: string, headers: Record<string, string> = {}) =>
    timed(label, () => client.request('POST', '/api/mcp', { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers }, body));
  const call = (name: string, args: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });

  before(async () => {
    t = await startTestServer({ BODY_LIMIT_BYTES: String(BODY_LIMIT), MAX_BATCH: String(MAX_BATCH) });
    key = await t.newKey('paid');
    client = new RawClient(t.url, 4);
    problems = await openApiValidators(t);
    const securities = await t.app.store.market.securities();
    kr = securities.find((s) => s.market === 'KR')?.code ?? '';
    us = securities.find((s) => s.market === 'US')?.code ?? '';
  });
  after(async () => {
    console.log(`# limits: ${timings.map(([l, ms, bytes]) => `${l.slice(0, 60)} ${ms}ms ${bytes}B`).join(' | ')}`);
    client.close();
    await t.close();
  });

  it('refuses a body over BODY_LIMIT_BYTES with 413, announced, chunked or streamed', async () => {
    const big = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(BODY_LIMIT)}"}}`;
    const res = await rpc('MCP body over the limit', big);
    assert.equal(res.status, 413);
    assert.equal(assertProblem(res, problems.problem, 'mcp 413'), 'payload_too_large');
    // Chunked, with no Content-Length: refused once the limit is crossed.
    const chunk = 'x'.repeat(8_192);
    const chunks = Array.from({ length: 8 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`).join('');
    const raw = await rawExchange(t.url, `POST /api/mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunks}0\r\n\r\n`);
    assert.equal(rawStatus(raw), 413);
    // An announced huge length is refused before the body is read.
    const announced = await rawExchange(t.url, `POST /api/mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n{`, 1_000);
    assert.equal(rawStatus(announced), 413);
    // Just under the limit is fine.
    const under = await rpc('MCP body just under the limit', `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(BODY_LIMIT - 100)}"}}`);
    assert.equal(under.status, 200);
  });

  it('refuses an oversized body without a key with 401 before reading it: announced, chunked or streamed', async () => {
    const noKey = (body: string) => timed('MCP oversized body without a key', () => client.request('POST', '/api/mcp', { 'content-type': 'application/json' }, body));
    const big = await noKey(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(BODY_LIMIT * 4)}"}}`);
    assert.equal(big.status, 401);
    assert.equal((JSON.parse(big.text) as { error: { code: number } }).error.code, -32001);
    const chunk = 'x'.repeat(8_192);
    const chunks = Array.from({ length: 8 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`).join('');
    const chunked = await rawExchange(t.url, `POST /api/mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunks}`);
    assert.equal(rawStatus(chunked), 401);
    assert.match(chunked, /\r\nconnection: close\r\n/i, 'the unread body is not waited for: the connection closes');
    const announced = await rawExchange(t.url, `POST /api/mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n{`, 1_000);
    assert.equal(rawStatus(announced), 401);
  });

  it('refuses a batch over MAX_BATCH with -32600 and answers one of exactly MAX_BATCH', async () => {
    const batch = (n: number) => JSON.stringify(Array.from({ length: n }, () => JSON.parse(call('get_stock_score', { code: kr })) as object).map((m, i) => ({ ...m, id: i })));
    const over = await rpc(`batch of ${MAX_BATCH + 1}`, batch(MAX_BATCH + 1));
    assert.equal(over.status, 400);
    assert.equal((JSON.parse(over.text) as { error: { code: number } }).error.code, -32600);
    const at = await rpc(`batch of ${MAX_BATCH}`, batch(MAX_BATCH));
    assert.equal(at.status, 200);
    assert.equal((JSON.parse(at.text) as unknown[]).length, MAX_BATCH);
    // Not-quite-JSON batches of many tiny members are refused by count before any work.
    const many = await rpc('batch of 5000 nulls', `[${Array.from({ length: 5_000 }, () => 'null').join(',')}]`);
    assert.equal((JSON.parse(many.text) as { error: { code: number } }).error.code, -32600);
  });

  it('bounds every limit and top parameter at its maximum, on both doors', async () => {
    const cases: [string, number][] = [
      [`/stocks/${us}/prices?limit=2600`, 200],
      [`/stocks/${us}/prices?limit=2601`, 400],
      [`/stocks/${kr}/prices?limit=0`, 400],
      [`/stocks/${kr}/prices?limit=-1`, 400],
      [`/stocks/${kr}/prices?limit=99999999999999999999`, 400],
      ['/rankings?market=KR,US&bands=mega,xlarge,large,mid,small&limit=200', 200],
      ['/rankings?limit=201', 400],
      ['/exports/sectors?top=50', 200],
      ['/exports/sectors?top=51', 400],
    ];
    for (const [path, status] of cases) {
      const res = await restGet(path);
      assert.equal(res.status, status, path);
      if (status === 400) assert.equal(assertProblem(res, problems.problem, path), 'invalid_parameter');
    }
    const prices = JSON.parse((await restGet(`/stocks/${us}/prices?limit=2600`)).text) as { count: number; bars: unknown[] };
    assert.ok(prices.bars.length <= 2600 && prices.count === prices.bars.length);
    const rankings = JSON.parse((await restGet('/rankings?market=KR,US&bands=mega,xlarge,large,mid,small&limit=200')).text) as { rows: unknown[] };
    assert.ok(rankings.rows.length <= 200);
    for (const [name, args, ok] of [
      ['get_rankings', { limit: 100 }, true],
      ['get_rankings', { limit: 101 }, false],
      ['get_price_history', { code: kr, limit: 2600 }, true],
      ['get_price_history', { code: kr, limit: 2601 }, false],
      ['get_price_history', { code: kr, limit: 1e300 }, false],
      ['get_sector_exports', { top: 51 }, false],
    ] as const) {
      const res = await rpc(`MCP ${name} ${JSON.stringify(args)}`, call(name, args));
      const result = (JSON.parse(res.text) as { result: { isError?: boolean } }).result;
      assert.equal(result.isError === true, !ok, `${name} ${JSON.stringify(args)}`);
    }
  });

  it('keeps the widest date and month spans cheap and their answers bounded', async () => {
    for (const path of [
      `/stocks/${us}/prices?from=0001-01-01&to=9999-12-31&limit=2600`,
      `/stocks/${kr}/prices?interval=week&from=0001-01-01&to=9999-12-31&limit=2600`,
      `/stocks/${kr}/prices?interval=month&from=0001-01-01&to=9999-12-31&limit=2600`,
      `/stocks/${kr}/valuation-band?type=per&from=0001-01-01`,
      `/stocks/${us}/valuation-band?type=psr&from=1990-01-01`,
      '/exports/total?from=1990-01&to=9999-12',
      '/exports/sectors?from=1990-01&to=9999-12&top=50',
    ]) {
      const res = await restGet(path);
      assert.equal(res.status, 200, `${path}: ${res.text.slice(0, 200)}`);
      assert.ok(res.text.length < 4 * 1_048_576, `${path}: ${res.text.length} bytes`);
    }
    const total = JSON.parse((await restGet('/exports/total?from=1990-01&to=9999-12')).text) as { rows: unknown[] };
    assert.ok(total.rows.length <= 12 * 40, 'only months that have data');
  });

  it('refuses huge query strings, headers and parameter counts without trouble', async () => {
    // Past Node's 16 KB header limit: 431 from the HTTP parser, before any routing.
    const huge = await rawExchange(t.url, `GET ${BASE}/rankings?x=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`);
    assert.equal(rawStatus(huge), 431);
    // Under it: the parameters are read and refused.
    // 10 KB of repeated bands: matched in linear time, de-duplicated.
    const long = await restGet(`/rankings?bands=${'mega,'.repeat(2_000)}mega`);
    assert.equal(long.status, 200);
    assert.deepEqual((JSON.parse(long.text) as { bands: string[] }).bands, ['mega']);
    const almost = await restGet(`/rankings?bands=${'mega,'.repeat(2_000)}megaa`);
    assert.equal(almost.status, 400);
    const manyParams = await restGet(`/rankings?${Array.from({ length: 1_500 }, (_, i) => `p${i}=1`).join('&')}`);
    assert.equal(manyParams.status, 400);
    const repeated = await restGet(`/rankings?${Array.from({ length: 1_500 }, () => 'limit=1').join('&')}`);
    assert.equal(repeated.status, 400);
    const longCode = await restGet(`/stocks/${'A'.repeat(5_000)}/score`);
    assert.equal(assertProblem(longCode, problems.problem, 'long code'), 'invalid_parameter');
  });

  it('survives deeply nested JSON, as the body and inside arguments', async () => {
    const depth = Math.floor((BODY_LIMIT - 10) / 2);
    // A batch of one member (itself nested arrays), refused as not a request object.
    const arrays = await rpc(`${depth} nested arrays`, '['.repeat(depth) + ']'.repeat(depth));
    assert.equal((JSON.parse(arrays.text) as { error: { code: number } }[])[0]?.error.code, -32600);
    const open = await rpc(`${BODY_LIMIT - 10} unclosed brackets`, '['.repeat(BODY_LIMIT - 10));
    assert.equal((JSON.parse(open.text) as { error: { code: number } }).error.code, -32700);
    const n = 5_000;
    const nested = await rpc(`${n} nested objects in arguments`, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_price_history","arguments":{"code":"${kr}","limit":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}}}`);
    assert.equal((JSON.parse(nested.text) as { result: { isError: boolean } }).result.isError, true);
    const inId = await rpc(`${n} nested objects as the id`, `{"jsonrpc":"2.0","id":${'{"a":'.repeat(n)}1${'}'.repeat(n)},"method":"ping"}`);
    assert.equal((JSON.parse(inId.text) as { error: { code: number } }).error.code, -32600);
  });

  it('is still serving afterwards', async () => {
    assert.equal((await restGet('/health')).status, 200);
    const res = await rpc('ping', '{"jsonrpc":"2.0","id":1,"method":"ping"}');
    assert.equal(res.status, 200);
  });
});
