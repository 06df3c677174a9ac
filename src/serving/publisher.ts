// The serving side of a new dataset version: in every serving process, the publisher watches the
// store's dataset version, loads the universe, computes the snapshot and swaps it into the holder.
// The refresh only writes (sources -> store -> version bump); whoever wrote the version, this
// process or another one (a second instance, the CLI's refresh or import), the publisher serves it.
//
// - A refresh in this process tells the publisher of its version directly (`publish`), so the
//   new data is served as soon as it is computed; the run's source states come with it.
// - Every other version is noticed by polling (`follow`, every 3 s) and served the same way.
// - Recomputes run one at a time, in the order asked; a poll finding one under way waits for the
//   next poll. A recompute that fails leaves the previous dataset served.

import type { Logger } from 'pino';
import { seoulDay, seoulIso, type Clock } from '../kernel/clock.js';
import { stallMonitor } from '../runtime/stalls.js';
import type { MarketDataStore } from '../store/market-data.js';
import type { RefreshStore } from '../store/refresh-store.js';
import { AS_OF_CACHE_DAYS, pastDaysOf } from './as-of.js';
import { computeSnapshotYielding } from './build.js';
import type { SourceState } from './dataset.js';
import type { DatasetHolder } from './holder.js';
import { loadUniverse, SnapshotDataset } from './served.js';

export interface PublisherOptions {
  /** `demo` when no real source is configured, else the sources' names: the served dataset's `source`. */
  sourceLabel: string;
  /** When the next scheduled refresh after `at` is due (the served `nextRefreshAt`); null without a schedule. */
  nextRefreshAfter?: (at: Date) => Date | null;
  /** How often the store's dataset version is checked. */
  pollMs?: number;
  /** Past days whose universe each dataset version keeps for as-of answers (src/serving/as-of.ts). */
  asOfDays?: number;
}

export interface PublishReport {
  version: number;
  /** False when a newer version was served meanwhile and this one was dropped. */
  swapped: boolean;
  /**
   * `maxStallMs`: the longest the event loop was held while this process recomputed (its
   * requests waited at most that long on the recompute), to 10 ms.
   */
  timings: { loadMs: number; computeMs: number; maxStallMs: number };
  counts: { securities: number; scored: number; unscored: number };
}

/** What health and /readyz show of a source's run: its state, without what the run log keeps besides. */
function servedState({ source, ok, at, error, records }: SourceState): SourceState {
  return { source, ok, at, ...(error === undefined ? {} : { error }), ...(records === undefined ? {} : { records }) };
}

export class Publisher {
  private poller: NodeJS.Timeout | null = null;
  /** The recomputes asked for, in order; `queued` counts those not settled yet. */
  private chain: Promise<unknown> = Promise.resolve();
  private queued = 0;
  /** The last refresh's source states told to this process; served with every dataset after it. */
  private lastSources: readonly SourceState[] = [];
  private readonly options: Required<PublisherOptions>;

  constructor(
    /** Reads the universe (market data) and the dataset version (refresh bookkeeping); writes nothing. */
    private readonly store: { market: MarketDataStore; refresh: Pick<RefreshStore, 'datasetVersion'> },
    private readonly holder: DatasetHolder<SnapshotDataset>,
    private readonly clock: Clock,
    private readonly logger: Logger,
    options: PublisherOptions,
  ) {
    this.options = { nextRefreshAfter: () => null, pollMs: 3_000, asOfDays: AS_OF_CACHE_DAYS, ...options };
  }

  /**
   * Serves `version`, computed from the store now; `sources`: the states of the refresh run that
   * wrote it (health and /readyz show them). Rejects when the load or the computation fails (the
   * previous dataset stays served).
   */
  publish(version: number, sources?: readonly SourceState[]): Promise<PublishReport> {
    this.queued++;
    const next = this.chain.then(() => this.recompute(version, sources));
    this.chain = next.then(
      () => this.queued--,
      () => this.queued--,
    );
    return next;
  }

  /** Serves the store's current dataset version, whatever is served (start-up). */
  async rebuild(): Promise<PublishReport> {
    return this.publish(await this.store.refresh.datasetVersion());
  }

  /**
   * Serves the store's dataset version when it is newer than the one served and no recompute is
   * under way or asked for (the next poll looks again). Returns whether it recomputed; a failed
   * recompute is logged, never thrown.
   */
  async catchUp(): Promise<boolean> {
    if (this.queued > 0) return false;
    const version = await this.store.refresh.datasetVersion();
    if (version <= (this.holder.current?.version ?? 0) || this.queued > 0) return false;
    await this.publish(version).catch((err: unknown) => this.logger.warn({ errName: (err as Error).name }, 'catch-up recompute failed; previous dataset kept'));
    return true;
  }

  /** Polls the dataset version and serves each newer one. */
  follow(): void {
    this.poller ??= setInterval(() => {
      this.catchUp().catch((err: unknown) => this.logger.warn({ errName: (err as Error).name }, 'version poll failed'));
    }, this.options.pollMs);
    this.poller.unref();
  }

  /** Stops polling; a recompute under way ends (`idle`), and `publish` still serves what it is told. */
  stop(): void {
    if (this.poller) clearInterval(this.poller);
    this.poller = null;
  }

  /** Resolves when no recompute is under way or asked for. */
  async idle(): Promise<void> {
    while (this.queued > 0) await this.chain;
  }

  private async recompute(version: number, sources: readonly SourceState[] | undefined): Promise<PublishReport> {
    const now = this.clock();
    const asOf = seoulDay(now);
    // What serving requests feel of the recompute: it shares their event loop.
    const stalls = stallMonitor();
    const t1 = performance.now();
    let t2: number, t3: number, computed: Awaited<ReturnType<typeof computeSnapshotYielding>>;
    try {
      const universe = await loadUniverse(this.store.market, asOf);
      t2 = performance.now();
      computed = await computeSnapshotYielding(universe, asOf);
      t3 = performance.now();
    } finally {
      stalls.stop();
    }
    if (sources !== undefined) this.lastSources = sources.map(servedState);
    const dataset = new SnapshotDataset(
      computed,
      { version, updatedAt: seoulIso(now), source: this.options.sourceLabel, nextRefreshAt: this.options.nextRefreshAfter(now), sources: this.lastSources },
      this.store.market,
      { past: pastDaysOf(this.options.asOfDays) },
    );
    const swapped = this.holder.swap(dataset);
    // What every as-of answer of the version uses (the earliest day among it: seconds of reads at
    // full size) is read in the background, so that health and the first as-of call of the
    // version do not wait for it; a failed read is made again by the call that next needs it.
    if (swapped) dataset.past.prepare().catch(() => undefined);
    const report: PublishReport = {
      version,
      swapped,
      timings: { loadMs: Math.round(t2 - t1), computeMs: Math.round(t3 - t2), maxStallMs: stalls.longestMs() },
      counts: computed.counts,
    };
    if (swapped) this.logger.info({ version, ...report.timings, ...computed.counts }, 'dataset swapped');
    else this.logger.info({ version, served: this.holder.current?.version }, 'a newer dataset was served meanwhile; this one is dropped');
    return report;
  }
}
