// The kill test: service processes killed again and again at random moments (SIGKILL, and
// SIGTERM / SIGINT for graceful stops) in every phase: starting, migrating, loading the demo
// universe into an empty store, computing, serving, refreshing every second. After every kill:
// - the store holds all of the demo universe or none of it, and SQLite's integrity check passes;
// - a graceful stop exits 0 within 10 s and leaves no unfinished claim of its own;
// - the next start gets ready, taking over (and logging) a first-load claim the dead one held.
// On SQLite (one instance at a time) and on PostgreSQL (two instances per round).
// KILL_TEST_SQLITE / KILL_TEST_PG set the number of rounds; KILL_TEST_SEED the random seed.

import assert from 'node:assert/strict';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { spawnService, type ServiceProcess } from '../support/instance.js';
import { freshSchema, PG_SKIP } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';
import { until } from '../support/until.js';

const SQLITE_ROUNDS = Number(process.env.KILL_TEST_SQLITE ?? 32);
const PG_ROUNDS = Number(process.env.KILL_TEST_PG ?? 9);
const BACKFILL_ROUNDS = Number(process.env.KILL_TEST_BACKFILL ?? 4);
let seed = Number(process.env.KILL_TEST_SEED ?? 20261123);
/** Deterministic, so a failing sequence of kills can be replayed. */
function random(): number {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
}

const BASE_ENV = {
  PORT: '0',
  // About 25 companies: a first load of well under a second, so rounds are quick.
  DEMO_SCALE: '0.03',
  LOG_LEVEL: 'info',
  REFRESH_SCHEDULE: 'hourly',
  // A refresh every second, so kills land in refreshes too.
  REFRESH_CRON: '* * * * * *',
};

type Signal = 'SIGKILL' | 'SIGTERM' | 'SIGINT';

interface Run extends ServiceProcess {
  /** ms from spawn to /readyz 200, null if not reached. */
  readyMs: number | null;
  readyAt: number | null;
  /** The last phase seen: before listening, the /readyz detail while starting, or serving. */
  phase: string;
}

/**
 * The service compiled once (type-checking is the typecheck step's job): started from
 * JavaScript a process is listening in under a second, where tsx takes several, so most
 * kills land in the service's own phases rather than in module loading.
 */
function buildService(dir: string): string {
  const tsc = join(process.cwd(), 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--noCheck', '--sourceMap', 'false', '--outDir', join(dir, 'dist')], { stdio: 'inherit' });
  symlinkSync(join(process.cwd(), 'node_modules'), join(dir, 'node_modules'));
  copyFileSync('package.json', join(dir, 'package.json'));
  return join(dir, 'dist', 'cli', 'main.js');
}

let main = '';
/** Every process started, so a failed round leaves none running. */
const spawned = new Set<ChildProcess>();

function startRun(env: Record<string, string>): Run {
  const run: Run = Object.assign(spawnService({ env, main }), { readyMs: null, readyAt: null, phase: 'before listening' });
  const child = run.child;
  spawned.add(child);
  const started = Date.now();
  // Poll readiness in the background until the process ends.
  void (async () => {
    while (child.exitCode === null && child.signalCode === null) {
      if (run.url) {
        const res = await fetch(`${run.url}/readyz`).catch(() => null);
        if (res?.status === 200) {
          run.readyAt ??= Date.now();
          run.readyMs ??= Date.now() - started;
          run.phase = 'serving';
        } else if (res) {
          const detail = String(((await res.json().catch(() => ({}))) as { detail?: string }).detail ?? '');
          const m = /\(([^)]*)\)/.exec(detail);
          if (run.readyMs === null) run.phase = (m?.[1] ?? 'starting').replace(/: \d+ of \d+ companies/, '');
        }
      }
      await new Promise((r) => setTimeout(r, 30));
    }
  })();
  return run;
}

