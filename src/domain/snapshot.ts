// The TTM snapshot of one stock and the raw values of the 17 sector-percentile metrics, with
// their cohort percentiles. Definitions: docs/calculations.md, "Snapshot metrics". An undefined
// ratio is null with a reason, never Infinity, NaN or 0.

import { changePct } from './change.js';
import { NOT_APPLICABLE_TO_FINANCIAL_METRICS, NOT_APPLICABLE_TO_FINANCIALS } from './financials.js';
import type { BalanceItem, Currency, FlowItem } from './model.js';
import { PERCENTILE_METRICS } from './results.js';
import type { Measured, PercentileEntry, PercentileMetricKey, SnapshotGroups, SnapshotMetric, SnapshotMetricKey } from './results.js';
import { percentileRanker } from './score.js';
import { quarterLabel, ttmOfQuarters, type TtmView } from './ttm.js';
import type { DiscreteQuarter, Ttm } from './ttm.js';

/** The price a snapshot uses: the last close on or before the date. */
export interface PricePoint {
  date: string;
  close: number;
  shares: number;
  /** close x shares. */
  marketCap: number;
}

export type StockMetricKey = SnapshotMetricKey | PercentileMetricKey;
export type StockMetrics = Record<StockMetricKey, SnapshotMetric>;

const ITEM_NAMES: Record<FlowItem | BalanceItem, string> = {
  revenue: 'revenue',
  costOfSales: 'cost of sales',
  operatingIncome: 'operating income',
  netIncome: 'net income',
  operatingCashFlow: 'operating cash flow',
  capex: 'capital expenditure',
  interestExpense: 'interest expense',
  totalAssets: 'total assets',
  currentAssets: 'current assets',
  totalLiabilities: 'total liabilities',
  currentLiabilities: 'current liabilities',
  equity: 'equity',
  cash: 'cash',
  debt: 'debt',
  receivables: 'receivables',
  inventory: 'inventory',
  payables: 'payables',
  shares: 'shares',
};

/** Thrown inside a metric's computation to make it null with a reason. A plain object, not an
 * Error, so no stack is captured: a market-wide percentile run meets many of these. */
class Missing {
  constructor(readonly reason: string) {}
}

interface Ref {
  referenceQuarter: string | null;
  disclosedOn: string | null;
}

function measure(unit: string, ref: Ref, priceDate: string | null, compute: () => number): SnapshotMetric {
  try {
    return { value: compute(), unit, ...ref, priceDate };
  } catch (e) {
    if (e instanceof Missing) return { value: null, reason: e.reason, unit, ...ref, priceDate };
    throw e;
  }
}

function positive(value: number, reason: string): number {
  if (!(value > 0)) throw new Missing(reason);
  return value;
}

const later = (a: string, b: string): string => (a > b ? a : b);

/** What the security's placement says about its metrics. */
export interface MetricOptions {
  /**
   * A financial company (its sector, `isFinancialSector`): the metrics of
   * NOT_APPLICABLE_TO_FINANCIAL_METRICS are null with NOT_APPLICABLE_TO_FINANCIALS.
   */
  financial?: boolean;
}

/**
 * Every snapshot and percentile metric of one stock, from its point-in-time discrete quarters
 * (`discreteQuarters(reports, asOf)`) and its price as of the same date.
 */
export function stockMetrics(quarters: readonly DiscreteQuarter[], price: PricePoint | null, currency: Currency, options: MetricOptions = {}): StockMetrics {
  return stockMetricsOfView(ttmOfQuarters(quarters), price, currency, options);
}

/** `stockMetrics` from the TTM view already taken of the quarters (`ttmOfQuarters`). */
export function stockMetricsOfView(view: TtmView, price: PricePoint | null, currency: Currency, options: MetricOptions = {}): StockMetrics {
  const metrics = industrialMetrics(view, price, currency);
  if (options.financial !== true) return metrics;
  for (const key of NOT_APPLICABLE_TO_FINANCIAL_METRICS) {
    const { unit, referenceQuarter, disclosedOn, priceDate } = metrics[key];
    metrics[key] = { value: null, reason: NOT_APPLICABLE_TO_FINANCIALS, unit, referenceQuarter, disclosedOn, priceDate };
  }
  return metrics;
}

