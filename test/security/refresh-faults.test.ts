// Upstream faults during refresh, against a service that already serves a dataset: a source
// behind a loopback HTTP server that answers 500, hangs past the timeout, sends truncated or
// wrong-shaped JSON or a 429; a source that never settles and ignores its abort signal; a
// source whose records fail inside the store's transaction. In every case the previous data
// keeps being served, nothing half-written is visible, and the failure is reported
// (Refresher.sourceStatus, the refresh_runs table, health). An upstream body over the cap
// (declared, or streamed without a length) is refused the same way. Then a process SIGKILLed in the
// middle of a large ingest: the store reopens and migrates, with all of the write or none.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import type { DailyBar } from '../../src/domain/model.js';
import { Refresher } from '../../src/refresh/pipeline.js';
import { clientForRun } from '../../src/sources/http.js';
import type { Source, SourceContext, SourceResult } from '../../src/sources/source.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { get, startTestServer, type TestServer } from '../support/server.js';
import { tempDir } from '../support/tmp.js';
import { until } from '../support/until.js';

type Fault = 'none' | '500' | 'hang' | 'truncated' | 'wrong-shape' | '429' | 'oversized' | 'oversized-chunked';

/** The body cap of the source that reads through the shared HttpClient, and what the oversized faults send. */
const BODY_CAP = 65_536;
const OVERSIZED = 16 * 65_536;

