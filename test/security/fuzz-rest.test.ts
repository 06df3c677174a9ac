// Property-based fuzzing of every REST endpoint: random and adversarial codes, dates, months,
// numbers, bands and enums; huge and unicode strings; duplicated, unknown and missing
// parameters; bad percent-encoding; other methods and unknown paths. Every response must be
// below 500, an error must be problem+json with a documented code whose status matches, a
// success must validate against the OpenAPI document's schema, and the server must still
// answer afterwards. Seeded: a failure prints the seed and the shrunk counterexample.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { BAND_KEYS } from '../../src/domain/results.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { assertNoLeak, assertProblem, openApiValidators, RawClient, Tally, universeCodes, type OpenApiValidators } from './helpers.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261120);
const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
const PER_RUN = 8; // requests per property run, sent concurrently
const BASE = '/api/public/v2';

interface Req {
  method: string;
  /** Path template as the OpenAPI document names it (null: no such endpoint). */
  template: string | null;
  path: string;
  headers: Record<string, string>;
}

/** Percent-encodes most of the time; sometimes sends raw-ish text or broken escapes. */
const encoded = (value: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 6, arbitrary: value.map((v) => encodeURIComponent(v)) },
    { weight: 1, arbitrary: value.map((v) => encodeURIComponent(v).replace(/%2C/g, ',').replace(/%3A/g, ':')) },
    { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%E0%A4%A', '%00', '%FF', '%C0%AF', '%2e%2e', '+', '%20', '%ZZ%') },
  );

const junk: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.string({ minLength: 200, maxLength: 3_000 }),
  fc.constantFrom('', ' ', 'null', 'undefined', 'NaN', 'Infinity', '-Infinity', 'true', '[]', '{}', '__proto__', 'constructor', "' OR 1=1 --", '<script>', '../../etc/passwd', '\u0000', '\u202e', '한국', '😀'.repeat(50)),
);

function codeArb(codes: { kr: string[]; us: string[] }): fc.Arbitrary<string> {
  const us = fc.constantFrom(...codes.us);
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...codes.kr) },
    { weight: 3, arbitrary: us },
    { weight: 1, arbitrary: us.map((c) => c.toLowerCase()) },
    { weight: 1, arbitrary: us.map((c) => c.replace('.', '-')) },
    { weight: 2, arbitrary: fc.stringMatching(/^\d{6}$/) },
    { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,5}([.-][A-Za-z0-9]{1,3})?$/) },
    { weight: 1, arbitrary: fc.constantFrom('999999', '000000', '5930', '0059300', 'BRK.B', 'brk-b', 'A.', '.A', 'AAAAAAA', 'A..B', 'A-B-C') },
    { weight: 2, arbitrary: junk.filter((s) => s.length > 0) },
  );
}

const dateArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.date({ min: new Date('1985-01-01'), max: new Date('2030-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)) },
  { weight: 2, arbitrary: fc.tuple(fc.integer({ min: -10, max: 99_999 }), fc.integer({ min: -1, max: 14 }), fc.integer({ min: -1, max: 33 })).map(([y, m, d]) => `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`) },
  { weight: 1, arbitrary: fc.constantFrom('2024-02-30', '2023-02-29', '2024-02-29', '0000-01-01', '9999-12-31', '2026-11-20', '2026-11-21', '1990-01-01', '2024-1-1', '20240101', '2024-01-01T00:00:00Z', '2024/01/01') },
  { weight: 1, arbitrary: junk },
);

const monthArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(fc.integer({ min: 1985, max: 2030 }), fc.integer({ min: 1, max: 12 })).map(([y, m]) => `${y}-${String(m).padStart(2, '0')}`) },
  { weight: 2, arbitrary: fc.tuple(fc.integer({ min: -1, max: 99_999 }), fc.integer({ min: -1, max: 14 })).map(([y, m]) => `${y}-${String(m).padStart(2, '0')}`) },
  { weight: 1, arbitrary: fc.constantFrom('1989-12', '1990-01', '2026-10', '2026-11', '2026-12', '9999-12', '2024-1', '202401', '2024-01-01') },
  { weight: 1, arbitrary: junk },
);

const intArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: -5, max: 3_000 }).map(String) },
  { weight: 2, arbitrary: fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n })).map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
  { weight: 1, arbitrary: fc.constantFrom('1e2', '0x10', '-0', '+5', ' 5', '5 ', '05', '1.0', '1,2', '', 'NaN', 'Infinity', '9'.repeat(400)) },
  { weight: 1, arbitrary: junk },
);

const enumArb = (values: readonly string[]): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...values) },
    { weight: 1, arbitrary: fc.constantFrom(...values).map((v) => v.toUpperCase()) },
    { weight: 1, arbitrary: fc.constantFrom(...values).map((v) => `${v},${v}`) },
    { weight: 1, arbitrary: junk },
  );

const bandsArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.subarray([...BAND_KEYS], { minLength: 1 }).map((b) => b.join(',')) },
  { weight: 2, arbitrary: fc.array(fc.constantFrom(...BAND_KEYS, '', 'MEGA', 'huge', ' mega'), { maxLength: 12 }).map((b) => b.join(',')) },
  { weight: 1, arbitrary: fc.array(fc.constantFrom(...BAND_KEYS), { minLength: 50, maxLength: 400 }).map((b) => b.join(',')) },
  { weight: 1, arbitrary: junk },
);

interface Endpoint {
  template: string;
  /** The path with `{code}` filled in. */
  path: (code: string) => string;
  /** Adversarial values per parameter. */
  params: Record<string, fc.Arbitrary<string>>;
  /** Values the endpoint should accept (mostly). */
  valid: Record<string, fc.Arbitrary<string>>;
}

const validDate = (min: string, max: string): fc.Arbitrary<string> =>
  fc.date({ min: new Date(min), max: new Date(max), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
const validMonth: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 1990, max: 2026 }), fc.integer({ min: 1, max: 12 }))
  .map(([y, m]) => `${y}-${String(Math.min(m, y === 2026 ? 10 : 12)).padStart(2, '0')}`);

function endpoints(): Endpoint[] {
  type Params = Record<string, fc.Arbitrary<string>>;
  const stock = (suffix: string, params: Params, valid: Params): Endpoint => ({
    template: `${BASE}/stocks/{code}/${suffix}`,
    path: (code) => `${BASE}/stocks/${code}/${suffix}`,
    params,
    valid,
  });
  const fixed = (path: string, params: Params, valid: Params): Endpoint => ({ template: `${BASE}${path}`, path: () => `${BASE}${path}`, params, valid });
  const n = (min: number, max: number) => fc.integer({ min, max }).map(String);
  const one = (...v: string[]) => fc.constantFrom(...v);
  return [
    stock('score', {}, {}),
    fixed('/rankings', { market: enumArb(['KR', 'US', 'KR,US']), bands: bandsArb, limit: intArb, offset: intArb }, { market: one('KR', 'US', 'KR,US'), bands: fc.subarray([...BAND_KEYS], { minLength: 1 }).map((b) => b.join(',')), limit: n(1, 200), offset: n(0, 1000) }),
    fixed('/stocks', { q: junk, market: enumArb(['KR', 'US']), limit: intArb }, { q: fc.oneof(fc.string({ minLength: 1, maxLength: 50 }), one('ㅎㅅ', '한ㅅ', 'ＨＡＮ', 'brk-b', '00')), market: one('KR', 'US'), limit: n(1, 50) }),
    fixed('/exports/total', { from: monthArb, to: monthArb }, { from: validMonth, to: validMonth }),
    fixed('/exports/sectors', { from: monthArb, to: monthArb, top: intArb }, { from: validMonth, to: validMonth, top: n(1, 50) }),
    stock('snapshot', {}, {}),
    stock('valuation-band', { type: enumArb(['per', 'pbr', 'psr']), from: dateArb }, { type: one('per', 'pbr', 'psr'), from: validDate('2015-01-01', '2026-11-20') }),
    stock('percentile', { cohort: enumArb(['sector', 'market']) }, { cohort: one('sector', 'market') }),
    stock('prices', { interval: enumArb(['day', 'week', 'month']), from: dateArb, to: dateArb, limit: intArb }, { interval: one('day', 'week', 'month'), from: validDate('2015-01-01', '2024-12-31'), to: validDate('2025-01-01', '2026-12-31'), limit: n(1, 2600) }),
    fixed('/health', {}, {}),
  ];
}