function industrialMetrics(view: TtmView, price: PricePoint | null, currency: Currency): StockMetrics {
  const latest = view.latest;
  const ttm = view.current.ttm;
  const base = view.yearEarlier.ttm;

  const latestRef: Ref = latest ? { referenceQuarter: quarterLabel(latest), disclosedOn: latest.disclosedOn } : { referenceQuarter: null, disclosedOn: null };
  const ttmRef: Ref = ttm ? { referenceQuarter: ttm.referenceQuarter, disclosedOn: ttm.disclosedOn } : latestRef;
  const yoyRef: Ref = ttm && base ? { referenceQuarter: ttm.referenceQuarter, disclosedOn: later(ttm.disclosedOn, base.disclosedOn) } : ttmRef;
  const priceDate = price?.date ?? null;

  const flow = (item: FlowItem): number => {
    if (!ttm) throw new Missing(`no TTM: ${view.current.reason ?? ''}`);
    const v = ttm[item];
    if (v === null) throw new Missing(`TTM ${ITEM_NAMES[item]} not reported`);
    return v;
  };
  const baseFlow = (item: FlowItem): number => {
    if (!base) throw new Missing(`no TTM four quarters earlier: ${view.yearEarlier.reason ?? ''}`);
    const v = base[item];
    if (v === null) throw new Missing(`TTM ${ITEM_NAMES[item]} four quarters earlier not reported`);
    return v;
  };
  // Balances are the latest quarter's own (for a TTM metric that quarter is the TTM's last).
  const balance = (item: BalanceItem, of: DiscreteQuarter | null = latest): number => {
    if (!of) throw new Missing(`no quarterly report disclosed`);
    const v = of[item];
    if (v === null) throw new Missing(`${ITEM_NAMES[item]} not reported for ${quarterLabel(of)}`);
    return v;
  };
  const marketCap = (): number => {
    if (!price) throw new Missing('no price on or before the date');
    return positive(price.marketCap, 'market cap is not positive');
  };
  const growth = (current: number, previous: number, what: string): number => {
    const g = changePct(current, previous);
    if (g === null) throw new Missing(`${what} four quarters earlier is zero`);
    return g;
  };
  const eps = (t: Ttm | null, ni: number): number => ni / positive(balance('shares', t?.end ?? null), 'shares are not positive');

  const ni = (): number => positive(flow('netIncome'), 'TTM net income is not positive');
  const revenue = (): number => positive(flow('revenue'), 'TTM revenue is not positive (no revenue)');
  const costOfSales = (): number => positive(flow('costOfSales'), 'TTM cost of sales is not positive');
  const equity = (): number => positive(balance('equity'), 'equity is not positive');
  const x = 'x';
  const pct = '%';

  return {
    // Valuation (spec: PER, PBR, EV/EBIT) and PSR for the percentile.
    per: measure(x, ttmRef, priceDate, () => marketCap() / ni()),
    pbr: measure(x, latestRef, priceDate, () => marketCap() / equity()),
    psr: measure(x, ttmRef, priceDate, () => marketCap() / revenue()),
    evEbit: measure(x, ttmRef, priceDate, () => {
      const ev = marketCap() + balance('debt') - balance('cash');
      return ev / positive(flow('operatingIncome'), 'TTM operating income is not positive');
    }),
    // Profitability. ROIC is pre-tax: the model has no tax line.
    roe: measure(pct, ttmRef, null, () => (flow('netIncome') * 100) / equity()),
    roic: measure(pct, ttmRef, null, () => {
      const invested = positive(balance('equity') + balance('debt') - balance('cash'), 'invested capital (equity + debt - cash) is not positive');
      return (flow('operatingIncome') * 100) / invested;
    }),
    operatingMargin: measure(pct, ttmRef, null, () => (flow('operatingIncome') * 100) / revenue()),
    netMargin: measure(pct, ttmRef, null, () => (flow('netIncome') * 100) / revenue()),
    // Growth: TTM against the TTM four quarters earlier, (current - base) / |base|.
    revenueYoy: measure(pct, yoyRef, null, () => growth(flow('revenue'), baseFlow('revenue'), 'TTM revenue')),
    operatingIncomeYoy: measure(pct, yoyRef, null, () => growth(flow('operatingIncome'), baseFlow('operatingIncome'), 'TTM operating income')),
    epsYoy: measure(pct, yoyRef, null, () => growth(eps(ttm, flow('netIncome')), eps(base, baseFlow('netIncome')), 'TTM EPS')),
    // Stability.
    netDebtRatio: measure(pct, latestRef, null, () => ((balance('debt') - balance('cash')) * 100) / equity()),
    interestCoverage: measure(x, ttmRef, null, () => {
      const interest = flow('interestExpense');
      if (interest <= 0) throw new Missing('no interest expense');
      return flow('operatingIncome') / interest;
    }),
    currentRatio: measure(pct, latestRef, null, () => (balance('currentAssets') * 100) / positive(balance('currentLiabilities'), 'current liabilities are not positive')),
    // Cash generation.
    operatingCashFlow: measure(currency, ttmRef, null, () => flow('operatingCashFlow')),
    fcfYield: measure(pct, ttmRef, priceDate, () => ((flow('operatingCashFlow') - flow('capex')) * 100) / marketCap()),
    // Earnings quality.
    cfToNi: measure(x, ttmRef, null, () => flow('operatingCashFlow') / ni()),
    ccc: measure('days', ttmRef, null, () => {
      const dso = (balance('receivables') * 365) / revenue();
      const dio = (balance('inventory') * 365) / costOfSales();
      const dpo = (balance('payables') * 365) / costOfSales();
      return dso + dio - dpo;
    }),
  };
}

