// The TTM snapshot of one stock and the raw values of the 17 sector-percentile metrics, with
// their cohort percentiles. Definitions: docs/calculations.md, "Snapshot metrics". An undefined
// ratio is null with a reason, never Infinity, NaN or 0.

import { changePct } from './change.js';
import { NO_OPERATING_INCOME_FILED, NOT_APPLICABLE_TO_FINANCIAL_METRICS, NOT_APPLICABLE_TO_FINANCIALS } from './financials.js';
import type { BalanceItem, Currency, FinancialReport, FlowItem } from './model.js';
import type { SplitEvent } from './price-change.js';
import { PERCENTILE_METRICS } from './results.js';
import type { Measured, PercentileEntry, PercentileMetricKey, SnapshotGroups, SnapshotMetric, SnapshotMetricKey } from './results.js';
import { percentileRanker } from './score.js';
import { ordinalOf, quarterLabel, ttmOfQuarters, type TtmView } from './ttm.js';
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
  basicEps: 'basic EPS',
  dividendPerShare: 'dividend per share',
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

// The metric objects are written out property by property, not by spreading `ref`: a spread's
// properties go to a separate backing store (a 40-byte array more for each of ~23 metrics of every
// stock of every computed day); the order of the keys is the answer's.
function measure(unit: string, ref: Ref, priceDate: string | null, compute: () => number): SnapshotMetric {
  try {
    return { value: compute(), unit, referenceQuarter: ref.referenceQuarter, disclosedOn: ref.disclosedOn, priceDate };
  } catch (e) {
    if (e instanceof Missing) return { value: null, reason: e.reason, unit, referenceQuarter: ref.referenceQuarter, disclosedOn: ref.disclosedOn, priceDate };
    throw e;
  }
}

/** `measure` of a figure whose computation also says its basis (`SnapshotMetric.basis`), kept on a null too. */
function measureWithBasis(unit: string, ref: Ref, priceDate: string | null, compute: () => { value: number; basis: string }, basisOfNull: () => string | undefined): SnapshotMetric {
  const { referenceQuarter, disclosedOn } = ref;
  try {
    const { value, basis } = compute();
    return { value, unit, referenceQuarter, disclosedOn, priceDate, basis };
  } catch (e) {
    if (!(e instanceof Missing)) throw e;
    const basis = basisOfNull();
    const { reason } = e;
    return basis === undefined ? { value: null, reason, unit, referenceQuarter, disclosedOn, priceDate } : { value: null, reason, unit, referenceQuarter, disclosedOn, priceDate, basis };
  }
}

/** EPS bases (docs/calculations.md, "EPS"). */
export const EPS_BASIS = {
  reported: 'reported basic EPS',
  quarterShares: 'net income / shares at the quarter end',
  listedQuarterShares: 'net income / listed shares at the quarter end',
  listedShares: 'net income / listed shares at the price date',
} as const;

/**
 * The period ends at which a KR stock's EPS needs the price feed's listed shares: those of its
 * latest fiscal quarter known at `asOf` and of the quarter four before it (the two TTMs EPS YoY
 * compares), where no filing of that quarter states a basic EPS or a share count.
 */
export function listedSharesWanted(reports: readonly Pick<FinancialReport, 'fiscalYear' | 'fiscalQuarter' | 'periodEnd' | 'disclosedOn' | 'basicEps' | 'shares'>[], asOf: string): string[] {
  const byOrdinal = new Map<number, { periodEnd: string; covered: boolean }>();
  for (const r of reports) {
    if (r.disclosedOn > asOf) continue;
    const o = ordinalOf(r.fiscalYear, r.fiscalQuarter);
    const held = byOrdinal.get(o);
    const covered = r.basicEps !== null || r.shares !== null;
    if (held) held.covered ||= covered;
    else byOrdinal.set(o, { periodEnd: r.periodEnd, covered });
  }
  if (byOrdinal.size === 0) return [];
  const latest = Math.max(...byOrdinal.keys());
  const out: string[] = [];
  for (const o of [latest, latest - 4]) {
    const q = byOrdinal.get(o);
    if (q && !q.covered) out.push(q.periodEnd);
  }
  return out;
}

