// The SQLite store's files (src/store/sqlite.ts, src/store/backup.ts), in this process (umask
// 022, so a file created without care would be 0644): the folder the store creates is 0700, the
// database, its write-ahead log and shared memory 0600, a backup 0600; a restore of an older
// backup keeps the keys revoked since it was taken, and the memory of a key ever issued, and
// refuses to replace a store it cannot read unless forced.

import assert from 'node:assert/strict';
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createKey } from '../../src/app.js';
import { backupSqlite, restoreSqlite } from '../../src/store/backup.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { tempDir } from '../support/tmp.js';

const mode = (path: string): number => statSync(path).mode & 0o777;

describe('SQLite store files', () => {
  it('a new DATA_DIR is 0700; the database, its WAL and shared-memory files 0600; a backup 0600', async () => {
    const tmp = tempDir();
    try {
      const dir = join(tmp.dir, 'data', 'nested');
      const file = join(dir, 'service.sqlite');
      const store = await openSqliteStore(file);
      try {
        await createKey(store.access, 'free', 'k');
        assert.equal(mode(join(tmp.dir, 'data')), 0o700);
        assert.equal(mode(dir), 0o700);
        for (const f of [file, `${file}-wal`, `${file}-shm`]) assert.equal(mode(f), 0o600, f);
        const backup = join(tmp.dir, 'backup.sqlite');
        await backupSqlite(file, backup);
        assert.equal(mode(backup), 0o600);
      } finally {
        await store.close();
      }
    } finally {
      tmp.cleanup();
    }
  });

  it('an existing database and WAL made 0644 are 0600 once opened', async () => {
    const tmp = tempDir();
    try {
      const file = join(tmp.dir, 'service.sqlite');
      const first = await openSqliteStore(file);
      await createKey(first.access, 'free', 'k');
      for (const f of [file, `${file}-wal`]) chmodSync(f, 0o644);
      const second = await openSqliteStore(file);
      for (const f of [file, `${file}-wal`]) assert.equal(mode(f), 0o600, f);
      await second.close();
      await first.close();
    } finally {
      tmp.cleanup();
    }
  });
});

describe('restore of an older backup', () => {
  it('keeps the keys revoked since the backup revoked (and the others as the backup has them); a key created since is not in it', async () => {
    const tmp = tempDir();
    try {
      const file = join(tmp.dir, 'service.sqlite');
      const backup = join(tmp.dir, 'backup.sqlite');
      let store = await openSqliteStore(file);
      const kept = await createKey(store.access, 'paid', 'kept');
      const revoked = await createKey(store.access, 'free', 'revoked');
      await backupSqlite(file, backup);
      // After the backup: one key revoked, one created and revoked, one created.
      assert.equal(await store.access.revokeKey(revoked.slice(0, 16), '2026-11-21T00:00:00.000Z'), true);
      const later = await createKey(store.access, 'free', 'later');
      await store.access.revokeKey(later.slice(0, 16), '2026-11-21T00:00:01.000Z');
      await createKey(store.access, 'free', 'since');
      await store.close();

      const summary = await restoreSqlite(file, backup);
      assert.equal(summary.revocationsKept, 1, 'the one key of the backup revoked since');
      assert.equal(summary.keys, 2);
      store = await openSqliteStore(file);
      try {
        const keys = await store.access.listKeys('2026-11-21');
        assert.deepEqual(
          keys.map((k) => [k.name, k.revokedAt]),
          [
            ['kept', null],
            ['revoked', '2026-11-21T00:00:00.000Z'],
          ],
        );
        assert.equal(keys[0]?.prefix, kept.slice(0, 16));
        assert.equal(mode(file), 0o600);
      } finally {
        await store.close();
      }
    } finally {
      tmp.cleanup();
    }
  });

  it('carries the memory of a key ever issued: a backup from before any key, restored, does not make a store that never had one', async () => {
    const tmp = tempDir();
    try {
      const file = join(tmp.dir, 'service.sqlite');
      const backup = join(tmp.dir, 'backup.sqlite');
      let store = await openSqliteStore(file);
      await backupSqlite(file, backup);
      await createKey(store.access, 'free', 'k');
      await store.close();
      await restoreSqlite(file, backup);
      store = await openSqliteStore(file);
      try {
        assert.equal(await store.access.countKeys(), 0);
        assert.equal(await store.access.everHadKey(), true);
      } finally {
        await store.close();
      }
    } finally {
      tmp.cleanup();
    }
  });

  it('refuses to replace a store it cannot read (its revocations would be lost), and says why; --force replaces it', async () => {
    const tmp = tempDir();
    try {
      const file = join(tmp.dir, 'service.sqlite');
      const backup = join(tmp.dir, 'backup.sqlite');
      const store = await openSqliteStore(join(tmp.dir, 'other.sqlite'));
      await createKey(store.access, 'free', 'k');
      await store.close();
      await backupSqlite(join(tmp.dir, 'other.sqlite'), backup);
      writeFileSync(file, 'not a database, a broken store'.repeat(100));
      await assert.rejects(
        restoreSqlite(file, backup),
        new RegExp(`^Error: the store at ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} cannot be read \\(.*\\), so the keys revoked since the backup cannot be kept revoked; restore with --force to replace it anyway, then revoke those keys again$`),
      );
      const forced = await restoreSqlite(file, backup, { force: true });
      assert.deepEqual([forced.keys, forced.revocationsKept], [1, 0]);
    } finally {
      tmp.cleanup();
    }
  });
});