function requestArb(codes: { kr: string[]; us: string[] }, key: string): fc.Arbitrary<Req> {
  const code = codeArb(codes);
  const headers: fc.Arbitrary<Record<string, string>> = fc.record(
    {
      'if-none-match': fc.oneof(fc.constant('W/"x"'), fc.string({ maxLength: 60 }).map((s) => `"${s.replace(/[^\x20-\x7e]/g, '')}"`)),
      accept: fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml', ''),
      'x-request-id': fc.string({ maxLength: 80 }).map((s) => s.replace(/[^\x21-\x7e]/g, '')),
    },
    { requiredKeys: [] },
  );
  const endpointReq = fc.constantFrom(...endpoints()).chain((ep) => {
    const names = Object.keys(ep.params);
    const knownPair = names.length
      ? fc.constantFrom(...names).chain((name) => fc.tuple(fc.constant(encodeURIComponent(name)), encoded(ep.params[name] ?? junk)))
      : fc.tuple(fc.constant('code'), encoded(code));
    const unknownPair = fc.tuple(encoded(fc.oneof(fc.constantFrom('code', 'key', 'api_key', 'access_token', '__proto__', 'limit[]', 'a[b]', '', 'LIMIT'), fc.string({ maxLength: 12 }))), encoded(junk));
    const pairs = fc.array(fc.oneof({ weight: 6, arbitrary: knownPair }, { weight: 1, arbitrary: unknownPair }), { maxLength: 6 });
    const query = fc.tuple(pairs, fc.constantFrom('', '', '&', '&&', '=', '?')).map(([ps, tail]) =>
      ps.length === 0 && tail === '' ? '' : `?${ps.map(([k, v]) => `${k}=${v}`).join('&')}${tail}`,
    );
    return fc.record({
      method: fc.constantFrom('GET', 'GET', 'GET', 'GET', 'GET', 'GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH'),
      template: fc.constant<string | null>(ep.template),
      path: fc.tuple(encoded(code), query, fc.constantFrom('', '', '', '/')).map(([c, q, slash]) => `${ep.path(c)}${slash}${q}`),
      headers,
    });
  });
  const strayReq = fc.record({
    method: fc.constantFrom('GET', 'POST'),
    template: fc.constant<string | null>(null),
    path: fc.oneof(
      fc.constantFrom(`${BASE}`, `${BASE}/`, `${BASE}/stocks`, `${BASE}/stocks/005930`, `${BASE}/stocks//score`, `${BASE}/rankings/extra`, `${BASE}/../../etc/passwd`, '/api/public/v1/rankings', '/%2e%2e/', '//', '/api/public/v2/stocks/%2F/score'),
      fc.string({ maxLength: 60 }).map((s) => `${BASE}/${encodeURIComponent(s)}`),
    ),
    headers,
  });
  // Well-formed requests (known codes, allowed values, each parameter at most once), so that
  // successes are checked against their schemas as often as refusals are.
  const known = fc.oneof(fc.constantFrom(...codes.kr), fc.constantFrom(...codes.us));
  const validReq = fc.constantFrom(...endpoints()).chain((ep) =>
    fc.record({
      method: fc.constant('GET'),
      template: fc.constant<string | null>(ep.template),
      path: fc.tuple(known, fc.record(ep.valid, { requiredKeys: [] })).map(([c, q]) => {
        const qs = new URLSearchParams(q as Record<string, string>).toString();
        return `${ep.path(c)}${qs ? `?${qs}` : ''}`;
      }),
      headers: fc.constant({}),
    }),
  );
  return fc.oneof({ weight: 10, arbitrary: validReq }, { weight: 12, arbitrary: endpointReq }, { weight: 1, arbitrary: strayReq }).map((r) => ({
    ...r,
    headers: { ...r.headers, authorization: `Bearer ${key}` },
  }));
}