/** Sends `signal`; for a graceful one, the ms until the process exited (asserted 0 and < 10 s). */
async function stop(run: Run, signal: Signal): Promise<number> {
  const sent = Date.now();
  run.child.kill(signal);
  const code = await Promise.race([run.exited, new Promise<'late'>((r) => setTimeout(() => r('late'), 12_000))]);
  const ms = Date.now() - sent;
  if (code === 'late') {
    run.child.kill('SIGKILL');
    assert.fail(`${signal} in phase '${run.phase}': still running after 12 s\n${run.output.join('').slice(-1500)}`);
  }
  if (signal !== 'SIGKILL') {
    // Exit 0 from the handler; or, while the modules still load (before any handler and any
    // work), the signal's default action.
    const ok = code === 0 || (code === null && run.child.signalCode === signal && !run.output.join('').includes('shutting down'));
    assert.ok(ok, `${signal} in phase '${run.phase}' exited ${code}\n${run.output.join('').slice(-1500)}`);
    assert.ok(ms < 10_000, `${signal} in phase '${run.phase}' took ${ms} ms`);
  }
  return ms;
}

function pickSignal(): Signal {
  const r = random();
  return r < 0.6 ? 'SIGKILL' : r < 0.8 ? 'SIGTERM' : 'SIGINT';
}

class Figures {
  kills: Record<string, number> = {};
  graceful = { count: 0, maxMs: 0 };
  worstReadyAfterKillMs = 0;
  takeovers = 0;
  emptyAfterKill = 0;
  fullAfterKill = 0;
  total(): number {
    return Object.values(this.kills).reduce((a, b) => a + b, 0);
  }
  add(signal: Signal, phase: string, stopMs: number): void {
    const k = `${signal} ${phase}`;
    this.kills[k] = (this.kills[k] ?? 0) + 1;
    if (signal !== 'SIGKILL') {
      this.graceful.count++;
      this.graceful.maxMs = Math.max(this.graceful.maxMs, stopMs);
    }
  }
}

interface Counts {
  securities: number;
  bars: number;
  reports: number;
  flows: number;
  trade: number;
}

function assertAllOrNothing(counts: Counts, full: Counts, where: string): 'empty' | 'full' {
  const empty: Counts = { securities: 0, bars: 0, reports: 0, flows: 0, trade: 0 };
  if (counts.securities === 0) {
    assert.deepEqual(counts, empty, `${where}: no securities but other rows`);
    return 'empty';
  }
  assert.deepEqual(counts, full, `${where}: part of the demo universe`);
  return 'full';
}

