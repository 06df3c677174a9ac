// Small helpers shared by the benchmark: settings from the environment, statistics, timing.

import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';

export interface BenchSettings {
  quick: boolean;
  /** Seconds of each measured load run. */
  seconds: number;
  /** Seconds of the warm-up run before each measured one. */
  warmupSeconds: number;
  connections: number;
  /** Universe scales of the default-size demo for the scaling section. */
  scales: number[];
  /** Whether to include the full-size universe (large first generation). */
  full: boolean;
  /** In-process recompute repetitions per universe. */
  recomputeRepeats: number;
  /** The server's LOG_LEVEL (info, as in production, by default). */
  logLevel: string;
  /** Cached stores older than this many days (demo as-of date) are regenerated. */
  maxStoreAgeDays: number;
  /** Seconds of the mixed uncached load with a refresh in the middle, on every rotated universe. */
  refreshLoadSeconds: number;
  /** Seconds of the long mixed uncached load (RSS at start, middle, end; two refreshes), on the largest universe. */
  soakSeconds: number;
}

function numberEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${raw}`);
  return value;
}

export function settingsFromEnv(): BenchSettings {
  const quick = process.env.BENCH_QUICK === '1';
  const fullEnv = process.env.BENCH_FULL;
  return {
    quick,
    seconds: numberEnv('BENCH_SECONDS', quick ? 3 : 10),
    warmupSeconds: quick ? 1 : 2,
    connections: numberEnv('BENCH_CONNECTIONS', 50),
    scales: quick ? [0.25, 0.5, 1] : [1, 2, 4],
    full: fullEnv === undefined ? !quick : fullEnv === '1',
    recomputeRepeats: numberEnv('BENCH_RECOMPUTE_REPEATS', quick ? 1 : 3),
    logLevel: process.env.BENCH_LOG_LEVEL ?? 'info',
    maxStoreAgeDays: numberEnv('BENCH_MAX_STORE_AGE_DAYS', 14),
    refreshLoadSeconds: numberEnv('BENCH_REFRESH_LOAD_SECONDS', quick ? 10 : 20),
    soakSeconds: numberEnv('BENCH_SOAK_SECONDS', quick ? 30 : 600),
  };
}

/** Nearest-rank percentile of an ascending-sorted array. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

export function median(values: readonly number[]): number {
  return percentile(Float64Array.from(values).sort(), 50);
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export const round = (value: number, digits = 0): number => {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
};

export function machineLoad(): { load1: number; load5: number; load15: number } {
  const [load1 = 0, load5 = 0, load15 = 0] = loadavg();
  return { load1: round(load1, 2), load5: round(load5, 2), load15: round(load15, 2) };
}

/** A free TCP port on loopback (asked of the kernel, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export function log(message: string): void {
  const t = new Date().toISOString().slice(11, 19);
  process.stderr.write(`[bench ${t}] ${message}\n`);
}

/** Today's date in Asia/Seoul, the service's calendar. */
export function seoulToday(): string {
  return new Date(Date.now() + 9 * 3_600_000).toISOString().slice(0, 10);
}

export function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);
}

/** A size field of a process's /proc status (VmRSS now, VmHWM the peak), bytes; null when gone. */
export function procStatusBytes(pid: number | 'self', field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** CPU time a process has used so far (user + system), in microseconds; null when gone. */
export function procCpuMicros(pid: number): number | null {
  try {
    // Fields after the command name (which may hold spaces, so split after its closing paren).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14, 15 of stat)
    return Number.isFinite(ticks) ? (ticks * 1_000_000) / 100 : null; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

/**
 * Waits for requests still queued in the server when a run stopped (a closed socket does not
 * cancel work already queued): one cheap request answers only after them.
 */
export async function drained(url: string): Promise<void> {
  await fetch(new URL('/healthz', url)).then((r) => r.arrayBuffer(), () => undefined);
}
