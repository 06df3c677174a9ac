// The admission path's limits, at both doors: every REST path and every MCP method at the key's
// burst, batches at the burst, the daily quota under concurrency (exactly what was admitted is
// counted), an unknown-key flood against the per-address limit (behind a trusted proxy and
// without one), bodies without a key refused before they are read, and the connection cap.
// The test clock stands still, so a burst window never turns over inside a test: the counts
// below are exact. Also run on PostgreSQL + Redis (admission.pg.test.ts).

import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { generateKey } from '../../src/access/keys.js';
import { seoulDay } from '../../src/access/clock.js';
import { RefusalDelay } from '../../src/http/gate.js';
import { MCP_ERRORS } from '../../src/http/mcp.js';
import { TOOLS } from '../../src/tools/registry.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { assertProblem, openApiValidators, RawClient, rawExchange, rawStatus, type OpenApiValidators, type RawResponse } from './helpers.js';

const BASE = '/api/public/v2';
const BURST = 3; // FREE_BURST_PER_SECOND of the server below
const PAID_QUOTA = 7; // PAID_DAILY_QUOTA of the server below
const FAILURES = 5; // AUTH_FAILURES_PER_MINUTE of the server below

type RpcBody = { id: unknown; result?: Record<string, unknown>; error?: { code: number; data?: { code?: string } } };

