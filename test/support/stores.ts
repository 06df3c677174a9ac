// The stores a store-touching suite runs on, each opened fresh: SQLite, SQLite with a series
// reader thread (reads that go to the thread take that path), and PostgreSQL when
// TEST_DATABASE_URL is set (skipped otherwise).

import { join } from 'node:path';
import { openPostgresStore } from '../../src/store/postgres.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { KyselyStore } from '../../src/store/store.js';
import { freshSchema, PG_SKIP } from './pg.js';
import { tempDir } from './tmp.js';

export interface StorePlace {
  name: string;
  skip: string | false;
  open(): Promise<{ store: KyselyStore; cleanup: () => Promise<void> }>;
}

export const STORE_PLACES: readonly StorePlace[] = [
  {
    name: 'SQLite',
    skip: false,
    async open() {
      const tmp = tempDir();
      return { store: await openSqliteStore(join(tmp.dir, 'db.sqlite')), cleanup: async () => tmp.cleanup() };
    },
  },
  {
    name: 'SQLite with a reader thread',
    skip: false,
    async open() {
      const tmp = tempDir();
      return { store: await openSqliteStore(join(tmp.dir, 'db.sqlite'), { seriesReaders: 1 }), cleanup: async () => tmp.cleanup() };
    },
  },
  {
    name: 'PostgreSQL',
    skip: PG_SKIP,
    async open() {
      const schema = await freshSchema();
      return { store: await openPostgresStore(schema.url, 2), cleanup: schema.drop };
    },
  },
];
