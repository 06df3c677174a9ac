// The oracle of the store's derived forms (bar packs, split events, TTM steps, report packs): what each read of
// them answers for a stock must be what its records (the bars and reports rows) give.

import assert from 'node:assert/strict';
import { dayNumber } from '../../src/domain/calendar.js';
import { splitEvents } from '../../src/domain/price-change.js';
import { ttmTimeline } from '../../src/domain/ttm.js';
import type { KyselyStore } from '../../src/store/store.js';

/** Every date a test writes lies before this. */
const END = '9999-12-31';

/**
 * Asserts that stock `id`'s whole history from the bar packs (`barSeries`, `marketCapSeries`) is
 * its bars' rows, its split events `splitEvents` of them, its TTM steps `ttmTimeline` of its filings' rows, and its report pack (the
 * recompute's `recentReports` over every quarter) those rows.
 */
export async function assertFormsAreTheRecords(store: KyselyStore, id: number): Promise<void> {
  const bars = await store.market.bars(id);
  const series = await store.market.barSeries(id, { to: END });
  assert.deepEqual(
    Array.from(series.days, (day, i) => ({ day, values: [series.open, series.high, series.low, series.close, series.volume, series.tradedValue, series.shares].map((c) => c[i]) })),
    bars.map((b) => ({ day: dayNumber(b.date), values: [b.open, b.high, b.low, b.close, b.volume, b.tradedValue, b.shares] })),
    `stock ${id}: the bar packs are its bars`,
  );
  const caps = await store.market.marketCapSeries(id, { to: END });
  assert.deepEqual([...caps.days], [...series.days]);
  assert.deepEqual([...caps.marketCap], bars.map((b) => b.close * b.shares), `stock ${id}: market caps are close x shares of its bars`);
  assert.deepEqual((await store.market.splitEvents('0000-01-01', END)).get(id) ?? [], splitEvents(bars), `stock ${id}: the split events are those of its bars`);
  const reports = await store.market.reports(id);
  assert.deepEqual(await store.market.ttmSteps(id), ttmTimeline(reports), `stock ${id}: the TTM steps are ttmTimeline of its filings`);
  const recent = await store.market.recentReports(END, 1_000_000, { first: id, last: id });
  assert.deepEqual(recent.get(id) ?? [], reports, `stock ${id}: the report pack is its filings`);
}
