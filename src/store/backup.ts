// Backup and restore of the embedded SQLite store (`npm run cli -- backup|restore`), safe
// while the service runs. Both go through SQLite's online backup API, never a file copy (the
// store is in WAL mode: a copied file can miss the last commits or be torn).
//
// - backup: a consistent snapshot into `<file>.partial`, checked (integrity, schema), then
//   renamed to `<file>`: a failed or interrupted backup leaves no file that looks like one.
// - restore: the backup is checked first; the keys revoked in the store it replaces are revoked
//   in a staged copy of it (an older backup must not bring a revoked key back; a store that
//   cannot be read is replaced only with `--force`); then the copy's pages replace the store's
//   in one step that other connections see whole, and the dataset version moves past both, so a
//   running service recomputes from the restored data within its 3 s version poll (its key
//   cache follows SQLite's data_version). Keys created after the backup are not in it: create
//   them again.
//
// PostgreSQL deployments use pg_dump / pg_restore (docs/deploy.md).

import Database from 'better-sqlite3';
import { existsSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { openSqliteStore, ownerOnly } from './sqlite.js';

export interface BackupSummary {
  file: string;
  bytes: number;
  securities: number;
  bars: number;
  keys: number;
  datasetVersion: number;
}

/** Reads what a store file holds, refusing one that is not a sound store of ours. */
function inspect(file: string): Omit<BackupSummary, 'file' | 'bytes'> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const integrity = db.pragma('integrity_check', { simple: true }) as string;
    if (integrity !== 'ok') throw new Error(`${file} fails SQLite's integrity check: ${integrity}`);
    const tables = new Set((db.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]).map((r) => r.name));
    for (const table of ['kysely_migration', 'securities', 'bars', 'api_keys', 'meta']) {
      if (!tables.has(table)) throw new Error(`${file} is not a store of this service (no ${table} table)`);
    }
    const n = (table: string) => (db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
    const version = db.prepare("select value from meta where key = 'dataset_version'").get() as { value: string } | undefined;
    return { securities: n('securities'), bars: n('bars'), keys: n('api_keys'), datasetVersion: Number(version?.value ?? 0) };
  } catch (err) {
    if ((err as { code?: string }).code === 'SQLITE_NOTADB') throw new Error(`${file} is not an SQLite database`);
    throw err;
  } finally {
    db.close();
  }
}

export async function backupSqlite(storeFile: string, file: string): Promise<BackupSummary> {
  if (!existsSync(storeFile)) throw new Error(`no store at ${storeFile}`);
  const partial = `${file}.partial`;
  rmSync(partial, { force: true });
  // A copy of the keys' hashes: the owner's alone from its first byte, as the store is (SQLite
  // takes an empty file for an empty database and keeps its mode).
  writeFileSync(partial, '', { mode: 0o600 });
  ownerOnly(partial);
  const source = new Database(storeFile, { readonly: true, fileMustExist: true });
  try {
    await source.backup(partial);
    // The copy keeps the source's WAL mode; a backup file is a single self-contained file.
    const copy = new Database(partial);
    copy.pragma('journal_mode = DELETE');
    copy.close();
    const summary = inspect(partial);
    renameSync(partial, file);
    return { file, bytes: statSync(file).size, ...summary };
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  } finally {
    source.close();
  }
}

/** What of the access list a restore keeps from the store it replaces. */
interface AccessSince {
  /** Keys revoked in the store being replaced, by prefix, with when. */
  revoked: { prefix: string; revokedAt: string }[];
  /** The store being replaced had a key at some time (so no demo key is created after). */
  everHadKey: boolean;
}

function accessOf(storeFile: string): AccessSince {
  const db = new Database(storeFile, { readonly: true, fileMustExist: true });
  try {
    const revoked = db.prepare('select prefix, revoked_at as revokedAt from api_keys where revoked_at is not null').all() as AccessSince['revoked'];
    const keys = (db.prepare('select count(*) as n from api_keys').get() as { n: number }).n;
    const issued = db.prepare("select 1 from meta where key = 'keys_issued'").get() !== undefined;
    return { revoked, everHadKey: keys > 0 || issued };
  } finally {
    db.close();
  }
}

export interface RestoreOptions {
  /**
   * Replace a store that cannot be read: its revocations since the backup are lost (revoke those
   * keys again). Without it such a restore is refused.
   */
  force?: boolean;
}

export async function restoreSqlite(storeFile: string, file: string, options: RestoreOptions = {}): Promise<BackupSummary & { previousVersion: number; revocationsKept: number }> {
  const summary = inspect(file);
  let previousVersion = 0;
  let since: AccessSince = { revoked: [], everHadKey: false };
  let unreadable = false;
  if (existsSync(storeFile)) {
    try {
      previousVersion = inspect(storeFile).datasetVersion;
      since = accessOf(storeFile);
    } catch (err) {
      // A broken store is what a restore is for, but the keys revoked since the backup would come
      // back to life with it: only when asked to.
      if (!options.force) {
        throw new Error(
          `the store at ${storeFile} cannot be read (${(err as Error).message}), so the keys revoked since the backup cannot be kept revoked; restore with --force to replace it anyway, then revoke those keys again`,
        );
      }
      unreadable = true;
    }
  }
  // The backup is prepared beside the store, with the revocations made since it was taken, and
  // only then copied into the store in one step: a running service never sees a revoked key
  // active again, not even for a moment.
  const staged = `${storeFile}.restoring`;
  rmSync(staged, { force: true });
  writeFileSync(staged, '', { mode: 0o600 });
  ownerOnly(staged);
  let revocationsKept = 0;
  try {
    const backup = new Database(file, { readonly: true, fileMustExist: true });
    try {
      await backup.backup(staged);
    } finally {
      backup.close();
    }
    const copy = new Database(staged);
    try {
      copy.pragma('journal_mode = DELETE');
      const revoke = copy.prepare('update api_keys set revoked_at = ? where prefix = ? and revoked_at is null');
      copy.transaction(() => {
        for (const { prefix, revokedAt } of since.revoked) revocationsKept += revoke.run(revokedAt, prefix).changes;
        if (since.everHadKey) copy.prepare("insert into meta (key, value) values ('keys_issued', '1') on conflict (key) do nothing").run();
      })();
    } finally {
      copy.close();
    }
    // SQLite cannot write into a file that is not a database: a forced restore starts it anew.
    if (unreadable) for (const f of [storeFile, `${storeFile}-wal`, `${storeFile}-shm`]) rmSync(f, { force: true });
    const staging = new Database(staged, { readonly: true, fileMustExist: true });
    try {
      // Into the store file through SQLite: one write transaction on the destination.
      await staging.backup(storeFile);
    } finally {
      staging.close();
    }
  } finally {
    rmSync(staged, { force: true });
  }
  // Migrate an older backup forward, and publish a version past both, so a running service
  // recomputes from what was restored.
  const store = await openSqliteStore(storeFile);
  try {
    const version = Math.max(previousVersion, summary.datasetVersion) + 1;
    await store.refresh.setMeta('dataset_version', String(version));
    return { file, bytes: statSync(file).size, ...summary, datasetVersion: version, previousVersion, revocationsKept };
  } finally {
    await store.close();
  }
}
