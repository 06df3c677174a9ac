import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { gradeOf, percentileRank, percentileRanker, percentileRanks, stockScore } from '../../src/domain/score.js';

void describe('percentileRank', () => {
  void it('is 100 x (values strictly below) / (n - 1)', () => {
    const values = [5, 1, 4, 2, 3];
    assert.equal(percentileRank(1, values), 0); // 0 below
    assert.equal(percentileRank(3, values), 50); // 2 below: 100 x 2 / 4
    assert.equal(percentileRank(5, values), 100); // 4 below: 100 x 4 / 4
  });

  void it('gives ties the same percentile (the lowest rank of the tie)', () => {
    const values = [1, 2, 2, 2, 5];
    assert.equal(percentileRank(2, values), 25); // 1 below: 100 x 1 / 4
    assert.equal(percentileRank(5, values), 100);
    assert.deepEqual(percentileRank(7, [7, 7, 7]), 0); // all tied: none below
  });

  void it('a set of one is 100; an empty set has no percentile', () => {
    assert.equal(percentileRank(42, [42]), 100);
    assert.equal(percentileRank(42, []), null);
  });

  void it('clamps a value above every member to 100', () => {
    assert.equal(percentileRank(9, [1, 2, 3]), 100);
  });
});

void describe('percentileRanker (batch: sort once, binary search)', () => {
  void it('agrees with percentileRank, ties included', () => {
    const values = [10, 30, 20, 20, -5, 30, 0];
    const rank = percentileRanker(values);
    for (const v of values) assert.equal(rank(v), percentileRank(v, values));
    // 30: 5 below of 7 -> 100 x 5 / 6; 20: 3 below (-5, 0, 10) -> 50
    assert.deepEqual(percentileRanks(values), [(100 * 2) / 6, (100 * 5) / 6, 50, 50, 0, (100 * 5) / 6, (100 * 1) / 6]);
  });

  void it('handles one and zero values', () => {
    assert.equal(percentileRanker([3])(3), 100);
    assert.equal(percentileRanker([])(3), null);
  });
});

void describe('gradeOf', () => {
  void it('A+ >= 90, A >= 80, B+ >= 70, B >= 60, C+ >= 50, C >= 40, D below (bounds inclusive)', () => {
    const cases: [number, string][] = [
      [100, 'A+'],
      [90, 'A+'],
      [89.999, 'A'],
      [80, 'A'],
      [79.9, 'B+'],
      [70, 'B+'],
      [60, 'B'],
      [50, 'C+'],
      [40, 'C'],
      [39.99, 'D'],
      [0, 'D'],
    ];
    for (const [score, grade] of cases) assert.equal(gradeOf(score), grade, String(score));
  });
});

void describe('stockScore', () => {
  void it('is the V3 score percentile within the market, with its grade', () => {
    // Market V3 scores 0, 0, 5, 8.8, 30: 8.8 has 3 below -> 100 x 3 / 4 = 75 -> B+
    const rank = percentileRanker([0, 0, 5, 8.8, 30]);
    assert.deepEqual(stockScore(8.8, rank), { score: 75, grade: 'B+' });
    assert.deepEqual(stockScore(30, rank), { score: 100, grade: 'A+' });
    assert.deepEqual(stockScore(0, rank), { score: 0, grade: 'D' });
  });
});
