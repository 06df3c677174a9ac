// The bulk importer on real SQLite and real PostgreSQL, with small in-test readers over REAL
// recorded SEC companyfacts and Polygon answers (./bulk-readers.ts). What it proves:
// each batch lands whole, a reader failing midway keeps what it yielded while the others go on,
// skips are counted by reason with examples, versions are published by the clock, the run is
// recorded `ok` / `partial` / `failed`, and the progress board reaches done (or failed).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { formatSourceRuns } from '../../src/cli/sources.js';
import { Importer } from '../../src/refresh/import.js';
import { ProgressBoard } from '../../src/refresh/progress.js';
import { runningDetail } from '../../src/refresh/runs.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { KyselyStore } from '../../src/store/store.js';
import { freshSchema, PG_SKIP } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';
import { archive, FactsZipReader, reportsOf } from './bulk-readers.js';

function importerTests(engine: 'sqlite' | 'postgres', open: () => Promise<{ store: KyselyStore; cleanup: () => Promise<void> }>): void {
  describe(`bulk importer (${engine})`, () => {
    const tmp = tempDir('import-');
    let store: KyselyStore;
    let cleanup: () => Promise<void>;
    let now = new Date('2026-11-25T01:00:00Z');
    const clock = () => now;
    const logger = pino({ level: 'silent' });

    before(async () => {
      ({ store, cleanup } = await open());
    });
    after(async () => {
      await cleanup();
      tmp.cleanup();
    });

    it('stores each batch whole, keeps what a failing reader yielded, counts skips, and records a partial run', async () => {
      const good = new FactsZipReader('sec', archive(tmp.dir, 'a.zip', ['AAPL'], { 'readme.txt': 'not a company' }), { bars: true });
      // MRVL (1,277,340 bytes) is under the 2,000,000-byte limit, TSLA (2,999,120) over it: the
      // reader throws ZipReadError `member too large` at its second member.
      const failing = new FactsZipReader('opendart', archive(tmp.dir, 'b.zip', ['MRVL', 'TSLA']), { limits: { maxMemberBytes: 2_000_000 } });
      const board = new ProgressBoard(clock);
      const published: number[] = [];
      const importer = new Importer(store, clock, logger, board, { onPublish: (v) => void published.push(v) });
      const before = await store.refresh.datasetVersion();
      const report = await importer.run([good, failing]);

      // The clock does not move: no version before the end, one at the end.
      assert.deepEqual(report.versions, [before + 1]);
      assert.deepEqual(published, report.versions);
      assert.equal(await store.refresh.datasetVersion(), before + 1);

      const codes = (await store.market.securities()).map((s) => s.code).sort();
      assert.deepEqual(codes, ['AAPL', 'MRVL'], 'TSLA, past the limit, was never yielded');
      const ids = new Map((await store.market.securities()).map((s) => [s.code, s.id]));
      const aaplReports = reportsOf('AAPL');
      const mrvlReports = reportsOf('MRVL');
      assert.ok(aaplReports > 40 && mrvlReports > 10, `${aaplReports} and ${mrvlReports} reports parsed`);
      assert.equal((await store.market.reports(ids.get('AAPL'))).length, aaplReports);
      assert.equal((await store.market.reports(ids.get('MRVL'))).length, mrvlReports);
      // Of the 14 recorded grouped rows, 7 are not common stock (5 with lower-case class letters:
      // PEBpF, PHXEp, BCpC, BCATrw, AIIAr; NE.WS.A a warrant, SBXD.U a unit); of the 7 others only
      // AAPL is placed, so the store takes 1 bar and skips 6 (INEO, GTOQ, CRVL, BRK.B, ZBZX, ZTST).
      // AAPL's recorded row: "c":341.07; shares 1,000,000 (the reader's test value): market cap 341,070,000.
      assert.deepEqual((await store.market.bars(ids.get('AAPL') as number)).map((b) => [b.date, b.close, b.marketCap]), [['2026-09-25', 341.07, 341_070_000]]);

      assert.equal(report.status, 'partial');
      const [sec, dart] = report.sources;
      assert.equal(sec?.ok, true);
      // 1 security + AAPL's reports + 1 bar.
      assert.equal(sec?.records, 1 + aaplReports + 1);
      assert.equal(sec?.skipped?.['member that is not a company file'], 1);
      assert.equal(sec?.skipped?.['bars: unknown security'], 6);
      const notCommon = Object.entries(sec?.skipped ?? {}).filter(([r]) => r !== 'member that is not a company file' && r !== 'bars: unknown security');
      assert.equal(notCommon.reduce((n, [, c]) => n + c, 0), 7);
      assert.ok(sec?.skippedExamples?.includes('readme.txt'));
      assert.ok(sec?.skippedExamples?.includes('US:INEO'));
      assert.equal(dart?.ok, false);
      assert.equal(dart?.records, 1 + mrvlReports, 'what the failing reader yielded before it threw stays stored');
      assert.match(dart?.error ?? '', /^member too large: CIK0001318605\.json declares 2999120 bytes \(limit 2000000\)$/);

      const run = (await store.refresh.refreshRuns(1))[0];
      assert.equal(run?.status, 'partial');
      assert.equal(run?.id, report.runId);
      const printed = formatSourceRuns([run!]);
      assert.match(printed, /opendart +FAILED member too large/);
      assert.match(printed, /sec +ok +taken \d+, skipped 14/);

      const progress = new Map(board.snapshot().map((p) => [p.source, p]));
      assert.equal(progress.get('sec')?.phase, 'done');
      assert.equal(progress.get('sec')?.done, 1);
      assert.equal(progress.get('opendart')?.phase, 'failed');
      assert.match(progress.get('opendart')?.note ?? '', /member too large.*; \d+ records kept$/);
    });

    it('publishes a version at most every N seconds while importing, and at the end', async () => {
      // The clock moves 40 s before each batch; N = 60. Batches at +40 (40 < 60: none), +80
      // (>= 60 since the start: publish, v+1), +120 (40 since: none), +160 (80: publish, v+2);
      // the end publishes what came after (nothing new: no version). AAPL, MRVL, TSLA, bars: 4 batches.
      const start = now.getTime();
      let batch = 0;
      const onBatch = () => {
        batch++;
        now = new Date(start + batch * 40_000);
      };
      const reader = new FactsZipReader('sec', archive(tmp.dir, 'c.zip', ['AAPL', 'MRVL', 'TSLA']), { bars: true, onBatch });
      const v0 = await store.refresh.datasetVersion();
      const importer = new Importer(store, clock, logger, new ProgressBoard(clock), { publishEverySeconds: 60 });
      const report = await importer.run([reader]);
      assert.equal(report.batches, 4);
      assert.deepEqual(report.versions, [v0 + 1, v0 + 2]);
      assert.equal(report.status, 'ok');
      assert.equal((await store.refresh.refreshRuns(1))[0]?.status, 'ok');
      assert.deepEqual((await store.market.securities()).map((s) => s.code).sort(), ['AAPL', 'MRVL', 'TSLA']);
    });

    it('a source that reads to its end but stores nothing fails, with its skip reasons; the run is failed', async () => {
      // Every member skipped: two files that are not company files, none a company's.
      const empty = new FactsZipReader('sec', archive(tmp.dir, 'nothing.zip', [], { 'readme.txt': 'x', 'notes.txt': 'y' }));
      const report = await new Importer(store, clock, logger, new ProgressBoard(clock)).run([empty]);
      assert.equal(report.status, 'failed');
      assert.equal(report.sources[0]?.ok, false);
      assert.equal(report.sources[0]?.error, 'nothing read (skipped: member that is not a company file: 2)');
      assert.equal((await store.refresh.refreshRuns(1))[0]?.status, 'failed');
    });

    it('a run left running by a process that was killed is marked failed when the next run starts; a live holder\'s is left', async () => {
      // A process that has ended: its pid is free (the next run checks with kill(pid, 0)).
      const dead = spawnSync(process.execPath, ['-e', '']);
      assert.equal(dead.status, 0);
      const host = JSON.parse(runningDetail()).running.host as string;
      const killed = await store.refresh.startRefreshRun('2026-11-25T00:00:00.000Z', JSON.stringify({ running: { host, pid: dead.pid } }));
      // The test runner's parent lives: its run is not touched.
      const live = await store.refresh.startRefreshRun('2026-11-25T00:00:01.000Z', JSON.stringify({ running: { host, pid: process.ppid } }));
      const report = await new Importer(store, clock, logger, new ProgressBoard(clock)).run([new FactsZipReader('sec', archive(tmp.dir, 'after-kill.zip', ['MRVL']))]);
      assert.equal(report.status, 'ok');
      const runs = new Map((await store.refresh.refreshRuns(10)).map((r) => [r.id, r]));
      assert.equal(runs.get(killed)?.status, 'failed');
      assert.equal(runs.get(killed)?.detail, `abandoned: the process running it (pid ${dead.pid}) ended before it finished`);
      assert.equal(runs.get(live)?.status, 'running');
      assert.equal(runs.get(report.runId)?.status, 'ok');
      await store.refresh.finishRefreshRun(live, '2026-11-25T00:00:02.000Z', 'failed', 'test');
    });

    it('records a run in which every source failed as failed, and publishes nothing', async () => {
      const html = join(tmp.dir, 'companyfacts.zip');
      writeFileSync(html, '<!DOCTYPE html><html><head><title>Request Rate Threshold Exceeded</title></head></html>');
      const v0 = await store.refresh.datasetVersion();
      const board = new ProgressBoard(clock);
      const report = await new Importer(store, clock, logger, board).run([
        new FactsZipReader('sec', html),
        {
          source: 'opendart',
          open: async (ctx) => {
            // What a preparation could not have is counted even when it then fails.
            ctx.skip('file not downloaded: HTTP 404', '2016_1Q_BS_20210317040000.zip');
            throw new Error('bulk list page: HTTP 503');
          },
        },
      ]);
      assert.equal(report.status, 'failed');
      assert.deepEqual(report.versions, []);
      assert.equal(await store.refresh.datasetVersion(), v0);
      assert.match(report.sources[0]?.error ?? '', /^not a ZIP: an HTML page/);
      assert.equal(report.sources[1]?.error, 'bulk list page: HTTP 503');
      assert.deepEqual([report.sources[1]?.skipped, report.sources[1]?.skippedExamples], [{ 'file not downloaded: HTTP 404': 1 }, ['2016_1Q_BS_20210317040000.zip']]);
      assert.equal((await store.refresh.refreshRuns(1))[0]?.status, 'failed');
      assert.deepEqual(board.snapshot().map((p) => [p.source, p.phase]), [['sec', 'failed'], ['opendart', 'failed']]);
    });
  });
}

importerTests('sqlite', async () => {
  const t = tempDir('import-db-');
  const store = await openSqliteStore(join(t.dir, 'db.sqlite'));
  return { store, cleanup: async () => { await store.close(); t.cleanup(); } };
});

describe('bulk importer on PostgreSQL', { skip: PG_SKIP }, () => {
  importerTests('postgres', async () => {
    const schema = await freshSchema();
    const store = await openPostgresStore(schema.url, 4);
    return { store, cleanup: async () => { await store.close(); await schema.drop(); } };
  });
});
