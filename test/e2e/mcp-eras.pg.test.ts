// The protocol-era suite again, on PostgreSQL with usage counters in Redis (tokens and keys in
// PostgreSQL, each call counted in Redis: health's callsToday is the same 11 in every era).
import { it } from 'node:test';
import { PG_SKIP, REDIS_SKIP } from '../support/pg.js';

const skip = PG_SKIP || REDIS_SKIP;
if (skip) it('MCP protocol-era suite on PostgreSQL + Redis', { skip }, () => undefined);
else {
  process.env.TEST_BACKEND = 'postgres';
  await import('./mcp-eras.test.js');
}
