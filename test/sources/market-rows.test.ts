import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DailyBar, Security } from '../../src/domain/model.js';
import { MarketRows } from '../../src/sources/shared/market-rows.js';

const security = (code: string, name: string, exchange: string): Security => ({
  market: 'KR',
  code,
  name,
  exchange,
  sector: '',
  currency: 'KRW',
  fiscalYearEndMonth: 12,
  source: 'test',
});
const bar = (code: string, date: string, close: number): DailyBar => ({
  market: 'KR',
  code,
  date,
  open: close,
  high: close,
  low: close,
  close,
  volume: 1,
  tradedValue: close,
  shares: 10,
  marketCap: close * 10,
  source: 'test',
});

describe('MarketRows', () => {
  it('keeps every bar in arrival order and each code as of its newest bar, whatever order the dates come in', () => {
    const rows = new MarketRows();
    // 000001 is read newest-first then forward (a history walk): 11-20 on KOSDAQ as "Old",
    // 11-19 as "Older" (older: ignored), 11-21 moved to KOSPI as "New" (newest: kept).
    rows.take(bar('000001', '2024-11-20', 100), security('000001', 'Old', 'KOSDAQ'));
    rows.take(bar('000002', '2024-11-20', 200), security('000002', 'Two', 'KOSPI'));
    rows.take(bar('000001', '2024-11-19', 99), security('000001', 'Older', 'KOSDAQ'));
    const take = rows.take; // handed on unbound, as the adapters pass it to their fetchers
    take(bar('000001', '2024-11-21', 101), security('000001', 'New', 'KOSPI'));
    // A second row of the same date replaces the first (a later page of the same day wins).
    take(bar('000002', '2024-11-20', 200), security('000002', 'Two (renamed)', 'KOSPI'));

    assert.deepEqual(
      rows.bars.map((b) => `${b.code} ${b.date} ${b.close}`),
      ['000001 2024-11-20 100', '000002 2024-11-20 200', '000001 2024-11-19 99', '000001 2024-11-21 101', '000002 2024-11-20 200'],
    );
    // First-seen order of the codes: 000001, then 000002.
    assert.deepEqual(
      rows.securities().map((s) => `${s.code} ${s.name} ${s.exchange}`),
      ['000001 New KOSPI', '000002 Two (renamed) KOSPI'],
    );
  });

  it('no rows: no bars, no securities', () => {
    const rows = new MarketRows();
    assert.deepEqual(rows.bars, []);
    assert.deepEqual(rows.securities(), []);
  });
});
