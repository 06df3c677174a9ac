// Per client address: events in fixed windows (`AddressLimit`) and places held at once
// (`AddressShare`). Events in fixed windows: the failed authentications of the admission path
// (a guesser or a flood of made-up keys from one address is refused with 429 before any key of
// its is hashed or looked up) and the OAuth client registrations. Counted in this process's
// memory (per instance, also with Redis: the limit guards this instance's database and CPU), for
// at most `MAX_ADDRESSES` addresses at a time (the least recently counted are forgotten first,
// so memory cannot be grown by many addresses).

import { LRUCache } from 'lru-cache';

interface Window {
  start: number;
  count: number;
}

export class AddressLimit {
  static readonly MAX_ADDRESSES = 10_000;
  private readonly windows = new LRUCache<string, Window>({ max: AddressLimit.MAX_ADDRESSES });

  constructor(
    /** Events an address may have in a window; the next one is refused. */
    readonly perWindow: number,
    readonly windowMs = 60_000,
  ) {}

  /** Seconds until `address` may go on, when it has used its window up; null otherwise. */
  blocked(address: string, nowMs: number): number | null {
    const w = this.windows.get(address);
    if (w === undefined || nowMs - w.start >= this.windowMs || nowMs < w.start) return null;
    return w.count >= this.perWindow ? Math.max(1, Math.ceil((w.start + this.windowMs - nowMs) / 1000)) : null;
  }

  /** Counts one event of `address`; returns the seconds to wait when it was over the limit. */
  count(address: string, nowMs: number): number | null {
    let w = this.windows.get(address);
    if (w === undefined || nowMs - w.start >= this.windowMs || nowMs < w.start) {
      w = { start: nowMs, count: 0 };
      this.windows.set(address, w);
    }
    w.count += 1;
    return w.count > this.perWindow ? this.blocked(address, nowMs) : null;
  }
}

/**
 * What one client address holds at once (open connections, answers waiting), at most
 * `perAddress` each, so one address cannot take what all clients share. An address is kept only
 * while it holds something, so memory follows what is held (itself bounded by a global cap).
 */
export class AddressShare {
  private readonly held = new Map<string, number>();

  constructor(readonly perAddress: number) {}

  /** Takes one place for `address`; false (nothing taken) when it holds its share already. */
  take(address: string): boolean {
    const mine = this.held.get(address) ?? 0;
    if (mine >= this.perAddress) return false;
    this.held.set(address, mine + 1);
    return true;
  }

  /** Gives back a place `take` gave `address`. */
  release(address: string): void {
    const left = (this.held.get(address) ?? 1) - 1;
    if (left <= 0) this.held.delete(address);
    else this.held.set(address, left);
  }

  /** Places `address` holds now. */
  of(address: string): number {
    return this.held.get(address) ?? 0;
  }
}
