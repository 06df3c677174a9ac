// The screen_stocks suite again, on PostgreSQL with usage counters in Redis: the price changes
// are read from PostgreSQL's bar packs, and every figure must still agree with the per-stock tools.
import { it } from 'node:test';
import { PG_SKIP, REDIS_SKIP } from '../support/pg.js';

const skip = PG_SKIP || REDIS_SKIP;
if (skip) it('screen_stocks suite on PostgreSQL + Redis', { skip }, () => undefined);
else {
  process.env.TEST_BACKEND = 'postgres';
  await import('./screen-stocks.test.js');
}
