// What /readyz answers: whether the service serves data, and if not, what it is doing about it.
// Pure: the served dataset, the dependency checks' results and the sources' progress in, the
// status and body out (server.ts does the I/O).
//
// - `loading` (503): no stock is served yet and a load is under way (or about to be retried);
// - `failed` (503): no stock is served and the last run's every source failed, none is running;
// - `unavailable` (503): stocks are served but the database or Redis does not answer, so every
//   call answers 503 service_unavailable meanwhile;
// - `degraded` (200): stocks are served; a source failed in the last run or is failing now;
// - `ready` (200): stocks are served and every source's last run succeeded.
//
// Without a valid key the body says only the status, which dependency is down and the progress
// numbers: no upstream error text (a source's error, a progress note, a check's own words).

import { seoulIso } from '../kernel/clock.js';
import { runOutcome, type ServedDataset } from '../serving/dataset.js';
import type { MarketCoverage } from '../serving/coverage.js';
import { progressEntry, type ProgressEntry } from '../tools/progress.js';

export type ReadinessStatus = 'ready' | 'degraded' | 'unavailable' | 'loading' | 'failed';

export interface ReadinessSource {
  source: string;
  ok: boolean;
  /** When its last run tried it (+09:00). */
  at: string;
  records?: number;
  /** When it is tried next (+09:00): its own (a paced source), else the next scheduled refresh. */
  nextTryAt: string | null;
  /** Why it failed: only for a caller with a valid key. */
  error?: string;
}

export interface ReadinessBody {
  status: ReadinessStatus;
  ready: boolean;
  /** One line for people. */
  detail: string;
  /** Dependencies that do not answer: `database`, `redis`. */
  down: string[];
  /** What start-up is doing while no dataset is computed yet; null after. */
  phase: string | null;
  dataVersion: number | null;
  updatedAt: string | null;
  asOf: string | null;
  source: string | null;
  nextRefreshAt: string | null;
  /** The last refresh run's outcome: every source failed, some did, none did. */
  lastRun: 'ok' | 'partial' | 'failed' | null;
  /** Listed, priced and scored stocks per market (the coverage report's market lines). */
  markets: MarketCoverage[];
  sources: ReadinessSource[];
  progress: ProgressEntry[];
}

export interface ReadinessInput {
  data: ServedDataset | null;
  startupPhase: string | null;
  /** Each dependency check that failed, with its own reason. */
  failedChecks: readonly { name: string; reason: string }[];
  progress: readonly ProgressEntry[];
  /** A valid key came with the request: error texts may be shown. */
  detailed: boolean;
}

const RUNNING: ReadonlySet<ProgressEntry['phase']> = new Set(['waiting', 'listing', 'downloading', 'reading', 'calling', 'paced']);

export function readiness({ data, startupPhase, failedChecks, progress, detailed }: ReadinessInput): { httpStatus: 200 | 503; body: ReadinessBody } {
  const markets = data?.coverage().markets ?? [];
  const priced = markets.reduce((sum, m) => sum + m.priced, 0);
  const states = data?.sources ?? [];
  const lastRun = data === null ? null : runOutcome(states);
  const running = progress.some((p) => RUNNING.has(p.phase));
  const nextRefreshAt = data?.nextRefreshAt ? seoulIso(data.nextRefreshAt) : null;
  const progressOf = new Map(progress.map((p) => [p.source, p]));
  const down = failedChecks.map((c) => c.name);

  let status: ReadinessStatus;
  const reasons: string[] = [];
  if (priced === 0) {
    status = data !== null && states.length > 0 && lastRun === 'failed' && !running ? 'failed' : 'loading';
    if (data === null) reasons.push(`dataset not loaded yet${startupPhase ? ` (${startupPhase})` : ''}`);
    else if (status === 'failed') reasons.push(`no stock served: every source failed in the last run${nextRefreshAt ? `; next try at ${nextRefreshAt}` : ''}`);
    else reasons.push(`no stock served yet${running ? ' (the sources are loading)' : ''}`);
  } else if (down.length > 0) status = 'unavailable';
  else status = lastRun !== 'ok' || progress.some((p) => p.phase === 'failed') ? 'degraded' : 'ready';
  for (const check of failedChecks) reasons.push(detailed ? check.reason : `${check.name} unreachable`);
  const ready = status === 'ready' || status === 'degraded';
  const failedLastRun = states.filter((s) => !s.ok).map((s) => s.source);
  const failingNow = progress.filter((p) => p.phase === 'failed').map((p) => p.source);
  const detail = !ready
    ? `not ready: ${reasons.join('; ')}`
    : status === 'ready'
      ? 'ready: data served'
      : `ready, degraded: data served; ${failedLastRun.length ? `the last run of ${failedLastRun.join(', ')} failed` : `${failingNow.join(', ')} failing now`} (the previous data stays served)`;

  return {
    httpStatus: ready ? 200 : 503,
    body: {
      status,
      ready,
      detail,
      down,
      phase: data === null ? startupPhase : null,
      dataVersion: data?.version ?? null,
      updatedAt: data?.updatedAt ?? null,
      asOf: data?.asOf ?? null,
      source: data?.source ?? null,
      nextRefreshAt,
      lastRun,
      markets,
      sources: states.map((s) => ({
        source: s.source,
        ok: s.ok,
        at: s.at,
        ...(s.records === undefined ? {} : { records: s.records }),
        nextTryAt: progressOf.get(s.source)?.nextTryAt ?? nextRefreshAt,
        ...(detailed && s.error !== undefined ? { error: s.error } : {}),
      })),
      progress: progress.map((p) => ({ ...progressEntry(p), note: detailed ? p.note : null })),
    },
  };
}
