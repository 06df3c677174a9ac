// Usage counters behind one interface: the database by default (one instance or several on
// one PostgreSQL), Redis when configured. Burst windows are per process unless Redis is used.

import type { Store } from '../store/store.js';

export interface BurstDecision {
  allowed: boolean;
  retryAfterSeconds: number;
}

export interface UsageCounter {
  /** Adds one call if the day's count is below `limit`; returns the new count, or null when full. */
  increment(keyId: number, day: string, limit: number): Promise<number | null>;
  get(keyId: number, day: string): Promise<number>;
  /** Takes one call from the key's one-second window. */
  takeBurst(keyId: number, perSecond: number, nowMs: number): Promise<BurstDecision>;
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
  private readonly burst = new MemoryBurstWindow();
  constructor(private readonly store: Store) {}

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
