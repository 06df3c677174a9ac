// After each swap the new dataset's history cache fills in the background, largest market cap
// first (`SnapshotDataset.warmHistories`, ./history.ts `warm`); the next swap stops the previous
// fill, and `stop()` (the service's shutdown) stops the current one and starts no more.

import type { Logger } from 'pino';
import type { DatasetHolder } from './holder.js';
import type { SnapshotDataset } from './served.js';

export interface HistoryWarming {
  /** Stops the fill under way; later swaps start none. */
  stop(): void;
}

/**
 * Subscribes to `holder`'s swaps: each one aborts the previous fill and starts the new dataset's,
 * which logs `histories warmed` (stocks held, stocks read, ms, whether it was stopped) when it ends.
 */
export function warmHistoriesOnSwap(holder: DatasetHolder<SnapshotDataset>, logger: Logger): HistoryWarming {
  let warming = new AbortController();
  let stopped = false;
  holder.onSwap((data) => {
    warming.abort();
    warming = new AbortController();
    if (stopped) return;
    const started = Date.now();
    const signal = warming.signal;
    void data.warmHistories(signal).then(
      ({ read, held }) => logger.info({ version: data.version, stocks: held, read, ms: Date.now() - started, stopped: signal.aborted }, 'histories warmed'),
      () => undefined,
    );
  });
  return {
    stop() {
      stopped = true;
      warming.abort();
    },
  };
}
