// The coverage report on a hand-built dataset of seven served stocks and one listed-only
// security, with every figure derived by hand below; and the sorting of the domain's own null
// reasons into categories.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { Market } from '../../src/domain/model.js';
import { PERCENTILE_METRICS, type SnapshotMetric } from '../../src/domain/results.js';
import { percentileValuesOf, snapshotGroups, type StockMetricKey, type StockMetrics } from '../../src/domain/snapshot.js';
import { coverageLines, coverageMetricTable, coverageOf, emptyNullCounts, nullReasonOf, readCoverage, type NullCounts } from '../../src/serving/coverage.js';
import type { StockView, V3Outcome } from '../../src/serving/dataset.js';

const metric = (reason?: string): SnapshotMetric =>
  reason === undefined ? { value: 1, unit: 'x', referenceQuarter: '2026Q3', disclosedOn: '2026-11-14', priceDate: null } : { value: null, reason, unit: 'x', referenceQuarter: null, disclosedOn: null, priceDate: null };

/**
 * A stock's metrics (the 17 percentile ones and the snapshot's): every metric has a value except
 * those named (with their reasons); `rest` gives all others one reason.
 */
function metrics(nulls: Partial<Record<StockMetricKey, string>>, rest?: string): StockMetrics {
  return new Proxy({} as StockMetrics, { get: (_target, name) => metric(nulls[name as StockMetricKey] ?? rest) });
}

let nextId = 1;
function view(market: Market, code: string, priced: boolean, v3: true | string, m: StockMetrics): StockView {
  return {
    security: { id: nextId++, market, code, name: code, exchange: market === 'KR' ? 'KOSPI' : 'NYSE', sector: 'Tech', currency: market === 'KR' ? 'KRW' : 'USD', fiscalYearEndMonth: 12, source: 'demo' },
    price: priced ? { date: '2026-11-20', close: 100, shares: 10, marketCap: 1000 } : null,
    band: null,
    // The report reads only `ok` and `reason` of the outcome.
    v3: (v3 === true ? { ok: true } : { ok: false, reason: v3 }) as V3Outcome,
    scorePercentile: null,
    scoreCohortSize: 0,
    snapshot: snapshotGroups(m),
    percentiles: () => ({ sector: { name: 'Tech', members: 0, metrics: [] }, market: { name: market, members: 0, metrics: [] } }),
    metricValues: percentileValuesOf(m),
    // The report does not read these.
    priceChanges: { m1: null, m3: null, m12: null },
  };
}

const NO_PRICE = 'no price on or before the date';
const NA = 'not applicable to financial companies';
const NO_FILINGS = 'no TTM: no quarterly report disclosed';
const PRICE_METRICS = { per: NO_PRICE, pbr: NO_PRICE, psr: NO_PRICE, evEbit: NO_PRICE, fcfYield: NO_PRICE };

const views: StockView[] = [
  // KR 000010: priced, scored, every metric.
  view('KR', '000010', true, true, metrics({})),
  // KR 000020: priced; no flows for the score; PER undefined (a loss), net-debt ratio not in its
  // layout (debt not reported), current ratio and CCC not applicable (a financial company).
  view('KR', '000020', true, 'supplyPct undefined: no investor-type flows in the last 20 trading days', metrics({ per: 'TTM net income is not positive', netDebtRatio: 'debt not reported for 2026Q3', currentRatio: NA, ccc: NA })),
  // KR 000030: priced, no filing at all: every metric null for that reason.
  view('KR', '000030', true, 'no TTM net income: no quarterly report disclosed', metrics({}, NO_FILINGS)),
  // KR 000040: no price: the five price metrics null (PER, PBR, PSR, EV/EBIT, FCF yield), the other thirteen have values.
  view('KR', '000040', false, NO_PRICE, metrics(PRICE_METRICS)),
  // US AAA: priced, scored, every metric.
  view('US', 'AAA', true, true, metrics({})),
  // US BBB: priced, no USD/KRW rate for the score; every metric.
  view('US', 'BBB', true, 'no USD/KRW rate on or before the date', metrics({})),
  // US CCC: priced; a quarter missing: every metric null for it but three balance ratios, undefined.
  view('US', 'CCC', true, 'no TTM net income four quarters earlier: no filing for 2025Q2', metrics({ pbr: 'equity is not positive', netDebtRatio: 'equity is not positive', currentRatio: 'current liabilities are not positive' }, 'no TTM: no filing for 2026Q1')),
];
// The store also lists KR 000050, not served (no price yet): null (noPrice) for every tool.
const listed = [...views.map((v) => v.security), { market: 'KR' as const, code: '000050' }];

