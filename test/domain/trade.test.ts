import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { monthRange, monthsBetween } from '../../src/domain/calendar.js';
import type { SectorExportMonth, TradeMonth } from '../../src/domain/model.js';
import { latestMonthOf, resolveMonthWindow, sectorExports, tradeTotals } from '../../src/domain/trade.js';

const t = (month: string, exports: number, imports: number): TradeMonth => ({ month, exports, imports, balance: exports - imports, source: 'test' });

void describe('tradeTotals', () => {
  // 2023-02 missing; 2023-03 exports 0.
  const months = [t('2023-01', 100, 100), t('2023-03', 0, 50), t('2024-01', 110, 90), t('2024-02', 120, 80), t('2024-03', 130, 75)];

  void it('gives YoY against the same month a year earlier; null where it is missing or zero', () => {
    assert.deepEqual(tradeTotals(months, '2024-01', '2024-03'), [
      // (110 - 100) x 100 / 100 = 10; (90 - 100) x 100 / 100 = -10
      { month: '2024-01', exports: 110, imports: 90, balance: 20, exportsYoyPct: 10, importsYoyPct: -10 },
      { month: '2024-02', exports: 120, imports: 80, balance: 40, exportsYoyPct: null, importsYoyPct: null },
      // exports base 0 -> null; imports (75 - 50) x 100 / 50 = 50
      { month: '2024-03', exports: 130, imports: 75, balance: 55, exportsYoyPct: null, importsYoyPct: 50 },
    ]);
  });

  void it('lists only months with data, ascending', () => {
    assert.deepEqual(tradeTotals(months, '2023-12', '2024-02').map((r) => r.month), ['2024-01', '2024-02']);
  });
});

void describe('resolveMonthWindow', () => {
  void it('defaults to the latest 60 months', () => {
    const w = resolveMonthWindow({}, '2024-03');
    assert.deepEqual(w, { from: '2019-04', to: '2024-03' });
    assert.equal(monthsBetween('2019-04', '2024-03') + 1, 60);
  });

  void it('a default start never precedes 1990-01', () => {
    assert.deepEqual(resolveMonthWindow({}, '1992-06'), { from: '1990-01', to: '1992-06' });
  });

  void it('only from: up to the latest month; only to: the 60 months ending there', () => {
    assert.deepEqual(resolveMonthWindow({ from: '2023-01' }, '2024-03'), { from: '2023-01', to: '2024-03' });
    assert.deepEqual(resolveMonthWindow({ to: '2020-12' }, '2024-03'), { from: '2016-01', to: '2020-12' });
    assert.deepEqual(resolveMonthWindow({ from: '1990-01', to: '1990-01' }, null), { from: '1990-01', to: '1990-01' });
  });

  void it('rejects a month before 1990-01, from after to, and a malformed month, naming the parameter', () => {
    assert.deepEqual(resolveMonthWindow({ from: '1989-12' }, '2024-03').error, {
      kind: 'invalid_parameter',
      parameter: 'from',
      message: 'from must be 1990-01 or later: trade data start in 1990-01',
    });
    assert.equal(resolveMonthWindow({ from: '2024-05', to: '2024-01' }, '2024-03').error?.kind, 'invalid_parameter');
    assert.equal(resolveMonthWindow({ to: '2024-13' }, '2024-03').error?.message, "to must be a month written YYYY-MM, got '2024-13'");
    assert.equal(resolveMonthWindow({ from: '2025-01' }, '2024-03').error?.message, 'from (2025-01) is after the latest month with data (2024-03)');
  });

  void it('needs data to apply a default', () => {
    assert.equal(resolveMonthWindow({}, null).error?.kind, 'data_unavailable');
  });

  void it('latestMonthOf', () => {
    assert.equal(latestMonthOf([t('2024-01', 1, 1), t('2024-03', 1, 1), t('2024-02', 1, 1)]), '2024-03');
    assert.equal(latestMonthOf([]), null);
  });
});

void describe('sectorExports', () => {
  const s = (sector: string, month: string, exports: number): SectorExportMonth => ({ month, sector, exports, source: 'test' });
  const rows: SectorExportMonth[] = [];
  for (const month of monthRange('2022-01', '2024-12')) {
    rows.push(s('semiconductors', month, month < '2024-01' ? 100 : 110)); // 24m: 12 x 100 + 12 x 110 = 2,520
    rows.push(s('automobiles', month, 90)); // 24m: 24 x 90 = 2,160
    if (month >= '2023-01') rows.push(s('shipbuilding', month, 50)); // 24 x 50 = 1,200
    if (month >= '2023-01') rows.push(s('displays', month, 50)); // 1,200: ties shipbuilding, 'displays' first
  }
  rows.push(s('shipbuilding', '2021-06', 1e9)); // outside the 24 months: ignored
  for (const month of monthRange('2024-01', '2024-12')) rows.push(s('batteries', month, 95)); // 12 x 95 = 1,140
  rows.push(s('batteries', '2023-11', 0)); // zero prior-year month

  void it('ranks by exports summed over the 24 months ending at to; ties by sector name', () => {
    const top = sectorExports(rows, '2024-11', '2024-12', 10);
    assert.deepEqual(top.map((x) => [x.rank, x.sector, x.cumulative24m]), [
      [1, 'semiconductors', 2520],
      [2, 'automobiles', 2160],
      [3, 'displays', 1200],
      [4, 'shipbuilding', 1200],
      [5, 'batteries', 1140],
    ]);
  });

  void it('takes the top N and gives the monthly series over the window with YoY', () => {
    const top = sectorExports(rows, '2024-11', '2024-12', 1);
    // (110 - 100) x 100 / 100 = 10
    assert.deepEqual(top, [
      {
        rank: 1,
        sector: 'semiconductors',
        cumulative24m: 2520,
        series: [
          { month: '2024-11', exports: 110, yoyPct: 10 },
          { month: '2024-12', exports: 110, yoyPct: 10 },
        ],
      },
    ]);
  });

  void it('YoY is null where the prior-year month is missing or zero', () => {
    const batteries = sectorExports(rows, '2024-11', '2024-12', 5).find((x) => x.sector === 'batteries');
    assert.deepEqual(batteries?.series, [
      { month: '2024-11', exports: 95, yoyPct: null }, // 2023-11 was 0
      { month: '2024-12', exports: 95, yoyPct: null }, // 2023-12 missing
    ]);
  });

  void it('the 24 months end at the window end, not at the latest data', () => {
    // Ending 2023-12: 2022-01..2023-12. semiconductors 2,400, automobiles 2,160, displays and
    // shipbuilding 600 each; batteries had no exports then -> 0 but still ranked (it has a row).
    const top = sectorExports(rows, '2023-12', '2023-12', 3);
    assert.deepEqual(top.map((x) => [x.sector, x.cumulative24m]), [
      ['semiconductors', 2400],
      ['automobiles', 2160],
      ['displays', 600],
    ]);
  });
});
