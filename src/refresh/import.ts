// The bulk import: runs the bulk readers (OpenDART's quarterly ZIPs, SEC's nightly archives) and
// stores each batch they yield in its own transaction, as it comes, so memory stays bounded by
// one batch per reader and what was read is served as it arrives. Every few seconds (60 by
// default) and at the end it publishes a new dataset version, which a serving instance picks up
// and recomputes from (serving/publisher.ts): a batch is whole in itself (a company's filings with
// its placement, a period's statements), so no version shows a half-written batch.
//
// One reader's failure (a truncated archive, an HTML page instead of a ZIP) costs only what it
// had not read yet: what it yielded stays stored, the error is recorded with its reason, and the
// other readers go on. A reader that reads to its end but stores nothing (every file refused,
// every member skipped) fails too, with its skip reasons: an import that read nothing is not ok.
// The run is recorded in refresh_runs like a refresh (`sources` lists it): `ok` when every
// source read through, `failed` when none did, else `partial`.

import type { Logger } from 'pino';
import { seoulDay, seoulIso, type Clock } from '../kernel/clock.js';
import type { BulkBatch, BulkContext, BulkReader } from '../sources/bulk.js';
import type { ProgressSink } from '../sources/progress.js';
import type { Store } from '../store/store.js';
import { runOutcome } from '../domain/runs.js';
import type { SourceStatus } from './pipeline.js';
import type { ProgressBoard } from './progress.js';
import { failAbandonedRuns, runningDetail } from './runs.js';

/**
 * A bulk source whose reader needs preparing first (downloading its files, reading the ticker
 * list): `open` failing fails this source alone, like a reader that throws.
 */
export interface BulkPreparation {
  readonly source: string;
  open(ctx: Pick<BulkContext, 'signal' | 'log' | 'progress' | 'skip'>): Promise<BulkReader>;
}

export type BulkInput = BulkReader | BulkPreparation;

export interface ImporterOptions {
  /** Publish a new dataset version at most this often while importing (and once at the end). */
  publishEverySeconds?: number;
  /** Called after each published version (a serving process recomputes). Its failure is logged, never the import's. */
  onPublish?: (version: number) => Promise<unknown> | void;
}

export type ImportStatus = 'ok' | 'partial' | 'failed' | 'stopped';

export interface ImportReport {
  runId: number;
  status: ImportStatus;
  sources: SourceStatus[];
  /** The dataset versions this import published, in order. */
  versions: number[];
  /** Batches stored, over all sources. */
  batches: number;
}

/** Most examples kept per source (skipped inputs, for the run's report and the log). */
const MAX_EXAMPLES = 10;

/** What one source's import counted. */
class SourceTally {
  records = 0;
  batches = 0;
  readonly skipped: Record<string, number> = {};
  readonly examples: string[] = [];
  error: string | null = null;

  skip(reason: string, example: string | undefined, count: number): void {
    if (!(count > 0)) return;
    this.skipped[reason] = (this.skipped[reason] ?? 0) + count;
    if (example !== undefined) this.example(example);
  }

  example(example: string): void {
    if (this.examples.length < MAX_EXAMPLES && !this.examples.includes(example)) this.examples.push(example);
  }

  status(source: string, at: string): SourceStatus {
    const status: SourceStatus = { source, ok: this.error === null, at, records: this.records };
    if (this.error !== null) status.error = this.error;
    if (Object.keys(this.skipped).length > 0) status.skipped = { ...this.skipped };
    if (this.examples.length > 0) status.skippedExamples = [...this.examples];
    return status;
  }
}

const isPreparation = (input: BulkInput): input is BulkPreparation => 'open' in input && typeof input.open === 'function';

/**
 * What an error says, short: a ZipReadError's message starts with its stable reason (`not a ZIP:
 * an HTML page (...)`); an HTTP error's is already redacted by the source's client. Never a stack.
 */
export function failureReason(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').slice(0, 200);
}

/** Why a source that read to its end stored nothing: its most frequent skip reasons. */
export function nothingStored(skipped: Readonly<Record<string, number>>): string {
  const reasons = Object.entries(skipped).sort((a, b) => b[1] - a[1]);
  if (reasons.length === 0) return 'nothing read: the files held no record';
  const shown = reasons.slice(0, 3).map(([reason, n]) => `${reason}: ${n}`);
  return failureReason(`nothing read (skipped: ${shown.join('; ')}${reasons.length > 3 ? '; ...' : ''})`);
}

export class Importer {
  private readonly publishEveryMs: number;

  constructor(
    private readonly store: Pick<Store, 'market' | 'refresh'>,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly board: ProgressBoard,
    private readonly options: ImporterOptions = {},
  ) {
    this.publishEveryMs = (options.publishEverySeconds ?? 60) * 1000;
  }

