// `npm run cli -- sources`: what each source took and skipped in the latest refresh runs, read
// from the refresh_runs table (the pipeline writes each run's per-source statuses there).

import type { SourceStatus } from '../refresh/pipeline.js';
import type { RefreshRun } from '../store/refresh-store.js';

/** The per-source statuses of a run; a run that failed before its statuses were written has none. */
export function runStatuses(run: RefreshRun): SourceStatus[] {
  try {
    const parsed: unknown = JSON.parse(run.detail);
    return Array.isArray(parsed) ? parsed.filter((s): s is SourceStatus => typeof s === 'object' && s !== null && typeof (s as SourceStatus).source === 'string') : [];
  } catch {
    return [];
  }
}

/** One block per run, newest first: a line per source with what it took, skipped (why) or the error. */
export function formatSourceRuns(runs: readonly RefreshRun[]): string {
  if (runs.length === 0) return 'no refresh run recorded yet\n';
  const lines: string[] = [];
  for (const run of runs) {
    lines.push(`run ${run.id}  ${run.startedAt}  ${run.status}${run.finishedAt ? '' : ' (not finished)'}`);
    const statuses = runStatuses(run);
    if (statuses.length === 0) lines.push(run.detail === '[]' ? '  (no upstream source configured: embedded demo data)' : `  (no per-source detail${run.detail ? `: ${run.detail.slice(0, 80)}` : ''})`);
    for (const s of statuses) {
      const head = `  ${s.source.padEnd(9)} ${s.ok ? 'ok    ' : 'FAILED'}`;
      if (!s.ok) {
        lines.push(`${head} ${s.error ?? ''}`);
        continue;
      }
      const skipped = Object.entries(s.skipped ?? {});
      const total = skipped.reduce((n, [, c]) => n + c, 0);
      lines.push(`${head} taken ${s.records ?? 0}, skipped ${total}`);
      for (const [reason, count] of skipped.sort((a, b) => b[1] - a[1])) lines.push(`      ${String(count).padStart(7)}  ${reason}`);
      if (s.skippedExamples?.length) lines.push(`      e.g. ${s.skippedExamples.join(', ')}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
