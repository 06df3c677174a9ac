// PostgreSQL for tests: each caller gets its own fresh schema in the test database (named by
// TEST_DATABASE_URL, set by scripts/test-services.sh), so test files never see each other's rows.

import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL;
export const PG_SKIP = TEST_DATABASE_URL ? false : 'TEST_DATABASE_URL is not set (run: eval "$(bash scripts/test-services.sh)")';
export const REDIS_SKIP = TEST_REDIS_URL ? false : 'TEST_REDIS_URL is not set (run: eval "$(bash scripts/test-services.sh)")';

export async function freshSchema(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL is not set');
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    },
  };
}
