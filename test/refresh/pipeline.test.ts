// The refresh pipeline with a scripted source: idempotent ingest, the cursor handed back,
// an atomic swap under concurrent reads, and the CLI's refresh and backfill commands.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import pino from 'pino';
import type { DailyBar } from '../../src/domain/model.js';
import { seoulDay as seoulDayOf } from '../../src/kernel/clock.js';
import { formatSourceRuns } from '../../src/cli/sources.js';
import { Refresher } from '../../src/refresh/pipeline.js';
import { ProgressBoard } from '../../src/refresh/progress.js';
import type { Source, SourceContext, SourceResult } from '../../src/sources/source.js';
import { get, startTestServer, type TestServer } from '../support/server.js';
import { tempDir } from '../support/tmp.js';

const run = promisify(execFile);

/** A source that, on run n, re-issues the latest bar of one stock with close = base + n. */
class PriceBumpSource implements Source {
  readonly name = 'scripted';
  runs = 0;
  cursors: (string | null)[] = [];
  constructor(private readonly bar: DailyBar) {}
  async ingest(ctx: SourceContext): Promise<SourceResult> {
    this.cursors.push(ctx.cursor);
    this.runs++;
    const close = this.bar.close + this.runs;
    return {
      data: { bars: [{ ...this.bar, close, high: Math.max(this.bar.high, close), marketCap: close * this.bar.shares, source: 'scripted' }] },
      cursor: `run-${this.runs}`,
    };
  }
}

describe('refresh pipeline', () => {
  let t: TestServer;
  let key: string;
  let code: string;
  let source: PriceBumpSource;
  let refresher: Refresher;

  before(async () => {
    t = await startTestServer();
    key = await t.newKey('paid');
    const rows = (await get(`${t.url}/api/public/v2/rankings?market=KR&bands=mega,xlarge,large,mid,small&limit=1`, key)).body as { rows: { ticker: string }[] };
    code = rows.rows[0]!.ticker;
    const security = (await t.app.store.market.securities()).find((s) => s.code === code)!;
    const bars = await t.app.store.market.bars(security.id);
    source = new PriceBumpSource(bars.at(-1)!);
    refresher = new Refresher(t.app.store, t.app.holder, [source], () => t.clock.now, pino({ level: 'silent' }), { sourceLabel: 'scripted' });
  });
  after(() => t.close());

  it('hands the last cursor back and stores a source run idempotently', async () => {
    const security = (await t.app.store.market.securities()).find((s) => s.code === code)!;
    const countBefore = (await t.app.store.market.bars(security.id)).length;
    const first = await refresher.run();
    assert.deepEqual(first.sources.map((s) => [s.source, s.ok, s.records]), [['scripted', true, 1]]);
    const second = await refresher.run();
    assert.equal(second.version, (first.version ?? 0) + 1);
    assert.deepEqual(source.cursors, [null, 'run-1']);
    const after = await t.app.store.market.bars(security.id);
    assert.equal(after.length, countBefore, 'the re-issued bar replaced the stored one; no duplicate row');
    assert.equal(after.at(-1)?.close, source['bar'].close + 2);
  });

  it('gives each source the store\'s listed codes of a market (ctx.universe)', async () => {
    const seen: Record<string, readonly string[]> = {};
    const listing: Source = {
      name: 'listing',
      async ingest(ctx) {
        seen['KR'] = (await ctx.universe?.('KR')) ?? [];
        seen['US'] = (await ctx.universe?.('US')) ?? [];
        return { data: {}, cursor: 'listed' };
      },
    };
    await new Refresher(t.app.store, t.app.holder, [listing], () => t.clock.now, pino({ level: 'silent' }), { sourceLabel: 'listing' }).run();
    const stored = await t.app.store.market.securities();
    for (const market of ['KR', 'US'] as const) {
      assert.deepEqual(seen[market], stored.filter((x) => x.market === market).map((x) => x.code));
      assert.ok((seen[market]?.length ?? 0) > 0);
    }
    assert.ok(seen['KR']?.includes(code));
  });

  it('never shows a half-built dataset to concurrent readers', async () => {
    // Each refresh moves the clock one second, so a response's updatedAt names its snapshot,
    // and that snapshot's price is known: the pair must always match.
    const expected = new Map<string, number>();
    const record = () => {
      const current = t.app.holder.current!;
      expected.set(current.updatedAt, current.stock(code).price!.close);
    };
    record();
    let stop = false;
    const seen: { updatedAt: string; price: number; status: number }[] = [];
    const readers = Array.from({ length: 8 }, async () => {
      while (!stop) {
        const res = await get(`${t.url}/api/public/v2/stocks/${code}/score`, key);
        const b = res.body as { updatedAt: string; currentPrice: number };
        seen.push({ updatedAt: b.updatedAt, price: b.currentPrice, status: res.status });
      }
    });
    for (let i = 0; i < 5; i++) {
      t.clock.now = new Date(t.clock.now.getTime() + 1000);
      await refresher.run();
      record();
      await new Promise((r) => setTimeout(r, 30));
    }
    stop = true;
    await Promise.all(readers);
    assert.ok(seen.length > 20, `readers made ${seen.length} requests`);
    assert.ok(seen.every((s) => s.status === 200));
    for (const s of seen) assert.equal(s.price, expected.get(s.updatedAt), `snapshot ${s.updatedAt}`);
    assert.ok(new Set(seen.map((s) => s.updatedAt)).size >= 3, 'readers saw several snapshots');
  });
});