/** A loopback upstream whose behaviour the test switches. */
class Upstream {
  fault: Fault = 'none';
  closes = 0;
  readonly server: http.Server;
  constructor(private readonly payload: () => unknown) {
    this.server = http.createServer((req, res) => {
      req.on('close', () => this.closes++);
      const body = JSON.stringify(this.payload());
      switch (this.fault) {
        case '500':
          res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error at upstream');
          return;
        case '429':
          res.writeHead(429, { 'retry-after': '120', 'content-type': 'application/json' }).end('{"error":"rate limit"}');
          return;
        case 'hang':
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write(body.slice(0, 10)); // and never more
          return;
        case 'truncated':
          res.writeHead(200, { 'content-type': 'application/json' }).end(body.slice(0, Math.floor(body.length / 2)));
          return;
        case 'oversized': {
          // A JSON body of 1 MiB that says its length.
          const big = JSON.stringify({ bars: [], pad: 'x'.repeat(OVERSIZED) });
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(big)) }).end(big);
          return;
        }
        case 'oversized-chunked': {
          // 1 MiB in 64 KiB chunks, no length: only counting the bytes as they come can stop it.
          res.writeHead(200, { 'content-type': 'application/json' });
          const chunk = Buffer.alloc(65_536, 0x20);
          let sent = 0;
          const more = (): void => {
            while (sent < OVERSIZED && !res.destroyed) {
              sent += chunk.length;
              if (!res.write(chunk)) return void res.once('drain', more);
            }
            res.end();
          };
          more();
          return;
        }
        case 'wrong-shape':
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { rows: 'none' }, bars: [{ date: 20261120, close: 'n/a' }] }));
          return;
        default:
          res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      }
    });
  }
  async listen(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/bars`;
  }
  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

/** Fetches bars over HTTP and parses them the way an adapter does: anything unexpected throws. */
class HttpBarsSource implements Source {
  readonly name = 'faulty';
  constructor(private readonly url: string) {}
  async ingest(ctx: SourceContext): Promise<SourceResult> {
    const res = await ctx.fetch(this.url, ctx.signal ? { signal: ctx.signal } : {});
    if (res.status === 429) throw new Error(`rate limited (429); retry after ${res.headers.get('retry-after') ?? '?'} s`);
    if (!res.ok) throw new Error(`upstream answered ${res.status}`);
    const body = (await res.json()) as { bars?: unknown };
    if (!Array.isArray(body.bars)) throw new Error('malformed response: no bars array');
    const bars = body.bars.map((b: Partial<DailyBar>) => {
      if (typeof b.code !== 'string' || typeof b.date !== 'string' || typeof b.close !== 'number' || !Number.isFinite(b.close)) throw new Error('malformed bar');
      return b as DailyBar;
    });
    return { data: { bars }, cursor: ctx.asOf };
  }
}

/** The same bars read through the adapters' shared HttpClient (src/sources/http.ts), with a 64 KiB body cap. */
class ClientBarsSource implements Source {
  readonly name = 'faulty';
  constructor(private readonly url: string) {}
  async ingest(ctx: SourceContext): Promise<SourceResult> {
    const http = clientForRun(this.name, ctx, { retries: 0, maxBodyBytes: BODY_CAP });
    const body = (await http.getJson(this.url)) as { bars?: DailyBar[] };
    if (!Array.isArray(body.bars)) throw http.parseError('no bars array', this.url);
    return { data: { bars: body.bars }, cursor: ctx.asOf };
  }
}

/** Never settles, and ignores the abort signal: only the pipeline's own timeout ends it. */
class StuckSource implements Source {
  readonly name = 'stuck';
  ingest(): Promise<SourceResult> {
    return new Promise(() => undefined);
  }
}

/** Valid records first, then one the store must refuse: the transaction must roll back whole. */
class PoisonSource implements Source {
  readonly name = 'poison';
  constructor(private readonly bars: DailyBar[]) {}
  async ingest(): Promise<SourceResult> {
    // A bar the store refuses (volume is NOT NULL). A record for an unknown security is not
    // refused: it is skipped and counted (test/refresh/pipeline.test.ts).
    const poison: DailyBar = { ...this.bars[0]!, date: '2000-01-03', volume: null as unknown as number };
    return { data: { bars: [...this.bars, poison] }, cursor: 'poison' };
  }
}

describe('refresh faults', () => {
  let t: TestServer;
  let key: string;
  let upstream: Upstream;
  let url: string;
  let code: string;
  let securityId: number;
  let lastBar: DailyBar;
  const silent = pino({ level: 'silent' });

  /** What the service serves for the stock and the rankings, without timestamps. */
  const served = async (): Promise<string> => {
    const score = (await get(`${t.url}/api/public/v2/stocks/${code}/score`, key)).body as Record<string, unknown>;
    const prices = (await get(`${t.url}/api/public/v2/stocks/${code}/prices?limit=5`, key)).body as Record<string, unknown>;
    const rankings = (await get(`${t.url}/api/public/v2/rankings?market=KR,US&limit=200`, key)).body as Record<string, unknown>;
    const strip = ({ updatedAt: _u, ...rest }: Record<string, unknown>) => rest;
    return JSON.stringify([strip(score), strip(prices), strip(rankings)]);
  };
  const tick = () => {
    t.clock.now = new Date(t.clock.now.getTime() + 1_000);
  };

  before(async () => {
    t = await startTestServer();
    // These tests run their own Refresher, whose versions the app's publisher serves with the
    // run's source states. The app's version poll would see each new version too and could
    // serve it first with the states it knew before: one refresh tells it, so stop the poll.
    t.app.refresher.stop();
    t.app.publisher.stop();
    key = await t.newKey('paid');
    const security = (await t.app.store.market.securities()).find((s) => s.market === 'KR')!;
    code = security.code;
    securityId = security.id;
    lastBar = (await t.app.store.market.bars(securityId)).at(-1)!;
    // On success the upstream moves the latest close up by 7%: a visible change.
    upstream = new Upstream(() => ({ bars: [{ ...lastBar, close: Math.round(lastBar.close * 1.07), high: Math.round(lastBar.close * 1.07), source: 'faulty' }] }));
    url = await upstream.listen();
  });
  after(async () => {
    await upstream.close();
    await t.close();
  });

  for (const fault of ['500', 'hang', 'truncated', 'wrong-shape', '429', 'oversized', 'oversized-chunked'] as const) {
    it(`a ${fault} upstream: previous data served, failure reported`, async () => {
      const source = fault.startsWith('oversized') ? new ClientBarsSource(url) : new HttpBarsSource(url);
      const refresher = new Refresher(t.app.store, [source], () => t.clock.now, silent, { onPublish: (v, s) => t.app.publisher.publish(v, s), sourceTimeoutMs: fault.startsWith('oversized') ? 5_000 : 400 });
      const before = await served();
      const versionBefore = t.app.holder.current?.version ?? 0;
      const barsBefore = await t.app.store.market.bars(securityId);
      const cursorBefore = await t.app.store.refresh.getMeta('cursor:faulty');
      const closesBefore = upstream.closes;
      upstream.fault = fault;
      tick();
      const started = performance.now();
      const report = await refresher.run();
      const ms = performance.now() - started;

      const status = report.sources[0];
      assert.equal(status?.ok, false, `${fault}: reported as failed`);
      assert.match(
        status?.error ?? '',
        {
          '500': /500/,
          hang: /timed out|abort/i,
          truncated: /JSON|Unexpected|Unterminated/i,
          'wrong-shape': /malformed/,
          '429': /429/,
          // The length of {"bars":[],"pad":"<1,048,576 x>"}: 18 + 1,048,576 + 2 bytes.
          oversized: new RegExp(`^faulty: response body too large from ${url}: Content-Length 1048596 \\(limit 65536 bytes\\)$`),
          'oversized-chunked': new RegExp(`^faulty: response body too large from ${url}: more than 65536 bytes sent \\(limit 65536 bytes\\)$`),
        }[fault],
      );
      assert.deepEqual(refresher.sourceStatus, report.sources);
      const [run] = await t.app.store.refresh.refreshRuns(1);
      // The run's one source failed: nothing new came in, so the run is `failed` (runOutcome).
      assert.equal(run?.status, 'failed');
      assert.match(run?.detail ?? '', /"ok":false/);
      if (fault === 'hang') {
        assert.ok(ms < 5_000, `the hang was cut off by the timeout (${Math.round(ms)} ms)`);
        // The abort reached the HTTP request: the upstream saw its socket close.
        assert.ok(await until(() => upstream.closes > closesBefore, { timeoutMs: 1_000 }), 'the hung request was aborted');
      }
      // A new version with the same data; nothing written; the cursor did not move.
      assert.ok((t.app.holder.current?.version ?? 0) > versionBefore);
      assert.equal(await served(), before);
      assert.deepEqual(await t.app.store.market.bars(securityId), barsBefore);
      assert.equal(await t.app.store.refresh.getMeta('cursor:faulty'), cursorBefore);
      const health = (await get(`${t.url}/api/public/v2/health`, key)).body as { sources: { source: string; ok: boolean }[] };
      assert.deepEqual(health.sources.map((s) => [s.source, s.ok]), [['faulty', false]]);
      const ready = (await get(`${t.url}/readyz`, null)).body as { status: string };
      assert.equal(ready.status, 'degraded');
    });
  }

  it('a source that never settles and ignores its signal is abandoned at the timeout', async () => {
    const refresher = new Refresher(t.app.store, [new StuckSource()], () => t.clock.now, silent, { onPublish: (v, s) => t.app.publisher.publish(v, s), sourceTimeoutMs: 300 });
    const before = await served();
    tick();
    const started = performance.now();
    const report = await refresher.run();
    assert.ok(performance.now() - started < 3_000);
    assert.equal(report.sources[0]?.ok, false);
    assert.match(report.sources[0]?.error ?? '', /timed out after 300 ms/);
    assert.equal(await served(), before);
    assert.equal((await t.app.store.refresh.refreshRuns(1))[0]?.status, 'failed', 'its one source failed');
  });

  it("a record the store refuses rolls back the source's whole write", async () => {
    const bars = (await t.app.store.market.bars(securityId)).slice(-30).map((b) => ({ ...b, close: b.close * 3, high: b.high * 3, source: 'poison' }));
    const refresher = new Refresher(t.app.store, [new PoisonSource(bars)], () => t.clock.now, silent, { onPublish: (v, s) => t.app.publisher.publish(v, s), sourceTimeoutMs: 5_000 });
    const before = await served();
    const stored = await t.app.store.market.bars(securityId);
    tick();
    const report = await refresher.run();
    assert.equal(report.sources[0]?.ok, false);
    assert.equal(report.sources[0]?.error, 'the store refused the records of this run (none kept; details in the log)');
    assert.deepEqual(await t.app.store.market.bars(securityId), stored, 'none of the 30 valid bars landed');
    assert.equal(await served(), before);
    assert.equal(await t.app.store.refresh.getMeta('cursor:poison'), null);
  });

  it('after the faults, a healthy upstream refreshes (the checks above can see a change)', async () => {
    const refresher = new Refresher(t.app.store, [new HttpBarsSource(url)], () => t.clock.now, silent, { onPublish: (v, s) => t.app.publisher.publish(v, s), sourceTimeoutMs: 2_000 });
    const before = await served();
    upstream.fault = 'none';
    tick();
    const report = await refresher.run();
    assert.deepEqual(report.sources.map((s) => [s.ok, s.records]), [[true, 1]]);
    assert.notEqual(await served(), before);
    assert.equal((await t.app.store.market.bars(securityId)).at(-1)?.close, Math.round(lastBar.close * 1.07));
    assert.equal((await t.app.store.refresh.refreshRuns(1))[0]?.status, 'ok');
    assert.equal(((await get(`${t.url}/readyz`, null)).body as { status: string }).status, 'ready');
  });
});

describe('SIGKILL in the middle of a large ingest', () => {
  const tmp = tempDir('svc-kill-');
  after(() => tmp.cleanup());

  /** Runs the writer; kills it with SIGKILL once it has streamed `killAfter` parts (null: let it finish). */
  function writer(file: string, securities: number, barsPer: number, killAfter: number | null): Promise<{ base: number; parts: number; done: boolean; signal: NodeJS.Signals | null }> {
    const script = join(import.meta.dirname, 'fixtures', 'kill-writer.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', script, file, String(securities), String(barsPer)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let base = -1;
    let parts = 0;
    let done = false;
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line.startsWith('BASE ')) base = Number(line.slice(5));
        if (line.startsWith('PART ')) parts = Number(line.slice(5));
        if (line === 'DONE') done = true;
        if (killAfter !== null && parts >= killAfter && !child.killed) child.kill('SIGKILL');
      }
    });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error('writer took too long'));
      }, 60_000);
      child.on('exit', (_code, signal) => {
        clearTimeout(timer);
        resolve({ base, parts, done, signal });
      });
    });
  }

  async function counts(file: string): Promise<{ securities: number; killtest: number; killBars: number; version: number }> {
    const store = await openSqliteStore(file); // opens and migrates
    try {
      const securities = await store.market.securities();
      const kill = securities.filter((s) => s.source === 'killtest');
      const first = kill[0];
      return {
        securities: securities.length,
        killtest: kill.length,
        killBars: first === undefined ? 0 : (await store.market.bars(first.id)).length + (kill.length > 1 ? (await store.market.bars(kill.at(-1)!.id)).length : 0),
        version: await store.refresh.datasetVersion(),
      };
    } finally {
      await store.close();
    }
  }

  it('leaves none of the write after a kill, at an early and a late point, and all of it when not killed', async () => {
    const file = join(tmp.dir, 'kill.sqlite');
    for (const killAfter of [3, 100]) {
      const run = await writer(file, 120, 1_500, killAfter);
      assert.equal(run.signal, 'SIGKILL', `killed after ${killAfter} parts`);
      assert.equal(run.done, false);
      assert.ok(run.base > 0 && run.parts >= killAfter);
      const after = await counts(file);
      assert.equal(after.securities, run.base, `killed after ${run.parts} of 120 parts: the committed demo universe is intact`);
      assert.equal(after.killtest, 0, 'no security of the interrupted write');
      assert.equal(after.killBars, 0);
    }
    const complete = await writer(file, 120, 1_500, null);
    assert.equal(complete.done, true);
    const after = await counts(file);
    assert.equal(after.killtest, 120, 'an uninterrupted write lands whole');
    assert.equal(after.killBars, 3_000);
    assert.equal(after.securities, complete.base + 120);
  });
});
