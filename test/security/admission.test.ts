// The admission path's limits, at both doors: every REST path and every MCP method at the key's
// burst, batches at the burst, the daily quota under concurrency (exactly what was admitted is
// counted), an unknown-key flood against the per-address limit (behind a trusted proxy and
// without one), bodies without a key refused before they are read, and the connection cap.
// The test clock stands still, so a burst window never turns over inside a test: the counts
// below are exact. Also run on PostgreSQL + Redis (admission.pg.test.ts).

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { generateKey } from '../../src/access/keys.js';
import { seoulDay } from '../../src/kernel/clock.js';
import { RefusalDelay } from '../../src/http/gate.js';
import { MCP_ERRORS } from '../../src/http/mcp-errors.js';
import { TOOLS } from '../../src/tools/registry.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { formSignIn, pkcePair, register, startOAuthServer, tokenRequest } from '../oauth/helpers.js';
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

  it('every MCP method takes the burst: BURST answered, the next 429 -32029; only tools/call and a read of a tool\'s template are counted', async () => {
    const methods: [string, Record<string, unknown> | undefined][] = [
      ['initialize', {}],
      ['ping', undefined],
      ['tools/list', undefined],
      ['resources/list', undefined],
      ['resources/templates/list', undefined],
      ['resources/read', { uri: 'stock-data://formula/v3' }],
      ['prompts/list', undefined],
      ['prompts/get', { name: 'korea_export_brief' }],
      ['completion/complete', { ref: { type: 'ref/resource', uri: 'stock://{market}/{code}/snapshot' }, argument: { name: 'code', value: 'a' } }],
      ['resources/read', { uri: 'sectors://KR' }],
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
    // A read of a template that answers with a tool's answer is that tool's call: counted, each once.
    const key = await t.newKey('free');
    const uri = `stock://${/^\d{6}$/.test(code) ? 'KR' : 'US'}/${code}/snapshot`;
    for (let i = 0; i < BURST; i++) {
      const res = await rpc({ jsonrpc: '2.0', id: i, method: 'resources/read', params: { uri } }, key);
      const body = JSON.parse(res.text) as { result?: { contents: { uri: string }[] } };
      assert.deepEqual([res.status, body.result?.contents[0]?.uri], [200, uri], res.text.slice(0, 200));
    }
    assertRateLimited(await rpc({ jsonrpc: '2.0', id: 99, method: 'resources/read', params: { uri } }, key), uri);
    assert.equal(await callsOf(key), BURST, uri);
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

  it('holds at most so many answers at once, and at most a share of them per address; past either a refusal is answered at once and its connection closed', () => {
    // Four places in all, two per address: a, a held; the third of a at once (its share);
    // b, b held (four in all); c at once (all four taken), though c holds none.
    const delay = new RefusalDelay(60_000, 4, 2);
    const answered: string[] = [];
    const from = ['a', 'a', 'a', 'b', 'b', 'c'];
    const headers: Record<string, string>[] = from.map(() => ({}));
    from.forEach((address, i) => delay.hold({ header: (name: string, value: string) => (headers[i]![name] = value) }, address, () => answered.push(`${address}${i}`)));
    assert.deepEqual(answered, ['a2', 'c5'], 'the third of a (its share) and c (all places taken) at once');
    assert.deepEqual(headers, [{}, {}, { connection: 'close' }, {}, {}, { connection: 'close' }]);
    const none = new RefusalDelay(0);
    none.hold({ header: () => undefined }, 'a', () => answered.push('none'));
    assert.deepEqual(answered, ['a2', 'c5', 'none'], 'no delay: at once');
  });
});

describe('OAuth access tokens take the refusal path of API keys', () => {
  const DELAY = 300; // AUTH_FAILURE_DELAY_MS of the server below
  let t: TestServer;
  let client: RawClient;
  let token: string;

  before(async () => {
    t = await startOAuthServer({ AUTH_FAILURES_PER_MINUTE: String(FAILURES), AUTH_FAILURE_DELAY_MS: String(DELAY), TRUST_PROXY: 'loopback' });
    client = new RawClient(t.url, 64);
    // A real token, through the sign-in form and the code grant (from 127.0.0.1, not a flood address).
    const redirectUri = 'http://127.0.0.1:9/callback';
    const clientId = await register(t.url, redirectUri);
    const { verifier, challenge } = pkcePair();
    const resource = `${t.url}/api/mcp`;
    const { location } = await formSignIn(t.url, { response_type: 'code', client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: 'S256', state: 's', resource }, await t.newKey('paid'));
    const grant = await tokenRequest(t.url, { grant_type: 'authorization_code', code: location.searchParams.get('code') ?? '', code_verifier: verifier, client_id: clientId, redirect_uri: redirectUri, resource });
    token = String(grant.body.access_token);
    assert.match(token, /^mcp_at_/);
  });
  after(async () => {
    client.close();
    await t.close();
  });

  const madeUpToken = (): string => `mcp_at_${randomBytes(32).toString('base64url')}`;
  const ping = (bearer: string | null, from: string) =>
    client.request('POST', '/api/mcp', { 'content-type': 'application/json', ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }), 'x-forwarded-for': from }, '{"jsonrpc":"2.0","id":1,"method":"ping"}');
  const timed = async (work: Promise<RawResponse>): Promise<{ res: RawResponse; ms: number }> => {
    const started = performance.now();
    const res = await work;
    return { res, ms: performance.now() - started };
  };

  it('made-up tokens from one address: FAILURES x 401 answered late, then 429 Retry-After 60 (API keys and no key too); a token seen valid still passes', async () => {
    const from = '198.51.100.20';
    assert.equal((await ping(token, from)).status, 200, 'the real token, checked before the flood');
    for (let i = 0; i < FAILURES; i++) {
      const { res, ms } = await timed(ping(madeUpToken(), from));
      assert.equal(res.status, 401, res.text.slice(0, 200));
      assert.equal((JSON.parse(res.text) as RpcBody).error?.code, MCP_ERRORS.unauthorized);
      assert.ok(ms >= DELAY - 5, `refusal ${i + 1} answered after ${ms.toFixed(0)} ms, not after the ${DELAY} ms delay`);
    }
    // The window opened at the first failure and the clock stands still: 60 s to wait.
    const flood = await Promise.all(Array.from({ length: 60 }, () => timed(ping(madeUpToken(), from))));
    for (const { res, ms } of flood) {
      assert.equal(res.status, 429, res.text.slice(0, 200));
      assert.equal(res.headers['retry-after'], '60');
      assert.ok(ms >= DELAY - 5, `a 429 answered after ${ms.toFixed(0)} ms`);
    }
    assert.deepEqual([(JSON.parse(flood[0]!.res.text) as RpcBody).error?.code, (JSON.parse(flood[0]!.res.text) as RpcBody).error?.data?.code], [MCP_ERRORS.quota, 'rate_limited']);
    assert.equal((await ping(generateKey().key, from)).status, 429, 'a made-up API key from there: the same count');
    assert.equal((await ping(null, from)).status, 429, 'no credential from there');
    assert.equal((await ping(token, from)).status, 200, 'the real token is not throttled');
    assert.equal((await ping(madeUpToken(), '198.51.100.21')).status, 401, 'another address has its own count');
    t.clock.now = new Date(t.clock.now.getTime() + 60_000);
    try {
      assert.equal((await ping(madeUpToken(), from)).status, 401, 'a new minute, a new count');
    } finally {
      t.clock.now = new Date(t.clock.now.getTime() - 60_000);
    }
  });

  it('a made-up token tried again is refused from memory, without a store lookup', async () => {
    const from = '198.51.100.30';
    const store = t.app.store.oauth;
    const lookUp = store.token.bind(store);
    let lookups = 0;
    store.token = (hash, kind) => {
      lookups += 1;
      return lookUp(hash, kind);
    };
    try {
      const same = madeUpToken();
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await ping(same, from)).status);
      assert.deepEqual(statuses, [401, 401, 401]);
      assert.equal(lookups, 1, 'the first try looked it up, the two others were answered from memory');
      assert.equal((await ping(madeUpToken(), from)).status, 401);
      assert.equal(lookups, 2, 'another token is looked up');
      assert.equal((await ping(token, from)).status, 200);
      assert.equal(lookups, 3, 'a real token is looked up on every request (revocation)');
    } finally {
      store.token = lookUp;
    }
  });
});

