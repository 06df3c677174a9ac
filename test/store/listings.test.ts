// Dated listings in the store (security_listings, migration 0016; the writer in
// src/store/market-securities.ts `writeListings`) on SQLite and PostgreSQL alike:
// - a write dated D adds a version from D only where the name, sector or exchange differs from the
//   version valid on D; `securities` keeps the latest version's (today's answers read it);
// - a source that knows no sector (Unclassified) does not erase the one known;
// - SEC's dated former names become versions of their spans;
// - a store written before migration 0016 gets one version a security, from its first bar.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Security } from '../../src/domain/model.js';
import type { KyselyStore } from '../../src/store/store.js';
import { openMigratedFrom, STORE_PLACES } from '../support/stores.js';

// SQLite, SQLite with a reader thread, and PostgreSQL (test/support/stores.ts).
const engines = STORE_PLACES;


const kr = (code: string, name: string, sector: string, exchange = 'KOSDAQ'): Security => ({ market: 'KR', code, name, exchange, sector, currency: 'KRW', fiscalYearEndMonth: 12, source: 'krx' });

/** Every version as [code, validFrom, name, sector, exchange], by code and day. */
async function versions(store: KyselyStore): Promise<[string, string, string, string, string][]> {
  const codes = new Map((await store.market.securities()).map((s) => [s.id, s.code]));
  const out: [string, string, string, string, string][] = [];
  for (const [id, list] of await store.market.listingVersions()) for (const v of list) out.push([codes.get(id) as string, v.validFrom, v.name, v.sector, v.exchange]);
  return out.sort((a, b) => (a[0] + a[1] < b[0] + b[1] ? -1 : 1));
}

/** Today's [code, name, sector, exchange] of every security. */
async function today(store: KyselyStore): Promise<[string, string, string, string][]> {
  return (await store.market.securities()).map((s) => [s.code, s.name, s.sector, s.exchange]);
}

