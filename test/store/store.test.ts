import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { dayNumber } from '../../src/domain/calendar.js';
import type { DailyBar, Dataset, FinancialReport } from '../../src/domain/model.js';
import { ttmTimeline } from '../../src/domain/ttm.js';
import { reportRow } from '../../src/store/report-rows.js';
import type { DB, ReportsTable } from '../../src/store/schema.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { KyselyStore } from '../../src/store/store.js';
import { freshSchema, PG_SKIP } from '../support/pg.js';
import { openMigratedFrom } from '../support/stores.js';
import { tempDir } from '../support/tmp.js';
import { assertFormsAreTheRecords } from './forms-oracle.js';

const report = (over: Partial<FinancialReport> = {}): FinancialReport => ({
  market: 'KR',
  code: '123450',
  fiscalYear: 2024,
  fiscalQuarter: 2,
  periodEnd: '2024-06-30',
  disclosedOn: '2024-08-14',
  consolidated: true,
  revenue: 1_234_567_890_123,
  costOfSales: 800_000_000_000,
  operatingIncome: 100_000_000_000,
  netIncome: -5_000_000_000,
  operatingCashFlow: 90_000_000_000,
  capex: 30_000_000_000,
  interestExpense: 0,
  basicEps: -41,
  dividendPerShare: 361.5,
  totalAssets: 5_000_000_000_000,
  currentAssets: 2_000_000_000_000,
  totalLiabilities: 3_000_000_000_000,
  currentLiabilities: 1_000_000_000_000,
  equity: 2_000_000_000_000,
  cash: 500_000_000_000,
  debt: null,
  receivables: 300_000_000_000,
  inventory: 200_000_000_000,
  payables: 150_000_000_000,
  shares: 123_456_789,
  source: 'demo',
  ...over,
});

const dataset: Dataset = {
  securities: [
    { market: 'KR', code: '123450', name: '한성테스트', nameEn: 'Hanseong Test', exchange: 'KOSPI', sector: 'Steel', currency: 'KRW', fiscalYearEndMonth: 12, source: 'demo' },
    { market: 'US', code: 'ABCD.B', name: 'Abcd Class B', exchange: 'NYSE', sector: 'Software', currency: 'USD', fiscalYearEndMonth: 6, source: 'demo' },
  ],
  bars: [
    { market: 'KR', code: '123450', date: '2024-11-20', open: 51_000, high: 52_300, low: 50_800, close: 52_000, volume: 1_000_000, tradedValue: 51_700_000_000, shares: 123_456_789, marketCap: 6_419_753_028_000, source: 'demo' },
    { market: 'US', code: 'ABCD.B', date: '2024-11-20', open: 10.01, high: 10.5, low: 9.99, close: 10.37, volume: 12_345, tradedValue: 127_000.55, shares: 1_000_003, marketCap: 10_370_031.11, source: 'demo' },
  ],
  reports: [report(), report({ disclosedOn: '2024-10-02', netIncome: -4_000_000_000 }), report({ market: 'US', code: 'ABCD.B', fiscalYear: 2025, fiscalQuarter: 1, periodEnd: '2024-09-30', disclosedOn: '2024-11-05', consolidated: false })],
  flows: [{ market: 'KR', code: '123450', date: '2024-11-20', foreignNet: -1_000_000_000, institutionNet: 2_500_000_000, source: 'demo' }],
  fx: [{ date: '2024-11-20', usdKrw: 1_395.5, source: 'demo' }],
  trade: [{ month: '2024-10', exports: 57_500_000_000, imports: 54_000_000_000, balance: 3_500_000_000, source: 'demo' }],
  sectorExports: [{ month: '2024-10', sector: 'Semiconductors', exports: 12_500_000_000, source: 'demo' }],
};

const snapshotBar = ({ date, close, tradedValue, shares, marketCap }: DailyBar) => ({ date, close, tradedValue, shares, marketCap });

interface Engine {
  name: string;
  skip: string | false;
  open(): Promise<{ store: KyselyStore; cleanup: () => Promise<void> }>;
}

const engines: Engine[] = [
  {
    name: 'SQLite',
    skip: false,
    async open() {
      const tmp = tempDir();
      const store = await openSqliteStore(join(tmp.dir, 'db.sqlite'));
      return { store, cleanup: async () => tmp.cleanup() };
    },
  },
  {
    name: 'PostgreSQL',
    skip: PG_SKIP,
    async open() {
      const schema = await freshSchema();
      const store = await openPostgresStore(schema.url, 4);
      return { store, cleanup: schema.drop };
    },
  },
];

