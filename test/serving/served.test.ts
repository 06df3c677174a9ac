// loadUniverse reads only each stock's recent window (its last quarters' filings, its last
// bars and their flows); computeSnapshot must give exactly what it gives on everything.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { join } from 'node:path';
import { addDays } from '../../src/domain/calendar.js';
import type { DailyBar, FinancialReport, InvestorFlow } from '../../src/domain/model.js';
import { computeSnapshot, computeSnapshotYielding, RECENT_DAYS, snapshotSteps, viewKey, type ComputedSnapshot, type UniverseData } from '../../src/serving/build.js';
import { loadDemo } from '../../src/refresh/demo-load.js';
import { loadUniverse } from '../../src/serving/served.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { KyselyStore } from '../../src/store/store.js';
import { tempDir } from '../support/tmp.js';

/** A computed snapshot with each view's percentiles made (each view's `percentiles` is its own function), to compare two by value. */
const withPercentiles = (c: ComputedSnapshot) => ({ ...c, views: new Map([...c.views].map(([k, v]) => [k, { ...v, percentiles: v.percentiles() }])) });

const AS_OF = '2026-11-20';
/** A copied KR stock whose filings state neither basic EPS nor shares, and the date of its 2-for-1 split. */
const LISTED_CODE = '900050';
const SPLIT_DATE = '2025-11-20';

