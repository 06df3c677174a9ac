// Report packs as the store keeps them (src/store/report-packs.ts): every filing comes back as
// it went in (figures, nulls, exact doubles, strings), in the pack's order, and the recompute's
// window of a pack is the filings the store's rows give for it.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FinancialReport } from '../../src/domain/model.js';
import { decodeReports, encodeReports, recentOfPack } from '../../src/store/report-packs.js';
import { ITEM_KEYS, reportOf } from '../../src/store/report-rows.js';
import { report } from '../domain/fixtures.js';

/** A filing with every figure null but those given (test/domain/fixtures.ts `report`). */
const filing = (over: Partial<FinancialReport>): FinancialReport => ({ ...report(2024, 1, '2024-05-14', { source: 'opendart' }), ...over });

describe('report packs', () => {
  it('fill each figure from its index in the columns (ITEM_KEYS), the same for rows and packs', () => {
    const r = reportOf('KR', '005930', 2024, 1, '2024-03-31', '2024-05-14', true, 'opendart', (i) => 100 + i);
    assert.equal(ITEM_KEYS.length, 20);
    ITEM_KEYS.forEach((key, i) => assert.equal(r[key], 100 + i, key));
    assert.deepEqual(Object.keys(r), Object.keys(filing({})));
  });

  it('give back every filing exactly: figures, nulls, doubles and strings, in the order fiscal year, quarter, disclosure, basis', () => {
    const filings: FinancialReport[] = [
      filing({ fiscalYear: 2024, fiscalQuarter: 2, periodEnd: '2024-06-30', disclosedOn: '2024-08-14', revenue: 0.1 + 0.2, netIncome: -4_000_000_000.5, shares: 2 ** 53 - 1 }),
      filing({ fiscalYear: 2024, fiscalQuarter: 1, consolidated: true, revenue: 79_140_000_000_000, equity: 0, cash: -0 }),
      filing({ fiscalYear: 2024, fiscalQuarter: 1, consolidated: false, revenue: 1e300, source: 'OpenDART 한국' }),
      filing({ fiscalYear: 2023, fiscalQuarter: 4, periodEnd: '2023-12-31', disclosedOn: '2024-03-14', payables: 5e-324, source: 'sec' }),
      filing({ fiscalYear: 2024, fiscalQuarter: 1, disclosedOn: '2024-06-01', revenue: 79_150_000_000_000, basicEps: 2_131, dividendPerShare: 0.26 }),
    ];
    const back = decodeReports(encodeReports(filings), 'KR', '005930');
    // 2023Q4; 2024Q1 separate then consolidated on 2024-05-14, then the correction; 2024Q2.
    assert.deepEqual(back, [filings[3], filings[2], filings[1], filings[4], filings[0]]);
    assert.ok(Object.is(back[2]?.cash, -0), '-0 stays -0');
    // Key order as the rows make them (one hidden class; JSON answers list keys in this order).
    assert.deepEqual(Object.keys(back[0]!), Object.keys(filing({})));
    assert.deepEqual(decodeReports(encodeReports([]), 'KR', '005930'), []);
  });

  it('keep a string with a NUL, and read from any byte of a larger buffer', () => {
    const odd = [filing({ source: 'a\u0000b' }), filing({ fiscalQuarter: 2, periodEnd: '2024-06-30\u0000', disclosedOn: '2024-08-14' })];
    const bytes = encodeReports(odd);
    const shifted = new Uint8Array(bytes.byteLength + 3);
    shifted.set(bytes, 3);
    assert.deepEqual(decodeReports(shifted.subarray(3), 'KR', '005930'), odd);
    assert.throws(() => decodeReports(bytes.subarray(0, 20), 'KR', '005930'), /cannot hold/);
  });

  it("make the recompute's window: the last quarters disclosed by the date, corrections included", () => {
    // 2023Q1..2024Q2 and a correction of 2023Q3 disclosed 2024-01-20. Ordinals year x 4 + quarter.
    const ends = ['03-31', '06-30', '09-30', '12-31'];
    const filings: FinancialReport[] = [];
    for (const y of [2023, 2024])
      for (const q of [1, 2, 3, 4] as const) {
        if (y === 2024 && q > 2) continue;
        filings.push(filing({ fiscalYear: y, fiscalQuarter: q, periodEnd: `${y}-${ends[q - 1]}`, disclosedOn: q === 4 ? `${y + 1}-03-14` : `${y}-${String(q * 3 + 2).padStart(2, '0')}-14`, netIncome: y * 10 + q }));
      }
    filings.push(filing({ fiscalYear: 2023, fiscalQuarter: 3, periodEnd: '2023-09-30', disclosedOn: '2024-01-20', netIncome: 1 }));
    const pack = encodeReports(filings);
    const label = (rs: FinancialReport[]) => rs.map((r) => `${r.fiscalYear}Q${r.fiscalQuarter}@${r.disclosedOn}`);
    // As of 2024-08-14 the latest is 2024Q2; three quarters back: 2023Q4, 2024Q1, 2024Q2.
    assert.deepEqual(label(recentOfPack(pack, '2024-08-14', 3, 'KR', '005930')), ['2023Q4@2024-03-14', '2024Q1@2024-05-14', '2024Q2@2024-08-14']);
    // The day before, the latest is 2024Q1: 2023Q3 (both versions), 2023Q4, 2024Q1.
    assert.deepEqual(label(recentOfPack(pack, '2024-08-13', 3, 'KR', '005930')), ['2023Q3@2023-11-14', '2023Q3@2024-01-20', '2023Q4@2024-03-14', '2024Q1@2024-05-14']);
    // Before the correction was disclosed, only the original.
    assert.deepEqual(label(recentOfPack(pack, '2024-01-19', 2, 'KR', '005930')), ['2023Q2@2023-08-14', '2023Q3@2023-11-14']);
    // Nothing disclosed yet: nothing.
    assert.deepEqual(recentOfPack(pack, '2023-05-13', 9, 'KR', '005930'), []);
    assert.equal(recentOfPack(pack, '2024-12-31', 9, 'US', 'X')[0]?.market, 'US');
  });
});
