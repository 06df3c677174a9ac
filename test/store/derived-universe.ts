// The small universe of the derived forms' tests (test/store/derived.test.ts and
// test/cluster/derived-rebuild.test.ts): written, aged to the format before today's, and
// checked current.

import assert from 'node:assert/strict';
import type { Dataset } from '../../src/domain/model.js';
import { DERIVED_FORMATS, formatKey, progressKey, storedFormats, type DerivedForm } from '../../src/store/derived.js';
import type { KyselyStore } from '../../src/store/store.js';
import { bar, fiscalYear, weekdays } from '../domain/fixtures.js';
import { assertFormsAreTheRecords } from './forms-oracle.js';

export const FORMS = Object.keys(DERIVED_FORMATS) as DerivedForm[];
const CODES = ['000010', '000020', '000030', '000040', '000050'];

// Five stocks. Bars on 2023-12-27, 28, 29 and 2024-01-01, 02, 03 (two calendar years: two packs
// a stock) for every stock but the fourth: 4 x 2 = 8 bar packs. The fifth splits 2 for 1 on
// 2024-01-02 (twice the shares, half the close from then: 5,004.37 / 2 x 2 / 5,003.37 = 1.0002):
// one split event. The four filings of FY 2023 for every stock but the third: 4 stocks with TTM
// steps and a report pack. Net income YTD of stock k (from 1): 10k, 30k, 60k, 100k, so its TTM
// from the FY filing (disclosed 2024-03-15) is 100k.
const split = (k: number, i: number) => (k === 4 && i >= 4 ? 2 : 1);
const universe: Partial<Dataset> = {
  securities: CODES.map((code) => ({ market: 'KR', code, name: `Derived ${code}`, exchange: 'KOSPI', sector: 'Steel', currency: 'KRW', fiscalYearEndMonth: 12, source: 'test' })),
  bars: CODES.flatMap((code, k) =>
    k === 3 ? [] : weekdays('2023-12-27', 6).map((date, i) => bar(date, (1_000 * (k + 1) + i + 0.37) / split(k, i), { code, shares: (1_000_003 + i) * split(k, i) })),
  ),
  reports: CODES.flatMap((code, k) => (k === 2 ? [] : fiscalYear(2023, [10, 30, 60, 100].map((ni) => ({ code, netIncome: ni * (k + 1), revenue: 1_000 * (k + 1) }))))),
};
export const BAR_PACKS = 8;
export const SPLIT_EVENTS = 1;
export const WITH_FILINGS = 4;

/** The stored universe's security ids, ascending (the order a rebuild goes in). */
export async function writeUniverse(store: KyselyStore): Promise<number[]> {
  await store.market.writeDataset(universe);
  return (await store.market.securities()).map((s) => s.id).sort((a, b) => a - b);
}

/**
 * What a store whose forms were built at the format before holds: that format's entries, and
 * values today's code cannot read (3 bytes: not a whole bar of 60, step of 41, nor a report
 * pack's 8-byte header), plus TTM steps for the stock that has no filings and a split event
 * for a stock whose bars show none.
 */
export async function ageForms(store: KyselyStore, ids: number[]): Promise<void> {
  const unreadable = new Uint8Array([1, 2, 3]);
  await store.db.updateTable('bar_packs').set({ data: unreadable }).execute();
  await store.db.updateTable('ttm_steps').set({ data: unreadable }).execute();
  await store.db.updateTable('report_packs').set({ data: unreadable }).execute();
  await store.db.insertInto('ttm_steps').values({ security_id: ids[2]!, data: unreadable }).execute();
  // And a split event no bar shows.
  await store.db.insertInto('bar_splits').values({ security_id: ids[0]!, date: '2023-12-28', factor: 3 }).execute();
  // And a delisting the bars do not show (the market has fewer than DELISTED_AFTER_SESSIONS sessions).
  await store.db.updateTable('securities').set({ delisted_on: '2023-12-28' }).where('id', '=', ids[1]!).execute();
  for (const form of FORMS) await store.refresh.setMeta(formatKey(form), String(DERIVED_FORMATS[form] - 1));
  await assert.rejects(store.market.ttmSteps(ids[0]!), /not whole steps/, 'aged: the steps do not read');
}

/** Every form at its code's format, no rebuild in progress, and every stock's forms its records. */
export async function assertCurrent(store: KyselyStore, ids: number[]): Promise<void> {
  assert.deepEqual(await storedFormats(store.db), DERIVED_FORMATS);
  for (const form of FORMS) assert.equal(await store.refresh.getMeta(progressKey(form)), null, `${form}: no progress entry`);
  for (const id of ids) await assertFormsAreTheRecords(store, id);
  assert.equal((await store.db.selectFrom('bar_packs').select('year').execute()).length, BAR_PACKS);
  assert.deepEqual(await store.db.selectFrom('bar_splits').select(['security_id', 'date', 'factor']).execute(), [{ security_id: ids[4], date: '2024-01-02', factor: 2 }]);
  assert.equal((await store.db.selectFrom('ttm_steps').select('security_id').execute()).length, WITH_FILINGS, 'the stock without filings has no steps');
  assert.equal((await store.db.selectFrom('report_packs').select('security_id').execute()).length, WITH_FILINGS);
  assert.deepEqual((await store.market.securities()).map((s) => s.delistedOn), ids.map(() => undefined), 'none delisted');
  const last = (await store.market.ttmSteps(ids[1]!)).at(-1);
  assert.deepEqual([last?.effectiveFrom, last?.referenceQuarter, last?.netIncome], ['2024-03-15', '2023Q4', 200], 'stock 2: FY 2023 net income 100 x 2');
}
