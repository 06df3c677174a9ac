// Progress on the command line, for `import` and `backfill`: on a terminal a bar per source
// (cli-progress: phase, done / total, bytes, ETA); elsewhere (a log file, a pipe) plain lines,
// one per source every few seconds while it moves and one at each phase change. Both read the
// ProgressBoard's snapshot; `sources` prints the same fields from the board the service keeps.

import cliProgress from 'cli-progress';
import type { ProgressBoard, SourceProgress } from '../refresh/progress.js';
import { printable } from './printable.js';

/** `1.2 GB`, `45.3 MB`, `812 kB`, `0 B` (decimal units, as download tools show them). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return unit === 0 ? `${Math.round(value)} B` : `${value.toFixed(1)} ${units[unit] as string}`;
}

/** `2h05m`, `12m30s`, `45s`; null gives `?`. */
export function formatDuration(seconds: number | null): string {
  if (seconds === null) return '?';
  const s = Math.max(0, Math.round(seconds));
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}

/** `12/120 files`, `12 files` when the total is not known yet. */
export function formatCount(p: Pick<SourceProgress, 'done' | 'total' | 'unit'>): string {
  return `${p.done.toLocaleString('en-US')}${p.total === null ? '' : `/${p.total.toLocaleString('en-US')}`} ${p.unit}`;
}

/** One plain line of a source's progress: `opendart  reading  12/120 files  45.3 MB  ETA 3m20s (2026-11-25T21:03:00+09:00)  note`. */
export function progressLine(p: SourceProgress): string {
  const parts = [p.source.padEnd(9), p.phase.padEnd(11), formatCount(p)];
  if (p.bytes > 0) parts.push(formatBytes(p.bytes));
  if (p.dailyAllowance !== null || p.callsToday > 0) parts.push(`calls today ${p.callsToday.toLocaleString('en-US')}${p.dailyAllowance === null ? '' : `/${p.dailyAllowance.toLocaleString('en-US')}`}`);
  if (p.phase !== 'done' && p.phase !== 'failed') parts.push(p.etaAt ? `ETA ${formatDuration(p.etaSeconds)} (${p.etaAt})` : 'ETA ?');
  if (p.nextTryAt) parts.push(`next try ${p.nextTryAt}`);
  if (p.note) parts.push(p.note);
  return printable(parts.join('  '));
}

export interface ProgressView {
  /** Draws the board's current state (bars), or prints what changed (plain lines). */
  update(snapshot: readonly SourceProgress[]): void;
  stop(snapshot: readonly SourceProgress[]): void;
}

/** Plain lines: a source's line when its phase changes, and every `everyMs` while it moves. */
export function plainProgress(write: (line: string) => void, now: () => number = Date.now, everyMs = 5_000): ProgressView {
  const last = new Map<string, { phase: string; at: number; line: string }>();
  const update = (snapshot: readonly SourceProgress[]): void => {
    for (const p of snapshot) {
      const line = progressLine(p);
      const seen = last.get(p.source);
      const changed = !seen || seen.phase !== p.phase;
      if (changed || (now() - seen.at >= everyMs && seen.line !== line)) {
        write(line);
        last.set(p.source, { phase: p.phase, at: now(), line });
      }
    }
  };
  return { update, stop: update };
}

/** A bar per source on a terminal. */
export function barProgress(stream: NodeJS.WriteStream): ProgressView {
  const multi = new cliProgress.MultiBar(
    {
      stream,
      hideCursor: true,
      clearOnComplete: false,
      format: '{source} {phase} |{bar}| {count} {bytes} ETA {remaining} {note}',
      autopadding: true,
    },
    cliProgress.Presets.shades_classic,
  );
  const bars = new Map<string, cliProgress.SingleBar>();
  const payload = (p: SourceProgress) => ({
    source: p.source.padEnd(9),
    phase: p.phase.padEnd(11),
    count: formatCount(p),
    bytes: p.bytes > 0 ? formatBytes(p.bytes) : '',
    // cli-progress computes its own {eta}; the board's is the one shown.
    remaining: p.phase === 'done' || p.phase === 'failed' ? '-' : formatDuration(p.etaSeconds),
    note: printable((p.note ?? '').slice(0, 60)),
  });
  const update = (snapshot: readonly SourceProgress[]): void => {
    for (const p of snapshot) {
      const total = p.total ?? Math.max(p.done, 1);
      let bar = bars.get(p.source);
      if (!bar) {
        bar = multi.create(total, p.done, payload(p));
        bars.set(p.source, bar);
      }
      bar.setTotal(total);
      bar.update(p.done, payload(p));
    }
  };
  return {
    update,
    stop(snapshot) {
      update(snapshot);
      multi.stop();
    },
  };
}

/**
 * Follows the board until the returned stop is called: on a TTY the bars are redrawn four times
 * a second; otherwise each update may print its source's line (every phase change is seen).
 */
export function followProgress(board: Pick<ProgressBoard, 'snapshot' | 'subscribe'>, stream: NodeJS.WriteStream = process.stdout): () => void {
  if (stream.isTTY) {
    const bars = barProgress(stream);
    const timer = setInterval(() => bars.update(board.snapshot()), 250);
    return () => {
      clearInterval(timer);
      bars.stop(board.snapshot());
    };
  }
  const plain = plainProgress((line) => stream.write(`${line}\n`));
  const unsubscribe = board.subscribe((p) => plain.update([p]));
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    unsubscribe();
  };
}