  /** Reads every input to its end (concurrently; the store takes their writes in turn) and records the run. */
  async run(inputs: readonly BulkInput[], options: { signal?: AbortSignal } = {}): Promise<ImportReport> {
    const signal = options.signal;
    await failAbandonedRuns(this.store.refresh, this.clock().toISOString(), this.logger);
    const runId = await this.store.refresh.startRefreshRun(this.clock().toISOString(), runningDetail());
    const versions: number[] = [];
    let lastPublishMs = this.clock().getTime();
    let unpublished = false;
    // Publishing is serialised: two readers finishing a batch at once publish one version.
    let publishing: Promise<void> = Promise.resolve();
    const publish = (): Promise<void> => {
      publishing = publishing.then(async () => {
        if (!unpublished) return;
        unpublished = false;
        lastPublishMs = this.clock().getTime();
        const version = await this.store.refresh.bumpDatasetVersion();
        versions.push(version);
        this.logger.info({ version }, 'bulk import: dataset version published');
        try {
          await this.options.onPublish?.(version);
        } catch (err) {
          this.logger.warn({ version, errName: (err as Error).name }, 'bulk import: recompute after publishing failed; the next one catches up');
        }
      });
      return publishing;
    };
    const stored = async (): Promise<void> => {
      unpublished = true;
      if (this.clock().getTime() - lastPublishMs >= this.publishEveryMs) await publish();
    };

    const tallies = new Map<string, SourceTally>();
    for (const input of inputs) {
      tallies.set(input.source, new SourceTally());
      this.board.update(input.source, { phase: 'waiting', note: null });
    }
    const at = seoulIso(this.clock());
    await Promise.all(inputs.map((input) => this.readSource(input, tallies.get(input.source) as SourceTally, stored, signal)));
    const statuses = inputs.map((input) => (tallies.get(input.source) as SourceTally).status(input.source, at));
    const batches = [...tallies.values()].reduce((n, t) => n + t.batches, 0);
    if (signal?.aborted) {
      // What was stored stays (each batch is whole); the next version, or the next start, serves it.
      await this.store.refresh.finishRefreshRun(runId, this.clock().toISOString(), 'stopped', JSON.stringify(statuses));
      this.board.flush();
      return { runId, status: 'stopped', sources: statuses, versions, batches };
    }
    await publish();
    const status: ImportStatus = runOutcome(statuses);
    await this.store.refresh.finishRefreshRun(runId, this.clock().toISOString(), status, JSON.stringify(statuses));
    this.board.flush();
    this.logger.info({ status, batches, versions: versions.length, sources: statuses.map((s) => `${s.source}:${s.ok ? 'ok' : 'failed'}:${s.records ?? 0}`) }, 'bulk import finished');
    return { runId, status, sources: statuses, versions, batches };
  }

  private async readSource(input: BulkInput, tally: SourceTally, stored: () => Promise<void>, signal: AbortSignal | undefined): Promise<void> {
    const source = input.source;
    const sink: ProgressSink = this.board.sink(source);
    const log = {
      info: (msg: string, fields?: Record<string, unknown>) => this.logger.info({ source, ...fields }, msg),
      warn: (msg: string, fields?: Record<string, unknown>) => this.logger.warn({ source, ...fields }, msg),
    };
    try {
      const ctx: BulkContext = {
        asOf: seoulDay(this.clock()),
        ...(signal ? { signal } : {}),
        log,
        progress: sink,
        skip: (reason, example, count = 1) => tally.skip(reason, example, count),
      };
      const reader = isPreparation(input) ? await input.open(ctx) : input;
      for await (const batch of reader.read(ctx)) {
        signal?.throwIfAborted();
        await this.storeBatch(source, batch, tally, ctx.asOf);
        await stored();
      }
      signal?.throwIfAborted();
      if (tally.records === 0) {
        // A source that stored nothing did not read its files: the run must not say ok (nor
        // its cursor move past files it never read).
        tally.error = nothingStored(tally.skipped);
        this.logger.warn({ source, reason: tally.error }, 'bulk source stored nothing');
        this.board.finish(source, 'failed', tally.error);
        return;
      }
      this.board.finish(source, 'done', `${tally.records} records stored`);
    } catch (err) {
      if (signal?.aborted) {
        tally.error = 'stopped: the service is shutting down';
        this.board.finish(source, 'failed', tally.error);
        return;
      }
      tally.error = failureReason(err);
      this.logger.warn({ source, reason: tally.error, kept: tally.records }, 'bulk source failed; what it read before stays stored');
      this.board.finish(source, 'failed', `${tally.error}; ${tally.records} records kept`);
    }
  }

  /** One batch, one transaction: the store takes it whole or, refusing it, none of it (counted, never the end of the source). */
  private async storeBatch(source: string, batch: BulkBatch, tally: SourceTally, asOf: string): Promise<void> {
    let written;
    try {
      // The archives are as of the import's day: so are the companies they place.
      written = await this.store.market.writeDataset(batch.data, { asOf });
    } catch (err) {
      // The database's own message (a constraint, a column) is for the log only.
      this.logger.warn({ source, err }, 'store refused a bulk batch; none of it kept');
      const size = Object.values(batch.data).reduce((n, rows) => n + (Array.isArray(rows) ? rows.length : 0), 0);
      tally.skip('batch refused by the store (details in the log)', undefined, size);
      return;
    }
    tally.batches++;
    tally.records += written.written;
    for (const [reason, n] of Object.entries(written.skipped)) tally.skip(reason, undefined, n);
    for (const example of written.examples) tally.example(example);
  }
}
