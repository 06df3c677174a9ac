// The embedded default engine: one SQLite file under DATA_DIR, WAL mode so readers never
// wait for the hourly refresh's write transaction.

import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DB } from './schema.js';
import { KyselyStore } from './store.js';

export async function openSqliteStore(file: string): Promise<KyselyStore> {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const database = new Database(file);
  database.pragma('journal_mode = WAL');
  // NORMAL is durable across application crashes in WAL mode; only an OS crash can lose the
  // last transactions, never corrupt the file.
  database.pragma('synchronous = NORMAL');
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = ON');
  const store = new KyselyStore(new Kysely<DB>({ dialect: new SqliteDialect({ database }) }), 'sqlite');
  await store.migrate();
  return store;
}
