// Holds the dataset snapshot being served. A refresh builds the next one completely and
// swaps the reference in one assignment, so a request sees either the old or the new
// snapshot, never a mixture.

import type { ServedDataset } from './dataset.js';

export class DatasetHolder {
  private dataset: ServedDataset | null = null;
  private readonly listeners: ((d: ServedDataset) => void)[] = [];

  get current(): ServedDataset | null {
    return this.dataset;
  }

  /**
   * Serves `next`, unless a newer version is already served: two recomputes can finish out of
   * order (a follower's catch-up of version n still running when this instance's own refresh
   * publishes n + 1), and the older one must not replace the newer. Returns whether it swapped.
   */
  swap(next: ServedDataset): boolean {
    if (this.dataset !== null && next.version < this.dataset.version) return false;
    this.dataset = next;
    for (const listener of this.listeners) listener(next);
    return true;
  }

  onSwap(listener: (d: ServedDataset) => void): void {
    this.listeners.push(listener);
  }
}
