// The refresh pipeline: ingest what is new from each configured source into the store and
// publish a new dataset version. Runs every hour on the hour (Asia/Seoul). It only writes:
// serving a version (loading, computing, swapping) is the serving side's (serving/publisher.ts),
// which a serving process tells of each version through `onPublish`.
//
// - A run never overlaps another in this process (callers share the running promise).
// - Across instances, each hourly slot is claimed in the database: exactly one instance runs
//   it; every serving instance notices the new dataset version (polled) and recomputes from the
//   shared store within seconds.
// - A failed source (error, timeout, malformed data) leaves the previous data stored and is
//   recorded: in `sourceStatus`, in the refresh_runs table, in /readyz and in health.

import { Cron } from 'croner';
import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import { seoulDay, seoulIso, type Clock } from '../kernel/clock.js';
import { readMeterState } from '../sources/meter.js';
import type { Source } from '../sources/source.js';
import type { Store } from '../store/store.js';
import { runOutcome } from '../domain/runs.js';
import { usdSeriesOf } from '../domain/reference-rates.js';
import { Claims } from './claims.js';
import { failAbandonedRuns, runningDetail } from './runs.js';
import type { ProgressBoard } from './progress.js';

export interface SourceStatus {
  source: string;
  ok: boolean;
  at: string;
  /** A short message, never a key or a URL with one. */
  error?: string;
  /** Records stored by this run. */
  records?: number;
  /** Records read but not taken, by reason (the adapter's and the store's), and a few examples. */
  skipped?: Record<string, number>;
  skippedExamples?: string[];
}

export interface RefreshReport {
  ran: boolean;
  version: number | null;
  sources: SourceStatus[];
  timings: { ingestMs: number };
}

export interface RefresherOptions {
  /** A backfill's explicit date range, passed to every source. */
  range?: { from: string; to: string };
  /** How long one source may take before it is abandoned as failed. */
  sourceTimeoutMs?: number;
  /** This instance's name in refresh claims. */
  instance?: string;
  /**
   * Cron expression (Asia/Seoul) for scheduled runs; default every hour on the hour. `null`: no
   * scheduled runs (REFRESH_SCHEDULE=off), so a dataset names no next refresh.
   */
  cron?: string | null;
  /** Where each source's progress goes (`ctx.progress`): waiting, its own phases, then done or failed. */
  progress?: ProgressBoard;
  /**
   * Told of each version a run publishes, with the run's source states, after the run is
   * recorded; awaited, so that `run()` resolves once it is done (a serving process serves the
   * version: serving/publisher.ts). Its failure is logged, never the run's.
   */
  onPublish?: (version: number, sources: readonly SourceStatus[]) => Promise<unknown> | void;
}

const HOURLY = '0 * * * *';

/** The slot of a scheduled run: its scheduled time, the same on every instance. */
export function runSlot(scheduled: Date): string {
  return `run:${new Date(Math.floor(scheduled.getTime() / 1000) * 1000).toISOString()}`;
}

export class Refresher {
  private running: Promise<RefreshReport> | null = null;
  private cron: Cron | null = null;
  private lastStatus: SourceStatus[] = [];
  private readonly options: Required<Omit<RefresherOptions, 'range' | 'progress' | 'onPublish'>> & Pick<RefresherOptions, 'range' | 'progress' | 'onPublish'>;
  /** The schedule's pattern, for when the next run is due (runs nothing itself); null without a schedule. */
  private readonly timetable: Cron | null;

  constructor(
    /** Writes market data; keeps the refresh bookkeeping (cursors, runs, the dataset version). */
    private readonly store: Pick<Store, 'market' | 'refresh'>,
    private readonly sources: readonly Source[],
    private readonly clock: Clock,
    private readonly logger: Logger,
    options: RefresherOptions = {},
  ) {
    this.options = { sourceTimeoutMs: 10 * 60_000, instance: randomUUID(), cron: HOURLY, ...options };
    // Parsed here, so that a pattern croner rejects stops the start rather than the first schedule().
    this.timetable = this.options.cron === null ? null : new Cron(this.options.cron, { timezone: 'Asia/Seoul' });
    this.timeoutSetByCaller = options.sourceTimeoutMs !== undefined;
    this.claims = new Claims(store.refresh, logger, { instance: this.options.instance });
  }

