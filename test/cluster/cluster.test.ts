// Two API instances (separate processes) on one PostgreSQL and one Redis, as behind a load
// balancer: they share a key's quota exactly, run each scheduled refresh once between them,
// and both serve the new snapshot afterwards.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import { freshSchema, PG_SKIP, REDIS_SKIP, TEST_REDIS_URL } from '../support/pg.js';
import { startInstance, waitReady, type Instance } from '../support/instance.js';
import { until } from '../support/until.js';
import { tempDir } from '../support/tmp.js';

const run = promisify(execFile);
const skip = PG_SKIP || REDIS_SKIP;

describe('two instances on one PostgreSQL and Redis', { skip }, () => {
  const tmp = tempDir();
  let schema: { url: string; drop: () => Promise<void> };
  let a: Instance;
  let b: Instance;
  let env: Record<string, string>;
  let db: pg.Client;

  before(async () => {
    schema = await freshSchema();
    env = {
      DATABASE_URL: schema.url,
      REDIS_URL: TEST_REDIS_URL ?? '',
      REDIS_KEY_PREFIX: `c${randomBytes(6).toString('hex')}`,
      DATA_DIR: tmp.dir,
      PORT: '0',
      DEMO_SCALE: '0.05',
      FREE_DAILY_QUOTA: '5',
      FREE_BURST_PER_SECOND: '1000',
      // Every 3 seconds, so the test sees scheduled runs; both instances fire together.
      REFRESH_CRON: '*/3 * * * * *',
      LOG_LEVEL: 'warn',
    };
    // Started together on an empty database: one loads the demo universe, the other waits.
    [a, b] = await Promise.all([startInstance(env), startInstance(env)]);
    await Promise.all([waitReady(a.url), waitReady(b.url)]);
    db = new pg.Client({ connectionString: schema.url });
    await db.connect();
  });

  after(async () => {
    await Promise.all([a, b].map((i) => i?.stop()));
    await db?.end();
    await schema?.drop();
    tmp.cleanup();
  });

  it('loaded the demo universe once', async () => {
    const claims = await db.query<{ slot: string }>("select slot from refresh_claims where slot = 'bootstrap'");
    assert.equal(claims.rowCount, 1);
    const securities = await db.query<{ n: string }>('select count(*) as n from securities');
    assert.ok(Number(securities.rows[0]?.n) > 10);
  });

  it("shares a key's daily quota exactly across instances", async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'keys', 'create', '--plan', 'free'], { env: { ...process.env, ...env } });
    const key = stdout.trim().split('\n').at(-1) ?? '';
    assert.match(key, /^sk_live_/);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const target = i % 2 === 0 ? a : b;
      const res = await fetch(`${target.url}/api/public/v2/exports/total`, { headers: { authorization: `Bearer ${key}` } });
      statuses.push(res.status);
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429, 429], 'five calls in total, then 429 on both');
    const health = (await (await fetch(`${b.url}/api/public/v2/health`, { headers: { authorization: `Bearer ${key}` } })).json()) as { callsToday: number };
    assert.equal(health.callsToday, 6, 'five calls plus this health call, counted once in Redis');
  });

  it('runs each scheduled refresh once and both instances serve the new snapshot', async () => {
    const before = (await db.query<{ value: string }>("select value from meta where key = 'dataset_version'")).rows[0]?.value;
    const finishedRuns = async () => Number((await db.query<{ n: string }>("select count(*) as n from refresh_runs where status <> 'running'")).rows[0]?.n);
    // Wait for at least two scheduled slots to pass from now (runs before this test, on a slow
    // machine, do not count: they published versions before \`before\` was read).
    const runsBefore = await finishedRuns();
    let runs = 0;
    const twoRuns = async () => (runs = (await finishedRuns()) - runsBefore) >= 2;
    assert.ok(await until(twoRuns, { timeoutMs: 30_000, intervalMs: 500 }), `scheduled refreshes ran (${runs})`);
    const slots = await db.query<{ slot: string; instance: string }>("select slot, instance from refresh_claims where slot like 'run:%'");
    const finished = Number((await db.query<{ n: string }>('select count(*) as n from refresh_runs')).rows[0]?.n);
    // One claim per slot (primary key) and one run per claim: never two runs for one slot.
    assert.equal(new Set(slots.rows.map((r) => r.slot)).size, slots.rowCount);
    assert.ok(finished <= (slots.rowCount ?? 0) && finished >= (slots.rowCount ?? 0) - 1, `${finished} runs for ${slots.rowCount} claimed slots`);
    const version = Number((await db.query<{ value: string }>("select value from meta where key = 'dataset_version'")).rows[0]?.value);
    assert.ok(version > Number(before), `dataset version ${version} > ${before}`);
    // Within a few seconds both instances serve at least that version.
    const served = async () => Promise.all([a, b].map(async (i) => ((await (await fetch(`${i.url}/readyz`)).json()) as { dataVersion: number }).dataVersion));
    let versions: number[] = [];
    const caughtUp = async () => (versions = await served()).every((v) => v >= version);
    assert.ok(await until(caughtUp, { timeoutMs: 10_000, intervalMs: 250 }), `served versions ${versions.join(', ')} >= ${version}`);
  });
});