const counts = (over: Partial<NullCounts>): NullCounts => ({ ...emptyNullCounts(), ...over });

describe('coverageOf', () => {
  const report = coverageOf('2026-11-20', views, listed);

  it('per market: listed, priced, scored and scored / listed', () => {
    // KR: listed 000010-000050 = 5; priced 000010, 000020, 000030 = 3; scored 000010 = 1; 1/5 = 0.2.
    // US: listed 3, priced 3, scored AAA = 1; 1/3 = 0.3333 (four decimals).
    assert.deepEqual(report.markets, [
      { market: 'KR', listed: 5, priced: 3, scored: 1, complete: 0.2 },
      { market: 'US', listed: 3, priced: 3, scored: 1, complete: 0.3333 },
    ]);
  });

  it('per tool and market: with values, and the nulls by reason adding up to the rest', () => {
    // Score (and rankings, the same rows), KR: 000010 has one; nulls: 000020 noFlows, 000030
    // noFilingsYet, 000040 and the unserved 000050 noPrice: 1 + 1 + 1 + 2 = 5 = listed.
    const krScore = { listed: 5, withValues: 1, nulls: counts({ noFlows: 1, noFilingsYet: 1, noPrice: 2 }), complete: 0.2 };
    // Snapshot, KR: 000010, 000020 and 000040 have at least one value (3/5 = 0.6); 000030 has
    // none (noFilingsYet), 000050 is not served (noPrice).
    const krSnapshot = { listed: 5, withValues: 3, nulls: counts({ noFilingsYet: 1, noPrice: 1 }), complete: 0.6 };
    // Score, US: AAA; BBB noFxRate, CCC filingsIncomplete: 1/3. Snapshot, US: AAA and BBB (2/3 =
    // 0.6667); CCC has none, its first reason by priority is filingsIncomplete (before undefined).
    const usScore = { listed: 3, withValues: 1, nulls: counts({ noFxRate: 1, filingsIncomplete: 1 }), complete: 0.3333 };
    const usSnapshot = { listed: 3, withValues: 2, nulls: counts({ filingsIncomplete: 1 }), complete: 0.6667 };
    assert.deepEqual(report.tools, [
      { tool: 'get_stock_score', market: 'KR', ...krScore },
      { tool: 'get_stock_score', market: 'US', ...usScore },
      { tool: 'get_rankings', market: 'KR', ...krScore },
      { tool: 'get_rankings', market: 'US', ...usScore },
      { tool: 'get_stock_snapshot', market: 'KR', ...krSnapshot },
      { tool: 'get_stock_snapshot', market: 'US', ...usSnapshot },
    ]);
  });

  it('per metric and market: listed, applicable, with a value, and the nulls by reason', () => {
    // The 17 percentile metrics in both markets first, then the snapshot-only operating cash flow.
    assert.deepEqual(
      report.metrics.slice(0, 34).map((m) => `${m.metric}:${m.market}`),
      PERCENTILE_METRICS.flatMap((k) => [`${k}:KR`, `${k}:US`]),
    );
    assert.ok(report.metrics.slice(0, 34).every((m) => m.percentile));
    const line = (name: string, market: Market) => report.metrics.find((m) => m.metric === name && m.market === market);
    // KR PER, listed 5: 000010 a value; 000020 a loss (undefinedForCompany), 000030 noFilingsYet,
    // 000040 and the unserved 000050 noPrice. A PER of a loss does not exist (outside
    // `applicable`: 5 - 1 = 4): 1/4 = 0.25.
    assert.deepEqual(line('per', 'KR'), { metric: 'per', market: 'KR', percentile: true, listed: 5, applicable: 4, withValues: 1, complete: 0.25, nulls: counts({ undefinedForCompany: 1, noFilingsYet: 1, noPrice: 2 }) });
    // KR current ratio: 000010 and 000040 (a balance ratio needs no price); 000020 is a financial
    // company (not applicable, outside `applicable`: 5 - 1 = 4); 000030 noFilingsYet, 000050 noPrice. 2/4 = 0.5.
    assert.deepEqual(line('currentRatio', 'KR'), { metric: 'currentRatio', market: 'KR', percentile: true, listed: 5, applicable: 4, withValues: 2, complete: 0.5, nulls: counts({ notApplicable: 1, noFilingsYet: 1, noPrice: 1 }) });
    // KR net-debt ratio: 000010 and 000040; 000020's layout lacks debt (notCovered: missing, not
    // outside); 000030 noFilingsYet, 000050 noPrice. 2/5 = 0.4.
    assert.deepEqual(line('netDebtRatio', 'KR'), { metric: 'netDebtRatio', market: 'KR', percentile: true, listed: 5, applicable: 5, withValues: 2, complete: 0.4, nulls: counts({ notCovered: 1, noFilingsYet: 1, noPrice: 1 }) });
    // KR PSR (a percentile metric the snapshot does not show): 000010, 000020; 000030
    // noFilingsYet; 000040, 000050 noPrice. 2/5 = 0.4.
    assert.deepEqual(line('psr', 'KR'), { metric: 'psr', market: 'KR', percentile: true, listed: 5, applicable: 5, withValues: 2, complete: 0.4, nulls: counts({ noFilingsYet: 1, noPrice: 2 }) });
    // US PBR, listed 3: AAA, BBB; CCC's equity is not positive, so its PBR does not exist
    // (outside `applicable`: 3 - 1 = 2). 2/2 = 1.
    assert.deepEqual(line('pbr', 'US'), { metric: 'pbr', market: 'US', percentile: true, listed: 3, applicable: 2, withValues: 2, complete: 1, nulls: counts({ undefinedForCompany: 1 }) });
    // US ROE: AAA, BBB; CCC misses a quarter.
    assert.deepEqual(line('roe', 'US'), { metric: 'roe', market: 'US', percentile: true, listed: 3, applicable: 3, withValues: 2, complete: 0.6667, nulls: counts({ filingsIncomplete: 1 }) });
    // KR operating cash flow (snapshot only): 000010, 000020, 000040; 000030 noFilingsYet, 000050 noPrice. 3/5 = 0.6.
    assert.deepEqual(line('operatingCashFlow', 'KR'), { metric: 'operatingCashFlow', market: 'KR', percentile: false, listed: 5, applicable: 5, withValues: 3, complete: 0.6, nulls: counts({ noFilingsYet: 1, noPrice: 1 }) });
    // Every line: the values and the nulls add up to the listed stocks of its market.
    for (const m of report.metrics) assert.equal(m.withValues + Object.values(m.nulls).reduce((a, b) => a + b, 0), m.market === 'KR' ? 5 : 3, `${m.metric} ${m.market}`);
  });

  it('per metric, as the README\'s Markdown table: percentile metrics below 90 % marked *', () => {
    const table = coverageMetricTable(report);
    assert.deepEqual(table.slice(0, 3), [
      '| metric | KR with a value / applicable | KR without, by reason | US with a value / applicable | US without, by reason |',
      '|---|---|---|---|---|',
      '| `per` | 1 / 4 (25.0 %) * | noPrice 2, noFilingsYet 1, undefinedForCompany 1 | 2 / 3 (66.7 %) * | filingsIncomplete 1 |',
    ]);
    assert.ok(table.includes('| `currentRatio` | 2 / 4 (50.0 %) * | noPrice 1, noFilingsYet 1, notApplicable 1 | 2 / 2 (100.0 %) | undefinedForCompany 1 |'));
    // Snapshot-only metrics are not held to the target (no mark).
    assert.ok(table.includes('| `operatingCashFlow` (snapshot only) | 3 / 5 (60.0 %) | noPrice 1, noFilingsYet 1 | 2 / 3 (66.7 %) | filingsIncomplete 1 |'));
    // Header, separator, 17 percentile metrics and the snapshot's other five (operating cash flow,
    // EPS, dividend per share TTM and last fiscal year, dividend yield).
    assert.equal(table.length, 2 + 17 + 5);
  });

  it('an empty dataset: every market listed 0 and complete 0 (no division by zero)', () => {
    const empty = coverageOf('2026-11-20', [], []);
    assert.deepEqual(empty.markets, [
      { market: 'KR', listed: 0, priced: 0, scored: 0, complete: 0 },
      { market: 'US', listed: 0, priced: 0, scored: 0, complete: 0 },
    ]);
    assert.ok(empty.tools.every((t) => t.listed === 0 && t.withValues === 0 && t.complete === 0));
    assert.equal(empty.metrics.length, 34, 'the 17 percentile metrics in both markets');
    assert.ok(empty.metrics.every((m) => m.listed === 0 && m.applicable === 0 && m.withValues === 0 && m.complete === 0));
  });
});

