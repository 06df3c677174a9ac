// How far V8 lets the JavaScript heap grow past what its last full collection kept.
//
// Why: V8 sets the next full collection's limit at up to 4x the heap that survived the last one
// when collecting is cheap, and fast uncached calls at ~9,000 a second leave ~5 KB a call that
// reaches the old generation before it dies (which objects is not known: not the response
// cache, which keeps no `no-cache` answer, nor the ETag's hash objects). Left to V8, the old
// generation of a full-size service grows to 4x its ~130 MB live before a collection, and the
// service's RSS past 1 GiB (docs/performance.md, "What dominates each cost"). A fixed factor
// bounds it at the cost of more frequent collections.

import { setFlagsFromString } from 'node:v8';

/**
 * The next full collection comes once the old generation is `percent`% larger than what the last
 * one kept (V8's `--heap-growing-percent`, which V8 reads each time it sets that limit, so it
 * applies from the next collection on). 0 leaves V8's own choice.
 */
export function setHeapGrowth(percent: number): void {
  if (!Number.isInteger(percent) || percent < 0) throw new Error(`heap growth must be a whole percent >= 0, not ${percent}`);
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
