// The REST door, through Fastify's inject() into the service as started (SQLite, small demo
// universe): routes, hooks and serialisers without a socket (real HTTP: test/e2e/doors.test.ts).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { buildServer } from '../../src/http/server.js';
import { DatasetHolder } from '../../src/serving/holder.js';
import { startTestApp, type TestServer } from '../support/server.js';
import { until } from '../support/until.js';
import pino from 'pino';

type Json = Record<string, unknown>;
type Row = { ticker: string; market: string; band: string; gapPct: number; score: number; currentPrice: number; targetPrice: number };

describe('REST /api/public/v2', () => {
  let t: TestServer;
  let key: string;
  let base: string;
  let kr: string;
  let us: string;
  before(async () => {
    t = await startTestApp({ FREE_DAILY_QUOTA: '4', FREE_BURST_PER_SECOND: '3' });
    key = await t.newKey('paid');
    base = `${t.url}/api/public/v2`;
    const all = (await t.get(`${base}/rankings?market=KR,US&bands=mega,xlarge,large,mid,small&limit=200`, key)).body as { rows: Row[] };
    kr = all.rows.find((r) => r.market === 'KR')?.ticker ?? '';
    us = all.rows.find((r) => r.market === 'US')?.ticker ?? '';
    assert.match(kr, /^\d{6}$/);
    assert.match(us, /^[A-Z]/);
  });
  after(() => t.close());

  describe('rankings', () => {
    it('answers the spec table: every field, rows by gapPct descending, default limit 50', async () => {
      const res = await t.get(`${base}/rankings?market=KR,US&bands=mega,xlarge,large,mid,small`, key);
      assert.equal(res.status, 200);
      const body = res.body as Json & { rows: Row[]; totalCount: number; bands: string[]; formula: Json };
      assert.deepEqual(Object.keys(body).sort(), ['bands', 'disclaimer', 'formula', 'market', 'rows', 'source', 'totalCount', 'updatedAt']);
      assert.equal(body.market, 'KR,US');
      assert.deepEqual(body.bands, ['mega', 'xlarge', 'large', 'mid', 'small']);
      assert.equal(body.source, 'demo');
      assert.match(String(body.updatedAt), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+09:00$/);
      assert.deepEqual(Object.keys(body.formula).sort(), ['backtest', 'expectedReturn', 'gap', 'score', 'targetPrice']);
      assert.equal(body.rows.length, Math.min(50, body.totalCount));
      for (const row of body.rows) {
        for (const f of ['ticker', 'name', 'marketCap', 'currentPrice', 'targetPrice', 'gapPct', 'score', 'yoy', 'ttmNiEok', 'supplyPct', 'momentumPct']) {
          assert.ok(f in row, `row has ${f}`);
        }
        // gapPct = -2.25 + 1.05 sqrt(score), the spec's expectedReturn
        assert.ok(Math.abs(row.gapPct - (-2.25 + 1.05 * Math.sqrt(row.score))) < 1e-9);
      }
      for (let i = 1; i < body.rows.length; i++) assert.ok(body.rows[i - 1]!.gapPct >= body.rows[i]!.gapPct, 'sorted by gapPct descending');
    });

    it('filters by market and band; totalCount counts all that pass; limit bounds rows', async () => {
      const all = (await t.get(`${base}/rankings?market=KR&bands=mega,xlarge,large,mid,small&limit=200`, key)).body as { rows: Row[]; totalCount: number };
      const small = (await t.get(`${base}/rankings?market=KR&bands=small&limit=2`, key)).body as { rows: Row[]; totalCount: number };
      const expectedSmall = all.rows.filter((r) => r.band === 'small');
      assert.equal(small.totalCount, expectedSmall.length);
      assert.deepEqual(small.rows, expectedSmall.slice(0, 2));
      assert.ok(all.rows.every((r) => r.market === 'KR'));
      const def = (await t.get(`${base}/rankings`, key)).body as { rows: Row[]; market: string; bands: string[] };
      assert.equal(def.market, 'KR');
      assert.deepEqual(def.bands, ['mega', 'xlarge', 'large']);
      assert.ok(def.rows.every((r) => ['mega', 'xlarge', 'large'].includes(r.band)));
    });

    for (const [query, parameter] of [
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=5&limit=6', 'limit'],
      ['market=JP', 'market'],
      ['market=kr', 'market'],
      ['bands=mega,huge', 'bands'],
      ['bands=', 'bands'],
      ['lmt=3', 'lmt'],
    ] as const) {
      it(`refuses ${query} with 400 invalid_parameter naming ${parameter}`, async () => {
        const res = await t.get(`${base}/rankings?${query}`, key);
        assert.equal(res.status, 400);
        assert.equal(res.headers.get('content-type'), 'application/problem+json; charset=utf-8');
        const p = res.body as Json;
        assert.equal(p.code, 'invalid_parameter');
        assert.equal(p.status, 400);
        assert.equal(p.parameter, parameter);
        assert.match(String(p.detail), new RegExp(`'${parameter}'`));
        assert.match(String(p.detail), /allowed/);
      });
    }

    it('a repeated URL (its arguments held once accepted) answers as the first call did, a bad one is refused alike', async () => {
      for (const path of ['/rankings?limit=7&market=US', `/stocks/${kr}/score`, '/rankings?limit=500', `/stocks/${kr}/score?code=${kr}`]) {
        const first = await t.get(`${base}${path}`, key);
        const again = await t.get(`${base}${path}`, key);
        assert.equal(again.status, first.status, path);
        assert.equal(again.text, first.text, path);
        assert.equal(again.headers.get('etag'), first.headers.get('etag'), path);
      }
    });

    it('says the allowed range, never clamps', async () => {
      const p = (await t.get(`${base}/rankings?limit=500`, key)).body as Json;
      assert.equal(p.detail, "parameter 'limit' 500 is out of range; allowed: an integer from 1 to 200; default 50");
    });
  });

  describe('stock tools', () => {
    it('score: 0..100 percentile, grade, target price, gap', async () => {
      const res = await t.get(`${base}/stocks/${us}/score`, key);
      assert.equal(res.status, 200);
      const b = res.body as Json & { score: number; grade: string; targetPrice: number; currentPrice: number; gapPct: number };
      assert.ok(b.score >= 0 && b.score <= 100);
      const grade = b.score >= 90 ? 'A+' : b.score >= 80 ? 'A' : b.score >= 70 ? 'B+' : b.score >= 60 ? 'B' : b.score >= 50 ? 'C+' : b.score >= 40 ? 'C' : 'D';
      assert.equal(b.grade, grade);
      assert.equal(b.targetPrice, Math.round(b.currentPrice * (1 + b.gapPct / 100) * 100) / 100, 'US target price to the cent');
      assert.equal(b.source, 'demo');
    });

    it('codes are case-insensitive with . and - equivalent for US, six digits for KR', async () => {
      const a = (await t.get(`${base}/stocks/${us.toLowerCase()}/score`, key)).body as Json;
      assert.equal(a.code, us);
      const krBody = (await t.get(`${base}/stocks/${kr}/score`, key)).body as Json & { targetPrice: number; currentPrice: number; gapPct: number };
      assert.equal(krBody.market, 'KR');
      assert.equal(krBody.targetPrice, Math.round(krBody.currentPrice * (1 + krBody.gapPct / 100)), 'KR target price to the won');
    });

    it('unknown codes are 404 naming the market tried and why, in terms true for the demo', async () => {
      const a = await t.get(`${base}/stocks/000001/score`, key);
      assert.equal(a.status, 404);
      assert.deepEqual(
        [(a.body as Json).code, (a.body as Json).detail],
        ['not_found', 'no KR stock has the code 000001: the demo universe is invented (its companies and codes are not real ones); find one by name with search_stocks (GET /stocks?q=)'],
      );
      const b = await t.get(`${base}/stocks/zzzz-q/snapshot`, key);
      assert.equal(b.status, 404);
      assert.equal((b.body as Json).detail, 'no US stock has the ticker ZZZZ.Q: the demo universe is invented (its companies and codes are not real ones); find one by name with search_stocks (GET /stocks?q=)');
      // A real company's ticker is not in the demo by design, and the answer does not blame its filings.
      const apple = await t.get(`${base}/stocks/AAPL/score`, key);
      assert.equal(apple.status, 404);
      assert.doesNotMatch((apple.body as Json).detail as string, /20-F/);
      const c = await t.get(`${base}/stocks/${encodeURIComponent('<script>')}/score`, key);
      assert.equal(c.status, 400);
    });

    it('snapshot groups every metric with unit, reference quarter, disclosure and price dates', async () => {
      const b = (await t.get(`${base}/stocks/${kr}/snapshot`, key)).body as Record<string, Record<string, Json>>;
      const groups = { valuation: ['per', 'pbr', 'evEbit'], profitability: ['roe', 'roic', 'operatingMargin'], growth: ['revenueYoy', 'epsYoy'], stability: ['netDebtRatio', 'interestCoverage', 'currentRatio'], cashGeneration: ['operatingCashFlow', 'fcfYield'], earningsQuality: ['cfToNi', 'ccc'], perShare: ['eps', 'dividendPerShare', 'dividendPerShareFy', 'dividendYield'] };
      assert.deepEqual(Object.keys(b).filter((k) => typeof b[k] === 'object' && b[k] !== null && k !== 'price').sort(), Object.keys(groups).sort());
      for (const [group, metrics] of Object.entries(groups)) {
        assert.deepEqual(Object.keys(b[group]!).sort(), [...metrics].sort());
        for (const m of metrics) {
          const v = b[group]![m]!;
          assert.ok('unit' in v && 'referenceQuarter' in v && 'disclosedOn' in v && 'priceDate' in v);
          if (v.value === null) assert.equal(typeof v.reason, 'string');
          else assert.ok(Number.isFinite(v.value));
        }
      }
    });

    it('per-share figures: EPS with its basis, dividends per share and the yield on the close, the same in the screener', async () => {
      type Metric = { value: number | null; unit: string; basis?: string; priceDate: string | null };
      const snap = (await t.get(`${base}/stocks/${kr}/snapshot`, key)).body as { price: { close: number; date: string }; growth: { epsYoy: Metric }; perShare: Record<string, Metric> };
      const { eps, dividendPerShare, dividendPerShareFy, dividendYield } = snap.perShare as Record<'eps' | 'dividendPerShare' | 'dividendPerShareFy' | 'dividendYield', Metric>;
      // Demo KR filings state basic EPS, as Korean statements do (docs/demo-data.md): the reported path on both figures.
      assert.equal(eps.basis, 'reported basic EPS');
      assert.equal(snap.growth.epsYoy.basis, 'reported basic EPS');
      assert.equal(eps.unit, 'KRW');
      assert.ok(dividendPerShare.value !== null && dividendPerShareFy.value !== null && dividendYield.value !== null);
      // The yield is the TTM dividend per share over the close the snapshot shows.
      assert.equal(dividendYield.value, (dividendPerShare.value * 100) / snap.price.close);
      assert.equal(dividendYield.priceDate, snap.price.date);
      // The screener serves the same values for the stock, and bounds by them.
      const screen = (await t.get(`${base}/screen?market=KR&filters=dividendYield:0:&fields=eps,dividendPerShare,dividendPerShareFy,dividendYield&sort=dividendYield:desc&limit=200`, key)).body as { rows: Record<string, unknown>[]; totalCount: number };
      const row = screen.rows.find((r) => r.code === kr);
      assert.ok(row, 'the stock passes dividendYield >= 0');
      assert.deepEqual([row.eps, row.dividendPerShare, row.dividendPerShareFy, row.dividendYield], [eps.value, dividendPerShare.value, dividendPerShareFy.value, dividendYield.value]);
      const yields = screen.rows.map((r) => r.dividendYield as number);
      assert.deepEqual(yields, [...yields].sort((a, b) => b - a));
    });

    it("a demo financial company follows the financial-company rule: PER, PBR, ROE as for any company, the industrial metrics not applicable", async () => {
      // The demo places companies in Banks, Insurance, Securities and Asset Management (src/sources/demo/sectors.ts).
      const res = await t.get(`${base}/screen?market=KR,US&fields=marketCap&limit=200`, key);
      assert.equal(res.status, 200, res.text.slice(0, 300));
      const financial = (res.body as { rows: { code: string; sector: string }[] }).rows.filter((r) => ['Banks', 'Insurance', 'Securities', 'Asset Management'].includes(r.sector));
      assert.ok(financial.length > 0);
      for (const { code } of financial.slice(0, 3)) {
        const b = (await t.get(`${base}/stocks/${encodeURIComponent(code)}/snapshot`, key)).body as Record<string, Record<string, Json>>;
        for (const [group, metric] of [['stability', 'currentRatio'], ['earningsQuality', 'ccc'], ['stability', 'netDebtRatio'], ['valuation', 'evEbit'], ['profitability', 'operatingMargin']] as const) {
          assert.deepEqual([b[group]![metric]!.value, b[group]![metric]!.reason], [null, 'not applicable to financial companies'], `${code} ${metric}`);
        }
        for (const [group, metric] of [['valuation', 'pbr'], ['profitability', 'roe']] as const) {
          assert.notEqual(b[group]![metric]!.reason, 'not applicable to financial companies', `${code} ${metric}`);
        }
        // Nor a PSR band; the PBR band is there.
        const psr = (await t.get(`${base}/stocks/${encodeURIComponent(code)}/valuation-band?type=psr&from=2015-01-01`, key)).body as Json;
        assert.deepEqual([psr.daysUsed, psr.median, psr.reason], [0, null, 'not applicable to financial companies']);
        const pbr = (await t.get(`${base}/stocks/${encodeURIComponent(code)}/valuation-band?type=pbr&from=2015-01-01`, key)).body as Json;
        assert.ok((pbr.daysUsed as number) > 1000);
      }
    });

    it('valuation band, percentile and prices answer with their parameters', async () => {
      const band = (await t.get(`${base}/stocks/${kr}/valuation-band?type=psr&from=2015-01-01`, key)).body as Json & { daysUsed: number; years: Json[] };
      assert.equal(band.type, 'psr');
      assert.equal(band.from, '2015-01-01');
      assert.ok(band.daysUsed > 1000);
      const pct = (await t.get(`${base}/stocks/${kr}/percentile?cohort=market`, key)).body as Json & { metrics: Json[] };
      assert.equal(pct.cohort, 'market');
      assert.equal(pct.metrics.length, 17);
      const prices = (await t.get(`${base}/stocks/${kr}/prices?interval=week&from=2024-01-01&to=2024-03-31&limit=5`, key)).body as { bars: { date: string }[]; count: number };
      assert.equal(prices.count, 5);
      assert.equal(prices.bars.at(-1)?.date, '2024-03-29', 'the last week of March 2024 ends on Friday the 29th');
      const def = (await t.get(`${base}/stocks/${kr}/prices`, key)).body as { bars: unknown[] };
      assert.equal(def.bars.length, 260);
    });

    for (const [path, parameter] of [
      ['prices?from=2024-02-30', 'from'],
      ['prices?from=2024-03-01&to=2024-02-01', 'from'],
      ['prices?limit=2601', 'limit'],
      ['prices?interval=hour', 'interval'],
      ['valuation-band?type=ev', 'type'],
      ['valuation-band?from=20200101', 'from'],
      ['percentile?cohort=world', 'cohort'],
      ['score?code=1', 'code'],
    ] as const) {
      it(`refuses stocks/{code}/${path} naming ${parameter}`, async () => {
        const res = await t.get(`${base}/stocks/${kr}/${path}`, key);
        assert.equal(res.status, 400);
        assert.equal((res.body as Json).parameter, parameter);
      });
    }
  });

  describe('exports', () => {
    it('trade total defaults to the latest 60 months', async () => {
      const b = (await t.get(`${base}/exports/total`, key)).body as { rows: { month: string; exports: number; imports: number; balance: number }[]; from: string; to: string };
      assert.equal(b.rows.length, 60);
      assert.equal(b.to, '2026-10', 'the last complete month before 2026-11-20');
      assert.equal(b.from, '2021-11');
      for (const r of b.rows) assert.equal(r.balance, r.exports - r.imports);
    });

    it('refuses a month before 1990-01, from after to, a malformed month', async () => {
      const a = await t.get(`${base}/exports/total?from=1989-12`, key);
      assert.equal(a.status, 400);
      assert.match(String((a.body as Json).detail), /1990-01/);
      const b = await t.get(`${base}/exports/total?from=2020-05&to=2020-04`, key);
      assert.equal(b.status, 400);
      const c = await t.get(`${base}/exports/sectors?to=2020-13`, key);
      assert.equal((c.body as Json).parameter, 'to');
      const d = await t.get(`${base}/exports/sectors?top=51`, key);
      assert.equal((d.body as Json).parameter, 'top');
    });

    it('sector exports: top N by 24-month cumulative exports', async () => {
      const b = (await t.get(`${base}/exports/sectors?top=3&from=2026-01&to=2026-06`, key)).body as { sectors: { rank: number; cumulative24m: number; series: unknown[] }[] };
      assert.deepEqual(b.sectors.map((s) => s.rank), [1, 2, 3]);
      assert.ok(b.sectors[0]!.cumulative24m >= b.sectors[1]!.cumulative24m);
      assert.equal(b.sectors[0]!.series.length, 6);
    });
  });

  describe('parameter names', () => {
    it('__proto__, constructor and prototype are refused like any unknown parameter (400 invalid_parameter naming it)', async () => {
      for (const name of ['__proto__', 'constructor', 'prototype']) {
        for (const path of [`/rankings?${name}=x`, `/rankings?limit=5&${name}=1`, `/stocks/${kr}/score?${name}=x`]) {
          const res = await t.get(`${base}${path}`, key);
          assert.equal(res.status, 400, path);
          const body = res.body as Json;
          assert.equal(body.code, 'invalid_parameter', path);
          assert.equal(body.parameter, name, path);
          assert.match(String(body.detail), new RegExp(`^unknown parameter '${name}'; allowed parameters: `), path);
        }
      }
    });
  });

  describe('caching', () => {
    it('ETag, and Cache-Control max-age=0 with no refresh scheduled; 304 on If-None-Match', async () => {
      const first = await t.get(`${base}/rankings?limit=5`, key);
      const etag = first.headers.get('etag');
      assert.ok(etag);
      // This server runs with REFRESH_SCHEDULE=off: the data changes whenever a refresh is run,
      // so a cache revalidates every time, and health names no next refresh.
      assert.equal(first.headers.get('cache-control'), 'private, max-age=0');
      assert.equal(((await t.get(`${base}/health`, key)).body as Json).nextRefreshAt, null);
      const again = await t.get(`${base}/rankings?limit=5`, key, { 'if-none-match': etag });
      assert.equal(again.status, 304);
      assert.equal(again.text, '');
      const other = await t.get(`${base}/rankings?limit=6`, key, { 'if-none-match': etag });
      assert.equal(other.status, 200);
    });

    it('with a schedule, max-age runs to its next run, which health and /readyz name', async () => {
      // REFRESH_CRON '0 0 1 1 *': midnight of 1 January in Seoul (its timer, on the real clock,
      // does not fire while the test runs). From the test clock, 2026-11-20 12:00 in Seoul
      // (03:00Z), the next run is 2027-01-01 00:00 in Seoul (2026-12-31 15:00Z): 20 Nov 03:00Z to
      // 31 Dec 03:00Z is 41 days, then 12 h: 41 x 86,400 + 43,200 = 3,585,600 s.
      const s = await startTestApp({ REFRESH_SCHEDULE: 'hourly', REFRESH_CRON: '0 0 1 1 *' });
      try {
        const k = await s.newKey('paid');
        const path = `${s.url}/api/public/v2/rankings?limit=5`;
        assert.equal((await s.get(path, k)).headers.get('cache-control'), 'private, max-age=3585600');
        assert.equal(((await s.get(`${s.url}/api/public/v2/health`, k)).body as Json).nextRefreshAt, '2027-01-01T00:00:00+09:00');
        assert.equal(((await s.get(`${s.url}/readyz`, null)).body as Json).nextRefreshAt, '2027-01-01T00:00:00+09:00');
        // Ten minutes later the same answer (a cache hit) may be kept 600 s less: 3,585,000.
        s.clock.now = new Date(s.clock.now.getTime() + 600_000);
        const later = await s.get(path, k);
        assert.equal(later.headers.get('x-cache'), 'hit');
        assert.equal(later.headers.get('cache-control'), 'private, max-age=3585000');
      } finally {
        await s.close();
      }
    });

    it('X-Cache says hit or miss; Cache-Control: no-cache computes the answer anew, with the same body', async () => {
      const path = `${base}/rankings?limit=7`;
      const first = await t.get(path, key);
      assert.equal(first.headers.get('x-cache'), 'miss');
      const second = await t.get(path, key);
      assert.equal(second.headers.get('x-cache'), 'hit');
      const fresh = await t.get(path, key, { 'cache-control': 'no-cache' });
      assert.equal(fresh.headers.get('x-cache'), 'miss');
      assert.equal(fresh.text, first.text);
      assert.equal(fresh.headers.get('etag'), first.headers.get('etag'));
      assert.equal((await t.get(path, key, { 'cache-control': 'max-age=0' })).headers.get('x-cache'), 'hit');
    });

    it('X-Cache never tells one key what another asked: a body cached by another key\'s call is said miss, the body and ETag the same', async () => {
      const path = `${base}/rankings?limit=9`;
      const other = await t.newKey('paid');
      const mine = await t.get(path, key);
      assert.equal(mine.headers.get('x-cache'), 'miss');
      // The other key's call is answered from the entry the first key's call filled (the cache
      // is shared), yet its header says miss: a hit would tell it that someone asked this.
      const theirs = await t.get(path, other);
      assert.equal(theirs.headers.get('x-cache'), 'miss');
      assert.equal(theirs.text, mine.text);
      assert.equal(theirs.headers.get('etag'), mine.headers.get('etag'));
      assert.equal((await t.get(path, other)).headers.get('x-cache'), 'miss');
      // The key whose call filled the entry is told hit.
      assert.equal((await t.get(path, key)).headers.get('x-cache'), 'hit');
    });

    it('a no-cache answer is not kept as a new entry: the next plain call still misses, then hits', async () => {
      const path = `${base}/rankings?limit=8`;
      const fresh = await t.get(path, key, { 'cache-control': 'no-cache' });
      assert.equal(fresh.headers.get('x-cache'), 'miss');
      const first = await t.get(path, key);
      assert.equal(first.headers.get('x-cache'), 'miss');
      assert.equal(first.text, fresh.text);
      assert.equal((await t.get(path, key)).headers.get('x-cache'), 'hit');
    });

    it('health is never cached', async () => {
      const res = await t.get(`${base}/health`, key);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.equal(res.headers.get('etag'), null);
    });
  });

  describe('keys, quotas, health', () => {
    it('401 with WWW-Authenticate for missing, malformed, unknown and revoked keys', async () => {
      const revoked = await t.newKey('paid');
      assert.equal((await t.get(`${base}/rankings`, revoked)).status, 200);
      await t.app.store.access.revokeKey(revoked.slice(0, 16), t.clock.now.toISOString());
      for (const k of [null, 'nope', 'sk_live_' + 'A'.repeat(43), revoked]) {
        const res = await t.get(`${base}/rankings`, k);
        assert.equal(res.status, 401, String(k));
        assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="api", error="invalid_token"');
        assert.equal((res.body as Json).code, 'unauthorized');
        assert.ok(!res.text.includes('sk_live_'), 'the key is not echoed');
      }
      const asQuery = await t.get(`${base}/rankings?api_key=${key}`, null);
      assert.equal(asQuery.status, 401, 'a key in the query string is ignored');
    });

    it('health reports a valid key, and valid:false for an unknown or revoked one', async () => {
      const res = await t.get(`${base}/health`, key);
      assert.equal(res.status, 200);
      const h = res.body as Json;
      assert.deepEqual([h.valid, h.plan, h.dailyQuota, h.resetsAt, h.keyPrefix], [true, 'paid', 100000, '2026-11-21T00:00:00+09:00', key.slice(0, 16)]);
      assert.ok((h.callsToday as number) > 0);
      const unknown = await t.get(`${base}/health`, 'sk_live_' + 'B'.repeat(43));
      assert.equal(unknown.status, 200);
      assert.deepEqual([(unknown.body as Json).valid, (unknown.body as Json).reason], [false, 'the key is not known']);
      assert.equal((await t.get(`${base}/health`, null)).status, 401, 'a missing header is still 401');
    });

    it('health carries the per-metric coverage: the 17 percentile metrics per market, each count agreeing with the screener', async () => {
      type Line = { metric: string; market: string; percentile: boolean; listed: number; applicable: number; withValues: number; complete: number; nulls: Record<string, number> };
      const coverage = ((await t.get(`${base}/health`, key)).body as { coverage: { markets: { market: string; listed: number }[]; metrics: Line[] } }).coverage;
      const percentile = coverage.metrics.filter((m) => m.percentile);
      assert.equal(percentile.length, 34, '17 metrics x 2 markets');
      for (const m of coverage.metrics) {
        const listed = coverage.markets.find((x) => x.market === m.market)?.listed;
        assert.equal(m.listed, listed, `${m.metric} ${m.market}: every listed stock counted`);
        assert.equal(m.withValues + Object.values(m.nulls).reduce((a, b) => a + b, 0), m.listed, `${m.metric} ${m.market}: values and nulls add up`);
        assert.equal(m.applicable, m.listed - (m.nulls['notApplicable'] ?? 0) - (m.nulls['undefinedForCompany'] ?? 0));
        assert.equal(m.complete, m.applicable === 0 ? 0 : Math.round((m.withValues / m.applicable) * 10_000) / 10_000);
      }
      // The same count through another door: the screener keeps, for a field bounded by neither
      // end, the stocks with a value (every listed demo stock is served).
      for (const [metric, market] of [['per', 'KR'], ['roe', 'US'], ['currentRatio', 'KR'], ['epsYoy', 'US']] as const) {
        const screened = (await t.get(`${base}/screen?market=${market}&filters=${metric}::&limit=1`, key)).body as { totalCount: number };
        const line = coverage.metrics.find((m) => m.metric === metric && m.market === market);
        assert.equal(line?.withValues, screened.totalCount, `${metric} ${market}`);
        assert.ok(screened.totalCount > 0, `${metric} ${market} has values in the demo universe`);
      }
    });

    it('counts every call once, refuses past the daily quota with 429 and Retry-After, health still answers, the next Seoul day resets', async () => {
      const free = await t.newKey('free'); // quota 4/day, burst 3/s in this server
      const saved = t.clock.now;
      try {
        t.clock.now = new Date('2026-11-20T14:59:50.000Z'); // 23:59:50 Seoul
        const first = await t.get(`${base}/exports/total`, free);
        assert.equal(first.headers.get('ratelimit-policy'), '"daily";q=4;w=86400, "burst";q=3;w=1');
        assert.equal(first.headers.get('ratelimit'), '"daily";r=3;t=10');
        await t.get(`${base}/exports/total`, free);
        await t.get(`${base}/exports/total`, free);
        const burst = await t.get(`${base}/exports/total`, free);
        assert.equal(burst.status, 429);
        assert.equal((burst.body as Json).code, 'rate_limited');
        assert.equal(burst.headers.get('retry-after'), '1');
        t.clock.now = new Date('2026-11-20T14:59:51.000Z');
        assert.equal((await t.get(`${base}/exports/total`, free)).status, 200); // 4th counted call
        const over = await t.get(`${base}/exports/total`, free);
        assert.equal(over.status, 429);
        assert.equal((over.body as Json).code, 'quota_exceeded');
        assert.equal(over.headers.get('retry-after'), '9');
        const health = await t.get(`${base}/health`, free);
        assert.equal(health.status, 200);
        assert.equal((health.body as Json).callsToday, 5, 'four calls plus this health call; refused calls are not counted');
        t.clock.now = new Date('2026-11-20T15:00:00.000Z'); // midnight in Seoul
        const next = await t.get(`${base}/exports/total`, free);
        assert.equal(next.status, 200);
        assert.equal(next.headers.get('ratelimit'), '"daily";r=3;t=86400');
      } finally {
        t.clock.now = saved;
      }
    });
  });

  it('is built without a socket (startApp with listen: false): these requests went through inject()', () => {
    assert.equal(t.app.url, '');
    assert.equal(t.app.server.server.listening, false);
    assert.equal(t.app.server.server.address(), null);
  });

  describe('operator endpoints and documents', () => {
    it('healthz, readyz, unknown paths', async () => {
      assert.equal((await t.get(`${t.url}/healthz`, null)).status, 200);
      const ready = await t.get(`${t.url}/readyz`, null);
      assert.equal(ready.status, 200);
      assert.equal((ready.body as Json).source, 'demo');
      const missing = await t.get(`${base}/nothing`, key);
      assert.equal(missing.status, 404);
      assert.equal((missing.body as Json).code, 'not_found');
    });

    it('serves the docs page and its assets locally', async () => {
      const page = await t.get(`${t.url}/docs`, null);
      assert.equal(page.status, 200);
      assert.match(page.text, /swagger-ui-bundle\.js/);
      assert.match(page.text, /\/api\/public\/v2\/openapi\.json/);
      assert.doesNotMatch(page.text, /https?:\/\/(?!127)/, 'no CDN');
      const asset = await t.fetch(`${t.url}/docs/assets/swagger-ui-bundle.js`);
      assert.equal(asset.status, 200);
      assert.ok((await asset.arrayBuffer()).byteLength > 100_000);
    });

    it('every OpenAPI path answers with a body valid against its declared schema', async () => {
      const doc = (await t.get(`${base}/openapi.json`, null)).body as { openapi: string; paths: Record<string, { get: { operationId: string; parameters: { name: string; in: string }[]; responses: Record<string, { content?: Record<string, { schema: object }> }> } }> };
      assert.equal(doc.openapi, '3.1.0');
      const ops = Object.entries(doc.paths).filter(([p]) => p.startsWith('/api/public/v2/'));
      assert.equal(ops.length, 11);
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      for (const [path, { get: op }] of ops) {
        for (const code of [kr, us]) {
          const url = `${t.url}${path.replace('{code}', code)}${op.operationId === 'search_stocks' ? '?q=a' : ''}`;
          const res = await t.get(url, key);
          assert.equal(res.status, 200, `${op.operationId} ${res.text.slice(0, 200)}`);
          const schema = op.responses['200']?.content?.['application/json']?.schema;
          assert.ok(schema, op.operationId);
          const validate = ajv.compile(schema);
          assert.ok(validate(res.body), `${op.operationId}: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
          // The body is written by src/wire/json-bytes.ts: byte for byte what JSON.stringify writes.
          assert.equal(res.text, JSON.stringify(res.body), `${op.operationId}: the body is JSON.stringify's text`);
          if (!path.includes('{code}')) break;
        }
      }
    });
  });

  describe('logs', () => {
    it('one structured line per request, with the key prefix and never a key', async () => {
      const before = t.logs.length;
      await t.get(`${base}/rankings?limit=1&api_key=${key}`, key);
      const lines = t.logs.slice(before).map((l) => JSON.parse(l) as Json).filter((l) => l.msg === 'request');
      assert.equal(lines.length, 1);
      const line = lines[0]!;
      assert.equal(line.route, '/api/public/v2/rankings');
      assert.equal(line.status, 400, 'api_key is an unknown parameter');
      assert.equal(line.keyPrefix, key.slice(0, 16));
      assert.equal(typeof line.reqId, 'string');
      assert.equal(typeof line.durationMs, 'number');
      const everything = t.logs.join('\n');
      assert.ok(!everything.includes(key), 'the full key never appears in a log line');
      assert.ok(!everything.includes(key.slice(16)), 'nor its secret part');
    });

    it('after the swap the history cache fills in the background: every stock of the test universe fits', async () => {
      // The line of the dataset served now (an earlier swap's fill stops at the next swap).
      const version = ((await t.get(`${t.url}/readyz`, null)).body as Json).dataVersion;
      const warmed = () => t.logs.map((l) => JSON.parse(l) as Json).find((l) => l.msg === 'histories warmed' && l.version === version);
      await until(() => warmed() !== undefined, { timeoutMs: 30_000, intervalMs: 100 });
      const line = warmed();
      assert.ok(line, `a histories warmed line for version ${String(version)}`);
      assert.equal(line.stopped, false);
      assert.equal(line.stocks, (await t.app.store.market.securities()).length);
      assert.equal(typeof line.ms, 'number');
    });
  });
});

describe('REST before data is loaded', () => {
  it('answers 503 data_unavailable and readyz 503', async () => {
    const { AccessControl } = await import('../../src/access/access.js');
    const { StoreUsageCounter } = await import('../../src/access/usage.js');
    const { openSqliteStore } = await import('../../src/store/sqlite.js');
    const { createKey } = await import('../../src/app.js');
    const { tempDir } = await import('../support/tmp.js');
    const tmp = tempDir();
    const store = await openSqliteStore(`${tmp.dir}/db.sqlite`);
    const clock = () => new Date('2026-11-20T03:00:00Z');
    const access = new AccessControl(store.access, new StoreUsageCounter(store.access), { free: { daily: 10, burst: 10 }, paid: { daily: 10, burst: 10 } }, clock);
    const app = await buildServer({ access, holder: new DatasetHolder(), clock, logger: pino({ level: 'silent' }), version: 't', bodyLimit: 1000, maxBatch: 5, allowedOrigins: [] });
    try {
      const key = await createKey(store.access, 'free', 't', clock);
      const res = await app.inject({ url: '/api/public/v2/rankings', headers: { authorization: `Bearer ${key}` } });
      assert.equal(res.statusCode, 503);
      assert.equal((res.json() as Json).code, 'data_unavailable');
      assert.equal((await app.inject({ url: '/readyz' })).statusCode, 503);
    } finally {
      await app.close();
      await store.close();
      tmp.cleanup();
    }
  });
});
