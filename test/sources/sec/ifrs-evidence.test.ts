// What an IFRS filer's (20-F) companyfacts prove absent for the cash conversion cycle
// (docs/calculations.md, CCC of a foreign filer). CONSTRUCTED facts: no full real IFRS companyfacts
// recording is at hand (the TSMC and Globus files in test/fixtures/real/sec are excerpts), so each
// filer below is a small companyfacts document in SEC's layout, in USD, with the figures chosen
// to make the arithmetic plain.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stockMetrics } from '../../../src/domain/snapshot.js';
import { discreteQuarters } from '../../../src/domain/ttm.js';
import { parseCompanyFacts } from '../../../src/sources/sec/parse.js';

const M = 1_000_000;
const ACCN = '0000000001-26-000001';
const FILED = '2026-03-02';

/** A 20-F for the year 2025 tagging `flows` (2025-01-01..2025-12-31) and `balances` (at 2025-12-31), USD million. */
function twentyF(flows: Record<string, number>, balances: Record<string, number>, extra: Record<string, { units: Record<string, unknown[]> }> = {}): unknown {
  const fact = (val: number, start?: string) => ({ ...(start ? { start } : {}), end: '2025-12-31', val: val * M, accn: ACCN, fy: 2025, fp: 'FY', form: '20-F', filed: FILED });
  const ifrs: Record<string, { units: Record<string, unknown[]> }> = { ...extra };
  for (const [c, v] of Object.entries(flows)) ifrs[c] = { units: { USD: [fact(v, '2025-01-01')] } };
  for (const [c, v] of Object.entries(balances)) ifrs[c] = { units: { USD: [fact(v)] } };
  return { cik: 1, entityName: 'Constructed Foreign Filer', facts: { 'ifrs-full': ifrs } };
}

const reportOf = (body: unknown) => {
  const reports = parseCompanyFacts(body, 'CFF')?.reports ?? [];
  const r = reports.find((x) => x.disclosedOn === FILED && x.periodEnd === '2025-12-31');
  assert.ok(r, 'the 20-F\'s report');
  return { r, reports };
};

describe('CCC of IFRS filers: inventory a whole history proves absent', () => {
  it('a cost of sales and no inventory concept ever: inventory 0 (DIO 0), the CCC computed', () => {
    const { r, reports } = reportOf(
      twentyF({ Revenue: 3650, CostOfSales: 1825, ProfitLossAttributableToOwnersOfParent: 200 }, { Assets: 5000, TradeAndOtherCurrentReceivables: 500, TradeAndOtherCurrentPayables: 100 }),
    );
    assert.deepEqual([r.costOfSales, r.inventory, r.receivables, r.payables], [1825 * M, 0, 500 * M, 100 * M]);
    // CCC = receivables x 365 / revenue + inventory x 365 / cost of sales - payables x 365 / cost of sales
    //     = 500 x 365 / 3,650 + 0 - 100 x 365 / 1,825 = 50 + 0 - 20 = 30 days.
    const ccc = stockMetrics(discreteQuarters(reports, FILED), null, 'USD').ccc;
    assert.equal(ccc.value, 30);
  });

  it('ifrs-full:Inventories in an earlier filing: a filing without it stays unknown', () => {
    const earlier = { end: '2024-12-31', val: 80 * M, accn: '0000000001-25-000001', fy: 2024, fp: 'FY', form: '20-F', filed: '2025-03-03' };
    const { r } = reportOf(
      twentyF({ Revenue: 3650, CostOfSales: 1825 }, { Assets: 5000, TradeAndOtherCurrentReceivables: 500, TradeAndOtherCurrentPayables: 100 }, { Inventories: { units: { USD: [earlier] } } }),
    );
    assert.equal(r.inventory, null);
  });

  it('expenses by nature (no cost-of-sales line, IAS 1.102): neither cost of sales 0 nor inventory 0', () => {
    // An IFRS income statement may analyse expenses by nature: raw materials used, employee
    // benefits... with no cost of sales line, which is no proof the company has none.
    const { r, reports } = reportOf(
      twentyF({ Revenue: 3650, RawMaterialsAndConsumablesUsed: 1200, EmployeeBenefitsExpense: 900 }, { Assets: 5000, TradeAndOtherCurrentReceivables: 500, TradeAndOtherCurrentPayables: 100 }),
    );
    assert.deepEqual([r.revenue, r.costOfSales, r.inventory], [3650 * M, null, null]);
    assert.equal(stockMetrics(discreteQuarters(reports, FILED), null, 'USD').ccc.reason, 'TTM cost of sales not reported');
  });
});