  private readonly claims: Claims;
  /** A timeout given to the refresher holds for every source; else a source's own, else ten minutes. */
  private readonly timeoutSetByCaller: boolean;
  /** Aborted by `stop()`: a source being read stops as on a timeout, and no new run starts. */
  private readonly stopping = new AbortController();

  /** Resolves when no run is in progress (a stopped run ends within its source's abort). */
  async idle(): Promise<void> {
    await Promise.allSettled([this.running]);
  }

  get sourceStatus(): readonly SourceStatus[] {
    return this.lastStatus;
  }

  /** When the next scheduled run after `at` is due; null when there is no schedule. */
  nextRunAfter(at: Date): Date | null {
    return this.timetable?.nextRun(at) ?? null;
  }

  /** Starts the schedule, when there is one. */
  schedule(): void {
    const pattern = this.options.cron;
    if (pattern !== null) {
      this.cron ??= new Cron(pattern, { timezone: 'Asia/Seoul', protect: true }, (job: Cron) => {
        // The scheduled time (not the moment the callback runs) names the slot, so instances
        // whose timers fire a few milliseconds apart still compete for the same slot.
        const scheduled = job.currentRun() ?? new Date();
        this.runScheduled(scheduled).catch((err: unknown) => this.logger.error({ errName: (err as Error).name }, 'refresh failed'));
      });
    }
  }

  stop(): void {
    this.cron?.stop();
    this.cron = null;
    this.stopping.abort();
  }

  /**
   * A scheduled run: only the instance that claims the slot refreshes. A run that fails or is
   * stopped gives its claim back; a holder that dies leaves one the next claimant takes over.
   */
  async runScheduled(scheduled: Date): Promise<RefreshReport | null> {
    if (this.stopping.signal.aborted) return null;
    const lease = await this.claims.acquire(runSlot(scheduled));
    if (!lease) return null;
    try {
      const report = await this.run();
      await lease.finish();
      return report;
    } catch (err) {
      await lease.release().catch(() => undefined);
      throw err;
    }
  }

