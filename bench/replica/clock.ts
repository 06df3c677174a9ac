// The rehearsal's simulated clock: real time plus every wait skipped. A pacing wait (a rate
// limiter's spacing, a retry backoff) registers its wake-up time; once nothing is in flight
// (no HTTP call between the service and the replica), the clock jumps to the earliest wake-up
// instead of sleeping. Work (parsing, store writes, the recompute) still takes its real time
// and shows on this clock, so the clock's elapsed time is what a real first start would take,
// bounded by the limits, and `skippedMs` is the part of it spent waiting.
//
// The service's waits reach it through setPacingTimer (src/sources/http.ts); the replica
// judges rates and daily allowances on `now()` of the same object (both run in one process).

import { SourceHttpError, type PacingTimer } from '../../src/sources/http.js';

interface Sleeper {
  wake: number;
  resolve: () => void;
  reject: (err: Error) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

export class WarpClock implements PacingTimer {
  private offset = 0;
  private readonly sleepers: Sleeper[] = [];
  private inFlight = 0;
  private pumping = false;
  /** Waiting skipped so far (ms): the part of the elapsed time that cost no real time. */
  skippedMs = 0;
  /** Waits requested (count). */
  waits = 0;

  /** `startAt`: the clock's time now (ms since the epoch); real time when absent. */
  constructor(
    startAt?: number,
    private readonly realNow: () => number = Date.now,
  ) {
    if (startAt !== undefined) this.offset = startAt - realNow();
  }

  now(): number {
    return this.realNow() + this.offset;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.waits++;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(new SourceHttpError('aborted', 'aborted', ''));
        return;
      }
      const sleeper: Sleeper = {
        wake: this.now() + Math.max(0, ms),
        resolve,
        reject,
        signal,
        onAbort: () => {
          this.remove(sleeper);
          reject(new SourceHttpError('aborted', 'aborted', ''));
        },
      };
      signal?.addEventListener('abort', sleeper.onAbort, { once: true });
      this.sleepers.push(sleeper);
      this.schedule();
    });
  }

  /** Marks an HTTP call in flight until the returned function is called (no jump meanwhile). */
  busy(): () => void {
    this.inFlight++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.inFlight--;
      this.schedule();
    };
  }

  /** Jumps the clock forward by `ms` (a test, or the harness skipping to the next day). */
  advance(ms: number): void {
    this.offset += ms;
    this.skippedMs += ms;
    this.schedule();
  }

  private remove(s: Sleeper): void {
    const i = this.sleepers.indexOf(s);
    if (i >= 0) this.sleepers.splice(i, 1);
  }

  private schedule(): void {
    if (this.pumping || this.sleepers.length === 0) return;
    this.pumping = true;
    // After the current turn's I/O callbacks: a call just started must be counted first.
    setImmediate(() => {
      this.pumping = false;
      this.pump();
    });
  }

  private pump(): void {
    if (this.sleepers.length === 0) return;
    const now = this.now();
    const due = this.sleepers.filter((s) => s.wake <= now);
    if (due.length === 0) {
      if (this.inFlight > 0) return; // busy() schedules again when the call ends
      const earliest = Math.min(...this.sleepers.map((s) => s.wake));
      const jump = earliest - now;
      this.offset += jump;
      this.skippedMs += jump;
      this.pump();
      return;
    }
    for (const s of due) {
      this.remove(s);
      s.signal?.removeEventListener('abort', s.onAbort);
      s.resolve();
    }
    this.schedule();
  }
}
