import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { changePct, changeRatio } from '../../src/domain/change.js';

void describe('changePct and changeRatio: (current - base) / |base|', () => {
  void it('positive base', () => {
    assert.equal(changePct(150, 100), 50);
    assert.equal(changeRatio(30, 25), 0.2);
  });
  void it('negative base uses its absolute value: a smaller loss is growth', () => {
    assert.equal(changePct(50, -100), 150); // (50 + 100) / 100
    assert.equal(changePct(-50, -100), 50); // (-50 + 100) / 100
    assert.equal(changePct(-150, -100), -50);
  });
  void it('zero or missing base, or missing current: null', () => {
    assert.equal(changePct(10, 0), null);
    assert.equal(changePct(10, null), null);
    assert.equal(changePct(null, 10), null);
    assert.equal(changeRatio(10, undefined), null);
  });
});
