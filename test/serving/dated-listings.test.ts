// Names, sectors and exchanges as of the day (src/domain/listings.ts; src/serving/as-of.ts) on a
// small constructed KR market in SQLite, every figure below derived by hand:
//
// sessions: the weekdays 2024-04-01 .. 2024-05-10, close 10,000, 10,000,000 shares, flows every day.
// Filings of every stock: FY2022 and FY2023 by quarter, equity 500,000,000,000 in each, net income
// year to date (won, x 1e9): FY2022 8, 17, 27, 40 for all three; FY2023
//   900001 A 스틸원    Steel       10, 25, 45, 70   ROE 70 / 500  = 14 %
//   900002 S 스틸웍스  Steel until 2024-04-22, then 켐웍스 in Chemicals (a rename and a move)
//                                  20, 45, 75, 100  ROE 100 / 500 = 20 %
//   900003 B 켐원      Chemicals   30, 65, 110, 150 ROE 150 / 500 = 30 %
// (the ranks only need the order A < S < B, the same equity making ROE follow net income).
//
// Percentile in a cohort of n with a value (src/domain/score.ts): 100 x (members below) / (n - 1),
// 100 alone.
//   as of 2024-04-19 (S in Steel):  Steel {A, S}: A 0, S 100;  Chemicals {B}: B 100
//   as of 2024-04-22 (S in Chemicals): Steel {A}: A 100;  Chemicals {S, B}: S 0, B 100
//   today, 2024-05-10: as 2024-04-22.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DailyBar, FinancialReport, FiscalQuarter, InvestorFlow, Security } from '../../src/domain/model.js';
import { BAND_KEYS } from '../../src/domain/results.js';
import { pastDaysOf, snapshotOfDay } from '../../src/serving/as-of.js';
import { loadUniverse, SnapshotDataset } from '../../src/serving/served.js';
import type { ServedDataset, StockView } from '../../src/serving/dataset.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { KyselyStore } from '../../src/store/store.js';
import { report } from '../domain/fixtures.js';
import { tempDir } from '../support/tmp.js';

const TODAY = '2024-05-10';
const BEFORE = '2024-04-19';
const CHANGE = '2024-04-22';
const meta = (version: number) => ({ version, updatedAt: `${TODAY}T18:00:00+09:00`, source: 'test', nextRefreshAt: null, sources: [] });

const SESSIONS: string[] = [];
for (let d = new Date(Date.UTC(2024, 3, 1)); d <= new Date(Date.UTC(2024, 4, 10)); d.setUTCDate(d.getUTCDate() + 1)) {
  if (d.getUTCDay() !== 0 && d.getUTCDay() !== 6) SESSIONS.push(d.toISOString().slice(0, 10));
}

const kr = (code: string, name: string, sector: string): Security => ({ market: 'KR', code, name, exchange: 'KOSPI', sector, currency: 'KRW', fiscalYearEndMonth: 12, source: 'test' });
const DISCLOSED: Record<FiscalQuarter, (fy: number) => string> = { 1: (fy) => `${fy}-05-15`, 2: (fy) => `${fy}-08-14`, 3: (fy) => `${fy}-11-14`, 4: (fy) => `${fy + 1}-03-15` };

function filings(code: string, fy2023: readonly number[]): FinancialReport[] {
  const out: FinancialReport[] = [];
  for (const [fy, ytd] of [[2022, [8, 17, 27, 40]], [2023, fy2023]] as const) {
    ytd.forEach((ni, i) => {
      const q = (i + 1) as FiscalQuarter;
      out.push(report(fy, q, DISCLOSED[q](fy), { code, netIncome: ni * 1e9, equity: 500e9, revenue: ni * 10e9, shares: 10_000_000 }));
    });
  }
  return out;
}

const STOCKS: [string, readonly number[]][] = [
  ['900001', [10, 25, 45, 70]],
  ['900002', [20, 45, 75, 100]],
  ['900003', [30, 65, 110, 150]],
];

