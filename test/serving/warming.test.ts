// The history warm-up follows publication: each swap starts the new dataset's fill and aborts
// the previous one; stop() aborts the fill under way and no later swap starts one.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { DatasetHolder } from '../../src/serving/holder.js';
import type { SnapshotDataset } from '../../src/serving/served.js';
import { warmHistoriesOnSwap } from '../../src/serving/warming.js';

/** A dataset whose fill records its signal and ends only when that signal aborts. */
function dataset(version: number, signals: Map<number, AbortSignal>): SnapshotDataset {
  const warmHistories = (signal: AbortSignal) => {
    signals.set(version, signal);
    return new Promise<{ read: number; held: number }>((resolve) => signal.addEventListener('abort', () => resolve({ read: 0, held: 0 }), { once: true }));
  };
  return { version, warmHistories } as unknown as SnapshotDataset;
}

describe('warmHistoriesOnSwap', () => {
  it('starts each swapped dataset’s fill, aborts the previous one, and starts none after stop()', () => {
    const holder = new DatasetHolder<SnapshotDataset>();
    const signals = new Map<number, AbortSignal>();
    const warming = warmHistoriesOnSwap(holder, pino({ level: 'silent' }));

    holder.swap(dataset(1, signals));
    assert.deepEqual([...signals.keys()], [1]);
    assert.equal(signals.get(1)?.aborted, false);

    holder.swap(dataset(2, signals));
    assert.deepEqual([...signals.keys()], [1, 2]);
    assert.equal(signals.get(1)?.aborted, true);
    assert.equal(signals.get(2)?.aborted, false);

    warming.stop();
    assert.equal(signals.get(2)?.aborted, true);
    holder.swap(dataset(3, signals));
    assert.deepEqual([...signals.keys()], [1, 2]);
  });
});