/** Returns a bar of a known stock, two of a company nobody placed, and the adapter's own skips. */
class PartlyUnplacedSource implements Source {
  readonly name = 'partial';
  cursors: (string | null)[] = [];
  constructor(private readonly bar: DailyBar) {}
  async ingest(ctx: SourceContext): Promise<SourceResult> {
    this.cursors.push(ctx.cursor);
    const stray = { ...this.bar, code: '000001', source: 'partial' };
    return {
      data: { bars: [{ ...this.bar, source: 'partial' }, stray, { ...stray, date: '2000-01-04' }] },
      cursor: ctx.range ? `backfill-${ctx.range.to}` : `hourly-${ctx.asOf}`,
      skipped: { 'company.json status 013': 3 },
    };
  }
}

describe('refresh accounting: skipped records and the backfill cursor', () => {
  let t: TestServer;
  let bar: DailyBar;

  before(async () => {
    t = await startTestServer();
    const security = (await t.app.store.market.securities()).find((s) => s.market === 'KR')!;
    bar = (await t.app.store.market.bars(security.id)).at(-1)!;
  });
  after(() => t.close());

  it('stores what can be placed, counts the rest with its reason, and records it per run', async () => {
    const source = new PartlyUnplacedSource(bar);
    const refresher = new Refresher(t.app.store, t.app.holder, [source], () => t.clock.now, pino({ level: 'silent' }), { sourceLabel: 'partial' });
    const report = await refresher.run();
    const [status] = report.sources;
    assert.deepEqual(
      { ok: status?.ok, records: status?.records, skipped: status?.skipped, examples: status?.skippedExamples },
      { ok: true, records: 1, skipped: { 'company.json status 013': 3, 'bars: unknown security': 2 }, examples: ['KR:000001'] },
    );
    assert.equal(await t.app.store.refresh.getMeta('cursor:partial'), `hourly-${seoulDayOf(t.clock.now)}`, 'the cursor moves past what succeeded');
    // health keeps its shape: no skipped counts there.
    assert.deepEqual(Object.keys(t.app.holder.current!.sources[0]!).sort(), ['at', 'ok', 'records', 'source']);
    const [latest] = await t.app.store.refresh.refreshRuns(1);
    assert.equal(latest?.status, 'ok');
    const printed = formatSourceRuns([latest!]);
    assert.match(printed, /partial {3}ok {5}taken 1, skipped 5\n {6} {6}3 {2}company\.json status 013\n {6} {6}2 {2}bars: unknown security\n {6}e\.g\. KR:000001\n$/);
  });

  it('a backfill leaves the incremental cursor where the hourly runs left it', async () => {
    const source = new PartlyUnplacedSource(bar);
    const hourly = new Refresher(t.app.store, t.app.holder, [source], () => t.clock.now, pino({ level: 'silent' }), { sourceLabel: 'partial' });
    await hourly.run();
    const cursor = await t.app.store.refresh.getMeta('cursor:partial');
    const backfill = new Refresher(t.app.store, t.app.holder, [source], () => t.clock.now, pino({ level: 'silent' }), {
      sourceLabel: 'partial',
      range: { from: '2010-01-01', to: '2010-12-31' },
    });
    const report = await backfill.run();
    assert.equal(report.sources[0]?.ok, true);
    assert.equal(await t.app.store.refresh.getMeta('cursor:partial'), cursor);
    await hourly.run();
    assert.equal(source.cursors[1], cursor, 'the backfill was handed the hourly cursor');
    assert.equal(source.cursors.at(-1), cursor, 'the next hourly run continues from the hourly cursor, not the backfill');
  });

  it('reports the longest the recompute held the event loop (what requests waited on it)', async () => {
    // A store whose securities read holds the thread for 120 ms, as a long synchronous SQLite read would.
    const market = t.app.store.market;
    const slow = Object.create(market) as typeof market;
    slow.securities = async () => {
      const until = performance.now() + 120;
      while (performance.now() < until);
      return market.securities();
    };
    const store = { market: slow, refresh: t.app.store.refresh };
    const report = await new Refresher(store, t.app.holder, [], () => t.clock.now, pino({ level: 'silent' }), { sourceLabel: 'stall' }).run();
    assert.ok(report.timings.maxStallMs >= 100, `stall of ${report.timings.maxStallMs} ms reported`);
    const quick = await new Refresher(t.app.store, t.app.holder, [], () => t.clock.now, pino({ level: 'silent' }), { sourceLabel: 'stall' }).run();
    assert.ok(quick.timings.maxStallMs < report.timings.maxStallMs, `${quick.timings.maxStallMs} ms without the slow read`);
  });

  it('prints a failed source and a run without detail', () => {
    const out = formatSourceRuns([
      { id: 7, startedAt: '2026-11-23T01:00:00.000Z', finishedAt: '2026-11-23T01:00:05.000Z', status: 'partial', detail: JSON.stringify([{ source: 'sec', ok: false, at: 'x', error: 'timed out after 600000 ms' }, { source: 'fsc', ok: true, at: 'x', records: 12 }]) },
      { id: 6, startedAt: '2026-11-23T00:00:00.000Z', finishedAt: null, status: 'running', detail: '' },
    ]);
    assert.equal(
      out,
      'run 7  2026-11-23T10:00:00+09:00  partial\n  sec       FAILED timed out after 600000 ms\n  fsc       ok     taken 12, skipped 0\n' +
        'run 6  2026-11-23T09:00:00+09:00  running (not finished)\n  (no per-source detail)\n',
    );
    assert.equal(formatSourceRuns([]), 'no refresh run recorded yet\n');
  });
});