describe('sector, name and exchange as of the day', () => {
  const tmp = tempDir();
  let store: KyselyStore;
  let served: SnapshotDataset;
  before(async () => {
    store = await openSqliteStore(join(tmp.dir, 'db.sqlite'));
    const bars: DailyBar[] = [];
    const flows: InvestorFlow[] = [];
    for (const [code] of STOCKS)
      for (const date of SESSIONS) {
        bars.push({ market: 'KR', code, date, open: 10_000, high: 10_000, low: 10_000, close: 10_000, volume: 1_000, tradedValue: 10_000_000, shares: 10_000_000, marketCap: 100_000_000_000, source: 'test' });
        flows.push({ market: 'KR', code, date, foreignNet: 1_000_000, institutionNet: 1_000_000, source: 'test' });
      }
    // The first run (2024-04-01) places the three; the run of 2024-04-22 sees S renamed and moved.
    await store.market.writeDataset(
      { securities: [kr('900001', '스틸원', 'Steel'), kr('900002', '스틸웍스', 'Steel'), kr('900003', '켐원', 'Chemicals')], bars, flows, reports: STOCKS.flatMap(([code, ni]) => filings(code, ni)) },
      { asOf: '2024-04-01' },
    );
    await store.market.writeDataset({ securities: [kr('900002', '켐웍스', 'Chemicals')] }, { asOf: CHANGE });
    served = new SnapshotDataset(await snapshotOfDay(store.market, TODAY), meta(1), store.market, { past: pastDaysOf(2) });
  });
  after(async () => {
    await store.close();
    tmp.cleanup();
  });

  const roe = (view: StockView, cohort: 'sector' | 'market') => view.percentiles()[cohort].metrics.find((m) => m.metric === 'roe');
  const sectorOf = (data: ServedDataset, code: string) => {
    const p = data.stock(code).percentiles().sector;
    return { sector: p.name, members: p.members, roePercentile: roe(data.stock(code), 'sector')?.percentile };
  };

  it("one stock's answer as of a day (its own universe of one) carries that day's name and sector", async () => {
    const eve = await served.past.stock('900002', BEFORE);
    assert.deepEqual([eve.view.security.name, eve.view.security.sector], ['스틸웍스', 'Steel']);
    const on = await served.past.stock('900002', CHANGE);
    assert.deepEqual([on.view.security.name, on.view.security.sector], ['켐웍스', 'Chemicals']);
    // Today's: the latest version, as `securities` holds it.
    assert.deepEqual([served.stock('900002').security.name, served.stock('900002').security.sector], ['켐웍스', 'Chemicals']);
  });

  it('the sector percentile cohort is the one of the day: S moves from Steel to Chemicals on 2024-04-22', async () => {
    const eve = (await served.past.universe(BEFORE)).data;
    assert.deepEqual(sectorOf(eve, '900002'), { sector: 'Steel', members: 2, roePercentile: 100 });
    assert.deepEqual(sectorOf(eve, '900001'), { sector: 'Steel', members: 2, roePercentile: 0 });
    assert.deepEqual(sectorOf(eve, '900003'), { sector: 'Chemicals', members: 1, roePercentile: 100 });
    const on = (await served.past.universe(CHANGE)).data;
    assert.deepEqual(sectorOf(on, '900002'), { sector: 'Chemicals', members: 2, roePercentile: 0 });
    assert.deepEqual(sectorOf(on, '900001'), { sector: 'Steel', members: 1, roePercentile: 100 });
    assert.deepEqual(sectorOf(on, '900003'), { sector: 'Chemicals', members: 2, roePercentile: 100 });
    assert.deepEqual(sectorOf(served, '900002'), { sector: 'Chemicals', members: 2, roePercentile: 0 });
    // The market cohort is the same three on every day: S is the middle one, 100 x 1 / 2 = 50.
    assert.equal(roe(eve.stock('900002'), 'market')?.percentile, 50);
    assert.equal(roe(on.stock('900002'), 'market')?.percentile, 50);
    assert.deepEqual(eve.sectors(), [{ market: 'KR', sector: 'Chemicals', stocks: 1 }, { market: 'KR', sector: 'Steel', stocks: 2 }]);
  });

  it("rankings and search as of a day show and find the day's name", async () => {
    const names = (data: ServedDataset) => data.rankings(['KR'], BAND_KEYS, 10).rows.map((r) => [r.ticker, r.name]).sort();
    assert.deepEqual(names((await served.past.universe(BEFORE)).data), [['900001', '스틸원'], ['900002', '스틸웍스'], ['900003', '켐원']]);
    assert.deepEqual(names((await served.past.universe(CHANGE)).data), [['900001', '스틸원'], ['900002', '켐웍스'], ['900003', '켐원']]);
    // 스틸웍스 is S's name on 2024-04-19 only: searched as of that day it is found, not later.
    const found = (data: ServedDataset) => data.search({ q: '스틸웍스', limit: 10 }).matches.map((m) => m.entry.code);
    assert.deepEqual(found((await served.past.universe(BEFORE)).data), ['900002']);
    assert.deepEqual(found((await served.past.universe(CHANGE)).data), []);
    assert.deepEqual(found(served), []);
  });

  it("today's universe reads `securities` as they are: the publisher's read takes no versions", async () => {
    const universe = await loadUniverse(store.market, BEFORE);
    assert.equal(universe.securities.find((s) => s.code === '900002')?.name, '켐웍스');
  });
});