/**
 * The filings with the price feed's listed shares (`listed`: the last bar's on or before each
 * period end) where a filing states no share count, put on the share basis of `asOf` (times the
 * factor of every split dated after the period end and on or before `asOf`): what the EPS of a KR
 * stock whose statements carry no basic EPS divides by (docs/calculations.md). Filings with a
 * count of their own, or without listed shares at their period end, are returned as they are.
 */
export function withListedShares<R extends Pick<FinancialReport, 'periodEnd' | 'shares'>>(reports: readonly R[], listed: ReadonlyMap<string, number>, splits: readonly SplitEvent[], asOf: string): R[] {
  if (listed.size === 0) return reports as R[];
  return reports.map((r) => {
    const shares = r.shares === null ? listed.get(r.periodEnd) : undefined;
    if (shares === undefined || !(shares > 0)) return r;
    let factor = 1;
    for (const split of splits) if (split.date > r.periodEnd && split.date <= asOf) factor *= split.factor;
    return { ...r, shares: Math.round(shares * factor) };
  });
}

/**
 * The filings with their per-share figures (basic EPS, dividend per share) on the share basis of
 * `asOf`: a figure filed before a split is divided by the factor of every split dated after its
 * disclosure and on or before `asOf` (a split before the disclosure is already in the filing,
 * IAS 33.64). For KR stocks, whose statements state per-share figures on the basis of their own
 * date and whose split events the store finds in the listed shares (`bar_splits`); US filings are
 * restated to the latest basis when read (src/sources/sec/parse.ts). Filings without a later
 * split are returned as they are.
 */
export function perShareOnBasisOf<R extends Pick<FinancialReport, 'disclosedOn' | 'basicEps' | 'dividendPerShare'>>(reports: readonly R[], splits: readonly SplitEvent[], asOf: string): R[] {
  if (splits.length === 0) return reports as R[];
  return reports.map((r) => {
    let factor = 1;
    for (const split of splits) if (split.date > r.disclosedOn && split.date <= asOf) factor *= split.factor;
    if (factor === 1) return r;
    return { ...r, basicEps: r.basicEps === null ? null : r.basicEps / factor, dividendPerShare: r.dividendPerShare === null ? null : r.dividendPerShare / factor };
  });
}

