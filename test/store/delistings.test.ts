// delisted_on as every write that brings bars derives it (src/store/delistings.ts), on every store:
// a code its market has traded DELISTED_AFTER_SESSIONS sessions without is delisted on its last
// bar's date; a bar of one of the market's last sessions lists it again; a backfill of a code's old
// bars alone (a company delisted long ago) delists it at its last one; another market's sessions
// do not count.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DailyBar, Market, Security } from '../../src/domain/model.js';
import { DELISTED_AFTER_SESSIONS } from '../../src/store/delistings.js';
import { STORE_PLACES } from '../support/stores.js';

/** 25 sessions: the weekdays from 2024-01-01 (Monday) to 2024-02-02. */
const SESSIONS = Array.from({ length: 35 }, (_, k) => new Date(Date.UTC(2024, 0, 1 + k)))
  .filter((d) => d.getUTCDay() !== 0 && d.getUTCDay() !== 6)
  .map((d) => d.toISOString().slice(0, 10));

const security = (market: Market, code: string): Security => ({
  market,
  code,
  name: code,
  exchange: market === 'KR' ? 'KOSPI' : 'NYSE',
  sector: 'Steel',
  currency: market === 'KR' ? 'KRW' : 'USD',
  fiscalYearEndMonth: 12,
  source: 'demo',
});
const bar = (market: Market, code: string, date: string): DailyBar => ({ market, code, date, open: 10, high: 10, low: 10, close: 10, volume: 1, tradedValue: 10, shares: 100, marketCap: 1_000, source: 'demo' });

for (const place of STORE_PLACES) describe(`${place.name}: delisted_on from the bars`, { skip: place.skip }, () => {
  it('is the last bar of a code its market traded DELISTED_AFTER_SESSIONS sessions without, and clears when it trades again', async () => {
    assert.equal(SESSIONS.length, 25);
    const { store, cleanup } = await place.open();
    const delisted = async () => Object.fromEntries((await store.market.securities()).map((s) => [`${s.market}:${s.code}`, s.delistedOn ?? null]));
    try {
      // A trades every session; B the first 3 (then 22 sessions without it: delisted on the 3rd);
      // C the first 6 (19 without: still listed); U, a US code, the first 3 of sessions the US
      // market has only 3 of (too few to delist anything).
      await store.market.writeDataset({
        securities: [security('KR', 'A00001'), security('KR', 'B00002'), security('KR', 'C00003'), security('US', 'U')],
        bars: [
          ...SESSIONS.map((d) => bar('KR', 'A00001', d)),
          ...SESSIONS.slice(0, 3).map((d) => bar('KR', 'B00002', d)),
          ...SESSIONS.slice(0, 6).map((d) => bar('KR', 'C00003', d)),
          ...SESSIONS.slice(0, 3).map((d) => bar('US', 'U', d)),
        ],
      });
      assert.equal(SESSIONS.length - 3 >= DELISTED_AFTER_SESSIONS && SESSIONS.length - 6 < DELISTED_AFTER_SESSIONS, true);
      assert.deepEqual(await delisted(), { 'KR:A00001': null, 'KR:B00002': '2024-01-03', 'KR:C00003': null, 'US:U': null });

      // The next session, A alone: C has now missed 20 sessions (its last bar, 2024-01-08, before the 20th latest).
      await store.market.writeDataset({ bars: [bar('KR', 'A00001', '2024-02-05')] });
      assert.deepEqual(await delisted(), { 'KR:A00001': null, 'KR:B00002': '2024-01-03', 'KR:C00003': '2024-01-08', 'US:U': null });

      // B trades again: listed.
      await store.market.writeDataset({ bars: [bar('KR', 'B00002', '2024-02-05')] });
      assert.equal((await delisted())['KR:B00002'], null);

      // D, backfilled with old bars only: delisted on its last one; its bars are kept.
      await store.market.writeDataset({ securities: [security('KR', 'D00004')], bars: SESSIONS.slice(0, 2).map((d) => bar('KR', 'D00004', d)) });
      assert.equal((await delisted())['KR:D00004'], '2024-01-02');
      const d = (await store.market.securities()).find((s) => s.code === 'D00004');
      assert.deepEqual((await store.market.bars(d?.id ?? -1)).map((b) => b.date), ['2024-01-01', '2024-01-02']);
    } finally {
      await store.close();
      await cleanup();
    }
  });
});