describe('killed at random moments', () => {
  const tmp = tempDir('svc-kill-');
  before(() => {
    main = buildService(join(tmp.dir, 'build'));
  });
  after(() => {
    for (const child of spawned) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    tmp.cleanup();
  });

  it(`SQLite: ${SQLITE_ROUNDS} stops and kills, all or nothing, ready again after each`, { timeout: 600_000 }, async (t) => {
    const dir = join(tmp.dir, 'sqlite');
    const file = join(dir, 'service.sqlite');
    const env = { ...BASE_ENV, DATA_DIR: dir };
    const counts = (): { counts: Counts; integrity: string; openClaims: { slot: string; pid: number }[] } => {
      // Killed before it created the file or the tables: nothing.
      if (!existsSync(file)) return { counts: { securities: 0, bars: 0, reports: 0, flows: 0, trade: 0 }, integrity: 'ok', openClaims: [] };
      // Read-write: a kill while the file was being created, before the switch to WAL, can leave a
      // hot rollback journal, which only a read-write connection may roll back (SQLITE_READONLY_ROLLBACK
      // otherwise), as the service's next start does. The rows counted are those it then finds.
      const db = new Database(file, { fileMustExist: true });
      try {
        const tables = new Set((db.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]).map((r) => r.name));
        const n = (table: string) => (tables.has(table) ? (db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n : 0);
        return {
          counts: { securities: n('securities'), bars: n('bars'), reports: n('reports'), flows: n('flows'), trade: n('trade') },
          integrity: db.pragma('integrity_check', { simple: true }) as string,
          openClaims: tables.has('refresh_claims') ? (db.prepare('select slot, pid from refresh_claims where done = 0').all() as { slot: string; pid: number }[]) : [],
        };
      } finally {
        db.close();
      }
    };

    // A reference: one clean first start, stopped while serving.
    const first = startRun(env);
    assert.ok(await until(() => first.readyMs !== null, { timeoutMs: 90_000 }), `first start ready\n${first.output.join('').slice(-1500)}`);
    await stop(first, 'SIGTERM');
    const full = counts().counts;
    assert.ok(full.securities > 10 && full.bars > 1000);

    const figures = new Figures();
    const started = Date.now();
    let takeoverDue = false;
    let killedAfterKill = false;
    for (let round = 0; round < SQLITE_ROUNDS; round++) {
      // Half the rounds start on an empty store, so kills land in the first load.
      if (!takeoverDue && random() < 0.5) rmSync(dir, { recursive: true, force: true });
      const run = startRun(env);
      // A fifth of the kills at any moment from the spawn (module loading, migrations), two
      // fifths once it listens (loading, computing), two fifths while it serves and refreshes.
      const mode = random();
      if (mode < 0.2) await new Promise((r) => setTimeout(r, random() * 2_000));
      else if (mode < 0.6) {
        await until(() => run.url !== null || run.child.exitCode !== null, { timeoutMs: 90_000 });
        await new Promise((r) => setTimeout(r, random() * 1_000));
      } else {
        await until(() => run.readyMs !== null || run.child.exitCode !== null, { timeoutMs: 90_000 });
        await new Promise((r) => setTimeout(r, random() * 1_500));
      }
      if (run.readyMs !== null) {
        // This start followed a kill or a stop: the time back to ready.
        figures.worstReadyAfterKillMs = Math.max(figures.worstReadyAfterKillMs, run.readyMs);
        if (takeoverDue) {
          // Log lines reach stdout in batches, at least every second.
          const said = await until(() => run.output.join('').includes('claim taken over from a holder that died'), { timeoutMs: 3_000 });
          assert.ok(said, `the start that took the dead first load over says so\n${run.output.join('').slice(-1500)}`);
          figures.takeovers++;
        }
      }
      assert.equal(run.child.exitCode, null, `round ${round}: the service exited by itself\n${run.output.join('').slice(-1500)}`);
      const signal = pickSignal();
      const phase = run.phase;
      const ms = await stop(run, signal);
      figures.add(signal, phase, ms);
      const after = counts();
      assert.equal(after.integrity, 'ok', `round ${round}: integrity`);
      const state = assertAllOrNothing(after.counts, full, `round ${round} after ${signal} in '${phase}'`);
      if (state === 'empty') figures.emptyAfterKill++;
      else figures.fullAfterKill++;
      if (signal !== 'SIGKILL') {
        assert.deepEqual(after.openClaims.filter((c) => c.pid === run.child.pid), [], `round ${round}: a graceful stop leaves no claim of its own`);
      }
      // An unfinished first-load claim on an empty store now belongs to a dead process (this
      // one, or one before it that this one did not get to): the next start must take it over.
      takeoverDue = state === 'empty' && after.openClaims.some((c) => c.slot === 'bootstrap');
      killedAfterKill = true;
    }
    assert.ok(killedAfterKill);
    // The last word: a start after all of that gets ready and serves.
    const last = startRun(env);
    assert.ok(await until(() => last.readyMs !== null, { timeoutMs: 90_000 }), `ready after the last kill\n${last.output.join('').slice(-1500)}`);
    figures.worstReadyAfterKillMs = Math.max(figures.worstReadyAfterKillMs, last.readyMs ?? 0);
    if (takeoverDue) assert.ok(await until(() => last.output.join('').includes('claim taken over from a holder that died'), { timeoutMs: 3_000 }));
    // Backfills killed while the service serves (the demo universe has no upstream to read, so
    // a backfill claims, recomputes and publishes a version): the store stays whole and sound,
    // the serving instance stays ready, and its hourly cursor is not moved.
    for (let round = 0; round < BACKFILL_ROUNDS; round++) {
      const backfill = spawnService({ env, main, args: ['backfill', '--from', '2025-01-01', '--to', '2025-12-31'] });
      spawned.add(backfill.child);
      await new Promise((r) => setTimeout(r, random() * 1_500));
      const signal: Signal = random() < 0.75 ? 'SIGKILL' : 'SIGTERM';
      // The exit code it ended with, whether the signal found it running or not.
      const code = await backfill.stop(signal);
      spawned.delete(backfill.child);
      figures.add(signal, code === 0 ? 'backfill (had finished)' : 'backfill', 0);
      const after = counts();
      assert.equal(after.integrity, 'ok', `backfill round ${round}: integrity`);
      assert.deepEqual(after.counts, full, `backfill round ${round}: the store is whole`);
      const ready = await fetch(`${last.url ?? ''}/readyz`);
      assert.equal(ready.status, 200, `backfill round ${round}: the serving instance is still ready`);
    }
    await stop(last, 'SIGTERM');
    t.diagnostic(`sqlite kill figures: ${JSON.stringify({ rounds: SQLITE_ROUNDS, signals: figures.total(), seconds: Math.round((Date.now() - started) / 1000), ...figures })}`);
  });

  it(`PostgreSQL: ${PG_ROUNDS} rounds of two instances, one killed or stopped, the other ready`, { skip: PG_SKIP, timeout: 600_000 }, async (t) => {
    let schema = await freshSchema();
    const db = new pg.Client({ connectionString: schema.url });
    await db.connect();
    // One statement, so one snapshot: counted table by table, a load the surviving instance
    // commits between two counts looks like "no securities but other rows". The tables exist
    // all or none (PostgreSQL migrations run in one transaction), so an error means none yet.
    const counts = async (): Promise<Counts> => {
      const sql =
        'select (select count(*) from securities) as securities, (select count(*) from bars) as bars, (select count(*) from reports) as reports, ' +
        '(select count(*) from flows) as flows, (select count(*) from trade) as trade';
      const row = (await db.query<Record<keyof Counts, string>>(sql).catch(() => ({ rows: [] as Record<keyof Counts, string>[] }))).rows[0];
      return { securities: Number(row?.securities ?? 0), bars: Number(row?.bars ?? 0), reports: Number(row?.reports ?? 0), flows: Number(row?.flows ?? 0), trade: Number(row?.trade ?? 0) };
    };
    const schemas = [schema];
    try {
      let env = { ...BASE_ENV, DATA_DIR: tmp.dir, DATABASE_URL: schema.url };
      const first = startRun(env);
      assert.ok(await until(() => first.readyMs !== null, { timeoutMs: 90_000 }), `first start ready\n${first.output.join('').slice(-1500)}`);
      await stop(first, 'SIGTERM');
      const full = await counts();

      const figures = new Figures();
      const started = Date.now();
      for (let round = 0; round < PG_ROUNDS; round++) {
        if (random() < 0.5) {
          // A new empty database for this round: both instances race for the first load.
          schema = await freshSchema();
          schemas.push(schema);
          await db.query(`set search_path to ${new URL(schema.url).searchParams.get('options')?.replace('-c search_path=', '')}`);
          env = { ...env, DATABASE_URL: schema.url };
        }
        const a = startRun(env);
        const b = startRun(env);
        await until(() => a.url !== null || a.child.exitCode !== null, { timeoutMs: 90_000 });
        await new Promise((r) => setTimeout(r, random() * 2_000));
        const signal = pickSignal();
        const phase = a.phase;
        const killedAt = Date.now();
        figures.add(signal, phase, await stop(a, signal));
        assertAllOrNothing(await counts(), full, `round ${round} after ${signal} of one instance in '${phase}'`);
        // The other one gets ready, taking over a first load the killed one held.
        assert.ok(await until(() => b.readyMs !== null || b.child.exitCode !== null, { timeoutMs: 90_000 }), `round ${round}: the other instance ready\n${b.output.join('').slice(-2000)}`);
        assert.equal(b.child.exitCode, null, `round ${round}: the other instance exited\n${b.output.join('').slice(-2000)}`);
        if (/claim taken over/.test(b.output.join(''))) figures.takeovers++;
        // From the kill to the other instance's readiness (0 when it was ready before).
        figures.worstReadyAfterKillMs = Math.max(figures.worstReadyAfterKillMs, Math.max(0, (b.readyAt ?? killedAt) - killedAt));
        assertAllOrNothing(await counts(), full, `round ${round}: after the other got ready`);
        assert.equal((await counts()).securities, full.securities, 'the other instance loaded or found the whole universe');
        const last = pickSignal();
        figures.add(last, b.phase, await stop(b, last));
        assertAllOrNothing(await counts(), full, `round ${round} after ${last} of the other in '${b.phase}'`);
      }
      t.diagnostic(`postgres kill figures: ${JSON.stringify({ rounds: PG_ROUNDS, signals: figures.total(), seconds: Math.round((Date.now() - started) / 1000), ...figures })}`);
    } finally {
      await db.end();
      for (const s of schemas) await s.drop();
    }
  });
});
