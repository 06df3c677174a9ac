// Usage counters behind one interface: the database by default (one instance or several on
// one PostgreSQL), Redis when configured. Burst windows are per process unless Redis is used.

import type { AccessStore } from '../store/access-store.js';

export interface BurstDecision {
  allowed: boolean;
  retryAfterSeconds: number;
}

export interface UsageCounter {
  /** What the counts live in, named in a 503 when it is away: `database` or `redis`. */
  readonly dependency: string;
  /** Adds one call if the day's count is below `limit`; returns the new count, or null when full. */
  increment(keyId: number, day: string, limit: number): Promise<number | null>;
  get(keyId: number, day: string): Promise<number>;
  /** Takes one call from the key's one-second window. */
  takeBurst(keyId: number, perSecond: number, nowMs: number): Promise<BurstDecision>;
  /**
   * The same counts, taken without waiting, where they are held in this process's memory
   * (BufferedUsageCounter): a cached answer costs a few tens of microseconds, and each await
   * of the async methods above added to that. Absent where the counts live in the database or
   * Redis.
   */
  readonly held?: HeldCounts;
}

/** Counting in memory, without I/O: see `UsageCounter.held`. */
export interface HeldCounts {
  /** The key's count for the day when it is in memory; undefined when it must be read first. */
  day(keyId: number, day: string): DayCount | undefined;
  /** As `UsageCounter.takeBurst`. */
  takeBurst(keyId: number, perSecond: number, nowMs: number): BurstDecision;
}

/** Fixed one-second windows kept in memory. */
export class MemoryBurstWindow {
  private windows = new Map<number, { second: number; count: number }>();

  take(keyId: number, perSecond: number, nowMs: number): BurstDecision {
    const second = Math.floor(nowMs / 1000);
    let w = this.windows.get(keyId);
    if (w === undefined || w.second !== second) {
      w = { second, count: 0 };
      if (this.windows.size > 100_000) this.windows.clear(); // bounded memory under key churn
      this.windows.set(keyId, w);
    }
    if (w.count >= perSecond) return { allowed: false, retryAfterSeconds: 1 };
    w.count += 1;
    return { allowed: true, retryAfterSeconds: 0 };
  }
}

export class StoreUsageCounter implements UsageCounter {
  readonly dependency = 'database';
  private readonly burst = new MemoryBurstWindow();
  constructor(private readonly store: AccessStore) {}

  increment(keyId: number, day: string, limit: number): Promise<number | null> {
    return this.store.incrementUsage(keyId, day, limit);
  }

  get(keyId: number, day: string): Promise<number> {
    return this.store.usage(keyId, day);
  }

  takeBurst(keyId: number, perSecond: number, nowMs: number): Promise<BurstDecision> {
    return Promise.resolve(this.burst.take(keyId, perSecond, nowMs));
  }
}

/** One key's calls on one day, as BufferedUsageCounter holds them. */
export class DayCount {
  /** Calls counted here and not yet written to the store. */
  pending = 0;

  constructor(
    readonly keyId: number,
    readonly day: string,
    /** The day's count: what the store held when first read, plus every call counted here since. */
    public calls: number,
  ) {}

  /** As `UsageCounter.increment`: one more call if below `limit`, the new count; null when full. */
  increment(limit: number): number | null {
    if (this.calls >= limit) return null;
    this.calls += 1;
    this.pending += 1;
    return this.calls;
  }
}

/**
 * Daily counts kept in this process and written to the store in one transaction per second
 * (and at shutdown), for the embedded SQLite store: one process owns that file, so counting
 * in memory is as exact as the store, without a write transaction on every call. A crash loses
 * at most the last second's counts (an undercount, never an overcount). Several instances on
 * one PostgreSQL use `StoreUsageCounter` (or Redis) instead, where the database is the one
 * place every instance counts in.
 */
export class BufferedUsageCounter implements UsageCounter {
  readonly dependency = 'database';
  private readonly burst = new MemoryBurstWindow();
  private readonly counts = new Map<string, DayCount | Promise<DayCount>>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  readonly held: HeldCounts = {
    day: (keyId, day) => {
      const entry = this.counts.get(`${keyId}|${day}`);
      return entry instanceof DayCount ? entry : undefined;
    },
    takeBurst: (keyId, perSecond, nowMs) => this.burst.take(keyId, perSecond, nowMs),
  };

  constructor(
    private readonly store: AccessStore,
    flushIntervalMs = 1_000,
    /** Told when a timed flush fails (its counts stay pending and go with the next one). */
    onFlushError: (error: unknown) => void = () => undefined,
  ) {
    this.timer = setInterval(() => void this.flush().catch(onFlushError), flushIntervalMs);
    this.timer.unref();
  }

  private count(keyId: number, day: string): DayCount | Promise<DayCount> {
    const id = `${keyId}|${day}`;
    const held = this.counts.get(id);
    if (held !== undefined) return held;
    const loading = this.store.usage(keyId, day).then(
      (calls) => {
        const entry = new DayCount(keyId, day, calls);
        this.counts.set(id, entry);
        return entry;
      },
      (error: unknown) => {
        this.counts.delete(id); // not cached: the next call reads again
        throw error;
      },
    );
    this.counts.set(id, loading);
    return loading;
  }

  async increment(keyId: number, day: string, limit: number): Promise<number | null> {
    return (await this.count(keyId, day)).increment(limit);
  }

  async get(keyId: number, day: string): Promise<number> {
    return (await this.count(keyId, day)).calls;
  }

  takeBurst(keyId: number, perSecond: number, nowMs: number): Promise<BurstDecision> {
    return Promise.resolve(this.burst.take(keyId, perSecond, nowMs));
  }

  /**
   * Writes the pending counts in one transaction. Flushes run one after another; a failed
   * write keeps its counts pending for the next. Days other than the newest are dropped from
   * memory once written.
   */
  flush(): Promise<void> {
    const run = this.flushing.then(async () => {
      const entries = [...this.counts.values()].filter((e): e is DayCount => e instanceof DayCount);
      const rows = entries.filter((e) => e.pending > 0).map((e) => ({ keyId: e.keyId, day: e.day, calls: e.pending }));
      if (rows.length > 0) {
        for (const e of entries) e.pending = 0;
        try {
          await this.store.addUsage(rows);
        } catch (error) {
          for (const row of rows) {
            const e = this.counts.get(`${row.keyId}|${row.day}`);
            if (e instanceof DayCount) e.pending += row.calls;
          }
          throw error;
        }
      }
      const newest = entries.reduce((d, e) => (e.day > d ? e.day : d), '');
      for (const e of entries) if (e.day < newest && e.pending === 0) this.counts.delete(`${e.keyId}|${e.day}`);
    });
    this.flushing = run.catch(() => undefined);
    return run;
  }

  /** Stops the timer and writes what is pending. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
