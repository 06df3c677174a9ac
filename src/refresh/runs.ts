// Refresh runs (the refresh_runs table) left `running` by a process that died: a refresh or an
// import killed part way never reaches its finishRefreshRun. A run records who runs it (this
// pid namespace on this boot, and the pid) while it runs; before a process starts a run of its
// own it marks `failed` every running run whose process, on its own host, is gone. A run held
// by a process on another host is left as it is (nothing here says whether that one lives).

import type { Logger } from 'pino';
import type { RefreshStore } from '../store/refresh-store.js';
import { processAlive, processHost } from './claims.js';

interface RunHolder {
  running: { host: string; pid: number };
}

/** The detail a running run carries: who runs it. */
export function runningDetail(): string {
  const holder: RunHolder = { running: { host: processHost(), pid: process.pid } };
  return JSON.stringify(holder);
}

/** Who runs a run still `running` (its detail), or null when its detail does not say. */
export function runHolder(detail: string): RunHolder['running'] | null {
  try {
    const parsed = JSON.parse(detail) as Partial<RunHolder> | null;
    const r = parsed?.running;
    return r && typeof r.host === 'string' && Number.isInteger(r.pid) ? r : null;
  } catch {
    return null;
  }
}

/** Runs looked at: the newest ones (a run left running is among the last few). */
const LOOK_BACK = 100;

/** Marks failed each recent run still `running` whose process on this host is gone; returns their ids. */
export async function failAbandonedRuns(store: Pick<RefreshStore, 'refreshRuns' | 'finishRefreshRun'>, at: string, logger: Logger): Promise<number[]> {
  const host = processHost();
  const failed: number[] = [];
  for (const run of await store.refreshRuns(LOOK_BACK)) {
    if (run.status !== 'running' || run.finishedAt !== null) continue;
    const holder = runHolder(run.detail);
    if (holder === null || holder.host !== host || holder.pid === process.pid || processAlive(holder.pid)) continue;
    await store.finishRefreshRun(run.id, at, 'failed', `abandoned: the process running it (pid ${holder.pid}) ended before it finished`);
    logger.warn({ runId: run.id, pid: holder.pid, startedAt: run.startedAt }, 'refresh run left running by a process that ended: marked failed');
    failed.push(run.id);
  }
  return failed;
}