describe('admission limits', () => {
  let t: TestServer;
  let client: RawClient;
  let problems: OpenApiValidators;
  let code: string;
  const restPaths = new Map<string, string>();

  before(async () => {
    t = await startTestServer({
      FREE_BURST_PER_SECOND: String(BURST),
      FREE_DAILY_QUOTA: '1000',
      PAID_DAILY_QUOTA: String(PAID_QUOTA),
      AUTH_FAILURES_PER_MINUTE: String(FAILURES),
      TRUST_PROXY: 'loopback',
      MAX_BATCH: '10',
    });
    client = new RawClient(t.url, 32);
    problems = await openApiValidators(t);
    code = (await t.app.store.market.securities()).find((s) => s.market === 'KR')?.code ?? '';
    for (const tool of TOOLS) restPaths.set(tool.name, `${BASE}${tool.path.replace('{code}', code)}${tool.name === 'search_stocks' ? '?q=a' : ''}`);
  });
  after(async () => {
    client.close();
    await t.close();
  });

  /** The key's count for today, from where the service counts (memory on SQLite, Redis on PostgreSQL + Redis). */
  const callsOf = async (key: string): Promise<number> => {
    const listing = (await t.app.store.access.listKeys(seoulDay(t.clock.now))).find((k) => k.prefix === key.slice(0, 16));
    assert.ok(listing);
    return t.app.access.callsToday({ keyId: listing.id, prefix: listing.prefix, plan: listing.plan });
  };
  const rest = (path: string, key: string | null, from = '192.0.2.1') =>
    client.request('GET', path, { ...(key === null ? {} : { authorization: `Bearer ${key}` }), 'x-forwarded-for': from });
  const rpc = (body: unknown, key: string | null, from = '192.0.2.1') =>
    client.request('POST', '/api/mcp', { 'content-type': 'application/json', ...(key === null ? {} : { authorization: `Bearer ${key}` }), 'x-forwarded-for': from }, typeof body === 'string' ? body : JSON.stringify(body));
  const argsOf = (name: string): Record<string, unknown> => (name === 'search_stocks' ? { q: 'a' } : TOOLS.find((x) => x.name === name)?.path.includes('{code}') ? { code } : {});
  const assertRateLimited = (res: RawResponse, context: string) => {
    assert.equal(res.status, 429, `${context}: ${res.text.slice(0, 200)}`);
    assert.equal(res.headers['retry-after'], '1', context);
  };

  it('every REST path takes the burst: BURST answered, the next 429 rate_limited; tool calls and health counted, refusals not', async () => {
    for (const [name, path] of restPaths) {
      const key = await t.newKey('free');
      const statuses: number[] = [];
      for (let i = 0; i < BURST; i++) statuses.push((await rest(path, key)).status);
      const over = await rest(path, key);
      assert.deepEqual(statuses, [200, 200, 200], name);
      assertRateLimited(over, name);
      assert.equal(assertProblem(over, problems.problem, name), 'rate_limited');
      // Three admitted calls, each counted once (health too: counted, only never refused for quota).
      assert.equal(await callsOf(key), BURST, name);
    }
  });

  it('every MCP method takes the burst: BURST answered, the next 429 -32029; only tools/call is counted', async () => {
    const methods: [string, Record<string, unknown> | undefined][] = [
      ['initialize', {}],
      ['ping', undefined],
      ['tools/list', undefined],
      ['resources/list', undefined],
      ['resources/templates/list', undefined],
      ['resources/read', { uri: 'stock-data://formula/v3' }],
      ['prompts/list', undefined],
      ['prompts/get', { name: 'korea_export_brief' }],
      ['no/such/method', undefined],
      ...TOOLS.map((tool): [string, Record<string, unknown>] => ['tools/call', { name: tool.name, arguments: argsOf(tool.name) }]),
    ];
    for (const [method, params] of methods) {
      const label = method === 'tools/call' ? `tools/call ${String(params?.name)}` : method;
      const key = await t.newKey('free');
      const message = (id: number) => ({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
      for (let i = 0; i < BURST; i++) {
        const res = await rpc(message(i), key);
        assert.equal(res.status, 200, `${label}: ${res.text.slice(0, 200)}`);
        const body = JSON.parse(res.text) as RpcBody;
        assert.equal(body.id, i);
        assert.notEqual(body.error?.code, MCP_ERRORS.quota, label);
      }
      const over = await rpc(message(99), key);
      assertRateLimited(over, label);
      const body = JSON.parse(over.text) as RpcBody;
      assert.deepEqual([body.id, body.error?.code, body.error?.data?.code], [99, MCP_ERRORS.quota, 'rate_limited'], label);
      assert.equal(await callsOf(key), method === 'tools/call' ? BURST : 0, label);
    }
  });

  it('notifications and client responses take the burst too (they get no answer; the next request is refused)', async () => {
    for (const message of [{ jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', id: 5, result: {} }]) {
      const key = await t.newKey('free');
      for (let i = 0; i < BURST; i++) assert.equal((await rpc(message, key)).status, 202);
      assertRateLimited(await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' }, key), JSON.stringify(message));
    }
  });

  it('a batch is metered member by member: BURST answered, the rest -32029 in their places', async () => {
    const key = await t.newKey('free');
    const batch = [
      { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'get_rankings', arguments: { limit: 2 } } },
      { jsonrpc: '2.0', id: 'b', method: 'resources/read', params: { uri: 'stock-data://metrics' } },
      { jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'health' } },
      { jsonrpc: '2.0', id: 'd', method: 'resources/read', params: { uri: 'stock-data://metrics' } },
      { jsonrpc: '2.0', id: 'e', method: 'tools/call', params: { name: 'get_rankings', arguments: { limit: 2 } } },
      { jsonrpc: '2.0', id: 'f', method: 'ping' },
    ];
    const res = await rpc(batch, key);
    assert.equal(res.status, 200, 'a batch is answered as an array');
    const answers = JSON.parse(res.text) as RpcBody[];
    assert.deepEqual(answers.map((a) => a.id), ['a', 'b', 'c', 'd', 'e', 'f']);
    assert.deepEqual(answers.map((a) => a.error?.code ?? 'ok'), ['ok', 'ok', 'ok', MCP_ERRORS.quota, MCP_ERRORS.quota, MCP_ERRORS.quota]);
    // get_rankings and health counted; the resource read only took the burst.
    assert.equal(((answers[2]?.result?.structuredContent ?? {}) as { callsToday?: number }).callsToday, 2);
    assert.equal(await callsOf(key), 2);
  });

  it('counts exactly what it admits under concurrency: 40 parallel calls on both doors against a quota of 7', async () => {
    const key = await t.newKey('paid'); // paid: burst out of reach, PAID_QUOTA calls a day
    const calls = Array.from({ length: 40 }, (_, i) =>
      i % 2 === 0 ? rest(`${BASE}/rankings?limit=${1 + (i % 5)}`, key) : rpc({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'get_rankings', arguments: { limit: 1 + (i % 5) } } }, key),
    );
    const answers = await Promise.all(calls);
    const statuses = answers.map((a) => a.status);
    assert.equal(statuses.filter((s) => s === 200).length, PAID_QUOTA);
    assert.equal(statuses.filter((s) => s === 429).length, 40 - PAID_QUOTA);
    assert.ok(answers.filter((a) => a.status === 429).every((a) => /quota_exceeded/.test(a.text)));
    assert.equal(await callsOf(key), PAID_QUOTA, 'every admitted call counted once, no refused one');
  });

  it('a batch with an unknown or revoked key is refused whole, health alone included; a lone health call answers valid:false', async () => {
    const unknown = generateKey().key;
    const health = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'health' } };
    const from = '192.0.2.50';
    const batch = await rpc([health, { ...health, id: 2 }], unknown, from);
    assert.equal(batch.status, 401);
    assert.deepEqual([(JSON.parse(batch.text) as RpcBody).id, (JSON.parse(batch.text) as RpcBody).error?.code], [null, MCP_ERRORS.unauthorized]);
    const alone = await rpc(health, unknown, from);
    assert.equal(alone.status, 200);
    assert.equal((JSON.parse(alone.text) as { result: { structuredContent: { valid: boolean } } }).result.structuredContent.valid, false);
    assert.equal((await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' }, unknown, from)).status, 401);
  });

  it('refuses a request without a key before reading its body: malformed, oversized, announced or chunked', async () => {
    const from = '192.0.2.60';
    const malformed = await rpc('{"jsonrpc":"2.0",', null, from);
    assert.equal(malformed.status, 401, 'not -32700: the body is never parsed');
    assert.equal((JSON.parse(malformed.text) as RpcBody).error?.code, MCP_ERRORS.unauthorized);
    // 10 GB announced, one byte sent: answered at once, and the server closes the connection
    // (rawExchange returns when the server ends it, long before its 5 s wait).
    const started = performance.now();
    const announced = await rawExchange(t.url, `POST /api/mcp HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: ${from}\r\nContent-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n{`, 5_000);
    assert.equal(rawStatus(announced), 401);
    assert.match(announced, /\r\nconnection: close\r\n/i);
    assert.ok(performance.now() - started < 4_000, 'the server closed the connection');
    const chunk = 'x'.repeat(65_536);
    const chunked = await rawExchange(t.url, `POST /api/mcp HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: ${from}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n`, 5_000);
    assert.equal(rawStatus(chunked), 401);
  });

  it('an unknown-key flood from one address: FAILURES refusals, then 429 with Retry-After on both doors; a paying key from there still passes', async () => {
    const from = '198.51.100.9';
    const paying = await t.newKey('paid');
    assert.equal((await rest(`${BASE}/rankings`, paying, from)).status, 200, 'the paying key, checked before the flood');
    for (let i = 0; i < FAILURES; i++) assert.equal((await rest(`${BASE}/rankings`, generateKey().key, from)).status, 401);
    // The window opened at the first failure and the clock stands still: 60 s to wait.
    const flood = await Promise.all(
      Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? rest(`${BASE}/stocks/${code}/score`, generateKey().key, from) : rpc({ jsonrpc: '2.0', id: i, method: 'ping' }, generateKey().key, from))),
    );
    for (const res of flood) {
      assert.equal(res.status, 429, res.text.slice(0, 200));
      assert.equal(res.headers['retry-after'], '60');
    }
    assert.equal(assertProblem(flood[0] as RawResponse, problems.problem, 'flood'), 'rate_limited');
    assert.deepEqual([(JSON.parse((flood[1] as RawResponse).text) as RpcBody).error?.code, (JSON.parse((flood[1] as RawResponse).text) as RpcBody).error?.data?.code], [MCP_ERRORS.quota, 'rate_limited']);
    assert.equal((await rest(`${BASE}/rankings`, null, from)).status, 429, 'a missing key too');
    assert.equal((await rest(`${BASE}/health`, generateKey().key, from)).status, 429, 'health of an unknown key too');
    assert.equal((await rest(`${BASE}/rankings`, paying, from)).status, 200, 'the paying key is not throttled');
    assert.equal((await rest(`${BASE}/rankings`, generateKey().key, '198.51.100.10')).status, 401, 'another address (behind the trusted proxy) has its own count');
    assert.equal(await callsOf(paying), 2);
    t.clock.now = new Date(t.clock.now.getTime() + 60_000);
    try {
      assert.equal((await rest(`${BASE}/rankings`, generateKey().key, from)).status, 401, 'a new minute, a new count');
    } finally {
      t.clock.now = new Date(t.clock.now.getTime() - 60_000);
    }
  });
});

