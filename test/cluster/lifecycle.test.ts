// Operations: readiness and calls follow Redis and PostgreSQL going away and coming back (the
// servers are stopped and started: private ones, started by the test); shutdown finishes the
// requests in flight before closing pools; the first start loads in steps and stops cleanly.

import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { createServer } from 'node:net';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startInstance } from '../support/instance.js';
import { get, startTestServer, type TestServer } from '../support/server.js';
import { tempDir } from '../support/tmp.js';
import { until } from '../support/until.js';

const hasRedis = spawnSync('redis-server', ['--version']).status === 0;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const pong = () => spawnSync('redis-cli', ['-p', String(port), 'ping']).stdout?.toString().includes('PONG') ?? false;
  if (await until(pong, { timeoutMs: 5_000, intervalMs: 100 })) return child;
  child.kill('SIGKILL');
  throw new Error('redis did not start');
}

describe('readiness follows Redis', { skip: hasRedis ? false : 'redis-server is not installed (run scripts/test-services.sh)' }, () => {
  let t: TestServer;
  let redis: ChildProcess;
  let port: number;
  before(async () => {
    port = await freePort();
    redis = await startRedis(port);
    t = await startTestServer({ REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_KEY_PREFIX: 'lifecycle' });
  });
  after(async () => {
    await t.close();
    redis.kill('SIGKILL');
  });

  it('is ready with Redis up, 503 while it is down, ready again when it is back', async (t2) => {
    assert.equal((await get(`${t.url}/readyz`, null)).status, 200);
    const key = await t.newKey('paid');
    assert.equal((await get(`${t.url}/api/public/v2/health`, key)).status, 200);

    redis.kill('SIGKILL');
    assert.ok(await until(async () => (await get(`${t.url}/readyz`, null)).status === 503), 'readyz turned 503');
    const down = await get(`${t.url}/readyz`, null);
    assert.match(String((down.body as { detail: string }).detail), /redis unreachable/);
    await assertUnavailable(t.url, key, 'redis');

    redis = await startRedis(port);
    const back = Date.now();
    assert.ok(await until(async () => (await get(`${t.url}/readyz`, null)).status === 200), 'readyz back to 200');
    assert.ok(await until(async () => (await get(`${t.url}/api/public/v2/rankings`, key)).status === 200), 'calls served again');
    t2.diagnostic(`redis back: ready and serving ${Date.now() - back} ms after it started`);
  });
});

/** Both doors answer 503 with Retry-After and the documented code, naming no internals. */
async function assertUnavailable(url: string, key: string, dependency: string): Promise<void> {
  const rest = await get(`${url}/api/public/v2/rankings`, key);
  assert.equal(rest.status, 503, rest.text);
  assert.equal(rest.headers.get('retry-after'), '5');
  assert.match(rest.headers.get('content-type') ?? '', /^application\/problem\+json/);
  const problem = rest.body as { code: string; detail: string };
  assert.equal(problem.code, 'service_unavailable');
  assert.match(problem.detail, new RegExp(`the ${dependency} is not reachable`));
  assert.doesNotMatch(rest.text, /ECONN|at \/|select /i);
  const mcp = await fetch(`${url}/api/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_rankings', arguments: {} } }),
  });
  assert.equal(mcp.status, 503);
  assert.equal(mcp.headers.get('retry-after'), '5');
  const body = (await mcp.json()) as { error: { code: number; data: { code: string } } };
  assert.equal(body.error.code, -32053);
  assert.equal(body.error.data.code, 'service_unavailable');
  const ready = await get(`${url}/readyz`, null);
  assert.equal(ready.status, 503);
  assert.match(String((ready.body as { detail: string }).detail), new RegExp(`${dependency} (unreachable|did not answer)`));
}

// A private PostgreSQL server (initdb as the postgres user), so stopping it disturbs nobody.
const PG_BIN = (() => {
  const versions = spawnSync('ls', ['/usr/lib/postgresql']).stdout?.toString().trim().split('\n').filter(Boolean).sort((a, b) => Number(a) - Number(b));
  const v = versions?.at(-1);
  return v ? `/usr/lib/postgresql/${v}/bin` : null;
})();
const canRunPg = PG_BIN !== null && process.getuid?.() === 0 && spawnSync('id', ['postgres']).status === 0;

function asPostgres(command: string): void {
  const r = spawnSync('runuser', ['-u', 'postgres', '--', 'sh', '-c', command], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${command}: ${r.stderr}`);
}

