// The per-address window counter behind the failed-authentication limit and the OAuth
// registration limit, on a hand-driven clock.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AddressLimit, AddressShare } from '../../src/access/address-limit.js';

describe('AddressLimit', () => {
  it('allows perWindow events, then names the seconds left in the window; another address is apart', () => {
    const limit = new AddressLimit(3, 60_000);
    // Events at 0, 1 s, 2 s: within the limit. The 4th at 10.5 s is over: the window began at 0
    // and ends at 60 s, so 49.5 s are left, rounded up to 50.
    assert.equal(limit.count('a', 0), null);
    assert.equal(limit.count('a', 1_000), null);
    assert.equal(limit.count('a', 2_000), null);
    assert.equal(limit.blocked('a', 2_000), 58);
    assert.equal(limit.count('a', 10_500), 50);
    assert.equal(limit.blocked('a', 10_500), 50);
    assert.equal(limit.blocked('b', 10_500), null);
    assert.equal(limit.count('b', 10_500), null);
  });

  it('opens a new window once the old one has run out, and never waits less than a second', () => {
    const limit = new AddressLimit(1, 3_600_000);
    assert.equal(limit.count('a', 0), null);
    // 0.2 s before the hour ends: 1 s (the wait is rounded up, never 0).
    assert.equal(limit.blocked('a', 3_599_800), 1);
    assert.equal(limit.blocked('a', 3_600_000), null);
    assert.equal(limit.count('a', 3_600_000), null);
    assert.equal(limit.blocked('a', 3_600_000), 3_600);
  });

  it('treats a clock that went back as a new window', () => {
    const limit = new AddressLimit(1, 60_000);
    limit.count('a', 100_000);
    assert.equal(limit.blocked('a', 100_000), 60);
    assert.equal(limit.blocked('a', 50_000), null);
  });
});

describe('AddressShare', () => {
  it('gives an address at most perAddress places at once, each address apart; a place given back can be taken again', () => {
    const share = new AddressShare(2);
    assert.deepEqual([share.take('a'), share.take('a'), share.take('a')], [true, true, false], 'two places, the third refused');
    assert.equal(share.of('a'), 2, 'the refused take took nothing');
    assert.equal(share.take('b'), true, 'another address has its own two');
    share.release('a');
    assert.equal(share.of('a'), 1);
    assert.equal(share.take('a'), true, 'the place given back');
    share.release('a');
    share.release('a');
    share.release('a'); // one more than held: nothing goes below 0
    assert.equal(share.of('a'), 0);
    assert.deepEqual([share.take('a'), share.take('a'), share.take('a')], [true, true, false]);
  });
});