/** The snapshot groups, in their published order. */
export function snapshotGroups(m: StockMetrics): SnapshotGroups {
  return {
    valuation: { per: m.per, pbr: m.pbr, evEbit: m.evEbit },
    profitability: { roe: m.roe, roic: m.roic, operatingMargin: m.operatingMargin },
    growth: { revenueYoy: m.revenueYoy, epsYoy: m.epsYoy },
    stability: { netDebtRatio: m.netDebtRatio, interestCoverage: m.interestCoverage, currentRatio: m.currentRatio },
    cashGeneration: { operatingCashFlow: m.operatingCashFlow, fcfYield: m.fcfYield },
    earningsQuality: { cfToNi: m.cfToNi, ccc: m.ccc },
  };
}

export type PercentileValues = Record<PercentileMetricKey, Measured & { unit: string }>;

/** The 17 percentile metrics' raw values out of a stock's metrics. */
export function percentileValuesOf(m: StockMetrics): PercentileValues {
  const out = {} as PercentileValues;
  for (const key of PERCENTILE_METRICS) {
    const { value, reason, unit } = m[key];
    out[key] = reason === undefined ? { value, unit } : { value, reason, unit };
  }
  return out;
}

/**
 * A cohort's percentile ranks: each of the 17 metrics is sorted once (a cohort of n costs
 * O(17 n log n)), and the function returned makes one member's 17 entries, so a snapshot makes
 * them only for the stocks somebody asks about. An entry is the percentile (score.ts
 * `percentileRank`) of the member's raw value among the members that have a value for that
 * metric; `cohortSize` is how many have one. A member without a value gets a null percentile
 * and the value's reason.
 */
export function cohortRanker(members: Iterable<PercentileValues>): (member: PercentileValues) => PercentileEntry[] {
  const list = [...members];
  const rankers = PERCENTILE_METRICS.map((metric) => {
    const values: number[] = [];
    for (const v of list) {
      const value = v[metric].value;
      if (value !== null) values.push(value);
    }
    return { metric, rank: percentileRanker(values), cohortSize: values.length };
  });
  return (v) =>
    rankers.map(({ metric, rank, cohortSize }) => {
      const { value, reason, unit } = v[metric];
      if (value === null) return { metric, unit, value: null, reason: reason ?? 'no value', percentile: null, cohortSize };
      return { metric, unit, value, percentile: rank(value), cohortSize };
    });
}
