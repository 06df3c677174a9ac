// `npm run cli -- sources`: what each source took and skipped in the latest refresh runs, read
// from the refresh_runs table (the pipeline writes each run's per-source statuses there).

import { seoulIso } from '../kernel/clock.js';
import { termsLine } from '../domain/source-terms.js';
import type { SourceStatus } from '../refresh/pipeline.js';
import type { SourceProgress } from '../refresh/progress.js';
import { runHolder } from '../refresh/runs.js';
import type { RefreshRun } from '../store/refresh-store.js';
import { progressLine } from './progress.js';
import { printable } from './printable.js';

/**
 * The progress section: per source, as the service (or an `import`) last wrote its board: phase,
 * done / total, calls used of the day's allowance, bytes, and the ETA as a +09:00 time and a
 * duration. Empty when no board was written.
 */
export function formatProgress(entries: readonly SourceProgress[]): string {
  if (entries.length === 0) return '';
  const updated = entries.reduce((latest, p) => (p.updatedAt > latest ? p.updatedAt : latest), '');
  return `progress (as of ${updated})\n${entries.map((p) => `  ${progressLine(p)}`).join('\n')}\n\n`;
}

/** The per-source statuses of a run; a run that failed before its statuses were written has none. */
export function runStatuses(run: RefreshRun): SourceStatus[] {
  try {
    const parsed: unknown = JSON.parse(run.detail);
    return Array.isArray(parsed) ? parsed.filter((s): s is SourceStatus => typeof s === 'object' && s !== null && typeof (s as SourceStatus).source === 'string') : [];
  } catch {
    return [];
  }
}

/** A stored UTC instant as every time the service shows, +09:00; as stored when it does not parse. */
export function seoulTime(iso: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : seoulIso(at);
}

/** One block per run, newest first: a line per source with what it took, skipped (why) or the error. */
export function formatSourceRuns(runs: readonly RefreshRun[]): string {
  if (runs.length === 0) return 'no refresh run recorded yet\n';
  const lines: string[] = [];
  for (const run of runs) {
    lines.push(`run ${run.id}  ${seoulTime(run.startedAt)}  ${run.status}${run.finishedAt ? '' : ' (not finished)'}`);
    const statuses = runStatuses(run);
    const holder = run.finishedAt === null ? runHolder(run.detail) : null;
    if (holder !== null) lines.push(`  (running in process ${holder.pid})`);
    else if (statuses.length === 0) lines.push(run.detail === '[]' ? '  (no upstream source configured: embedded demo data)' : `  (no per-source detail${run.detail ? `: ${run.detail.slice(0, 80)}` : ''})`);
    for (const s of statuses) {
      const head = `  ${s.source.padEnd(9)} ${s.ok ? 'ok    ' : 'FAILED'}`;
      if (!s.ok) {
        lines.push(`${head} ${s.error ?? ''}`);
        // A bulk source that failed midway keeps what it read before.
        if (!s.records && !s.skipped) continue;
        lines.push(`      kept ${s.records ?? 0} records read before it failed`);
      }
      const skipped = Object.entries(s.skipped ?? {});
      const total = skipped.reduce((n, [, c]) => n + c, 0);
      if (s.ok) lines.push(`${head} taken ${s.records ?? 0}, skipped ${total}`);
      else if (total > 0) lines.push(`      skipped ${total}`);
      for (const [reason, count] of skipped.sort((a, b) => b[1] - a[1])) lines.push(`      ${String(count).padStart(7)}  ${reason}`);
      if (s.skippedExamples?.length) lines.push(`      e.g. ${s.skippedExamples.join(', ')}`);
    }
  }
  // Member and file names, and upstream reasons, are the archives' and upstreams' own text.
  return `${lines.map(printable).join('\n')}\n`;
}

/**
 * The terms section: one line per enabled source (the start banner and `sources` print it), and
 * the notices of sources configured but off; the demo's line without any.
 */
export function formatTerms(sourceNames: readonly string[], notices: readonly string[] = []): string {
  const names = sourceNames.length > 0 ? sourceNames : ['demo'];
  const width = Math.max(...names.map((n) => n.length));
  const lines = names.map((n) => `  ${n.padEnd(width)}  terms: ${termsLine(n)}`);
  return `terms (docs/sources.md, "Terms of each source")\n${[...lines, ...notices.map((n) => `  ${n}`)].join('\n')}\n\n`;
}