describe('admission without a trusted proxy', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ AUTH_FAILURES_PER_MINUTE: '2', MAX_CONNECTIONS: '4' });
  });
  after(() => t.close());

  it('ignores X-Forwarded-For: a flood cannot spread itself over made-up addresses', async () => {
    const client = new RawClient(t.url, 1);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await client.request('GET', `${BASE}/rankings`, { authorization: `Bearer ${generateKey().key}`, 'x-forwarded-for': `203.0.113.${i}` })).status);
      assert.deepEqual(statuses, [401, 401, 429, 429]);
    } finally {
      client.close();
    }
  });

  it('closes connections past MAX_CONNECTIONS at once, and takes new ones when one closes', async () => {
    const { port } = new URL(t.url);
    const open = (): Promise<net.Socket> =>
      new Promise((resolve, reject) => {
        const s = net.connect(Number(port), '127.0.0.1', () => resolve(s));
        s.on('error', reject);
      });
    const closed = (s: net.Socket): Promise<boolean> =>
      new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), 1_000);
        s.once('close', () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
    const held: net.Socket[] = [];
    try {
      // Four connections held open (with a request in flight each, so they stay counted).
      for (let i = 0; i < 4; i++) {
        const s = await open();
        s.on('error', () => undefined);
        s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
        held.push(s);
      }
      const fifth = await open();
      fifth.on('error', () => undefined);
      assert.equal(await closed(fifth), true, 'the fifth is closed by the server');
      const first = held.shift() as net.Socket;
      first.destroy();
      await new Promise((r) => setTimeout(r, 100));
      const res = await fetch(`${t.url}/healthz`);
      assert.equal(res.status, 200, 'a place is free again');
    } finally {
      for (const s of held) s.destroy();
    }
  });
});

