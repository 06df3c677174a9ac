// Amended and restated filings (docs/calculations.md, "Amendments and restated figures"): every
// version of a period's filing is kept with its own disclosure date, and a figure is computed from
// the latest version of each filing known on the day. Where a later version changed a figure, the
// figure says so (`restated: true`) and carries the figure the first-known versions gave
// (`firstKnown`), so a caller sees both what is true now and what was known first.

import type { FinancialReport } from './model.js';
import type { SnapshotMetric } from './results.js';

/** The key of a filing's version chain: its fiscal period and basis. */
function periodKey(r: FinancialReport): string {
  return `${r.fiscalYear}:${r.fiscalQuarter}:${r.consolidated ? 1 : 0}`;
}

/** Whether some period and basis has more than one version disclosed on or before `asOf`. */
export function hasLaterVersion(reports: readonly FinancialReport[], asOf: string): boolean {
  const first = new Map<string, string>();
  for (const r of reports) {
    if (r.disclosedOn > asOf) continue;
    const key = periodKey(r);
    const seen = first.get(key);
    if (seen === undefined) first.set(key, r.disclosedOn);
    else if (seen !== r.disclosedOn) return true;
  }
  return false;
}

/**
 * The first-known version of each period and basis among the filings disclosed on or before
 * `asOf`: the earliest disclosed (on one date, the first given). What the figures were before any
 * amendment of them.
 */
export function firstKnownVersions(reports: readonly FinancialReport[], asOf: string): FinancialReport[] {
  const first = new Map<string, FinancialReport>();
  for (const r of reports) {
    if (r.disclosedOn > asOf) continue;
    const key = periodKey(r);
    const held = first.get(key);
    if (held === undefined || r.disclosedOn < held.disclosedOn) first.set(key, r);
  }
  return [...first.values()];
}

/**
 * `latest`'s metrics, each one whose value differs from the same metric in `first` (computed from
 * the first-known versions, same price) marked `restated: true` with the first-known value and the
 * date it became known. A metric both give alike is returned as it is (the same object).
 */
export function markRestated<K extends string>(latest: Record<K, SnapshotMetric>, first: Record<K, SnapshotMetric>): Record<K, SnapshotMetric> {
  const out = { ...latest };
  for (const key of Object.keys(latest) as K[]) {
    const now = latest[key];
    const then = first[key];
    if (then === undefined || now.value === then.value) continue;
    out[key] = { ...now, restated: true, firstKnown: { value: then.value, disclosedOn: then.disclosedOn } };
  }
  return out;
}
