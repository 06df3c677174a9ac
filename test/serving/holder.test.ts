// The served-dataset holder: one reference swapped whole, never back to an older version.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DatasetHolder } from '../../src/serving/holder.js';
import type { ServedDataset } from '../../src/serving/dataset.js';

const dataset = (version: number): ServedDataset => ({ version }) as ServedDataset;

describe('DatasetHolder', () => {
  it('swaps in newer and equal versions, and refuses an older one that finished late', () => {
    const holder = new DatasetHolder();
    const seen: number[] = [];
    holder.onSwap((d) => seen.push(d.version));
    assert.equal(holder.swap(dataset(3)), true);
    assert.equal(holder.swap(dataset(5)), true);
    // A follower's catch-up of version 4 finishing after this instance published 5.
    assert.equal(holder.swap(dataset(4)), false);
    assert.equal(holder.current?.version, 5);
    // A rebuild of the served version (start-up, new statuses) is taken.
    assert.equal(holder.swap(dataset(5)), true);
    assert.deepEqual(seen, [3, 5, 5]);
  });
});
