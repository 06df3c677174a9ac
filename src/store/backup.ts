// Backup and restore of the embedded SQLite store (`npm run cli -- backup|restore`), safe
// while the service runs. Both go through SQLite's online backup API, never a file copy (the
// store is in WAL mode: a copied file can miss the last commits or be torn).
//
// - backup: a consistent snapshot into `<file>.partial`, checked (integrity, schema), then
//   renamed to `<file>`: a failed or interrupted backup leaves no file that looks like one.
// - restore: the backup is checked first; then its pages replace the store's in one step
//   that other connections see whole, and the dataset version moves past both, so a running
//   service recomputes from the restored data within its 3 s version poll (and its key cache,
//   which follows SQLite's data_version, drops revocations the backup predates).
//
// PostgreSQL deployments use pg_dump / pg_restore (docs/deploy.md).

import Database from 'better-sqlite3';
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { openSqliteStore } from './sqlite.js';

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

export async function restoreSqlite(storeFile: string, file: string): Promise<BackupSummary & { previousVersion: number }> {
  const summary = inspect(file);
  let previousVersion = 0;
  if (existsSync(storeFile)) {
    try {
      previousVersion = inspect(storeFile).datasetVersion;
    } catch {
      previousVersion = 0; // a broken store is what a restore is for
    }
  }
  const backup = new Database(file, { readonly: true, fileMustExist: true });
  try {
    // Into the store file through SQLite: one write transaction on the destination.
    await backup.backup(storeFile);
  } finally {
    backup.close();
  }
  // Migrate an older backup forward, and publish a version past both, so a running service
  // recomputes from what was restored.
  const store = await openSqliteStore(storeFile);
  try {
    const version = Math.max(previousVersion, summary.datasetVersion) + 1;
    await store.refresh.setMeta('dataset_version', String(version));
    return { file, bytes: statSync(file).size, ...summary, datasetVersion: version, previousVersion };
  } finally {
    await store.close();
  }
}
