// The frame of a per-stock answer (src/tools/answer.ts): identity first, the tool's fields in
// their order, the dataset's meta last. The order is what the answers' JSON shows.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { identityOf, metaOf, stockAnswer } from '../../src/tools/answer.js';

const data = { updatedAt: '2026-11-20T16:00:00+09:00', source: 'demo', version: 7, asOf: '2026-11-20' };

void describe('stockAnswer', () => {
  void it('writes identity, then the body in its order, then updatedAt and source', () => {
    const kr = { code: '005930', market: 'KR' as const, name: '삼성전자', nameEn: 'Samsung Electronics', currency: 'KRW' as const, sector: 'IT' };
    const answer = stockAnswer(kr, data, { zeta: 1, alpha: null });
    assert.deepEqual(Object.keys(answer), ['code', 'market', 'name', 'nameEn', 'currency', 'zeta', 'alpha', 'updatedAt', 'source']);
    assert.equal(
      JSON.stringify(answer),
      '{"code":"005930","market":"KR","name":"삼성전자","nameEn":"Samsung Electronics","currency":"KRW","zeta":1,"alpha":null,"updatedAt":"2026-11-20T16:00:00+09:00","source":"demo"}',
    );
  });

  void it("takes a US stock's English name from its name, and a KR stock without one as null", () => {
    assert.equal(identityOf({ code: 'AAPL', market: 'US', name: 'Apple Inc.', currency: 'USD' }).nameEn, 'Apple Inc.');
    assert.equal(identityOf({ code: '000001', market: 'KR', name: '한성', nameEn: null, currency: 'KRW' }).nameEn, null);
  });

  void it('carries only updatedAt and source of the dataset', () => {
    assert.deepEqual(metaOf(data), { updatedAt: '2026-11-20T16:00:00+09:00', source: 'demo' });
  });
});
