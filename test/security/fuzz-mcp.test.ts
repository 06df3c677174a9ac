// Property-based fuzzing of the JSON-RPC / MCP door: every tool with valid and adversarial
// arguments (wrong types, huge and unicode strings, floats, nested values, unknown names),
// unknown tools and methods, notifications, client responses, malformed messages and ids,
// batches mixing all of these, empty and oversized batches, malformed, deeply nested and
// oversized bodies. Every response must be below 500; every JSON-RPC error must carry a
// documented code (-32700/-32600/-32601/-32602/-32603 or MCP_ERRORS); a tool result is either
// isError or has structuredContent valid against the tools/list outputSchema with the same
// JSON in its text block; and the server must still answer afterwards. Seeded.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { BAND_KEYS } from '../../src/domain/results.js';
import { TOOLS } from '../../src/tools/registry.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { assertNoLeak, assertProblem, JSON_RPC_CODES, mcpOutputValidators, openApiValidators, RawClient, Tally, universeCodes, type OpenApiValidators } from './helpers.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261121);
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const PER_RUN = 8;
const MAX_BATCH = 20;
const BODY_LIMIT = 32_768;

type Json = Record<string, unknown>;

/** One generated HTTP body and what its JSON-RPC calls were (by the unique ids we gave them). */
interface Body {
  text: string;
  contentType: string | null;
  /** Tool calls by id, for matching results to their output schema. */
  calls: Map<string, string>;
  /** Sent over the body limit on purpose. */
  tooLarge?: boolean;
}

let uid = 0;
const nextId = (): string => `c${(++uid).toString(36)}`;

const huge = fc.string({ minLength: 1_000, maxLength: 5_000 });
const junkValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  huge,
  fc.integer(),
  fc.double(),
  fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }).map((b) => Number(b)),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  fc.integer({ min: 10, max: 3_000 }).map((n) => JSON.parse('['.repeat(n) + ']'.repeat(n)) as unknown),
  fc.constantFrom('', '999999', '2024-02-30', '1989-12', '9999-12-31', 'KR,US,KR', 'mega,,large', '__proto__', '\u0000', '😀'),
);