describe('REST fuzzing', () => {
  let t: TestServer;
  let key: string;
  let client: RawClient;
  let validators: OpenApiValidators;
  let codes: { kr: string[]; us: string[] };

  before(async () => {
    t = await startTestServer();
    key = await t.newKey('paid');
    client = new RawClient(t.url, PER_RUN);
    validators = await openApiValidators(t);
    codes = await universeCodes(t);
  });
  after(async () => {
    client.close();
    await t.close();
  });

  it(`answers ${RUNS * PER_RUN} generated requests without a 5xx, with documented errors and schema-valid results`, async () => {
    const tally = new Tally();
    const started = performance.now();
    const check = async (req: Req): Promise<void> => {
      const res = await client.request(req.method, req.path, req.headers);
      const context = `${req.method} ${req.path.slice(0, 200)}`;
      assert.ok(res.status < 500, `${context}: ${res.status} ${res.text.slice(0, 300)}`);
      assertNoLeak(res.text, [key], context);
      if (res.status === 304 || req.method === 'HEAD' || (req.method === 'OPTIONS' && res.status === 204)) {
        tally.add(`${req.method === 'HEAD' ? 'HEAD ' : ''}${res.status}`);
        return;
      }
      if (res.status >= 200 && res.status < 300) {
        assert.equal(req.method, 'GET', `${context}: ${res.status} for a ${req.method}`);
        if (req.template === null) {
          // Outside the API (e.g. '//' is the web dashboard's '/'), a page may be served.
          assert.ok(!req.path.startsWith(`${BASE}/`), `${context}: success on an unknown API path`);
          tally.add(`${res.status} non-API`);
          return;
        }
        const validate = validators.ok.get(req.template);
        assert.ok(validate, `no schema for ${req.template}`);
        const body: unknown = JSON.parse(res.text);
        assert.ok(validate(body), `${context}: result does not match its schema: ${JSON.stringify(validate.errors)}`);
        tally.add(String(res.status));
        return;
      }
      tally.add(`${res.status} ${assertProblem(res, validators.problem, context)}`);
    };
    await fc.assert(
      fc.asyncProperty(fc.array(requestArb(codes, key), { minLength: PER_RUN, maxLength: PER_RUN }), async (reqs) => {
        await Promise.all(reqs.map(check));
      }),
      { seed: SEED, numRuns: RUNS, includeErrorInReport: true, interruptAfterTimeLimit: 60_000 },
    );
    const ms = Math.round(performance.now() - started);
    // The server still answers, and the data is the same as before.
    const health = await client.request('GET', `${BASE}/health`, { authorization: `Bearer ${key}` });
    assert.equal(health.status, 200);
    const ready = await client.request('GET', '/readyz');
    assert.equal(ready.status, 200);
    console.log(`# REST fuzz: seed=${SEED} requests=${client.sent} in ${ms} ms; ${tally.toString()}`);
    assert.ok(client.sent >= RUNS * PER_RUN, `sent ${client.sent}`);
    // A useful mix: plenty of successes and plenty of refusals.
    assert.ok((tally.counts.get('200') ?? 0) > RUNS / 4, 'too few successes to mean anything');
    assert.ok((tally.counts.get('400 invalid_parameter') ?? 0) > RUNS / 4, 'too few refusals to mean anything');
  });
});