describe('refresh: a source that paces a long walk itself', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  /** Walks 45 of 520 days a run and says the rest continues next run, as the price adapters do. */
  const walking: Source = {
    name: 'walking',
    timeoutMs: 60_000,
    ingest: async (ctx: SourceContext): Promise<SourceResult> => {
      ctx.progress?.({ phase: 'calling', unit: 'days', done: 0, total: 520 });
      ctx.progress?.({ phase: 'waiting', done: 45, total: 520, etaSeconds: 5_700, note: 'the history walk continues next run' });
      return { data: {}, cursor: 'day-45' };
    },
  };
  /** Never answers: only a timeout ends it. */
  const hanging = (timeoutMs?: number): Source => ({ name: 'hanging', ...(timeoutMs === undefined ? {} : { timeoutMs }), ingest: () => new Promise<SourceResult>(() => undefined) });

  it('keeps what the source said of the rest (waiting, its ETA) instead of marking it done', async () => {
    const board = new ProgressBoard(() => t.clock.now);
    await new Refresher(t.app.store, t.app.holder, [walking], () => t.clock.now, pino({ level: 'silent' }), { sourceLabel: 'walk', progress: board }).run();
    const p = board.snapshot().find((e) => e.source === 'walking');
    assert.deepEqual([p?.phase, p?.done, p?.total, p?.etaSeconds, p?.note], ['waiting', 45, 520, 5_700, 'the history walk continues next run']);
  });

  it("gives a source its own time when it names one, and the refresher's when the caller set one", async () => {
    const own = await new Refresher(t.app.store, t.app.holder, [hanging(300)], () => t.clock.now, pino({ level: 'silent' }), { sourceLabel: 'own' }).run();
    assert.deepEqual(own.sources.map((s) => [s.ok, s.error]), [[false, 'timed out after 300 ms']]);
    const set = await new Refresher(t.app.store, t.app.holder, [hanging(60_000)], () => t.clock.now, pino({ level: 'silent' }), { sourceLabel: 'set', sourceTimeoutMs: 200 }).run();
    assert.deepEqual(set.sources.map((s) => [s.ok, s.error]), [[false, 'timed out after 200 ms']]);
  });
});

