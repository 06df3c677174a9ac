// ParsedArgs: a REST route's accepted arguments held by URL (src/http/rest.ts).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ParsedArgs } from '../../src/http/rest.js';
import { ResponseCache } from '../../src/http/response-cache.js';
import { ApiError } from '../../src/kernel/errors.js';

describe('ParsedArgs', () => {
  it('parses a URL once and answers later calls with the same frozen arguments', () => {
    const parsed = new ParsedArgs();
    let parses = 0;
    const parse = () => {
      parses++;
      return { limit: 7, market: 'US' };
    };
    const first = parsed.of('/rankings?limit=7&market=US', parse);
    const again = parsed.of('/rankings?limit=7&market=US', parse);
    assert.deepEqual(first, { limit: 7, market: 'US' });
    assert.equal(again, first);
    assert.equal(parses, 1);
    assert.ok(Object.isFrozen(first));
  });

  it('keeps nothing for a refused URL: it is judged, and refused with the same error, every time', () => {
    const parsed = new ParsedArgs();
    let parses = 0;
    const refuse = () => {
      parses++;
      throw new ApiError('invalid_parameter', "parameter 'limit' 500 is out of range", { parameter: 'limit' });
    };
    for (let i = 0; i < 2; i++) assert.throws(() => parsed.of('/rankings?limit=500', refuse), { code: 'invalid_parameter', detail: "parameter 'limit' 500 is out of range" });
    assert.equal(parses, 2);
    assert.equal(parsed.size, 0);
  });

  it('is bounded: long URLs are not kept, and a full map starts again', () => {
    const parsed = new ParsedArgs();
    const long = `/rankings?x=${'a'.repeat(ParsedArgs.MAX_URL_LENGTH)}`;
    assert.deepEqual(parsed.of(long, () => ({ x: 1 })), { x: 1 });
    assert.equal(parsed.size, 0);
    for (let i = 0; i < ParsedArgs.MAX_ENTRIES; i++) parsed.of(`/rankings?limit=${i}`, () => ({ limit: i }));
    assert.equal(parsed.size, ParsedArgs.MAX_ENTRIES);
    parsed.of('/rankings?limit=one-more', () => ({ limit: 1 }));
    assert.equal(parsed.size, 1);
  });

  it('held arguments give the response cache the same key as fresh ones', () => {
    const fresh = { market: 'US', limit: 7 };
    const held = Object.freeze({ limit: 7, market: 'US' });
    assert.equal(ResponseCache.key(3, 'get_rankings', held), ResponseCache.key(3, 'get_rankings', fresh));
    assert.equal(ResponseCache.key(3, 'get_rankings', held), '3|get_rankings|limit=7&market="US"');
    assert.equal(ResponseCache.key(3, 'get_rankings', held), '3|get_rankings|limit=7&market="US"', 'from the held text');
  });
});
