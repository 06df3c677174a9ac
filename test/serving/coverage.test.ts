// The coverage report on a hand-built dataset of seven served stocks and one listed-only
// security, with every figure derived by hand below; and the sorting of the domain's own null
// reasons into categories.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Market } from '../../src/domain/model.js';
import type { SnapshotGroups, SnapshotMetric } from '../../src/domain/results.js';
import { coverageLines, coverageOf, emptyNullCounts, nullReasonOf, readCoverage, type NullCounts } from '../../src/serving/coverage.js';
import type { StockView, V3Outcome } from '../../src/serving/dataset.js';

type MetricName = 'per' | 'pbr' | 'evEbit' | 'roe' | 'roic' | 'operatingMargin' | 'revenueYoy' | 'epsYoy' | 'netDebtRatio' | 'interestCoverage' | 'currentRatio' | 'operatingCashFlow' | 'fcfYield' | 'cfToNi' | 'ccc' | 'eps' | 'dividendPerShare' | 'dividendPerShareFy' | 'dividendYield';

const metric = (reason?: string): SnapshotMetric =>
  reason === undefined ? { value: 1, unit: 'x', referenceQuarter: '2026Q3', disclosedOn: '2026-11-14', priceDate: null } : { value: null, reason, unit: 'x', referenceQuarter: null, disclosedOn: null, priceDate: null };

/** Every metric has a value except those named (with their reasons); `rest` gives all others one reason. */
function groups(nulls: Partial<Record<MetricName, string>>, rest?: string): SnapshotGroups {
  const m = (name: MetricName) => metric(nulls[name] ?? rest);
  return {
    valuation: { per: m('per'), pbr: m('pbr'), evEbit: m('evEbit') },
    profitability: { roe: m('roe'), roic: m('roic'), operatingMargin: m('operatingMargin') },
    growth: { revenueYoy: m('revenueYoy'), epsYoy: m('epsYoy') },
    stability: { netDebtRatio: m('netDebtRatio'), interestCoverage: m('interestCoverage'), currentRatio: m('currentRatio') },
    cashGeneration: { operatingCashFlow: m('operatingCashFlow'), fcfYield: m('fcfYield') },
    earningsQuality: { cfToNi: m('cfToNi'), ccc: m('ccc') },
    perShare: { eps: m('eps'), dividendPerShare: m('dividendPerShare'), dividendPerShareFy: m('dividendPerShareFy'), dividendYield: m('dividendYield') },
  };
}

let nextId = 1;
function view(market: Market, code: string, priced: boolean, v3: true | string, snapshot: SnapshotGroups): StockView {
  return {
    security: { id: nextId++, market, code, name: code, exchange: market === 'KR' ? 'KOSPI' : 'NYSE', sector: 'Tech', currency: market === 'KR' ? 'KRW' : 'USD', fiscalYearEndMonth: 12, source: 'demo' },
    price: priced ? { date: '2026-11-20', close: 100, shares: 10, marketCap: 1000 } : null,
    band: null,
    // The report reads only `ok` and `reason` of the outcome.
    v3: (v3 === true ? { ok: true } : { ok: false, reason: v3 }) as V3Outcome,
    scorePercentile: null,
    scoreCohortSize: 0,
    snapshot,
    percentiles: { sector: { name: 'Tech', members: 0, metrics: [] }, market: { name: market, members: 0, metrics: [] } },
    // The report does not read these.
    metricValues: {} as StockView['metricValues'],
    priceChanges: { m1: null, m3: null, m12: null },
  };
}

const NO_PRICE = 'no price on or before the date';
const NO_FILINGS = 'no TTM: no quarterly report disclosed';
const PRICE_METRICS = { per: NO_PRICE, pbr: NO_PRICE, evEbit: NO_PRICE, fcfYield: NO_PRICE };

const views: StockView[] = [
  // KR 000010: priced, scored, every metric.
  view('KR', '000010', true, true, groups({})),
  // KR 000020: priced; no flows for the score; PER undefined (a loss), current ratio not in its (financial) layout.
  view('KR', '000020', true, 'supplyPct undefined: no investor-type flows in the last 20 trading days', groups({ per: 'TTM net income is not positive', currentRatio: 'current assets not reported for 2026Q3' })),
  // KR 000030: priced, no filing at all: every metric null for that reason.
  view('KR', '000030', true, 'no TTM net income: no quarterly report disclosed', groups({}, NO_FILINGS)),
  // KR 000040: no price: the four price metrics null, the other eleven have values.
  view('KR', '000040', false, NO_PRICE, groups(PRICE_METRICS)),
  // US AAA: priced, scored, every metric.
  view('US', 'AAA', true, true, groups({})),
  // US BBB: priced, no USD/KRW rate for the score; every metric.
  view('US', 'BBB', true, 'no USD/KRW rate on or before the date', groups({})),
  // US CCC: priced; a quarter missing: twelve metrics null for it, three balance ratios undefined.
  view('US', 'CCC', true, 'no TTM net income four quarters earlier: no filing for 2025Q2', groups({ pbr: 'equity is not positive', netDebtRatio: 'equity is not positive', currentRatio: 'current liabilities are not positive' }, 'no TTM: no filing for 2026Q1')),
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

  it('per snapshot metric and market, over the served stocks', () => {
    assert.equal(report.metrics.length, 38, '19 metrics x 2 markets');
    const line = (metric: string, market: Market) => report.metrics.find((m) => m.metric === metric && m.market === market);
    // KR PER: 000010 a value; 000020 a loss (undefinedForCompany), 000030 noFilingsYet, 000040 noPrice.
    assert.deepEqual(line('per', 'KR'), { metric: 'per', market: 'KR', withValues: 1, nulls: counts({ undefinedForCompany: 1, noFilingsYet: 1, noPrice: 1 }) });
    // KR current ratio: 000010 and 000040 (a balance ratio needs no price); 000020's layout lacks it.
    assert.deepEqual(line('currentRatio', 'KR'), { metric: 'currentRatio', market: 'KR', withValues: 2, nulls: counts({ notCovered: 1, noFilingsYet: 1 }) });
    // US PBR: AAA, BBB; CCC's equity is not positive.
    assert.deepEqual(line('pbr', 'US'), { metric: 'pbr', market: 'US', withValues: 2, nulls: counts({ undefinedForCompany: 1 }) });
    // US ROE: AAA, BBB; CCC misses a quarter.
    assert.deepEqual(line('roe', 'US'), { metric: 'roe', market: 'US', withValues: 2, nulls: counts({ filingsIncomplete: 1 }) });
  });

  it('an empty dataset: every market listed 0 and complete 0 (no division by zero)', () => {
    const empty = coverageOf('2026-11-20', [], []);
    assert.deepEqual(empty.markets, [
      { market: 'KR', listed: 0, priced: 0, scored: 0, complete: 0 },
      { market: 'US', listed: 0, priced: 0, scored: 0, complete: 0 },
    ]);
    assert.ok(empty.tools.every((t) => t.listed === 0 && t.withValues === 0 && t.complete === 0));
    assert.deepEqual(empty.metrics, []);
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
