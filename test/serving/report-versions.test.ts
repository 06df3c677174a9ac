// Report versions on a real amendment, on every store: Apple's FY2009 10-K (accession
// 0001193125-09-214859, filed 2009-10-27) and its 10-K/A (0001193125-10-012091, filed 2010-01-25,
// restating FY2009 for the revenue recognition of ASU 2009-13), both as companyfacts carries them
// (test/fixtures/real/sec/companyfacts_CIK0000320193_AAPL.json.gz), and the 10-Q of 2010-07-21,
// whose prior-year column restates 9M 2009 the same way (a version of 2009Q3 from its comparatives,
// src/sources/sec/parse.ts `comparativeVersions`). The store keeps every version;
// a read as of a day uses the version known that day (the first before 2010-01-25, the amended one
// from then on); a snapshot marks a figure the amendment changed `restated: true` with the figure
// of the first-known versions beside it, and leaves every other figure as it is.
//
// The figures, from the recording (US-GAAP facts of each filing, in USD millions):
//   10-K  2009-10-27, FY2009 (to 2009-09-26): Revenues 36,537, OperatingIncomeLoss 7,658, NetIncomeLoss 5,704
//   10-K/A 2010-01-25, FY2009:                Revenues 42,905, OperatingIncomeLoss 11,740, NetIncomeLoss 8,235
//   10-Q  2009-07-22, 9M to 2009-06-27:       Revenues 26,667, OperatingIncomeLoss 5,465, NetIncomeLoss 4,039
//   10-Q  2010-07-21, 9M to 2010-06-26:       Revenues 44,882, OperatingIncomeLoss 12,938, NetIncomeLoss 9,705
//         and its comparative 9M to 2009-06-27: Revenues 30,698, OperatingIncomeLoss 8,056, NetIncomeLoss 5,703
//   10-K  2010-10-27, FY2010 (to 2010-09-25): Revenues 65,225, OperatingIncomeLoss 18,385
// TTM to 2010Q3 = 9M(2010) + FY(2009) - 9M(2009) (docs/calculations.md):
//   revenue, latest versions: 44,882 + 42,905 - 30,698 = 57,089; first-known: 44,882 + 36,537 - 26,667 = 54,752
//   operating income, latest: 12,938 + 11,740 - 8,056 = 16,622; first-known: 12,938 + 7,658 - 5,465 = 15,131
//   net income, latest: 9,705 + 8,235 - 5,703 = 12,237
// As of 2010-10-27 the TTM is FY2010 and its base FY2009: revenue YoY, amended (65,225 - 42,905) x
// 100 / 42,905 = 52.02 %; first-known (65,225 - 36,537) x 100 / 36,537 = 78.52 %. (Written below as
// the service multiplies and divides, in dollars, so that the doubles are the same.) Operating margin is FY2010's alone (18,385 /
// 65,225), which no amendment touched.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { SnapshotGroups, SnapshotMetric } from '../../src/domain/results.js';
import { discreteQuarters } from '../../src/domain/ttm.js';
import { computeSnapshot, viewKey } from '../../src/serving/build.js';
import { loadUniverse } from '../../src/serving/served.js';
import { parseCompanyFacts, usSecurity } from '../../src/sources/sec/parse.js';
import { STORE_PLACES } from '../support/stores.js';

const M = 1_000_000;
const facts = parseCompanyFacts(JSON.parse(gunzipSync(readFileSync(new URL('../fixtures/real/sec/companyfacts_CIK0000320193_AAPL.json.gz', import.meta.url))).toString('utf8')), 'AAPL');
assert.ok(facts);
const { reports } = facts;
const security = usSecurity('AAPL', facts.entityName, 'Nasdaq', 'Technology Hardware', 9);
// Tesla's FY2011 10-K (filed 2012-02-27) and its 10-K/A (0001193125-12-137560, filed 2012-03-28):
// the same figures in both (Revenues 204,242,000; NetIncomeLoss -254,411,000), so a second version
// that changes nothing.
const tesla = parseCompanyFacts(JSON.parse(gunzipSync(readFileSync(new URL('../fixtures/real/sec/companyfacts_CIK0001318605_TSLA.json.gz', import.meta.url))).toString('utf8')), 'TSLA');
assert.ok(tesla);

