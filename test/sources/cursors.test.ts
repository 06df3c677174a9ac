import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readKrxCursor } from '../../src/sources/krx/source.js';
import { readCursor } from '../../src/sources/opendart/source.js';
import { readWalkCursor } from '../../src/sources/shared/date-walk.js';
import { jsonObject } from '../../src/sources/shared/parse.js';

// The adapters' cursors are JSON objects read through one helper, jsonObject; each reader then
// takes its own fields. A cursor that is not a JSON object reads as unreadable (null).

describe('jsonObject', () => {
  it('a JSON object comes back as that object', () => {
    assert.deepEqual(jsonObject('{"date":"2024-11-20","n":3}'), { date: '2024-11-20', n: 3 });
    assert.deepEqual(jsonObject(' {} '), {});
  });

  it('not JSON, or JSON that is not an object, is null', () => {
    for (const raw of ['', '{broken', '2024-11-20', '"text"', '42', 'null', 'true', '[]', '[{"date":"2024-11-20"}]']) {
      assert.equal(jsonObject(raw), null, raw);
    }
  });
});

describe('the cursor readers', () => {
  it('readWalkCursor: JSON object, bare date, unreadable', () => {
    assert.deepEqual(readWalkCursor('{"date":"2024-11-21","back":"2024-11-19","complete":false}'), { latest: '2024-11-21', back: '2024-11-19', complete: false });
    // A field that is not a YYYY-MM-DD string reads as null; `complete` only when exactly true.
    assert.deepEqual(readWalkCursor('{"date":20241121,"back":"2024-11","complete":"yes"}'), { latest: null, back: null, complete: false });
    assert.deepEqual(readWalkCursor(' 2024-11-20 '), { latest: '2024-11-20', back: null, complete: true });
    assert.deepEqual(readWalkCursor(null), { latest: null, back: null, complete: false });
    assert.equal(readWalkCursor('{broken'), null);
    assert.equal(readWalkCursor('"2024-11-20"'), null);
  });

  it('readKrxCursor: flows with the price walk, bare flows date, unreadable', () => {
    assert.deepEqual(readKrxCursor('{"flows":"2024-11-20","prices":{"date":"2024-11-21","back":"2024-11-19","complete":true}}'), {
      flows: '2024-11-20',
      prices: { latest: '2024-11-21', back: '2024-11-19', complete: true },
    });
    // No prices object: the walk starts afresh.
    assert.deepEqual(readKrxCursor('{"flows":"2024-11-20"}'), { flows: '2024-11-20', prices: { latest: null, back: null, complete: false } });
    assert.deepEqual(readKrxCursor(''), { flows: null, prices: { latest: null, back: null, complete: false } });
    assert.equal(readKrxCursor('{broken'), null);
  });

  it('readCursor (OpenDART): date required, known filtered to strings', () => {
    assert.deepEqual(readCursor('{"date":"2024-08-15","known":["00126380",7,"00164779"]}'), { date: '2024-08-15', known: ['00126380', '00164779'] });
    assert.deepEqual(readCursor('{"date":"2024-08-15"}'), { date: '2024-08-15', known: [] });
    assert.equal(readCursor('{"known":[]}'), null);
    assert.equal(readCursor('{broken'), null);
  });
});
