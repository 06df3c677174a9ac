// The write-ahead log after a large write: `Store.checkpoint()` folds it into the database
// and truncates it (SQLite), and the service calls it on every dataset swap (the first load's,
// each refresh's), so a serving store is about its database's size, not twice it.

import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { startApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { tempDir } from '../support/tmp.js';
import pino from 'pino';

const size = (file: string): number => (existsSync(file) ? statSync(file).size : 0);

describe('write-ahead log checkpoint', () => {
  it('truncates the log a large transaction left as large as its write', async () => {
    const tmp = tempDir();
    const file = join(tmp.dir, 'service.sqlite');
    const store = await openSqliteStore(file);
    try {
      await sql`create table filler (id integer primary key, payload blob not null)`.execute(store.db);
      // 2,000 rows of 4,096 random bytes in one transaction: at least 8 MB of pages, all of
      // them in the log until a checkpoint (an automatic one cannot run inside a transaction).
      await store.db.transaction().execute(async (trx) => {
        for (let i = 0; i < 2_000; i++) await sql`insert into filler (payload) values (randomblob(4096))`.execute(trx);
      });
      const walBefore = size(`${file}-wal`);
      assert.ok(walBefore >= 8_192_000, `the log holds the write: ${walBefore} bytes`);
      assert.equal(store.checkpoint(), true);
      assert.equal(size(`${file}-wal`), 0);
      assert.ok(size(file) >= 8_192_000, 'the rows are in the database file');
      const [{ n }] = (await sql<{ n: number }>`select count(*) as n from filler`.execute(store.db)).rows as [{ n: number }];
      assert.equal(n, 2_000);
    } finally {
      await store.close();
      tmp.cleanup();
    }
  });

  it('a serving store is checkpointed after its first load: the log is not the database size', async () => {
    const tmp = tempDir();
    const config = loadConfig({ DATA_DIR: tmp.dir, PORT: '0', HOST: '127.0.0.1', REFRESH_SCHEDULE: 'off' });
    const app = await startApp(config, { logger: pino({ level: 'silent' }), demo: { scale: 0.05, asOf: '2026-11-20' } });
    try {
      await app.ready;
      const file = join(tmp.dir, 'service.sqlite');
      const database = size(file);
      // The first load is one transaction of every bar and filing (tens of MB at this
      // scale), written through the log; after the swap's checkpoint the log holds at most
      // the few pages written since (usage counts, the claim's lease): under 1 MB.
      assert.ok(database > 10_000_000, `database ${database} bytes`);
      assert.ok(size(`${file}-wal`) < 1_000_000, `log ${size(`${file}-wal`)} bytes`);
      // A refresh swaps in a new dataset and checkpoints again.
      await app.refresher.run();
      assert.ok(size(`${file}-wal`) < 1_000_000, `log after a refresh ${size(`${file}-wal`)} bytes`);
    } finally {
      await app.close();
      tmp.cleanup();
    }
  });
});