/** The snapshot's metrics that carry `restated` or `firstKnown`, as `group.metric`. */
function marked(snapshot: SnapshotGroups): string[] {
  return Object.entries(snapshot).flatMap(([group, metrics]) =>
    Object.entries(metrics as Record<string, SnapshotMetric>)
      .filter(([, m]) => 'restated' in m || 'firstKnown' in m)
      .map(([key]) => `${group}.${key}`),
  );
}

for (const place of STORE_PLACES) describe(`${place.name}: an amended SEC report (Apple FY2009, 10-K/A of 2010-01-25)`, { skip: place.skip }, () => {
  it('keeps both versions; each read as of a day uses the version known that day', async () => {
    const { store, cleanup } = await place.open();
    try {
      await store.market.writeDataset({ securities: [security], reports });
      const id = (await store.market.securities()).find((s) => s.code === 'AAPL')?.id as number;
      const fy2009 = (await store.market.reports(id)).filter((r) => r.fiscalYear === 2009 && r.fiscalQuarter === 4);
      assert.deepEqual(fy2009.map((r) => [r.disclosedOn, r.revenue]), [['2009-10-27', 36_537 * M], ['2010-01-25', 42_905 * M]]);

      const fyOf = async (asOf: string) => {
        const recent = (await store.market.recentReports(asOf, 9)).get(id) ?? [];
        return discreteQuarters(recent, asOf).find((q) => q.fiscalYear === 2009 && q.fiscalQuarter === 4);
      };
      // The day before the amendment: the 10-K's figures; from its day: the 10-K/A's.
      assert.deepEqual([(await fyOf('2010-01-24'))?.ytd.revenue, (await fyOf('2010-01-24'))?.filedOn], [36_537 * M, '2009-10-27']);
      assert.deepEqual([(await fyOf('2010-01-25'))?.ytd.revenue, (await fyOf('2010-01-25'))?.filedOn], [42_905 * M, '2010-01-25']);

      // The TTM steps (the valuation band's): FY2009 as first filed from 2009-10-27; the TTM to
      // 2010Q3 from 2010-07-21 on the amended FY2009 and the restated 9M 2009.
      const q3of2009 = (await store.market.reports(id)).filter((r) => r.fiscalYear === 2009 && r.fiscalQuarter === 3);
      assert.deepEqual(q3of2009.map((r) => [r.disclosedOn, r.revenue, r.totalAssets]), [['2009-07-22', 26_667 * M, 48_140 * M], ['2010-07-21', 30_698 * M, 48_140 * M]], 'no balance sheet at the prior-year quarter end in a 10-Q: the first version\'s');
      const steps = await store.market.ttmSteps(id);
      const step = (from: string) => steps.find((s) => s.effectiveFrom === from);
      assert.deepEqual([step('2009-10-27')?.referenceQuarter, step('2009-10-27')?.revenue, step('2009-10-27')?.netIncome], ['2009Q4', 36_537 * M, 5_704 * M]);
      assert.deepEqual([step('2010-07-21')?.referenceQuarter, step('2010-07-21')?.revenue, step('2010-07-21')?.netIncome], ['2010Q3', 57_089 * M, 12_237 * M]);
    } finally {
      await store.close();
      await cleanup();
    }
  });

  it('marks the figures the amendment changed restated, with the first-known figure; the others as they are', async () => {
    const { store, cleanup } = await place.open();
    try {
      await store.market.writeDataset({ securities: [security], reports });
      const snapshotOn = async (asOf: string) => {
        const view = computeSnapshot(await loadUniverse(store.market, asOf), asOf).views.get(viewKey('US', 'AAPL'));
        assert.ok(view);
        return view.snapshot;
      };

      // Before the amendment: one version of each period, nothing restated.
      const before = await snapshotOn('2010-01-24');
      assert.deepEqual(marked(before), []);

      const q3 = await snapshotOn('2010-07-21');
      assert.deepEqual(q3.profitability.operatingMargin, {
        value: (16_622 * M * 100) / (57_089 * M),
        unit: '%',
        referenceQuarter: '2010Q3',
        disclosedOn: '2010-07-21',
        priceDate: null,
        restated: true,
        firstKnown: { value: (15_131 * M * 100) / (54_752 * M), disclosedOn: '2010-07-21' },
      });
      // Balances are 2010Q3's own (no version of it but one): not restated.
      assert.equal(q3.stability.currentRatio.restated, undefined);
      assert.equal(q3.stability.currentRatio.firstKnown, undefined);

      const fy = await snapshotOn('2010-10-27');
      assert.deepEqual(fy.growth.revenueYoy, {
        value: ((65_225 - 42_905) * M * 100) / (42_905 * M),
        unit: '%',
        referenceQuarter: '2010Q4',
        disclosedOn: '2010-10-27',
        priceDate: null,
        restated: true,
        firstKnown: { value: ((65_225 - 36_537) * M * 100) / (36_537 * M), disclosedOn: '2010-10-27' },
      });
      assert.deepEqual(fy.profitability.operatingMargin, { value: (18_385 * M * 100) / (65_225 * M), unit: '%', referenceQuarter: '2010Q4', disclosedOn: '2010-10-27', priceDate: null });
    } finally {
      await store.close();
      await cleanup();
    }
  });

  it('marks nothing where the later version changed no figure (Tesla FY2011, 10-K/A of 2012-03-28)', async () => {
    const { store, cleanup } = await place.open();
    try {
      await store.market.writeDataset({ securities: [usSecurity('TSLA', tesla.entityName, 'Nasdaq', 'Automobiles', 12)], reports: tesla.reports });
      const id = (await store.market.securities()).find((s) => s.code === 'TSLA')?.id as number;
      const fy2011 = (await store.market.reports(id)).filter((r) => r.fiscalYear === 2011 && r.fiscalQuarter === 4);
      // And a third from the FY2012 10-K's comparatives (2013-03-07), which restate the cash flows
      // (operating cash flow -114,364,000 as -128,304,000): not known on 2012-03-28.
      assert.deepEqual(fy2011.map((r) => [r.disclosedOn, r.revenue, r.netIncome, r.operatingCashFlow]), [
        ['2012-02-27', 204_242_000, -254_411_000, -114_364_000],
        ['2012-03-28', 204_242_000, -254_411_000, -114_364_000],
        ['2013-03-07', 204_242_000, -254_411_000, -128_304_000],
      ]);
      const view = computeSnapshot(await loadUniverse(store.market, '2012-03-28'), '2012-03-28').views.get(viewKey('US', 'TSLA'));
      assert.ok(view);
      assert.deepEqual(marked(view.snapshot), []);
      // The figures are the later version's (its date), as they would be from either.
      assert.equal(view.snapshot.cashGeneration.operatingCashFlow.disclosedOn, '2012-03-28');
    } finally {
      await store.close();
      await cleanup();
    }
  });
});