describe('per-address caps: connections at the socket, waiting refusals, slow headers', () => {
  const PER_ADDRESS = 6; // MAX_CONNECTIONS_PER_ADDRESS of the server below
  const HEADERS_MS = 1_500; // HEADERS_TIMEOUT_MS of the server below (the request timeout stays 15 s)
  const DELAY = 1_500; // AUTH_FAILURE_DELAY_MS
  const WAITING = 3; // MAX_WAITING_REFUSALS_PER_ADDRESS
  let t: TestServer;
  let port: number;

  before(async () => {
    t = await startTestServer({
      MAX_CONNECTIONS: String(2 * PER_ADDRESS),
      MAX_CONNECTIONS_PER_ADDRESS: String(PER_ADDRESS),
      HEADERS_TIMEOUT_MS: String(HEADERS_MS),
      REQUEST_TIMEOUT_MS: '15000',
      AUTH_FAILURE_DELAY_MS: String(DELAY),
      MAX_WAITING_REFUSALS_PER_ADDRESS: String(WAITING),
    });
    port = Number(new URL(t.url).port);
  });
  after(() => t.close());

  /** One request on a new connection from loopback address `from` (any 127.x.y.z is this host's). */
  const requestFrom = (from: string, path: string, headers: Record<string, string> = {}): Promise<RawResponse> =>
    new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path, headers, localAddress: from, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', reject);
      req.end();
    });

  it('one address dribbling headers on every connection it can open holds PER_ADDRESS of them; a paying call from another address is answered; the headers are cut off at HEADERS_TIMEOUT_MS', async () => {
    const key = await t.newKey('paid');
    const opened = performance.now();
    const sockets: { socket: net.Socket; closedAt: Promise<number> }[] = [];
    const timers: NodeJS.Timeout[] = [];
    try {
      // 2 x PER_ADDRESS sockets from 127.0.0.1, as many as MAX_CONNECTIONS: each sends a request
      // line and then one header line every 200 ms, never the blank line that ends the headers.
      for (let i = 0; i < 2 * PER_ADDRESS; i++) {
        const socket = net.connect({ port, host: '127.0.0.1', localAddress: '127.0.0.1' });
        socket.on('error', () => undefined);
        const closedAt = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now() - opened)));
        socket.write(`GET ${BASE}/rankings HTTP/1.1\r\nHost: x\r\n`);
        timers.push(setInterval(() => socket.writable && socket.write(`X-Slow-${i}: ${Date.now()}\r\n`), 200));
        sockets.push({ socket, closedAt });
        await new Promise((r) => setTimeout(r, 10));
      }
      await new Promise((r) => setTimeout(r, 300));
      const closedEarly = sockets.filter(({ socket }) => socket.destroyed || socket.readyState === 'closed').length;
      assert.equal(closedEarly, PER_ADDRESS, 'the connections past the address\'s share closed at once');
      const paying = await requestFrom('127.0.0.2', `${BASE}/rankings`, { authorization: `Bearer ${key}` });
      assert.equal(paying.status, 200, 'another address still gets a connection');
      await assert.rejects(requestFrom('127.0.0.1', `${BASE}/rankings`, { authorization: `Bearer ${key}` }), 'a new connection from the full address is closed');
      // The held ones: closed by the server once their headers are HEADERS_MS late (checked
      // every second), while they still send bytes and long before the 15 s request timeout.
      const heldCloses = (await Promise.all(sockets.slice(0, PER_ADDRESS).map((s) => s.closedAt))).sort((a, b) => a - b);
      assert.ok(heldCloses[0]! >= HEADERS_MS - 50 && heldCloses.at(-1)! < HEADERS_MS + 2_500, `held sockets closed at ${heldCloses.map((ms) => ms.toFixed(0)).join(', ')} ms`);
    } finally {
      for (const timer of timers) clearInterval(timer);
      for (const { socket } of sockets) socket.destroy();
    }
  });

  it('one address waits for at most WAITING refusals at once; its others are answered at once with the connection closed; another address still waits', async () => {
    const timedFrom = async (from: string): Promise<{ status: number; close: boolean; ms: number }> => {
      const started = performance.now();
      const res = await requestFrom(from, `${BASE}/rankings`, { authorization: `Bearer ${generateKey().key}` });
      return { status: res.status, close: res.headers.connection === 'close', ms: performance.now() - started };
    };
    const flood = Promise.all(Array.from({ length: WAITING + 2 }, () => timedFrom('127.0.0.3')));
    await new Promise((r) => setTimeout(r, 200));
    const other = await timedFrom('127.0.0.4');
    const answers = await flood;
    assert.ok(other.ms >= DELAY - 50 && other.status === 401, `the other address waited ${other.ms.toFixed(0)} ms`);
    const late = answers.filter((a) => a.ms >= DELAY - 50);
    const atOnce = answers.filter((a) => a.ms < DELAY / 2);
    assert.deepEqual([late.length, atOnce.length], [WAITING, 2], JSON.stringify(answers));
    assert.ok(answers.every((a) => a.status === 401));
    assert.ok(atOnce.every((a) => a.close), 'answered at once with Connection: close');
  });
});
