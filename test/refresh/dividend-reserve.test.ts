// DART_BACKFILL_RESERVE (src/config.ts): the calls of OpenDART's daily allowance the dividend
// backfill leaves for the hourly refreshes (src/refresh/dividends.ts `reserve`).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { DEFAULT_RESERVE } from '../../src/refresh/dividends.js';

describe('DART_BACKFILL_RESERVE', () => {
  it('defaults to the backfill default, takes a non-negative integer, and refuses anything else', () => {
    assert.equal(loadConfig({}).DART_BACKFILL_RESERVE, DEFAULT_RESERVE);
    assert.equal(DEFAULT_RESERVE, 5_000);
    assert.equal(loadConfig({ DART_BACKFILL_RESERVE: '12000' }).DART_BACKFILL_RESERVE, 12_000);
    assert.equal(loadConfig({ DART_BACKFILL_RESERVE: '0' }).DART_BACKFILL_RESERVE, 0);
    for (const bad of ['-1', '2.5', 'all']) assert.throws(() => loadConfig({ DART_BACKFILL_RESERVE: bad }), /DART_BACKFILL_RESERVE/, bad);
  });
});