describe('versions from later filings\' comparatives (the recordings, parsed)', () => {
  it('a comparative that states the same figure to its own precision makes no version', () => {
    // Tesla's 2019 10-Q (2019-10-29) states 2018 Q3's 9M in millions: Revenues 14,235,000,000 for
    // 14,235,395,000, cash 2,967,000,000 for 2,967,504,000. Marvell's FY2023 10-K (2023-03-09)
    // states FY2022 in tenths of a million: capex 169,200,000 for 169,324,000 (a subtotal of rounded
    // lines, two tenths off). One version each: the filing's own.
    const q = (list: typeof reports, fy: number, quarter: number) => list.filter((r) => r.fiscalYear === fy && r.fiscalQuarter === quarter).map((r) => r.disclosedOn);
    assert.deepEqual(q(tesla.reports, 2018, 3), ['2018-11-02']);
    const marvell = parseCompanyFacts(JSON.parse(gunzipSync(readFileSync(new URL('../fixtures/real/sec/companyfacts_CIK0001835632_MRVL.json.gz', import.meta.url))).toString('utf8')), 'MRVL');
    assert.ok(marvell);
    assert.deepEqual(q(marvell.reports, 2022, 4), ['2022-03-10']);
    // A real restatement in a comparative is one: Apple's 2017 Q1 operating cash flow, 27,056 as
    // first filed (2017-02-01), 27,234 in the 2018 Q1 10-Q (2018-02-02; ASU 2016-09), USD millions.
    assert.deepEqual(reports.filter((r) => r.fiscalYear === 2017 && r.fiscalQuarter === 1).map((r) => [r.disclosedOn, r.operatingCashFlow]), [['2017-02-01', 27_056 * M], ['2018-02-02', 27_234 * M]]);
  });
});