describe('failed authentications answered late', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ AUTH_FAILURE_DELAY_MS: '400', AUTH_FAILURES_PER_MINUTE: '2' });
  });
  after(() => t.close());

  it('a refused key is answered after the delay: a valid call sent after it is answered first, on both doors', async () => {
    const key = await t.newKey('paid');
    const client = new RawClient(t.url, 8);
    try {
      // Checked once before the failures: a key seen to match passes even from a throttled address.
      assert.equal((await client.request('GET', `${BASE}/rankings`, { authorization: `Bearer ${key}` })).status, 200);
      const order: string[] = [];
      const noted = (label: string) => (res: RawResponse) => void order.push(`${label} ${res.status}`);
      const refusedRest = client.request('GET', `${BASE}/rankings`, { authorization: `Bearer ${generateKey().key}` }).then(noted('unknown REST'));
      const refusedMcp = client.request('POST', '/api/mcp', { 'content-type': 'application/json' }, '{"jsonrpc":"2.0","id":1,"method":"ping"}').then(noted('keyless MCP'));
      const throttled = client.request('GET', `${BASE}/rankings`).then(noted('throttled REST'));
      await new Promise((r) => setTimeout(r, 50));
      const valid = client.request('GET', `${BASE}/rankings`, { authorization: `Bearer ${key}` }).then(noted('valid REST'));
      await Promise.all([refusedRest, refusedMcp, throttled, valid]);
      assert.equal(order[0], 'valid REST 200');
      // The three refusals travel at once on separate connections, so which one the server counts
      // third (and throttles) is the order they arrive in: whichever it is gets the 429.
      const refusals = order.slice(1).map((entry) => entry.split(' '));
      assert.deepEqual(refusals.map((words) => words.slice(0, -1).join(' ')).sort(), ['keyless MCP', 'throttled REST', 'unknown REST']);
      assert.deepEqual(refusals.map((words) => words.at(-1)).sort(), ['401', '401', '429']);
    } finally {
      client.close();
    }
  });

  it('holds at most so many answers at once; past that a refusal is answered at once and its connection closed', () => {
    const delay = new RefusalDelay(60_000, 2);
    const answered: number[] = [];
    const headers: Record<string, string>[] = [{}, {}, {}];
    for (let i = 0; i < 3; i++) delay.hold({ header: (name: string, value: string) => (headers[i]![name] = value) }, () => answered.push(i));
    assert.deepEqual(answered, [2], 'the third, past the two held, at once');
    assert.deepEqual(headers, [{}, {}, { connection: 'close' }]);
    const none = new RefusalDelay(0);
    none.hold({ header: () => undefined }, () => answered.push(9));
    assert.deepEqual(answered, [2, 9], 'no delay: at once');
  });
});
