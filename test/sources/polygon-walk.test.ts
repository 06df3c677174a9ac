// Polygon's price history walked at the key's plan's rate: the plan from the environment, the
// walk back from the latest session a bounded number of days a run, progress in days with an
// ETA at the plan's spacing, and the end of the plan's history (403 NOT_AUTHORIZED). The
// limiter is injected: it keeps the plan's 12 s interval (for the ETA) without waiting.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { RateLimiter } from '../../src/sources/http.js';
import type { ProgressPatch } from '../../src/sources/progress.js';
import { PolygonSource } from '../../src/sources/polygon/source.js';
import { context, fixture, loopback, type Recorded, type Reply } from './helpers.js';

const KEY = 'polygonSecretKey123';
const ENV = { US_PRICES_API_KEY: KEY, SEC_USER_AGENT: 'Example admin@example.com' };

/** The plan's interval, no waiting; counts the turns taken. */
class InstantLimiter extends RateLimiter {
  turns = 0;
  override acquire(): Promise<void> {
    this.turns += 1;
    return Promise.resolve();
  }
}

/** A live grouped-daily answer for 2026-09-25, 14 rows (test/fixtures/real/PROVENANCE.md). */
const realGrouped = (): string =>
  gunzipSync(readFileSync(new URL('../fixtures/real/polygon/grouped_2026-09-25_excerpt.json.gz', import.meta.url))).toString('utf8');

/** CONSTRUCTED: SEC's company_tickers.json and the CY2026Q3I shares frame for AAPL; other frames 404. */
function sec(req: Recorded): Reply | null {
  if (req.url.pathname === '/files/company_tickers.json') return { body: JSON.stringify({ 0: { cik_str: 320193, ticker: 'AAPL', title: 'Apple Inc.' } }) };
  if (req.url.pathname.endsWith('/CY2026Q3I.json')) return { body: JSON.stringify({ data: [{ cik: 320193, end: '2026-07-17', val: 14_700_000_000 }] }) };
  if (req.url.pathname.includes('/frames/')) return { status: 404, body: 'Not Found' };
  return null;
}

/**
 * Grouped daily: 2026-09-25 recorded; dates before `oldest` answered as Polygon answers a date
 * outside the plan (CONSTRUCTED from its documented error body); the rest the documented
 * holiday answer (no results).
 */
function polygon(oldest: string): (req: Recorded) => Reply {
  return (req) => {
    const s = sec(req);
    if (s) return s;
    const date = /\/stocks\/(\d{4}-\d{2}-\d{2})$/.exec(req.url.pathname)?.[1];
    if (!date) return { status: 404, body: '{"status":"NOT_FOUND"}' };
    if (date === '2026-09-25') return { body: realGrouped() };
    if (date < oldest) return { status: 403, body: JSON.stringify({ status: 'NOT_AUTHORIZED', request_id: 'x', message: "Your plan doesn't include this data timeframe. Please upgrade your plan." }) };
    return { body: fixture('polygon/grouped_2024-11-28_holiday.json') };
  };
}

const dates = (requests: Recorded[]): string[] =>
  requests.map((r) => /\/stocks\/(\d{4}-\d{2}-\d{2})$/.exec(r.url.pathname)?.[1]).filter((d): d is string => d !== undefined);

describe('Polygon plan', () => {
  it('from the environment: free 5 a minute and two years, paid 600 a minute and ten years; overrides', () => {
    const free = PolygonSource.fromEnv(ENV);
    // 60,000 ms / 5 = 12,000 ms; a run's 40 min = 2,400 s / 12 s = 200 days a run, and the
    // source's own timeout is 40 + 5 = 45 min (the refresh's ten minutes would cut it).
    assert.deepEqual([free?.limiter.minIntervalMs, free?.historyDays, free?.maxDaysPerRun, free?.timeoutMs], [12_000, 730, 200, 2_700_000]);
    const paid = PolygonSource.fromEnv({ ...ENV, US_PRICES_PLAN: 'paid' });
    // 60,000 / 600 = 100 ms; 2,400 s / 0.1 s = 24,000, bounded to 250.
    assert.deepEqual([paid?.limiter.minIntervalMs, paid?.historyDays, paid?.maxDaysPerRun], [100, 3_653, 250]);
    const own = PolygonSource.fromEnv({ ...ENV, US_PRICES_REQUESTS_PER_MINUTE: '10', US_PRICES_HISTORY_DAYS: '365' });
    // 60,000 / 10 = 6,000 ms; 2,400 s / 6 s = 400, bounded to 250.
    assert.deepEqual([own?.limiter.minIntervalMs, own?.historyDays, own?.maxDaysPerRun], [6_000, 365, 250]);
  });
});

describe('Polygon history walk', () => {
  it('walks back from the latest closed session, a bounded number of days a run, with the ETA at the plan\'s rate; then resumes to where the plan\'s history ends', async () => {
    const server = await loopback(polygon('2026-09-21'));
    try {
      const limiter = new InstantLimiter(12_000);
      const source = new PolygonSource({
        apiKey: KEY, baseUrl: server.base, secUserAgent: 'Example admin@example.com', secDataBaseUrl: server.base, secWwwBaseUrl: server.base,
        limiter, historyDays: 14, maxDaysPerRun: 3,
      });
      const progress: ProgressPatch[] = [];
      // Monday 2026-09-28 10:00 in Seoul = Sunday 21:00 in New York: Friday 09-25 is the latest closed session.
      const at = { asOf: '2026-09-28', now: new Date('2026-09-28T10:00:00+09:00'), progress: (p: ProgressPatch) => void progress.push(p) };
      const first = await source.ingest(context({ ...at, cursor: null }));
      assert.deepEqual(dates(server.requests), ['2026-09-25', '2026-09-24', '2026-09-23']);
      assert.equal(limiter.turns, 3);
      assert.equal(first.cursor, '{"date":"2026-09-25","back":"2026-09-23","complete":false}');
      assert.deepEqual(first.data.bars?.map((b) => [b.code, b.date]), [['AAPL', '2026-09-25']]);
      // Window 2026-09-11 .. 09-25: 11 weekdays (11; 14-18; 21-25). At 12 s a day: 132 s at the
      // start; after 3 days, 8 x 12 = 96 s, and the walk waits for the next run.
      assert.deepEqual([progress[0]?.phase, progress[0]?.unit, progress[0]?.done, progress[0]?.total, progress[0]?.etaSeconds], ['calling', 'days', 0, 11, 132]);
      assert.deepEqual([progress.at(-1)?.phase, progress.at(-1)?.done, progress.at(-1)?.etaSeconds], ['waiting', 3, 96]);
      assert.match(String(progress.at(-1)?.note), /3 days a run/);

      server.requests.length = 0;
      progress.length = 0;
      const second = await source.ingest(context({ ...at, cursor: first.cursor }));
      // 09-22 and 09-21 inside the plan; 09-18 answers NOT_AUTHORIZED: the plan's history ends there.
      assert.deepEqual(dates(server.requests), ['2026-09-22', '2026-09-21', '2026-09-18']);
      assert.equal(second.cursor, '{"date":"2026-09-25","back":"2026-09-21","complete":true}');
      assert.deepEqual([progress[0]?.done, progress.at(-1)?.phase], [3, 'done']);

      // Complete: the next run asks only sessions after the newest (none yet).
      server.requests.length = 0;
      const third = await source.ingest(context({ ...at, cursor: second.cursor }));
      assert.deepEqual(dates(server.requests), []);
      assert.equal(third.cursor, second.cursor);
    } finally {
      await server.close();
    }
  });
});
