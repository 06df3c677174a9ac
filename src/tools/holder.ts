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

  swap(next: ServedDataset): void {
    this.dataset = next;
    for (const listener of this.listeners) listener(next);
  }

  onSwap(listener: (d: ServedDataset) => void): void {
    this.listeners.push(listener);
  }
}