describe('readiness and calls follow PostgreSQL', { skip: canRunPg ? false : 'needs root, the postgres user and PostgreSQL binaries' }, () => {
  let dir = '';
  let port = 0;
  let t: TestServer;
  const pgStart = () => asPostgres(`${PG_BIN}/pg_ctl -D ${dir}/data -l ${dir}/log -w -o "-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off" start`);
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-pg-'));
    chmodSync(dir, 0o777);
    port = await freePort();
    asPostgres(`${PG_BIN}/initdb -D ${dir}/data -U svc --auth=trust -E UTF8 >/dev/null`);
    pgStart();
    t = await startTestServer({ DATABASE_URL: `postgres://svc@127.0.0.1:${port}/postgres` });
  });
  after(async () => {
    await t?.close();
    try {
      asPostgres(`${PG_BIN}/pg_ctl -D ${dir}/data -m immediate stop`);
    } catch {
      // already stopped
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('is ready with PostgreSQL up; 503 with Retry-After while it is stopped; serves again when it is back', async (t2) => {
    const key = await t.newKey('paid');
    assert.equal((await get(`${t.url}/readyz`, null)).status, 200);
    assert.equal((await get(`${t.url}/api/public/v2/rankings`, key)).status, 200);

    asPostgres(`${PG_BIN}/pg_ctl -D ${dir}/data -m fast stop`);
    assert.ok(await until(async () => (await get(`${t.url}/readyz`, null)).status === 503), 'readyz turned 503');
    await assertUnavailable(t.url, key, 'database');
    assert.equal((await get(`${t.url}/healthz`, null)).status, 200, 'alive meanwhile');

    pgStart();
    const back = Date.now();
    assert.ok(await until(async () => (await get(`${t.url}/readyz`, null)).status === 200), 'readyz back to 200');
    assert.ok(await until(async () => (await get(`${t.url}/api/public/v2/rankings`, key)).status === 200), 'calls served again');
    t2.diagnostic(`postgresql back: ready and serving ${Date.now() - back} ms after it started`);
  });
});

describe('graceful shutdown', () => {
  it('finishes the requests in flight, then refuses new connections', async () => {
    const t = await startTestServer();
    const key = await t.newKey('paid');
    const codes = ((await get(`${t.url}/api/public/v2/rankings?market=KR,US&bands=mega,xlarge,large,mid,small&limit=30`, key)).body as { rows: { ticker: string }[] }).rows.map((r) => r.ticker);
    // Slow the real store's bar read (price history reads a stock's bar series) so every
    // request is inside its handler when shutdown starts.
    const store = t.app.store.market as unknown as { barSeries: (...args: never[]) => Promise<unknown> };
    const bars = store.barSeries.bind(t.app.store.market);
    let entered = 0;
    store.barSeries = async (...args: never[]) => {
      entered++;
      await new Promise((r) => setTimeout(r, 500));
      return bars(...args);
    };
    const inFlight = codes.map((code) => get(`${t.url}/api/public/v2/stocks/${code}/prices?limit=2600`, key));
    if (!(await until(() => entered === codes.length, { timeoutMs: 5_000 }))) {
      // Close anyway: a server left open would keep this file's process (and the suite) alive.
      await t.close();
      assert.fail(`all requests are in their handlers (${entered} of ${codes.length})`);
    }
    const closing = t.close();
    const results = await Promise.all(inFlight);
    await closing;
    assert.deepEqual(new Set(results.map((r) => r.status)), new Set([200]));
    await assert.rejects(fetch(`${t.url}/healthz`));
  });
});

describe('the first start loads in steps and stops cleanly', () => {
  it('answers /healthz while the demo universe loads; SIGTERM rolls the load back and exits 0 within 10 s', { timeout: 120_000 }, async (t) => {
    const tmp = tempDir();
    let instance: Awaited<ReturnType<typeof startInstance>> | undefined;
    try {
      const env = { DATA_DIR: tmp.dir, PORT: '0', DEMO_SCALE: '0.3', REFRESH_SCHEDULE: 'off', LOG_LEVEL: 'warn' };
      instance = await startInstance(env);
      const latencies: number[] = [];
      let loading = 0;
      const deadline = Date.now() + 60_000;
      // Probe while /readyz says the load is under way, then stop in the middle of it.
      while (Date.now() < deadline && loading < 40) {
        const started = performance.now();
        const res = await fetch(`${instance.url}/healthz`);
        await res.text();
        const ms = performance.now() - started;
        const ready = (await (await fetch(`${instance.url}/readyz`)).json()) as { detail?: string };
        if (/loading the demo universe: \d+ of/.test(ready.detail ?? '')) {
          loading++;
          latencies.push(ms);
        }
        await new Promise((r) => setTimeout(r, 25));
      }
      assert.ok(loading >= 40, 'probed during the load');
      latencies.sort((a, b) => a - b);
      const p95 = latencies[Math.floor(latencies.length * 0.95)] ?? Infinity;
      const max = latencies.at(-1) ?? Infinity;
      t.diagnostic(`healthz during the load: ${latencies.length} probes, median ${latencies[latencies.length >> 1]?.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${max.toFixed(1)} ms`);
      assert.ok(p95 < 100, `p95 ${p95} ms`);
      const sent = Date.now();
      const code = await instance.stop('SIGTERM');
      const stopMs = Date.now() - sent;
      t.diagnostic(`SIGTERM during the load: exit ${code} after ${stopMs} ms`);
      assert.equal(code, 0);
      assert.ok(stopMs < 10_000);
      const db = new Database(join(tmp.dir, 'service.sqlite'), { readonly: true });
      const count = (table: string) => (db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
      assert.deepEqual([count('securities'), count('bars'), count('reports'), count('refresh_claims')], [0, 0, 0, 0], 'nothing of the load is kept, nor its claim');
      db.close();
    } finally {
      // A failed check must not leave the service running (it would keep this file alive).
      await instance?.stop('SIGKILL');
      tmp.cleanup();
    }
  });
});