/** CCC's reason where the filings state no cost of sales (docs/calculations.md, CCC). */
export const NO_COST_OF_SALES = 'not applicable to a company that reports no cost of sales';

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
  // Operating income YoY applies to a financial company as its filings define operating income;
  // one whose filings at the date state none (a US bank's or insurer's) has no such figure.
  const oiYoy = metrics.operatingIncomeYoy;
  if (oiYoy.value === null && view.quarters.length > 0 && view.quarters.every((q) => q.operatingIncome === null)) {
    metrics.operatingIncomeYoy = { ...oiYoy, reason: NO_OPERATING_INCOME_FILED };
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
  // EPS: the filings' own basic EPS where every TTM it compares carries it (KR statements do),
  // else net income over the shares at each TTM's last quarter (US: split-consistent, restated to
  // the latest basis), else over the listed shares at the price date (KR statements state no
  // share count: one count for every TTM, so EPS growth is then net income growth). One basis for
  // the figures compared: `epsBasis` picks it from the TTMs that enter.
  const epsBasis = (ttms: readonly (Ttm | null)[]): string => {
    if (ttms.every((t) => t !== null && t.basicEps !== null)) return EPS_BASIS.reported;
    // KR statements state no share count: a KR quarter's shares are the price feed's listed shares (`withListedShares`).
    if (ttms.every((t) => t !== null && t.end.shares !== null)) return currency === 'KRW' ? EPS_BASIS.listedQuarterShares : EPS_BASIS.quarterShares;
    if (price && price.shares > 0) return EPS_BASIS.listedShares;
    const end = ttms.find((t) => t !== null && t.end.shares === null)?.end;
    throw new Missing(end ? `shares not reported for ${quarterLabel(end)} and no listed shares` : 'shares not reported and no listed shares');
  };
  const epsOf = (t: Ttm | null, basis: string, which: 'current' | 'base'): number => {
    const item = which === 'current' ? flow : baseFlow;
    if (basis === EPS_BASIS.reported) return item('basicEps');
    const shares = basis === EPS_BASIS.listedShares ? (price?.shares as number) : positive(balance('shares', t?.end ?? null), 'shares are not positive');
    return item('netIncome') / shares;
  };
  // The basis a null figure would have taken; none where a TTM it compares is missing.
  const basisOrNone = (ttms: readonly (Ttm | null)[]) => (): string | undefined => {
    if (ttms.some((t) => t === null)) return undefined;
    try {
      return epsBasis(ttms);
    } catch (e) {
      if (e instanceof Missing) return undefined;
      throw e;
    }
  };
  const dividendFy = view.quarters.findLast((q) => q.fiscalQuarter === 4) ?? null;
  const fyRef: Ref = dividendFy ? { referenceQuarter: quarterLabel(dividendFy), disclosedOn: dividendFy.filedOn } : { referenceQuarter: null, disclosedOn: null };
  const perShareUnit = currency;

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
    epsYoy: measureWithBasis(
      pct,
      yoyRef,
      null,
      () => {
        const basis = epsBasis([ttm, base]);
        return { value: growth(epsOf(ttm, basis, 'current'), epsOf(base, basis, 'base'), 'TTM EPS'), basis };
      },
      basisOrNone([ttm, base]),
    ),
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
    // A company with revenue whose income statement has no cost of sales (the by-nature form,
    // proven complete by the reader: TTM cost of sales 0) has no inventory or payables days: not
    // applicable. Without revenue, CCC is undefined (DSO divides by it).
    ccc: measure('days', ttmRef, null, () => {
      const sales = revenue();
      if (flow('costOfSales') === 0) throw new Missing(NO_COST_OF_SALES);
      const dso = (balance('receivables') * 365) / sales;
      const dio = (balance('inventory') * 365) / costOfSales();
      const dpo = (balance('payables') * 365) / costOfSales();
      return dso + dio - dpo;
    }),
    // Per share.
    eps: measureWithBasis(
      perShareUnit,
      ttmRef,
      null,
      () => {
        const basis = epsBasis([ttm]);
        return { value: epsOf(ttm, basis, 'current'), basis };
      },
      basisOrNone([ttm]),
    ),
    dividendPerShare: measure(perShareUnit, ttmRef, null, () => flow('dividendPerShare')),
    dividendPerShareFy: measure(perShareUnit, fyRef, null, () => {
      if (!dividendFy) throw new Missing('no annual report disclosed');
      const v = dividendFy.ytd.dividendPerShare;
      if (v === null) throw new Missing(`dividend per share not reported for ${quarterLabel(dividendFy)}`);
      return v;
    }),
    dividendYield: measure(pct, ttmRef, priceDate, () => {
      const dps = flow('dividendPerShare');
      if (!price) throw new Missing('no price on or before the date');
      return (dps * 100) / positive(price.close, 'close is not positive');
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
    perShare: { eps: m.eps, dividendPerShare: m.dividendPerShare, dividendPerShareFy: m.dividendPerShareFy, dividendYield: m.dividendYield },
  };
}

export type PercentileValues = Readonly<Record<PercentileMetricKey, Readonly<Measured & { unit: string }>>>;

/**
 * The 17 percentile metrics' raw values of a stock: its metrics themselves, read as their value,
 * reason and unit (a copy of each would be 18 more objects a stock in every computed day).
 */
export function percentileValuesOf(m: StockMetrics): PercentileValues {
  return m;
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
