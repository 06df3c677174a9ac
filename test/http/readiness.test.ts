// /readyz and health tell the truth, through Fastify's inject() into the real server:
// - a first start with real sources whose upstreams are unreachable (one loopback server that
//   holds the request until the test lets it go, two closed loopback ports): 503 `loading`
//   while the first run is under way, then 503 `failed` with each source's next try, a run
//   recorded `failed`, no "previous data kept" in the log, and data_unavailable for any code;
// - the demo: `ready`, and health's coverage agrees with what the API answers;
// - a failing source while data is served: 200 `degraded`, its error text only with a key;
// - a code the store lists but the served dataset does not: data_unavailable, not not_found;
// - the progress board's entries, with their notes only for a key.

import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Writable } from 'node:stream';
import pino from 'pino';
import { AccessControl } from '../../src/access/access.js';
import { StoreUsageCounter } from '../../src/access/usage.js';
import { createKey, startApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { readiness } from '../../src/http/readiness.js';
import { buildServer } from '../../src/http/server.js';
import { Refresher } from '../../src/refresh/pipeline.js';
import { ProgressBoard } from '../../src/refresh/progress.js';
import { SnapshotDataset } from '../../src/serving/served.js';
import { EcosSource } from '../../src/sources/ecos/source.js';
import { OpenDartSource } from '../../src/sources/opendart/source.js';
import { SecSource } from '../../src/sources/sec/source.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { COVERAGE_META_KEY, readCoverage } from '../../src/serving/coverage.js';
import type { ServedDataset } from '../../src/serving/dataset.js';
import { DatasetHolder } from '../../src/serving/holder.js';
import { Publisher } from '../../src/serving/publisher.js';
import { loopback, type Loopback } from '../sources/helpers.js';
import { INJECT_ORIGIN, injectFetch } from '../support/inject.js';
import { getWith, startTestApp, type Reply, type TestServer } from '../support/server.js';
import { tempDir } from '../support/tmp.js';
import { until } from '../support/until.js';

type Json = Record<string, unknown>;
interface ReadyBody {
  status: string;
  ready: boolean;
  detail: string;
  down: string[];
  phase: string | null;
  dataVersion: number | null;
  lastRun: string | null;
  nextRefreshAt: string | null;
  markets: { market: string; listed: number; priced: number; scored: number; complete: number }[];
  sources: { source: string; ok: boolean; at: string; nextTryAt: string | null; error?: string; records?: number }[];
  progress: Json[];
}

/** A loopback port nothing listens on: connections to it are refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function logSink(): { lines: Json[]; logger: pino.Logger } {
  const lines: Json[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Json);
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, sink) };
}

const ECOS_KEY = 'ECOSKEY1234567890ABCD';
const DART_KEY = 'dartkey0123456789abcdef0123456789abcdef0';

describe('a first start with every upstream unreachable', () => {
  const tmp = tempDir();
  const { lines, logger } = logSink();
  // 2026-11-20 12:00 in Seoul; the next scheduled refresh is the configured schedule's next run, 13:00.
  const now = new Date('2026-11-20T03:00:00.000Z');
  let gate: Loopback;
  let app: App;
  let key: string;
  let get: (url: string, key: string | null) => Promise<Reply>;

  before(async () => {
    // ECOS's upstream takes the request and answers nothing until the test closes it; OpenDART
    // and SEC point at a closed port. No retries, so the run ends as soon as the gate closes.
    gate = await loopback(() => ({ hang: true }));
    const closed = `http://127.0.0.1:${await closedPort()}`;
    const sources = [
      new EcosSource({ apiKey: ECOS_KEY, baseUrl: gate.base, requestsPerSecond: 0, retries: 0, timeoutMs: 60_000 }),
      new OpenDartSource({ apiKey: DART_KEY, baseUrl: closed, requestsPerSecond: 0, retries: 0 }),
      new SecSource({ userAgent: 'readiness test test@example.com', dataBaseUrl: closed, wwwBaseUrl: closed, requestsPerSecond: 0, retries: 0 }),
    ];
    // A schedule whose next run after the test clock (2026-11-20 12:00 in Seoul) is 13:00 that
    // day, and whose timer (on the real clock) does not fire while the test runs.
    const config = loadConfig({ DATA_DIR: tmp.dir, PORT: '0', HOST: '127.0.0.1', REFRESH_SCHEDULE: 'hourly', REFRESH_CRON: '0 13 20 11 *' });
    app = await startApp(config, { clock: () => now, logger, sources, listen: false });
    const fetchApp = injectFetch(app.server);
    get = (url, key) => getWith(fetchApp, url, key);
    key = await createKey(app.store.access, 'paid', 'test', () => now);
  });
  after(async () => {
    await app.close();
    await gate.close();
    tmp.cleanup();
  });

  it('answers 503 loading while the first run is under way', async () => {
    assert.ok(await until(() => gate.requests.length > 0), 'the first run called the held upstream');
    const res = await get(`${INJECT_ORIGIN}/readyz`, null);
    assert.equal(res.status, 503);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const body = res.body as ReadyBody;
    assert.equal(body.status, 'loading');
    assert.equal(body.ready, false);
    assert.equal(body.detail, 'not ready: dataset not loaded yet (first refresh from the sources)');
    assert.equal(body.phase, 'first refresh from the sources');
    assert.deepEqual([body.dataVersion, body.lastRun, body.sources, body.markets, body.down], [null, null, [], [], []]);
    const score = await get(`${INJECT_ORIGIN}/api/public/v2/stocks/005930/score`, key);
    assert.equal(score.status, 503);
    assert.equal((score.body as Json).code, 'data_unavailable');
  });

  it('then 503 failed, with every source failed and its next try; the run is recorded failed', async () => {
    await gate.close(); // the held request's socket is destroyed: ECOS fails too
    await app.ready;
    const res = await get(`${INJECT_ORIGIN}/readyz`, null);
    assert.equal(res.status, 503, 'never ready with no stock served');
    const body = res.body as ReadyBody;
    assert.equal(body.status, 'failed');
    assert.equal(body.lastRun, 'failed');
    assert.equal(body.nextRefreshAt, '2026-11-20T13:00:00+09:00');
    assert.equal(body.detail, 'not ready: no stock served: every source failed in the last run; next try at 2026-11-20T13:00:00+09:00');
    // Without a key: which source failed, when, and when it is tried next; no upstream error text.
    assert.deepEqual(body.sources, [
      { source: 'ecos', ok: false, at: '2026-11-20T12:00:00+09:00', nextTryAt: '2026-11-20T13:00:00+09:00' },
      { source: 'opendart', ok: false, at: '2026-11-20T12:00:00+09:00', nextTryAt: '2026-11-20T13:00:00+09:00' },
      { source: 'sec', ok: false, at: '2026-11-20T12:00:00+09:00', nextTryAt: '2026-11-20T13:00:00+09:00' },
    ]);
    assert.doesNotMatch(res.text, /ECONNREFUSED|fetch failed|socket|127\.0\.0\.1/);
    assert.deepEqual(body.markets, [
      { market: 'KR', listed: 0, priced: 0, scored: 0, complete: 0 },
      { market: 'US', listed: 0, priced: 0, scored: 0, complete: 0 },
    ]);
    // With a valid key, each source's error; never a key.
    const keyed = (await get(`${INJECT_ORIGIN}/readyz`, key)).body as ReadyBody;
    assert.equal(keyed.status, 'failed');
    for (const s of keyed.sources) assert.ok(typeof s.error === 'string' && s.error.length > 0, `${s.source} has its error`);
    assert.ok(!JSON.stringify(keyed).includes(ECOS_KEY) && !JSON.stringify(keyed).includes(DART_KEY));
    // An unknown key is no key.
    const unknown = (await get(`${INJECT_ORIGIN}/readyz`, `${key.slice(0, -4)}zzzz`)).body as ReadyBody;
    assert.ok(unknown.sources.every((s) => s.error === undefined));

    const [run] = await app.store.refresh.refreshRuns(1);
    assert.equal(run?.status, 'failed');
    const failures = lines.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('source failed'));
    assert.deepEqual(failures.map((l) => [l.source, l.msg]), [
      ['ecos', 'source failed; no data stored yet, nothing to serve from it'],
      ['opendart', 'source failed; no data stored yet, nothing to serve from it'],
      ['sec', 'source failed; no data stored yet, nothing to serve from it'],
    ]);
  });

  it('any code, rankings and search answer data_unavailable, not not_found or an empty 200', async () => {
    for (const path of ['/stocks/005930/score', '/stocks/AAPL/snapshot', '/rankings', '/stocks?q=samsung']) {
      const res = await get(`${INJECT_ORIGIN}/api/public/v2${path}`, key);
      assert.equal(res.status, 503, path);
      assert.equal((res.body as Json).code, 'data_unavailable', path);
    }
    // health still answers, with the empty coverage and the run's state.
    const health = (await get(`${INJECT_ORIGIN}/api/public/v2/health`, key)).body as { nextRefreshAt: string; sources: { source: string; ok: boolean; terms: string }[]; progress: unknown[]; coverage: { markets: { listed: number }[] } };
    assert.equal(health.nextRefreshAt, '2026-11-20T13:00:00+09:00');
    assert.deepEqual(health.sources.map((s) => s.ok), [false, false, false]);
    // Each source names the terms it is used under (src/domain/source-terms.ts), failed or not.
    assert.deepEqual(
      health.sources.map((s) => [s.source, s.terms]),
      [
        ['ecos', 'Bank of Korea ECOS Open API terms (ecos.bok.or.kr/api); not verified here'],
        ['opendart', 'OpenDART terms of use (opendart.fss.or.kr); commercial use and redistribution not verified here'],
        ['sec', 'SEC EDGAR: public domain, under the fair access policy (sec.gov/os/accessing-edgar-data)'],
      ],
    );
    // The refresh's progress board (app.ts): each source failed, in the order the run took them.
    assert.deepEqual((health.progress as { source: string; phase: string }[]).map((p) => [p.source, p.phase]), [['ecos', 'failed'], ['opendart', 'failed'], ['sec', 'failed']]);
    assert.deepEqual(health.coverage.markets.map((m) => m.listed), [0, 0]);
  });

  it('a security the store lists without a price: still not ready; its score says why it has none', async () => {
    await app.store.market.writeDataset({
      securities: [{ market: 'KR', code: '000660', name: '하이닉스테스트', exchange: 'KOSPI', sector: 'Semiconductors', currency: 'KRW', fiscalYearEndMonth: 12, source: 'opendart' }],
    });
    await app.store.refresh.bumpDatasetVersion();
    await app.publisher.rebuild();
    const body = (await get(`${INJECT_ORIGIN}/readyz`, null)).body as ReadyBody;
    assert.equal(body.status, 'failed');
    assert.deepEqual(body.markets[0], { market: 'KR', listed: 1, priced: 0, scored: 0, complete: 0 });
    // The dataset holds it (a view without a price): its answers carry the reason, per stock.
    const res = await get(`${INJECT_ORIGIN}/api/public/v2/stocks/000660/score`, key);
    assert.equal(res.status, 200);
    assert.deepEqual([(res.body as Json).score, (res.body as Json).reason], [null, 'no price on or before the date']);
  });
});

describe('with data served', () => {
  let t: TestServer;
  let key: string;
  before(async () => {
    t = await startTestApp();
    key = await t.newKey('paid');
  });
  after(() => t.close());

  it('the demo is ready, and health\'s coverage agrees with what the API answers', async () => {
    const res = await t.get(`${t.url}/readyz`, null);
    assert.equal(res.status, 200);
    const body = res.body as ReadyBody;
    assert.deepEqual([body.status, body.ready, body.detail, body.lastRun, body.sources, body.progress], ['ready', true, 'ready: data served', 'ok', [], []]);
    const health = (await t.get(`${t.url}/api/public/v2/health`, key)).body as {
      coverage: { markets: { market: 'KR' | 'US'; listed: number; priced: number; scored: number; complete: number }[]; tools: { tool: string; market: string; listed: number; withValues: number; nulls: Record<string, number> }[] };
    };
    assert.deepEqual(health.coverage.markets, body.markets, '/readyz shows the same market lines');
    const securities = await t.app.store.market.securities();
    for (const m of health.coverage.markets) {
      // listed: the store's securities of the market; scored: the rankings' totalCount.
      assert.equal(m.listed, securities.filter((s) => s.market === m.market).length);
      const rankings = (await t.get(`${t.url}/api/public/v2/rankings?market=${m.market}&bands=mega,xlarge,large,mid,small&limit=1`, key)).body as { totalCount: number };
      assert.equal(m.scored, rankings.totalCount);
      assert.equal(m.complete, Math.round((m.scored / m.listed) * 10_000) / 10_000);
      assert.ok(m.listed > 0 && m.scored > 0);
    }
    // The same report is kept in the store for the CLI's `sources`.
    assert.ok(await until(async () => readCoverage(await t.app.store.refresh.getMeta(COVERAGE_META_KEY)) !== null), 'the coverage report written to meta');
    assert.deepEqual(readCoverage(await t.app.store.refresh.getMeta(COVERAGE_META_KEY)), health.coverage);
    for (const tool of health.coverage.tools) {
      const nulls = Object.values(tool.nulls).reduce((a, b) => a + b, 0);
      assert.equal(tool.withValues + nulls, tool.listed, `${tool.tool} ${tool.market}: values and nulls add up`);
    }
  });

  it('a failing source with data served: 200 degraded, its error only with a key; a listed code not served is data_unavailable', async () => {
    const { lines, logger } = logSink();
    const closed = `http://127.0.0.1:${await closedPort()}`;
    // An hourly refresh (the default schedule) and the publisher that serves its versions on the app's holder.
    const refresher: Refresher = new Refresher(t.app.store, [new EcosSource({ apiKey: ECOS_KEY, baseUrl: closed, requestsPerSecond: 0, retries: 0 })], () => t.clock.now, logger, { onPublish: (v, s) => publisher.publish(v, s) });
    const publisher: Publisher = new Publisher(t.app.store, t.app.holder, () => t.clock.now, logger, { sourceLabel: 'demo', nextRefreshAfter: (at) => refresher.nextRunAfter(at) });
    await refresher.run();
    assert.equal(lines.find((l) => l.source === 'ecos')?.msg, 'source failed; previous data kept', 'the store holds the demo data');
    const res = await t.get(`${t.url}/readyz`, null);
    assert.equal(res.status, 200);
    const body = res.body as ReadyBody;
    assert.equal(body.status, 'degraded');
    assert.equal(body.lastRun, 'failed', 'the run\'s only source failed');
    assert.equal(body.detail, 'ready, degraded: data served; the last run of ecos failed (the previous data stays served)');
    // The test clock: 2026-11-20 12:00 in Seoul.
    assert.deepEqual(body.sources, [{ source: 'ecos', ok: false, at: '2026-11-20T12:00:00+09:00', nextTryAt: '2026-11-20T13:00:00+09:00' }]);
    const keyed = (await t.get(`${t.url}/readyz`, key)).body as ReadyBody;
    assert.ok((keyed.sources[0]?.error ?? '').length > 0);
    assert.ok(!JSON.stringify(keyed).includes(ECOS_KEY));

    // The store lists a security the served dataset does not hold.
    const served = t.app.holder.current as SnapshotDataset;
    assert.equal((await t.get(`${t.url}/api/public/v2/stocks/000660/score`, key)).status, 404, 'unknown before');
    const extra = { id: 1_000_000, market: 'KR' as const, code: '000660', name: '하이닉스테스트', exchange: 'KOSPI', sector: 'Semiconductors', currency: 'KRW' as const, fiscalYearEndMonth: 12, source: 'opendart' as const };
    t.app.holder.swap(
      new SnapshotDataset({ ...served.computed, listed: [...served.computed.listed, extra] }, { version: served.version + 1, updatedAt: served.updatedAt, source: served.source, nextRefreshAt: served.nextRefreshAt, sources: served.sources }, t.app.store.market),
    );
    const known = await t.get(`${t.url}/api/public/v2/stocks/000660/score`, key);
    assert.equal(known.status, 503);
    assert.equal((known.body as Json).code, 'data_unavailable');
    assert.match(String((known.body as Json).detail), /the KR stock 000660 is listed but not loaded yet/);
    assert.equal((await t.get(`${t.url}/api/public/v2/stocks/000661/score`, key)).status, 404, 'a code nobody lists is still not_found');
    const coverage = ((await t.get(`${t.url}/readyz`, null)).body as ReadyBody).markets;
    const kr = coverage.find((m) => m.market === 'KR');
    const before = served.coverage().markets.find((m) => m.market === 'KR');
    assert.deepEqual(kr, { ...before, listed: (before?.listed ?? 0) + 1, complete: Math.round(((before?.scored ?? 0) / ((before?.listed ?? 0) + 1)) * 10_000) / 10_000 });
  });
});

describe('progress on /readyz', () => {
  it('each source\'s phase, done / total, calls and next try; notes only with a key', async () => {
    const tmp = tempDir();
    const store = await openSqliteStore(`${tmp.dir}/db.sqlite`);
    const now = new Date('2026-11-20T03:00:00Z');
    const clock = () => now;
    const access = new AccessControl(store.access, new StoreUsageCounter(store.access), { free: { daily: 10, burst: 10 }, paid: { daily: 10, burst: 10 } }, clock);
    const board = new ProgressBoard(clock);
    board.update('opendart', { phase: 'calling', unit: 'companies', done: 500, total: 2_700, callsToday: 1_000, dailyAllowance: 20_000, etaSeconds: 3_600, note: 'financial statements, one company-period a call' });
    board.update('krx', { phase: 'failed', note: 'HTTP 400 LOGOUT', nextTryAt: new Date('2026-11-20T04:00:00Z') });
    const app = await buildServer({
      access, holder: new DatasetHolder(), clock, logger: pino({ level: 'silent' }), version: 't', bodyLimit: 1000, maxBatch: 5, allowedOrigins: [],
      startupPhase: () => 'first refresh from the sources',
      progress: () => board.snapshot(),
    });
    try {
      const url = INJECT_ORIGIN;
      const fetchApp = injectFetch(app);
      const get = (path: string, key: string | null) => getWith(fetchApp, path, key);
      const res = await get(`${url}/readyz`, null);
      assert.equal(res.status, 503);
      const body = res.body as ReadyBody;
      assert.equal(body.status, 'loading');
      // ETA: the source's own 3,600 s from 12:00 -> 13:00 in Seoul; a failed phase's ETA is 0.
      assert.deepEqual(body.progress, [
        { source: 'opendart', phase: 'calling', unit: 'companies', done: 500, total: 2700, bytes: 0, callsToday: 1000, dailyAllowance: 20000, etaSeconds: 3600, etaAt: '2026-11-20T13:00:00+09:00', nextTryAt: null, note: null },
        { source: 'krx', phase: 'failed', unit: 'items', done: 0, total: null, bytes: 0, callsToday: 0, dailyAllowance: null, etaSeconds: null, etaAt: null, nextTryAt: '2026-11-20T13:00:00+09:00', note: null },
      ]);
      assert.doesNotMatch(res.text, /LOGOUT/);
      const key = await createKey(store.access, 'free', 't', clock);
      const keyed = (await get(`${url}/readyz`, key)).body as ReadyBody;
      assert.deepEqual(keyed.progress.map((p) => p.note), ['financial statements, one company-period a call', 'HTTP 400 LOGOUT']);
    } finally {
      await app.close();
      await store.close();
      tmp.cleanup();
    }
  });
});

describe('readiness(): the status from the dataset, the checks and the progress', () => {
  /** A served dataset as readiness() reads it: its sources' last runs and its coverage's market lines. */
  const dataset = (priced: number, sources: { source: string; ok: boolean; error?: string }[]): ServedDataset =>
    ({
      version: 7,
      updatedAt: '2026-11-20T12:00:00+09:00',
      asOf: '2026-11-20',
      source: sources.map((s) => s.source).join(','),
      nextRefreshAt: new Date('2026-11-20T04:00:00Z'),
      sources: sources.map((s) => ({ ...s, at: '2026-11-20T12:00:00+09:00' })),
      coverage: () => ({ asOf: '2026-11-20', markets: [{ market: 'KR', listed: 3, priced, scored: priced, complete: priced / 3 }], tools: [], metrics: [] }),
    }) as unknown as ServedDataset;
  const calling = { source: 'fsc', phase: 'calling' as const, unit: 'days', done: 3, total: 10, bytes: 0, callsToday: 3, dailyAllowance: 10_000, etaSeconds: 70, etaAt: '2026-11-20T12:01:10+09:00', nextTryAt: null, note: null };
  const cases: { name: string; input: Parameters<typeof readiness>[0]; status: string; http: number; detail: string }[] = [
    {
      name: 'stocks served, Redis down: unavailable, the check named, its own words only with a key',
      input: { data: dataset(3, [{ source: 'fsc', ok: true }]), startupPhase: 'serving', failedChecks: [{ name: 'redis', reason: 'redis did not answer within 1000 ms' }], progress: [], detailed: false },
      status: 'unavailable', http: 503, detail: 'not ready: redis unreachable',
    },
    {
      name: 'the same with a key',
      input: { data: dataset(3, [{ source: 'fsc', ok: true }]), startupPhase: 'serving', failedChecks: [{ name: 'redis', reason: 'redis did not answer within 1000 ms' }], progress: [], detailed: true },
      status: 'unavailable', http: 503, detail: 'not ready: redis did not answer within 1000 ms',
    },
    {
      name: 'no stock served, every source failed, but a run is under way again: loading',
      input: { data: dataset(0, [{ source: 'fsc', ok: false, error: 'HTTP 500' }]), startupPhase: 'serving', failedChecks: [], progress: [calling], detailed: false },
      status: 'loading', http: 503, detail: 'not ready: no stock served yet (the sources are loading)',
    },
    {
      name: 'no stock served, one of two sources failed, nothing running: loading (not every source failed)',
      input: { data: dataset(0, [{ source: 'fsc', ok: false }, { source: 'ecos', ok: true }]), startupPhase: 'serving', failedChecks: [], progress: [], detailed: false },
      status: 'loading', http: 503, detail: 'not ready: no stock served yet',
    },
    {
      name: 'stocks served, the last run fine, a source failing now: degraded',
      input: { data: dataset(3, [{ source: 'fsc', ok: true }]), startupPhase: 'serving', failedChecks: [], progress: [{ ...calling, phase: 'failed' }], detailed: false },
      status: 'degraded', http: 200, detail: 'ready, degraded: data served; fsc failing now (the previous data stays served)',
    },
    {
      name: 'stocks served, every source fine, one still loading: ready',
      input: { data: dataset(3, [{ source: 'fsc', ok: true }]), startupPhase: 'serving', failedChecks: [], progress: [calling], detailed: false },
      status: 'ready', http: 200, detail: 'ready: data served',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { httpStatus, body } = readiness(c.input);
      assert.deepEqual([body.status, httpStatus, body.detail], [c.status, c.http, c.detail]);
      assert.equal(body.ready, c.http === 200);
      assert.deepEqual(body.down, c.input.failedChecks.map((f) => f.name));
      if (!c.input.detailed) assert.ok(body.sources.every((s) => s.error === undefined));
    });
  }
});