function validArgs(codes: { kr: string[]; us: string[] }): Record<string, fc.Arbitrary<Json>> {
  const code = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...codes.kr) },
    { weight: 4, arbitrary: fc.constantFrom(...codes.us) },
    { weight: 1, arbitrary: fc.constantFrom(...codes.us).map((c) => c.toLowerCase().replace('.', '-')) },
    { weight: 1, arbitrary: fc.stringMatching(/^\d{6}$/) },
  );
  const month = fc.tuple(fc.integer({ min: 1990, max: 2026 }), fc.integer({ min: 1, max: 12 })).map(([y, m]) => `${y}-${String(Math.min(m, y === 2026 ? 10 : 12)).padStart(2, '0')}`);
  const date = (min: string, max: string) => fc.date({ min: new Date(min), max: new Date(max), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
  const opt = { requiredKeys: [] as never[] };
  return {
    get_stock_score: fc.record({ code }),
    get_rankings: fc.record({ market: fc.constantFrom('KR', 'US', 'KR,US'), bands: fc.subarray([...BAND_KEYS], { minLength: 1 }).map((b) => b.join(',')), limit: fc.integer({ min: 1, max: 100 }), offset: fc.nat({ max: 1000 }) }, opt),
    get_trade_total: fc.record({ from: month, to: month }, opt),
    get_sector_exports: fc.record({ from: month, to: month, top: fc.integer({ min: 1, max: 50 }) }, opt),
    get_stock_snapshot: fc.record({ code }),
    get_valuation_band: fc.record({ code, type: fc.constantFrom('per', 'pbr', 'psr'), from: date('2015-01-01', '2026-11-20') }, { requiredKeys: ['code'] }),
    get_sector_percentile: fc.record({ code, cohort: fc.constantFrom('sector', 'market') }, { requiredKeys: ['code'] }),
    get_price_history: fc.record(
      { code, interval: fc.constantFrom('day', 'week', 'month'), from: date('2015-01-01', '2024-12-31'), to: date('2025-01-01', '2026-12-31'), limit: fc.integer({ min: 1, max: 2600 }), adjusted: fc.boolean() },
      { requiredKeys: ['code'] },
    ),
    health: fc.constant({}),
    search_stocks: fc.record({ q: fc.oneof(code, fc.string({ minLength: 1, maxLength: 50 }), fc.constantFrom('ㅎㅅ', '한ㅅ', 'ＨＡＮ', 'brk-b')), market: fc.constantFrom('KR', 'US'), limit: fc.integer({ min: 1, max: 50 }) }, { requiredKeys: ['q'] }),
  };
}

const PARAM_NAMES = ['code', 'market', 'bands', 'limit', 'from', 'to', 'top', 'type', 'cohort', 'interval', 'adjusted'];

/** Starts from valid arguments, then breaks some: wrong values, unknown names, removals. */
function adversarialArgs(valid: fc.Arbitrary<Json>): fc.Arbitrary<unknown> {
  const mutated = fc
    .tuple(valid, fc.dictionary(fc.oneof(fc.constantFrom(...PARAM_NAMES), fc.string({ maxLength: 10 })), junkValue, { minKeys: 1, maxKeys: 3 }), fc.subarray(PARAM_NAMES))
    .map(([args, overrides, drop]) => {
      const out: Json = { ...args, ...overrides };
      for (const d of drop.slice(0, 1)) delete out[d];
      return out;
    });
  return fc.oneof({ weight: 8, arbitrary: mutated }, { weight: 1, arbitrary: junkValue }, { weight: 1, arbitrary: fc.constant(undefined) });
}

function messageArb(codes: { kr: string[]; us: string[] }): fc.Arbitrary<{ message: unknown; call?: [string, string] }> {
  const args = validArgs(codes);
  const toolName = fc.constantFrom(...TOOLS.map((t) => t.name));
  const validCall = toolName.chain((name) => (args[name] ?? fc.constant({})).map((a) => ({ name, a })));
  const badCall = toolName.chain((name) => adversarialArgs(args[name] ?? fc.constant({})).map((a) => ({ name, a })));
  const call = (c: { name: string; a: unknown }) => {
    const id = nextId();
    return { message: { jsonrpc: '2.0', id, method: 'tools/call', params: { name: c.name, ...(c.a === undefined ? {} : { arguments: c.a }) } }, call: [id, c.name] as [string, string] };
  };
  const anyId = fc.oneof(fc.integer(), fc.string({ maxLength: 20 }), fc.constant(null), fc.double(), fc.boolean(), fc.string({ minLength: 201, maxLength: 400 }), fc.dictionary(fc.string(), fc.integer(), { maxKeys: 2 }));
  const other = fc.oneof(
    fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer(), method: fc.constantFrom('initialize', 'ping', 'tools/list'), params: fc.oneof(fc.constant({}), fc.record({ protocolVersion: fc.oneof(fc.constantFrom('2025-06-18', '2024-11-05', '1999-01-01'), fc.string()), capabilities: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] })) }),
    fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer(), method: fc.oneof(fc.constantFrom('tools/cal', 'resources/list', 'prompts/list', 'completion/complete', 'logging/setLevel', '', 'rpc.discover', '__proto__', 'constructor'), fc.string({ maxLength: 300 })) }),
    fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer(), method: fc.constant('tools/call'), params: fc.record({ name: fc.oneof(fc.string({ maxLength: 100 }), junkValue), arguments: junkValue }, { requiredKeys: [] }) }),
    fc.record({ jsonrpc: fc.constant('2.0'), method: fc.constantFrom('notifications/initialized', 'notifications/cancelled', 'tools/call', 'ping'), params: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: ['jsonrpc', 'method'] }),
    fc.record({ jsonrpc: fc.constant('2.0'), id: anyId, result: fc.jsonValue({ maxDepth: 2 }) }),
    fc.record({ jsonrpc: fc.constant('2.0'), id: anyId, error: fc.record({ code: fc.integer(), message: fc.string() }) }),
    fc.record({ jsonrpc: fc.oneof(fc.constantFrom('1.0', '2', 2, null), fc.string()), id: anyId, method: fc.oneof(fc.string(), fc.integer(), fc.constant(null)), params: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] }),
    fc.record({ jsonrpc: fc.constant('2.0'), id: anyId, method: fc.constantFrom('tools/call', 'ping', 'tools/list'), params: fc.oneof(fc.constant(null), fc.integer(), fc.string(), fc.array(fc.integer())) }),
    fc.jsonValue({ maxDepth: 3 }),
  );
  return fc.oneof(
    { weight: 5, arbitrary: validCall.map(call) },
    { weight: 4, arbitrary: badCall.map(call) },
    { weight: 4, arbitrary: other.map((message) => ({ message })) },
  );
}

