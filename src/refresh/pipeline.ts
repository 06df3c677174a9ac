// The refresh pipeline: ingest what is new from each configured source, recompute the
// dataset snapshot and swap it in atomically. Runs every hour on the hour (Asia/Seoul); a run
// never overlaps another; a failed source leaves the previous data served and is reported.

import { Cron } from 'croner';
import type { Logger } from 'pino';
import { seoulDay, seoulIso, type Clock } from '../access/clock.js';
import type { Source } from '../sources/source.js';
import type { Store } from '../store/store.js';
import type { DatasetHolder } from '../tools/holder.js';
import { computeSnapshot } from './build.js';
import { loadUniverse, SnapshotDataset } from './served.js';

export interface SourceStatus {
  source: string;
  ok: boolean;
  at: string;
  /** A short message, never a key or a URL with one. */
  error?: string;
  records?: number;
}

export interface RefreshReport {
  ran: boolean;
  version: number | null;
  sources: SourceStatus[];
  timings: { ingestMs: number; loadMs: number; computeMs: number };
  counts?: { securities: number; scored: number; unscored: number };
}

const HOURLY = '0 * * * *';
const VERSION_KEY = 'dataset_version';

/** The next top of the hour after `at`. */
export function nextHour(at: Date): Date {
  return new Date(Math.floor(at.getTime() / 3_600_000) * 3_600_000 + 3_600_000);
}

export class Refresher {
  private running: Promise<RefreshReport> | null = null;
  private cron: Cron | null = null;
  private lastStatus: SourceStatus[] = [];

  constructor(
    private readonly store: Store,
    private readonly holder: DatasetHolder,
    private readonly sources: readonly Source[],
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** `demo` when no real source is configured, else the sources' names. */
    private readonly sourceLabel: string,
    /** A backfill's explicit date range, passed to every source. */
    private readonly range?: { from: string; to: string },
  ) {}

  get sourceStatus(): readonly SourceStatus[] {
    return this.lastStatus;
  }

  /** Starts the hourly schedule. */
  schedule(): void {
    this.cron ??= new Cron(HOURLY, { timezone: 'Asia/Seoul', protect: true }, () => {
      this.run().catch((err: unknown) => this.logger.error({ errName: (err as Error).name }, 'refresh failed'));
    });
  }

  stop(): void {
    this.cron?.stop();
    this.cron = null;
  }

  /** One refresh now. If one is already running, waits for it instead of starting another. */
  run(): Promise<RefreshReport> {
    this.running ??= this.runOnce().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Rebuilds the served snapshot from the store without ingesting (start-up). */
  async rebuild(): Promise<RefreshReport> {
    return this.recompute([], 0);
  }

  private async runOnce(): Promise<RefreshReport> {
    const started = this.clock();
    const runId = await this.store.startRefreshRun(started.toISOString());
    const statuses: SourceStatus[] = [];
    const t0 = performance.now();
    for (const source of this.sources) {
      const at = seoulIso(this.clock());
      try {
        const cursorKey = `cursor:${source.name}`;
        const cursor = await this.store.getMeta(cursorKey);
        const result = await source.ingest({
          asOf: seoulDay(this.clock()),
          cursor,
          ...(this.range ? { range: this.range } : {}),
          fetch: globalThis.fetch,
          log: {
            info: (msg, fields) => this.logger.info({ source: source.name, ...fields }, msg),
            warn: (msg, fields) => this.logger.warn({ source: source.name, ...fields }, msg),
          },
        });
        // One transaction per source: its records land whole or not at all.
        await this.store.writeDataset(result.data);
        await this.store.setMeta(cursorKey, result.cursor);
        const records = Object.values(result.data).reduce((n, rows) => n + (Array.isArray(rows) ? rows.length : 0), 0);
        statuses.push({ source: source.name, ok: true, at, records });
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        statuses.push({ source: source.name, ok: false, at, error: message.slice(0, 200) });
        this.logger.warn({ source: source.name, errName: (err as Error).name }, 'source failed; previous data kept');
      }
    }
    const ingestMs = performance.now() - t0;
    try {
      const report = await this.recompute(statuses, ingestMs);
      await this.store.finishRefreshRun(runId, this.clock().toISOString(), statuses.every((s) => s.ok) ? 'ok' : 'partial', JSON.stringify(statuses));
      return report;
    } catch (err) {
      await this.store.finishRefreshRun(runId, this.clock().toISOString(), 'failed', (err as Error).name);
      throw err;
    }
  }

  private async recompute(statuses: SourceStatus[], ingestMs: number): Promise<RefreshReport> {
    const now = this.clock();
    const asOf = seoulDay(now);
    const t1 = performance.now();
    const universe = await loadUniverse(this.store, asOf);
    const t2 = performance.now();
    const computed = computeSnapshot(universe, asOf);
    const t3 = performance.now();
    const version = Number((await this.store.getMeta(VERSION_KEY)) ?? '0') + 1;
    await this.store.setMeta(VERSION_KEY, String(version));
    this.holder.swap(
      new SnapshotDataset(computed, { version, updatedAt: seoulIso(now), source: this.sourceLabel, nextRefreshAt: nextHour(now) }, this.store),
    );
    this.lastStatus = statuses;
    const report: RefreshReport = {
      ran: true,
      version,
      sources: statuses,
      timings: { ingestMs: Math.round(ingestMs), loadMs: Math.round(t2 - t1), computeMs: Math.round(t3 - t2) },
      counts: computed.counts,
    };
    this.logger.info({ version, ...report.timings, ...computed.counts }, 'dataset swapped');
    return report;
  }
}