describe('nullReasonOf sorts the domain\'s reasons', () => {
  // The sentences as src/domain/v3.ts, ttm.ts and snapshot.ts write them.
  const cases: [string, string][] = [
    ['no price on or before the date', 'noPrice'],
    ['no TTM net income: no quarterly report disclosed', 'noFilingsYet'],
    ['no quarterly report disclosed', 'noFilingsYet'],
    ['no TTM: no filing for 2025Q4', 'filingsIncomplete'],
    ['no TTM net income four quarters earlier: 2025Q1 filed only separate, 2025Q4 consolidated', 'filingsIncomplete'],
    ['no USD/KRW rate on or before the date', 'noFxRate'],
    ['supplyPct undefined: no investor-type flows in the last 20 trading days', 'noFlows'],
    ['supplyPct undefined: no traded value in the last 20 trading days', 'noFlows'],
    ['current assets not reported for 2026Q3', 'notCovered'],
    ['no TTM net income: net income not reported in every quarter to 2026Q3', 'notCovered'],
    ['TTM net income is not positive', 'undefinedForCompany'],
    ['yoy undefined: TTM net income to 2025Q3 is zero', 'undefinedForCompany'],
    ['momentum undefined: no net income for 2025Q3', 'undefinedForCompany'],
    ['no interest expense', 'undefinedForCompany'],
    // src/domain/financials.ts: a bank's current ratio, counted apart from what is missing.
    ['not applicable to financial companies', 'notApplicable'],
    ['something nobody wrote yet', 'other'],
  ];
  for (const [reason, category] of cases) it(`${reason} -> ${category}`, () => assert.equal(nullReasonOf(reason), category));
});

