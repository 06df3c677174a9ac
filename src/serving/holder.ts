// Holds the dataset snapshot being served. A refresh builds the next one completely and
// swaps the reference in one assignment, so a request sees either the old or the new
// snapshot, never a mixture.
//
// `D` is what the publisher swaps in: the doors read any `ServedDataset`; the service's own
// holder is typed with the snapshot it publishes (`DatasetHolder<SnapshotDataset>`), so a
// subscriber that needs more of it (the history warm-up, ./warming.ts) is typed for it.

import type { ServedDataset } from './dataset.js';

export class DatasetHolder<D extends ServedDataset = ServedDataset> {
  private dataset: D | null = null;
  // Held as listeners of any dataset so that a holder of a narrower `D` is also a holder of
  // `ServedDataset` to its readers; `onSwap` takes only listeners of `D`, and `swap` only a `D`.
  private readonly listeners: ((d: ServedDataset) => void)[] = [];

  get current(): D | null {
    return this.dataset;
  }

  /**
   * Serves `next`, unless a newer version is already served: two recomputes can finish out of
   * order (a follower's catch-up of version n still running when this instance's own refresh
   * publishes n + 1), and the older one must not replace the newer. Returns whether it swapped.
   */
  swap(next: D): boolean {
    if (this.dataset !== null && next.version < this.dataset.version) return false;
    this.dataset = next;
    for (const listener of this.listeners) listener(next);
    return true;
  }

  onSwap(listener: (d: D) => void): void {
    this.listeners.push(listener as (d: ServedDataset) => void);
  }
}
