// The progress board: per source, what it is doing now (phase, done / total, bytes, calls of the
// day's allowance) and when it expects to be done. Sources write to it through a ProgressSink;
// the CLI's `sources` and `import`, /readyz, health and the dashboard read `snapshot()`. The
// board is in memory; `persist` (throttled) hands its JSON to whoever keeps it in the store, so
// another process (the CLI beside a running service) can read it.

import { seoulIso, type Clock } from '../kernel/clock.js';
import type { ProgressPatch, ProgressPhase, ProgressSink, SourceProgress } from '../sources/progress.js';

export type { SourceProgress } from '../sources/progress.js';

interface Entry {
  progress: SourceProgress;
  /** Epoch ms and `done` at the start of the phase, for the rate. */
  phaseStartMs: number;
  phaseStartDone: number;
  ownEta: number | null;
}

const FINISHED: ReadonlySet<ProgressPhase> = new Set(['done', 'failed']);

export class ProgressBoard {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<(progress: SourceProgress) => void>();
  private persistTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly options: { persist?: (json: string) => void; persistEveryMs?: number } = {},
  ) {}

  /** Calls `listener` with a source's progress after each update (the CLI's plain lines); returns the unsubscribe. */
  subscribe(listener: (progress: SourceProgress) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The sink a source writes to. */
  sink(source: string): ProgressSink {
    return (patch) => this.update(source, patch);
  }

  update(source: string, patch: ProgressPatch): void {
    const now = this.clock();
    const nowMs = now.getTime();
    let entry = this.entries.get(source);
    if (!entry) {
      entry = {
        progress: {
          source, phase: 'waiting', unit: 'items', done: 0, total: null, bytes: 0, callsToday: 0, dailyAllowance: null,
          startedAt: seoulIso(now), updatedAt: seoulIso(now), etaSeconds: null, etaAt: null, nextTryAt: null, note: null,
        },
        phaseStartMs: nowMs,
        phaseStartDone: 0,
        ownEta: null,
      };
      this.entries.set(source, entry);
    }
    const p = entry.progress;
    if (patch.phase !== undefined && patch.phase !== p.phase) {
      p.phase = patch.phase;
      p.startedAt = seoulIso(now);
      entry.phaseStartMs = nowMs;
      entry.phaseStartDone = patch.done ?? 0;
      if (patch.done === undefined) p.done = 0;
      if (patch.total === undefined) p.total = null;
      if (patch.bytes === undefined) p.bytes = 0;
      entry.ownEta = null;
    }
    if (patch.unit !== undefined) p.unit = patch.unit;
    if (patch.done !== undefined) p.done = patch.done;
    if (patch.total !== undefined) p.total = patch.total;
    if (patch.bytes !== undefined) p.bytes = patch.bytes;
    if (patch.callsToday !== undefined) p.callsToday = patch.callsToday;
    if (patch.dailyAllowance !== undefined) p.dailyAllowance = patch.dailyAllowance;
    if (patch.etaSeconds !== undefined) entry.ownEta = patch.etaSeconds;
    if (patch.nextTryAt !== undefined) p.nextTryAt = patch.nextTryAt === null ? null : seoulIso(patch.nextTryAt);
    if (patch.note !== undefined) p.note = patch.note;
    p.updatedAt = seoulIso(now);
    p.etaSeconds = this.eta(entry, nowMs);
    p.etaAt = p.etaSeconds === null ? null : seoulIso(new Date(nowMs + p.etaSeconds * 1000));
    this.schedulePersist();
    for (const listener of this.listeners) listener({ ...p });
  }

  /**
   * Ends a source's current work as done or failed, keeping the counts it reached (a phase
   * change through `update` starts them afresh).
   */
  finish(source: string, phase: 'done' | 'failed', note: string | null = null, nextTryAt: Date | null = null): void {
    const p = this.entries.get(source)?.progress;
    const done = p?.done ?? 0;
    this.update(source, { phase, done, total: phase === 'done' ? Math.max(done, p?.total ?? 0) : (p?.total ?? null), bytes: p?.bytes ?? 0, note, nextTryAt });
  }

  private eta(entry: Entry, nowMs: number): number | null {
    const p = entry.progress;
    if (p.phase === 'done') return 0;
    // A failed source is not going to be done by any rate: when it tries again is `nextTryAt`.
    if (p.phase === 'failed') return null;
    if (entry.ownEta !== null) return Math.max(0, Math.round(entry.ownEta));
    if (p.total === null) return null;
    const left = p.total - p.done;
    if (left <= 0) return 0;
    const elapsed = (nowMs - entry.phaseStartMs) / 1000;
    const progressed = p.done - entry.phaseStartDone;
    if (elapsed < 1 || progressed <= 0) return null;
    return Math.round(left / (progressed / elapsed));
  }

  /** The phase a source last reported; undefined when it has not. */
  phaseOf(source: string): ProgressPhase | undefined {
    return this.entries.get(source)?.progress.phase;
  }

  /** Every source's progress, in the order they first reported. */
  snapshot(): SourceProgress[] {
    return [...this.entries.values()].map((e) => ({ ...e.progress }));
  }

  /** True while some source is neither done nor failed. */
  get active(): boolean {
    return [...this.entries.values()].some((e) => !FINISHED.has(e.progress.phase));
  }

  toJSON(): string {
    return JSON.stringify(this.snapshot());
  }

  /** Writes the board now (at the end of a phase, before exit). */
  flush(): void {
    if (this.persistTimer) clearTimeout(this.persistTimer);
    this.persistTimer = null;
    this.options.persist?.(this.toJSON());
  }

  private schedulePersist(): void {
    if (!this.options.persist || this.persistTimer) return;
    this.persistTimer = setTimeout(() => this.flush(), this.options.persistEveryMs ?? 2_000);
    this.persistTimer.unref();
  }
}

/** A board's JSON as another process reads it back (`sources`); entries that do not parse are dropped. */
export function readProgress(json: string | null): SourceProgress[] {
  if (json === null) return [];
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed)
      ? parsed.filter((p): p is SourceProgress => typeof p === 'object' && p !== null && typeof (p as SourceProgress).source === 'string')
      : [];
  } catch {
    return [];
  }
}
