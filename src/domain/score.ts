// Percentile ranks and the 0..100 stock score with its grade: get_stock_score.score (0..100) is
// the stock's percentile of the V3 score within its market; grade: A+ >= 90, A >= 80, B+ >= 70,
// B >= 60, C+ >= 50, C >= 40, D below (docs/calculations.md).

import type { Grade } from './results.js';

/**
 * Percentile of `value` within `values`: 100 x (number of values strictly below `value`) /
 * (n - 1). The lowest value is 0, the highest 100, equal values share a percentile (the
 * lowest rank of the tie), and a set of one gives 100. Meant for a `value` that is a member
 * of `values`; for a non-member the result is clamped to 0..100. Null for an empty set.
 */
export function percentileRank(value: number, values: readonly number[]): number | null {
  const n = values.length;
  if (n === 0) return null;
  if (n === 1) return 100;
  let below = 0;
  for (const v of values) if (v < value) below++;
  return Math.min(100, (100 * below) / (n - 1));
}

/** Index of the first element of ascending `sorted` that is >= `value` (= count strictly below). */
export function countBelow(sorted: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as number) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * `percentileRank` for a whole cohort: sorts once, then each lookup is a binary search, so
 * ranking every member of an n-stock cohort is O(n log n) instead of O(n^2).
 */
export function percentileRanker(values: readonly number[]): (value: number) => number | null {
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length;
  return (value: number) => {
    if (n === 0) return null;
    if (n === 1) return 100;
    return Math.min(100, (100 * countBelow(sorted, value)) / (n - 1));
  };
}

/** Percentile of each of `values` within `values`, in the same order. */
export function percentileRanks(values: readonly number[]): number[] {
  const rank = percentileRanker(values);
  return values.map((v) => rank(v) as number);
}

/** Grades by the lowest 0..100 score that earns them, bounds inclusive; below the last, D. */
export const GRADE_BOUNDS: readonly { grade: Grade; min: number }[] = [
  { grade: 'A+', min: 90 },
  { grade: 'A', min: 80 },
  { grade: 'B+', min: 70 },
  { grade: 'B', min: 60 },
  { grade: 'C+', min: 50 },
  { grade: 'C', min: 40 },
];

/** Grade of a 0..100 score; lower bounds inclusive. */
export function gradeOf(score: number): Grade {
  for (const { grade, min } of GRADE_BOUNDS) if (score >= min) return grade;
  return 'D';
}

/**
 * The get_stock_score score: the stock's V3 score as a percentile among the V3 scores of every
 * stock in its market that has one (a loss-making stock's V3 score of 0 counts; a stock whose
 * inputs are missing has no V3 score and is not in the set).
 */
export function stockScore(v3Score: number, rankInMarket: (value: number) => number | null): { score: number; grade: Grade } | null {
  const score = rankInMarket(v3Score);
  return score === null ? null : { score, grade: gradeOf(score) };
}
