// Failed authentications per client address: a guesser or a flood of made-up keys from one
// address is refused with 429 before any key of its is hashed or looked up. Fixed one-minute
// windows in this process's memory (per instance, also with Redis: the limit guards this
// instance's database pool and CPU), for at most `MAX_ADDRESSES` addresses at a time (the least
// recently failing are forgotten first, so memory cannot be grown by many addresses).

import { LRUCache } from 'lru-cache';

export const FAILURE_WINDOW_MS = 60_000;

interface Window {
  start: number;
  failures: number;
}

export class FailedAuthLimit {
  static readonly MAX_ADDRESSES = 10_000;
  private readonly windows = new LRUCache<string, Window>({ max: FailedAuthLimit.MAX_ADDRESSES });

  constructor(
    /** Failed authentications an address may have per minute; the next one is refused. */
    readonly perMinute: number,
  ) {}

  /** Seconds until `address` may try again, when it has used up its failures; null otherwise. */
  blocked(address: string, nowMs: number): number | null {
    const w = this.windows.get(address);
    if (w === undefined || nowMs - w.start >= FAILURE_WINDOW_MS || nowMs < w.start) return null;
    return w.failures >= this.perMinute ? Math.max(1, Math.ceil((w.start + FAILURE_WINDOW_MS - nowMs) / 1000)) : null;
  }

  /** Counts one failure of `address`; returns the seconds to wait when that used the last one up. */
  fail(address: string, nowMs: number): number | null {
    let w = this.windows.get(address);
    if (w === undefined || nowMs - w.start >= FAILURE_WINDOW_MS || nowMs < w.start) {
      w = { start: nowMs, failures: 0 };
      this.windows.set(address, w);
    }
    w.failures += 1;
    return w.failures > this.perMinute ? this.blocked(address, nowMs) : null;
  }
}