describe('loadUniverse (the recent window) against every filing and bar', () => {
  const tmp = tempDir();
  let store: KyselyStore;
  let gapCode: string;
  before(async () => {
    store = await openSqliteStore(join(tmp.dir, 'db.sqlite'));
    await loadDemo(store, { asOf: AS_OF, scale: 0.1 });
    // Corner cases the demo lacks, made from copies of one demo stock's rows.
    const [base] = (await store.market.securities()).filter((s) => s.market === 'KR');
    assert.ok(base);
    const reports = await store.market.reports(base.id);
    const bars = await store.market.bars(base.id);
    const flows = await store.market.flows(base.id);
    const copy = (code: string, keep: { reports: (r: FinancialReport) => boolean; bars: (b: DailyBar, i: number) => boolean; flows: (f: InvestorFlow, i: number) => boolean }) =>
      store.market.writeDataset({
        securities: [{ ...base, code, name: `Window case ${code}` }],
        reports: reports.filter(keep.reports).map((r) => ({ ...r, code })),
        bars: bars.filter(keep.bars).map((b) => ({ ...b, code })),
        flows: flows.filter(keep.flows).map((f) => ({ ...f, code })),
      });
    const latestYear = Math.max(...reports.map((r) => r.fiscalYear));
    gapCode = '900010';
    // Filed for years, then nothing for two years, then two quarters: fewer than four in the window.
    await copy(gapCode, {
      reports: (r) => r.fiscalYear <= latestYear - 4 || (r.fiscalYear === latestYear && r.fiscalQuarter <= 2),
      bars: () => true,
      flows: () => true,
    });
    // Halted: no bar in the last RECENT_DAYS days.
    const cutoff = addDays(AS_OF, -RECENT_DAYS - 10);
    await copy('900020', { reports: () => true, bars: (b) => b.date < cutoff, flows: (f) => f.date < cutoff });
    // Listed recently: twelve bars.
    await copy('900030', { reports: () => true, bars: (_b, i) => i >= bars.length - 12, flows: (_f, i) => i >= flows.length - 12 });
    // Flows only on every other day.
    await copy('900040', { reports: () => true, bars: () => true, flows: (_f, i) => i % 2 === 0 });
    // Statements without basic EPS or a share count (as OpenDART filings read before the per-share
    // columns), and a 2-for-1 split a year before the date: the bars from SPLIT_DATE on carry twice
    // the shares at half the price.
    await store.market.writeDataset({
      securities: [{ ...base, code: LISTED_CODE, name: 'Listed shares case' }],
      reports: reports.map((r) => ({ ...r, code: LISTED_CODE, basicEps: null, shares: null })),
      bars: bars.map((b) =>
        b.date < SPLIT_DATE ? { ...b, code: LISTED_CODE } : { ...b, code: LISTED_CODE, open: b.open / 2, high: b.high / 2, low: b.low / 2, close: b.close / 2, shares: b.shares * 2 },
      ),
      flows: flows.map((f) => ({ ...f, code: LISTED_CODE })),
    });
  });
  after(async () => {
    await store.close();
    tmp.cleanup();
  });

  it('computes the same snapshot as from every filing, bar and flow', async () => {
    const windowed = await loadUniverse(store.market, AS_OF);
    const since = addDays(AS_OF, -RECENT_DAYS);
    const everything: UniverseData = { ...windowed, reports: new Map(), recentBars: new Map(), recentFlows: new Map() };
    for (const s of windowed.securities) {
      (everything.reports as Map<number, readonly FinancialReport[]>).set(s.id, await store.market.reports(s.id));
      (everything.recentBars as Map<number, readonly DailyBar[]>).set(s.id, await store.market.bars(s.id, since, AS_OF));
      (everything.recentFlows as Map<number, readonly InvestorFlow[]>).set(
        s.id,
        (await store.market.flows(s.id)).filter((f) => f.date >= since && f.date <= AS_OF),
      );
    }
    const count = (m: ReadonlyMap<number, readonly unknown[]>) => [...m.values()].reduce((n, l) => n + l.length, 0);
    // The window is a real cut: far fewer filings and bars than everything.
    assert.ok(count(windowed.reports) * 3 < count(everything.reports), `${count(windowed.reports)} of ${count(everything.reports)} filings`);
    assert.ok(count(windowed.recentBars) * 3 < count(everything.recentBars) * 2, `${count(windowed.recentBars)} of ${count(everything.recentBars)} bars`);

    const a = computeSnapshot(windowed, AS_OF);
    const b = computeSnapshot(everything, AS_OF);
    assert.deepStrictEqual(withPercentiles(a), withPercentiles(b));

    const gap = a.views.get(viewKey('KR', gapCode));
    assert.ok(gap && !gap.v3.ok);
    assert.match(gap.v3.reason, /^no TTM net income: no filing for \d{4}Q4$/);
    // Halted for more than DELISTED_AFTER_SESSIONS of its market's sessions: delisted on its last
    // bar's date (src/store/delistings.ts), out of the day's universe, its history kept.
    const halted = (await store.market.securities()).find((s) => s.code === '900020');
    const lastBar = (await store.market.bars(halted?.id ?? -1)).at(-1)?.date;
    assert.ok(halted && lastBar !== undefined && lastBar < addDays(AS_OF, -RECENT_DAYS));
    assert.equal(halted.delistedOn, lastBar);
    assert.equal(a.views.get(viewKey('KR', '900020')), undefined);
    assert.equal(a.delisted.get(viewKey('KR', '900020'))?.delistedOn, lastBar);
    assert.ok(a.counts.scored > 50, `${a.counts.scored} scored`);
  });

  it('KR EPS without reported EPS: TTM net income over the listed shares at each quarter end, split-consistent', async () => {
    const universe = await loadUniverse(store.market, AS_OF);
    const id = universe.securities.find((s) => s.code === LISTED_CODE)?.id;
    assert.ok(id !== undefined);
    const filings = (await store.market.reports(id)).filter((r) => r.disclosedOn <= AS_OF);
    const ordinal = (r: FinancialReport) => r.fiscalYear * 4 + r.fiscalQuarter;
    const latest = Math.max(...filings.map(ordinal));
    const at = (o: number) => filings.find((r) => ordinal(r) === o) as FinancialReport;
    const [end, baseEnd] = [at(latest), at(latest - 4)];
    // The store's split event is the first bar of the new count; the two period ends' listed shares are read.
    const splits = await store.market.splitEvents('', AS_OF);
    assert.deepStrictEqual(splits.get(id), [{ date: (await store.market.bars(id)).find((b) => b.date >= SPLIT_DATE)?.date, factor: 2 }]);
    const listed = universe.listedShares?.get(id);
    assert.ok(listed);
    assert.deepStrictEqual([...listed.keys()].sort(), [baseEnd.periodEnd, end.periodEnd].sort());
    const lastBarShares = async (date: string) => (await store.market.bars(id)).filter((b) => b.date <= date).at(-1)?.shares as number;
    assert.equal(listed.get(end.periodEnd), await lastBarShares(end.periodEnd));
    // The base quarter ends before the split: its count is doubled onto the date's basis.
    assert.ok(baseEnd.periodEnd < SPLIT_DATE && end.periodEnd >= SPLIT_DATE, `${baseEnd.periodEnd} .. ${end.periodEnd}`);
    const sharesNow = await lastBarShares(end.periodEnd);
    const sharesBase = 2 * (await lastBarShares(baseEnd.periodEnd));
    // TTM net income, as the demo's year-to-date filings give it: YTD(Qn) + FY(Y-1) - YTD(Qn of Y-1) (or the FY itself).
    const ttmNi = (o: number) => {
      const q = at(o);
      return q.fiscalQuarter === 4 ? (q.netIncome as number) : (q.netIncome as number) + (at(o - q.fiscalQuarter).netIncome as number) - (at(o - 4).netIncome as number);
    };
    const view = computeSnapshot(universe, AS_OF).views.get(viewKey('KR', LISTED_CODE));
    assert.ok(view);
    const { eps } = view.snapshot.perShare;
    const { epsYoy } = view.snapshot.growth;
    assert.equal(eps.basis, 'net income / listed shares at the quarter end');
    assert.equal(eps.value, ttmNi(latest) / sharesNow);
    assert.equal(epsYoy.basis, 'net income / listed shares at the quarter end');
    const [now, before] = [ttmNi(latest) / sharesNow, ttmNi(latest - 4) / sharesBase];
    assert.equal(epsYoy.value, ((now - before) * 100) / Math.abs(before));
  });

  it('reads the same universe a slice of stocks at a time, and the sector exports a decade at a time', async () => {
    const whole = await loadUniverse(store.market, AS_OF, 1_000_000);
    const sliced = await loadUniverse(store.market, AS_OF, 7);
    assert.ok(whole.securities.length > 7 * 5, `${whole.securities.length} stocks: several slices`);
    assert.deepStrictEqual(sliced, whole);
    assert.deepStrictEqual(sliced.sectorExports, await store.market.sectorExports());
    const years = new Set(sliced.sectorExports.map((m) => m.month.slice(0, 3)));
    assert.ok(years.has('199') && years.has('202'), 'the first and the last decade are both read');
  });

  it('reads the same universe with the recent bars and flows on a series reader thread', async (t) => {
    // The service's store: a second connection to the same file, with a reader thread that
    // reads each slice's bars and flows as columns (RowsRequest) while this thread reads filings
    // and the price changes' base closes of the slices whose bars are in.
    const served = await openSqliteStore(join(tmp.dir, 'db.sqlite'), { seriesReaders: 1 });
    t.after(() => served.close());
    const here = await loadUniverse(store.market, AS_OF, 7);
    const onReader = await loadUniverse(served.market, AS_OF, 7);
    const slices = Math.ceil(here.securities.length / 7);
    // Every slice's bars and flows, each read by the thread; nothing else.
    assert.equal(served.seriesReaders?.answered, 2 * slices);
    assert.deepStrictEqual(onReader, here);
    const bars = [...onReader.recentBars.values()].flat();
    assert.ok(bars.length > 20 * here.securities.length * 0.9, `${bars.length} bars`);
    assert.ok([...onReader.recentFlows.values()].flat().length > 0);
  });

  it('a bulk read the reader thread fails is read on the calling thread', async (t) => {
    const served = await openSqliteStore(join(tmp.dir, 'db.sqlite'), { seriesReaders: 1 });
    t.after(() => served.close());
    const readers = served.seriesReaders;
    assert.ok(readers);
    await assert.rejects(readers.rows('SELECT no_such_column FROM bars', [], ['int']), /series read failed: no such column/);
    // A date column that is not a date: the thread's read fails, the store reads it here.
    const rows = readers.rows.bind(readers);
    readers.rows = (sql, parameters, types) => rows(sql, parameters, types.map(() => 'day'));
    const expected = await store.market.lastBars(addDays(AS_OF, -RECENT_DAYS), AS_OF, 21);
    assert.deepStrictEqual(await served.market.lastBars(addDays(AS_OF, -RECENT_DAYS), AS_OF, 21), expected);
    assert.ok(expected.size > 50);
  });

  it('computes the same snapshot in steps, pausing every chunk of stocks and before the ranks', async () => {
    const universe = await loadUniverse(store.market, AS_OF);
    const n = universe.securities.length;
    const steps = snapshotSteps(universe, AS_OF, 10);
    let pauses = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) pauses++;
    // One pause before each chunk of 10 after the first, one before the score ranks, one before
    // each cohort's ranker (every sector of each market, and the two markets), one before the
    // search index and one before the rankings index.
    const cohorts = new Set(universe.securities.map((s) => `${s.market}:${s.sector}`)).size + 2;
    assert.equal(pauses, Math.ceil(n / 10) - 1 + 1 + cohorts + 1 + 1);
    // Other work runs between the steps of the yielding version.
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 0);
    const yielded = await computeSnapshotYielding(universe, AS_OF, 5);
    clearInterval(ticker);
    assert.ok(ticks > 0, 'the event loop ran during the computation');
    assert.deepStrictEqual(withPercentiles(yielded), withPercentiles(computeSnapshot(universe, AS_OF)));
    assert.deepStrictEqual(withPercentiles(step.value), withPercentiles(computeSnapshot(universe, AS_OF)));
  });
});