describe('CLI refresh and backfill', () => {
  it('runs one refresh and reports it; backfill validates its range', async () => {
    const tmp = tempDir();
    try {
      const env = { ...process.env, DATA_DIR: tmp.dir, DEMO_SCALE: '0.05', LOG_LEVEL: 'silent' };
      // The store is empty: `refresh` with no sources configured has nothing to ingest.
      const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'refresh'], { env });
      const report = JSON.parse(stdout) as { ran: boolean; version: number; sources: unknown[] };
      assert.deepEqual([report.ran, report.version, report.sources], [true, 1, []]);
      await assert.rejects(run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'backfill', '--from', '2024-02-01', '--to', '2024-01-01'], { env }), (err: { code?: number; stderr?: string }) => err.code === 2 && /from <= to/.test(err.stderr ?? ''));
      const created = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'keys', 'create', '--plan', 'paid', '--name', 'ci'], { env });
      const key = created.stdout.trim().split('\n').at(-1)!;
      assert.match(key, /^sk_live_[A-Za-z0-9_-]{43}$/);
      const listed = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'keys', 'list'], { env });
      assert.ok(listed.stdout.includes(key.slice(0, 16)) && !listed.stdout.includes(key), 'lists the prefix, never the key');
      // Times in +09:00, as every time the service shows.
      assert.match(listed.stdout, new RegExp(`${key.slice(0, 16)} +paid +active +\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\+09:00 +- `));
      const revoked = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'keys', 'revoke', key.slice(0, 16)], { env });
      assert.match(revoked.stdout, /revoked/);
      const plan = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'keys', 'plan', key.slice(0, 16), 'free'], { env });
      assert.match(plan.stdout, /free plan/);
      const sources = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'sources', '--runs', '3'], { env });
      assert.match(sources.stdout, /^terms \(docs\/sources\.md, "Terms of each source"\)\n {2}demo {2}terms: [^\n]+\n\nrun 1 {2}\S+ {2}ok\n {2}\(no upstream source configured: embedded demo data\)\n$/);
      await assert.rejects(run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'sources', '--runs', '0'], { env }), (err: { code?: number }) => err.code === 2);
    } finally {
      tmp.cleanup();
    }
  });
});