for (const engine of engines) describe(`${engine.name}: dated listings`, { skip: engine.skip }, () => {
  it('adds a version only where a write of a day changes the name, sector or exchange; today keeps the latest', async () => {
    const { store, cleanup } = await engine.open();
    try {
      await store.market.writeDataset({ securities: [kr('900001', '스틸웍스', 'Steel')] }, { asOf: '2024-01-10' });
      // The same listing a day later: nothing.
      await store.market.writeDataset({ securities: [kr('900001', '스틸웍스', 'Steel')] }, { asOf: '2024-02-01' });
      assert.deepEqual(await versions(store), [['900001', '2024-01-10', '스틸웍스', 'Steel', 'KOSDAQ']]);
      // Renamed and moved to Chemicals on 2024-03-04.
      await store.market.writeDataset({ securities: [kr('900001', '켐웍스', 'Chemicals')] }, { asOf: '2024-03-04' });
      // A source without a sector (FSC's feed) on 2024-04-01: the sector stays, nothing is added.
      await store.market.writeDataset({ securities: [kr('900001', '켐웍스', 'Unclassified')] }, { asOf: '2024-04-01' });
      // A backfill that saw the move to KOSPI on 2024-02-20, under the old name: the past changes, today does not.
      await store.market.writeDataset({ securities: [kr('900001', '스틸웍스', 'Steel', 'KOSPI')] }, { asOf: '2024-02-20' });
      assert.deepEqual(await versions(store), [
        ['900001', '2024-01-10', '스틸웍스', 'Steel', 'KOSDAQ'],
        ['900001', '2024-02-20', '스틸웍스', 'Steel', 'KOSPI'],
        ['900001', '2024-03-04', '켐웍스', 'Chemicals', 'KOSDAQ'],
      ]);
      assert.deepEqual(await today(store), [['900001', '켐웍스', 'Chemicals', 'KOSDAQ']]);
      // A write without a day corrects the latest version in place.
      await store.market.writeDataset({ securities: [kr('900001', '켐웍스홀딩스', 'Chemicals')] });
      assert.deepEqual((await versions(store)).at(-1), ['900001', '2024-03-04', '켐웍스홀딩스', 'Chemicals', 'KOSDAQ']);
      assert.deepEqual(await today(store), [['900001', '켐웍스홀딩스', 'Chemicals', 'KOSDAQ']]);
    } finally {
      await store.close();
      await cleanup();
    }
  });

  it('a sector found where none was known fills the versions that knew none: the company did not move', async () => {
    const { store, cleanup } = await engine.open();
    try {
      // FSC places it first without a sector, then renames it; OpenDART finds its industry on 2024-05-02.
      await store.market.writeDataset({ securities: [kr('900002', '뱅크원', 'Unclassified')] }, { asOf: '2024-01-10' });
      await store.market.writeDataset({ securities: [kr('900002', '뱅크원지주', 'Unclassified')] }, { asOf: '2024-02-01' });
      await store.market.writeDataset({ securities: [kr('900002', '뱅크원지주', 'Banks')] }, { asOf: '2024-05-02' });
      assert.deepEqual(await versions(store), [
        ['900002', '2024-01-10', '뱅크원', 'Banks', 'KOSDAQ'],
        ['900002', '2024-02-01', '뱅크원지주', 'Banks', 'KOSDAQ'],
      ]);
      assert.deepEqual(await today(store), [['900002', '뱅크원지주', 'Banks', 'KOSDAQ']]);
    } finally {
      await store.close();
      await cleanup();
    }
  });

  it("writes a source's dated former names as versions of their spans, and counts those of unknown companies", async () => {
    const { store, cleanup } = await engine.open();
    try {
      const apple: Security = { market: 'US', code: 'AAPL', name: 'Apple Inc.', exchange: 'NASDAQ', sector: 'Hardware', currency: 'USD', fiscalYearEndMonth: 9, source: 'sec' };
      const formerNames = [
        { market: 'US' as const, code: 'AAPL', name: 'APPLE COMPUTER INC', from: '1994-01-26', until: '2007-01-10' },
        { market: 'US' as const, code: 'AAPL', name: 'APPLE INC', from: '2007-01-10', until: '2019-08-05' },
        { market: 'US' as const, code: 'NOPE', name: 'NOBODY', from: '2000-01-01', until: '2001-01-01' },
      ];
      const report = await store.market.writeDataset({ securities: [apple], formerNames }, { asOf: '2026-12-01' });
      assert.deepEqual(report.skipped, { 'formerNames: unknown security': 1 });
      // The first version from 2026-12-01 says what holds from 2019-08-05 on: one version from then.
      const expected: [string, string, string, string, string][] = [
        ['AAPL', '1994-01-26', 'APPLE COMPUTER INC', 'Hardware', 'NASDAQ'],
        ['AAPL', '2007-01-10', 'APPLE INC', 'Hardware', 'NASDAQ'],
        ['AAPL', '2019-08-05', 'Apple Inc.', 'Hardware', 'NASDAQ'],
      ];
      assert.deepEqual(await versions(store), expected);
      // The next day's run brings the same: nothing changes.
      await store.market.writeDataset({ securities: [apple], formerNames: formerNames.slice(0, 2) }, { asOf: '2026-12-02' });
      assert.deepEqual(await versions(store), expected);
      assert.deepEqual(await today(store), [['AAPL', 'Apple Inc.', 'Hardware', 'NASDAQ']]);
    } finally {
      await store.close();
      await cleanup();
    }
  });

  it('migration 0016 gives each security of an existing store one version, from its first bar (0000-01-01 without bars)', async () => {
    const { store, cleanup } = await openMigratedFrom(engine, '0015_reference_rates', async (db) => {
      for (const [code, name, sector] of [['900003', '가나', 'Steel'], ['900004', '다라', 'Banks']])
        await sql`insert into securities (market, code, name, exchange, sector, currency, fiscal_year_end_month, source)
          values ('KR', ${code}, ${name}, 'KOSPI', ${sector}, 'KRW', 12, 'krx')`.execute(db);
      for (const date of ['2023-12-29', '2023-12-28', '2024-01-02'])
        await sql`insert into bars (security_id, date, open, high, low, close, volume, traded_value, shares, market_cap, source)
          values (1, ${date}, 10, 10, 10, 10, 1, 10, 100, 1000, 'krx')`.execute(db);
    });
    try {
      assert.deepEqual(await versions(store), [
        ['900003', '2023-12-28', '가나', 'Steel', 'KOSPI'],
        ['900004', '0000-01-01', '다라', 'Banks', 'KOSPI'],
      ]);
      // A rename seen after the migration starts a version of its day.
      await store.market.writeDataset({ securities: [{ ...kr('900003', '가나홀딩스', 'Steel'), exchange: 'KOSPI' }] }, { asOf: '2024-06-03' });
      assert.deepEqual((await versions(store)).filter((v) => v[0] === '900003').map((v) => [v[1], v[2]]), [
        ['2023-12-28', '가나'],
        ['2024-06-03', '가나홀딩스'],
      ]);
    } finally {
      await store.close();
      await cleanup();
    }
  });
});