function bodyArb(codes: { kr: string[]; us: string[] }): fc.Arbitrary<Body> {
  const message = messageArb(codes);
  const contentType = fc.constantFrom<string | null>('application/json', 'application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', null, 'multipart/form-data; boundary=x');
  const fromMessages = (ms: { message: unknown; call?: [string, string] }[], asBatch: boolean, ct: string | null): Body => ({
    text: JSON.stringify(asBatch ? ms.map((m) => m.message) : ms[0]?.message) ?? 'null',
    contentType: ct,
    calls: new Map(ms.flatMap((m) => (m.call ? [m.call] : []))),
  });
  const plain = (text: string, ct: string | null = 'application/json'): Body => ({ text, contentType: ct, calls: new Map() });
  return fc.oneof(
    { weight: 10, arbitrary: fc.tuple(message, contentType).map(([m, ct]) => fromMessages([m], false, ct)) },
    { weight: 6, arbitrary: fc.tuple(fc.array(message, { minLength: 1, maxLength: 12 }), contentType).map(([ms, ct]) => fromMessages(ms, true, ct)) },
    { weight: 1, arbitrary: fc.constant(plain('[]')) },
    { weight: 1, arbitrary: fc.integer({ min: MAX_BATCH + 1, max: MAX_BATCH + 30 }).map((n) => plain(JSON.stringify(Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' }))))) },
    // Malformed JSON: truncated messages, bare text, JSON extensions no parser accepts.
    { weight: 2, arbitrary: fc.tuple(message, fc.nat()).map(([m, cut]) => { const s = JSON.stringify(m.message) ?? ''; return plain(s.slice(0, s.length > 1 ? cut % (s.length - 1) : 0)); }) },
    { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 200 }), fc.constantFrom('', ' ', 'NaN', "{'jsonrpc':'2.0'}", '{"jsonrpc":"2.0",}', '\uFEFF{"jsonrpc":"2.0","id":1,"method":"ping"}', '{"a":1}{"b":2}', 'null', 'true', '1e999')).map((s) => plain(s)) },
    // Deep nesting, as the whole body and inside arguments.
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 16_000 }).map((n) => plain('['.repeat(n) + ']'.repeat(n))) },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 6_000 }).map((n) => plain(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_rankings","arguments":{"limit":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}}}`)) },
    // Over the body limit.
    { weight: 1, arbitrary: fc.integer({ min: BODY_LIMIT + 1, max: BODY_LIMIT * 2 }).map((n) => ({ ...plain(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(n)}"}}`), tooLarge: true })) },
  );
}

describe('MCP fuzzing', () => {
  let t: TestServer;
  let key: string;
  let client: RawClient;
  let outputs: Map<string, ValidateFunction>;
  let rest: OpenApiValidators;
  let codes: { kr: string[]; us: string[] };

  before(async () => {
    t = await startTestServer({ MAX_BATCH: String(MAX_BATCH), BODY_LIMIT_BYTES: String(BODY_LIMIT) });
    key = await t.newKey('paid');
    client = new RawClient(t.url, PER_RUN);
    outputs = await mcpOutputValidators(t, key);
    rest = await openApiValidators(t);
    codes = await universeCodes(t);
  });
  after(async () => {
    client.close();
    await t.close();
  });

  it(`answers ${RUNS * PER_RUN} generated JSON-RPC bodies without a 5xx and with documented codes`, async () => {
    const tally = new Tally();
    let rpcMessages = 0;
    let toolResults = 0;
    const started = performance.now();

    const checkAnswer = (a: unknown, body: Body, context: string, seen: Set<string>): void => {
      assert.ok(a !== null && typeof a === 'object' && !Array.isArray(a), `${context}: answer is not an object`);
      const r = a as { jsonrpc?: unknown; id?: unknown; result?: Json; error?: { code?: unknown; message?: unknown } };
      assert.equal(r.jsonrpc, '2.0', context);
      assert.ok('id' in r, `${context}: answer without id`);
      assert.ok((r.result === undefined) !== (r.error === undefined), `${context}: exactly one of result and error`);
      if (r.error !== undefined) {
        assert.ok(typeof r.error.code === 'number' && JSON_RPC_CODES.has(r.error.code), `${context}: undocumented JSON-RPC code ${String(r.error.code)}`);
        assert.equal(typeof r.error.message, 'string', context);
        tally.add(`rpc ${r.error.code}`);
        return;
      }
      const tool = typeof r.id === 'string' ? body.calls.get(r.id) : undefined;
      if (typeof r.id === 'string' && tool !== undefined) {
        assert.ok(!seen.has(r.id), `${context}: id ${r.id} answered twice`);
        seen.add(r.id);
      }
      const result = r.result as { isError?: unknown; content?: { type: string; text: string }[]; structuredContent?: unknown };
      if (result.isError === true) {
        assert.equal(result.content?.[0]?.type, 'text', `${context}: isError without a text block`);
        assert.match(result.content[0]?.text ?? '', /^(invalid_parameter|not_found): /, `${context}: isError text ${result.content[0]?.text.slice(0, 100)}`);
        tally.add(`isError ${/^\w+/.exec(result.content[0]?.text ?? '')?.[0] ?? ''}`);
        return;
      }
      if (result.structuredContent !== undefined) {
        assert.ok(tool !== undefined, `${context}: structuredContent for a message that was not a known tool call`);
        const validate = outputs.get(tool);
        assert.ok(validate, `no outputSchema for ${tool}`);
        assert.ok(validate(result.structuredContent), `${context}: ${tool} result does not match its outputSchema: ${JSON.stringify(validate.errors)}`);
        assert.deepEqual(JSON.parse(result.content?.[0]?.text ?? 'null'), result.structuredContent, `${context}: text block differs from structuredContent`);
        toolResults++;
        tally.add('tool ok');
        return;
      }
      tally.add('result');
    };

    const check = async (body: Body): Promise<void> => {
      const headers: Record<string, string> = { authorization: `Bearer ${key}` };
      if (body.contentType !== null) headers['content-type'] = body.contentType;
      const res = await client.request('POST', '/api/mcp', headers, body.text);
      let sent: unknown = undefined;
      try {
        sent = JSON.parse(body.text);
      } catch {
        // malformed on purpose
      }
      const messages = Array.isArray(sent) ? sent.length : 1;
      rpcMessages += messages;
      const context = `POST ${body.text.slice(0, 300)}`;
      assert.ok(res.status < 500, `${context}: ${res.status} ${res.text.slice(0, 300)}`);
      assertNoLeak(res.text, [key], context);
      if (body.tooLarge === true || res.status === 413) {
        assert.equal(res.status, 413, context);
        tally.add(`413 ${assertProblem(res, rest.problem, context)}`);
        return;
      }
      if (res.status === 202) {
        assert.equal(res.text, '', `${context}: 202 with a body`);
        assert.equal(body.calls.size, 0, `${context}: tool calls with ids got 202`);
        tally.add('202');
        return;
      }
      assert.ok([200, 400].includes(res.status), `${context}: status ${res.status} ${res.text.slice(0, 200)}`);
      assert.match(String(res.headers['content-type']), /^application\/json/, context);
      const parsed: unknown = JSON.parse(res.text);
      const seen = new Set<string>();
      if (Array.isArray(parsed)) {
        assert.ok(parsed.length >= 1 && parsed.length <= messages, `${context}: ${parsed.length} answers to ${messages} messages`);
        for (const a of parsed) checkAnswer(a, body, context, seen);
      } else {
        checkAnswer(parsed, body, context, seen);
      }
      // Every tool call we sent with its unique id got exactly one answer.
      for (const id of body.calls.keys()) assert.ok(seen.has(id) || res.text.includes(`"id":"${id}"`), `${context}: call ${id} not answered`);
    };

    await fc.assert(
      fc.asyncProperty(fc.array(bodyArb(codes), { minLength: PER_RUN, maxLength: PER_RUN }), async (bodies) => {
        await Promise.all(bodies.map(check));
      }),
      { seed: SEED, numRuns: RUNS, includeErrorInReport: true, interruptAfterTimeLimit: 60_000 },
    );
    const ms = Math.round(performance.now() - started);
    const ping = await client.request('POST', '/api/mcp', { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, '{"jsonrpc":"2.0","id":1,"method":"ping"}');
    assert.equal(ping.status, 200);
    assert.equal((await client.request('GET', '/readyz')).status, 200);
    console.log(`# MCP fuzz: seed=${SEED} http=${client.sent} jsonrpc=${rpcMessages} in ${ms} ms; ${tally.toString()}`);
    assert.ok(client.sent >= RUNS * PER_RUN);
    assert.ok(toolResults > RUNS / 2, `only ${toolResults} successful tool results`);
  });

  it('refuses the same bodies without a key, with a malformed one or with an unknown one: 401 (413 past the body limit for a well-formed key), never a 5xx', async () => {
    const tally = new Tally();
    const unknown = `Bearer sk_live_${'U'.repeat(43)}`;
    const check = async ([body, auth]: [Body, string | null]): Promise<void> => {
      const headers: Record<string, string> = auth === null ? {} : { authorization: auth };
      if (body.contentType !== null) headers['content-type'] = body.contentType;
      const res = await client.request('POST', '/api/mcp', headers, body.text);
      const context = `POST (${auth === null ? 'no key' : auth.slice(0, 20)}) ${body.text.slice(0, 200)}`;
      assert.ok(res.status < 500, `${context}: ${res.status}`);
      assertNoLeak(res.text, [key], context);
      if (auth !== unknown) {
        // No key, or a malformed one: refused before the body is read, whatever it is.
        assert.equal(res.status, 401, `${context}: ${res.status} ${res.text.slice(0, 200)}`);
      } else if (res.status !== 401) {
        // A well-formed unknown key: the body is read (a lone health call may carry it).
        const loneHealth = /^\{"jsonrpc":"2.0","id":"[^"]+","method":"tools\/call","params":\{"name":"health"/.test(body.text);
        assert.ok(res.status === 413 || (res.status === 200 && loneHealth), `${context}: ${res.status} ${res.text.slice(0, 200)}`);
      }
      tally.add(`${auth === unknown ? 'unknown key' : 'no key'} ${res.status}`);
      if (res.status === 401) assert.equal((JSON.parse(res.text) as { error: { code: number } }).error.code, -32001, context);
    };
    const auths = fc.constantFrom<string | null>(null, 'Bearer', 'Basic abc', `Bearer ${key}x`, unknown);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(bodyArb(codes), auths), { minLength: PER_RUN, maxLength: PER_RUN }), async (bodies) => {
        await Promise.all(bodies.map(check));
      }),
      { seed: SEED + 1, numRuns: Math.ceil(RUNS / 3), includeErrorInReport: true, interruptAfterTimeLimit: 30_000 },
    );
    console.log(`# MCP fuzz without a valid key: ${tally.toString()}`);
    assert.ok((tally.counts.get('no key 401') ?? 0) > RUNS / 2, 'mostly refused');
  });
});
