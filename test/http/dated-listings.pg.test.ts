// The dated listings suite again, on PostgreSQL with usage counters in Redis.
import { it } from 'node:test';
import { PG_SKIP, REDIS_SKIP } from '../support/pg.js';

const skip = PG_SKIP || REDIS_SKIP;
if (skip) it('name and sector as of the day on PostgreSQL + Redis', { skip }, () => undefined);
else {
  process.env.TEST_BACKEND = 'postgres';
  await import('./dated-listings.test.js');
}