  /**
   * One refresh now. If one is already running, waits for it instead of starting another.
   * `only`: the names of the sources to run (a first start runs some before the bulk files are
   * in, the rest after); default every source.
   */
  run(only?: readonly string[]): Promise<RefreshReport> {
    const sources = only ? this.sources.filter((s) => only.includes(s.name)) : this.sources;
    this.running ??= this.runOnce(sources).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async ingest(source: Source): Promise<SourceStatus> {
    const at = seoulIso(this.clock());
    const progress = this.options.progress?.sink(source.name);
    progress?.({ phase: 'calling', note: null });
    const cursorKey = `cursor:${source.name}`;
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let onStop = (): void => undefined;
    try {
      const cursor = await this.store.refresh.getMeta(cursorKey);
      const calls = readMeterState(await this.store.refresh.getMeta(`calls:${source.name}`));
      const timeoutMs = this.timeoutSetByCaller ? this.options.sourceTimeoutMs : (source.timeoutMs ?? this.options.sourceTimeoutMs);
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          controller.abort();
          reject(new Error(`timed out after ${timeoutMs} ms`));
        }, timeoutMs);
        // A shutdown stops the source as a timeout does: nothing of it is written.
        onStop = () => {
          controller.abort();
          reject(new Error('stopped: the service is shutting down'));
        };
        if (this.stopping.signal.aborted) onStop();
        else this.stopping.signal.addEventListener('abort', onStop, { once: true });
      });
      const asOf = seoulDay(this.clock());
      const result = await Promise.race([
        source.ingest({
          asOf,
          now: this.clock(),
          cursor,
          ...(this.options.range ? { range: this.options.range } : {}),
          fetch: globalThis.fetch,
          signal: controller.signal,
          log: {
            info: (msg, fields) => this.logger.info({ source: source.name, ...fields }, msg),
            warn: (msg, fields) => this.logger.warn({ source: source.name, ...fields }, msg),
          },
          ...(progress ? { progress } : {}),
          calls,
          // Listed codes only: a delisted one (src/store/delistings.ts) has nothing more to ask for.
          universe: async (market) => (await this.store.market.securities()).filter((s) => s.market === market && s.delistedOn === undefined).map((s) => s.code),
          usdRates: async () => usdSeriesOf(await this.store.market.referenceRates()),
        }),
        timeout,
      ]);
      // One transaction per source: what can be placed lands whole or not at all; a record for
      // a company no source has placed is skipped and counted, not a reason to lose the rest.
      // The day the records describe: a backfill's the end of its range (its companies as of their
      // newest rows there), a run's its own day.
      const written = await this.store.market.writeDataset(result.data, { asOf: this.options.range?.to ?? asOf }).catch((err: unknown) => {
        // The database's own message (a constraint, a column) is for the log, not for health
        // and /readyz, which callers see.
        this.logger.warn({ source: source.name, err }, 'store refused the source\'s records; none of them kept');
        throw new Error('the store refused the records of this run (none kept; details in the log)');
      });
      // A backfill reads an explicit older range: the incremental cursor stays where the
      // hourly runs left it, or the next run would fetch everything since the range again.
      if (!this.options.range) await this.store.refresh.setMeta(cursorKey, result.cursor);
      // The day's call count, handed back next run so a restart does not forget the allowance used.
      if (result.calls) await this.store.refresh.setMeta(`calls:${source.name}`, JSON.stringify(result.calls));
      const skipped = { ...result.skipped };
      for (const [reason, n] of Object.entries(written.skipped)) skipped[reason] = (skipped[reason] ?? 0) + n;
      const status: SourceStatus = { source: source.name, ok: true, at, records: written.written };
      if (Object.keys(skipped).length > 0) {
        status.skipped = skipped;
        if (written.examples.length > 0) status.skippedExamples = written.examples;
        this.logger.warn({ source: source.name, skipped, examples: written.examples }, 'source records skipped');
      }
      // A source that stopped with more to do (a walk's per-run bound, or the day's allowance)
      // said so itself, with its ETA and next try: that stays; otherwise it is done.
      const left = this.options.progress?.phaseOf(source.name);
      if (left === 'waiting' || left === 'paced') this.options.progress?.update(source.name, {});
      else this.options.progress?.finish(source.name, 'done', `${written.written} records stored`);
      return status;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      // "Previous data kept" only where there is some: on an empty store (a first start with the
      // upstreams unreachable) nothing is kept and nothing is served.
      const held = await this.store.market.hasMarketData().catch(() => null);
      const outcome = held === null ? 'source failed' : held ? 'source failed; previous data kept' : 'source failed; no data stored yet, nothing to serve from it';
      this.logger.warn({ source: source.name, errName: (err as Error).name }, outcome);
      this.options.progress?.finish(source.name, 'failed', message.slice(0, 200), this.cron?.nextRun() ?? null);
      return { source: source.name, ok: false, at, error: message.slice(0, 200) };
    } finally {
      clearTimeout(timer);
      this.stopping.signal.removeEventListener('abort', onStop);
    }
  }

  private async runOnce(sources: readonly Source[]): Promise<RefreshReport> {
    await failAbandonedRuns(this.store.refresh, this.clock().toISOString(), this.logger);
    const runId = await this.store.refresh.startRefreshRun(this.clock().toISOString(), runningDetail());
    const t0 = performance.now();
    const statuses: SourceStatus[] = [];
    for (const source of sources) this.options.progress?.update(source.name, { phase: 'waiting', note: 'its turn in this refresh' });
    for (const source of sources) statuses.push(await this.ingest(source));
    this.options.progress?.flush();
    const ingestMs = performance.now() - t0;
    if (this.stopping.signal.aborted) {
      // Sources that finished before the stop landed whole; no version is published for them
      // until the next run, which finds them stored.
      await this.store.refresh.finishRefreshRun(runId, this.clock().toISOString(), 'stopped', JSON.stringify(statuses));
      throw new Error('refresh stopped: the service is shutting down');
    }
    let version: number;
    try {
      // Every completed run publishes a new version (new data, or at least a new as-of date
      // and updatedAt); every serving instance serves it when it sees it.
      version = await this.store.refresh.bumpDatasetVersion();
      await this.store.refresh.finishRefreshRun(runId, this.clock().toISOString(), runOutcome(statuses), JSON.stringify(statuses));
    } catch (err) {
      await this.store.refresh.finishRefreshRun(runId, this.clock().toISOString(), 'failed', (err as Error).name);
      throw err;
    }
    this.lastStatus = statuses;
    this.logger.info({ version, ingestMs: Math.round(ingestMs), sources: statuses.length }, 'refresh stored; dataset version published');
    try {
      await this.options.onPublish?.(version, statuses);
    } catch (err) {
      this.logger.warn({ version, errName: (err as Error).name }, 'the published version was not served here; the version poll tries again');
    }
    return { ran: true, version, sources: statuses, timings: { ingestMs: Math.round(ingestMs) } };
  }
}
