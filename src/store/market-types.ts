// The types market data's parts share (./market-data.ts and the files of each kind of record),
// kept apart so that the parts import no part of the store that imports them.

import type { Security } from '../domain/model.js';

/** A security as the store holds it: the id its records are keyed by. */
export interface StoredSecurity extends Security {
  id: number;
  /** The last trading day of a code that left its market's listing; absent while listed (./delistings.ts). */
  delistedOn?: string;
}

/**
 * The stocks with ids in [first, last]: the recompute reads the universe a slice at a time, so
 * that no one read holds a serving instance's event loop for long (SQLite reads are synchronous).
 * `securities`, when the caller has them, spares a read of the securities list per slice.
 */
export interface UniverseSlice {
  first: number;
  last: number;
  securities?: readonly StoredSecurity[];
}