// The store contract: every engine must pass the same cases with the same results.
for (const engine of engines) describe(`${engine.name} store`, { skip: engine.skip }, () => {
  let store: KyselyStore;
  let cleanup: () => Promise<void>;
  before(async () => {
    ({ store, cleanup } = await engine.open());
  });
  after(async () => {
    await store.close();
    await cleanup();
  });

  it('applies every migration to an empty database, and again as a no-op', async () => {
    await store.migrate(); // second run: nothing to do, no error
    const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(store.db);
    assert.deepEqual(applied.rows.map((r) => r.name), ['0001_market_data', '0002_keys_usage_refresh', '0003_refresh_claims', '0004_claim_leases', '0005_security_name_en', '0006_bar_packs', '0007_ttm_steps', '0008_report_packs', '0009_oauth', '0010_bar_splits', '0011_oauth_grants', '0012_per_share_figures', '0013_security_filer_basis', '0014_security_delisted_on', '0015_reference_rates', '0016_security_listings']);
  });

  it('round-trips every market-data table exactly', async () => {
    await store.market.writeDataset(dataset);
    const securities = await store.market.securities();
    assert.deepEqual(
      securities.map(({ id: _id, ...s }) => s),
      [...dataset.securities].sort((a, b) => a.market.localeCompare(b.market)),
    );
    const kr = securities.find((s) => s.market === 'KR');
    const us = securities.find((s) => s.market === 'US');
    assert.ok(kr && us);
    assert.deepEqual(await store.market.bars(kr.id), [dataset.bars[0]]);
    assert.deepEqual(await store.market.bars(us.id), [dataset.bars[1]]);
    assert.deepEqual(
      await store.market.lastBars('2024-11-20', '2024-11-20', 21),
      new Map([
        [kr.id, [snapshotBar(dataset.bars[0]!)]],
        [us.id, [snapshotBar(dataset.bars[1]!)]],
      ]),
    );
    assert.deepEqual(await store.market.lastBars('2024-11-21', '2024-12-31', 21), new Map());
    assert.deepEqual(await store.market.reports(kr.id), dataset.reports.slice(0, 2).sort((a, b) => a.disclosedOn.localeCompare(b.disclosedOn)));
    assert.deepEqual(await store.market.reports(us.id), [dataset.reports[2]]);
    assert.deepEqual(await store.market.flows(kr.id), dataset.flows);
    assert.deepEqual(await store.market.flowsOfLastBars('2024-01-01', '2024-12-31', 20), new Map([[kr.id, dataset.flows.map(({ date, foreignNet, institutionNet, source }) => ({ date, foreignNet, institutionNet, source }))]]));
    assert.deepEqual(await store.market.fx(), dataset.fx);
    assert.deepEqual(await store.market.trade(), dataset.trade);
    assert.deepEqual(await store.market.sectorExports(), dataset.sectorExports);
    assert.deepEqual(await store.market.tradingDates('KR'), ['2024-11-20']);
    // The band's windowed read: close x shares multiplied by the engine, the same double as
    // here (10.37 x 1,000,003 is not exact in binary, so a different rounding would show).
    for (const [id, bar] of [
      [kr.id, dataset.bars[0]!],
      [us.id, dataset.bars[1]!],
    ] as const) {
      const caps = await store.market.marketCapSeries(id, { from: '2024-01-01', to: '2024-12-31' });
      const bars = await store.market.barSeries(id, { from: '2024-01-01', to: '2024-12-31' });
      assert.deepEqual([...caps.days], [...bars.days]);
      assert.deepEqual([...caps.marketCap], [bar.close * bar.shares]);
    }
  });

  it('reads the recent window a slice of security ids at a time, and sector exports by months', async () => {
    await store.market.writeDataset(dataset);
    const securities = await store.market.securities();
    const kr = securities.find((s) => s.market === 'KR');
    const us = securities.find((s) => s.market === 'US');
    assert.ok(kr && us);
    const only = (id: number) => ({ first: id, last: id, securities });
    const pick = <T>(map: Map<number, T>, id: number) => new Map([...map].filter(([k]) => k === id));
    for (const s of [kr, us]) {
      assert.deepEqual(await store.market.recentReports('2024-11-30', 9, only(s.id)), pick(await store.market.recentReports('2024-11-30', 9), s.id));
      assert.deepEqual(await store.market.lastBars('2024-01-01', '2024-12-31', 21, only(s.id)), pick(await store.market.lastBars('2024-01-01', '2024-12-31', 21), s.id));
      assert.deepEqual(await store.market.flowsOfLastBars('2024-01-01', '2024-12-31', 20, only(s.id)), pick(await store.market.flowsOfLastBars('2024-01-01', '2024-12-31', 20), s.id));
    }
    // Without the securities list the slice reads it itself.
    assert.deepEqual(await store.market.recentReports('2024-11-30', 9, { first: kr.id, last: kr.id }), pick(await store.market.recentReports('2024-11-30', 9), kr.id));
    assert.equal((await store.market.recentReports('2024-11-30', 9, { first: kr.id, last: kr.id })).get(kr.id)?.length, 2, 'the KR stock has two filings in its window');
    const months = dataset.sectorExports.map((m) => m.month).sort();
    const [first, last] = [months[0] as string, months.at(-1) as string];
    assert.deepEqual(await store.market.sectorExports({ from: first, to: first }), dataset.sectorExports.filter((m) => m.month === first));
    assert.deepEqual(await store.market.sectorExports({ from: '0000-00', to: '9999-99' }), await store.market.sectorExports());
    assert.deepEqual(await store.market.sectorExports({ from: `${last}x`, to: '9999-99' }), []);
  });

  it('is idempotent: writing the same data twice stores the same rows', async () => {
    await store.market.writeDataset(dataset);
    assert.equal((await store.market.securities()).length, 2);
    assert.equal((await store.market.reports()).length, 3);
    assert.equal([...(await store.market.lastBars('2000-01-01', '2100-01-01', 21)).values()].flat().length, 2);
  });

  it("keeps each year's pack its rows through appends, corrections and a load in parts: the history reads answer what the bars table holds", async () => {
    const code = '423450';
    await store.market.writeDataset({ securities: [{ ...dataset.securities[0]!, code, name: 'Pack Test' }] });
    const id = (await store.market.securities()).find((x) => x.code === code)?.id ?? -1;
    // Bars on the 3rd, 13th and 23rd of every month of 2022-2024, values distinct per bar
    // (close with cents, so close x shares is not exact in binary).
    const barOn = (date: string, k: number): DailyBar => ({ ...dataset.bars[0]!, code, date, open: k, high: k + 1, low: k - 1, close: k + 0.37, volume: 10 * k, tradedValue: 100 * k, shares: 1_000_003 + k, marketCap: k });
    const dates: string[] = [];
    for (let y = 2022; y <= 2024; y++) for (let m = 1; m <= 12; m++) for (const d of ['03', '13', '23']) dates.push(`${y}-${String(m).padStart(2, '0')}-${d}`);
    const all = dates.map((d, k) => barOn(d, 1_000 + k));
    // 2022 and the first half of 2023 in one load of two parts (2023's split between them), then
    // the rest of 2023 and 2024 appended, then corrections of a 2022 and a 2024 bar, then a bar
    // between two stored days of 2023.
    const half = all.findIndex((b) => b.date >= '2023-07-01');
    await store.market.writeDatasets([{ bars: all.slice(0, 40) }, { bars: all.slice(40, half) }]);
    await store.market.writeDataset({ bars: all.slice(half) });
    const corrected = [barOn('2022-05-13', 7), barOn('2024-12-23', 9)];
    const between = barOn('2023-03-04', 5);
    await store.market.writeDataset({ bars: [...corrected, between] });

    const rows = await store.market.bars(id);
    assert.equal(rows.length, all.length + 1);
    assert.deepEqual(rows.find((b) => b.date === '2022-05-13')?.open, 7, 'the correction is the record');
    const expect = (range: { from?: string; to: string; last?: number }) => {
      let inRange = rows.filter((b) => (range.from === undefined || b.date >= range.from) && b.date <= range.to);
      if (range.last !== undefined) inRange = inRange.slice(Math.max(0, inRange.length - range.last));
      return inRange;
    };
    for (const range of [
      { to: '2026-01-01' },
      { from: '2023-03-04', to: '2023-03-04' },
      { from: '2022-12-24', to: '2023-01-13' },
      { to: '2024-12-23', last: 40 },
      { to: '2024-01-03', last: 2 },
      { from: '2022-05-13', to: '2024-12-31', last: 1_000 },
      { from: '2025-01-01', to: '2026-01-01' },
    ]) {
      const series = await store.market.barSeries(id, range);
      const want = expect(range);
      const got = Array.from(series.days, (day, i) => ({ day, values: [series.open, series.high, series.low, series.close, series.volume, series.tradedValue, series.shares].map((c) => c[i]) }));
      assert.deepEqual(
        got,
        want.map((b) => ({ day: dayNumber(b.date), values: [b.open, b.high, b.low, b.close, b.volume, b.tradedValue, b.shares] })),
        JSON.stringify(range),
      );
      const caps = await store.market.marketCapSeries(id, range);
      assert.deepEqual([...caps.days], [...series.days]);
      assert.deepEqual([...caps.marketCap], want.map((b) => b.close * b.shares));
    }
    const packs = await store.db.selectFrom('bar_packs').select(['year']).where('security_id', '=', id).orderBy('year').execute();
    assert.deepEqual(packs.map((p) => p.year), [2022, 2023, 2024], 'one pack a year');

    // Writes in flight together (PostgreSQL runs them on separate connections): each one's
    // bars land in the year's pack, none lost to the other's merge.
    const late = Array.from({ length: 8 }, (_, k) => barOn(`2025-0${k + 1}-15`, 5_000 + k));
    await Promise.all(late.map((b) => store.market.writeDataset({ bars: [b] })));
    const y2025 = await store.market.barSeries(id, { from: '2025-01-01', to: '2025-12-31' });
    assert.deepEqual([...y2025.open], late.map((b) => b.open));
  });

  it("keeps each stock's TTM step function that of all its filings, through a correction and a later write", async () => {
    const code = '523450';
    await store.market.writeDataset({ securities: [{ ...dataset.securities[0]!, code, name: 'Steps Test' }] });
    const id = (await store.market.securities()).find((x) => x.code === code)?.id ?? -1;
    assert.deepEqual(await store.market.ttmSteps(id), [], 'no filings, no steps');
    // Net income year to date: 2023 10, 30, 60, 100; 2024 20, 50, 90. 2023Q2 has no revenue.
    const periodEnd = ['03-31', '06-30', '09-30', '12-31'];
    const ytd: Record<number, number[]> = { 2023: [10, 30, 60, 100], 2024: [20, 50, 90, 150] };
    const filing = (y: number, q: 1 | 2 | 3 | 4, over: Partial<FinancialReport> = {}) =>
      report({ code, fiscalYear: y, fiscalQuarter: q, periodEnd: `${y}-${periodEnd[q - 1]}`, disclosedOn: q === 4 ? `${y + 1}-03-14` : `${y}-${String(q * 3 + 2).padStart(2, '0')}-14`, netIncome: ytd[y]![q - 1]!, ...over });
    await store.market.writeDataset({ reports: [filing(2023, 1), filing(2023, 2, { revenue: null }), filing(2023, 3), filing(2023, 4), filing(2024, 1), filing(2024, 2), filing(2024, 3)] });
    const expected = async () => ttmTimeline(await store.market.reports(id));
    assert.deepEqual(await store.market.ttmSteps(id), await expected());
    // TTM to 2024Q3 = 90 (2024 YTD Q3) + 100 (FY 2023) - 60 (2023 YTD Q3) = 130, from 2024-11-14.
    const at = async (date: string) => (await store.market.ttmSteps(id)).filter((s) => s.effectiveFrom <= date).at(-1);
    assert.deepEqual([(await at('2024-11-14'))?.referenceQuarter, (await at('2024-11-14'))?.netIncome], ['2024Q3', 130]);
    // A later write: FY 2024 (150) and a correction of 2024Q3's YTD to 95 (TTM 135 from 2024-12-01).
    await store.market.writeDataset({ reports: [filing(2024, 4), filing(2024, 3, { disclosedOn: '2024-12-01', netIncome: 95 })] });
    assert.deepEqual(await store.market.ttmSteps(id), await expected());
    assert.equal((await at('2024-12-01'))?.netIncome, 135);
    assert.deepEqual([(await at('2025-03-14'))?.referenceQuarter, (await at('2025-03-14'))?.netIncome], ['2024Q4', 150]);
  });

  it("reads each stock's recent window: its last quarters' filings, its last bars and their flows", async () => {
    const code = '223450';
    await store.market.writeDataset({ securities: [{ ...dataset.securities[0]!, code, name: 'Window Test' }] });
    // Filings 2019Q1..2024Q3, each disclosed on the 14th two months after its quarter (Q4 in
    // March), and a correction of 2022Q3 disclosed in 2023.
    const periodEnd = ['03-31', '06-30', '09-30', '12-31'];
    const filings: FinancialReport[] = [];
    for (let y = 2019; y <= 2024; y++)
      for (let q = 1 as 1 | 2 | 3 | 4; q <= 4; q++) {
        if (y === 2024 && q === 4) continue;
        const disclosedOn = q === 4 ? `${y + 1}-03-14` : `${y}-${String(q * 3 + 2).padStart(2, '0')}-14`;
        filings.push(report({ code, fiscalYear: y, fiscalQuarter: q, periodEnd: `${y}-${periodEnd[q - 1]}`, disclosedOn }));
      }
    filings.push(report({ code, fiscalYear: 2022, fiscalQuarter: 3, periodEnd: '2022-09-30', disclosedOn: '2023-01-20', netIncome: 1 }));
    const bars = Array.from({ length: 30 }, (_, i) => ({ ...dataset.bars[0]!, code, date: `2024-10-${String(i + 1).padStart(2, '0')}`, close: 1_000 + i }));
    const flows = bars.map((b) => ({ ...dataset.flows[0]!, code, date: b.date }));
    await store.market.writeDataset({ reports: filings, bars, flows });
    const id = (await store.market.securities()).find((x) => x.code === code)?.id ?? -1;

    // As of 2024-11-30 the latest quarter is 2024Q3: the window is 2022Q3..2024Q3 with the
    // correction, in key order.
    const mine = (await store.market.recentReports('2024-11-30', 9)).get(id) ?? [];
    assert.deepEqual(
      mine.map((r) => `${r.fiscalYear}Q${r.fiscalQuarter}@${r.disclosedOn}`),
      ['2022Q3@2022-11-14', '2022Q3@2023-01-20', '2022Q4@2023-03-14', '2023Q1@2023-05-14', '2023Q2@2023-08-14', '2023Q3@2023-11-14', '2023Q4@2024-03-14', '2024Q1@2024-05-14', '2024Q2@2024-08-14', '2024Q3@2024-11-14'],
    );
    assert.deepEqual(mine[1], filings[filings.length - 1]);
    // The day before 2024Q3's disclosure the latest is 2024Q2, the window 2022Q2..2024Q2.
    const earlier = (await store.market.recentReports('2024-11-13', 9)).get(id) ?? [];
    assert.deepEqual(
      earlier.map((r) => `${r.fiscalYear}Q${r.fiscalQuarter}`),
      ['2022Q2', '2022Q3', '2022Q3', '2022Q4', '2023Q1', '2023Q2', '2023Q3', '2023Q4', '2024Q1', '2024Q2'],
    );
    // At every date around the disclosures and for any window, what the stored rows give: the
    // filings disclosed by then of the last `quarters` fiscal quarters (the read takes them from
    // the stock's report pack, src/store/report-packs.ts).
    const rows = await store.market.reports(id);
    for (const asOf of ['2019-05-13', '2019-05-14', '2022-11-14', '2023-01-19', '2023-01-20', '2024-11-13', '2024-11-14', '2026-01-01'])
      for (const quarters of [1, 4, 9, 40]) {
        const known = rows.filter((r) => r.disclosedOn <= asOf);
        const latest = Math.max(...known.map((r) => r.fiscalYear * 4 + r.fiscalQuarter));
        const expected = known.filter((r) => r.fiscalYear * 4 + r.fiscalQuarter > latest - quarters);
        assert.deepEqual((await store.market.recentReports(asOf, quarters)).get(id), expected.length > 0 ? expected : undefined, `${asOf}, ${quarters} quarters`);
        // One stock's read by key: its entry, or none.
        assert.deepEqual(await store.market.stockRecentReports({ ...dataset.securities[0]!, code, name: 'Window Test', id }, asOf, quarters), expected, `one stock, ${asOf}, ${quarters} quarters`);
      }

    const tail = (await store.market.lastBars('2024-09-01', '2024-10-25', 21)).get(id);
    assert.deepEqual(tail, bars.slice(4, 25).map(snapshotBar));
    // Fewer than 21 bars since `from`: all of them.
    assert.deepEqual((await store.market.lastBars('2024-10-20', '2024-10-25', 21)).get(id)?.map((b) => b.date), bars.slice(19, 25).map((b) => b.date));
    // One stock's read by key: the same bars, all of them when fewer, none before its first.
    assert.deepEqual(await store.market.stockLastBars(id, '2024-09-01', '2024-10-25', 21), tail);
    assert.deepEqual((await store.market.stockLastBars(id, '2024-10-20', '2024-10-25', 21)).map((b) => b.date), bars.slice(19, 25).map((b) => b.date));
    assert.deepEqual(await store.market.stockLastBars(id, '2024-09-01', '2024-09-30', 21), []);
    // Flows from the 20th last bar's date (2024-10-06: the bars are one a day from 2024-10-01).
    const f = (await store.market.flowsOfLastBars('2024-09-01', '2024-10-25', 20)).get(id) ?? [];
    assert.deepEqual(f.map((x) => x.date), flows.slice(5, 25).map((x) => x.date));
    assert.deepEqual(await store.market.stockFlows(id, '2024-10-06', '2024-10-25'), f);
    // The close on or before each day (none before the first bar), asked for by one request
    // (three, read on the calling thread) or by the recompute (more, a padded read): the same.
    const days = ['2024-09-30', '2024-10-03', '2024-11-15'];
    assert.deepEqual(await store.market.closesOnOrBefore(days.map((date) => ({ securityId: id, date }))), [null, 1_002, 1_029]);
    assert.deepEqual(await store.market.closesOnOrBefore([...days, '2024-10-10', '2024-10-01'].map((date) => ({ securityId: id, date }))), [null, 1_002, 1_029, 1_009, 1_000]);
    // Each row names its source, whichever adapter wrote it (the bulk read carries it as a
    // number of the source-terms table): the last five days rewritten by the brokerage adapter,
    // and one by a name that table does not hold.
    await store.market.writeDataset({ flows: flows.slice(20, 25).map((x) => ({ ...x, source: 'kis' })) });
    await store.market.writeDataset({ flows: [{ ...(flows[19] as (typeof flows)[number]), source: 'elsewhere' }] });
    const named = (await store.market.flowsOfLastBars('2024-09-01', '2024-10-25', 20)).get(id) ?? [];
    assert.deepEqual(
      named.map((x) => [x.date, x.source]),
      flows.slice(5, 25).map((x, i) => [x.date, i + 5 >= 20 ? 'kis' : i + 5 === 19 ? 'unlisted source' : 'demo']),
    );
    assert.deepEqual(await store.market.stockFlows(id, '2024-10-06', '2024-10-25'), named);
  });

  it('a bulk load writes the same rows and rebuilds the bars-by-date index', async () => {
    const code = '323450';
    const bars = Array.from({ length: 5 }, (_, i) => ({ ...dataset.bars[0]!, code, date: `2024-12-0${i + 1}`, close: 2_000 + i }));
    await store.market.writeDatasets([{ securities: [{ ...dataset.securities[0]!, code, name: 'Bulk Test' }] }, { bars }], { bulk: true });
    const id = (await store.market.securities()).find((x) => x.code === code)?.id ?? -1;
    assert.deepEqual(await store.market.bars(id), bars);
    const barsDateIndexes = async () =>
      (engine.name === 'SQLite'
        ? await sql<{ name: string }>`select name from sqlite_master where type = 'index' and name = 'bars_date'`.execute(store.db)
        : await sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema() and indexname = 'bars_date'`.execute(store.db)
      ).rows.length;
    assert.equal(await barsDateIndexes(), 1);
    // A failed bulk load leaves nothing behind, the index included.
    await assert.rejects(store.market.writeDatasets([{ bars: [{ ...bars[0]!, date: '2024-12-09' }] }, { bars: [{ ...bars[0]!, volume: null as unknown as number }] }], { bulk: true }));
    assert.equal(Number((await sql<{ n: number }>`select count(*) as n from bars where security_id = ${id}`.execute(store.db)).rows[0]?.n), 5);
    assert.equal(await barsDateIndexes(), 1);
  });

  it("keeps a known sector when a later source says 'Unclassified'", async () => {
    const known = dataset.securities[0]!;
    await store.market.writeDataset({ securities: [{ ...known, sector: 'Unclassified', name: 'Renamed' }] });
    const stored = (await store.market.securities()).find((s) => s.code === known.code);
    assert.deepEqual([stored?.sector, stored?.name], ['Steel', 'Renamed']);
    await store.market.writeDataset({ securities: [{ ...known, sector: 'Chemicals' }] });
    assert.equal((await store.market.securities()).find((s) => s.code === known.code)?.sector, 'Chemicals');
    await store.market.writeDataset({ securities: [known] });
  });

  it('keeps a known English name when a later source has none', async () => {
    const known = dataset.securities[0]!;
    const { nameEn: _nameEn, ...withoutEnglish } = known;
    await store.market.writeDataset({ securities: [{ ...withoutEnglish, name: '한성테스트우' }] });
    const stored = (await store.market.securities()).find((s) => s.code === known.code);
    assert.deepEqual([stored?.name, stored?.nameEn], ['한성테스트우', 'Hanseong Test']);
    await store.market.writeDataset({ securities: [{ ...known, nameEn: 'Hanseong Test Co.' }] });
    assert.equal((await store.market.securities()).find((s) => s.code === known.code)?.nameEn, 'Hanseong Test Co.');
    await store.market.writeDataset({ securities: [known] });
  });

  it('a filing written again without a per-share figure keeps the one written before; a figure replaces it', async () => {
    const code = '123460';
    await store.market.writeDataset({ securities: [{ ...dataset.securities[0]!, code, name: 'Per-share Test' }] });
    const filing = report({ code });
    await store.market.writeDataset({ reports: [filing] });
    // The bulk release's copy of the same filing: basic EPS as filed, no dividend section.
    await store.market.writeDataset({ reports: [{ ...filing, basicEps: -40, dividendPerShare: null, revenue: 1 }] });
    const id = (await store.market.securities()).find((s) => s.code === code)?.id as number;
    const [kept] = await store.market.reports(id);
    assert.deepEqual([kept?.revenue, kept?.basicEps, kept?.dividendPerShare], [1, -40, 361.5]);
    await store.market.writeDataset({ reports: [{ ...filing, dividendPerShare: 0 }] });
    assert.equal((await store.market.reports(id))[0]?.dividendPerShare, 0);
  });

  it("keeps a foreign private issuer's filer basis (its form, currency and each filing's USD rate) and drops it when a write has none", async () => {
    // Made here: TSMC as the SEC adapter writes it (rates: its 20-Fs' Revenue in USD over the same in TWD).
    const tsm = { market: 'US' as const, code: 'TSM', name: 'TAIWAN SEMICONDUCTOR MANUFACTURING CO LTD', exchange: 'NYSE', sector: 'Unclassified', currency: 'USD' as const, fiscalYearEndMonth: 12, source: 'sec' };
    const filerBasis = {
      annualForm: '20-F',
      reportingCurrency: 'TWD',
      usdRates: [
        { disclosedOn: '2020-04-15', usdPerUnit: 35_773.5 / 1_069_985.4 },
        { disclosedOn: '2021-04-16', usdPerUnit: 47_694.3 / 1_339_254.8 },
      ],
    };
    await store.market.writeDataset({ securities: [{ ...tsm, filerBasis }] });
    assert.deepEqual((await store.market.securities()).find((s) => s.code === 'TSM'), { ...tsm, id: (await store.market.securities()).find((s) => s.code === 'TSM')?.id, filerBasis });
    await store.market.writeDataset({ securities: [tsm] });
    assert.equal((await store.market.securities()).find((s) => s.code === 'TSM')?.filerBasis, undefined);
  });

  it("keeps a filing's ECB reference conversion in the filer basis (flows' average period and days, the balances' rate and day)", async () => {
    // Made here: a EUR reporter without a USD translation, its 6-K for Q1 2024 converted at the ECB's rates.
    const eu = { market: 'US' as const, code: 'EURX', name: 'EURO FILER NV', exchange: 'NYSE', sector: 'Unclassified', currency: 'USD' as const, fiscalYearEndMonth: 12, source: 'sec' };
    const filerBasis = {
      annualForm: '20-F',
      reportingCurrency: 'EUR',
      usdRates: [
        { disclosedOn: '2024-05-02', usdPerUnit: 1.0857, reference: { from: '2024-01-01', to: '2024-03-31', days: 62, balanceUsdPerUnit: 1.0811, balanceOn: '2024-03-28' } },
      ],
    };
    await store.market.writeDataset({ securities: [{ ...eu, filerBasis }] });
    const stored = (await store.market.securities()).find((s) => s.code === 'EURX');
    assert.deepEqual(stored?.filerBasis, filerBasis);
  });

  it("stores the ECB's reference rates by currency and day, and reads them from a day on; a corrected rate replaces the stored one", async () => {
    // Made here, with figures of the real file (test/fixtures/real/ecb): 2024-03-27 and 2024-03-28, USD and CAD per EUR.
    const rate = (date: string, currency: string, perEur: number) => ({ date, currency, perEur, source: 'ecb' });
    const written = await store.market.writeDataset({ referenceRates: [rate('2024-03-27', 'USD', 1.0816), rate('2024-03-27', 'CAD', 1.4712), rate('2024-03-28', 'USD', 1.0811), rate('2024-03-28', 'CAD', 1.4672)] });
    assert.equal(written.written, 4);
    assert.deepEqual(await store.market.referenceRates('2024-03-28'), [rate('2024-03-28', 'CAD', 1.4672), rate('2024-03-28', 'USD', 1.0811)]);
    await store.market.writeDataset({ referenceRates: [rate('2024-03-27', 'USD', 1.083)] });
    assert.deepEqual(await store.market.referenceRates(), [rate('2024-03-27', 'CAD', 1.4712), rate('2024-03-28', 'CAD', 1.4672), rate('2024-03-27', 'USD', 1.083), rate('2024-03-28', 'USD', 1.0811)]);
  });

  it('upserts: a corrected value replaces the stored one', async () => {
    await store.market.writeDataset({ trade: [{ ...dataset.trade[0]!, exports: 57_600_000_000, balance: 3_600_000_000 }] });
    assert.deepEqual((await store.market.trade())[0]?.exports, 57_600_000_000);
  });

  it('writes nothing when any part of a write fails (one transaction)', async () => {
    const before = (await store.market.fx()).length;
    await assert.rejects(
      store.market.writeDataset({
        fx: [{ date: '2024-11-21', usdKrw: 1_400, source: 'demo' }],
        bars: [{ ...dataset.bars[0]!, volume: null as unknown as number }], // NOT NULL column
      }),
    );
    assert.equal((await store.market.fx()).length, before);
  });

  it('skips and counts records for a security nobody placed, and writes the rest', async () => {
    const fxBefore = (await store.market.fx()).length;
    const bar = dataset.bars[0]!;
    const report = await store.market.writeDataset({
      fx: [{ date: '2024-11-22', usdKrw: 1_401, source: 'demo' }],
      bars: [{ ...bar, date: '2024-12-20', close: 1_234 }, { ...bar, code: '999998' }, { ...bar, code: '999997' }],
      reports: [{ ...dataset.reports[0]!, code: '999998' }],
    });
    assert.deepEqual(report.skipped, { 'bars: unknown security': 2, 'reports: unknown security': 1 });
    assert.deepEqual(report.examples, ['KR:999998', 'KR:999997']);
    assert.equal(report.written, 2, 'one fx row and the known bar');
    assert.equal((await store.market.fx()).length, fxBefore + 1);
    const id = (await store.market.securities()).find((s) => s.market === bar.market && s.code === bar.code)!.id;
    assert.equal((await store.market.bars(id)).find((b) => b.date === '2024-12-20')?.close, 1_234);
    // The same write again is idempotent and skips the same records.
    assert.deepEqual((await store.market.writeDataset({ bars: [{ ...bar, code: '999998' }] })).skipped, { 'bars: unknown security': 1 });
  });

  it('keeps meta, keys, usage and refresh runs', async () => {
    await store.refresh.setMeta('k', 'v1');
    await store.refresh.setMeta('k', 'v2');
    assert.equal(await store.refresh.getMeta('k'), 'v2');
    assert.equal(await store.refresh.getMeta('missing'), null);

    const key = await store.access.insertKey({ prefix: 'sk_live_abcdefgh', hash: 'ab'.repeat(32), name: 'n', plan: 'free', createdAt: '2026-01-01T00:00:00.000Z' });
    assert.deepEqual(await store.access.keyByHash('ab'.repeat(32)), key);
    assert.equal(await store.access.incrementUsage(key.id, '2026-01-01', 2), 1);
    assert.equal(await store.access.incrementUsage(key.id, '2026-01-01', 2), 2);
    assert.equal(await store.access.incrementUsage(key.id, '2026-01-01', 2), null, 'full day: nothing added');
    assert.equal(await store.access.usage(key.id, '2026-01-01'), 2);
    assert.equal(await store.access.incrementUsage(key.id, '2026-01-01'), 3, 'no limit: always counted');
    assert.equal((await store.access.listKeys('2026-01-01'))[0]?.callsToday, 3);
    assert.equal(await store.access.setKeyPlan('sk_live_abcdefgh', 'paid'), true);
    assert.equal(await store.access.revokeKey('sk_live_abcdefgh', '2026-01-02T00:00:00.000Z'), true);
    assert.equal(await store.access.revokeKey('sk_live_abcdefgh', '2026-01-02T00:00:00.000Z'), false, 'already revoked');
    const stored = await store.access.keyByHash('ab'.repeat(32));
    assert.equal(stored?.plan, 'paid');
    assert.equal(stored?.revokedAt, '2026-01-02T00:00:00.000Z');
    assert.equal(await store.access.countKeys(), 0);

    const run = await store.refresh.startRefreshRun('2026-01-01T00:00:00.000Z');
    await store.refresh.finishRefreshRun(run, '2026-01-01T00:00:05.000Z', 'ok', '[]');
    assert.deepEqual(await store.refresh.refreshRuns(1), [{ id: run, startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:00:05.000Z', status: 'ok', detail: '[]' }]);
  });

  it('claims a slot for one holder; a dead holder is taken over, a finished claim never', async () => {
    const a = { instance: 'a', host: 'h', pid: 11 };
    const b = { instance: 'b', host: 'h', pid: 12 };
    const c = { instance: 'c', host: 'h', pid: 13 };
    const at = '2026-01-01T00:00:00.000Z';
    const until = '2026-01-01T00:00:15.000Z';
    assert.equal(await store.refresh.claimSlot('s1', a, at, until), true);
    assert.equal(await store.refresh.claimSlot('s1', b, at, until), false, 'held');
    assert.equal(await store.refresh.claimSlot('s1', b, at, until, 'x'), false, 'another dead instance named');
    assert.deepEqual(await store.refresh.slotClaim('s1'), { slot: 's1', ...a, claimedAt: at, expiresAt: until, done: false });
    // b and c both find a dead: exactly one takes over.
    const both = await Promise.all([store.refresh.claimSlot('s1', b, at, until, 'a'), store.refresh.claimSlot('s1', c, at, until, 'a')]);
    assert.deepEqual(both.filter(Boolean).length, 1);
    const winner = both[0] ? b : c;
    assert.equal((await store.refresh.slotClaim('s1'))?.instance, winner.instance);
    assert.equal(await store.refresh.renewClaim('s1', 'a', '2026-01-01T00:01:00.000Z'), false, 'the old holder cannot renew');
    assert.equal(await store.refresh.renewClaim('s1', winner.instance, '2026-01-01T00:01:00.000Z'), true);
    await store.refresh.finishClaim('s1', winner.instance);
    assert.equal(await store.refresh.claimSlot('s1', a, at, until, winner.instance), false, 'done: never taken over');
    await store.refresh.releaseClaim('s1', winner.instance);
    assert.equal((await store.refresh.slotClaim('s1'))?.done, true, 'a finished claim is not released');
    // Released unfinished: the next claimant gets it at once.
    assert.equal(await store.refresh.claimSlot('s2', a, at, until), true);
    await store.refresh.releaseClaim('s2', 'a');
    assert.equal(await store.refresh.claimSlot('s2', b, at, until), true);
  });
});

describe('PostgreSQL migrations beside another schema', { skip: PG_SKIP }, () => {
  it("ignore another schema's Kysely bookkeeping tables", async () => {
    // Regression: the migrator once took another schema's kysely_migration_lock as its own.
    const other = await freshSchema();
    const first = await openPostgresStore(other.url, 2);
    await first.close();
    const mine = await freshSchema();
    try {
      const store = await openPostgresStore(mine.url, 2);
      const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(store.db);
      assert.equal(applied.rows.length, 16); // 0001 to 0016, each once
      await store.close();
    } finally {
      await other.drop();
      await mine.drop();
    }
  });
});

/** A filing's row as the reports table held it before migration 0012 (no per-share columns). */
function beforePerShare(row: ReportsTable): Omit<ReportsTable, 'basic_eps' | 'dividend_per_share'> {
  const { basic_eps: _eps, dividend_per_share: _dps, ...rest } = row;
  return rest;
}


// Migration 0005 on a database that 0001-0004 made and filled: its securities gain a null
// English name (read as absent), and a write gives them one.
for (const engine of engines) describe(`${engine.name} migration 0005 on a filled database`, { skip: engine.skip }, () => {
  it('adds name_en to the securities already stored', async () => {
    const { store, cleanup } = await openMigratedFrom(engine, '0004_claim_leases', async (db) => {
      const { nameEn: _nameEn, ...row } = { ...dataset.securities[0]!, fiscal_year_end_month: 12 };
      await sql`insert into securities (market, code, name, exchange, sector, currency, fiscal_year_end_month, source)
        values (${row.market}, ${row.code}, ${row.name}, ${row.exchange}, ${row.sector}, ${row.currency}, 12, ${row.source})`.execute(db);
    });
    try {
      const [before] = await store.market.securities();
      assert.equal(before?.name, '한성테스트');
      assert.equal(before?.nameEn, undefined);
      await store.market.writeDataset({ securities: [dataset.securities[0]!] });
      assert.equal((await store.market.securities())[0]?.nameEn, 'Hanseong Test');
    } finally {
      await store.close();
      await cleanup();
    }
  });
});

// Migrations 0006 to 0008 on a database that 0001-0005 made and filled with bars and filings
// create the derived forms' tables marked unbuilt; the open then builds them (src/store/derived.ts):
// each stock's bars are packed by year, its TTM step function derived and its filings packed,
// and the history reads and the recompute's read then answer what the rows hold.
for (const engine of engines) describe(`${engine.name} migrations 0006 to 0008 on a filled database`, { skip: engine.skip }, () => {
  it('are followed at open by the packs of the bars, the TTM steps and the packs of the filings already stored', async () => {
    const bars = ['2023-12-28', '2023-12-29', '2024-01-02', '2024-01-03'].map((date, k) => ({ ...dataset.bars[1]!, date, close: 10.37 + k, shares: 1_000_003 + k }));
    const filings = [1, 2, 3, 4].map((q) => report({ market: 'US', code: 'ABCD.B', fiscalQuarter: q as 1 | 2 | 3 | 4, periodEnd: `2024-0${q * 2}-28`, disclosedOn: `2024-0${q * 2 + 1}-10`, netIncome: 7 * q }));
    const { store, cleanup } = await openMigratedFrom(engine, '0005_security_name_en', async (db) => {
      const s = dataset.securities[1]!;
      await sql`insert into securities (market, code, name, exchange, sector, currency, fiscal_year_end_month, source)
        values (${s.market}, ${s.code}, ${s.name}, ${s.exchange}, ${s.sector}, ${s.currency}, ${s.fiscalYearEndMonth}, ${s.source})`.execute(db);
      for (const b of bars)
        await sql`insert into bars (security_id, date, open, high, low, close, volume, traded_value, shares, market_cap, source)
          values (1, ${b.date}, ${b.open}, ${b.high}, ${b.low}, ${b.close}, ${b.volume}, ${b.tradedValue}, ${b.shares}, ${b.marketCap}, ${b.source})`.execute(db);
      await (db as unknown as Kysely<DB>).insertInto('reports').values(filings.map((r) => beforePerShare(reportRow(1, r)))).execute();
    });
    try {
      const packs = await store.db.selectFrom('bar_packs').select(['security_id', 'year']).orderBy('year').execute();
      assert.deepEqual(packs, [
        { security_id: 1, year: 2023 },
        { security_id: 1, year: 2024 },
      ]);
      const series = await store.market.barSeries(1, { to: '2024-12-31' });
      assert.deepEqual([...series.days], bars.map((b) => dayNumber(b.date)));
      assert.deepEqual([...series.close], bars.map((b) => b.close));
      const caps = await store.market.marketCapSeries(1, { from: '2023-12-29', to: '2024-01-02' });
      assert.deepEqual([...caps.marketCap], bars.slice(1, 3).map((b) => b.close * b.shares));
      await assertFormsAreTheRecords(store, 1);
      const steps = await store.market.ttmSteps(1);
      assert.deepEqual([steps.at(-1)?.referenceQuarter, steps.at(-1)?.netIncome], ['2024Q4', 28], 'the FY figure is the TTM at Q4');
    } finally {
      await store.close();
      await cleanup();
    }
  });
});

// Migration 0012 on a database that 0001-0011 made and filled with filings: they gain null
// per-share figures (not filed as far as the store knows), the report packs are made again in
// their format 2 at open, and a write then keeps the figures.
for (const engine of engines) describe(`${engine.name} migration 0012 on a filled database`, { skip: engine.skip }, () => {
  it('adds basic EPS and the dividend per share to the filings already stored, null until written', async () => {
    const filings = [1, 2].map((q) => report({ market: 'US', code: 'ABCD.B', fiscalQuarter: q as 1 | 2, periodEnd: `2024-0${q * 3}-30`, disclosedOn: `2024-0${q * 3 + 1}-30`, netIncome: 7 * q }));
    const { store, cleanup } = await openMigratedFrom(engine, '0011_oauth_grants', async (db) => {
      const s = dataset.securities[1]!;
      await sql`insert into securities (market, code, name, exchange, sector, currency, fiscal_year_end_month, source)
        values (${s.market}, ${s.code}, ${s.name}, ${s.exchange}, ${s.sector}, ${s.currency}, ${s.fiscalYearEndMonth}, ${s.source})`.execute(db);
      await (db as unknown as Kysely<DB>).insertInto('reports').values(filings.map((r) => beforePerShare(reportRow(1, r)))).execute();
    });
    try {
      const stored = await store.market.reports(1);
      assert.deepEqual(stored, filings.map((r) => ({ ...r, basicEps: null, dividendPerShare: null })));
      await assertFormsAreTheRecords(store, 1);
      await store.market.writeDataset({ reports: [filings[1]!] });
      assert.deepEqual((await store.market.reports(1)).map((r) => [r.basicEps, r.dividendPerShare]), [[null, null], [-41, 361.5]]);
      await assertFormsAreTheRecords(store, 1);
    } finally {
      await store.close();
      await cleanup();
    }
  });
});

// Migration 0014 on a database that 0001-0013 made and filled with bars: the column starts empty
// and marked unbuilt, and the derived-forms step at open sets the delisting of a code its market
// traded DELISTED_AFTER_SESSIONS sessions without (the first 25 weekdays of 2024: A trades all of
// them, B the first 3, so B is delisted on 2024-01-03).
for (const engine of engines) describe(`${engine.name} migration 0014 on a filled database`, { skip: engine.skip }, () => {
  it('is followed at open by the delistings of the bars already stored', async () => {
    const sessions = Array.from({ length: 35 }, (_, k) => new Date(Date.UTC(2024, 0, 1 + k)))
      .filter((d) => d.getUTCDay() !== 0 && d.getUTCDay() !== 6)
      .map((d) => d.toISOString().slice(0, 10))
      .slice(0, 25);
    const { store, cleanup } = await openMigratedFrom(engine, '0013_security_filer_basis', async (db) => {
      const s = dataset.securities[0]!;
      for (const code of ['A00001', 'B00002'])
        await sql`insert into securities (market, code, name, exchange, sector, currency, fiscal_year_end_month, source)
          values (${s.market}, ${code}, ${s.name}, ${s.exchange}, ${s.sector}, ${s.currency}, ${s.fiscalYearEndMonth}, ${s.source})`.execute(db);
      for (const [id, dates] of [[1, sessions], [2, sessions.slice(0, 3)]] as const)
        for (const date of dates)
          await sql`insert into bars (security_id, date, open, high, low, close, volume, traded_value, shares, market_cap, source)
            values (${id}, ${date}, 10, 10, 10, 10, 1, 10, 100, 1000, 'demo')`.execute(db);
    });
    try {
      assert.deepEqual((await store.market.securities()).map((s) => [s.code, s.delistedOn]), [['A00001', undefined], ['B00002', '2024-01-03']]);
      assert.equal(await store.refresh.getMeta('derived:delistings:format'), '1');
    } finally {
      await store.close();
      await cleanup();
    }
  });
});

// The store reads SQLite's change counter at most once per millisecond.
const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('SQLite key cache', () => {
  const tmp = tempDir();
  let a: KyselyStore;
  let b: KyselyStore;
  before(async () => {
    const file = join(tmp.dir, 'db.sqlite');
    a = await openSqliteStore(file);
    b = await openSqliteStore(file); // another connection, as `keys revoke` from the CLI is
  });
  after(async () => {
    await a.close();
    await b.close();
    tmp.cleanup();
  });

  it("sees another connection's revocation and plan change on the next lookup", async () => {
    const created = await b.access.insertKey({ prefix: 'sk_live_cache1', hash: 'h'.repeat(64), name: 'c', plan: 'free', createdAt: '2026-11-23T00:00:00.000Z' });
    assert.equal((await a.access.keyByHash('h'.repeat(64)))?.plan, 'free');
    assert.equal((await a.access.keyByHash('h'.repeat(64)))?.revokedAt, null); // a cache hit
    await b.access.setKeyPlan('sk_live_cache1', 'paid');
    await settle();
    assert.equal((await a.access.keyByHash('h'.repeat(64)))?.plan, 'paid');
    await b.access.revokeKey('sk_live_cache1', '2026-11-23T01:00:00.000Z');
    await settle();
    assert.equal((await a.access.keyByHash('h'.repeat(64)))?.revokedAt, '2026-11-23T01:00:00.000Z');
    assert.equal(created.id, (await a.access.keyByHash('h'.repeat(64)))?.id);
  });

  it('sees its own revocation at once, and finds a key created after a miss', async () => {
    assert.equal(await a.access.keyByHash('g'.repeat(64)), null);
    await a.access.insertKey({ prefix: 'sk_live_cache2', hash: 'g'.repeat(64), name: 'c', plan: 'free', createdAt: '2026-11-23T00:00:00.000Z' });
    assert.equal((await a.access.keyByHash('g'.repeat(64)))?.revokedAt, null);
    await a.access.revokeKey('sk_live_cache2', '2026-11-23T02:00:00.000Z');
    assert.equal((await a.access.keyByHash('g'.repeat(64)))?.revokedAt, '2026-11-23T02:00:00.000Z');
  });
});