describe('coverageLines and readCoverage (the CLI\'s `sources`)', () => {
  const report = coverageOf('2026-11-20', views, listed);

  it('prints each market and tool line, with only the non-zero nulls', () => {
    assert.deepEqual(coverageLines(report), [
      'coverage of the served dataset as of 2026-11-20',
      '  KR  listed 5, priced 3, scored 1: complete 20.0 %',
      '  US  listed 3, priced 3, scored 1: complete 33.3 %',
      '  get_stock_score     KR  1 of 5 with values (20.0 %); null: noPrice 2, noFilingsYet 1, noFlows 1',
      '  get_stock_score     US  1 of 3 with values (33.3 %); null: filingsIncomplete 1, noFxRate 1',
      '  get_rankings        KR  1 of 5 with values (20.0 %); null: noPrice 2, noFilingsYet 1, noFlows 1',
      '  get_rankings        US  1 of 3 with values (33.3 %); null: filingsIncomplete 1, noFxRate 1',
      '  get_stock_snapshot  KR  3 of 5 with values (60.0 %); null: noPrice 1, noFilingsYet 1',
      '  get_stock_snapshot  US  2 of 3 with values (66.7 %); null: filingsIncomplete 1',
    ]);
  });

  it('reads back what the service keeps, and nothing from text that is not a report', () => {
    assert.deepEqual(readCoverage(JSON.stringify(report)), report);
    for (const bad of [null, '', 'not json', 'null', '[]', '{"asOf":"2026-11-20"}']) assert.equal(readCoverage(bad), null, String(bad));
  });
});

describe('the README\'s Coverage table', () => {
  it('has the report\'s header and one row per metric, in the report\'s order', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const at = readme.indexOf('\n## Coverage\n');
    assert.ok(at >= 0, 'README has a Coverage section');
    const section = readme.slice(at + 1, readme.indexOf('\n## ', at + 1));
    const rows = section.split('\n').filter((l) => l.startsWith('|'));
    const expected = coverageMetricTable(coverageOf('2026-11-20', views, listed));
    assert.deepEqual(rows.slice(0, 2), expected.slice(0, 2));
    // The first cell of each row names the metric as the table does (the figures are a run's).
    const label = (row: string): string => row.split('|')[1]?.trim() ?? '';
    assert.deepEqual(rows.slice(2).map(label), expected.slice(2).map(label));
    // Each row has a figure for both markets.
    for (const row of rows.slice(2)) assert.match(row, /^\| [^|]+ \| [\d,]+ \/ [\d,]+ \([\d.]+ %\)( \*)? \| [^|]+ \| [\d,]+ \/ [\d,]+ \([\d.]+ %\)( \*)? \| [^|]+ \|$/, row);
  });
});
