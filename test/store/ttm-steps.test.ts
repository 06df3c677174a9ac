// TTM steps as the store keeps them (src/store/ttm-steps.ts): every step comes back as it went
// in, nulls and exact doubles included.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TtmStep } from '../../src/domain/ttm.js';
import { decodeSteps, encodeSteps } from '../../src/store/ttm-steps.js';

describe('TTM steps as stored', () => {
  it('come back exactly: dates, quarters, figures and nulls', () => {
    const steps: TtmStep[] = [
      { effectiveFrom: '1999-03-31', referenceQuarter: '1998Q4', netIncome: null, revenue: null, equity: 5e12, shares: 123_456_789 },
      { effectiveFrom: '2024-11-14', referenceQuarter: '2025Q1', netIncome: -4_000_000_000.5, revenue: 0.1 + 0.2, equity: null, shares: null },
      { effectiveFrom: '2026-02-28', referenceQuarter: '2025Q4', netIncome: 0, revenue: -0, equity: 2 ** 53 - 1, shares: 1 },
    ];
    const bytes = encodeSteps(steps);
    assert.equal(bytes.byteLength, 3 * 41, '41 bytes a step');
    assert.deepEqual(decodeSteps(bytes), steps);
    const shifted = new Uint8Array(bytes.byteLength + 5);
    shifted.set(bytes, 5);
    assert.deepEqual(decodeSteps(shifted.subarray(5)), steps, 'from any byte of a larger buffer');
    assert.deepEqual(decodeSteps(encodeSteps([])), []);
    assert.throws(() => decodeSteps(new Uint8Array(40)), /not whole steps/);
    assert.throws(() => encodeSteps([{ ...steps[0]!, referenceQuarter: '1998' }]), /not a fiscal quarter/);
  });
});
